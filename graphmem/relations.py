"""Writing relations: claims of one group reconciled into a write plan; rows to models.

The service hands over validated statements; this module resolves their group, merges the
new claims with the stored ones, asks ``temporal.desired_nodes`` for the timeline, and
records the difference in the plan: new nodes, closed intervals (with a system-time log so
``knownAt`` reads stay exact), status changes, expired nodes and chain edges.

Time visibility is one rule (``visible_at``), kept in two forms that agree: the query
fragment ``cypher/fragments/relation_visible.cypher`` every relation listing filters with,
and this module's functions for the few places that check rows in memory (recall). Both
read ``beliefAt`` / ``beliefUntil``: the system times at which what graphmem believed about
a node changed (ascending), and the valid-until believed from each of them on
(``OPEN_UNTIL``: still open; ``NOT_BELIEVED``: expired, folded into another node).
"""

from __future__ import annotations

import base64
import binascii
import json
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from graphmem.errors import InvalidInputError
from graphmem.model import SCHEMA_VERSION, MemoryStatus, Relation, from_ms, make_id, normalize
from graphmem.store.base import NodeWrite, RelationPageQuery, Row, Store, WritePlan
from graphmem.temporal import Claim, DesiredNode, confidence_of, desired_nodes, status_at, until_at


@dataclass(slots=True)
class Statement:
    """A validated statement ready to be written (from addRelation or extraction)."""

    subject: str  # the names and statement exactly as sent: stored and shown as they are
    predicate: str
    object: str
    subject_id: str
    object_id: str
    category: str
    exclusive: bool
    claim: Claim
    statement: str
    importance: float = 0.5
    # The linked entities' normalised names: the group and the claim are keyed by entity,
    # so a statement naming an entity by an alias joins that entity's slot.
    subject_key: str = ""
    object_key: str = ""
    #: a project or workspace: its slots are its own (None: the user level)
    scope: str | None = None
    session_id: str | None = None  # of the first statement that made the relation

    def group(self, user_id: str) -> str:
        """The key of the group this statement competes in."""
        return group_key(user_id, self.subject_key or self.subject, self.predicate,
                         self.category, self.exclusive, self.object_key or self.object,
                         self.scope)


def group_key(user_id: str, subject: str, predicate: str, category: str, exclusive: bool,
              obj: str, scope: str | None = None) -> str:
    """A slot's key; a scope has slots of its own ("prefers tabs" in one project does not
    supersede "prefers spaces" in another), the user level's keys name no scope."""
    slot = f"x:{normalize(category)}" if exclusive else f"o:{normalize(obj)}"
    return make_id("grp", user_id, normalize(subject), normalize(predicate), slot,
                   *([f"scope:{scope}"] if scope else []))


def embedding_text(statement: str, category: str) -> str:
    """What a relation is embedded as: its statement plus the slot it fills, so "what editor
    does she use?" finds "Ana uses Neovim" (category ``tool:editor``)."""
    slot = category.split(":", 1)[1] if ":" in category else category
    if normalize(slot) in _GENERIC_CATEGORIES:
        return statement
    return f"{statement} ({slot.replace('_', ' ')})"


_GENERIC_CATEGORIES = {"", "fact", "preference", "tool", "identity", "work", "lesson", "goal",
                       "plan", "event"}


def default_statement(subject: str, predicate: str, obj: str) -> str:
    return f"{subject} {predicate.replace('_', ' ')} {obj}"


@dataclass(slots=True)
class GroupResult:
    """Which node holds each statement (in the order given; None for a stop claim), after
    the group is reconciled. Keyed by position, not by claim: equal claims of different
    statements (same object and start, another predicate) are different answers."""

    node_for: list[str | None] = field(default_factory=list)
    new_nodes: list[str] = field(default_factory=list)
    #: (later episode, earlier episode, reason): a claim of this write made a relation
    #: that supersedes one an earlier episode evidenced ("works at Shopify -> Stripe")
    replaced: list[tuple[str, str, str]] = field(default_factory=list)


