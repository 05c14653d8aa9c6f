"""Recall: vector + full-text + graph candidates, filtered in time, fused, explained.

Template: validate -> gather candidates (per kind, from the stores' indexes, then graph
expansion from the entities those hits touch) -> load and filter on both time axes ->
fuse (reciprocal-rank fusion, then recency / frequency / importance terms) -> apply
per-kind quotas -> attach provenance and conflicts.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from graphmem.inputs import RecallIn
from graphmem.model import MemoryKind, MemoryStatus, from_ms, to_ms
from graphmem.relations import relation_from_row, valid_at
from graphmem.store.base import Hit, Row, Store
from graphmem.temporal import until_at
from graphmem.timeparse import TimeWindow, is_when_question, resolve_window, strip_window

LABEL = {MemoryKind.EPISODE: "Episode", MemoryKind.ENTITY: "Entity",
         MemoryKind.RELATION: "Relation", MemoryKind.ABSTRACTION: "Abstraction"}
RRF_K = 60
DAY_MS = 86_400_000

# How much each candidate source counts in the fusion (graph hits are a weaker signal).
SOURCE_WEIGHT = {"vector": 1.0, "fulltext": 1.0, "graph": 0.6}
# Kind priors: statements and conclusions condense what episodes say (seed: procedural >
# semantic > episodic), but an episode is the evidence, so the spread is small.
KIND_WEIGHT = {MemoryKind.ABSTRACTION: 1.1, MemoryKind.RELATION: 1.05,
               MemoryKind.EPISODE: 1.0, MemoryKind.ENTITY: 0.7}


@dataclass(slots=True)
class Source:
    id: str
    source_ref: str | None
    occurred_at: datetime | None


@dataclass(slots=True)
class Scores:
    vector: float = 0.0
    fulltext: float = 0.0
    graph: float = 0.0
    recency: float = 0.0
    importance: float = 0.0
    frequency: float = 0.0
    temporal: float = 0.0
    fused: float = 0.0


@dataclass(slots=True)
class RecallItem:
    kind: MemoryKind
    id: str
    text: str
    score: float
    scores: Scores
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    occurred_at: datetime | None = None
    status: MemoryStatus = MemoryStatus.ACTIVE
    sources: list[Source] = field(default_factory=list)


@dataclass(slots=True)
class Conflict:
    ids: list[str]
    warning: str


@dataclass(slots=True)
class RecallResult:
    items: list[RecallItem]
    conflicts: list[Conflict]
    temporal_window: TimeWindow | None
    cold_start: bool = False
    took_ms: float = 0.0


class AccessTracker:
    """Access counts kept in memory and flushed in batches (no write per read)."""

    def __init__(self, store: Store, every_s: float = 60.0, every_n: int = 100) -> None:
        self._store = store
        self._every_s = every_s
        self._every_n = every_n
        self._pending: dict[tuple[str, str], list[int]] = {}
        self._count = 0
        self._last = time.monotonic()
        self._lock = threading.Lock()

    def touch(self, label: str, ids: list[str], at_ms: int) -> None:
        with self._lock:
            for i in ids:
                entry = self._pending.setdefault((label, i), [0, at_ms])
                entry[0] += 1
                entry[1] = max(entry[1], at_ms)
            self._count += len(ids)
            due = (self._count >= self._every_n
                   or time.monotonic() - self._last >= self._every_s)
        if due:
            self.flush()

    def flush(self) -> None:
        with self._lock:
            pending, self._pending = self._pending, {}
            self._count = 0
            self._last = time.monotonic()
        by_label: dict[str, list[Row]] = defaultdict(list)
        for (label, i), (delta, at) in pending.items():
            by_label[label].append({"id": i, "delta": delta, "at": at})
        for label, rows in by_label.items():
            self._store.bump_access(label, rows)


class Recaller:
    """Runs recall queries for the service."""

    def __init__(self, store: Store, embed_one, tracker: AccessTracker | None = None) -> None:  # type: ignore[no-untyped-def]
        self.store = store
        self.embed_one = embed_one
        self.tracker = tracker

    def recall(self, q: RecallIn, now: datetime) -> RecallResult:
        started = time.perf_counter()
        reference = q.reference_time or now
        window = _window(q, reference)
        known_at = to_ms(q.known_at or now) or 0
        as_of = to_ms(q.as_of) if q.as_of is not None else None
        kinds = list(q.kinds or [MemoryKind.EPISODE, MemoryKind.RELATION, MemoryKind.ENTITY,
                                 MemoryKind.ABSTRACTION])
        text = strip_window(q.query, window) if window else q.query
        when = is_when_question(q.query)
        cand = max(q.limit * 4, 40)

        vector = self.embed_one(text or q.query)
        ranks: dict[str, dict[str, int]] = defaultdict(dict)  # id -> source -> rank
        raw: dict[str, Scores] = defaultdict(Scores)
        label_of: dict[str, str] = {}
        search_labels = {LABEL[k] for k in kinds} | {"Entity"}
        for label in sorted(search_labels):
            for rank, hit in enumerate(self.store.vector_search(label, q.user_id, vector, cand)):
                _note(ranks, raw, label_of, label, hit, rank, "vector")
            for rank, hit in enumerate(self.store.fulltext_search(label, q.user_id, q.query,
                                                                  cand)):
                _note(ranks, raw, label_of, label, hit, rank, "fulltext")

        # Graph expansion from the entities the direct hits touch.
        if q.hops > 0:
            seeds = [i for i in _top(ranks, label_of, "Entity", 8)]
            rel_seeds = [i for i in _top(ranks, label_of, "Relation", 8)]
            if rel_seeds:
                for row in self.store.nodes("Relation", q.user_id, rel_seeds):
                    seeds.extend([row.get("subjectId"), row.get("objectId")])
            seeds = [s for s in dict.fromkeys(seeds) if s]
            if MemoryKind.RELATION in kinds:
                for rank, hit in enumerate(self.store.expand(q.user_id, seeds, cand)):
                    if hit.score <= 2 * q.hops - 1:
                        _note(ranks, raw, label_of, "Relation",
                              Hit(hit.id, 1.0 / hit.score), rank, "graph")
            if MemoryKind.EPISODE in kinds:
                for rank, hit in enumerate(self.store.episode_mentions(q.user_id, seeds, cand)):
                    _note(ranks, raw, label_of, "Episode", hit, rank, "graph")

        rows = self._load(q.user_id, label_of)
        items: list[RecallItem] = []
        for item_id, label in label_of.items():
            row = rows.get(item_id)
            if row is None or row.get("forgottenAt") is not None:
                continue
            kind = MemoryKind(label.upper())
            if kind not in kinds:
                continue
            item = self._item(kind, row, q, known_at, as_of, window, now)
            if item is None:
                continue
            s = raw[item_id]
            # the per-item terms computed in _item join the per-source scores
            s.recency, s.importance = item.scores.recency, item.scores.importance
            s.frequency, s.temporal = item.scores.frequency, item.scores.temporal
            fused = sum(SOURCE_WEIGHT[src] / (RRF_K + rank + 1)
                        for src, rank in ranks[item_id].items())
            s.fused = fused
            score = fused * KIND_WEIGHT[kind]
            score *= 0.85 + 0.15 * s.recency
            score *= 0.8 + 0.4 * s.importance
            score *= 1.0 + 0.1 * s.frequency
            if window is not None:
                score *= 1.0 + s.temporal
            if when and (item.valid_from or item.occurred_at):
                score *= 1.05
            item.scores = s
            item.score = round(score * 1000, 6)
            items.append(item)
        items.sort(key=lambda it: (-it.score, it.id))
        chosen = _quota(items, q.limit, kinds)
        self._provenance(q.user_id, chosen, rows)
        conflicts = self._conflicts(q.user_id, chosen)
        if self.tracker is not None:
            at = to_ms(now) or 0
            for label in {LABEL[i.kind] for i in chosen}:
                self.tracker.touch(label, [i.id for i in chosen if LABEL[i.kind] == label], at)
        took = (time.perf_counter() - started) * 1000
        return RecallResult(items=chosen, conflicts=conflicts, temporal_window=window,
                            took_ms=round(took, 2))

    # ------------------------------------------------------------------ steps

    def _load(self, user_id: str, label_of: dict[str, str]) -> dict[str, Row]:
        by_label: dict[str, list[str]] = defaultdict(list)
        for i, label in label_of.items():
            by_label[label].append(i)
        rows: dict[str, Row] = {}
        for label, ids in by_label.items():
            for row in self.store.nodes(label, user_id, ids):
                rows[row["id"]] = row
        return rows

    def _item(self, kind: MemoryKind, row: Row, q: RecallIn, known_at: int,
              as_of: int | None, window: TimeWindow | None, now: datetime) -> RecallItem | None:
        now_ms = to_ms(now) or 0
        recorded = row.get("recordedAt", row.get("createdAt", 0)) or 0
        if recorded > known_at:
            return None
        scores = Scores(importance=float(row.get("importance") or 0.5),
                        frequency=math.log1p(int(row.get("accessCount") or 0)))
        if kind is MemoryKind.RELATION:
            if not q.include_history:
                if window is not None and as_of is None:
                    if not _overlaps(row, window, known_at):
                        return None
                elif not valid_at(row, as_of if as_of is not None else now_ms, known_at):
                    return None
            rel = relation_from_row(row, known_at=known_at)
            anchor = row["validFrom"]
            scores.recency = _recency(anchor, now_ms)
            if window is not None:
                scores.temporal = 1.0 if _overlaps(row, window, known_at) else 0.0
            return RecallItem(kind, rel.id, rel.statement, 0.0, scores,
                              valid_from=rel.valid_from, valid_until=rel.valid_until,
                              status=rel.status)
        if kind is MemoryKind.EPISODE:
            occurred = int(row.get("occurredAt") or 0)
            scores.recency = _recency(occurred, now_ms)
            if window is not None:
                inside = to_ms(window.start) <= occurred < to_ms(window.end)  # type: ignore[operator]
                scores.temporal = 1.0 if inside else -0.6
            text = row["content"]
            if row.get("speaker"):
                text = f"{row['speaker']}: {text}"
            return RecallItem(kind, row["id"], text, 0.0, scores,
                              occurred_at=from_ms(occurred))
        if kind is MemoryKind.ENTITY:
            text = row["name"] + (f" ({row['type']})" if row.get("type") else "")
            if row.get("summary"):
                text += f": {row['summary']}"
            return RecallItem(kind, row["id"], text, 0.0, scores)
        status = MemoryStatus(row.get("status") or "ACTIVE")
        if status is MemoryStatus.SUPERSEDED and not q.include_history:
            return None
        return RecallItem(kind, row["id"], row.get("conclusion", ""), 0.0, scores,
                          status=status)

    def _provenance(self, user_id: str, items: list[RecallItem], rows: dict[str, Row]) -> None:
        ep_ids: set[str] = set()
        for i in items:
            if i.kind is MemoryKind.RELATION:
                ep_ids.update(rows[i.id].get("episodeIds") or [])
        episodes = {r["id"]: r for r in self.store.nodes("Episode", user_id, sorted(ep_ids))}
        for i in items:
            if i.kind is MemoryKind.EPISODE:
                r = rows[i.id]
                i.sources = [Source(r["id"], r.get("sourceRef"), from_ms(r.get("occurredAt")))]
            elif i.kind is MemoryKind.RELATION:
                srcs = [episodes[e] for e in rows[i.id].get("episodeIds") or [] if e in episodes]
                srcs.sort(key=lambda r: r.get("occurredAt") or 0)
                i.sources = [Source(r["id"], r.get("sourceRef"), from_ms(r.get("occurredAt")))
                             for r in srcs]
                if not i.sources:
                    i.sources = [Source(i.id, ref, None)
                                 for ref in rows[i.id].get("sourceRefs") or []]

    def _conflicts(self, user_id: str, items: list[RecallItem]) -> list[Conflict]:
        disputed = [i for i in items if i.kind is MemoryKind.RELATION
                    and i.status is MemoryStatus.DISPUTED]
        if not disputed:
            return []
        edges = self.store.chain_edges(user_id, [i.id for i in disputed])
        pairs: set[tuple[str, str]] = set()
        for e in edges:
            if e["type"] == "DISPUTED" and e.get("expiredAt") is None:
                pairs.add(tuple(sorted((e["src"], e["dst"]))))  # type: ignore[arg-type]
        rows = {r["id"]: r for r in self.store.nodes(
            "Relation", user_id, sorted({x for p in pairs for x in p}))}
        out = []
        for a, b in sorted(pairs):
            ra, rb = rows.get(a), rows.get(b)
            if ra is None or rb is None:
                continue
            out.append(Conflict(ids=[a, b], warning=(
                f"Conflicting facts: {ra['subject']} {ra['predicate'].replace('_', ' ')} "
                f"{ra['object']!r} and {rb['object']!r} from the same time; ask to clarify")))
        return out


def _note(ranks: dict[str, dict[str, int]], raw: dict[str, Scores], label_of: dict[str, str],
          label: str, hit: Hit, rank: int, source: str) -> None:
    label_of.setdefault(hit.id, label)
    if source not in ranks[hit.id]:
        ranks[hit.id][source] = rank
        setattr(raw[hit.id], source, round(float(hit.score), 6))


def _top(ranks: dict[str, dict[str, int]], label_of: dict[str, str], label: str,
         n: int) -> list[str]:
    scored = [(min(r.values()), i) for i, r in ranks.items() if label_of.get(i) == label]
    return [i for _, i in sorted(scored)[:n]]


def _window(q: RecallIn, reference: datetime) -> TimeWindow | None:
    if q.between is not None:
        return TimeWindow(start=q.between[0], end=q.between[1], phrase="", kind="range")
    return resolve_window(q.query, reference)


def _overlaps(row: Row, window: TimeWindow, known_at: int) -> bool:
    _, until = until_at(json.loads(row.get("untilLog") or "[]"), known_at)
    start, end = to_ms(window.start) or 0, to_ms(window.end) or 0
    return row["validFrom"] < end and (until is None or until > start)


def _recency(anchor_ms: int, now_ms: int, half_life_days: float = 180.0) -> float:
    age_days = max(0.0, (now_ms - anchor_ms) / DAY_MS)
    return math.exp(-math.log(2) * age_days / half_life_days)


def _quota(items: list[RecallItem], limit: int, kinds: list[MemoryKind]) -> list[RecallItem]:
    """Top items with no kind taking more than its share while others have candidates."""
    if len(kinds) == 1:
        return items[:limit]
    cap = {k: max(1, math.ceil(limit * (0.4 if k is MemoryKind.ENTITY else 0.7)))
           for k in kinds}
    taken: dict[MemoryKind, int] = defaultdict(int)
    chosen: list[RecallItem] = []
    rest: list[RecallItem] = []
    for it in items:
        if len(chosen) >= limit:
            break
        if taken[it.kind] < cap[it.kind]:
            chosen.append(it)
            taken[it.kind] += 1
        else:
            rest.append(it)
    for it in rest:  # fill up when the other kinds ran out
        if len(chosen) >= limit:
            break
        chosen.append(it)
    chosen.sort(key=lambda it: (-it.score, it.id))
    return chosen
