"""GraphQL output types, code-first. Each maps a service model with ``from_model``; the model
itself rides along as ``strawberry.Private`` so nested fields can load their neighbours
through the request's DataLoaders without exposing backend data."""

from __future__ import annotations

from datetime import datetime

import strawberry

from graphmem import model
from graphmem import recall as recall_model
from graphmem import relations as relations_model
from graphmem.api.context import Info
from graphmem.api.lifecycle_types import HealthCheck
from graphmem.api.scalars import MemoryKind, MemoryStatus
from graphmem.inputs import check_instant
from graphmem.model import to_ms
from graphmem.readers import Page, check_page
from graphmem.service import EpisodeResult
from graphmem.service import Stats as StatsModel

_PREFIX_KIND = {"rel": MemoryKind.RELATION, "epi": MemoryKind.EPISODE,
                "ent": MemoryKind.ENTITY, "abs": MemoryKind.ABSTRACTION}


@strawberry.type(description="Where a memory came from: an episode and the caller's id for it.")
class Source:
    id: strawberry.ID
    source_ref: str | None
    occurred_at: datetime | None


@strawberry.type(description="A reference to any memory by id.")
class MemoryRef:
    id: strawberry.ID
    kind: MemoryKind | None

    @classmethod
    def of(cls, memory_id: str) -> MemoryRef:
        return cls(id=strawberry.ID(memory_id), kind=_PREFIX_KIND.get(memory_id.split("_")[0]))


@strawberry.type(description="Something that happened and was observed.")
class Episode:
    id: strawberry.ID
    user_id: strawberry.ID
    session_id: strawberry.ID
    content: str
    kind: str
    role: str | None
    speaker: str | None
    occurred_at: datetime
    recorded_at: datetime
    source: str | None
    source_ref: str | None
    forgotten_at: datetime | None
    status: MemoryStatus
    embedding_model: str | None
    scope: str | None = strawberry.field(
        default=None, description="its project or workspace; null: the user level")

    @classmethod
    def from_model(cls, m: model.Episode) -> Episode:
        return cls(id=strawberry.ID(m.id), user_id=strawberry.ID(m.user_id),
                   session_id=strawberry.ID(m.session_id), content=m.content, kind=m.kind,
                   role=m.role, speaker=m.speaker, occurred_at=m.occurred_at,
                   recorded_at=m.recorded_at, source=m.source, source_ref=m.source_ref,
                   forgotten_at=m.forgotten_at,
                   status=MemoryStatus.FORGOTTEN if m.forgotten_at else MemoryStatus.ACTIVE,
                   embedding_model=m.embedding_model, scope=m.scope)


@strawberry.type(description="Why a name was linked to an entity it does not spell.")
class EntityResolution:
    name: str = strawberry.field(description="the name as it was sent")
    matched: str = strawberry.field(description="the entity name its embedding matched")
    score: float = strawberry.field(description="the similarity of the two names")
    method: str
    at: datetime | None