Embed = Callable[[list[str]], list[list[float]]]


def reconcile_group(store: Store, plan: WritePlan, key: str, statements: list[Statement],
                    embed: Embed, embedding_model: str) -> GroupResult:
    """Merge ``statements`` (all of group ``key``) into the plan."""
    user = plan.user_id
    now = plan.at
    rows = {r["id"]: r for r in store.relation_group(user, key)}
    stored: set[Claim] = set()
    for row in rows.values():
        if row.get("expiredAt") is None:
            stored.update(Claim.from_json(c) for c in json.loads(row.get("claims") or "[]"))
    fresh: list[Claim] = []
    seen = {_claim_identity(c) for c in stored}
    for st in statements:
        ident = _claim_identity(st.claim)
        if ident not in seen:  # the same statement re-sent changes nothing
            seen.add(ident)
            fresh.append(st.claim)
    result = GroupResult()
    claims = stored | set(fresh)
    desired, edges = desired_nodes(key, claims)
    by_identity = {_claim_identity(c): c for c in claims}
    for st in statements:
        claim = by_identity[_claim_identity(st.claim)]
        # the newest: a claim told after its start is read in two segments
        result.node_for.append(next((node.id for node in reversed(desired)
                                     if claim in node.claims and not claim.stop), None))
    if not fresh:
        return result
    result.replaced = _replaced_episodes(desired, edges, set(fresh), statements[0].predicate)

    display = _display_map(rows.values(), statements)
    creates: list[tuple[DesiredNode, Row]] = []
    for node in desired:
        existing = rows.get(node.id)
        if existing is None:
            # A new node shows the first statement (as sent) that made it, else the stored
            # wording of its object.
            own = [st for st in statements
                   if by_identity[_claim_identity(st.claim)] in node.claims]
            template = own[0] if own else statements[0]
            creates.append((node, _new_props(node, template, display, key, user, now)))
            result.new_nodes.append(node.id)
        else:
            changes = _changes(existing, node, now)
            if changes:
                plan.update("Relation", node.id, changes)
    wanted = {n.id for n in desired}
    for rid, row in rows.items():
        if rid not in wanted and row.get("expiredAt") is None:
            plan.update("Relation", rid, {
                "expiredAt": now, "status": MemoryStatus.SUPERSEDED.value,
                "statusLog": _append(row.get("statusLog"), [now, MemoryStatus.SUPERSEDED.value]),
                "aliveLog": _append(row.get("aliveLog") or _alive_log_of(row), [now, 0]),
                **_believe(row, now, NOT_BELIEVED),
            })
    if creates:
        vectors = embed([embedding_text(props["statement"], props["category"])
                         for _, props in creates])
        for (node, props), vec in zip(creates, vectors, strict=True):
            props["embeddingModel"] = embedding_model
            plan.relations.append(NodeWrite(node.id, props, vec))
            plan.link("SUBJECT_OF", props["subjectId"], node.id, {"at": now})
            plan.link("OBJECT", node.id, props["objectId"], {"at": now})
    for node in desired:
        for ep in {c.episode_id for c in node.claims if c.episode_id and c in fresh}:
            plan.link("EVIDENCED_BY", node.id, ep, {"at": now})
        if node.id not in result.new_nodes:
            continue
        for ep in {c.episode_id for c in node.claims if c.episode_id and c not in fresh}:
            plan.link("EVIDENCED_BY", node.id, ep, {"at": now})
    _chain_edges(store, plan, list(rows) + result.new_nodes, edges)
    return result


def _claim_identity(c: Claim) -> tuple[Any, ...]:
    return (c.obj, c.start, c.until, c.stop, c.episode_id, c.source_ref)


