"""The recall template (``Recaller``): the preset per user, then each stage in turn."""

from __future__ import annotations

import time
from datetime import datetime

from graphmem._facets import facets_of, kin_of, lifted_by, of_another, of_kin
from graphmem._lifecycle_score import ImportanceModel
from graphmem._passages import first_person, snippet
from graphmem._recall_versions import asks_before, resolve_versions
from graphmem.embed import Embedder, kin_similarity, reads_cjk
from graphmem.inputs import RecallIn
from graphmem.model import MemoryKind, to_ms
from graphmem.question import is_named
from graphmem.recall.analysis import Asked, about_now, read_question
from graphmem.recall.context import _context
from graphmem.recall.explain import _abstraction_conflicts, _conflicts, _provenance
from graphmem.recall.fuse import _fused, _rank, _rank_graph, _score
from graphmem.recall.items import _item
from graphmem.recall.order import (
    KIN_SIMILARITY,
    _quota,
    demote_requests,
    lift_on_facet,
    newer_kin_first,
    newer_versions_first,
    newest_first_among_equals,
    newest_first_among_standouts,
    newest_first_on_facet,
    relation_sources,
    successors_first,
    valid_then_on_facet,
)
from graphmem.recall.retrieve import _Candidates, _gather, _load, _without_hub_names
from graphmem.recall_access import AccessTracker, SpeakerCache, UserCache
from graphmem.recall_model import DEFAULT_TUNING, LABEL, RecallItem, RecallResult, RecallTuning
from graphmem.store.base import Hit, Store

#: how deep each search goes, at most, to fill a recall under a scope or session filter
MAX_FILTERED_DEPTH = 2560