@strawberry.type(description="A person, organisation, product, place, concept...")
class Entity:
    id: strawberry.ID
    user_id: strawberry.ID
    name: str
    type: str
    aliases: list[str]
    summary: str
    created_at: datetime
    forgotten_at: datetime | None
    status: MemoryStatus
    resolutions: list[EntityResolution] = strawberry.field(
        description="names linked to this entity by similarity (they became aliases), with "
                    "the score: a link is explained, never a rewrite of what was stored")

    @classmethod
    def from_model(cls, m: model.Entity) -> Entity:
        return cls(id=strawberry.ID(m.id), user_id=strawberry.ID(m.user_id), name=m.name,
                   type=m.type, aliases=list(m.aliases), summary=m.summary,
                   created_at=m.created_at, forgotten_at=m.forgotten_at,
                   status=MemoryStatus.FORGOTTEN if m.forgotten_at else MemoryStatus.ACTIVE,
                   resolutions=[EntityResolution(name=r.name, matched=r.matched, score=r.score,
                                                 method=r.method, at=r.at)
                                for r in m.resolutions])

    @strawberry.field(description="Relations this entity is the subject or object of, valid "
                                  "at asOf as believed at knownAt, newest first (the entity's "
                                  "timeline with includeHistory, oldest first; newestFirst "
                                  "chooses). The first `limit`; relationPage pages through "
                                  "all of them.")
    async def relations(self, info: Info, as_of: datetime | None = None,
                        known_at: datetime | None = None, include_history: bool = False,
                        limit: int = 50, newest_first: bool | None = None) -> list[Relation]:
        page = await self._relation_page(info, as_of, known_at, include_history, limit,
                                         newest_first, None)
        return page.items

    @strawberry.field(description="A page of `relations`; pass nextCursor as `after` for the "
                                  "next one (it keeps the first page's asOf and knownAt).")
    async def relation_page(self, info: Info, as_of: datetime | None = None,
                            known_at: datetime | None = None, include_history: bool = False,
                            first: int = 50, newest_first: bool | None = None,
                            after: str | None = None) -> RelationPage:
        return await self._relation_page(info, as_of, known_at, include_history, first,
                                         newest_first, after)

    async def _relation_page(self, info: Info, as_of: datetime | None,
                             known_at: datetime | None, include_history: bool, first: int,
                             newest_first: bool | None, after: str | None) -> RelationPage:
        check_page(first, 0)
        as_of, known_at = check_instant(as_of, "asOf"), check_instant(known_at, "knownAt")
        key = (str(self.user_id), str(self.id), to_ms(as_of), to_ms(known_at), include_history,
               first, newest_first, after)
        page = await info.context.loaders.entity_relations.load(key)
        return RelationPage.from_model(page, known_at)


@strawberry.type(description="One statement (subject - predicate - object) with valid time "
                             "(validFrom..validUntil) and system time (recordedAt..expiredAt).")
class Relation:
    id: strawberry.ID
    user_id: strawberry.ID
    subject: str
    predicate: str
    object: str
    statement: str
    category: str
    exclusive: bool
    valid_from: datetime
    valid_until: datetime | None
    recorded_at: datetime
    expired_at: datetime | None
    status: MemoryStatus
    confidence: float
    importance: float
    forgotten_at: datetime | None
    source_refs: list[str]
    access_count: int
    node: strawberry.Private[model.Relation]
    known_at: strawberry.Private[datetime | None]
    scope: str | None = strawberry.field(
        default=None, description="its project or workspace (its slots are its own); null: "
                                  "the user level")
    session_id: strawberry.ID | None = strawberry.field(
        default=None, description="the session that first stated it, if one did")

    @classmethod
    def from_model(cls, m: model.Relation, known_at: datetime | None = None) -> Relation:
        return cls(id=strawberry.ID(m.id), user_id=strawberry.ID(m.user_id), subject=m.subject,
                   predicate=m.predicate, object=m.object, statement=m.statement,
                   category=m.category, exclusive=m.exclusive, valid_from=m.valid_from,
                   valid_until=m.valid_until, recorded_at=m.recorded_at,
                   expired_at=m.expired_at, status=MemoryStatus.from_model(m.status),
                   confidence=m.confidence, importance=m.importance,
                   forgotten_at=m.forgotten_at, source_refs=list(m.source_refs),
                   access_count=m.access_count, node=m, known_at=known_at, scope=m.scope,
                   session_id=None if m.session_id is None else strawberry.ID(m.session_id))

    async def _neighbours(self, info: Info, ids: list[str]) -> list[Relation]:
        k = to_ms(self.known_at)
        found = await info.context.loaders.relation.load_many(
            [(self.node.user_id, i, k) for i in ids])
        return [Relation.from_model(r, self.known_at) for r in found if r is not None]

    @strawberry.field(description="The relations this one replaced.")
    async def supersedes(self, info: Info) -> list[Relation]:
        return await self._neighbours(info, self.node.supersedes_ids)

    @strawberry.field(description="The relations that replaced this one.")
    async def superseded_by(self, info: Info) -> list[Relation]:
        return await self._neighbours(info, self.node.superseded_by_ids)

    @strawberry.field(description="Relations in conflict with this one (same time, "
                                  "different object of an exclusive predicate).")
    async def disputes(self, info: Info) -> list[Relation]:
        return await self._neighbours(info, self.node.disputes_ids)

    @strawberry.field(description="The episodes this relation was learned from, oldest first.")
    async def evidence(self, info: Info) -> list[Episode]:
        found = await info.context.loaders.episode.load_many(
            [(self.node.user_id, i) for i in self.node.episode_ids])
        eps = sorted((e for e in found if e is not None and e.forgotten_at is None),
                     key=lambda e: (e.occurred_at, e.id))
        return [Episode.from_model(e) for e in eps]

    @strawberry.field(description="Provenance: source episodes with the caller's sourceRef; "
                                  "for a relation added directly, its sourceRefs.")
    async def sources(self, info: Info) -> list[Source]:
        eps = await self.evidence(info)
        if eps:
            return [Source(id=e.id, source_ref=e.source_ref, occurred_at=e.occurred_at)
                    for e in eps]
        return [Source(id=self.id, source_ref=ref, occurred_at=None)
                for ref in self.node.source_refs]

    @strawberry.field
    async def subject_entity(self, info: Info) -> Entity | None:
        return await _entity(info, self.node.user_id, self.node.subject_id)

    @strawberry.field
    async def object_entity(self, info: Info) -> Entity | None:
        return await _entity(info, self.node.user_id, self.node.object_id)