def _display_map(rows: Any, statements: list[Statement]) -> dict[str, tuple[str, str, str]]:
    """normalised object -> (display object, object entity id, statement text)."""
    out: dict[str, tuple[str, str, str]] = {}
    for row in rows:
        out[row["objectNorm"]] = (row["object"], row["objectId"], row["statement"])
    for st in reversed(statements):  # the first statement of an object wins
        out[st.claim.obj] = (st.object, st.object_id, st.statement)
    return out


def _new_props(node: DesiredNode, template: Statement, display: dict[str, tuple[str, str, str]],
               key: str, user: str, now: int) -> Row:
    obj, obj_id, statement = display.get(node.obj, (node.obj, "", node.obj))
    if template.claim.obj == node.obj:
        obj, obj_id, statement = template.object, template.object_id, template.statement
    return {
        "id": node.id, "userId": user, "createdAt": now,
        "subject": template.subject, "predicate": template.predicate, "object": obj,
        "subjectNorm": template.subject_key or normalize(template.subject),
        "predicateNorm": normalize(template.predicate), "objectNorm": node.obj,
        "subjectId": template.subject_id, "objectId": obj_id, "statement": statement,
        "category": template.category, "exclusive": template.exclusive,
        "confidence": confidence_of(node.claims), "importance": template.importance,
        "validFrom": node.start, "validUntil": node.end,
        "recordedAt": now, "expiredAt": None, "status": node.status.value,
        "groupKey": key, "forgottenAt": None,
        "scope": template.scope, "sessionId": template.session_id,
        "sourceRefs": sorted({c.source_ref for c in node.claims if c.source_ref}),
        "episodeIds": sorted({c.episode_id for c in node.claims if c.episode_id}),
        "claims": json.dumps([c.to_json() for c in _sorted(node.claims)]),
        "untilLog": json.dumps([[now, node.end]]),
        "aliveLog": json.dumps([[now, 1]]),
        "beliefAt": [now], "beliefUntil": [_encode_until(node.end)],
        "statusLog": json.dumps([[now, node.status.value]]),
        "accessCount": 0, "schemaVersion": SCHEMA_VERSION,
    }


def _sorted(claims: list[Claim]) -> list[Claim]:
    return sorted(claims, key=lambda c: (c.start, c.recorded, c.obj, c.stop))


def _changes(row: Row, node: DesiredNode, now: int) -> Row:
    changes: Row = {}
    if row.get("expiredAt") is not None:
        # Wanted again after it had been folded into another node: believed again from now,
        # and the alive log keeps the gap so knownAt reads inside it stay exact.
        changes["expiredAt"] = None
        changes["aliveLog"] = _append(row.get("aliveLog") or _alive_log_of(row), [now, 1])
    if row.get("validUntil") != node.end:
        changes["validUntil"] = node.end
        changes["untilLog"] = _append(row.get("untilLog"), [now, node.end])
    if row.get("status") != node.status.value:
        changes["status"] = node.status.value
        changes["statusLog"] = _append(row.get("statusLog"), [now, node.status.value])
    if changes.keys() & {"expiredAt", "validUntil"} or row.get("beliefAt") is None:
        changes.update(_believe(row, now, _encode_until(node.end)))
    claims = json.dumps([c.to_json() for c in _sorted(node.claims)])
    if claims != row.get("claims"):
        changes["claims"] = claims
        changes["confidence"] = confidence_of(node.claims)
        changes["sourceRefs"] = sorted({c.source_ref for c in node.claims if c.source_ref})
        changes["episodeIds"] = sorted({c.episode_id for c in node.claims if c.episode_id})
    return changes


def _append(raw: str | None, entry: list[Any]) -> str:
    log = json.loads(raw) if raw else []
    log.append(entry)
    return json.dumps(log)


