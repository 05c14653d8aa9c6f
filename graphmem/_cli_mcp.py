"""``graphmem mcp --url``: the MCP tools over a running graphmem server.

``RemoteMemory`` answers the calls the MCP tools make of a ``MemoryService`` (the same
names and arguments: ``mcp_server.Memory``) by sending them to the server's GraphQL API
with ``graphmem.client.GraphMemClient``, and turns the answers back into the service's own
models, so the tools format them exactly as they do in-process. Nothing of the store is
opened here: the server, its API key and its limits decide what a call may do. A refused
input stays an ``InvalidInputError`` (the tools report it as ``BAD_ARGUMENT field``); any
other refusal is a tool error with the server's code (UNAUTHENTICATED, FORBIDDEN,
NOT_FOUND, UNAVAILABLE).

This module sits with the command line (it imports the client and the MCP server).

Fields the API does not expose (a relation's entity ids and group key, an abstraction's
lineage) are left empty; the MCP answers never show them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import datetime

import anyio
from mcp.server.mcpserver.exceptions import ToolError

from graphmem.client import Abstraction as RemoteAbstraction
from graphmem.client import (
    AuthenticationError,
    BadInputError,
    ClientError,
    ForbiddenError,
    GraphMemClient,
    NotFoundError,
    UnavailableError,
)
from graphmem.client import Episode as RemoteEpisode
from graphmem.client import Relation as RemoteRelation
from graphmem.inputs import EpisodeIn, RecallIn, RelationIn
from graphmem.model import Abstraction, Episode, Relation, utcnow
from graphmem.readers import Page
from graphmem.recall_model import Conflict, RecallItem, RecallResult, Scores, Source
from graphmem.reflect import ReflectResult
from graphmem.relations import RelationPage
from graphmem.service import EpisodeResult
from graphmem.timeparse import TimeWindow


def client_error_text(e: ClientError) -> str:
    """A client error as the coded text of an MCP tool error."""
    if isinstance(e, AuthenticationError):
        return ("UNAUTHENTICATED: the graphmem server refused the API key "
                "(graphmem mcp --api-key, or GRAPHMEM_API_KEY)")
    # the server's message may lead with its own field name (input.userId: ...)
    why = e.message.split(": ", 1)[-1] if e.field and e.message.startswith(e.field) \
        else e.message
    if isinstance(e, ForbiddenError):
        return f"FORBIDDEN: {why}"
    if isinstance(e, NotFoundError):
        return f"NOT_FOUND: {why}"
    if isinstance(e, UnavailableError):
        return f"UNAVAILABLE: the graphmem server cannot be reached or is busy ({e.message})"
    return f"ERROR: the graphmem server failed: {e.message}"


def run_stdio_remote(url: str, api_key: str | None = None,
                     default_user: str | None = None) -> None:
    """Serve MCP over stdin/stdout, every call sent to the graphmem server at ``url``."""
    from graphmem.mcp_server import build_mcp

    with GraphMemClient(url, api_key=api_key) as client:
        memory = RemoteMemory(client)
        mcp = build_mcp(lambda: memory, episodes=lambda: memory, default_user=default_user)
        anyio.run(mcp.run_stdio_async)


def _refusals[**P, R](fn: Callable[P, R]) -> Callable[P, R]:
    """Every server refusal but a bad input as the MCP tool error for it."""

    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except BadInputError:
            raise  # an InvalidInputError: the tools say BAD_ARGUMENT with the field
        except ClientError as e:
            raise ToolError(client_error_text(e)) from None

    return run


class RemoteMemory:
    """What the MCP tools call on a ``MemoryService``, through a running server."""

    def __init__(self, client: GraphMemClient) -> None:
        self.client = client

    def clock(self) -> datetime:
        return utcnow()

    # ------------------------------------------------------------------ writes

    @_refusals
    def add_episode(self, data: EpisodeIn) -> EpisodeResult:
        r = self.client.add_episode(
            data.user_id, data.occurred_at, content=data.content,
            messages=None if data.messages is None else [
                {"role": m.role, "content": m.content, "name": m.name} for m in data.messages],
            session_id=data.session_id, source=data.source, source_ref=data.source_ref,
            kind=data.kind, role=data.role, speaker=data.speaker, scope=data.scope)
        return EpisodeResult(episode=_episode(r.episode), duplicate=r.duplicate,
                             relations=[_relation(x) for x in r.relations],
                             engine=r.engine, error=r.error, redacted=r.redacted,
                             skipped_low_confidence=r.skipped_low_confidence)

    @_refusals
    def add_relation(self, data: RelationIn) -> Relation:
        return _relation(self.client.add_relation(
            data.user_id, data.subject, data.predicate, data.object,
            valid_from=data.valid_from, valid_until=data.valid_until,
            exclusive=data.exclusive, confidence=data.confidence,
            importance=data.importance, category=data.category, statement=data.statement,
            source_ref=data.source_ref, scope=data.scope, session_id=data.session_id))

    @_refusals
    def forget(self, user_id: str, memory_id: str) -> bool:
        return self.client.forget(user_id, memory_id)

    @_refusals
    def restore(self, user_id: str, memory_id: str) -> bool:
        return self.client.restore(user_id, memory_id)

    @_refusals
    def reflect(self, user_id: str) -> ReflectResult:
        return ReflectResult(written=[_abstraction(a, user_id)
                                      for a in self.client.reflect(user_id)])

    # ------------------------------------------------------------------ reads

    @_refusals
    def recall(self, q: RecallIn) -> RecallResult:
        r = self.client.recall(q.user_id, q.query, as_of=q.as_of, known_at=q.known_at,
                               between=q.between, reference_time=q.reference_time,
                               limit=q.limit, kinds=q.kinds, include_history=q.include_history,
                               hops=q.hops, scope=q.scope, session_id=q.session_id)
        window = r.temporal_window
        return RecallResult(
            items=[RecallItem(
                kind=it.kind, id=it.id, text=it.text, score=it.score,
                scores=Scores(**it.scores.model_dump()), valid_from=it.valid_from,
                valid_until=it.valid_until, occurred_at=it.occurred_at, status=it.status,
                sources=[Source(s.id, s.source_ref, s.occurred_at) for s in it.sources])
                for it in r.items],
            conflicts=[Conflict(c.ids, c.warning) for c in r.conflicts],
            temporal_window=None if window is None else TimeWindow(
                window.start, window.end, window.phrase, window.kind),
            cold_start=r.cold_start, took_ms=r.took_ms)

    @_refusals
    def relations(self, user_id: str, *, limit: int = 1000) -> list[Relation]:
        return [_relation(r) for r in self.client.relations(user_id, limit=limit)]

    @_refusals
    def relations_page(self, user_id: str, *, include_history: bool = False,
                       known_at: datetime | None = None, limit: int = 100,
                       after: str | None = None) -> RelationPage:
        page = self.client.relation_page(user_id, first=limit, after=after,
                                         include_history=include_history, known_at=known_at)
        return RelationPage([_relation(r) for r in page.items], page.next_cursor)

    @_refusals
    def history(self, user_id: str, relation_id: str) -> list[Relation]:
        return [_relation(r) for r in self.client.history(user_id, relation_id)]

    @_refusals
    def abstractions(self, user_id: str, *, as_of: datetime | None = None
                     ) -> list[Abstraction]:
        return [_abstraction(a, user_id)
                for a in self.client.abstractions(user_id, as_of=as_of)]

    @_refusals
    def episodes_page(self, user_id: str, *, session_id: str | None, limit: int, offset: int,
                      include_forgotten: bool = False) -> Page[Episode]:
        page = self.client.episodes(user_id, session_id=session_id, limit=limit,
                                    offset=offset, include_forgotten=include_forgotten)
        return Page([_episode(e) for e in page.items], page.total, page.limit, page.offset)


def _relation(r: RemoteRelation) -> Relation:
    return Relation(
        id=r.id, user_id=r.user_id, created_at=r.recorded_at, subject=r.subject,
        predicate=r.predicate, object=r.object, subject_id="", object_id="",
        statement=r.statement, category=r.category, exclusive=r.exclusive,
        confidence=r.confidence, importance=r.importance, valid_from=r.valid_from,
        valid_until=r.valid_until, recorded_at=r.recorded_at, expired_at=r.expired_at,
        status=r.status, group_key="", forgotten_at=r.forgotten_at, scope=r.scope,
        session_id=r.session_id,
        source_refs=r.source_refs, access_count=r.access_count,
        supersedes_ids=sorted(x.id for x in r.supersedes),
        superseded_by_ids=sorted(x.id for x in r.superseded_by),
        disputes_ids=sorted(x.id for x in r.disputes))


def _episode(e: RemoteEpisode) -> Episode:
    return Episode.model_validate({
        "id": e.id, "user_id": e.user_id, "created_at": e.recorded_at, "content": e.content,
        "kind": e.kind, "role": e.role, "speaker": e.speaker, "session_id": e.session_id,
        "occurred_at": e.occurred_at, "recorded_at": e.recorded_at, "source": e.source,
        "source_ref": e.source_ref, "forgotten_at": e.forgotten_at,
        "embedding_model": e.embedding_model, "scope": e.scope})


def _abstraction(a: RemoteAbstraction, user_id: str) -> Abstraction:
    return Abstraction(
        id=a.id, user_id=user_id, created_at=a.created_at, conclusion=a.conclusion,
        conditions=a.conditions, confidence=a.confidence, version=a.version, status=a.status,
        source_ids=[s.id for s in a.sources], kind=a.kind, valid_from=a.valid_from,
        valid_until=a.valid_until, recorded_at=a.recorded_at, expired_at=a.expired_at,
        supersedes_ids=[s.id for s in a.supersedes], disputes_ids=[s.id for s in a.disputes],
        scope=a.scope)
