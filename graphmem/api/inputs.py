"""GraphQL input types; each maps onto the service's validated input with ``to_model``."""

from __future__ import annotations

from datetime import datetime

import strawberry

from graphmem.api.scalars import MemoryKind
from graphmem.inputs import EpisodeIn, MessageIn, RecallIn, RelationIn


@strawberry.input(description="One message of a conversation episode.")
class MessageInput:
    role: str = strawberry.field(description="user / assistant / system / tool (aliases "
                                             "such as human or ai are normalised)")
    content: str
    name: str | None = strawberry.field(default=None, description="the speaker's name")

    def to_model(self) -> MessageIn:
        return MessageIn(role=self.role, content=self.content, name=self.name)


@strawberry.input(description="Something that happened: give either content or messages.")
class EpisodeInput:
    user_id: strawberry.ID
    occurred_at: datetime = strawberry.field(description="event time")
    session_id: strawberry.ID | None = None
    content: str | None = None
    messages: list[MessageInput] | None = None
    source: str | None = strawberry.field(default=None, description="where it came from "
                                                                    "(chat, email, ...)")
    source_ref: str | None = strawberry.field(
        default=None, description="the caller's own id (e.g. a message id), returned in "
                                  "provenance")
    kind: str | None = strawberry.field(
        default=None, description="message / conversation / event / document")
    role: str | None = strawberry.field(default=None, description="role of a content episode")
    speaker: str | None = strawberry.field(default=None,
                                           description="speaker of a content episode")
    scope: str | None = strawberry.field(
        default=None, description="a project or workspace it belongs to; none: the user "
                                  "level, seen from every scope")

    def to_model(self) -> EpisodeIn:
        return EpisodeIn(
            user_id=str(self.user_id), occurred_at=self.occurred_at, content=self.content,
            messages=[m.to_model() for m in self.messages] if self.messages is not None
            else None,
            session_id=None if self.session_id is None else str(self.session_id),
            source=self.source, source_ref=self.source_ref, kind=self.kind, role=self.role,
            speaker=self.speaker, scope=self.scope)


@strawberry.input(description="One statement, subject - predicate - object.")
class RelationInput:
    user_id: strawberry.ID
    subject: str
    predicate: str
    object: str
    valid_from: datetime | None = strawberry.field(
        default=None, description="when it became true (default: now)")
    valid_until: datetime | None = strawberry.field(
        default=None, description="when it stopped being true (default: open)")
    exclusive: bool | None = strawberry.field(
        default=None, description="one object at a time for this subject and predicate "
                                  "(default: from the predicate registry)")
    confidence: float | None = strawberry.field(default=None, description="0..1")
    importance: float | None = strawberry.field(default=None, description="0..1")
    category: str | None = strawberry.field(
        default=None, description="preference / fact / lesson / goal / ...")
    statement: str | None = strawberry.field(default=None,
                                             description="a readable sentence for it")
    source_ref: str | None = None
    scope: str | None = strawberry.field(
        default=None, description="a project or workspace (its exclusive slots are its "
                                  "own); none: the user level, seen from every scope")
    session_id: strawberry.ID | None = None

    def to_model(self) -> RelationIn:
        return RelationIn(
            user_id=str(self.user_id), subject=self.subject, predicate=self.predicate,
            object=self.object, valid_from=self.valid_from, valid_until=self.valid_until,
            exclusive=self.exclusive, confidence=self.confidence, importance=self.importance,
            category=self.category, source_ref=self.source_ref, statement=self.statement,
            scope=self.scope,
            session_id=None if self.session_id is None else str(self.session_id))


@strawberry.input(description="A half-open time range [start, end).")
class TimeRangeInput:
    start: datetime
    end: datetime


@strawberry.input(description="What to recall, for whom, and as of when.")
class RecallInput:
    user_id: strawberry.ID
    query: str
    as_of: datetime | None = strawberry.field(
        default=None, description="valid-time point: what was true then (default: now)")
    known_at: datetime | None = strawberry.field(
        default=None, description="system-time point: what we believed then (default: now)")
    between: TimeRangeInput | None = strawberry.field(
        default=None, description="a valid-time window; overrides one read from the query")
    reference_time: datetime | None = strawberry.field(
        default=None, description="'now' for relative phrases in the query ('last year')")
    limit: int = strawberry.field(default=10, description="1..100")
    kinds: list[MemoryKind] | None = None
    include_history: bool = strawberry.field(
        default=False, description="also return superseded / closed relations")
    hops: int = strawberry.field(default=2, description="graph expansion depth, 0..3")
    scope: str | None = strawberry.field(
        default=None, description="only this scope's memories and the user level's")
    session_id: strawberry.ID | None = strawberry.field(
        default=None, description="only episodes and relations of this session")

    def to_model(self) -> RecallIn:
        return RecallIn(
            user_id=str(self.user_id), query=self.query, as_of=self.as_of,
            known_at=self.known_at,
            between=(self.between.start, self.between.end) if self.between else None,
            limit=self.limit, kinds=[k.to_model() for k in self.kinds] if self.kinds else None,
            reference_time=self.reference_time, include_history=self.include_history,
            hops=self.hops, scope=self.scope,
            session_id=None if self.session_id is None else str(self.session_id))
