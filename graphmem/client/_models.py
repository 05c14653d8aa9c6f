"""What the client sends and gets back: pydantic models in the GraphQL API's shape.

Field names are snake_case in Python and camelCase on the wire (``valid_from`` /
``validFrom``). The status and kind enums are the service's own (``graphmem.model``);
the node models are the API's view of a node (no store-internal fields such as
``group_key``), so they are the client's own.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from graphmem.model import MemoryKind, MemoryStatus

__all__ = [
    "Abstraction", "AddEpisodeResult", "Conflict", "Entity", "EntityPage", "EntityResolution",
    "Episode", "EpisodeInput", "EpisodePage", "MemoryKind", "MemoryRef", "MemoryStatus",
    "MessageInput", "RecallItem", "RecallResult", "Relation", "RelationInput", "RelationPage",
    "Scores", "Source", "Stats", "StatusCount", "TemporalWindow",
]


class _Wire(BaseModel):
    """Read from the API's JSON: camelCase aliases, unknown fields ignored (a newer server
    may add some)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")


class _Input(BaseModel):
    """Sent to the API: unknown fields refused here rather than by the server."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")

    def to_variables(self) -> dict[str, object]:
        out: dict[str, object] = self.model_dump(mode="json", by_alias=True, exclude_none=True)
        return out


# --------------------------------------------------------------------------- inputs


class MessageInput(_Input):
    """One message of a conversation episode."""

    role: str
    content: str
    name: str | None = None


class EpisodeInput(_Input):
    """Something that happened: ``content`` or ``messages``."""

    user_id: str
    occurred_at: datetime
    content: str | None = None
    messages: list[MessageInput] | None = None
    session_id: str | None = None
    source: str | None = None
    source_ref: str | None = None
    kind: str | None = None
    role: str | None = None
    speaker: str | None = None
    scope: str | None = None


class RelationInput(_Input):
    """One statement, subject - predicate - object, with its validity."""

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
    statement: str | None = None
    source_ref: str | None = None
    scope: str | None = None
    session_id: str | None = None


# --------------------------------------------------------------------------- results


class MemoryRef(_Wire):
    id: str
    kind: MemoryKind | None = None


class Source(_Wire):
    """Where a memory came from: an episode and the caller's id for it."""

    id: str
    source_ref: str | None = None
    occurred_at: datetime | None = None


class Relation(_Wire):
    """One statement with valid time and system time, as of the read's knownAt."""

    id: str
    user_id: str
    subject: str
    predicate: str
    object: str
    statement: str
    category: str
    exclusive: bool
    valid_from: datetime
    valid_until: datetime | None = None
    recorded_at: datetime
    expired_at: datetime | None = None
    status: MemoryStatus
    confidence: float
    importance: float
    forgotten_at: datetime | None = None
    source_refs: list[str] = Field(default_factory=list)
    access_count: int = 0
    supersedes: list[MemoryRef] = Field(default_factory=list)
    superseded_by: list[MemoryRef] = Field(default_factory=list)
    disputes: list[MemoryRef] = Field(default_factory=list)
    sources: list[Source] = Field(default_factory=list)
    scope: str | None = None
    session_id: str | None = None


class Episode(_Wire):
    id: str
    user_id: str
    session_id: str
    content: str
    kind: str
    role: str | None = None
    speaker: str | None = None
    occurred_at: datetime
    recorded_at: datetime
    source: str | None = None
    source_ref: str | None = None
    forgotten_at: datetime | None = None
    status: MemoryStatus
    embedding_model: str | None = None
    scope: str | None = None


class EntityResolution(_Wire):
    name: str
    matched: str
    score: float
    method: str
    at: datetime | None = None


class Entity(_Wire):
    id: str
    user_id: str
    name: str
    type: str
    aliases: list[str] = Field(default_factory=list)
    summary: str = ""
    created_at: datetime
    forgotten_at: datetime | None = None
    status: MemoryStatus
    resolutions: list[EntityResolution] = Field(default_factory=list)


class Abstraction(_Wire):
    """One version of a conclusion drawn from several relations."""

    id: str
    conclusion: str
    conditions: list[str] = Field(default_factory=list)
    confidence: float
    version: int
    status: MemoryStatus
    kind: str
    created_at: datetime
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    recorded_at: datetime | None = None
    expired_at: datetime | None = None
    sources: list[MemoryRef] = Field(default_factory=list)
    supersedes: list[MemoryRef] = Field(default_factory=list)
    disputes: list[MemoryRef] = Field(default_factory=list)
    scope: str | None = None


class AddEpisodeResult(_Wire):
    """What one addEpisode did."""

    episode: Episode
    relations: list[Relation] = Field(default_factory=list)
    entities: list[Entity] = Field(default_factory=list)
    engine: str
    error: str | None = None
    redacted: list[str] = Field(default_factory=list)
    duplicate: bool
    skipped_low_confidence: int = 0


class Scores(_Wire):
    vector: float
    fulltext: float
    graph: float
    recency: float
    importance: float
    frequency: float
    temporal: float
    fused: float


class RecallItem(_Wire):
    kind: MemoryKind
    id: str
    text: str
    score: float
    scores: Scores
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    occurred_at: datetime | None = None
    status: MemoryStatus
    sources: list[Source] = Field(default_factory=list)
    relation: Relation | None = None
    episode: Episode | None = None
    entity: Entity | None = None


class Conflict(_Wire):
    ids: list[str]
    warning: str


class TemporalWindow(_Wire):
    start: datetime
    end: datetime
    phrase: str
    kind: str


class RecallResult(_Wire):
    items: list[RecallItem]
    conflicts: list[Conflict] = Field(default_factory=list)
    temporal_window: TemporalWindow | None = None
    cold_start: bool = False
    took_ms: float = 0.0


class RelationPage(_Wire):
    items: list[Relation]
    next_cursor: str | None = None


class EntityPage(_Wire):
    items: list[Entity]
    total: int
    limit: int
    offset: int


class EpisodePage(_Wire):
    items: list[Episode]
    total: int
    limit: int
    offset: int


class StatusCount(_Wire):
    status: MemoryStatus
    count: int


class Stats(_Wire):
    user_id: str
    episodes: int
    entities: int
    relations: int
    abstractions: int
    forgotten: int
    by_status: list[StatusCount] = Field(default_factory=list)
    embedding_models: list[str] = Field(default_factory=list)
    mixed_models_warning: str | None = None
    reflection_due: bool = False
    reflection_reason: str | None = None