def _replaced_episodes(desired: list[DesiredNode], edges: set[tuple[str, str, str]],
                       fresh: set[Claim], predicate: str) -> list[tuple[str, str, str]]:
    """(later episode, earlier episode, reason) for each relation that supersedes another
    where a fresh claim (of this write) evidences either: the messages that evidence the
    two are versions of one fact."""
    by_id = {n.id: n for n in desired}
    out: list[tuple[str, str, str]] = []
    for kind, src, dst in sorted(edges):
        if kind != "SUPERSEDES" or src not in by_id or dst not in by_id:
            continue
        new, old = by_id[src], by_id[dst]
        if new.obj == old.obj:
            continue  # the same value again after another: no new version of it
        new_eps, old_eps = _evidence(new, fresh), _evidence(old, fresh)
        why = f"{predicate.replace('_', ' ')} {old.obj} -> {new.obj}"
        out += [(a, b, why) for a in sorted(new_eps) for b in sorted(old_eps)
                if a != b and (new_eps[a] or old_eps[b])]
    # a message that ends a relation ("Callum and I broke up", 跟李航分手了) is the newer
    # version of the messages that said it: for a question about now, the ending is what holds
    for node in desired:
        if node.end is None:
            continue
        ended = {c.episode_id: c in fresh for c in node.claims
                 if c.stop and c.episode_id and c.obj == node.obj and c.start == node.end}
        if not ended:
            continue
        said = _evidence(node, fresh)
        why = f"ended: {predicate.replace('_', ' ')} {node.obj}"
        out += [(a, b, why) for a in sorted(ended) for b in sorted(said)
                if a != b and (ended[a] or said[b])]
    return out


def _evidence(node: DesiredNode, fresh: set[Claim]) -> dict[str, bool]:
    """The episodes whose claims say ``node``'s object: is one of them fresh?"""
    out: dict[str, bool] = {}
    for c in node.claims:
        if c.episode_id and not c.stop and c.obj == node.obj:
            out[c.episode_id] = out.get(c.episode_id, False) or c in fresh
    return out


def _chain_edges(store: Store, plan: WritePlan, ids: list[str],
                 desired: set[tuple[str, str, str]]) -> None:
    existing = {(e["type"], e["src"], e["dst"]) for e in store.chain_edges(plan.user_id, ids)
                if e.get("expiredAt") is None}
    for edge_type, src, dst in sorted(desired - existing):
        plan.link(edge_type, src, dst, {"at": plan.at, "expiredAt": None})
    for edge_type, src, dst in sorted(existing - desired):
        plan.unlink(edge_type, src, dst)


# ---------------------------------------------------------------------- reads


def _adjusted(row: Row, key: str, default: float) -> float:
    """A stored value plus its feedback adjustment (``{key}Adjust``), within [0, 1]."""
    raw = row.get(key)
    value = default if raw is None else float(raw)
    adjust = float(row.get(f"{key}Adjust") or 0.0)
    return round(min(1.0, max(0.0, value + adjust)), 6) if adjust else value


def relation_from_row(row: Row, *, known_at: int | None = None,
                      edges: list[Row] | None = None) -> Relation:
    """A ``Relation`` as believed at ``known_at`` (system time); now when None."""
    until, status = believed(row, known_at)
    sup, sup_by, disp = [], [], []
    for e in edges or []:
        if known_at is not None and (e.get("at") or 0) > known_at:
            continue
        closed = e.get("expiredAt")
        if closed is not None and (known_at is None or closed <= known_at):
            continue
        if e["type"] == "SUPERSEDES":
            if e["src"] == row["id"]:
                sup.append(e["dst"])
            elif e["dst"] == row["id"]:
                sup_by.append(e["src"])
        elif e["type"] == "DISPUTED" and row["id"] in (e["src"], e["dst"]):
            disp.append(e["dst"] if e["src"] == row["id"] else e["src"])
    return Relation(
        id=row["id"], user_id=row["userId"], created_at=_dt(row["createdAt"]),
        subject=row["subject"], predicate=row["predicate"], object=row["object"],
        subject_id=row.get("subjectId") or "", object_id=row.get("objectId") or "",
        statement=row["statement"], category=row.get("category") or "fact",
        # with what feedback added (graphmem.lifecycle), kept apart from the derived values
        exclusive=bool(row.get("exclusive")), confidence=_adjusted(row, "confidence", 0.0),
        importance=_adjusted(row, "importance", 0.5),
        valid_from=_dt(row["validFrom"]), valid_until=from_ms(until),
        recorded_at=_dt(row["recordedAt"]), expired_at=from_ms(row.get("expiredAt")),
        status=status, group_key=row["groupKey"], forgotten_at=from_ms(row.get("forgottenAt")),
        source_refs=list(row.get("sourceRefs") or []),
        episode_ids=list(row.get("episodeIds") or []),
        scope=row.get("scope"), session_id=row.get("sessionId"),
        access_count=int(row.get("accessCount") or 0),
        last_accessed_at=from_ms(row.get("lastAccessedAt")),
        embedding_model=row.get("embeddingModel"),
        schema_version=str(row.get("schemaVersion") or SCHEMA_VERSION),
        supersedes_ids=sorted(sup), superseded_by_ids=sorted(sup_by), disputes_ids=sorted(disp),
    )


