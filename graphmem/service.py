"""The service layer: graphmem's use cases as a Python API (the GraphQL layer calls this).

Writes are serialised by one lock (read the group, decide, write the plan), and each write
— one relation, one episode, one batch — is one store transaction.
"""

from __future__ import annotations

import contextlib
import json
import random
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime

from graphmem._entities import EntityRef, EntityResolver
from graphmem._episode_versions import MAX_LINKS, NewEpisode, plan_versions, version_asks
from graphmem._events import EventPage, forget_change
from graphmem._events import events as read_events
from graphmem._guard_fields import guard_relations
from graphmem._opposites import with_opposites
from graphmem._passages import passage_writes
from graphmem._speakers import Labels
from graphmem._stop_names import (
    current_facts,
    current_objects,
    ending_target,
    is_kind,
    of_kind,
)
from graphmem._webhooks import WebhookDispatcher
from graphmem.embed import CachedEmbedder, Embedder, entity_similarity, query_embedder
from graphmem.errors import ConflictError, InvalidInputError, NotFoundError
from graphmem.extract import Extractor, extract_windows
from graphmem.extract._llm_versions import VersionProposal
from graphmem.ingest import PreparedEpisode, prepare
from graphmem.inputs import EpisodeIn, RecallIn, RelationIn, check_chars, check_id, check_instant
from graphmem.lifecycle import Lifecycle
from graphmem.model import (
    CURRENT_OBJECT,
    MAX_INSTANT,
    MIN_INSTANT,
    SCHEMA_VERSION,
    Abstraction,
    Entity,
    EntityResolution,
    Episode,
    ExtractedRelation,
    Extraction,
    MemoryStatus,
    Relation,
    aware,
    from_ms,
    normalize,
    to_ms,
    utcnow,
)
from graphmem.recall import DEFAULT_TUNING, AccessTracker, Recaller, RecallResult
from graphmem.recall_model import PRESETS
from graphmem.reflect import Reflector, ReflectResult, ReflectScheduler
from graphmem.relations import (
    RelationPage,
    Statement,
    default_statement,
    fetch_page,
    page_query,
    reconcile_group,
    relation_from_row,
)
from graphmem.settings import Settings
from graphmem.store.base import NodeWrite, Row, Store, WritePlan
from graphmem.temporal import Claim
from graphmem.timeparse import told_of

Clock = Callable[[], datetime]

#: how often a write is planned again when another writer of the user got in first
_WRITE_ATTEMPTS = 10

LABEL_BY_PREFIX = {"rel": "Relation", "epi": "Episode", "ent": "Entity", "abs": "Abstraction"}


@dataclass(slots=True)
class Stats:
    user_id: str
    episodes: int
    entities: int
    relations: int
    abstractions: int
    forgotten: int
    by_status: dict[str, int] = field(default_factory=dict)
    embedding_models: list[str] = field(default_factory=list)
    mixed_models_warning: str | None = None
    #: why a reflect would change the user's abstractions now (None: it would not)
    reflection_reason: str | None = None

    @property
    def reflection_due(self) -> bool:
        return self.reflection_reason is not None


@dataclass(slots=True)
class EpisodeResult:
    """What one ``add_episode`` did."""

    episode: Episode
    duplicate: bool
    relations: list[Relation] = field(default_factory=list)
    entities: list[Entity] = field(default_factory=list)
    engine: str = "rules"
    error: str | None = None
    redacted: list[str] = field(default_factory=list)
    skipped_low_confidence: int = 0


