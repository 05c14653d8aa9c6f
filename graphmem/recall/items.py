"""Recall's items: a candidate's row as a ``RecallItem`` if it is read under the scope
and session asked about and holds on both time axes (valid at the time asked about, as
known at ``knownAt``), with the terms of its score that come from the row (importance,
frequency, recency, the question's window)."""

from __future__ import annotations

import math
from datetime import datetime

from graphmem._abstractions import status_at as abstraction_status
from graphmem._abstractions import visible as abstraction_visible
from graphmem._lifecycle_score import ImportanceModel
from graphmem._speakers import shown
from graphmem._version_rules import says_change
from graphmem.inputs import RecallIn
from graphmem.model import MemoryKind, from_ms, seen_under, to_ms
from graphmem.recall.analysis import Asked
from graphmem.recall_model import DAY_MS, LABEL, RecallItem, RecallTuning, Scores
from graphmem.relations import believed, valid_at, valid_during
from graphmem.store.base import Row
from graphmem.timeparse import TimeWindow, read_told_of, told_of


def _item(importance: ImportanceModel, kind: MemoryKind, row: Row, q: RecallIn, a: Asked,
          now: datetime, t: RecallTuning) -> RecallItem | None:
    """``row`` as an item of ``kind`` (score 0 for now), or None when it is not read."""
    known_at, as_of, window = a.known_at, a.as_of, a.window
    now_ms = to_ms(now) or 0
    recorded = row.get("recordedAt", row.get("createdAt", 0)) or 0
    if recorded > known_at or not in_scope(kind, row, q.scope, q.session_id):
        return None
    imp = importance.of_row(LABEL[kind], row, now_ms)
    scores = Scores(importance=imp.effective, decay=imp.decay,
                    frequency=math.log1p(int(row.get("accessCount") or 0)))
    if kind is MemoryKind.RELATION:
        if not q.include_history:
            if window is not None and as_of is None:
                if not _overlaps(row, window, known_at):
                    return None
            elif not valid_at(row, as_of if as_of is not None else now_ms, known_at):
                return None
        until, status = believed(row, known_at)
        anchor = row["validFrom"]
        scores.recency = _recency(anchor, now_ms)
        if window is not None:
            scores.temporal = t.window_inside if _overlaps(row, window, known_at) else 0.0
        return RecallItem(kind, row["id"], row["statement"], 0.0, scores,
                          valid_from=from_ms(anchor), valid_until=from_ms(until),
                          status=status)
    if kind is MemoryKind.EPISODE:
        occurred = int(row.get("occurredAt") or 0)
        scores.recency = _recency(occurred, now_ms)
        if window is not None:
            start, end = to_ms(window.start) or 0, to_ms(window.end) or 0
            grace = min(end - start, int(t.window_grace_days * DAY_MS))
            inside = start <= occurred < end + max(0, grace)
            # told just after the window, a change ("switched to green tea") says what
            # holds after it, not during it: neither credit nor penalty
            late_change = inside and occurred >= end and says_change(row["content"])
            named = not inside and t.mentioned_times and _tells_of(row, occurred, start, end)
            scores.temporal = t.window_before if late_change else t.window_inside \
                if inside or named else (t.window_before if occurred < start
                                         else t.window_outside)
        text = shown(row.get("speaker"), row["content"])
        return RecallItem(kind, row["id"], text, 0.0, scores,
                          occurred_at=from_ms(occurred))
    if kind is MemoryKind.ENTITY:
        text = row["name"] + (f" ({row['type']})" if row.get("type") else "")
        if row.get("summary"):
            text += f": {row['summary']}"
        return RecallItem(kind, row["id"], text, 0.0, scores)
    # an abstraction version: the same two time axes as a relation
    if not abstraction_visible(row, as_of if as_of is not None else now_ms, known_at,
                               history=q.include_history):
        return None
    return RecallItem(kind, row["id"], row.get("conclusion", ""), 0.0, scores,
                      valid_from=from_ms(row.get("validFrom")),
                      status=abstraction_status(row, known_at))


def in_scope(kind: MemoryKind, row: Row, scope: str | None, session_id: str | None) -> bool:
    """Whether a memory is read under a scope and session filter: a scope sees its own
    memories and the user level's (no scope); a session only its episodes and relations."""
    if session_id is not None and (kind not in (MemoryKind.EPISODE, MemoryKind.RELATION)
                                   or row.get("sessionId") != session_id):
        return False
    return seen_under(scope, row.get("scope"))


def _overlaps(row: Row, window: TimeWindow, known_at: int) -> bool:
    """Was the relation, as believed at ``known_at``, valid at some time in ``window``?"""
    return valid_during(row, to_ms(window.start) or 0, to_ms(window.end) or 0, known_at)


def _tells_of(row: Row, occurred: int, start: int, end: int) -> bool:
    """Does the episode name a period within ``[start, end)`` ("last month", read at the
    time it was said)? Within, not overlapping: "this year's budget is tight" is no message
    about March. Written with the episode (``toldOf``); read from its words for an episode
    stored before that."""
    stored = row.get("toldOf")
    periods = read_told_of(stored) if isinstance(stored, str) else _legacy_periods(row, occurred)
    return any(start <= a and b <= end for a, b in periods)


def _legacy_periods(row: Row, occurred: int) -> list[tuple[int, int]]:
    key = (str(row.get("id")), occurred)
    found = _LEGACY.get(key)
    if found is None:
        found = read_told_of(told_of(str(row.get("content") or ""), from_ms(occurred)))
        if len(_LEGACY) >= 4096:
            _LEGACY.clear()
        _LEGACY[key] = found
    return found


#: the periods of episodes stored without ``toldOf``, by (id, occurredAt): read once
_LEGACY: dict[tuple[str, int], list[tuple[int, int]]] = {}


def _recency(anchor_ms: int, now_ms: int, half_life_days: float = 180.0) -> float:
    age_days = max(0.0, (now_ms - anchor_ms) / DAY_MS)
    return math.exp(-math.log(2) * age_days / half_life_days)
