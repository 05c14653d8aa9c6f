"""Export one user's memory to JSONL and import it back, losslessly.

Format (one JSON object per line):

    {"type": "header", "format": "graphmem-export", "version": 1, "userId": ..., ...}
    {"type": "node", "label": "Episode", "props": {...every stored property...}}
    {"type": "edge", "edge": "SUPERSEDES", "src": ..., "dst": ..., "props": {...}}
    {"type": "edge", "edge": "SUPERSEDES", "ends": ["Episode", "Episode"], ...}

An edge between the labels its type usually joins (``EDGE_ENDS``) carries no ``ends``; the
versions of an abstraction and of an episode (SUPERSEDES / DISPUTED between two
abstractions or two episodes) name theirs.

Every stored property travels as it is (times as epoch ms, the claim / until / status logs
that make ``knownAt`` reads exact, forgotten marks, access counters), and so does every
edge with its own system-time properties: an import reproduces the graph, history included.

Embeddings are not exported: they are recomputed on import with the importing instance's
embedder (from each node's text, exactly as the service embeds it), and ``embeddingModel``
is set to that model, so an export moves between instances with different embedders.

An import writes only into the user its header names. The whole file is checked before
anything is written, and the first bad record stops the import with its line number:
every node must belong to that user and carry the properties reads rely on (storable
values only, instants in range, no control characters), every edge must join two nodes of
the file of the kinds it joins, and no id of the file may already name a node of another
user in the store (an error, not a fresh id: ids are derived from their owner, so such a
file was not exported from that user; nothing is moved or overwritten).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from graphmem import __version__
from graphmem._guard_fields import guard_record, may_reject
from graphmem.errors import InvalidInputError
from graphmem.guard import GuardPolicy
from graphmem.inputs import bad_char, check_id
from graphmem.model import SCHEMA_VERSION, instant_in_range, to_ms, utcnow
from graphmem.relations import belief_of
from graphmem.service import MemoryService
from graphmem.store.base import EDGE_ENDS, VERSION_EDGES, NodeWrite, Row, Store, WritePlan

FORMAT = "graphmem-export"
VERSION = 1
LABELS = ("Episode", "Entity", "Relation", "Abstraction")
#: edges between two nodes of one label other than the type's usual ends: the versions of
#: abstractions and of episodes
_SAME_LABEL = ("Abstraction", "Episode")
# Labels a WritePlan can carry; abstractions arrive with the reflection work.
_PLAN_LIST = {"Episode": "episodes", "Entity": "entities", "Relation": "relations",
              "Abstraction": "abstractions"}
_PAGE = 500
_NODE_BATCH = 200
_EDGE_BATCH = 1000
_ID_PREFIX = {"Episode": "epi_", "Entity": "ent_", "Relation": "rel_", "Abstraction": "abs_"}
# What the reads index directly: a node without one of these would break its user's reads.
_REQUIRED = {
    "Episode": ("content", "occurredAt", "recordedAt", "createdAt"),
    "Entity": ("name", "normName", "createdAt"),
    "Relation": ("subject", "predicate", "object", "statement", "groupKey", "validFrom",
                 "recordedAt", "createdAt"),
    "Abstraction": ("conclusion", "createdAt"),
}
_INSTANTS = {"createdAt", "recordedAt", "validFrom", "validUntil", "occurredAt", "expiredAt",
             "forgottenAt", "lastAccessedAt", "at"}
_JSON_LISTS = {"claims", "untilLog", "aliveLog", "statusLog", "resolutions", "feedbackLog",
               "forgetLog"}
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_INT64 = 2**63


def embedding_text(label: str, props: Row) -> str:
    """The text a node's vector is computed from (as the service does when writing)."""
    if label == "Episode":
        return str(props.get("content") or "")[:2000]
    if label == "Entity":
        return str(props.get("name") or "")
    if label == "Relation":
        return str(props.get("statement") or "")
    return str(props.get("conclusion") or "")


@dataclass(slots=True)
class TransferSummary:
    user_id: str
    nodes: dict[str, int] = field(default_factory=dict)
    edges: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)

    def describe(self) -> str:
        nodes = ", ".join(f"{n} {k.lower()}s" for k, n in self.nodes.items() if n) or "no nodes"
        edges = sum(self.edges.values())
        text = f"user {self.user_id}: {nodes}; {edges} edges"
        if any(self.skipped.values()):
            text += "; skipped " + ", ".join(f"{n} {k}" for k, n in self.skipped.items() if n)
        return text


