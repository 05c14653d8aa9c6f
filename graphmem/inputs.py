"""Validated inputs of the service layer (the GraphQL layer maps its inputs onto these).

Validation errors are raised as ``InvalidInputError`` naming the field (camelCase, as the
GraphQL contract spells it), before anything is written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from graphmem.errors import InvalidInputError
from graphmem.model import MemoryKind, aware

MAX_ID_CHARS = 200


def check_id(value: str | None, field_name: str, *, required: bool = True) -> str | None:
    if value is None:
        if required:
            raise InvalidInputError(field_name, "is required")
        return None
    if not isinstance(value, str):
        raise InvalidInputError(field_name, "must be a string")
    value = value.strip()
    if not value:
        raise InvalidInputError(field_name, "must not be empty")
    if len(value) > MAX_ID_CHARS:
        raise InvalidInputError(field_name, f"must be at most {MAX_ID_CHARS} characters")
    if any(ord(ch) < 32 for ch in value):
        raise InvalidInputError(field_name, "must not contain control characters")
    return value


def check_text(value: str | None, field_name: str, limit: int, *,
               required: bool = True) -> str | None:
    if value is None:
        if required:
            raise InvalidInputError(field_name, "is required")
        return None
    if not isinstance(value, str):
        raise InvalidInputError(field_name, "must be a string")
    if not value.strip():
        raise InvalidInputError(field_name, "must not be empty")
    if len(value) > limit:
        raise InvalidInputError(field_name, f"must be at most {limit} characters "
                                            f"(got {len(value)})")
    return value.strip()


def check_unit(value: float | None, field_name: str) -> float | None:
    if value is None:
        return None
    if not 0.0 <= float(value) <= 1.0:
        raise InvalidInputError(field_name, "must be between 0 and 1")
    return float(value)


@dataclass(slots=True)
class RelationIn:
    user_id: str
    subject: str
    predicate: str
    object: str
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    exclusive: bool | None = None
    confidence: float | None = None
    importance: float | None = None
    category: str | None = None
    source_ref: str | None = None
    statement: str | None = None

    def validated(self, max_name: int) -> RelationIn:
        self.user_id = check_id(self.user_id, "userId")  # type: ignore[assignment]
        self.subject = check_text(self.subject, "subject", max_name)  # type: ignore[assignment]
        self.predicate = check_text(self.predicate, "predicate", max_name)  # type: ignore[assignment]
        self.object = check_text(self.object, "object", max_name)  # type: ignore[assignment]
        self.category = check_text(self.category, "category", 100, required=False)
        self.source_ref = check_id(self.source_ref, "sourceRef", required=False)
        self.statement = check_text(self.statement, "statement", 4 * max_name, required=False)
        self.confidence = check_unit(self.confidence, "confidence")
        self.importance = check_unit(self.importance, "importance")
        if self.valid_from is not None:
            self.valid_from = aware(self.valid_from)
        if self.valid_until is not None:
            self.valid_until = aware(self.valid_until)
            if self.valid_from is not None and self.valid_until <= self.valid_from:
                raise InvalidInputError("validUntil", "must be after validFrom")
        return self


@dataclass(slots=True)
class MessageIn:
    role: str
    content: str
    name: str | None = None


@dataclass(slots=True)
class EpisodeIn:
    user_id: str
    occurred_at: datetime | str
    content: str | None = None
    messages: list[MessageIn] | None = None
    session_id: str | None = None
    source: str | None = None
    source_ref: str | None = None
    kind: str | None = None
    role: str | None = None
    speaker: str | None = None


@dataclass(slots=True)
class RecallIn:
    user_id: str
    query: str
    as_of: datetime | None = None
    known_at: datetime | None = None
    between: tuple[datetime, datetime] | None = None
    limit: int = 10
    kinds: list[MemoryKind] | None = None
    reference_time: datetime | None = None
    include_history: bool = False
    hops: int = 2
    explain: bool = True
    extra: dict[str, object] = field(default_factory=dict)

    def validated(self, max_query: int) -> RecallIn:
        self.user_id = check_id(self.user_id, "userId")  # type: ignore[assignment]
        self.query = check_text(self.query, "query", max_query)  # type: ignore[assignment]
        if not 1 <= int(self.limit) <= 100:
            raise InvalidInputError("limit", "must be between 1 and 100")
        if not 0 <= int(self.hops) <= 3:
            raise InvalidInputError("hops", "must be between 0 and 3")
        for name in ("as_of", "known_at", "reference_time"):
            value = getattr(self, name)
            if value is not None:
                setattr(self, name, aware(value))
        if self.between is not None:
            start, end = (aware(self.between[0]), aware(self.between[1]))
            if end <= start:
                raise InvalidInputError("between", "end must be after start")
            self.between = (start, end)
        return self