@strawberry.type(description="One page of a relation listing.")
class RelationPage:
    items: list[Relation]
    next_cursor: str | None = strawberry.field(
        description="pass as `after` for the next page; null on the last page")

    @classmethod
    def from_model(cls, page: relations_model.RelationPage,
                   known_at: datetime | None = None) -> RelationPage:
        return cls(items=[Relation.from_model(r, known_at) for r in page.items],
                   next_cursor=page.next_cursor)


async def _entity(info: Info, user_id: str, entity_id: str) -> Entity | None:
    if not entity_id:
        return None
    found = await info.context.loaders.entity.load((user_id, entity_id))
    return Entity.from_model(found) if found is not None else None


@strawberry.type(description="A conclusion drawn from several relations and episodes: one "
                               "version of it (new evidence writes the next version).")
class Abstraction:
    id: strawberry.ID
    conclusion: str
    conditions: list[str]
    confidence: float
    version: int
    status: MemoryStatus
    created_at: datetime
    sources: list[MemoryRef] = strawberry.field(
        description="the relations it was drawn from (DERIVED_FROM)")
    kind: str = strawberry.field(description="preference, taste, rule or habit")
    valid_from: datetime | None = strawberry.field(
        description="when its evidence held in the world")
    valid_until: datetime | None = strawberry.field(
        description="when a later version replaced it, as believed at knownAt")
    recorded_at: datetime | None
    expired_at: datetime | None
    supersedes: list[MemoryRef] = strawberry.field(description="the versions it replaced")
    disputes: list[MemoryRef] = strawberry.field(
        description="versions drawn from evidence that disagrees with its own")
    scope: str | None = strawberry.field(
        default=None, description="the scope its sources are in; null: the user level")

    @classmethod
    def from_model(cls, m: model.Abstraction) -> Abstraction:
        return cls(id=strawberry.ID(m.id), conclusion=m.conclusion,
                   conditions=list(m.conditions), confidence=m.confidence, version=m.version,
                   status=MemoryStatus.from_model(m.status), created_at=m.created_at,
                   sources=[MemoryRef.of(i) for i in m.source_ids], kind=m.kind,
                   valid_from=m.valid_from, valid_until=m.valid_until,
                   recorded_at=m.recorded_at, expired_at=m.expired_at,
                   supersedes=[MemoryRef.of(i) for i in m.supersedes_ids],
                   disputes=[MemoryRef.of(i) for i in m.disputes_ids], scope=m.scope)


# --------------------------------------------------------------------------- recall


@strawberry.type(description="Why an item ranked where it did.")
class Scores:
    vector: float = strawberry.field(description="cosine similarity to the query")
    fulltext: float = strawberry.field(description="full-text score of the query's words")
    graph: float = strawberry.field(description="reached from the entities the query names")
    recency: float = strawberry.field(
        description="0.5 ** (age / 180 days) of what it is about (validFrom, occurredAt)")
    importance: float = strawberry.field(
        description="importance now: min(1, base by category with feedback x "
                    "reinforcement by use) x decay; see the importance query")
    decay: float = strawberry.field(
        description="the decay in importance: 0.5 ** (days since last recalled, else "
                    "recorded / the half-life of its category: "
                    "GRAPHMEM_IMPORTANCE_HALF_LIFE_BY_CATEGORY, else "
                    "GRAPHMEM_IMPORTANCE_HALF_LIFE_DAYS)")
    frequency: float = strawberry.field(description="ln(1 + times recalled)")
    temporal: float = strawberry.field(description="inside (+) or outside (-) the query's "
                                                   "time window")
    fused: float = strawberry.field(description="the searches' fused reciprocal ranks")

    @classmethod
    def from_model(cls, s: recall_model.Scores) -> Scores:
        return cls(vector=s.vector, fulltext=s.fulltext, graph=s.graph, recency=s.recency,
                   importance=s.importance, decay=s.decay, frequency=s.frequency,
                   temporal=s.temporal, fused=s.fused)