def export_user(service: MemoryService, user_id: str, out: IO[str],
                scope: str | None = None, session_id: str | None = None) -> TransferSummary:
    """Write every node and edge of ``user_id`` as JSONL to ``out``; with a ``scope``, the
    episodes, relations and abstractions of that scope (not the user level's), the entities
    they name and the edges among them; with a ``session_id``, that session's episodes and
    relations (a relation's session is the one that first stated it), likewise."""
    user_id = check_id(user_id, "userId") or ""
    scope = check_id(scope, "scope", required=False)
    session_id = check_id(session_id, "sessionId", required=False)
    store = service.store
    summary = TransferSummary(user_id)
    header = {"type": "header", "format": FORMAT, "version": VERSION, "userId": user_id,
              "exportedAt": to_ms(utcnow()), "graphmemVersion": __version__,
              "schemaVersion": SCHEMA_VERSION, "store": store.name,
              "embeddingModel": service.embedder.model_id, "embeddings": "recomputed on import"}
    keep = None if scope is None and session_id is None else _part_ids(
        store, user_id, scope, session_id)
    if scope is not None:
        header["scope"] = scope
    if session_id is not None:
        header["sessionId"] = session_id
    out.write(_dump(header))
    for label in LABELS:
        count, skip = 0, 0
        while True:
            rows = store.export_nodes(label, user_id, skip, _PAGE)
            for row in rows:
                if keep is None or row["id"] in keep:
                    out.write(_dump({"type": "node", "label": label, "props": row}))
                    count += 1
            if len(rows) < _PAGE:
                break
            skip += _PAGE
        summary.nodes[label] = count
    for edge in EDGE_ENDS:
        rows = _kept(store.export_edges(edge, user_id), keep)
        for row in rows:
            out.write(_dump({"type": "edge", "edge": edge, "src": row["src"], "dst": row["dst"],
                             "props": row.get("props") or {}}))
        summary.edges[edge] = len(rows)
    for label in _SAME_LABEL:
        for edge in VERSION_EDGES:
            rows = _kept(store.export_edges(edge, user_id, ends=(label, label)), keep)
            for row in rows:
                out.write(_dump({"type": "edge", "edge": edge, "ends": [label, label],
                                 "src": row["src"], "dst": row["dst"],
                                 "props": row.get("props") or {}}))
            summary.edges[edge] = summary.edges.get(edge, 0) + len(rows)
    return summary


def _part_ids(store: Store, user_id: str, scope: str | None,
              session_id: str | None) -> set[str]:
    """The ids a scope's or session's export holds: its episodes, relations and (for a
    scope) abstractions, and the entities its relations join or its episodes mention."""
    keep: set[str] = set()
    labels = ("Episode", "Relation") if session_id is not None else (
        "Episode", "Relation", "Abstraction")
    for label in labels:
        skip = 0
        while True:
            rows = store.export_nodes(label, user_id, skip, _PAGE)
            for row in rows:
                if (scope is None or row.get("scope") == scope) and (
                        session_id is None or row.get("sessionId") == session_id):
                    keep.add(row["id"])
                    keep.update(str(row[k]) for k in ("subjectId", "objectId") if row.get(k))
            if len(rows) < _PAGE:
                break
            skip += _PAGE
    keep.update(str(e["dst"]) for e in store.export_edges("MENTIONS", user_id)
                if e["src"] in keep)
    return keep


def _kept(rows: list[Row], keep: set[str] | None) -> list[Row]:
    return rows if keep is None else [r for r in rows if r["src"] in keep and r["dst"] in keep]


def _ends(rec: dict[str, Any]) -> tuple[str, str]:
    """The labels an edge record joins: its ``ends``, or its type's usual ones."""
    ends = rec.get("ends")
    return (ends[0], ends[1]) if isinstance(ends, list) and len(ends) == 2 \
        else EDGE_ENDS[rec["edge"]]


