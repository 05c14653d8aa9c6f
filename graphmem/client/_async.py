"""``AsyncGraphMemClient``: the GraphQL API from asyncio (or trio) code."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from datetime import datetime
from types import TracebackType
from typing import Any, Unpack

import anyio
import httpx

from graphmem.client import _ops as ops
from graphmem.client import _ops_life as life
from graphmem.client import _transport as tr
from graphmem.client._models import (
    Abstraction,
    AddEpisodeResult,
    Entity,
    EntityPage,
    EpisodeInput,
    EpisodePage,
    MemoryKind,
    RecallResult,
    Relation,
    RelationInput,
    RelationPage,
    Stats,
)
from graphmem.client._models_life import (
    FeedbackResult,
    FeedbackSignal,
    GcReport,
    MemoryEvent,
    MemoryEventPage,
    MemoryImportance,
)


class AsyncGraphMemClient:
    """A graphmem server over HTTP, from async code (``async with``; ``await`` every call).

    ``url`` is the server (``http://127.0.0.1:8420``; ``/graphql`` is added), ``api_key``
    its key (sent as ``Authorization: Bearer``), ``timeout`` the seconds one attempt may
    take, ``retry`` when and how to send a refused request again. Results are pydantic
    models (``graphmem.client.Relation``...); failures are ``ClientError`` subclasses
    carrying the server's ``code`` and ``field``. Use it as an async context manager,
    or ``await close()``.
    """

    def __init__(self, url: str = "http://127.0.0.1:8420", *, api_key: str | None = None,
                 timeout: float = 30.0, retry: tr.RetryPolicy | None = None,
                 headers: dict[str, str] | None = None,
                 transport: httpx.AsyncBaseTransport | None = None) -> None:
        self.url = tr.endpoint(url)
        self.retry = retry or tr.RetryPolicy()
        self._http = httpx.AsyncClient(headers=tr.headers(api_key, headers),
                                  timeout=tr.timeout(timeout), transport=transport)

    async def __aenter__(self) -> AsyncGraphMemClient:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        await self.close()

    async def close(self) -> None:
        await self._http.aclose()

    async def _run[T](self, op: ops.Op[T]) -> T:
        payload = {"query": op.document, "variables": op.variables}
        attempt = 0
        while True:
            try:
                return op.result(tr.read(await self._http.post(self.url, json=payload)))
            except Exception as exc:  # noqa: BLE001 - classify re-raises what it does not know
                err, again = tr.classify(exc, mutation=op.mutation)
                if not again or attempt >= self.retry.retries:
                    raise err from (None if err is exc else exc)
            await anyio.sleep(tr.wait_for(err, self.retry, attempt))
            attempt += 1

    async def execute(self, document: str, variables: dict[str, Any] | None = None) -> Any:
        """Any GraphQL operation; its ``data``. Queries are retried like the typed calls."""
        return await self._run(ops.raw(document, variables))

    # ------------------------------------------------------------------ writes

    async def add_episode(self, user_id: str, occurred_at: datetime | str,
                    **opts: Unpack[ops.EpisodeOptions]) -> AddEpisodeResult:
        """Store what happened (``content=`` or ``messages=``) and what it says."""
        return await self._run(ops.add_episode(ops.episode_input(user_id, occurred_at, opts)))

    async def add_episodes(self, episodes: Sequence[EpisodeInput | dict[str, Any]]
                     ) -> list[AddEpisodeResult]:
        """Episodes of one user in one transaction."""
        return await self._run(ops.add_episodes(episodes))

    async def add_relation(self, user_id: str, subject: str, predicate: str, object: str,
                     **opts: Unpack[ops.RelationOptions]) -> Relation:
        """Record one statement; the conflict rules place it in its history."""
        return await self._run(ops.add_relation(
            ops.relation_input(user_id, subject, predicate, object, opts)))

    async def add_relations(self, relations: Sequence[RelationInput | dict[str, Any]]
                      ) -> list[Relation]:
        """Statements of one user in one transaction."""
        return await self._run(ops.add_relations(relations))

    async def forget(self, user_id: str, memory_id: str) -> bool:
        """Hide a memory from every read; True if it was visible."""
        return await self._run(ops.forget(user_id, memory_id))

    async def restore(self, user_id: str, memory_id: str) -> bool:
        """Bring a forgotten memory back; True if it was forgotten."""
        return await self._run(ops.restore(user_id, memory_id))

    async def reflect(self, user_id: str, scope: str | None = None) -> list[Abstraction]:
        """Draw abstractions (of one scope with ``scope``); the new, re-versioned and
        closed ones."""
        return await self._run(ops.reflect(user_id, scope))

    # ------------------------------------------------------------------ reads

    async def recall(self, user_id: str, query: str,
               **opts: Unpack[ops.RecallOptions]) -> RecallResult:
        """Memories about ``query``, ranked and explained, as of a time."""
        return await self._run(ops.recall(user_id, query, opts))

    async def relations(self, user_id: str, *, limit: int = 100,
                  **filters: Unpack[ops.RelationFilter]) -> list[Relation]:
        """The first ``limit`` relations valid at ``as_of`` as believed at ``known_at``."""
        return await self._run(ops.relations(user_id, limit, filters))

    async def relation_page(self, user_id: str, *, first: int = 100, after: str | None = None,
                      **filters: Unpack[ops.RelationFilter]) -> RelationPage:
        """One page of ``relations``; pass its ``next_cursor`` as ``after``."""
        return await self._run(ops.relation_page(user_id, first, after, filters))

    async def iter_relations(self, user_id: str, *, page_size: int = 100,
                       **filters: Unpack[ops.RelationFilter]) -> AsyncIterator[Relation]:
        """Every relation of the listing, fetched a page at a time."""
        after: str | None = None
        while True:
            page = await self.relation_page(user_id, first=page_size, after=after, **filters)
            for item in page.items:
                yield item
            if page.next_cursor is None:
                return
            after = page.next_cursor

    async def relation(self, user_id: str, relation_id: str,
                 known_at: datetime | str | None = None) -> Relation:
        return await self._run(ops.relation(user_id, relation_id, known_at))

    async def history(self, user_id: str, relation_id: str) -> list[Relation]:
        """The supersession chain a relation belongs to, oldest first."""
        return await self._run(ops.history(user_id, relation_id))

    async def abstractions(self, user_id: str, *, as_of: datetime | str | None = None,
                     known_at: datetime | str | None = None,
                     include_history: bool = False,
                     scope: str | None = None) -> list[Abstraction]:
        return await self._run(ops.abstractions(user_id, as_of, known_at, include_history,
                                              scope))

    async def entities(self, user_id: str, *, name: str | None = None, limit: int = 20,
                 offset: int = 0, include_forgotten: bool = False) -> EntityPage:
        return await self._run(ops.entities(user_id, name, limit, offset, include_forgotten))

    async def entity(self, user_id: str, entity_id: str) -> Entity:
        return await self._run(ops.entity(user_id, entity_id))

    async def episodes(self, user_id: str, *, session_id: str | None = None, limit: int = 20,
                 offset: int = 0, include_forgotten: bool = False) -> EpisodePage:
        return await self._run(ops.episodes(user_id, session_id, limit, offset, include_forgotten))

    async def stats(self, user_id: str) -> Stats:
        return await self._run(ops.stats(user_id))


    # ------------------------------------------------------------------ lifecycle

    async def feedback(self, user_id: str, memory_id: str, signal: FeedbackSignal | str,
                 note: str | None = None) -> FeedbackResult:
        """One bounded step (HELPFUL / WRONG / OUTDATED) on one memory, logged."""
        return await self._run(life.feedback(user_id, memory_id, signal, note))

    async def add_feedback(self, user_id: str, target_ids: Sequence[str],
                     signal: FeedbackSignal | str, *, confidence: float = 1.0,
                     note: str | None = None, by: str | None = None) -> list[FeedbackResult]:
        """POSITIVE / NEGATIVE / CORRECTION on memories, weighed with the signals each
        already has; all targets or none."""
        return await self._run(life.add_feedback(user_id, target_ids, signal, confidence, note, by))

    async def importance(self, user_id: str, memory_id: str) -> MemoryImportance:
        """How much a memory matters now, each factor, and its feedback trail."""
        return await self._run(life.importance(user_id, memory_id))

    async def gc(self, user_id: str, *, dry_run: bool = True,
           kinds: Sequence[MemoryKind | str] | None = None,
           max_importance: float | None = None, limit: int = 1000,
           older_than: datetime | str | None = None,
           session_id: str | None = None, scope: str | None = None) -> GcReport:
        """What gc would forget (``dry_run=True``, the default), or forget it;
        ``session_id``: every episode of that session (delete a session); ``scope``:
        every memory of that scope among ``kinds`` (delete a project)."""
        return await self._run(life.gc(user_id, dry_run, kinds, max_importance, limit,
                                 older_than, session_id, scope))

    async def events(self, user_id: str, since: datetime | str, *,
               until: datetime | str | None = None, after: str | None = None,
               limit: int = 100, scope: str | None = None) -> MemoryEventPage:
        """One page of what changed at or after ``since``, oldest first; under a ``scope``,
        about that scope's memories and the user level's."""
        return await self._run(life.events(user_id, since, until, after, limit, scope))

    async def iter_events(self, user_id: str, since: datetime | str, *,
                    until: datetime | str | None = None,
                    page_size: int = 100, scope: str | None = None) -> AsyncIterator[MemoryEvent]:
        """Every event since ``since``, a page at a time."""
        after: str | None = None
        while True:
            page = await self.events(user_id, since, until=until, after=after,
                                    limit=page_size, scope=scope)
            for item in page.items:
                yield item
            if page.next_cursor is None or not page.items:
                return
            after = page.next_cursor
