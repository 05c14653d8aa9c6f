"""Invariants of a stored memory, checked from the outside: ``graphmem check``.

``check_store`` reads a store user by user through its read methods (never its writes)
and reports every node that breaks a promise the service makes:

* ``relation-edges``: a relation has exactly one SUBJECT_OF edge from its subject entity
  and one OBJECT edge to its object entity, both of the relation's user;
* ``chain``: SUPERSEDES / DISPUTED join two relations of one user that both exist (no
  dangling end, no self-loop);
* ``exclusive-slot``: in an exclusive slot (relation group), no two live relations (not
  expired, not forgotten) are valid at the same time unless they are DISPUTED; in
  particular at most one is current;
* ``cross-user``: every edge joins nodes of one user, every node has an owner, and no id
  is carried by two nodes of a label (which would let two users read one node);
* ``edge-ends``: an edge type joins the labels it is made for;
* ``instant``: every stored instant (createdAt, occurredAt, recordedAt, validFrom,
  validUntil, expiredAt, forgottenAt, lastAccessedAt, an edge's at / expiredAt, the
  times in a relation's logs) is an integer epoch-millisecond inside the range the service
  accepts (``graphmem.model.INSTANT_RANGE``, years 1..9999), and an interval does not end
  before it starts;
* ``required``: every node has the properties reads rely on, of the right type, and a
  relation's logs parse.

It works per user, so it holds whether the store keeps all users in one graph or one
graph per user; only ``check_owners`` (who the users are) differs.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol, TypeGuard

from graphmem.model import INSTANT_RANGE, MAX_MS, MIN_MS, MemoryStatus, to_ms
from graphmem.store.base import EDGE_ENDS, Row, Store
from graphmem.store.queries import LABELS

INSTANTS = ("createdAt", "occurredAt", "recordedAt", "validFrom", "validUntil", "expiredAt",
            "forgottenAt", "lastAccessedAt")

_STR, _INT = str, int
REQUIRED: dict[str, dict[str, type]] = {
    "Episode": {"id": _STR, "userId": _STR, "createdAt": _INT, "content": _STR,
                "occurredAt": _INT, "recordedAt": _INT},
    "Entity": {"id": _STR, "userId": _STR, "createdAt": _INT, "name": _STR,
               "normName": _STR},
    "Relation": {"id": _STR, "userId": _STR, "createdAt": _INT, "subject": _STR,
                 "predicate": _STR, "object": _STR, "statement": _STR, "subjectId": _STR,
                 "objectId": _STR, "groupKey": _STR, "validFrom": _INT, "recordedAt": _INT},
    "Abstraction": {"id": _STR, "userId": _STR, "createdAt": _INT},
}

#: Edge types and the labels they join (abstractions derive from relations or episodes).
ENDS: dict[str, tuple[set[str], set[str]]] = {
    **{edge: ({src}, {dst}) for edge, (src, dst) in EDGE_ENDS.items()},
    "DERIVED_FROM": ({"Abstraction"}, {"Relation", "Episode"}),
    # ... and chain abstraction versions too (an abstraction to an abstraction, see below),
    # and episodes restating or contradicting an earlier one (graphmem._episode_versions)
    **{edge: ({"Relation", "Abstraction", "Episode"}, {"Relation", "Abstraction", "Episode"})
       for edge in ("SUPERSEDES", "DISPUTED")},
}

PAGE = 1000
#: Violations kept in a report; the counts per rule stay exact beyond it.
MAX_KEPT = 10_000


class CheckableStore(Store, Protocol):
    """A store with the read methods the checker needs besides the ``Store`` ones."""

    def user_ids(self) -> list[str]: ...

    def check_unowned(self, label: str, user_id: str, limit: int) -> list[str]: ...

    def check_edges(self, label: str, user_id: str) -> list[Row]: ...

    def check_shared_ids(self, label: str, user_id: str) -> list[Row]: ...


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken invariant: which rule, whose node, and what is wrong with it."""

    rule: str
    user_id: str | None
    label: str
    node_id: str
    detail: str

    def describe(self) -> str:
        return f"[{self.rule}] {self.label} {self.node_id} (user {self.user_id!r}): {self.detail}"


