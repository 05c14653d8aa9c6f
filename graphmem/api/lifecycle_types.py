"""GraphQL types of the memory lifecycle: importance explained, feedback, gc, health."""

from __future__ import annotations

from datetime import datetime
from enum import Enum

import strawberry

from graphmem import _events, _gc, lifecycle
from graphmem.api.scalars import MemoryKind


@strawberry.enum(description="What a user or agent says about a memory it was given. "
                             "HELPFUL, WRONG and OUTDATED are single steps (feedback); "
                             "POSITIVE, NEGATIVE and CORRECTION are weighed together with "
                             "the signals a memory already has (addFeedback).")
class FeedbackSignal(Enum):
    HELPFUL = "HELPFUL"
    WRONG = "WRONG"
    OUTDATED = "OUTDATED"
    POSITIVE = "POSITIVE"
    NEGATIVE = "NEGATIVE"
    CORRECTION = "CORRECTION"


@strawberry.type(description="One feedback signal as applied (the audit trail).")
class FeedbackEntry:
    at: datetime
    signal: FeedbackSignal
    note: str | None
    importance_before: float
    importance_after: float
    confidence_before: float | None = strawberry.field(
        description="null for an episode, which has no confidence")
    confidence_after: float | None
    needs_review: bool
    weight: float | None = strawberry.field(
        default=None, description="addFeedback: the sender's confidence in the signal")
    by: str | None = strawberry.field(default=None,
                                      description="addFeedback: who sent it, as they said")

    @classmethod
    def from_model(cls, e: lifecycle.FeedbackEntry) -> FeedbackEntry:
        return cls(at=e.at, signal=FeedbackSignal(e.signal), note=e.note,
                   importance_before=e.importance_before,
                   importance_after=e.importance_after,
                   confidence_before=e.confidence_before, confidence_after=e.confidence_after,
                   needs_review=e.needs_review, weight=e.weight, by=e.by)


@strawberry.type(description="How much a memory matters now, and why: effective = "
                             "min(1, base x reinforcement) x decay.")
class MemoryImportance:
    id: strawberry.ID
    kind: MemoryKind
    text: str
    category: str = strawberry.field(description="its category (a relation's, an "
                                                 "abstraction's kind, episode, entity)")
    importance_class: str = strawberry.field(
        description="the key of the importance table it takes its start value from")
    base: float = strawberry.field(description="stored importance with feedback, 0..1")
    feedback_adjustment: float = strawberry.field(description="what feedback added to it")
    access_count: int = strawberry.field(description="times recall returned it")
    last_reviewed_at: datetime = strawberry.field(
        description="the last recall that returned it, else when it was recorded")
    reinforcement: float = strawberry.field(
        description="1 + r x ln(1 + accessCount) (GRAPHMEM_IMPORTANCE_REINFORCEMENT)")
    decay: float = strawberry.field(
        description="0.5 ** (days since lastReviewedAt / halfLifeDays)")
    half_life_days: float = strawberry.field(
        description="days without a recall that halve it: its category's "
                    "(GRAPHMEM_IMPORTANCE_HALF_LIFE_BY_CATEGORY), else "
                    "GRAPHMEM_IMPORTANCE_HALF_LIFE_DAYS")
    effective: float = strawberry.field(description="importance now, 0..1; gc forgets "
                                                    "below GRAPHMEM_FORGET_THRESHOLD")
    confidence: float | None = strawberry.field(
        description="with what feedback added; null for an episode")
    needs_review: bool = strawberry.field(
        description="feedback took its confidence below GRAPHMEM_REVIEW_THRESHOLD")
    forgotten: bool
    feedback: list[FeedbackEntry] = strawberry.field(description="every signal, oldest first")

    @classmethod
    def from_model(cls, m: lifecycle.MemoryLife) -> MemoryImportance:
        i = m.importance
        return cls(id=strawberry.ID(m.id), kind=MemoryKind.from_model(m.kind), text=m.text,
                   category=i.category, importance_class=m.importance_class, base=i.base,
                   feedback_adjustment=i.adjust, access_count=i.access_count,
                   last_reviewed_at=m.last_reviewed_at, reinforcement=i.reinforcement,
                   decay=i.decay, half_life_days=i.half_life_days, effective=i.effective,
                   confidence=m.confidence,
                   needs_review=m.needs_review, forgotten=m.forgotten,
                   feedback=[FeedbackEntry.from_model(e) for e in m.feedback])


@strawberry.type(description="What one feedback signal did.")
class FeedbackResult:
    applied: FeedbackEntry
    memory: MemoryImportance


@strawberry.type(description="A memory gc looked at.")
class GcItem:
    id: strawberry.ID
    kind: MemoryKind
    text: str = strawberry.field(description="its first 200 characters")
    category: str
    importance: float = strawberry.field(description="effective importance now")
    last_reviewed_at: datetime
    reason: str | None = strawberry.field(description="why it was kept, if it was")

    @classmethod
    def from_model(cls, g: _gc.GcItem) -> GcItem:
        return cls(id=strawberry.ID(g.id), kind=MemoryKind.from_model(g.kind), text=g.text,
                   category=g.category, importance=g.importance,
                   last_reviewed_at=g.last_reviewed_at, reason=g.reason)