def import_file(service: MemoryService, path: Path,
                progress: Callable[[str], None] | None = None) -> TransferSummary:
    """Write the nodes and edges of an export into the store (idempotent: ids are kept).

    The whole file is checked before anything is written; errors name the line. Nodes go
    in batches (one transaction each), then edges, so a re-run after an interruption
    completes the import.
    """
    scan = _scan(path)
    user_id = scan.user_id
    _refuse_foreign_ids(service, scan)
    policy = GuardPolicy.from_settings(service.settings)
    if may_reject(policy):  # the guard may refuse the file: before anything is written
        for record in _records(path):
            guard_record(record, policy)
    summary = TransferSummary(user_id)
    embedder = service.embedder
    at = to_ms(service.clock()) or 0
    batch: list[tuple[str, Row]] = []

    def flush_nodes() -> None:
        if not batch:
            return
        vectors = embedder.embed([embedding_text(label, props) for label, props in batch])
        plan = WritePlan(user_id=user_id, at=at)
        for (label, props), vec in zip(batch, vectors, strict=True):
            if props.get("embeddingModel") is not None:
                props = {**props, "embeddingModel": embedder.model_id}
            if label == "Relation" and props.get("beliefAt") is None:
                # an export from before the belief arrays: derived from the node's logs
                belief_at, belief_until = belief_of(props)
                props = {**props, "beliefAt": belief_at, "beliefUntil": belief_until}
            getattr(plan, _PLAN_LIST[label]).append(NodeWrite(props["id"], props, vec))
        service.apply(plan)
        batch.clear()
        if progress:
            progress(f"imported {sum(summary.nodes.values())} nodes")

    for record in _records(path):
        if record["type"] != "node":
            continue
        record = guard_record(record, policy)
        label = record["label"]
        if label not in _PLAN_LIST:
            summary.skipped[label] = summary.skipped.get(label, 0) + 1
            continue
        batch.append((label, record["props"]))
        summary.nodes[label] = summary.nodes.get(label, 0) + 1
        if len(batch) >= _NODE_BATCH:
            flush_nodes()
    flush_nodes()

    plan = WritePlan(user_id=user_id, at=at)
    pending = 0
    for record in _records(path):
        if record["type"] != "edge":
            continue
        record = guard_record(record, policy)
        edge, ends = record["edge"], _ends(record)
        link = plan.link if ends == EDGE_ENDS[edge] else \
            plan.link_versions if ends[0] == "Abstraction" else plan.link_episodes
        link(edge, record["src"], record["dst"], record.get("props") or {})
        summary.edges[record["edge"]] = summary.edges.get(record["edge"], 0) + 1
        pending += 1
        if pending >= _EDGE_BATCH:
            service.apply(plan)
            plan, pending = WritePlan(user_id=user_id, at=at), 0
    service.apply(plan)
    if progress:
        progress(f"imported {sum(summary.edges.values())} edges")
    return summary


def _records(path: Path) -> Iterator[dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def validate_export(path: Path) -> str:
    """The export's userId, after checking every line; InvalidInputError names the line."""
    return _scan(path).user_id


@dataclass(slots=True)
class _Scan:
    user_id: str
    nodes: dict[str, tuple[str, int]] = field(default_factory=dict)  # id -> (label, line)


def _scan(path: Path) -> _Scan:
    """Check the whole file (see the module docstring); the first problem names its line."""
    scan: _Scan | None = None
    edges: list[tuple[int, str, str, str, tuple[str, str]]] = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, start=1):
            if not line.strip():
                continue
            where = f"line {n}"
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as e:
                raise InvalidInputError(where, f"not JSON ({e.msg})") from None
            if not isinstance(rec, dict):
                raise InvalidInputError(where, "must be a JSON object")
            kind = rec.get("type")
            if scan is None:
                if kind != "header" or rec.get("format") != FORMAT:
                    raise InvalidInputError(where, f"not a {FORMAT} file (no header line)")
                if rec.get("version") != VERSION:
                    raise InvalidInputError(where, f"unsupported version {rec.get('version')!r}"
                                                   f" (this graphmem reads {VERSION})")
                scan = _Scan(check_id(rec.get("userId"), f"{where}: userId") or "")
            elif kind == "node":
                label, node_id = _check_node(rec, scan.user_id, where)
                if node_id in scan.nodes:
                    raise InvalidInputError(where, f"id {node_id!r} is already on line "
                                                   f"{scan.nodes[node_id][1]}")
                scan.nodes[node_id] = (label, n)
            elif kind == "edge":
                if rec.get("edge") not in EDGE_ENDS or not isinstance(rec.get("src"), str) \
                        or not isinstance(rec.get("dst"), str):
                    raise InvalidInputError(where, "an edge needs a known type, src and dst")
                ends = rec.get("ends")
                if ends is not None and not (
                        isinstance(ends, list) and len(ends) == 2 and ends[0] == ends[1]
                        and ends[0] in _SAME_LABEL and rec["edge"] in VERSION_EDGES):
                    raise InvalidInputError(where, "an edge's ends, when given, are two "
                                                   "Abstraction or two Episode labels of a "
                                                   "SUPERSEDES or DISPUTED edge")
                props = rec.get("props", {})
                if not isinstance(props, dict):
                    raise InvalidInputError(where, "edge props must be an object")
                _check_props(props, where)
                edges.append((n, rec["edge"], rec["src"], rec["dst"], _ends(rec)))
            else:
                raise InvalidInputError(where, f"unknown record type {kind!r}")
    if scan is None:
        raise InvalidInputError("file", "is empty")
    for n, edge, src, dst, labels in edges:  # ends are checked once every node is seen
        for end, want in zip((src, dst), labels, strict=True):
            if scan.nodes.get(end, ("", 0))[0] != want:
                raise InvalidInputError(f"line {n}", f"a {edge} edge joins {want} nodes of "
                                                     f"this file; {end[:80]!r} is not one")
    return scan