@dataclass(slots=True)
class CheckReport:
    """What ``check_store`` looked at and every violation it found."""

    users: list[str] = field(default_factory=list)
    nodes: Counter[str] = field(default_factory=Counter)
    edges: int = 0
    violations: list[Violation] = field(default_factory=list)
    by_rule: Counter[str] = field(default_factory=Counter)
    unowned: set[str] = field(default_factory=set)  # reported once, whoever's check saw it

    @property
    def ok(self) -> bool:
        return not self.by_rule

    def add(self, rule: str, user_id: str | None, label: str, node_id: str,
            detail: str) -> None:
        self.by_rule[rule] += 1
        if len(self.violations) < MAX_KEPT:
            self.violations.append(Violation(rule, user_id, label, node_id, detail))

    def ids(self, rule: str | None = None) -> set[str]:
        """Node ids reported (under ``rule``, or any)."""
        return {v.node_id for v in self.violations if rule is None or v.rule == rule}

    def as_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "users": len(self.users), "nodes": dict(self.nodes),
                "edges": self.edges, "violationCount": sum(self.by_rule.values()),
                "byRule": dict(self.by_rule),
                "violations": [{"rule": v.rule, "userId": v.user_id, "label": v.label,
                                "id": v.node_id, "detail": v.detail}
                               for v in self.violations]}

    def summary(self) -> str:
        total = sum(self.by_rule.values())
        nodes = sum(self.nodes.values())
        head = (f"{len(self.users)} users, {nodes} nodes, {self.edges} edges: "
                + ("ok" if self.ok else f"{total} violations"))
        if self.ok:
            return head
        rules = ", ".join(f"{rule} {n}" for rule, n in sorted(self.by_rule.items()))
        return f"{head} ({rules})"


def check_store(store: CheckableStore, user_ids: Iterable[str] | None = None, *,
                now: datetime | None = None,
                progress: Callable[[str], None] | None = None) -> CheckReport:
    """Check the invariants for ``user_ids`` (every user in the store when None)."""
    report = CheckReport()
    at = to_ms(now or datetime.now(UTC)) or 0
    users = store.user_ids() if user_ids is None else list(dict.fromkeys(user_ids))
    report.users = users
    for i, user in enumerate(users, start=1):
        _check_user(store, user, report, at,
                    _reporter(progress, f"user {i}/{len(users)}", report))
    return report


def _reporter(progress: Callable[[str], None] | None, where: str,
              report: CheckReport) -> Callable[[str], None]:
    def say(message: str) -> None:
        if progress is not None:
            progress(f"{where}: {message} ({sum(report.nodes.values())} nodes so far, "
                     f"{sum(report.by_rule.values())} violations)")

    return say


# --------------------------------------------------------------------------- per user


def _check_user(store: CheckableStore, user: str, report: CheckReport, now: int,
                say: Callable[[str], None]) -> None:
    ids: dict[str, set[str]] = {}
    relations: dict[str, Row] = {}
    for label in LABELS:
        ids[label] = set()
        skip = 0
        while True:
            page = store.export_nodes(label, user, skip, PAGE)
            for row in page:
                node_id = str(row.get("id"))
                ids[label].add(node_id)
                _check_node(label, user, row, report)
                if label == "Relation":
                    relations[node_id] = {k: row.get(k) for k in _RELATION_KEEP}
            report.nodes[label] += len(page)
            say(f"{skip + len(page)} {label} nodes read")
            if len(page) < PAGE:
                break
            skip += PAGE
    for label in LABELS:
        for node_id in store.check_unowned(label, user, 100):
            if node_id not in report.unowned:  # a shared graph answers alike for every user
                report.unowned.add(node_id)
                report.add("cross-user", None, label, node_id, "node has no userId")
        for dup in store.check_shared_ids(label, user):
            report.add("cross-user", user, label, dup["id"],
                       f"another {label} node carries this id (user {dup['owner']!r})")
    edges = _edges(store, user)
    report.edges += len(edges)
    say(f"{len(edges)} edges read")
    subject_of: dict[str, list[str]] = defaultdict(list)
    object_of: dict[str, list[str]] = defaultdict(list)
    disputed: set[frozenset[str]] = set()
    for e in edges:
        _check_edge(user, e, ids, report)
        if e["type"] == "SUBJECT_OF" and e["dstUser"] == user:
            subject_of[e["dst"]].append(e["src"] if e["srcUser"] == user else "")
        elif e["type"] == "OBJECT" and e["srcUser"] == user:
            object_of[e["src"]].append(e["dst"] if e["dstUser"] == user else "")
        elif e["type"] == "DISPUTED" and e["expiredAt"] is None:
            disputed.add(frozenset((e["src"], e["dst"])))
    for rid, rel in relations.items():
        _check_relation_edges(user, rid, rel, subject_of.get(rid, []),
                              object_of.get(rid, []), ids["Entity"], report)
    _check_slots(user, relations, disputed, now, report)


