"""Validated inputs of the service layer (the GraphQL layer maps its inputs onto these).

Validation errors are raised as ``InvalidInputError`` naming the field (camelCase, as the
GraphQL contract spells it), before anything is written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from graphmem.errors import InvalidInputError
from graphmem.model import INSTANT_RANGE, MAX_MS, MIN_MS, MemoryKind, aware, to_ms

MAX_ID_CHARS = 200


def bad_char(value: str) -> str | None:
    """What is wrong with a character of ``value`` that no stored text may hold, if any.

    NUL, other C0 and C1 control characters (tab, newline and carriage return are text),
    and lone UTF-16 surrogates, which no UTF-8 store or client can carry.
    """
    for i, ch in enumerate(value):
        code = ord(ch)
        if code < 32 and ch not in "\t\n\r" or 0x7F <= code <= 0x9F:
            what = "a NUL character" if code == 0 else f"the control character U+{code:04X}"
            return f"must not contain {what} (at {i})"
        if 0xD800 <= code <= 0xDFFF:
            return f"must not contain a lone surrogate U+{code:04X} (at {i})"
    return None


def check_chars(value: str, field_name: str) -> str:
    if (problem := bad_char(value)) is not None:
        raise InvalidInputError(field_name, problem)
    return value


def check_instant(value: datetime | None, field_name: str) -> datetime | None:
    """An aware instant inside the range graphmem stores (naive input is UTC)."""
    if value is None:
        return None
    if not isinstance(value, datetime):
        raise InvalidInputError(field_name, "must be a date-time")
    value = aware(value)
    ms = to_ms(value)
    if ms is None or not MIN_MS <= ms <= MAX_MS:
        raise InvalidInputError(field_name, f"must be between {INSTANT_RANGE.replace('..', 'and')}"
                                            f" (UTC, after applying its offset)")
    return value


def check_id(value: str | None, field_name: str, *, required: bool = True) -> str | None:
    if value is None:
        if required:
            raise InvalidInputError(field_name, "is required")
        return None
    if not isinstance(value, str):
        raise InvalidInputError(field_name, "must be a string")
    value = check_chars(value, field_name).strip()
    if not value:
        raise InvalidInputError(field_name, "must not be empty")
    if len(value) > MAX_ID_CHARS:
        raise InvalidInputError(field_name, f"must be at most {MAX_ID_CHARS} characters")
    if any(ch in "\t\n\r" for ch in value):
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
    if not check_chars(value, field_name).strip():
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
    scope: str | None = None  # a project or workspace; None: the user level, every scope
    session_id: str | None = None

    def validated(self, max_name: int) -> RelationIn:
        self.user_id = check_id(self.user_id, "userId")  # type: ignore[assignment]
        self.subject = check_text(self.subject, "subject", max_name)  # type: ignore[assignment]
        self.predicate = check_text(self.predicate, "predicate", max_name)  # type: ignore[assignment]
        self.object = check_text(self.object, "object", max_name)  # type: ignore[assignment]
        self.category = check_text(self.category, "category", 100, required=False)
        self.source_ref = check_id(self.source_ref, "sourceRef", required=False)
        self.statement = check_text(self.statement, "statement", 4 * max_name, required=False)
        self.scope = check_id(self.scope, "scope", required=False)
        self.session_id = check_id(self.session_id, "sessionId", required=False)
        self.confidence = check_unit(self.confidence, "confidence")
        self.importance = check_unit(self.importance, "importance")
        self.valid_from = check_instant(self.valid_from, "validFrom")
        self.valid_until = check_instant(self.valid_until, "validUntil")
        if self.valid_until is not None:
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
    scope: str | None = None


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
    #: only this scope's memories and the user level's (no scope)
    scope: str | None = None
    #: only episodes and relations of this session
    session_id: str | None = None
    explain: bool = True
    extra: dict[str, object] = field(default_factory=dict)

    def validated(self, max_query: int) -> RecallIn:
        self.user_id = check_id(self.user_id, "userId")  # type: ignore[assignment]
        self.query = check_text(self.query, "query", max_query)  # type: ignore[assignment]
        if not 1 <= int(self.limit) <= 100:
            raise InvalidInputError("limit", "must be between 1 and 100")
        if not 0 <= int(self.hops) <= 3:
            raise InvalidInputError("hops", "must be between 0 and 3")
        self.scope = check_id(self.scope, "scope", required=False)
        self.session_id = check_id(self.session_id, "sessionId", required=False)
        for name, field_name in (("as_of", "asOf"), ("known_at", "knownAt"),
                                 ("reference_time", "referenceTime")):
            setattr(self, name, check_instant(getattr(self, name), field_name))
        if self.between is not None:
            start = check_instant(self.between[0], "between.start") or self.between[0]
            end = check_instant(self.between[1], "between.end") or self.between[1]
            if end <= start:
                raise InvalidInputError("between", "end must be after start")
            self.between = (start, end)
        return self