@strawberry.type(description="One recalled memory; text is readable on its own.")
class RecallItem:
    kind: MemoryKind
    id: strawberry.ID
    text: str
    score: float
    scores: Scores
    valid_from: datetime | None
    valid_until: datetime | None
    occurred_at: datetime | None
    status: MemoryStatus
    sources: list[Source]
    passage: str | None = strawberry.field(description=(
        "When a long episode was found by one of its passages (spans with vectors of their "
        "own): that passage's text, the part of the episode that matched."))
    superseded_by: list[strawberry.ID] = strawberry.field(description=(
        "An episode: the later messages that restated what it says with another value "
        "(it is then SUPERSEDED: an earlier version)."))
    supersedes: list[strawberry.ID] = strawberry.field(
        description="An episode: the earlier messages whose value it restated.")
    version_note: str | None = strawberry.field(description=(
        "An episode in a chain of versions or a contradiction: which it is and why (the "
        "attribute and values that changed)."))
    user_id: strawberry.Private[str]

    @classmethod
    def from_model(cls, it: recall_model.RecallItem, user_id: str) -> RecallItem:
        return cls(kind=MemoryKind.from_model(it.kind), id=strawberry.ID(it.id), text=it.text,
                   score=it.score, scores=Scores.from_model(it.scores),
                   valid_from=it.valid_from, valid_until=it.valid_until,
                   occurred_at=it.occurred_at, status=MemoryStatus.from_model(it.status),
                   sources=[Source(id=strawberry.ID(s.id), source_ref=s.source_ref,
                                   occurred_at=s.occurred_at) for s in it.sources],
                   passage=it.passage,
                   superseded_by=[strawberry.ID(i) for i in it.superseded_by],
                   supersedes=[strawberry.ID(i) for i in it.supersedes],
                   version_note=it.version_note, user_id=user_id)

    @strawberry.field(description="The full relation, when kind is RELATION.")
    async def relation(self, info: Info) -> Relation | None:
        if self.kind is not MemoryKind.RELATION:
            return None
        found = await info.context.loaders.relation.load((self.user_id, str(self.id), None))
        return Relation.from_model(found) if found is not None else None

    @strawberry.field(description="The full episode, when kind is EPISODE.")
    async def episode(self, info: Info) -> Episode | None:
        if self.kind is not MemoryKind.EPISODE:
            return None
        found = await info.context.loaders.episode.load((self.user_id, str(self.id)))
        return Episode.from_model(found) if found is not None else None

    @strawberry.field(description="The full entity, when kind is ENTITY.")
    async def entity(self, info: Info) -> Entity | None:
        if self.kind is not MemoryKind.ENTITY:
            return None
        return await _entity(info, self.user_id, str(self.id))


@strawberry.type(description="Returned relations that contradict each other.")
class Conflict:
    ids: list[strawberry.ID]
    warning: str
    user_id: strawberry.Private[str]

    @strawberry.field
    async def relations(self, info: Info) -> list[Relation]:
        found = await info.context.loaders.relation.load_many(
            [(self.user_id, str(i), None) for i in self.ids])
        return [Relation.from_model(r) for r in found if r is not None]


@strawberry.type(description="The time window a recall was restricted to, and why.")
class TemporalWindow:
    start: datetime
    end: datetime
    phrase: str = strawberry.field(description="the words of the query it was read from")
    kind: str