_RELATION_KEEP = ("subjectId", "objectId", "groupKey", "exclusive", "validFrom", "validUntil",
                  "expiredAt", "forgottenAt")


def _edges(store: CheckableStore, user: str) -> list[Row]:
    seen: set[tuple[Any, ...]] = set()
    out: list[Row] = []
    for label in LABELS:
        for e in store.check_edges(label, user):
            key = (e["type"], e["src"], e["dst"], e["srcUser"], e["dstUser"])
            if key in seen:
                continue
            seen.add(key)
            e["srcLabel"] = _label_of(e.pop("srcLabels"))
            e["dstLabel"] = _label_of(e.pop("dstLabels"))
            out.append(e)
    return out


def _label_of(labels: Any) -> str:
    if isinstance(labels, str):
        return labels
    known = [lb for lb in (labels or []) if lb in LABELS]
    return known[0] if known else ",".join(str(lb) for lb in labels or []) or "?"


# --------------------------------------------------------------------------- nodes


def _check_node(label: str, user: str, row: Row, report: CheckReport) -> None:
    node_id = str(row.get("id"))
    for name, kind in REQUIRED[label].items():
        value = row.get(name)
        if value is None:
            report.add("required", user, label, node_id, f"{name} is missing")
        elif not isinstance(value, kind) or isinstance(value, bool):
            report.add("required", user, label, node_id,
                       f"{name} is a {type(value).__name__}, not a {kind.__name__}")
    for name in INSTANTS:
        problem = _instant_problem(row.get(name))
        if problem:
            report.add("instant", user, label, node_id, f"{name} {problem}")
    start, end = row.get("validFrom"), row.get("validUntil")
    if _is_ms(start) and _is_ms(end) and end < start:
        report.add("instant", user, label, node_id,
                   f"validUntil {end} is before validFrom {start}")
    if label == "Relation":
        _check_logs(user, node_id, row, report)


