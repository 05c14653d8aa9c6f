"""The domain model: episodes, entities, relations, abstractions, and their time fields.

Times are timezone-aware ``datetime`` objects in the model and at every public edge;
the stores keep them as epoch milliseconds (see ``to_ms`` / ``from_ms``).
"""

from __future__ import annotations

import hashlib
import unicodedata
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = "1"


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


def to_ms(dt: datetime | None) -> int | None:
    if dt is None:
        return None
    return int(aware(dt).timestamp() * 1000)


def from_ms(ms: int | None) -> datetime | None:
    if ms is None:
        return None
    return datetime.fromtimestamp(ms / 1000, tz=UTC)


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
    """A conclusion drawn from several relations/episodes. Never raw text."""

    conclusion: str
    conditions: list[str] = Field(default_factory=list)
    confidence: float
    version: int = 1
    status: MemoryStatus = MemoryStatus.ACTIVE
    source_ids: list[str] = Field(default_factory=list)
    embedding_model: str | None = None
    schema_version: str = SCHEMA_VERSION


# --------------------------------------------------------------------------- extraction


class ExtractedEntity(BaseModel):
    """An entity named in a message, as an extraction engine saw it."""

    name: str
    type: str = "thing"
    aliases: list[str] = Field(default_factory=list)
    message_index: int = 0


class ExtractedRelation(BaseModel):
    """One statement found in a message.

    ``stop`` marks a retraction ("no longer uses X"): it ends the matching relation at
    ``valid_from`` instead of starting a new one. ``message_index`` points at the message
    (within the episode / window) the statement came from.
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


def drop_none(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}