@strawberry.type(description="What gc found below the forgetting threshold and did with it "
                             "(nothing on a dry run). Forgetting is the soft forget: "
                             "restore(userId, id) brings a memory back.")
class GcReport:
    dry_run: bool
    threshold: float
    kinds: list[MemoryKind]
    scanned: int
    candidates: list[GcItem] = strawberry.field(
        description="forgotten, or on a dry run to be forgotten; least important first")
    kept: list[GcItem] = strawberry.field(description="below the threshold but kept")
    remaining: int = strawberry.field(description="below the threshold beyond `limit`")
    forgotten: int
    warnings: list[str]

    @classmethod
    def from_model(cls, r: _gc.GcReport) -> GcReport:
        return cls(dry_run=r.dry_run, threshold=r.threshold,
                   kinds=[MemoryKind.from_model(k) for k in r.kinds], scanned=r.scanned,
                   candidates=[GcItem.from_model(i) for i in r.candidates],
                   kept=[GcItem.from_model(i) for i in r.kept], remaining=r.remaining,
                   forgotten=r.forgotten, warnings=list(r.warnings))


@strawberry.type
class NamedCount:
    name: str
    count: int


@strawberry.type(description="A user's memory in one look, with the warnings that follow.")
class HealthCheck:
    reflection_due: bool
    reflection_reason: str | None
    embedding_models: list[str]
    mixed_embedding_models: bool
    dangling_edges: int = strawberry.field(
        description="edges with a missing end or missing subject/object edges (graphmem "
                    "check rules chain, relation-edges, edge-ends)")
    integrity_violations: list[NamedCount] = strawberry.field(
        description="graphmem check's violations of this user, per rule")
    memories: list[NamedCount] = strawberry.field(
        description="memories not forgotten, per label")
    forgotten: int
    needs_review: list[strawberry.ID] = strawberry.field(
        description="memories feedback marked for review")
    below_threshold: int = strawberry.field(
        description="episodes, relations and abstractions whose importance now is below "
                    "the forgetting threshold")
    warnings: list[str]

    @classmethod
    def from_model(cls, h: lifecycle.HealthCheck) -> HealthCheck:
        return cls(reflection_due=h.reflection_due, reflection_reason=h.reflection_reason,
                   embedding_models=list(h.embedding_models),
                   mixed_embedding_models=h.mixed_embedding_models,
                   dangling_edges=h.dangling_edges,
                   integrity_violations=[NamedCount(name=k, count=v)
                                         for k, v in h.integrity_violations.items()],
                   memories=[NamedCount(name=k, count=v) for k, v in h.memories.items()],
                   forgotten=h.forgotten,
                   needs_review=[strawberry.ID(i) for i in h.needs_review],
                   below_threshold=h.below_threshold, warnings=list(h.warnings))


@strawberry.enum(description="What happened to a memory.")
class MemoryEventKind(Enum):
    RECORDED = "RECORDED"
    SUPERSEDED = "SUPERSEDED"
    DISPUTED = "DISPUTED"
    EXPIRED = "EXPIRED"
    FORGOTTEN = "FORGOTTEN"
    RESTORED = "RESTORED"
    FEEDBACK = "FEEDBACK"


@strawberry.type(description="One change in a user's memory, read back from the graph where "
                             "the write recorded it (so no event is lost or announced for a "
                             "write that did not land).")
class MemoryEvent:
    at: datetime = strawberry.field(description="system time of the change")
    kind: MemoryEventKind
    memory_id: strawberry.ID
    memory_kind: MemoryKind
    text: str | None = strawberry.field(description="the memory's text, cut to 200 characters")
    related_id: strawberry.ID | None = strawberry.field(
        description="SUPERSEDED / DISPUTED: the version that superseded or disputes it")
    detail: str | None = strawberry.field(description="FEEDBACK: the signal")
    cursor: str = strawberry.field(description="pass as `after` to read the events after it")

    @classmethod
    def from_model(cls, e: _events.MemoryEvent) -> MemoryEvent:
        return cls(at=e.at, kind=MemoryEventKind(e.kind), memory_id=strawberry.ID(e.memory_id),
                   memory_kind=MemoryKind.from_model(e.memory_kind), text=e.text,
                   related_id=None if e.related_id is None else strawberry.ID(e.related_id),
                   detail=e.detail, cursor=e.cursor)


@strawberry.type(description="A page of events, oldest first.")
class MemoryEventPage:
    items: list[MemoryEvent]
    next_cursor: str | None = strawberry.field(
        description="the last item's cursor when more events follow (pass it as `after`)")

    @classmethod
    def from_model(cls, page: _events.EventPage) -> MemoryEventPage:
        return cls(items=[MemoryEvent.from_model(e) for e in page.items],
                   next_cursor=page.next_cursor)