def believed(row: Row, known_at: int | None) -> tuple[int | None, MemoryStatus]:
    """A relation's valid-until and status as believed at ``known_at`` (now when None)."""
    until = row.get("validUntil")
    status = MemoryStatus(row.get("status") or "ACTIVE")
    if known_at is not None:
        _, until = until_at(json.loads(row.get("untilLog") or "[]"), known_at)
        status = status_at(json.loads(row.get("statusLog") or "[]"), known_at) or status
    if row.get("forgottenAt") is not None:
        status = MemoryStatus.FORGOTTEN
    return until, status


#: ``beliefUntil`` values for "valid with no end" and "not believed at all"; powers of two,
#: so they stay exact whatever number type a store reads them back as.
OPEN_UNTIL = 2**62
NOT_BELIEVED = -(2**62)


def visible_at(row: Row, as_of: int, known_at: int) -> bool:
    """The time-visibility rule: not forgotten, and valid at ``as_of`` as believed at
    ``known_at`` (the query fragment ``relation_visible`` says the same in Cypher)."""
    return row.get("forgottenAt") is None and valid_at(row, as_of, known_at)


def valid_at(row: Row, as_of: int, known_at: int) -> bool:
    """Was the relation valid at ``as_of`` as believed at ``known_at``?"""
    until = believed_until(row, known_at)
    return until is not None and row["validFrom"] <= as_of < until


def valid_during(row: Row, start: int, end: int, known_at: int) -> bool:
    """Was the relation, as believed at ``known_at``, valid at some time in [start, end)?"""
    until = believed_until(row, known_at)
    return until is not None and row["validFrom"] < end and until > start


def believed_until(row: Row, known_at: int) -> int | None:
    """The valid-until (``OPEN_UNTIL`` when open) believed at system time ``known_at``;
    None when the node was not believed then (not yet recorded, or expired)."""
    at, until = belief_of(row)
    i = bisect_right(at, known_at)
    if i == 0 or until[i - 1] == NOT_BELIEVED:
        return None
    return until[i - 1]


def belief_of(row: Row) -> tuple[list[int], list[int]]:
    """A node's ``(beliefAt, beliefUntil)``; for a node written before they were stored,
    derived from its alive and until logs (the same answers, as arrays)."""
    at, until = row.get("beliefAt"), row.get("beliefUntil")
    if at is not None and until is not None:
        return [int(x) for x in at], [int(x) for x in until]
    alive_log = json.loads(row.get("aliveLog") or _alive_log_of(row))
    until_log = json.loads(row.get("untilLog") or "[]")
    out_at: list[int] = []
    out_until: list[int] = []
    for t in sorted({int(e[0]) for e in [*alive_log, *until_log] if e[0] is not None}):
        alive = False
        for a, flag in alive_log:
            if a > t:
                break
            alive = bool(flag)
        known, value = until_at(until_log, t)
        _push(out_at, out_until, t, _encode_until(value) if alive and known else NOT_BELIEVED)
    return out_at, out_until


