"""Export one user's memory to JSONL and import it back, losslessly.

Format (one JSON object per line):

    {"type": "header", "format": "graphmem-export", "version": 1, "userId": ..., ...}
    {"type": "node", "label": "Episode", "props": {...every stored property...}}
    {"type": "edge", "edge": "SUPERSEDES", "src": ..., "dst": ..., "props": {...}}

Every stored property travels as it is (times as epoch ms, the claim / until / status logs
that make ``knownAt`` reads exact, forgotten marks, access counters), and so does every
edge with its own system-time properties: an import reproduces the graph, history included.

Embeddings are not exported: they are recomputed on import with the importing instance's
embedder (from each node's text, exactly as the service embeds it), and ``embeddingModel``
is set to that model, so an export moves between instances with different embedders.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from graphmem import __version__
from graphmem._guard_fields import guard_record, may_reject
from graphmem.errors import InvalidInputError
from graphmem.guard import GuardPolicy
from graphmem.inputs import check_id
from graphmem.model import SCHEMA_VERSION, to_ms, utcnow
from graphmem.service import MemoryService
from graphmem.store.base import EDGE_ENDS, NodeWrite, Row, WritePlan

FORMAT = "graphmem-export"
VERSION = 1
LABELS = ("Episode", "Entity", "Relation", "Abstraction")
# Labels a WritePlan can carry; abstractions arrive with the reflection work.
_PLAN_LIST = {"Episode": "episodes", "Entity": "entities", "Relation": "relations"}
_PAGE = 500
_NODE_BATCH = 200
_EDGE_BATCH = 1000


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


def export_user(service: MemoryService, user_id: str, out: IO[str]) -> TransferSummary:
    """Write every node and edge of ``user_id`` as JSONL to ``out``."""
    user_id = check_id(user_id, "userId") or ""
    store = service.store
    summary = TransferSummary(user_id)
    header = {"type": "header", "format": FORMAT, "version": VERSION, "userId": user_id,
              "exportedAt": to_ms(utcnow()), "graphmemVersion": __version__,
              "schemaVersion": SCHEMA_VERSION, "store": store.name,
              "embeddingModel": service.embedder.model_id, "embeddings": "recomputed on import"}
    out.write(_dump(header))
    for label in LABELS:
        count, skip = 0, 0
        while True:
            rows = store.export_nodes(label, user_id, skip, _PAGE)
            for row in rows:
                out.write(_dump({"type": "node", "label": label, "props": row}))
            count += len(rows)
            if len(rows) < _PAGE:
                break
            skip += _PAGE
        summary.nodes[label] = count
    for edge in EDGE_ENDS:
        rows = store.export_edges(edge, user_id)
        for row in rows:
            out.write(_dump({"type": "edge", "edge": edge, "src": row["src"], "dst": row["dst"],
                             "props": row.get("props") or {}}))
        summary.edges[edge] = len(rows)
    return summary


def import_file(service: MemoryService, path: Path,
                progress: Callable[[str], None] | None = None) -> TransferSummary:
    """Write the nodes and edges of an export into the store (idempotent: ids are kept).

    The whole file is checked before anything is written; errors name the line. Nodes go
    in batches (one transaction each), then edges, so a re-run after an interruption
    completes the import.
    """
    user_id = validate_export(path)
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
        plan.link(record["edge"], record["src"], record["dst"], record.get("props") or {})
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
    user_id: str | None = None
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
            if user_id is None:
                if kind != "header" or rec.get("format") != FORMAT:
                    raise InvalidInputError(where, f"not a {FORMAT} file (no header line)")
                if rec.get("version") != VERSION:
                    raise InvalidInputError(where, f"unsupported version {rec.get('version')!r}"
                                                   f" (this graphmem reads {VERSION})")
                user_id = check_id(rec.get("userId"), f"{where}: userId") or ""
            elif kind == "node":
                props = rec.get("props")
                if rec.get("label") not in LABELS or not isinstance(props, dict):
                    raise InvalidInputError(where, "a node needs a known label and props")
                if not isinstance(props.get("id"), str) or props.get("userId") != user_id:
                    raise InvalidInputError(where, f"a node needs an id and userId {user_id!r}")
            elif kind == "edge":
                if rec.get("edge") not in EDGE_ENDS or not isinstance(rec.get("src"), str) \
                        or not isinstance(rec.get("dst"), str):
                    raise InvalidInputError(where, "an edge needs a known type, src and dst")
                if not isinstance(rec.get("props", {}), dict):
                    raise InvalidInputError(where, "edge props must be an object")
            else:
                raise InvalidInputError(where, f"unknown record type {kind!r}")
    if user_id is None:
        raise InvalidInputError("file", "is empty")
    return user_id


def _dump(obj: dict[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True) + "\n"