def _is_ms(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _instant_problem(value: Any) -> str | None:
    if value is None:
        return None
    if not _is_ms(value):
        return f"is not an integer epoch-ms ({value!r})"
    if not MIN_MS <= value <= MAX_MS:
        return f"{value} is outside the accepted range {INSTANT_RANGE}"
    return None


_STATUSES = {s.value for s in MemoryStatus}


def _check_logs(user: str, node_id: str, row: Row, report: CheckReport) -> None:
    status = row.get("status")
    if status is not None and status not in _STATUSES:
        report.add("required", user, "Relation", node_id, f"status {status!r} is unknown")
    # (log, which entry fields are instants, which may be null)
    for name, instants in (("untilLog", (0, 1)), ("aliveLog", (0,)), ("statusLog", (0,)),
                           ("claims", (1, 2, 3))):
        raw = row.get(name)
        if raw is None:
            continue
        try:
            entries = json.loads(raw) if isinstance(raw, str) else None
        except ValueError:
            entries = None
        if not isinstance(entries, list) or not all(isinstance(x, list) for x in entries):
            report.add("required", user, "Relation", node_id, f"{name} does not parse")
            continue
        for entry in entries:
            for pos in instants:
                value = entry[pos] if pos < len(entry) else None
                nullable = (name, pos) in (("untilLog", 1), ("claims", 3))
                problem = ("is missing" if value is None and not nullable
                           else _instant_problem(value))
                if problem:
                    report.add("instant", user, "Relation", node_id,
                               f"{name} entry {entry!r}: {problem}")
                    break


# --------------------------------------------------------------------------- edges


def _check_edge(user: str, e: Row, ids: dict[str, set[str]], report: CheckReport) -> None:
    kind, src, dst = e["type"], str(e["src"]), str(e["dst"])
    mine_src = e["srcUser"] == user
    own_id, own_label = (src, e["srcLabel"]) if mine_src else (dst, e["dstLabel"])
    where = f"{kind} {src} ({e['srcLabel']}, user {e['srcUser']!r}) -> {dst} " \
            f"({e['dstLabel']}, user {e['dstUser']!r})"
    if e["srcUser"] != user or e["dstUser"] != user:
        report.add("cross-user", user, own_label, own_id, f"edge joins two users: {where}")
    ends = ENDS.get(kind)
    if ends is None:
        report.add("edge-ends", user, own_label, own_id, f"unknown edge type: {where}")
    elif e["srcLabel"] not in ends[0] or e["dstLabel"] not in ends[1]:
        report.add("edge-ends", user, own_label, own_id, f"edge joins the wrong labels: {where}")
    if kind in ("SUPERSEDES", "DISPUTED"):
        # relations with relations, abstraction versions with abstraction versions,
        # episodes with episodes
        chained = e["srcLabel"] if e["srcLabel"] in ("Relation", "Abstraction", "Episode") \
            else "Relation"
        if src == dst:
            report.add("chain", user, chained, src, f"{kind} loops on itself")
        for end, label, owner in ((src, e["srcLabel"], e["srcUser"]),
                                  (dst, e["dstLabel"], e["dstUser"])):
            if label != chained or owner != user or end not in ids[chained]:
                report.add("chain", user, own_label, own_id,
                           f"dangling {kind}: {end} is not a {chained.lower()} of this user "
                           f"({where})")
    for name in ("at", "expiredAt"):
        problem = _instant_problem(e.get(name))
        if problem:
            report.add("instant", user, own_label, own_id, f"{kind} edge {name} {problem}")


def _check_relation_edges(user: str, rid: str, rel: Row, subjects: list[str],
                          objects: list[str], entities: set[str],
                          report: CheckReport) -> None:
    for edge, found, want in (("SUBJECT_OF", subjects, rel.get("subjectId")),
                              ("OBJECT", objects, rel.get("objectId"))):
        if not found:
            report.add("relation-edges", user, "Relation", rid, f"no {edge} edge")
        elif len(found) > 1:
            report.add("relation-edges", user, "Relation", rid,
                       f"{len(found)} {edge} edges ({', '.join(sorted(found))})")
        elif found[0] not in entities:
            report.add("relation-edges", user, "Relation", rid,
                       f"{edge} edge to {found[0] or 'another user'}, not an entity of "
                       f"this user")
        elif want and found[0] != want:
            report.add("relation-edges", user, "Relation", rid,
                       f"{edge} edge to {found[0]} but the relation names {want}")


# --------------------------------------------------------------------------- exclusive slots


def _check_slots(user: str, relations: dict[str, Row], disputed: set[frozenset[str]],
                 now: int, report: CheckReport) -> None:
    groups: dict[str, list[tuple[int, float, str]]] = defaultdict(list)
    for rid, r in relations.items():
        if not r.get("exclusive") or r.get("expiredAt") is not None \
                or r.get("forgottenAt") is not None:
            continue
        start, end = r.get("validFrom"), r.get("validUntil")
        if not _is_ms(start) or not (end is None or _is_ms(end)):
            continue  # reported as an instant problem
        groups[str(r.get("groupKey"))].append(
            (start, float("inf") if end is None else end, rid))
    for members in groups.values():
        if len(members) < 2:
            continue
        members.sort()
        active: list[tuple[int, float, str]] = []
        for start, end, rid in members:
            active = [a for a in active if a[1] > start]
            if end > start:  # an empty interval overlaps nothing
                for a_start, a_end, other in active:
                    if frozenset((rid, other)) in disputed:
                        continue
                    both_now = max(start, a_start) <= now < min(end, a_end)
                    report.add("exclusive-slot", user, "Relation", rid,
                               f"valid at the same time as {other} in one exclusive slot "
                               f"without a DISPUTED edge"
                               + (" (both current)" if both_now else ""))
                active.append((start, end, rid))