class MemoryService:
    """graphmem's use cases over one store."""

    def __init__(self, settings: Settings, store: Store, embedder: Embedder,
                 clock: Clock = utcnow, extractor: Extractor | None = None) -> None:
        self.settings = settings
        self.store = store
        self.embedder = embedder
        self.clock = clock
        if extractor is None:
            from graphmem.extract.rules import RuleExtractor

            extractor = RuleExtractor()
        self.extractor = extractor
        self.access = AccessTracker(store, settings.access_flush_s, settings.access_flush_count)
        # the conversation preset takes the graph settings as they are; the relations
        # preset has its own unless they are set
        tuning = replace(DEFAULT_TUNING, graph_cover_weight=settings.graph_cover_weight,
                         graph_prior=settings.graph_prior)
        relational = PRESETS["relations"]
        presets = {"relations": replace(
            relational,
            graph_cover_weight=settings.graph_cover_weight or relational.graph_cover_weight,
            graph_prior=settings.graph_prior or relational.graph_prior)}
        self._write_lock = threading.RLock()
        self.lifecycle = Lifecycle(store, settings, clock, self.apply, self._write_lock,
                                   self.access)
        self._recaller = Recaller(store, query_embedder(embedder), self.access, tuning=tuning,
                                  importance=self.lifecycle.model, presets=presets,
                                  preset=settings.recall_preset, embedder=embedder)
        self.reflector = Reflector(store, embedder, settings, clock, self.apply)
        self.reflections = ReflectScheduler(self._reflect_in_background, settings.reflect_every)
        #: pushes memory events to ``settings.webhook_url`` (None: webhooks off)
        self.webhooks = WebhookDispatcher(settings, store, clock, self._write_lock) \
            if settings.webhook_url else None

    # ------------------------------------------------------------------ lifecycle

    def open(self) -> None:
        self.store.open()
        if self.webhooks is not None:  # resumes what the last process left undelivered
            self.webhooks.start()

    def close(self) -> None:
        try:
            self.reflections.close()
            self.reflector.close()
            if self.webhooks is not None:  # after the last background write
                self.webhooks.close()
            self.access.flush()
        finally:
            self.store.close()

    def apply(self, plan: WritePlan) -> None:
        """Write a plan in one transaction and drop what recall cached about its user."""
        self.store.apply(plan)
        if plan.episodes or "Episode" in plan.updates:
            self._recaller.speakers.drop(plan.user_id)
        if self.webhooks is not None:
            self.webhooks.notify(plan.user_id)

    # ------------------------------------------------------------------ recall

    def recall(self, q: RecallIn) -> RecallResult:
        """What the memory holds about ``q.query`` for that user, explained."""
        q = q.validated(self.settings.max_content_chars)
        result = self._recaller.recall(q, self.clock())
        # Only an empty answer asks whether the user has any memory at all.
        if not result.items and not self._has_memories(q.user_id):
            return RecallResult(items=[], conflicts=[], temporal_window=result.temporal_window,
                                cold_start=True, took_ms=result.took_ms)
        return result

    def _has_memories(self, user_id: str) -> bool:
        return any(self.store.has_nodes(label, user_id) for label in ("Relation", "Episode"))

    # ------------------------------------------------------------------ relations

    def add_relation(self, data: RelationIn) -> Relation:
        """Record one statement; the conflict rules decide how it joins its group."""
        return self.add_relations([data])[0]

    def add_relations(self, batch: list[RelationIn]) -> list[Relation]:
        """Record statements of one user in one transaction: all of them or none."""
        s = self.settings
        if not batch:
            raise InvalidInputError("inputs", "must not be empty")
        if len(batch) > s.max_batch:
            raise InvalidInputError("inputs", f"at most {s.max_batch} relations per batch")
        now = self.clock()
        for i, data in enumerate(batch):
            try:
                data.validated(s.max_name_chars)
            except InvalidInputError as e:
                raise InvalidInputError(f"inputs[{i}].{e.field}" if len(batch) > 1 else e.field,
                                        e.message) from None
            if data.valid_until is not None and data.valid_from is None \
                    and data.valid_until <= now:
                raise InvalidInputError("validUntil", "must be after validFrom (which "
                                                      "defaults to now)")
        guard_relations(batch, s)  # before any id, key or embedding is derived from them
        users = {d.user_id for d in batch}
        if len(users) > 1:
            raise InvalidInputError("inputs", "a batch belongs to one userId")
        user_id = batch[0].user_id
        self._warm_embeddings([t for d in batch for t in (
            d.subject, d.object, d.statement or default_statement(d.subject, d.predicate,
                                                                  d.object))])

        def write() -> list[str | None]:
            plan = WritePlan(user_id=user_id, at=to_ms(now) or 0,
                             base_version=self.store.write_version(user_id))
            entities = self._entity_resolver()
            entities.prefetch(user_id, {n: [] for d in batch for n in (d.subject, d.object)})
            statements = [self._statement(
                plan, entities, subject=d.subject, predicate=d.predicate, obj=d.object,
                category=d.category or "fact",
                exclusive=self._is_exclusive(d.predicate, d.exclusive),
                valid_from=d.valid_from or now, valid_until=d.valid_until,
                confidence=0.9 if d.confidence is None else d.confidence,
                importance=self.lifecycle.model.for_category(d.category or "fact")
                if d.importance is None else d.importance,
                statement=d.statement, source_ref=d.source_ref, episode_id=None,
                scope=d.scope, session_id=d.session_id)
                for d in batch]
            results = self._write_statements(plan, statements)
            self.apply(plan)
            return results

        results = self._planned_write(write)
        ids = [i for i in results if i is not None]
        assert len(ids) == len(batch)  # no stop claims here: each statement has a node
        found = {r["id"]: r for r in self.store.nodes("Relation", user_id, sorted(set(ids)))}
        edges = self.store.chain_edges(user_id, sorted(found))
        return [relation_from_row(found[i], edges=edges) for i in ids]

    # ------------------------------------------------------------------ episodes

    def add_episode(self, data: EpisodeIn) -> EpisodeResult:
        """Store one episode and what can be learned from it, in one transaction."""
        return self.add_episodes([data])[0]

    def add_episodes(self, batch: list[EpisodeIn]) -> list[EpisodeResult]:
        """Store episodes of one user in one transaction; re-sent episodes are no-ops."""
        s = self.settings
        if not batch:
            raise InvalidInputError("inputs", "must not be empty")
        if len(batch) > s.max_batch:
            raise InvalidInputError("inputs", f"at most {s.max_batch} episodes per batch")
        prepared = [prepare(d, s, prefix=f"inputs[{i}]." if len(batch) > 1 else "")
                    for i, d in enumerate(batch)]
        if len({p.user_id for p in prepared}) > 1:
            raise InvalidInputError("inputs", "a batch belongs to one userId")
        user_id = prepared[0].user_id
        # The slow, read-only work happens before the write lock: extraction (maybe an LLM
        # call), embedding the episodes, and warming the embedding cache with the names and
        # statements the write will most likely need.
        seen = {r["id"] for r in self.store.nodes("Episode", user_id, [p.id for p in prepared])}
        todo = list({p.id: p for p in prepared if p.id not in seen}.values())
        # speakers of content sent as "Name: text", and the user's name for their turns
        labels = Labels.resolve(self.store, user_id, todo,
                                lambda: self._recaller.speakers.get(user_id),
                                to_ms(self.clock()) or 0)
        said = dict(zip((p.id for p in todo), extract_windows(
            self.extractor, [p.messages for p in todo]), strict=True))
        extractions = {pid: with_opposites(ex, s.min_confidence) for pid, ex in said.items()}
        contents = {p.id: vec for p, vec in zip(
            todo, self.embedder.embed([p.indexed[:2000] for p in todo]) if todo else [],
            strict=True)}
        self._warm_embeddings(self._texts_of(extractions.values()))
        # long episodes: their passages' own vectors (graphmem._passages)
        passages = passage_writes(self.embedder.embed, self.embedder.model_id, [
            (p.id, p.user_id, p.content, p.role) for p in todo]) if s.passages else {}
        # with the LLM engine: the pairs the model links as versions (checked in the write)
        proposed = self._proposed_versions(user_id, todo, contents)

        def write() -> tuple[list[PreparedEpisode], dict[str, Row], list[str | None],
                            dict[str, list[int]], dict[str, list[EntityRef]],
                            dict[str, int]]:
            now = self.clock()
            plan = WritePlan(user_id=user_id, at=to_ms(now) or 0,
                             base_version=self.store.write_version(user_id))
            known = {r["id"]: r for r in self.store.nodes("Episode", user_id,
                                                           [p.id for p in prepared])}
            fresh = [p for p in todo if p.id not in known]  # another writer may have won
            entities = self._entity_resolver()
            statements: list[Statement] = []
            per_episode: dict[str, list[int]] = defaultdict(list)  # indexes in statements
            mentions: dict[str, list[EntityRef]] = defaultdict(list)
            skipped: dict[str, int] = defaultdict(int)
            vectors = [contents[p.id] for p in fresh]
            names: dict[str, list[str]] = {}
            for ex in extractions.values():
                for ent in ex.entities:
                    names.setdefault(ent.name, []).extend(ent.aliases)
                for rel in ex.relations:
                    names.setdefault(rel.subject, [])
                    names.setdefault(rel.object, [])
            entities.prefetch(user_id, names)
            for ep_id, who in labels.relabel.items():
                plan.update("Episode", ep_id, {"speaker": who, "speakerFrom": "label"})
            for p, vec in zip(fresh, vectors, strict=True):
                plan.episodes.append(NodeWrite(p.id, self._episode_props(p, plan.at), vec))
                plan.passages.extend(passages.get(p.id, []))
                ex = extractions[p.id]
                aliases = {e.name: e.aliases for e in ex.entities if e.aliases}
                types = {e.name: e.type for e in ex.entities}
                for ent in ex.entities:
                    mentions[p.id].append(entities.resolve(plan, ent.name, ent.type,
                                                           ent.aliases))
                for n, rel in enumerate(ex.relations):
                    if rel.confidence < s.min_confidence:
                        skipped[p.id] += 1  # gated: too uncertain to keep as a memory
                        continue
                    msg = p.messages[min(max(rel.message_index, 0), len(p.messages) - 1)]
                    exclusive = rel.exclusive or self._is_exclusive(rel.predicate, None)
                    obj = rel.object
                    # "ditched Word" ends "Microsoft Word"; not a stop the service implied
                    # ("likes tea" ends "dislikes tea", never "dislikes green tea")
                    said_at = msg.occurred_at or p.occurred_at
                    unnamed = rel.stop and obj == CURRENT_OBJECT
                    if unnamed or rel.stop and n < len(said[p.id].relations):
                        subj = entities.resolve(plan, rel.subject,
                                                types.get(rel.subject, "thing"),
                                                aliases.get(rel.subject))
                        if unnamed:  # the object held when it ended, else when it was told
                            found = self._current_object(
                                plan, normalize(subj.name), rel.predicate, statements,
                                [to_ms(t) for t in (_storable(rel.valid_from), said_at) if t])
                            if found is None:
                                continue  # nothing (or no one thing) current to end
                            obj = found
                        else:
                            obj = self._named_ending(plan, normalize(subj.name), rel.predicate,
                                                     obj, statements) or obj
                    st = self._statement(
                        plan, entities, subject=rel.subject, predicate=rel.predicate,
                        obj=obj, category=rel.category, exclusive=exclusive,
                        valid_from=_storable(rel.valid_from) or said_at, told=said_at,
                        valid_until=None, confidence=rel.confidence,
                        importance=self.lifecycle.model.for_category(rel.category),
                        statement=rel.statement, source_ref=p.source_ref, episode_id=p.id,
                        stop=rel.stop, subject_type=types.get(rel.subject, "thing"),
                        object_type=types.get(rel.object, "thing"), aliases=aliases,
                        scope=p.scope, session_id=p.session_id)
                    per_episode[p.id].append(len(statements))
                    statements.append(st)
                    mentions[p.id].extend([EntityRef(st.subject_id, st.subject, False),
                                           EntityRef(st.object_id, st.object, False)])
                    for pred, liked, cat, excl in self._also_ended(
                            plan, rel, st, statements) if rel.stop else []:
                        # "I've gone off oat milk" ends the preference, and a plain like
                        # stored in more words ("oat milk lattes"); "I went vegetarian"
                        # ends each liked meat ("likes steak", a favourite "prefers steak")
                        per_episode[p.id].append(len(statements))
                        phrase = "likes" if pred == "likes" else "prefers"
                        statements.append(self._statement(
                            plan, entities, subject=rel.subject, predicate=pred, obj=liked,
                            category=cat, exclusive=excl,
                            valid_from=_storable(rel.valid_from) or said_at, told=said_at,
                            valid_until=None, confidence=rel.confidence,
                            importance=self.lifecycle.model.for_category(cat),
                            statement=f"{rel.subject} no longer {phrase} {liked}",
                            source_ref=p.source_ref, episode_id=p.id, stop=True,
                            subject_type=types.get(rel.subject, "thing"), object_type="thing",
                            aliases=aliases, scope=p.scope, session_id=p.session_id))
                for ref in {m.id: m for m in mentions[p.id]}.values():
                    plan.link("MENTIONS", p.id, ref.id, {"at": plan.at})
            replaced: list[tuple[str, str, str]] = []
            node_for = self._write_statements(plan, statements, replaced) if statements else []
            plan_versions(self.store, plan, fresh, vectors, self.embedder.embed,  # same plan
                          passages, proposed)
            self._link_replaced(plan, replaced, fresh)
            self.apply(plan)
            return fresh, known, node_for, per_episode, mentions, skipped

        fresh, known, node_for, per_episode, mentions, skipped = self._planned_write(write)
        # counted after the write, reflected in the background: never in this request
        self.reflections.note(user_id, len(fresh))
        return self._episode_results(prepared, known, node_for, per_episode, extractions,
                                     mentions, skipped)

    def _proposed_versions(self, user_id: str, todo: list[PreparedEpisode],
                           contents: dict[str, list[float]]) -> list[VersionProposal]:
        """The model's version links for these episodes, when the extractor is an LLM and
        ``llm_versions`` is on; asked before the write lock, like the extraction."""
        propose = getattr(self.extractor, "propose_versions", None)
        if not (self.settings.llm_versions and callable(propose) and todo):
            return []
        asks = version_asks(self.store, user_id,
                            [NewEpisode.of(p, contents[p.id]) for p in todo])
        found: list[VersionProposal] = propose(asks) if asks else []
        return found

    def _planned_write[T](self, write: Callable[[], T]) -> T:
        """Read, decide and write under the write lock; planned again when the store refuses
        the write because another write of the user landed meanwhile (two services on
        one store), up to ``_WRITE_ATTEMPTS`` times with jittered back-off."""
        for attempt in range(_WRITE_ATTEMPTS):
            try:
                with self._write_lock:
                    return write()
            except ConflictError:
                if attempt == _WRITE_ATTEMPTS - 1:
                    raise
                time.sleep(random.uniform(0.0, min(0.4, 0.01 * 2 ** attempt)))
        raise AssertionError("unreachable")

    def _warm_embeddings(self, texts: list[str]) -> None:
        """Embed ahead of the write lock; the cache then answers the calls inside it."""
        if texts and isinstance(self.embedder, CachedEmbedder):
            self.embedder.embed(list(dict.fromkeys(texts)))

    @staticmethod
    def _texts_of(extractions: Iterable[Extraction]) -> list[str]:
        texts: list[str] = []
        for ex in extractions:
            texts.extend(e.name for e in ex.entities)
            for rel in ex.relations:
                texts.extend([rel.subject, rel.object, rel.statement or default_statement(
                    rel.subject, rel.predicate, rel.object)])
        return texts

    def _episode_props(self, p: PreparedEpisode, at: int) -> Row:
        return {"id": p.id, "userId": p.user_id, "createdAt": at, "content": p.content,
                "kind": p.kind, "role": p.role, "speaker": p.speaker,
                "speakerFrom": p.speaker_from,
                "sessionId": p.session_id, "scope": p.scope,
                "occurredAt": to_ms(p.occurred_at),
                # the periods its words name ("last year"), for recall's time windows
                "toldOf": told_of(p.content, p.occurred_at),
                "recordedAt": at, "source": p.source, "sourceRef": p.source_ref,
                "forgottenAt": None, "accessCount": 0,
                "embeddingModel": self.embedder.model_id, "schemaVersion": SCHEMA_VERSION}

    def _episode_results(self, prepared: list[PreparedEpisode], known: dict[str, Row],
                         node_for: list[str | None], per_episode: dict[str, list[int]],
                         extractions: dict[str, Extraction],
                         mentions: dict[str, list[EntityRef]], skipped: dict[str, int],
                         ) -> list[EpisodeResult]:
        user_id = prepared[0].user_id
        rel_ids = {p.id: sorted({i for i in (node_for[n] for n in per_episode[p.id])
                                 if i is not None}) for p in prepared}
        ent_ids = {p.id: sorted({m.id for m in mentions[p.id]}) for p in prepared}
        # One read per label for the whole batch.
        episodes = {r["id"]: r for r in self.store.nodes(
            "Episode", user_id, sorted({p.id for p in prepared}))}
        rel_rows = self.store.nodes("Relation", user_id,
                                    sorted({i for ids in rel_ids.values() for i in ids}))
        # with their SUPERSEDES / DISPUTED edges, as every other read shows a relation
        edges = self.store.chain_edges(user_id, [r["id"] for r in rel_rows]) if rel_rows else []
        rels = {r["id"]: relation_from_row(r, edges=edges) for r in rel_rows}
        ents = {r["id"]: entity_from_row(r) for r in self.store.nodes(
            "Entity", user_id, sorted({i for ids in ent_ids.values() for i in ids}))}
        out = []
        for p in prepared:
            if p.id in known:
                out.append(EpisodeResult(episode=episode_from_row(known[p.id]), duplicate=True))
                continue
            ex = extractions[p.id]
            out.append(EpisodeResult(
                episode=episode_from_row(episodes[p.id]), duplicate=False,
                relations=[rels[i] for i in rel_ids[p.id] if i in rels],
                entities=[ents[i] for i in ent_ids[p.id] if i in ents],
                engine=ex.engine, error=ex.error, redacted=sorted(set(p.redacted)),
                skipped_low_confidence=skipped[p.id]))
        return out

    def _entity_resolver(self) -> EntityResolver:
        """A resolver for one write (it caches what that write resolves)."""
        threshold = self.settings.entity_similarity
        if threshold is None:
            threshold = entity_similarity(self.embedder)
        return EntityResolver(self.store, self.embedder, threshold)

    def _named_ending(self, plan: WritePlan, subject_key: str, predicate: str, stopped: str,
                      batch: list[Statement]) -> str | None:
        """The current fact a stop names in other words (``graphmem._stop_names``): stored,
        or said earlier in this batch."""
        said = [st.object for st in _said(batch, subject_key, predicate) if not st.claim.stop]
        stored = current_objects(self.store, plan.user_id, subject_key, predicate, plan.at)
        return ending_target(stopped, [*stored, *said])

    def _also_ended(self, plan: WritePlan, rel: ExtractedRelation, st: Statement,
                    batch: list[Statement]) -> list[tuple[str, str, str, bool]]:
        """The tastes a stop ends besides its own fact, as (predicate, object, category,
        exclusive): the plain like a stopped taste preference names in more words
        (``_liked_taste``), or each like and favourite of a kind given up ("meat": "likes
        steak", "prefers bacon sandwiches"; ``_stop_names.of_kind``)."""
        liked = self._liked_taste(plan, rel, st, batch)
        if liked is not None:
            return [("likes", liked, "preference", False)]
        if rel.predicate != "likes" or not rel.category.startswith("preference") \
                or not is_kind(st.object):
            return []  # no kind given up: nothing more to read
        key = st.subject_key or normalize(st.subject)
        out: list[tuple[str, str, str, bool]] = []
        for pred in ("likes", "prefers"):
            held = [(s.object, s.category, bool(s.exclusive))
                    for s in _said(batch, key, pred) if not s.claim.stop]
            held += [(str(r.get("object") or ""), str(r.get("category") or "preference"),
                      bool(r.get("exclusive")))
                     for r in current_facts(self.store, plan.user_id, key, pred, plan.at)]
            ended = {s.object for s in _said(batch, key, pred) if s.claim.stop}
            kind = set(of_kind(st.object, [o for o, _, _ in held]))
            seen: set[str] = set()
            for obj, cat, excl in held:
                if obj in kind and obj not in ended and obj not in seen:
                    seen.add(obj)
                    out.append((pred, obj, cat, excl))
        return out

    def _liked_taste(self, plan: WritePlan, rel: ExtractedRelation, st: Statement,
                     batch: list[Statement]) -> str | None:
        """The plain like a stopped taste preference also ends: "likes oat milk lattes" (or
        "likes oat milk") when "prefers oat milk" ends; None when there is none, or more
        than one."""
        if rel.predicate != "prefers" or not rel.category.startswith("preference"):
            return None
        key = st.subject_key or normalize(st.subject)
        said = [s.object for s in _said(batch, key, "likes") if not s.claim.stop]
        current = [*current_objects(self.store, plan.user_id, key, "likes", plan.at), *said]
        same = [c for c in current if normalize(c) == normalize(st.object)]
        return same[0] if same else ending_target(st.object, current)

    def _current_object(self, plan: WritePlan, subject_key: str, predicate: str,
                        batch: list[Statement], times: list[int | None]) -> str | None:
        """What a stop naming no object ends ("I retired"): the one object of this subject
        and predicate said last in this batch, else the one the store holds valid at the
        first of ``times`` that finds one (the time the ending names, then its telling)."""
        said = _said(batch, subject_key, predicate)
        if said:
            return None if said[-1].claim.stop else said[-1].object
        for at in times or [None]:
            stored = {normalize(o): o for o in current_objects(
                self.store, plan.user_id, subject_key, predicate, plan.at, as_of=at)}
            if stored:
                return next(iter(stored.values())) if len(stored) == 1 else None
        return None

    def _is_exclusive(self, predicate: str, declared: bool | None) -> bool:
        if declared is not None:
            return declared
        return normalize(predicate).replace(" ", "_") in self.settings.exclusive_predicates

    def _statement(self, plan: WritePlan, entities: EntityResolver, *, subject: str,
                   predicate: str, obj: str, category: str, exclusive: bool,
                   valid_from: datetime, valid_until: datetime | None, confidence: float,
                   importance: float, statement: str | None, source_ref: str | None,
                   episode_id: str | None, stop: bool = False, told: datetime | None = None,
                   subject_type: str = "thing",
                   object_type: str = "thing", aliases: dict[str, list[str]] | None = None,
                   scope: str | None = None, session_id: str | None = None) -> Statement:
        aliases = aliases or {}
        subj = entities.resolve(plan, subject, subject_type, aliases.get(subject))
        objr = entities.resolve(plan, obj, object_type, aliases.get(obj))
        # The claim and group follow the linked entities; the text stays as it was sent.
        claim = Claim(obj=normalize(objr.name), start=to_ms(valid_from) or 0, recorded=plan.at,
                      until=to_ms(valid_until), stop=stop, episode_id=episode_id,
                      source_ref=source_ref, confidence=confidence,
                      told=_told(to_ms(told), to_ms(valid_from), valid_until))
        return Statement(subject=subject, predicate=predicate, object=obj,
                         subject_id=subj.id, object_id=objr.id, category=category,
                         exclusive=exclusive, claim=claim,
                         statement=statement or default_statement(subject, predicate, obj),
                         importance=importance, subject_key=normalize(subj.name),
                         object_key=normalize(objr.name), scope=scope, session_id=session_id)

    def _write_statements(self, plan: WritePlan, statements: list[Statement],
                          replaced: list[tuple[str, str, str]] | None = None
                          ) -> list[str | None]:
        """The relation node of each statement, in order (None for a stop claim); into
        ``replaced``, the (later, earlier, reason) episodes whose relations superseded."""
        groups: dict[str, list[int]] = defaultdict(list)
        for n, st in enumerate(statements):
            groups[st.group(plan.user_id)].append(n)
        out: list[str | None] = [None] * len(statements)
        for key, members in groups.items():
            res = reconcile_group(self.store, plan, key, [statements[n] for n in members],
                                  self.embedder.embed, self.embedder.model_id)
            for n, node_id in zip(members, res.node_for, strict=True):
                out[n] = node_id
            if replaced is not None:
                replaced.extend(res.replaced)
        return out

    def _link_replaced(self, plan: WritePlan, replaced: list[tuple[str, str, str]],
                       fresh: list[PreparedEpisode]) -> None:
        """A message whose relation superseded one an earlier message evidenced restates
        that message with a new value: the same SUPERSEDES edge between the two episodes
        as ``plan_versions`` draws from their words ("Just wrapped up my first week at
        Stripe" after "I work as a backend developer at Shopify"), so recall gives the
        newer message for a question about now. Only when the later relation was also
        said later (a change told later but dated earlier is no newer message)."""
        if not replaced:
            return
        linked = {(e["src"], e["dst"]) for rows in plan.episode_links.values() for e in rows}
        linked |= {(e["dst"], e["src"]) for rows in plan.episode_links.values() for e in rows}
        said = {p.id: to_ms(p.occurred_at) or 0 for p in fresh}
        stored = sorted({e for a, b, _ in replaced for e in (a, b)} - set(said))
        said.update({str(r["id"]): int(r.get("occurredAt") or 0)
                     for r in self.store.nodes("Episode", plan.user_id, stored)
                     if r.get("forgottenAt") is None} if stored else {})
        made: dict[str, int] = defaultdict(int)
        # the latest earlier messages first: a fact said ten times links to the last ones
        for a, b, why in sorted(dict.fromkeys(replaced), key=lambda r: -said.get(r[1], 0)):
            if (a, b) in linked or a == b or a not in said or b not in said \
                    or said[a] <= said[b] or made[a] >= MAX_LINKS:
                continue
            linked.add((a, b))
            made[a] += 1
            plan.link_episodes("SUPERSEDES", a, b, {"at": plan.at, "reason": why,
                                                    "score": 0.9})

    # ------------------------------------------------------------------ reads

    def relation(self, user_id: str, relation_id: str, known_at: datetime | None = None
                 ) -> Relation:
        user_id = check_id(user_id, "userId") or ""
        relation_id = check_id(relation_id, "id") or ""
        known_at = check_instant(known_at, "knownAt")
        rows = self.store.nodes("Relation", user_id, [relation_id])
        if not rows:
            raise NotFoundError("relation", relation_id)
        edges = self.store.chain_edges(user_id, [relation_id])
        return relation_from_row(rows[0], known_at=to_ms(known_at), edges=edges)

    def relations(self, user_id: str, *, subject: str | None = None,
                  predicate: str | None = None, object: str | None = None,
                  as_of: datetime | None = None, known_at: datetime | None = None,
                  include_history: bool = False, limit: int = 1000,
                  newest_first: bool | None = None, scope: str | None = None,
                  session_id: str | None = None) -> list[Relation]:
        """Relations valid at ``as_of`` as believed at ``known_at`` (both default to now),
        newest first.

        With ``include_history`` every version known at ``known_at`` is returned, closed,
        superseded and forgotten ones included, oldest first. The first ``limit`` of the
        listing; ``relations_page`` pages through all of it.
        """
        return self.relations_page(
            user_id, subject=subject, predicate=predicate, object=object, as_of=as_of,
            known_at=known_at, include_history=include_history, limit=limit,
            newest_first=newest_first, scope=scope, session_id=session_id).items

    def relations_page(self, user_id: str, *, subject: str | None = None,
                       predicate: str | None = None, object: str | None = None,
                       as_of: datetime | None = None, known_at: datetime | None = None,
                       include_history: bool = False, limit: int = 100,
                       newest_first: bool | None = None, after: str | None = None,
                       scope: str | None = None, session_id: str | None = None,
                       ) -> RelationPage:
        """One page of ``relations``, filtered, ordered and cut in the store's query;
        ``after``: the previous page's ``next_cursor``."""
        user_id = self._existing_user(user_id)
        if not 1 <= limit <= 10000:
            raise InvalidInputError("limit", "must be between 1 and 10000")
        for name, value in (("subject", subject), ("predicate", predicate), ("object", object)):
            check_chars(value or "", name)
        as_of, known_at = check_instant(as_of, "asOf"), check_instant(known_at, "knownAt")
        query = page_query(as_of=to_ms(as_of), known_at=to_ms(known_at),
                           now=to_ms(self.clock()) or 0, history=include_history,
                           newest_first=newest_first, after=after, limit=limit)
        filters = {"subject": normalize(subject) if subject else None,
                   "predicate": normalize(predicate) if predicate else None,
                   "obj": normalize(object) if object else None,
                   "scope": check_id(scope, "scope", required=False),
                   "session_id": check_id(session_id, "sessionId", required=False)}
        return fetch_page(self.store, user_id, query,
                          lambda q: self.store.relations(user_id, page=q, **filters))

    def history(self, user_id: str, relation_id: str) -> list[Relation]:
        """The whole supersession/dispute chain ``relation_id`` belongs to, oldest first."""
        user_id = check_id(user_id, "userId") or ""
        relation_id = check_id(relation_id, "relationId") or ""
        start = self.store.nodes("Relation", user_id, [relation_id])
        if not start:
            raise NotFoundError("relation", relation_id)
        group = {r["id"]: r for r in self.store.relation_group(user_id, start[0]["groupKey"])}
        edges = self.store.chain_edges(user_id, list(group))
        links: dict[str, set[str]] = defaultdict(set)
        for e in edges:
            links[e["src"]].add(e["dst"])
            links[e["dst"]].add(e["src"])
        seen, todo = {relation_id}, [relation_id]
        while todo:
            for nxt in links[todo.pop()]:
                if nxt not in seen and nxt in group:
                    seen.add(nxt)
                    todo.append(nxt)
        chain = sorted((group[i] for i in seen), key=lambda r: (r["validFrom"], r["recordedAt"],
                                                                 r["id"]))
        return [relation_from_row(r, edges=edges) for r in chain]

    # ------------------------------------------------------------------ forget / restore

    def forget(self, user_id: str, memory_id: str) -> bool:
        """Hide a memory from every read. True when it was visible before."""
        return self._set_forgotten(user_id, memory_id, forgotten=True)

    def restore(self, user_id: str, memory_id: str) -> bool:
        """Bring a forgotten memory back unchanged. True when it was forgotten before."""
        return self._set_forgotten(user_id, memory_id, forgotten=False)

    def _set_forgotten(self, user_id: str, memory_id: str, *, forgotten: bool) -> bool:
        user_id = check_id(user_id, "userId") or ""
        memory_id = check_id(memory_id, "id") or ""
        label = LABEL_BY_PREFIX.get(memory_id.split("_", 1)[0])
        if label is None:
            raise NotFoundError("memory", memory_id)
        with self._write_lock:
            rows = self.store.nodes(label, user_id, [memory_id])
            if not rows:
                raise NotFoundError("memory", memory_id)
            was = rows[0].get("forgottenAt") is not None
            if was == forgotten:
                return False
            now = to_ms(self.clock()) or 0
            plan = WritePlan(user_id=user_id, at=now)
            plan.update(label, memory_id, forget_change(rows[0], now, forgotten=forgotten))
            self.apply(plan)
        return True

    # ------------------------------------------------------------------ abstractions

    def reflect(self, user_id: str, scope: str | None = None) -> ReflectResult:
        """Draw or re-version the user's abstractions from their current relations (with
        a ``scope``: only those drawn from that scope's relations)."""
        user_id = self._existing_user(user_id)
        return self.reflector.reflect(user_id, check_id(scope, "scope", required=False))

    def _reflect_in_background(self, user_id: str) -> None:
        self.reflector.reflect(user_id)

    def abstractions(self, user_id: str, *, as_of: datetime | None = None,
                     known_at: datetime | None = None,
                     include_history: bool = False,
                     scope: str | None = None) -> list[Abstraction]:
        """The user's abstractions valid at ``as_of`` as believed at ``known_at`` (both
        default to now); with ``include_history`` every version; under a ``scope``, that
        scope's and the user level's."""
        user_id = self._existing_user(user_id)
        as_of, known_at = check_instant(as_of, "asOf"), check_instant(known_at, "knownAt")
        return self.reflector.abstractions(user_id, as_of=as_of, known_at=known_at,
                                           include_history=include_history,
                                           scope=check_id(scope, "scope", required=False))

    # ------------------------------------------------------------------ events

    def events(self, user_id: str, *, since: datetime, until: datetime | None = None,
               after: str | None = None, limit: int = 100,
               scope: str | None = None) -> EventPage:
        """What changed in the user's memory from ``since`` (``graphmem._events``); under a
        ``scope``, about that scope's memories and the user level's."""
        user_id = self._existing_user(user_id)
        start = check_instant(since, "since")
        if start is None:
            raise InvalidInputError("since", "is required")
        if after is not None:
            after = check_chars(after, "after")
        return read_events(self.store, user_id, since=start,
                           until=check_instant(until, "until"), after=after, limit=limit,
                           scope=check_id(scope, "scope", required=False))

    # ------------------------------------------------------------------ stats

    def stats(self, user_id: str) -> Stats:
        user_id = self._existing_user(user_id)
        counts = {label: self.store.count(label, user_id)
                  for label in ("Episode", "Entity", "Relation", "Abstraction")}
        models = self._embedding_models(user_id)
        warning = None
        if len(models) > 1:
            warning = (f"memories were embedded with {len(models)} models ({', '.join(models)});"
                       f" vectors of different models are not comparable")
        return Stats(user_id=user_id, episodes=counts["Episode"][0],
                     entities=counts["Entity"][0], relations=counts["Relation"][0],
                     abstractions=counts["Abstraction"][0],
                     forgotten=sum(c[1] for c in counts.values()),
                     by_status=self.store.relation_status_counts(user_id),
                     embedding_models=models, mixed_models_warning=warning,
                     reflection_reason=self._reflection_reason(user_id))

    def _reflection_reason(self, user_id: str) -> str | None:
        if self.reflections.queued(user_id):
            return "a background reflect is queued"
        return self.reflector.due(user_id)

    def _embedding_models(self, user_id: str) -> list[str]:
        models: set[str] = set()
        for label in ("Relation", "Episode"):
            for row in self.store.export_nodes(label, user_id, 0, 200):
                if row.get("embeddingModel"):
                    models.add(row["embeddingModel"])
        return sorted(models)

    def _existing_user(self, user_id: str) -> str:
        user_id = check_id(user_id, "userId") or ""
        if not self._has_memories(user_id):
            raise NotFoundError("user", user_id)
        return user_id

    # ------------------------------------------------------------------ entities

    def entity(self, user_id: str, entity_id: str) -> Entity:
        user_id = check_id(user_id, "userId") or ""
        entity_id = check_id(entity_id, "id") or ""
        rows = self.store.nodes("Entity", user_id, [entity_id])
        if not rows:
            raise NotFoundError("entity", entity_id)
        return entity_from_row(rows[0])