def _check_node(rec: dict[str, Any], user_id: str, where: str) -> tuple[str, str]:
    label, props = rec.get("label"), rec.get("props")
    if label not in LABELS or not isinstance(props, dict):
        raise InvalidInputError(where, "a node needs a known label and props")
    node_id = props.get("id")
    if not isinstance(node_id, str) or props.get("userId") != user_id:
        raise InvalidInputError(where, f"a node needs an id and userId {user_id!r}")
    check_id(node_id, f"{where}: id")
    if not node_id.startswith(_ID_PREFIX[label]):
        raise InvalidInputError(where, f"a {label} id starts with {_ID_PREFIX[label]!r}")
    missing = [k for k in _REQUIRED[label] if props.get(k) is None]
    if missing:
        raise InvalidInputError(where, f"a {label} needs {', '.join(missing)}")
    _check_props(props, where)
    return label, node_id


def _check_props(props: dict[str, Any], where: str) -> None:
    """Only values every store keeps as they are: no maps, no nested or mixed lists."""
    for key, value in props.items():
        if not _KEY.fullmatch(key) or key == "embedding":
            raise InvalidInputError(where, f"property name {key[:80]!r} is not allowed")
        field_name = f"{where}: {key}"
        if key in _INSTANTS:
            if value is not None and not instant_in_range(value):
                raise InvalidInputError(field_name, "must be epoch milliseconds in years "
                                                    "1..9999")
            continue
        items = value if isinstance(value, list) else [value]
        if len({type(v) for v in items}) > 1:
            raise InvalidInputError(field_name, "a list must hold values of one type")
        for v in items:
            _check_value(v, field_name, in_list=isinstance(value, list))
        if key in _JSON_LISTS and value is not None:
            try:
                parsed = json.loads(value) if isinstance(value, str) else None
            except ValueError:
                parsed = None
            if not isinstance(parsed, list):
                raise InvalidInputError(field_name, "must be a JSON list")


def _check_value(v: Any, field_name: str, *, in_list: bool) -> None:
    if v is None and not in_list or isinstance(v, bool):
        return
    if isinstance(v, int):
        if not -_INT64 <= v < _INT64:
            raise InvalidInputError(field_name, "integer out of range")
    elif isinstance(v, float):
        if not math.isfinite(v):
            raise InvalidInputError(field_name, "must be a finite number")
    elif isinstance(v, str):
        if (problem := bad_char(v)) is not None:
            raise InvalidInputError(field_name, problem)
    else:
        raise InvalidInputError(field_name, "must be a string, number, boolean or a list of "
                                            "one of them")


def _refuse_foreign_ids(service: MemoryService, scan: _Scan) -> None:
    """No id of the file may name another user's node: checked before anything is written."""
    by_label: dict[str, list[str]] = {}
    for node_id, (label, _) in scan.nodes.items():
        by_label.setdefault(label, []).append(node_id)
    for label, ids in by_label.items():
        for i in range(0, len(ids), _PAGE):
            taken = service.store.foreign_ids(label, scan.user_id, ids[i:i + _PAGE])
            if taken:
                first = min(taken, key=lambda t: scan.nodes[t][1])
                raise InvalidInputError(
                    f"line {scan.nodes[first][1]}",
                    f"{label} id {first!r} belongs to another user: an import writes only "
                    f"into user {scan.user_id!r} (nothing was imported)")


def _dump(obj: dict[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True) + "\n"
