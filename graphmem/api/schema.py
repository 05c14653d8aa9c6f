"""The GraphQL schema: thin resolvers over ``MemoryService``, limits, error mapping.

Every resolver authorises the userId it is given, calls the service (in a worker thread:
store calls block) or a DataLoader, and maps the result with ``from_model``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import strawberry
from graphql import GraphQLError
from strawberry.schema.config import StrawberryConfig

from graphmem.api._limits import Budget, RequestLimits
from graphmem.api.context import Info
from graphmem.api.errors import ClientErrors
from graphmem.api.inputs import EpisodeInput, RecallInput, RelationInput
from graphmem.api.lifecycle_types import (
    FeedbackEntry,
    FeedbackResult,
    FeedbackSignal,
    GcReport,
    MemoryEventPage,
    MemoryImportance,
)
from graphmem.api.scalars import DATETIME, MemoryKind
from graphmem.api.types import (
    Abstraction,
    AddEpisodePayload,
    Entity,
    EntityPage,
    EpisodePage,
    RecallResult,
    Relation,
    RelationPage,
    Stats,
)
from graphmem.errors import InvalidInputError
from graphmem.settings import Settings

MAX_RELATIONS = 1000


def _check_limit(value: int, field: str, hi: int) -> int:
    if not 1 <= value <= hi:
        raise InvalidInputError(field, f"must be between 1 and {hi}")
    return value


async def _relation_page(info: Info, user_id: strawberry.ID, subject: str | None,
                         predicate: str | None, object: str | None, as_of: datetime | None,
                         known_at: datetime | None, include_history: bool, first: int,
                         newest_first: bool | None, after: str | None,
                         first_field: str = "first", scope: str | None = None,
                         session_id: strawberry.ID | None = None) -> RelationPage:
    ctx = info.context
    ctx.authorize(str(user_id))
    _check_limit(first, first_field, MAX_RELATIONS)
    page = await ctx.run(ctx.service.relations_page, str(user_id), subject=subject,
                         predicate=predicate, object=object, as_of=as_of, known_at=known_at,
                         include_history=include_history, limit=first,
                         newest_first=newest_first, after=after, scope=scope,
                         session_id=None if session_id is None else str(session_id))
    return RelationPage.from_model(page, known_at)


@strawberry.type
class Query:
    @strawberry.field(description="Memories about a query, ranked and explained, as of a time.")
    async def recall(self, info: Info, input: RecallInput) -> RecallResult:
        ctx = info.context
        ctx.authorize(str(input.user_id), "input.userId")
        result = await ctx.run(ctx.service.recall, input.to_model())
        return RecallResult.from_model(result, str(input.user_id).strip())

    @strawberry.field(description="Relations valid at asOf as believed at knownAt (both default "
                                  "to now), newest first; with includeHistory every version, "
                                  "oldest first (newestFirst chooses). The first `limit`; "
                                  "relationPage pages through all of them. scope: that "
                                  "scope's relations and the user level's (no scope); "
                                  "sessionId: those first stated in that session.")
    async def relations(self, info: Info, user_id: strawberry.ID, subject: str | None = None,
                        predicate: str | None = None, object: str | None = None,
                        as_of: datetime | None = None, known_at: datetime | None = None,
                        include_history: bool = False, limit: int = 100,
                        newest_first: bool | None = None, scope: str | None = None,
                        session_id: strawberry.ID | None = None) -> list[Relation]:
        page = await _relation_page(info, user_id, subject, predicate, object, as_of,
                                    known_at, include_history, limit, newest_first, None,
                                    first_field="limit", scope=scope, session_id=session_id)
        return page.items

    @strawberry.field(description="A page of `relations`; pass nextCursor as `after` for the "
                                  "next one (it keeps the first page's asOf and knownAt).")
    async def relation_page(self, info: Info, user_id: strawberry.ID,
                            subject: str | None = None, predicate: str | None = None,
                            object: str | None = None, as_of: datetime | None = None,
                            known_at: datetime | None = None, include_history: bool = False,
                            first: int = 100, newest_first: bool | None = None,
                            after: str | None = None, scope: str | None = None,
                            session_id: strawberry.ID | None = None) -> RelationPage:
        return await _relation_page(info, user_id, subject, predicate, object, as_of,
                                    known_at, include_history, first, newest_first, after,
                                    scope=scope, session_id=session_id)

    @strawberry.field(description="One relation by id, as believed at knownAt.")
    async def relation(self, info: Info, user_id: strawberry.ID, id: strawberry.ID,
                       known_at: datetime | None = None) -> Relation:
        ctx = info.context
        ctx.authorize(str(user_id))
        rel = await ctx.run(ctx.service.relation, str(user_id), str(id), known_at)
        return Relation.from_model(rel, known_at)

    @strawberry.field(description="The supersession chain a relation belongs to, oldest first.")
    async def history(self, info: Info, user_id: strawberry.ID,
                      relation_id: strawberry.ID) -> list[Relation]:
        ctx = info.context
        ctx.authorize(str(user_id))
        rels = await ctx.run(ctx.service.history, str(user_id), str(relation_id))
        return [Relation.from_model(r) for r in rels]

    @strawberry.field(description="Abstractions valid at asOf as believed at knownAt (both "
                                  "default to now), most confident first; with "
                                  "includeHistory every version, each line oldest first. "
                                  "scope: that scope's and the user level's.")
    async def abstractions(self, info: Info, user_id: strawberry.ID,
                           as_of: datetime | None = None, known_at: datetime | None = None,
                           include_history: bool = False,
                           scope: str | None = None) -> list[Abstraction]:
        ctx = info.context
        ctx.authorize(str(user_id))
        found = await ctx.run(ctx.service.abstractions, str(user_id), as_of=as_of,
                              known_at=known_at, include_history=include_history,
                              scope=scope)
        return [Abstraction.from_model(a) for a in found]

    @strawberry.field(description="What changed in the user's memory at or after since "
                                  "(system time) and before until: memories recorded, "
                                  "superseded, disputed, expired, forgotten, restored, "
                                  "feedback; oldest first. Poll with after: the nextCursor "
                                  "(or the last item's cursor) of the previous page. Under "
                                  "a scope: that scope's memories and the user level's.")
    async def events(self, info: Info, user_id: strawberry.ID, since: datetime,
                     until: datetime | None = None, after: str | None = None,
                     limit: int = 100, scope: str | None = None) -> MemoryEventPage:
        ctx = info.context
        ctx.authorize(str(user_id))
        page = await ctx.run(ctx.service.events, str(user_id), since=since, until=until,
                             after=after, limit=limit, scope=scope)
        return MemoryEventPage.from_model(page)

    @strawberry.field(description="How much a memory matters now, each factor of it, its "
                                  "confidence and its feedback log.")
    async def importance(self, info: Info, user_id: strawberry.ID,
                         id: strawberry.ID) -> MemoryImportance:
        ctx = info.context
        ctx.authorize(str(user_id))
        found = await ctx.run(ctx.service.lifecycle.importance, str(user_id), str(id))
        return MemoryImportance.from_model(found)

    @strawberry.field(description="What a user's memory holds.")
    async def stats(self, info: Info, user_id: strawberry.ID) -> Stats:
        ctx = info.context
        ctx.authorize(str(user_id))
        return Stats.from_model(await ctx.run(ctx.service.stats, str(user_id)))

    @strawberry.field(description="One entity by id.")
    async def entity(self, info: Info, user_id: strawberry.ID, id: strawberry.ID) -> Entity:
        ctx = info.context
        ctx.authorize(str(user_id))
        return Entity.from_model(await ctx.run(ctx.service.entity, str(user_id), str(id)))

    @strawberry.field(description="A user's entities, by name; name matches part of a name or "
                                  "an alias.")
    async def entities(self, info: Info, user_id: strawberry.ID, name: str | None = None,
                       limit: int = 20, offset: int = 0,
                       include_forgotten: bool = False) -> EntityPage:
        ctx = info.context
        ctx.authorize(str(user_id))
        page = await ctx.run(ctx.readers.entities_page, str(user_id), name=name, limit=limit,
                             offset=offset, include_forgotten=include_forgotten)
        return EntityPage.from_model(page)

    @strawberry.field(description="A user's episodes in event-time order, optionally of one "
                                  "session.")
    async def episodes(self, info: Info, user_id: strawberry.ID,
                       session_id: strawberry.ID | None = None, limit: int = 20,
                       offset: int = 0, include_forgotten: bool = False) -> EpisodePage:
        ctx = info.context
        ctx.authorize(str(user_id))
        page = await ctx.run(ctx.readers.episodes_page, str(user_id),
                             session_id=None if session_id is None else str(session_id),
                             limit=limit, offset=offset, include_forgotten=include_forgotten)
        return EpisodePage.from_model(page)


@strawberry.type
class Mutation:
    @strawberry.mutation(description="Store one episode and what can be learned from it.")
    async def add_episode(self, info: Info, input: EpisodeInput) -> AddEpisodePayload:
        ctx = info.context
        ctx.authorize(str(input.user_id), "input.userId")
        return AddEpisodePayload.from_model(await ctx.run(ctx.service.add_episode,
                                                          input.to_model()))

    @strawberry.mutation(description="Store episodes of one user in one transaction.")
    async def add_episodes(self, info: Info,
                           inputs: list[EpisodeInput]) -> list[AddEpisodePayload]:
        ctx = info.context
        for i, item in enumerate(inputs):
            ctx.authorize(str(item.user_id), f"inputs[{i}].userId")
        results = await ctx.run(ctx.service.add_episodes, [i.to_model() for i in inputs])
        return [AddEpisodePayload.from_model(r) for r in results]

    @strawberry.mutation(description="Record one statement; the conflict rules place it in its "
                                     "history.")
    async def add_relation(self, info: Info, input: RelationInput) -> Relation:
        ctx = info.context
        ctx.authorize(str(input.user_id), "input.userId")
        return Relation.from_model(await ctx.run(ctx.service.add_relation, input.to_model()))

    @strawberry.mutation(description="Record statements of one user in one transaction.")
    async def add_relations(self, info: Info, inputs: list[RelationInput]) -> list[Relation]:
        ctx = info.context
        for i, item in enumerate(inputs):
            ctx.authorize(str(item.user_id), f"inputs[{i}].userId")
        rels = await ctx.run(ctx.service.add_relations, [i.to_model() for i in inputs])
        return [Relation.from_model(r) for r in rels]

    @strawberry.mutation(description="Hide a memory from every read; true if it was visible.")
    async def forget(self, info: Info, user_id: strawberry.ID, id: strawberry.ID) -> bool:
        ctx = info.context
        ctx.authorize(str(user_id))
        return await ctx.run(ctx.service.forget, str(user_id), str(id))

    @strawberry.mutation(description="Draw abstractions from the user's current relations; "
                                     "returns the new or re-versioned ones (and those whose "
                                     "evidence no longer holds, closed). A pattern never "
                                     "mixes scopes; scope: reflect that scope only.")
    async def reflect(self, info: Info, user_id: strawberry.ID,
                      scope: str | None = None) -> list[Abstraction]:
        ctx = info.context
        ctx.authorize(str(user_id))
        result = await ctx.run(ctx.service.reflect, str(user_id), scope)
        return [Abstraction.from_model(a) for a in result.changed]

    @strawberry.mutation(description="Feedback on a memory: HELPFUL raises its importance "
                                     "(and confidence), WRONG lowers its confidence (below "
                                     "the review threshold it is marked for review, never "
                                     "deleted), OUTDATED lowers its importance; one bounded "
                                     "step each, logged with the note.")
    async def feedback(self, info: Info, user_id: strawberry.ID, id: strawberry.ID,
                       signal: FeedbackSignal, note: str | None = None) -> FeedbackResult:
        ctx = info.context
        ctx.authorize(str(user_id))
        entry, life = await ctx.run(ctx.service.lifecycle.feedback, str(user_id), str(id),
                                    signal.value, note)
        return FeedbackResult(applied=FeedbackEntry.from_model(entry),
                              memory=MemoryImportance.from_model(life))

    @strawberry.mutation(description="One signal on one or more memories, weighed with the "
                                     "signals each already has: POSITIVE raises importance "
                                     "and confidence, NEGATIVE lowers confidence (and a "
                                     "little importance), CORRECTION lowers both and marks "
                                     "the memory for review. One signal moves little, agreeing "
                                     "ones add up (never more than 3 feedback steps), opposite "
                                     "ones take it back; confidence (0..1) weighs the signal; "
                                     "every adjustment is logged with by and the note. All "
                                     "targets or none.")
    async def add_feedback(self, info: Info, user_id: strawberry.ID,
                           target_ids: list[strawberry.ID], signal: FeedbackSignal,
                           confidence: float = 1.0, note: str | None = None,
                           by: str | None = None) -> list[FeedbackResult]:
        ctx = info.context
        ctx.authorize(str(user_id))
        done = await ctx.run(ctx.service.lifecycle.add_feedback, str(user_id),
                             [str(i) for i in target_ids], signal.value, confidence, note, by)
        return [FeedbackResult(applied=FeedbackEntry.from_model(entry),
                               memory=MemoryImportance.from_model(life))
                for entry, life in done]

    @strawberry.mutation(description="Memories whose importance now fell below the forgetting "
                                     "threshold (maxImportance, default "
                                     "GRAPHMEM_FORGET_THRESHOLD), least important first; "
                                     "with dryRun false they are forgotten (restore brings "
                                     "each back). Episodes unless kinds asks for relations or "
                                     "abstractions; sources of current abstractions are kept. "
                                     "olderThan: only memories from before it (an episode by "
                                     "when it happened, others by when they were recorded). "
                                     "sessionId: every episode of that session, whatever its "
                                     "importance (delete a session; what was learned from it "
                                     "stays). scope: every memory of that scope among kinds, "
                                     "whatever its importance (delete a project; the user "
                                     "level is in no scope).")
    async def gc(self, info: Info, user_id: strawberry.ID, dry_run: bool = True,
                 kinds: list[MemoryKind] | None = None, max_importance: float | None = None,
                 limit: int = 1000, older_than: datetime | None = None,
                 session_id: strawberry.ID | None = None,
                 scope: str | None = None) -> GcReport:
        ctx = info.context
        ctx.authorize(str(user_id))
        report = await ctx.run(ctx.service.lifecycle.gc, str(user_id), dry_run=dry_run,
                               kinds=[k.to_model() for k in kinds] if kinds else None,
                               max_importance=max_importance, limit=limit,
                               older_than=older_than,
                               session_id=None if session_id is None else str(session_id),
                               scope=scope)
        return GcReport.from_model(report)

    @strawberry.mutation(description="Bring a forgotten memory back unchanged; true if it was "
                                     "forgotten.")
    async def restore(self, info: Info, user_id: strawberry.ID, id: strawberry.ID) -> bool:
        ctx = info.context
        ctx.authorize(str(user_id))
        return await ctx.run(ctx.service.restore, str(user_id), str(id))


class GraphMemSchema(strawberry.Schema):
    def process_errors(self, errors: list[GraphQLError],
                       execution_context: Any = None) -> None:
        # ClientErrors logs the unexpected ones (with traceback); expected errors are not
        # server faults and stay out of the error log.
        return None


def build_schema(settings: Settings | None = None) -> strawberry.Schema:
    """The schema with the request limits of ``settings`` (defaults when None)."""
    s = settings or Settings()
    budget = Budget(max_depth=s.max_query_depth, max_aliases=s.max_aliases,
                    max_cost=s.max_query_cost, max_tokens=s.max_query_tokens)
    return GraphMemSchema(
        query=Query, mutation=Mutation, types=[Abstraction],
        config=StrawberryConfig(scalar_map={datetime: DATETIME}),
        # Factories, not instances: each operation gets its own extension objects (an
        # instance would be shared, and its execution context overwritten, across requests).
        # RequestLimits parses, measures (depth, aliases, cost) and validates off the event
        # loop; ClientErrors maps every error to its client-safe form.
        extensions=[lambda: RequestLimits(budget), ClientErrors])


def sdl() -> str:
    """The schema in SDL, as ``schema.graphql`` holds it."""
    from strawberry.printer import print_schema

    return print_schema(build_schema()) + "\n"
