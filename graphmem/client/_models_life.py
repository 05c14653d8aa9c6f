"""What the lifecycle operations answer: feedback and its audit trail, a memory's importance,
gc reports and the events feed (the API's shapes, snake_case in Python)."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import Field

from graphmem.client._models import MemoryKind, _Wire


class FeedbackSignal(StrEnum):
    """HELPFUL / WRONG / OUTDATED are single steps (``feedback``); POSITIVE / NEGATIVE /
    CORRECTION are weighed with the signals a memory already has (``add_feedback``)."""

    HELPFUL = "HELPFUL"
    WRONG = "WRONG"
    OUTDATED = "OUTDATED"
    POSITIVE = "POSITIVE"
    NEGATIVE = "NEGATIVE"
    CORRECTION = "CORRECTION"


class MemoryEventKind(StrEnum):
    RECORDED = "RECORDED"
    SUPERSEDED = "SUPERSEDED"
    DISPUTED = "DISPUTED"
    EXPIRED = "EXPIRED"
    FORGOTTEN = "FORGOTTEN"
    RESTORED = "RESTORED"
    FEEDBACK = "FEEDBACK"


class FeedbackEntry(_Wire):
    """One adjustment of the audit trail: what moved, from what, by whom."""

    at: datetime
    signal: FeedbackSignal
    note: str | None = None
    importance_before: float
    importance_after: float
    confidence_before: float | None = None
    confidence_after: float | None = None
    needs_review: bool
    weight: float | None = None
    by: str | None = None


class MemoryImportance(_Wire):
    """How much a memory matters now, factor by factor."""

    id: str
    kind: MemoryKind
    text: str
    category: str
    importance_class: str
    base: float
    feedback_adjustment: float
    access_count: int
    last_reviewed_at: datetime
    reinforcement: float
    decay: float
    half_life_days: float
    effective: float
    confidence: float | None = None
    needs_review: bool
    forgotten: bool
    feedback: list[FeedbackEntry] = Field(default_factory=list)


class FeedbackResult(_Wire):
    applied: FeedbackEntry
    memory: MemoryImportance


class GcItem(_Wire):
    id: str
    kind: MemoryKind
    text: str
    category: str
    importance: float
    last_reviewed_at: datetime
    reason: str | None = None


class GcReport(_Wire):
    """What gc looked at and (on a dry run) would forget."""

    dry_run: bool
    threshold: float
    kinds: list[MemoryKind]
    scanned: int
    candidates: list[GcItem] = Field(default_factory=list)
    kept: list[GcItem] = Field(default_factory=list)
    remaining: int
    forgotten: int
    warnings: list[str] = Field(default_factory=list)


class MemoryEvent(_Wire):
    at: datetime
    kind: MemoryEventKind
    memory_id: str
    memory_kind: MemoryKind
    text: str | None = None
    related_id: str | None = None
    detail: str | None = None
    cursor: str


class MemoryEventPage(_Wire):
    items: list[MemoryEvent]
    next_cursor: str | None = None