def _said(batch: list[Statement], subject_key: str, predicate: str) -> list[Statement]:
    """The statements of ``batch`` with this subject and predicate, in order."""
    pred = normalize(predicate)
    return [st for st in batch if st.subject_key == subject_key
            and normalize(st.predicate) == pred]


#: a start stated at most this long before its telling is news ("I moved to Chengdu last
#: year"): the claim also holds when told. Older starts tell a story ("in 2019 I moved to
#: Paris") and are read at their start only.
NEWS_WINDOW_MS = 730 * 86_400_000


def _told(told: int | None, start: int | None, until: datetime | None) -> int | None:
    """A claim's telling, kept when it came after the start it states, within
    ``NEWS_WINDOW_MS``, and the claim declares no end."""
    if told is None or start is None or until is not None:
        return None
    return told if 0 < told - start <= NEWS_WINDOW_MS else None


def _storable(dt: datetime | None) -> datetime | None:
    """An extracted time, if graphmem can store it (an engine may read any year from text)."""
    return dt if dt is not None and MIN_INSTANT <= aware(dt) <= MAX_INSTANT else None


def episode_from_row(row: Row) -> Episode:
    return Episode(id=row["id"], user_id=row["userId"], created_at=from_ms(row["createdAt"]),
                   content=row["content"], kind=row.get("kind") or "message",
                   role=row.get("role"), speaker=row.get("speaker"),
                   session_id=row.get("sessionId") or "default", scope=row.get("scope"),
                   occurred_at=from_ms(row["occurredAt"]), recorded_at=from_ms(row["recordedAt"]),
                   source=row.get("source"), source_ref=row.get("sourceRef"),
                   forgotten_at=from_ms(row.get("forgottenAt")),
                   embedding_model=row.get("embeddingModel"),
                   schema_version=str(row.get("schemaVersion") or SCHEMA_VERSION))


def entity_from_row(row: Row) -> Entity:
    return Entity(id=row["id"], user_id=row["userId"], created_at=from_ms(row["createdAt"]),
                  name=row["name"], norm_name=row["normName"], type=row.get("type") or "thing",
                  aliases=list(row.get("aliases") or []), summary=row.get("summary") or "",
                  forgotten_at=from_ms(row.get("forgottenAt")),
                  embedding_model=row.get("embeddingModel"),
                  schema_version=str(row.get("schemaVersion") or SCHEMA_VERSION),
                  resolutions=resolutions_of(row))


def resolutions_of(row: Row) -> list[EntityResolution]:
    """The embedding links recorded on an entity row (a malformed record is skipped)."""
    try:
        raw = json.loads(row.get("resolutions") or "[]")
    except (TypeError, ValueError):
        return []
    out = []
    for r in raw if isinstance(raw, list) else []:
        if isinstance(r, dict):
            with contextlib.suppress(KeyError, ValueError, TypeError):
                out.append(EntityResolution(
                    name=r["name"], matched=r["matched"], score=r["score"],
                    method=r.get("method") or "embedding", at=from_ms(r.get("at"))))
    return out


__all__ = ["MemoryService", "Stats", "MemoryStatus"]
