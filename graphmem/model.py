"""The domain model: episodes, entities, relations, abstractions, and their time fields.

Times are timezone-aware ``datetime`` objects in the model and at every public edge;
the stores keep them as epoch milliseconds (see ``to_ms`` / ``from_ms``).
"""

from __future__ import annotations

import hashlib
import logging
import unicodedata
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any, Literal, overload

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = "1"

log = logging.getLogger(__name__)


class MemoryKind(StrEnum):
    EPISODE = "EPISODE"
    ENTITY = "ENTITY"
    RELATION = "RELATION"
    ABSTRACTION = "ABSTRACTION"


class MemoryStatus(StrEnum):
    ACTIVE = "ACTIVE"
    SUPERSEDED = "SUPERSEDED"
    DISPUTED = "DISPUTED"
    FORGOTTEN = "FORGOTTEN"


# --------------------------------------------------------------------------- text & ids


def normalize(text: str) -> str:
    """Canonical form used for ids and matching.

    NFKC, case-folded, whitespace collapsed; keeps letters and digits of every script
    (CJK included) and drops punctuation and symbols.
    """
    text = unicodedata.normalize("NFKC", text).casefold()
    kept = [ch if (ch.isalnum() or ch.isspace()) else " " for ch in text]
    return " ".join("".join(kept).split())


