"""A typed Python client for a graphmem server (the GraphQL API over HTTP, with httpx).

    from graphmem.client import GraphMemClient

    with GraphMemClient("http://127.0.0.1:8420", api_key="...") as gm:
        gm.add_relation("ana", "Ana", "lives_in", "Berlin", valid_from="2023-06-01")
        for item in gm.recall("ana", "where does Ana live?").items:
            print(item.score, item.text)

``AsyncGraphMemClient`` has the same methods, awaited. The client only speaks HTTP: it
imports nothing of the service or the store.
"""

from graphmem.client._async import AsyncGraphMemClient
from graphmem.client._errors import (
    AuthenticationError,
    BadInputError,
    ClientError,
    ConflictError,
    ForbiddenError,
    GraphQLError,
    NotFoundError,
    RateLimitedError,
    ServerError,
    TransportError,
    UnavailableError,
)
from graphmem.client._models import (
    Abstraction,
    AddEpisodeResult,
    Conflict,
    Entity,
    EntityPage,
    EntityResolution,
    Episode,
    EpisodeInput,
    EpisodePage,
    MemoryKind,
    MemoryRef,
    MemoryStatus,
    MessageInput,
    RecallItem,
    RecallResult,
    Relation,
    RelationInput,
    RelationPage,
    Scores,
    Source,
    Stats,
    StatusCount,
    TemporalWindow,
)
from graphmem.client._models_life import (
    FeedbackEntry,
    FeedbackResult,
    FeedbackSignal,
    GcItem,
    GcReport,
    MemoryEvent,
    MemoryEventKind,
    MemoryEventPage,
    MemoryImportance,
)
from graphmem.client._sync import GraphMemClient
from graphmem.client._transport import RetryPolicy

__all__ = [
    "Abstraction", "AddEpisodeResult", "AsyncGraphMemClient", "AuthenticationError",
    "BadInputError", "ClientError", "Conflict", "ConflictError", "Entity", "EntityPage",
    "EntityResolution", "Episode", "EpisodeInput", "EpisodePage", "FeedbackEntry",
    "FeedbackResult", "FeedbackSignal", "ForbiddenError", "GcItem", "GcReport",
    "GraphMemClient", "GraphQLError", "MemoryEvent", "MemoryEventKind", "MemoryEventPage",
    "MemoryImportance", "MemoryKind", "MemoryRef", "MemoryStatus", "MessageInput",
    "NotFoundError", "RateLimitedError", "RecallItem", "RecallResult", "Relation",
    "RelationInput", "RelationPage", "RetryPolicy", "Scores", "ServerError", "Source", "Stats",
    "StatusCount", "TemporalWindow", "TransportError", "UnavailableError",
]
