"""Moving an embedded data directory from one shared graph to one graph per user.

Before tenant graphs, every user's nodes lived in one FalkorDB graph (``graphmem``) and
reads kept a user's by a ``userId`` filter. ``migrate_shared_graph`` copies each user's
nodes and edges into that user's own graph, user by user:

* a user's graph is written under its final name and marked done (``Tenant.migratedAt``)
  by the last write of its copy; a graph found without the mark (the process died while
  copying it) is deleted and copied again, so a user is copied whole or not at all;
* each copy is checked against the shared graph (nodes per label, edges per type and end
  labels) before it is marked done;
* the shared graph is deleted only after every user has been copied and checked; until
  then it is left as it was, and the next open resumes where this one stopped.

Nodes without an owner (no ``userId``: nobody could read them) and edges joining two users
(nothing wrote them; they would cross the new boundary) are not copied, and are reported.
A label or edge type this version does not know stops the migration (nothing is deleted).
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from graphmem.errors import GraphMemError
from graphmem.store.base import EDGE_ENDS
from graphmem.store.queries import LABELS, PASSAGE, Queries

log = logging.getLogger(__name__)

#: Nodes (or edges) read and written per query; a page of 384-d vectors is ~1 MB of text.
PAGE = 250
_KNOWN = (*LABELS, PASSAGE, "Access")

Graph = Any  # a falkordb Graph: .query(text, params), .ro_query(text, params)


class MigrationError(GraphMemError):
    """The shared graph holds something this version cannot copy; nothing was deleted."""


def migrate_shared_graph(*, shared_name: str, graph: Callable[[str], Graph],
                         tenant_name: Callable[[str], str], exists: Callable[[str], bool],
                         delete_graph: Callable[[str], None],
                         prepare: Callable[[Graph], None], queries: Queries,
                         now_ms: Callable[[], int]) -> list[str]:
    """Copy every user of the graph ``shared_name`` into its own graph, then delete it.

    ``graph(name)`` is a handle on a graph; ``tenant_name(user)`` the name of a user's
    graph; ``prepare(graph)`` creates a fresh graph's indexes; ``delete_graph(name)`` drops
    a graph (a missing one is fine). Returns the users copied.
    """
    shared = graph(shared_name)
    q = queries
    owners = _owners(shared, q)
    unowned = owners.pop(None, 0)
    users = sorted(u for u in owners if isinstance(u, str))
    log.info("the data directory holds one graph shared by %d users: copying each user's "
             "memory into its own graph (this happens once)", len(users))
    if unowned:
        log.warning("%d nodes without a userId (readable by nobody) are not copied", unowned)
    started = time.monotonic()
    for i, user in enumerate(users, 1):
        name = tenant_name(user)
        target = graph(name)
        owner = target_state(target, q) if exists(name) else None
        if owner is not None and owner[0] == user and owner[1] is not None:
            log.info("user %d/%d already copied", i, len(users))
            continue
        if owner is not None and owner[0] not in (None, user):
            raise MigrationError(f"graph {name} belongs to another user; nothing was deleted")
        delete_graph(name)  # an unfinished copy from an earlier run
        t0 = time.monotonic()
        nodes, edges = _copy_user(shared, target, user, q, prepare, now_ms)
        log.info("user %d/%d copied: %d nodes, %d edges in %.1f s (%.0f s so far)", i,
                 len(users), nodes, edges, time.monotonic() - t0, time.monotonic() - started)
    delete_graph(shared_name)
    log.info("migration done: %d users in %.1f s; the shared graph is deleted", len(users),
             time.monotonic() - started)
    return users


def target_state(graph: Graph, q: Queries) -> tuple[str | None, int | None] | None:
    """(owner, migratedAt) of a tenant graph; None when it has no owner mark yet."""
    rows = graph.ro_query(q.get("tenant_owner"), {"limit": 2}).result_set
    if len(rows) != 1:
        return None if not rows else (None, None)
    return rows[0][0], rows[0][1]


def _owners(shared: Graph, q: Queries) -> dict[str | None, int]:
    out: dict[str | None, int] = {}
    skip, page = 0, 10_000
    while True:
        rows = shared.ro_query(q.get("migrate_users"), {"skip": skip, "limit": page}).result_set
        for user, nodes in rows:
            out[user] = int(nodes)
        if len(rows) < page:
            return out
        skip += page


def _inventory(graph: Graph, user: str,
               q: Queries) -> tuple[Counter[str], Counter[tuple[str, str, str]], int]:
    """A user's nodes per label, own edges per (type, src label, dst label), foreign edges."""
    nodes: Counter[str] = Counter()
    for labels, count in graph.ro_query(q.get("migrate_inventory"), {"userId": user}).result_set:
        if len(labels) != 1 or labels[0] not in (*_KNOWN, "Tenant"):
            raise MigrationError(f"user {user!r} has {count} nodes labelled {labels}, which "
                                 f"this version does not know; nothing was deleted")
        if labels[0] != "Tenant":
            nodes[labels[0]] += int(count)
    edges: Counter[tuple[str, str, str]] = Counter()
    foreign = 0
    for own, kind, src, dst, count in graph.ro_query(
            q.get("migrate_inventory_edges"), {"userId": user}).result_set:
        if not own:
            foreign += int(count)
            continue
        key = (kind, src[0] if src else "", dst[0] if dst else "")
        if not _edge_known(*key):
            raise MigrationError(f"user {user!r} has {count} {kind} edges from {src} to {dst}, "
                                 f"which this version does not know; nothing was deleted")
        edges[key] += int(count)
    return nodes, edges, foreign