@strawberry.type
class RecallResult:
    items: list[RecallItem]
    conflicts: list[Conflict]
    temporal_window: TemporalWindow | None
    cold_start: bool = strawberry.field(description="true when the user has no memories yet")
    took_ms: float
    preset: str = strawberry.field(
        default="conversation",
        description="the recall tuning used: conversation, or relations for a memory "
                    "made mostly of relations sent as relations; GRAPHMEM_RECALL_PRESET")

    @classmethod
    def from_model(cls, r: recall_model.RecallResult, user_id: str) -> RecallResult:
        w = r.temporal_window
        window = None if w is None else TemporalWindow(
            start=w.start, end=w.end, phrase=w.phrase or "", kind=str(w.kind))
        return cls(items=[RecallItem.from_model(i, user_id) for i in r.items],
                   conflicts=[Conflict(ids=[strawberry.ID(i) for i in c.ids],
                                       warning=c.warning, user_id=user_id)
                              for c in r.conflicts],
                   temporal_window=window, cold_start=r.cold_start, took_ms=r.took_ms,
                   preset=r.preset)


# --------------------------------------------------------------------------- writes & stats


@strawberry.type(description="What one addEpisode did.")
class AddEpisodePayload:
    episode: Episode
    relations: list[Relation]
    entities: list[Entity]
    engine: str = strawberry.field(description="rules / llm / fallback")
    error: str | None = strawberry.field(description="the LLM engine's error, if it fell back")
    redacted: list[str] = strawberry.field(description="kinds of secrets removed from content")
    duplicate: bool = strawberry.field(description="already stored: nothing was written")
    skipped_low_confidence: int

    @classmethod
    def from_model(cls, r: EpisodeResult) -> AddEpisodePayload:
        return cls(episode=Episode.from_model(r.episode),
                   relations=[Relation.from_model(x) for x in r.relations],
                   entities=[Entity.from_model(x) for x in r.entities], engine=r.engine,
                   error=r.error, redacted=list(r.redacted), duplicate=r.duplicate,
                   skipped_low_confidence=r.skipped_low_confidence)


@strawberry.type
class StatusCount:
    status: MemoryStatus
    count: int


@strawberry.type(description="What a user's memory holds.")
class Stats:
    user_id: strawberry.ID
    episodes: int
    entities: int
    relations: int
    abstractions: int
    forgotten: int
    by_status: list[StatusCount] = strawberry.field(
        description="current (not expired, not forgotten) relations per status")
    embedding_models: list[str]
    mixed_models_warning: str | None
    reflection_due: bool = strawberry.field(
        description="whether reflect would now add, re-version or close abstractions")
    reflection_reason: str | None = strawberry.field(description="why reflection is due")
    model: strawberry.Private[StatsModel]

    @strawberry.field(description="Reflection due, mixed embedding models, integrity "
                                  "(dangling edges), size, memories marked for review or "
                                  "below the forgetting threshold, and warnings. Reads all "
                                  "of the user's memory.")
    async def health_check(self, info: Info) -> HealthCheck:
        ctx = info.context
        s = self.model
        found = await ctx.run(ctx.service.lifecycle.health, s.user_id,
                              reflection_reason=s.reflection_reason,
                              embedding_models=s.embedding_models)
        return HealthCheck.from_model(found)

    @classmethod
    def from_model(cls, s: StatsModel) -> Stats:
        return cls(user_id=strawberry.ID(s.user_id), episodes=s.episodes, entities=s.entities,
                   relations=s.relations, abstractions=s.abstractions, forgotten=s.forgotten,
                   by_status=[StatusCount(status=MemoryStatus.from_model(k), count=v)
                              for k, v in sorted(s.by_status.items())
                              if k in MemoryStatus.__members__],
                   embedding_models=list(s.embedding_models),
                   mixed_models_warning=s.mixed_models_warning,
                   reflection_due=s.reflection_due, reflection_reason=s.reflection_reason,
                   model=s)


@strawberry.type
class EntityPage:
    items: list[Entity]
    total: int
    limit: int
    offset: int

    @classmethod
    def from_model(cls, p: Page[model.Entity]) -> EntityPage:
        return cls(items=[Entity.from_model(e) for e in p.items], total=p.total, limit=p.limit,
                   offset=p.offset)


@strawberry.type
class EpisodePage:
    items: list[Episode]
    total: int
    limit: int
    offset: int

    @classmethod
    def from_model(cls, p: Page[model.Episode]) -> EpisodePage:
        return cls(items=[Episode.from_model(e) for e in p.items], total=p.total,
                   limit=p.limit, offset=p.offset)
