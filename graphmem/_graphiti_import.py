"""``graphmem import-graphiti``: a Graphiti graph into graphmem, group by group.

Each graphiti ``group_id`` becomes one graphmem user (``user_map``, default the same
name). Its episodes, entities and entity edges are mapped to graphmem's export format
(``_graphiti_map``), validated with the export validator (``transfer.validate_export``)
and the secret / personal-data guard, then written as ONE write plan: one transaction per
group, so a group is imported whole or not at all.

Re-running is a no-op: ids are derived from graphiti's uuids and names, nodes already in
the store are left as they are (whatever graphmem did to them since), and only edges
touching a newly written node are written. A group is refused, with nothing written, when
one of its ids belongs to another user, when one of its relation groups already holds
relations graphmem wrote itself (the two timelines would have to be merged: import into a
fresh user, or map the group to one with ``--user-map``), or when the guard rejects a
value.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from graphmem import __version__
from graphmem._graphiti_map import CATEGORY, MappedGroup, map_group
from graphmem._guard_fields import guard_record
from graphmem.errors import ConflictError, GraphMemError, InvalidInputError
from graphmem.guard import GuardPolicy
from graphmem.inputs import check_id
from graphmem.model import SCHEMA_VERSION, to_ms
from graphmem.service import MemoryService
from graphmem.store._graphiti import GraphitiSource
from graphmem.store.base import NodeWrite, Row, WritePlan
from graphmem.transfer import FORMAT, VERSION, embedding_text, validate_export

_PLAN_LIST = {"Episode": "episodes", "Entity": "entities", "Relation": "relations"}
_PAGE = 500


@dataclass(slots=True)
class GroupReport:
    """What one group became (or would become, on a dry run)."""

    group_id: str
    user_id: str
    nodes: dict[str, int] = field(default_factory=dict)  # label -> in the document
    written: dict[str, int] = field(default_factory=dict)  # label -> new in the store
    edges: int = 0
    edges_written: int = 0
    slots: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    error: str | None = None
    status: str = "imported"  # imported / unchanged / would import / failed

    def describe(self) -> str:
        counts = ", ".join(f"{self.nodes.get(k, 0)} {_PLAN_LIST[k]}"
                           for k in ("Episode", "Entity", "Relation"))
        text = f"group {self.group_id} -> user {self.user_id}: {self.status}"
        if self.error:
            return f"{text}: {self.error} (nothing written)"
        text += f"; {counts}, {self.edges} edges"
        if self.status == "imported":
            text += (f" ({sum(self.written.values())} nodes and {self.edges_written} edges "
                     f"new)")
        if self.slots:
            text += (f"; {self.slots.get('exclusive', 0)} exclusive slots, "
                     f"{self.slots.get('open', 0)} open")
        for reason, n in sorted(self.skipped.items()):
            text += f"\n  skipped {n}: {reason}"
        return text


def parse_user_map(pairs: Iterable[str]) -> dict[str, str]:
    """``["g1=u1", ...]`` -> ``{"g1": "u1"}``; a bad pair is an InvalidInputError."""
    out: dict[str, str] = {}
    for pair in pairs:
        group, sep, user = pair.partition("=")
        if not sep or not group or not user:
            raise InvalidInputError("--user-map", f"{pair!r} is not GROUP=USER")
        out[group] = check_id(user, "--user-map") or user
    return out


def import_graphiti(service: MemoryService, source: GraphitiSource, *,
                    groups: list[str] | None = None, user_map: dict[str, str] | None = None,
                    dry_run: bool = False, out_dir: Path | None = None,
                    progress: Callable[[str], None] | None = None) -> list[GroupReport]:
    """Import every group of ``source`` (or ``groups``); one report per group.

    A failing group is reported with its error and leaves nothing behind; the others
    are imported.
    """
    say = progress or (lambda _m: None)
    user_map = user_map or {}
    wanted = groups if groups else source.groups()
    say(f"{len(wanted)} group(s) to {'check' if dry_run else 'import'}")
    reports = []
    for n, group_id in enumerate(wanted, start=1):
        user_id = user_map.get(group_id, group_id)
        say(f"[{n}/{len(wanted)}] reading group {group_id}")
        try:
            mapped = map_group(
                source.read(group_id), check_id(user_id, "userId") or user_id,
                exclusive_predicates=service.settings.exclusive_predicates,
                importance=service.lifecycle.model.for_category(CATEGORY),
                embedding_model=service.embedder.model_id)
            report = _import_group(service, mapped, dry_run=dry_run, out_dir=out_dir,
                                   say=say)
        except GraphMemError as e:
            report = GroupReport(group_id, user_id, status="failed", error=_message(e))
        say(report.describe())
        reports.append(report)
    return reports


def _message(e: GraphMemError) -> str:
    if isinstance(e, InvalidInputError):
        return f"{e.field}: {e.message}"
    return str(e)


def _import_group(service: MemoryService, mapped: MappedGroup, *, dry_run: bool,
                  out_dir: Path | None, say: Callable[[str], None]) -> GroupReport:
    user = mapped.user_id
    report = GroupReport(mapped.group_id, user, slots=dict(mapped.slots),
                         skipped=dict(mapped.skipped), edges=len(mapped.edges))
    for label, _ in mapped.nodes:
        report.nodes[label] = report.nodes.get(label, 0) + 1
    header = {"type": "header", "format": FORMAT, "version": VERSION, "userId": user,
              "exportedAt": to_ms(service.clock()), "graphmemVersion": __version__,
              "schemaVersion": SCHEMA_VERSION, "store": "graphiti",
              "graphitiGroup": mapped.group_id}
    records = mapped.records(header)
    _validate(records, out_dir, mapped.group_id)  # the whole document, before any write
    policy = GuardPolicy.from_settings(service.settings)
    records = [guard_record(r, policy) for r in records]
    store = service.store
    base_version = store.write_version(user)
    nodes = [(r["label"], r["props"]) for r in records if r["type"] == "node"]
    _refuse_foreign(service, user, nodes)
    stored = _stored_ids(service, user, nodes)
    _refuse_mixed_groups(service, user, mapped)
    new = [(label, props) for label, props in nodes if props["id"] not in stored]
    new_ids = {props["id"] for _, props in new}
    edges = [r for r in records if r["type"] == "edge"
             and (r["src"] in new_ids or r["dst"] in new_ids)]
    for label, _ in new:
        report.written[label] = report.written.get(label, 0) + 1
    report.edges_written = len(edges)
    if dry_run:
        report.status = "would import" if new or edges else "unchanged"
        return report
    if not new and not edges:
        report.status = "unchanged"
        return report
    say(f"  embedding {len(new)} new nodes of group {mapped.group_id}")
    vectors = service.embedder.embed([embedding_text(label, props) for label, props in new])
    plan = WritePlan(user_id=user, at=to_ms(service.clock()) or 0, base_version=base_version)
    for (label, props), vec in zip(new, vectors, strict=True):
        getattr(plan, _PLAN_LIST[label]).append(NodeWrite(props["id"], props, vec))
    for r in edges:
        plan.link(r["edge"], r["src"], r["dst"], r.get("props") or {})
    say(f"  writing group {mapped.group_id} in one transaction")
    try:
        service.apply(plan)
    except ConflictError:
        raise ConflictError(f"another write to user {user!r} landed during the import; "
                            f"run it again") from None
    return report


def _validate(records: list[Row], out_dir: Path | None, group_id: str) -> None:
    """Check the document with the export validator (a file: it reads one)."""
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        path = out_dir / f"{_safe(group_id)}.jsonl"
        _write(records, path)
        validate_export(path)
        return
    with tempfile.TemporaryDirectory(prefix="graphmem-graphiti-") as tmp:
        path = Path(tmp) / "group.jsonl"
        _write(records, path)
        validate_export(path)


def _write(records: list[Row], path: Path) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n")


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "group"


def _refuse_foreign(service: MemoryService, user: str, nodes: list[tuple[str, Row]]) -> None:
    by_label: dict[str, list[str]] = {}
    for label, props in nodes:
        by_label.setdefault(label, []).append(props["id"])
    for label, ids in by_label.items():
        for i in range(0, len(ids), _PAGE):
            taken = service.store.foreign_ids(label, user, ids[i:i + _PAGE])
            if taken:
                raise InvalidInputError(
                    "userId", f"{label} id {sorted(taken)[0]!r} belongs to another user: "
                              f"map this group to another user (--user-map)")


def _stored_ids(service: MemoryService, user: str, nodes: list[tuple[str, Row]]) -> set[str]:
    by_label: dict[str, list[str]] = {}
    for label, props in nodes:
        by_label.setdefault(label, []).append(props["id"])
    found: set[str] = set()
    for label, ids in by_label.items():
        for i in range(0, len(ids), _PAGE):
            found.update(r["id"] for r in service.store.nodes(label, user, ids[i:i + _PAGE]))
    return found


def _refuse_mixed_groups(service: MemoryService, user: str, mapped: MappedGroup) -> None:
    """A relation group holding relations this import did not make would get two
    timelines: refused (graphmem's rules would have to re-decide the whole group)."""
    ours = {p["id"] for label, p in mapped.nodes if label == "Relation"}
    for key in sorted(mapped.group_keys):
        rows = service.store.relation_group(user, key)
        others = [r for r in rows if r["id"] not in ours]
        if others:
            r = others[0]
            raise InvalidInputError(
                "userId", f"user {user!r} already holds {r.get('statement')!r} "
                          f"({r['id']}), written outside this import, in the same slot as "
                          f"graphiti facts of group {mapped.group_id!r}: import the group "
                          f"into a fresh user (--user-map)")