def _edge_known(kind: str, src: str, dst: str) -> bool:
    if EDGE_ENDS.get(kind) == (src, dst):
        return True
    if kind == "DERIVED_FROM":  # an abstraction's sources: relations or episodes
        return src == "Abstraction" and dst in LABELS
    # versions of an abstraction; an episode restating or contradicting an earlier one
    return kind in ("SUPERSEDES", "DISPUTED") and src == dst and src in ("Abstraction",
                                                                         "Episode")


def _copy_user(shared: Graph, target: Graph, user: str, q: Queries,
               prepare: Callable[[Graph], None], now_ms: Callable[[], int]) -> tuple[int, int]:
    want_nodes, want_edges, foreign = _inventory(shared, user, q)
    if foreign:
        log.warning("user %r: %d edges join its nodes to another user's and are not copied",
                    user, foreign)
    prepare(target)
    for label in _KNOWN:
        if want_nodes.get(label):
            _copy_nodes(shared, target, user, label, q)
    for (kind, src, dst) in sorted(want_edges):
        _copy_edges(shared, target, user, kind, src, dst, q)
    got_nodes, got_edges, got_foreign = _inventory(target, user, q)
    if got_nodes != want_nodes or got_edges != want_edges or got_foreign:
        raise MigrationError(f"the copy of user {user!r} does not match the shared graph "
                             f"(nodes {dict(got_nodes)} of {dict(want_nodes)}, edges "
                             f"{sum(got_edges.values())} of {sum(want_edges.values())}); "
                             f"nothing was deleted")
    target.query(q.get("migrate_done"), {"userId": user, "at": now_ms()})
    return sum(want_nodes.values()), sum(want_edges.values())


def _copy_nodes(shared: Graph, target: Graph, user: str, label: str, q: Queries) -> None:
    if label == "Access":
        read, write = q.get("migrate_read_access"), q.get("migrate_write_access")
    else:
        read = q.get("migrate_read_nodes", label=label)
        write = q.get("migrate_write_nodes", label=label)
    after = -1
    while True:
        rows = shared.ro_query(read, {"userId": user, "after": after, "limit": PAGE}).result_set
        if not rows:
            return
        batch = []
        for _, stored in rows:
            props = dict(stored)
            vector = props.pop("embedding", None)
            batch.append({"props": props, "embedding": vector} if label != "Access"
                         else {"props": props})
        target.query(write, {"rows": batch})
        after = rows[-1][0]


def _copy_edges(shared: Graph, target: Graph, user: str, kind: str, src: str, dst: str,
                q: Queries) -> None:
    read = q.get("migrate_read_edges", edge=kind, src=src, dst=dst)
    write = q.get("migrate_write_edges", edge=kind, src=src, dst=dst)
    after = -1
    while True:
        rows = shared.ro_query(read, {"userId": user, "after": after, "limit": PAGE}).result_set
        if not rows:
            return
        target.query(write, {"rows": [{"src": s, "dst": d, "props": dict(p or {})}
                                      for _, s, d, p in rows]})
        after = rows[-1][0]