def _encode_until(until: int | None) -> int:
    return OPEN_UNTIL if until is None else until


def _push(at: list[int], until: list[int], now: int, value: int) -> None:
    """Record that from ``now`` on, ``value`` is believed (one entry per instant)."""
    if at and at[-1] == now:
        until[-1] = value
    elif not until or until[-1] != value:
        at.append(now)
        until.append(value)


def _believe(row: Row, now: int, value: int) -> Row:
    at, until = belief_of(row)
    _push(at, until, now, value)
    return {"beliefAt": at, "beliefUntil": until}


def alive_at(row: Row, known_at: int) -> bool:
    """Was the node part of what graphmem believed at system time ``known_at``?"""
    return believed_until(row, known_at) is not None


def _alive_log_of(row: Row) -> str:
    """The alive log implied by recordedAt/expiredAt, for nodes written without one."""
    log = [[row["recordedAt"], 1]]
    if row.get("expiredAt") is not None:
        log.append([row["expiredAt"], 0])
    return json.dumps(log)


def _dt(ms: int) -> datetime:
    value = from_ms(ms)
    assert value is not None
    return value


# ---------------------------------------------------------------------- listing pages


@dataclass(slots=True)
class RelationPage:
    """One page of a relation listing; ``next_cursor`` continues it (None: the last page)."""

    items: list[Relation]
    next_cursor: str | None


def page_query(*, as_of: int | None, known_at: int | None, now: int, history: bool,
               newest_first: bool | None, after: str | None, limit: int) -> RelationPageQuery:
    """The listing asked for: times default to ``now``; current facts come newest first and
    history oldest first unless ``newest_first`` says otherwise. A cursor carries the times
    and order of the listing it came from, so every page reads the same snapshot."""
    order = (not history) if newest_first is None else newest_first
    if after is None:
        return RelationPageQuery(as_of=None if history else (now if as_of is None else as_of),
                                 known_at=now if known_at is None else known_at,
                                 history=history, newest_first=order, limit=limit)
    try:
        raw = json.loads(base64.urlsafe_b64decode(after.encode("ascii")))
        c_as_of, c_known, c_history, c_order, (vf, ra, rid) = raw
        position = (int(vf), int(ra), str(rid))
    except (ValueError, TypeError, UnicodeError, binascii.Error):
        raise InvalidInputError("after", "is not a cursor of a relation listing") from None
    if (c_history, c_order) != (history, order) or (as_of is not None and as_of != c_as_of) \
            or (known_at is not None and known_at != c_known):
        raise InvalidInputError("after", "belongs to a listing with other asOf, knownAt, "
                                         "includeHistory or order")
    return RelationPageQuery(as_of=c_as_of, known_at=int(c_known), history=history,
                             newest_first=order, after=position, limit=limit)


def fetch_page(store: Store, user_id: str, query: RelationPageQuery,
               read: Callable[[RelationPageQuery], list[Row]]) -> RelationPage:
    """Run ``read`` for one row more than the page holds (so the last page says so), and
    turn the rows into relations as believed at the query's ``known_at``."""
    rows = read(replace(query, limit=query.limit + 1))
    more = len(rows) > query.limit
    rows = rows[:query.limit]
    edges = store.chain_edges(user_id, [r["id"] for r in rows])
    items = [relation_from_row(r, known_at=query.known_at, edges=edges) for r in rows]
    cursor = None
    if more and rows:
        last = rows[-1]
        cursor = base64.urlsafe_b64encode(json.dumps(
            [query.as_of, query.known_at, query.history, query.newest_first,
             [last["validFrom"], last["recordedAt"], last["id"]]],
            separators=(",", ":")).encode()).decode("ascii")
    return RelationPage(items, cursor)