class Recaller:
    """Runs recall queries for the service."""

    def __init__(self, store: Store, embed_one, tracker: AccessTracker | None = None,  # type: ignore[no-untyped-def]
                 tuning: RecallTuning | None = None,
                 importance: ImportanceModel | None = None,
                 presets: dict[str, RecallTuning] | None = None, preset: str = "auto",
                 embedder: Embedder | None = None) -> None:
        """``tuning``: the one tuning (no routing); ``presets`` by name (``PRESETS``) with
        ``preset`` "auto" picks one per user by what their memory is made of.
        ``embedder`` (the engine whose questions ``embed_one`` embeds) embeds sentences of
        candidates to compare them in meaning (newer kin; None: no such comparison)."""
        self.store = store
        self.embed_one = embed_one
        self.embed_texts = embedder.embed if embedder is not None else None
        self.reads_cjk = reads_cjk(embedder) if embedder is not None else True
        self.kin_similarity = kin_similarity(embedder, KIN_SIMILARITY) \
            if embedder is not None else KIN_SIMILARITY
        self.tracker = tracker
        self.tuning = tuning or DEFAULT_TUNING
        self.presets = presets or {}
        self.preset = preset
        self.shape = UserCache(self._relational, stale_ok=True)
        self.importance = importance or ImportanceModel.of({}, 30.0, 0.2)
        self.speakers = SpeakerCache(lambda user: [
            str(r["speaker"]) for r in store.episode_speakers(user, 200) if r.get("speaker")])

    def pick(self, user_id: str) -> tuple[str, RecallTuning]:
        """The preset a recall of this user runs with: the one configured, or (auto)
        "relations" for a memory made mostly of relations sent as relations, else
        "conversation" (``tuning``)."""
        name = self.preset
        if name == "auto":
            name = "relations" if "relations" in self.presets \
                and self.shape.get(user_id) else "conversation"
        return name, self.tuning if name == "conversation" else \
            self.presets.get(name, self.tuning)

    def _relational(self, user_id: str) -> bool:
        """Is the user's memory made mostly of relations sent as relations (addRelation)
        rather than learned from episodes: most of a sample of 200 relations evidenced by
        no episode, and at least as many relations as episodes? Read once per 30 s per user,
        in the background once known (an expired answer serves meanwhile), and not dropped
        on writes: it changes slowly, and it costs two counts of the user's nodes (~60 ms
        each at 100k)."""
        sampled, direct = self.store.relation_sample(user_id, 200)
        if 2 * direct <= sampled:
            return False
        return self.store.count("Relation", user_id)[0] >= self.store.count("Episode",
                                                                            user_id)[0]

    def recall(self, q: RecallIn, now: datetime) -> RecallResult:
        started = time.perf_counter()
        preset, t = self.pick(q.user_id)
        a = read_question(q, now, t, self.speakers.get)
        vector = self.embed_one(a.search)
        while True:
            c = _gather(self.store, q, a, vector, t)
            c.rows = _load(self.store, q.user_id, c.label_of)
            named = {i: is_named(c.label_of[i], row, a.names) for i, row in c.rows.items()}
            _rank(c, named, t)
            _rank_graph(c, a.words)
            fused = _fused(c, t)
            inherited = _context(self.store, q.user_id, c, fused, named, a.names, a.when,
                                 a.known_at, t) \
                if t.context and MemoryKind.EPISODE in a.kinds else {}
            items = self._items(q, a, c, fused, inherited, named, now, t)
            # a scope or session filter comes after the searches: when it kept too few
            # and a search was cut off at its depth, search deeper (a small scope in a
            # big memory)
            if q.scope is None and q.session_id is None or len(items) >= q.limit \
                    or a.cand >= MAX_FILTERED_DEPTH \
                    or not any(len(h) >= a.cand for h in c.hits.values()):
                break
            a.cand = min(a.cand * 4, MAX_FILTERED_DEPTH)

        kin = kin_of(q.query)  # "my sister's city": her facts, not the user's
        facets = of_kin(facets_of(a.search), kin)
        personal = first_person(q.query)  # a personal fact of the user's ("my manager")
        if personal:
            demote_requests(items, c.rows, t.request_weight, t.facet_lift_depth)
            lift_on_facet(items, c.rows, lifted_by(facets, a.when), t.facet_lift,
                          t.facet_lift_depth, kin, relations=t.facet_relations)
        # episode versions: the one valid at the time asked about first, contradictions
        versions = resolve_versions(
            self.store, q.user_id, items, c.rows,
            lambda row: _item(self.importance, MemoryKind.EPISODE, row, q, a, now, t),
            at=a.as_of if a.as_of is not None else to_ms(a.window.end) if a.window else None,
            before=asks_before(q.query), limit=q.limit, known_at=a.known_at) \
            if MemoryKind.EPISODE in a.kinds and not q.include_history else []
        # "Who did I report to in March?": the latest statement before the window held then
        if t.facet_then and a.window is not None and a.as_of is None and personal:
            valid_then_on_facet(items, c.rows, facets, to_ms(a.window.start) or 0,
                                t.window_inside, t.facet_lift_depth, t.facet_depth, kin)
        if about_now(q, a):
            # the message each relation among the first items was read from: relations
            # take part in the orders below at its time (the depth of any of them, the
            # band reorders the first ``now_depth``)
            sources = relation_sources(
                items, c.rows,
                max(t.version_depth, t.facet_depth, t.now_depth, t.successor_depth),
                lambda ids: self.store.recall_rows("Episode", q.user_id, ids)) \
                if t.version_depth > 0 or t.facet_order and t.facet_relations \
                or t.successors > 0 else {}
            if t.facet_order:
                newest_first_on_facet(items, c.rows, facets, t.facet_depth, kin,
                                      sources if t.facet_relations else None)
            # "My sister Anna lives in Berlin" is no newer version of where the user lives
            others = frozenset(
                it.id for it in items[:max(t.now_depth, t.kin_depth, t.successor_depth)]
                if it.kind is MemoryKind.EPISODE
                and of_another(str((c.rows.get(it.id) or {}).get("content") or ""), kin))
            if t.now_band > 0:
                newest_first_among_equals(items, t.now_band, t.now_depth, others)
            if t.now_gap > 0:
                newest_first_among_standouts(items, t.now_gap, t.now_floor,
                                             t.now_standouts, t.now_depth, others)
            if t.version_depth > 0:
                newer_versions_first(items, c.rows, q.query, t.version_depth, sources)
            if t.kin and self.embed_texts is not None and personal:
                newer_kin_first(items, c.rows, q.query, vector, t.kin_depth,
                                self.kin_similarity, self.embed_texts, self.reads_cjk,
                                others)
            # "When did I get my licence?" asks for an event's time, not for what holds;
            # a question about someone else ("What does John cook?") asks what they did
            if t.successors > 0 and self.embed_texts is not None and not a.when \
                    and personal:
                least = self.kin_similarity + (1 - self.kin_similarity) * t.successor_margin
                successors_first(items, c.rows, q.query, vector, t.successors,
                                 t.successor_depth, least, t.successor_fit, self.embed_texts,
                                 self.reads_cjk, others, sources, t.successor_nearest)
        chosen = _quota(items, q.limit, a.kinds)

        _provenance(self.store, q.user_id, chosen, c.rows)
        at = a.as_of if a.as_of is not None else to_ms(now) or 0
        current = a.as_of is None and a.window is None and q.known_at is None
        conflicts = _conflicts(self.store, q.user_id, chosen, at, a.known_at,
                               a.window if a.as_of is None else None, current=current)
        shown_ids = {i.id for i in chosen}
        conflicts += [v for v in versions if set(v.ids) & shown_ids]
        conflicts += _abstraction_conflicts(self.store, q.user_id, chosen, c.rows, at,
                                            a.known_at)
        self._touch(q.user_id, chosen, now)
        took = (time.perf_counter() - started) * 1000
        return RecallResult(items=chosen, conflicts=conflicts, temporal_window=a.window,
                            took_ms=round(took, 2), preset=preset)

    # ------------------------------------------------------------------ steps

    def _items(self, q: RecallIn, a: Asked, c: _Candidates, fused: dict[str, float],
               inherited: dict[str, float], named: dict[str, bool], now: datetime,
               t: RecallTuning) -> list[RecallItem]:
        """The candidates read under the question's filters, scored, best first."""
        items: list[RecallItem] = []
        for item_id, label in c.label_of.items():
            row = c.rows.get(item_id)
            if row is None or row.get("forgottenAt") is not None:
                continue
            kind = MemoryKind(label.upper())
            if kind not in a.kinds:
                continue
            item = _item(self.importance, kind, row, q, a, now, t)
            if item is None:
                continue
            if item_id in c.passages:
                item.passage = snippet(row.get("content") or "", c.passages[item_id])
            _score(item, row, c.raw[item_id], fused.get(item_id, 0.0),
                   inherited.get(item_id, 0.0), bool(named.get(item_id)),
                   self.importance.reference(label), c.cover, a, t)
            if item.score > 0:
                items.append(item)
        items.sort(key=lambda it: (-it.score, it.id))
        return items

    def _touch(self, user_id: str, chosen: list[RecallItem], now: datetime) -> None:
        """Counts an access of each item shown (batched by the tracker)."""
        if self.tracker is not None:
            at = to_ms(now) or 0
            for label in {LABEL[i.kind] for i in chosen}:
                ids = [i.id for i in chosen if LABEL[i.kind] == label]
                self.tracker.touch(user_id, label, ids, at)

    def _without_hub_names(self, user_id: str, entity_hits: list[Hit], words: str,
                           degrees: dict[str, int]) -> str:
        """``retrieve._without_hub_names`` on this recaller's store."""
        return _without_hub_names(self.store, user_id, entity_hits, words, degrees)