def make_id(prefix: str, *parts: object) -> str:
    """A deterministic id: ``prefix`` + 24 hex chars of sha256 over the parts."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).hexdigest()
    return f"{prefix}_{digest[:24]}"


# --------------------------------------------------------------------------- time


def utcnow() -> datetime:
    return datetime.now(UTC)


def aware(dt: datetime) -> datetime:
    """Naive datetimes are read as UTC; aware ones are kept as they are."""
    return dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MS = timedelta(milliseconds=1)

#: The instants graphmem stores, in UTC: a day inside what ``datetime`` can hold, so every
#: stored instant can be shown at any UTC offset and read back exactly from epoch ms.
MIN_INSTANT = datetime(1, 1, 2, tzinfo=UTC)
MAX_INSTANT = datetime(9999, 12, 30, 23, 59, 59, 999000, tzinfo=UTC)
INSTANT_RANGE = "0001-01-02T00:00:00Z .. 9999-12-30T23:59:59.999Z"


def to_ms(dt: datetime | None) -> int | None:
    """Epoch milliseconds (floored), exact for every ``datetime`` whatever its offset."""
    if dt is None:
        return None
    return (aware(dt) - _EPOCH) // _MS


MIN_MS = (MIN_INSTANT - _EPOCH) // _MS
MAX_MS = (MAX_INSTANT - _EPOCH) // _MS


def instant_in_range(ms: object) -> bool:
    """Whether a stored value is an instant graphmem accepts (an integer in range)."""
    return isinstance(ms, int) and not isinstance(ms, bool) and MIN_MS <= ms <= MAX_MS


@overload
def from_ms(ms: int) -> datetime: ...


@overload
def from_ms(ms: None) -> None: ...


@overload
def from_ms(ms: int | None) -> datetime | None: ...


def from_ms(ms: int | None) -> datetime | None:
    """The instant of stored epoch milliseconds; never raises on a stored value.

    A value outside the accepted range (written before the range was enforced, or by hand)
    is logged and read as the nearest bound, and anything that is not a number as the lower
    bound: one bad row must not make a user's whole memory unreadable.
    """
    if ms is None:
        return None
    if instant_in_range(ms):
        return _EPOCH + ms * _MS
    try:
        value = int(ms)  # type: ignore[call-overload]
    except (TypeError, ValueError, OverflowError):
        value = MIN_MS
    clamped = min(max(value, MIN_MS), MAX_MS)
    log.warning("stored instant %.80r is outside %s; read as %s", ms, INSTANT_RANGE,
                (_EPOCH + clamped * _MS).isoformat())
    return _EPOCH + clamped * _MS


# --------------------------------------------------------------------------- nodes


class _Node(BaseModel):
    model_config = ConfigDict(frozen=False, extra="forbid")

    id: str
    user_id: str
    created_at: datetime


class Episode(_Node):
    """Something that happened and was observed."""

    content: str
    kind: Literal["message", "conversation", "event", "document"] = "message"
    role: str | None = None
    speaker: str | None = None
    session_id: str = "default"
    #: the project or workspace it belongs to; None: the user level, seen in every scope
    scope: str | None = None
    occurred_at: datetime
    recorded_at: datetime
    source: str | None = None
    source_ref: str | None = None
    forgotten_at: datetime | None = None
    embedding_model: str | None = None
    schema_version: str = SCHEMA_VERSION


class EntityResolution(BaseModel):
    """Why a name was linked to an entity it does not spell: the name, the entity name its
    embedding matched, the similarity score, how (``embedding``) and when."""

    name: str
    matched: str
    score: float
    method: str = "embedding"
    at: datetime | None = None


class Entity(_Node):
    """A person, organisation, product, place, concept..."""

    name: str
    norm_name: str
    type: str = "thing"
    aliases: list[str] = Field(default_factory=list)
    summary: str = ""
    forgotten_at: datetime | None = None
    embedding_model: str | None = None
    schema_version: str = SCHEMA_VERSION
    resolutions: list[EntityResolution] = Field(default_factory=list)


class Relation(_Node):
    """One statement, subject - predicate - object, with both time axes.

    ``valid_from``/``valid_until``: valid time (when it was true in the world).
    ``recorded_at``/``expired_at``: system time (when graphmem believed this node).
    ``status`` is the status as of the read's ``knownAt``; FORGOTTEN when hidden.
    """

    subject: str
    predicate: str
    object: str
    subject_id: str
    object_id: str
    statement: str
    category: str = "fact"
    exclusive: bool = False
    confidence: float = 0.8
    importance: float = 0.5
    valid_from: datetime
    valid_until: datetime | None = None
    recorded_at: datetime
    expired_at: datetime | None = None
    status: MemoryStatus = MemoryStatus.ACTIVE
    group_key: str
    forgotten_at: datetime | None = None
    scope: str | None = None  # None: the user level
    session_id: str | None = None
    source_refs: list[str] = Field(default_factory=list)
    episode_ids: list[str] = Field(default_factory=list)
    access_count: int = 0
    last_accessed_at: datetime | None = None
    embedding_model: str | None = None
    schema_version: str = SCHEMA_VERSION
    # Filled by reads: neighbours in the supersession / dispute graph as of knownAt.
    supersedes_ids: list[str] = Field(default_factory=list)
    superseded_by_ids: list[str] = Field(default_factory=list)
    disputes_ids: list[str] = Field(default_factory=list)


class Abstraction(_Node):
    """A conclusion drawn from several relations/episodes. Never raw text.

    One version of a line of conclusions (``lineage``): new evidence writes the next
    version, which supersedes this one. ``valid_from``/``valid_until``: when its evidence
    held in the world; ``recorded_at``/``expired_at``: when graphmem held it as current.
    ``status`` is as of the read's ``knownAt``.
    """

    conclusion: str
    conditions: list[str] = Field(default_factory=list)
    confidence: float
    version: int = 1
    status: MemoryStatus = MemoryStatus.ACTIVE
    source_ids: list[str] = Field(default_factory=list)
    kind: str = "pattern"
    lineage: str = ""
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    recorded_at: datetime | None = None
    expired_at: datetime | None = None
    forgotten_at: datetime | None = None
    supersedes_ids: list[str] = Field(default_factory=list)
    disputes_ids: list[str] = Field(default_factory=list)
    scope: str | None = None  # drawn from this scope's relations (None: the user level's)
    embedding_model: str | None = None
    schema_version: str = SCHEMA_VERSION


# --------------------------------------------------------------------------- extraction


class ExtractedEntity(BaseModel):
    """An entity named in a message, as an extraction engine saw it."""

    name: str
    type: str = "thing"
    aliases: list[str] = Field(default_factory=list)
    message_index: int = 0


#: the object of a stop that names no object: "I retired" ends whatever job is current
CURRENT_OBJECT = "(current)"


class ExtractedRelation(BaseModel):
    """One statement found in a message.

    ``stop`` marks a retraction ("no longer uses X"): it ends the matching relation at
    ``valid_from`` instead of starting a new one. A stop whose object is
    ``CURRENT_OBJECT`` ends the one current object of its subject and predicate.
    ``message_index`` points at the message (within the episode / window) the statement
    came from.
    """

    subject: str
    predicate: str
    object: str
    category: str = "fact"
    exclusive: bool = False
    confidence: float = 0.8
    valid_from: datetime | None = None
    stop: bool = False
    statement: str | None = None
    message_index: int = 0


class Extraction(BaseModel):
    """What an engine returns for one window of messages."""

    entities: list[ExtractedEntity] = Field(default_factory=list)
    relations: list[ExtractedRelation] = Field(default_factory=list)
    engine: Literal["rules", "llm", "fallback"] = "rules"
    error: str | None = None
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


def seen_under(scope: str | None, memory_scope: Any) -> bool:
    """Is a memory of ``memory_scope`` read under ``scope``? A scope sees its own memories
    and the user level's (no scope); no scope sees every memory. (``cypher/relations.cypher``
    says the same in its query.)"""
    return scope is None or memory_scope in (None, scope)


def drop_none(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}
