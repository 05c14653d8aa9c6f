"""Recall: vector + full-text + graph candidates, filtered in time, fused, explained.

Template: validate -> read the question (time window, when-question, the names of people
who speak in this memory) -> gather candidates (per kind, from the stores' indexes, then
graph expansion from the entities those hits touch) -> load and filter on both time axes ->
fuse (weighted reciprocal-rank fusion) -> conversational context (turns next to strong hits
inherit part of their score) -> recency / frequency / importance / time terms -> per-kind
quotas -> provenance and conflicts.

Why the question is rewritten before searching: a person's name in a question ("When did
Caroline go to the support group?") pulls both the vector and the full-text search towards
the turns where *someone else* addresses Caroline ("Wow, Caroline!"), while the answer is in
Caroline's own words. So names of known speakers are taken out of the search text and used
as a filter-like bonus on who said it (or, for relations, who they are about) instead;
function words are dropped from the full-text query, which is an OR of words.

Why neighbours: an answer often leans on the turn before it ("How long have you had
them?" - "Three years now!"); the topical words are in one turn and the fact in the next.

The weights are data (``RecallTuning`` in ``recall_model``); ``ABLATIONS`` names presets
that switch one stage off each, so a benchmark can show what every stage buys. Reading the
question's words is ``question``; state kept between recalls is ``recall_access``.
"""

from __future__ import annotations

import logging
import math
import re
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from graphmem._abstractions import status_at as abstraction_status
from graphmem._abstractions import visible as abstraction_visible
from graphmem._facets import Facet, facets_of, on_facet, synonyms
from graphmem._lifecycle_score import ImportanceModel
from graphmem._passages import Span, snippet, with_passages
from graphmem._recall_versions import asks_before, resolve_versions
from graphmem._speakers import shown
from graphmem.inputs import RecallIn
from graphmem.model import MemoryKind, MemoryStatus, from_ms, to_ms
from graphmem.question import (
    DURATION_QUESTION,
    content_words,
    is_named,
    name_pattern,
    states_time,
    without_names,
)
from graphmem.recall_access import AccessTracker, SpeakerCache, UserCache
from graphmem.recall_model import (
    ABLATIONS,
    DAY_MS,
    DEFAULT_TUNING,
    KIND_WEIGHT,
    LABEL,
    RANK_SHARE,
    RRF_K,
    Z_SCALE,
    Conflict,
    RecallItem,
    RecallResult,
    RecallTuning,
    Scores,
    Source,
)
from graphmem.relations import believed, valid_at, valid_during
from graphmem.store.base import HUB_DEGREE, Hit, Row, Store, prefix_term
from graphmem.store.queries import PASSAGE
from graphmem.timeparse import TimeWindow, is_when_question, resolve_window, strip_window

log = logging.getLogger(__name__)
#: roles whose episodes are not the people's own words (``assistant_weight``)
_NOT_USER = frozenset({"assistant", "system", "tool"})

@dataclass(slots=True)
class _Candidates:
    """What the searches found: ranks per source, raw scores, labels and loaded rows."""

    ranks: dict[str, dict[str, int]] = field(default_factory=lambda: defaultdict(dict))
    raw: dict[str, Scores] = field(default_factory=lambda: defaultdict(Scores))
    label_of: dict[str, str] = field(default_factory=dict)
    rows: dict[str, Row] = field(default_factory=dict)
    hits: dict[tuple[str, str], list[Hit]] = field(default_factory=dict)  # (label, source)
    degrees: dict[str, int] = field(default_factory=dict)  # named entities' relation counts
    cover: dict[str, float] = field(default_factory=dict)  # graph hits: share of words covered
    # per search: how far each hit stands out from that search's hits (see _standout)
    standout: dict[str, dict[str, float]] = field(default_factory=lambda: defaultdict(dict))
    passages: dict[str, Span] = field(default_factory=dict)  # episode -> its best passage

    def note(self, label: str, hit: Hit, rank: int, source: str) -> None:
        self.label_of.setdefault(hit.id, label)
        if source not in self.ranks[hit.id]:
            self.ranks[hit.id][source] = rank
            setattr(self.raw[hit.id], source, round(float(hit.score), 6))


class Recaller:
    """Runs recall queries for the service."""

    def __init__(self, store: Store, embed_one, tracker: AccessTracker | None = None,  # type: ignore[no-untyped-def]
                 tuning: RecallTuning | None = None,
                 importance: ImportanceModel | None = None,
                 presets: dict[str, RecallTuning] | None = None, preset: str = "auto") -> None:
        """``tuning``: the one tuning (no routing); ``presets`` by name (``PRESETS``) with
        ``preset`` "auto" picks one per user by what their memory is made of."""
        self.store = store
        self.embed_one = embed_one
        self.tracker = tracker
        self.tuning = tuning or DEFAULT_TUNING
        self.presets = presets or {}
        self.preset = preset
        self.shape = UserCache(self._relational)
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
        no episode, and at least as many relations as episodes? Read once per 30 s per user
        and not dropped on writes: it changes slowly, and after every write it would cost
        the next recall two counts of the user's nodes (~60 ms each at 100k)."""
        sampled, direct = self.store.relation_sample(user_id, 200)
        if 2 * direct <= sampled:
            return False
        return self.store.count("Relation", user_id)[0] >= self.store.count("Episode",
                                                                            user_id)[0]

    def recall(self, q: RecallIn, now: datetime) -> RecallResult:
        started = time.perf_counter()
        preset, t = self.pick(q.user_id)
        reference = q.reference_time or now
        window = _window(q, reference)
        known_at = to_ms(q.known_at or now) or 0
        as_of = to_ms(q.as_of) if q.as_of is not None else None
        kinds = list(q.kinds or [MemoryKind.EPISODE, MemoryKind.RELATION, MemoryKind.ENTITY,
                                 MemoryKind.ABSTRACTION])
        text = (strip_window(q.query, window) if window else q.query) or q.query
        when = is_when_question(q.query) or (t.duration_questions
                                             and DURATION_QUESTION.search(q.query) is not None)
        cand = max(q.limit * 4, 40)
        if q.scope is not None or q.session_id is not None:
            cand *= 4  # the searches rank every scope's memories; the filter comes after

        names = self._named_speakers(q.user_id, text) if t.speakers else []
        search = without_names(text, names) if names and t.strip_names else text
        words = content_words(search) if t.stopwords else search
        looked_for = words  # the full text also looks for the other words of its facets
        if t.facet_words and (more := synonyms(search)):
            looked_for = f"{words} {' '.join(more)}"

        c = self._gather(q, kinds, search, looked_for, cand, t)
        c.rows = self._load(q.user_id, c.label_of)
        named = {i: is_named(c.label_of[i], row, names) for i, row in c.rows.items()}
        self._rank(c, named, t)
        self._rank_graph(c, words)
        fused = {i: _fuse(c.ranks[i], c.label_of[i], t, c.cover.get(i, 0.0),
                          c.standout.get(i))
                 for i in c.label_of}
        inherited = self._context(q.user_id, c, fused, named, names, when, known_at, t) \
            if t.context and MemoryKind.EPISODE in kinds else {}

        items: list[RecallItem] = []
        for item_id, label in c.label_of.items():
            row = c.rows.get(item_id)
            if row is None or row.get("forgottenAt") is not None:
                continue
            kind = MemoryKind(label.upper())
            if kind not in kinds:
                continue
            item = self._item(kind, row, q, known_at, as_of, window, now, t)
            if item is None:
                continue
            if item_id in c.passages:
                item.passage = snippet(row.get("content") or "", c.passages[item_id])
            s = item.scores
            found = c.raw[item_id]
            s.vector, s.fulltext, s.graph = found.vector, found.fulltext, found.graph
            base = fused.get(item_id, 0.0)
            s.speaker = 1.0 if named.get(item_id) else 0.0
            s.context = round(inherited.get(item_id, 0.0), 6)
            s.fused = round(base + s.context, 6)
            if when and kind is MemoryKind.EPISODE and states_time(row.get("content", "")):
                base *= 1.0 + t.time_boost
            score = (base + s.context) * KIND_WEIGHT[kind]
            if kind is MemoryKind.EPISODE and row.get("role") in _NOT_USER:
                score *= t.assistant_weight
            w = t.relation_recency_weight if kind is MemoryKind.RELATION else t.recency_weight
            score *= 1.0 - w + w * s.recency
            # importance now (category, feedback, use, time since last use), relative to
            # what a new memory of its kind starts with
            score *= _weigh(s.importance, t.importance_weight) / _weigh(
                self.importance.reference(label), t.importance_weight)
            score *= 1.0 + t.frequency_weight * min(s.frequency, 5.0)
            if kind is MemoryKind.RELATION and c.cover and item_id not in c.cover:
                # the question names an entity; this relation is not near it
                score *= 1.0 - t.graph_prior
            if window is not None:
                score *= 1.0 + s.temporal
            item.scores = s
            item.score = round(score * 1000, 6)
            if item.score > 0:
                items.append(item)
        items.sort(key=lambda it: (-it.score, it.id))
        # episode versions: the one valid at the time asked about first, contradictions
        versions = resolve_versions(
            self.store, q.user_id, items, c.rows,
            lambda row: self._item(MemoryKind.EPISODE, row, q, known_at, as_of, window, now,
                                   t),
            at=as_of if as_of is not None else to_ms(window.end) if window else None,
            before=asks_before(q.query), limit=q.limit, known_at=known_at) \
            if MemoryKind.EPISODE in kinds and not q.include_history else []
        if as_of is None and window is None and not q.include_history \
                and not asks_before(q.query) and not asks_past(q.query) \
                and not asks_yes_no(q.query):  # a question about now
            if t.facet_order:
                newest_first_on_facet(items, c.rows, facets_of(search), t.facet_depth)
            if t.now_band > 0:
                newest_first_among_equals(items, t.now_band, t.now_depth)
        chosen = _quota(items, q.limit, kinds)
        self._provenance(q.user_id, chosen, c.rows)
        current = as_of is None and window is None and q.known_at is None
        conflicts = self._conflicts(q.user_id, chosen, as_of if as_of is not None
                                    else to_ms(now) or 0, known_at,
                                    window if as_of is None else None, current=current)
        shown_ids = {i.id for i in chosen}
        conflicts += [v for v in versions if set(v.ids) & shown_ids]
        conflicts += self._abstraction_conflicts(q.user_id, chosen, c.rows, as_of
                                                 if as_of is not None else to_ms(now) or 0,
                                                 known_at)
        if self.tracker is not None:
            at = to_ms(now) or 0
            for label in {LABEL[i.kind] for i in chosen}:
                ids = [i.id for i in chosen if LABEL[i.kind] == label]
                self.tracker.touch(q.user_id, label, ids, at)
        took = (time.perf_counter() - started) * 1000
        return RecallResult(items=chosen, conflicts=conflicts, temporal_window=window,
                            took_ms=round(took, 2), preset=preset)

    # ------------------------------------------------------------------ steps

    def _named_speakers(self, user_id: str, text: str) -> list[str]:
        """The people who speak in this memory and whom ``text`` names."""
        return [name for name in self.speakers.get(user_id) if name_pattern(name).search(text)]

    def _gather(self, q: RecallIn, kinds: list[MemoryKind], search: str, words: str,
                cand: int, t: RecallTuning) -> _Candidates:
        c = _Candidates()
        vector = self.embed_one(search)
        # Entities first: the names they match tell which words are hubs' names.
        for label in sorted({LABEL[k] for k in kinds} | {"Entity"},
                            key=lambda lb: (lb != "Entity", lb)):
            hits = self.store.vector_search(label, q.user_id, vector, cand)
            if label == "Episode":  # a long episode also scores by its best passage
                hits, c.passages = with_passages(
                    hits, self.store.vector_search(PASSAGE, q.user_id, vector, cand), cand)
            c.hits[(label, "vector")] = hits
            for rank, hit in enumerate(hits):
                c.note(label, hit, rank, "vector")
            hits = self.store.fulltext_search(label, q.user_id, words, cand)
            c.hits[(label, "fulltext")] = hits
            for rank, hit in enumerate(hits):
                c.note(label, hit, rank, "fulltext")
            if label == "Entity" and t.skip_hub_names:
                words = self._without_hub_names(q.user_id, hits[:8], words, c.degrees)

        # Graph expansion from the entities the question names best (full-text hits on
        # names: "Omar Okafor" over the other Omars when the question says both words).
        if q.hops > 0:
            named = c.hits.get(("Entity", "fulltext"), [])[:8]
            floor = named[0].score * t.graph_seed_ratio if named else 0.0
            seeds = [h.id for h in named if h.score >= floor]
            if MemoryKind.RELATION in kinds:
                near = [h for h in self.store.expand(q.user_id, seeds, cand, c.degrees)
                        if h.score <= 2 * q.hops - 1]
                c.hits[("Relation", "graph")] = near
                for rank, hit in enumerate(near):
                    c.note("Relation", Hit(hit.id, 1.0 / hit.score), rank, "graph")
            if MemoryKind.EPISODE in kinds and t.graph_episode_weight > 0:
                for rank, hit in enumerate(self.store.episode_mentions(q.user_id, seeds,
                                                                       cand)):
                    c.note("Episode", hit, rank, "graph")
        return c

    def _without_hub_names(self, user_id: str, entity_hits: list[Hit], words: str,
                           degrees: dict[str, int]) -> str:
        """``words`` without the names of hub entities among ``entity_hits``.

        A hub (the user themself, in thousands of relations) is named in so many memories
        that its name ranks nothing and costs a full-text scan of all of them; the vector
        search still reads the whole question. The degrees read are kept in ``degrees``
        for the graph expansion from the same entities.
        """
        if not entity_hits:
            return words
        degrees.update(self.store.entity_degrees(user_id, [h.id for h in entity_hits]))
        hubs = [i for i, d in degrees.items() if d > HUB_DEGREE]
        if not hubs:
            return words
        names = {w.casefold() for row in self.store.recall_rows("Entity", user_id, hubs)
                 for w in re.findall(r"\w+", str(row.get("name") or ""))}
        return " ".join(w for w in words.split() if w.casefold() not in names)

    def _rank(self, c: _Candidates, named: dict[str, bool], t: RecallTuning) -> None:
        """One ranking per search across kinds, with the named-person bonus.

        Ranks are taken over all kinds together: a short list (a user's 50 relations)
        ranked on its own would put its 5th-best item level with the 5th of 5,000 episodes.
        """
        for source in ("vector", "fulltext"):
            lists = [hits for (_, src), hits in c.hits.items() if src == source]
            if t.rank_across_kinds:
                lists = [[h for hits in lists for h in hits]]
            if source == "vector":
                def key(h: Hit) -> float:
                    return h.score + (t.speaker_vector_bonus if named.get(h.id) else 0.0)
            else:
                def key(h: Hit) -> float:
                    return h.score * (1.0 + (t.speaker_text_factor if named.get(h.id) else 0.0))
            for hits in lists:
                keys = {h.id: key(h) for h in hits}
                for i, z in _standout(keys).items():
                    c.standout[i][source] = z
                for rank, hit in enumerate(sorted(hits, key=lambda h: (-keys[h.id], h.id))):
                    c.ranks[hit.id][source] = rank

    @staticmethod
    def _rank_graph(c: _Candidates, words: str) -> None:
        """Ranks the relations graph expansion reached by how many of the question's words
        their path covers: a relation of a named entity by its own words, one a hop further
        by its words together with those of the relation that leads to it.

        "In which city is the company Omar works at located?": the path Omar -works at->
        Acme -located in-> Lyon covers "Omar", "works" and "located", and ranks above the
        other relations around Acme or around Omar's home town.
        """
        near = c.hits.get(("Relation", "graph"))
        if not near:
            return
        asked = _stems(words)

        def said(hit: Hit) -> set[str]:
            row = c.rows.get(hit.id) or {}
            return asked & _stems(f"{row.get('statement') or ''} {row.get('predicate') or ''}")

        def ends(hit: Hit) -> set[str]:
            row = c.rows.get(hit.id) or {}
            return {str(row.get(k) or "").casefold() for k in ("subject", "object")} - {""}

        first = [(ends(h), said(h)) for h in near if h.score <= 1.0]
        covered: dict[str, int] = {}
        for hit in near:
            own = said(hit)
            if hit.score <= 1.0:
                covered[hit.id] = len(own)
                # a named entity's own relations are what the other searches find already
                c.cover[hit.id] = 0.0
                continue
            mine = ends(hit)
            # only through a first hop that leaves some asked word open: "user likes
            # chess" reached through "user likes hiking" adds nothing to a question that
            # relation answers whole ("hiking in the Alps")
            covered[hit.id] = max([len(own | words1) for ends1, words1 in first
                                   if ends1 & mine and not asked <= words1] or [len(own)])
            c.cover[hit.id] = covered[hit.id] / len(asked) if asked else 0.0
        order = sorted(enumerate(near), key=lambda p: (-covered[p[1].id], p[1].score, p[0]))
        for rank, (_, hit) in enumerate(order):
            c.ranks[hit.id]["graph"] = rank

    def _context(self, user_id: str, c: _Candidates, fused: dict[str, float],
                 named: dict[str, bool], names: list[str], when: bool,
                 known_at: int, t: RecallTuning) -> dict[str, float]:
        """What turns next to the strongest episodes inherit from them.

        Only turns by a named person inherit when the question names someone (the answer
        is theirs); for when-questions a neighbour that states a time inherits more.
        Episodes forgotten or not yet recorded at ``known_at`` neither give nor take.
        """

        def visible(row: Row) -> bool:
            return (row.get("forgottenAt") is None
                    and (row.get("recordedAt") or row.get("createdAt") or 0) <= known_at)

        episodes = sorted((i for i in fused if c.label_of[i] == "Episode" and i in c.rows
                           and visible(c.rows[i])),
                          key=lambda i: (-fused[i], i))[: t.context_seeds]
        if not episodes:
            return {}
        rows = self.store.session_context(user_id, episodes, t.context_span_ms,
                                          max(400, 40 * len(episodes)))
        by_session: dict[str, list[Row]] = defaultdict(list)
        for row in rows:
            if visible(row):
                by_session[str(row.get("sessionId"))].append(row)
        best: dict[str, float] = defaultdict(float)
        seeds = set(episodes)
        for members in by_session.values():
            members.sort(key=_turn_order)
            for pos, row in enumerate(members):
                if row["id"] not in seeds:
                    continue
                score = fused[row["id"]]
                for nb in (pos - 1, pos + 1):
                    if not 0 <= nb < len(members):
                        continue
                    other = members[nb]
                    span = abs(int(other.get("occurredAt") or 0) - int(row.get("occurredAt")
                                                                           or 0))
                    if span <= t.context_span_ms:
                        best[other["id"]] = max(best[other["id"]], score)
        members_by_id = {r["id"]: r for r in rows}
        out: dict[str, float] = {}
        for i, score in best.items():
            row = members_by_id[i]
            if names:
                gate = named.get(i)
                if gate is None:
                    gate = is_named("Episode", row, names)
                    named[i] = gate
                if not gate:
                    continue
            share = t.context_weight
            if when and states_time(row.get("content", "")):
                share += t.context_time_weight
            out[i] = share * score
            if i not in c.label_of:
                c.label_of[i] = "Episode"
                c.rows[i] = row
                c.ranks[i]["context"] = 0
        return out

    def _load(self, user_id: str, label_of: dict[str, str]) -> dict[str, Row]:
        by_label: dict[str, list[str]] = defaultdict(list)
        for i, label in label_of.items():
            by_label[label].append(i)
        rows: dict[str, Row] = {}
        for label, ids in by_label.items():
            for row in self.store.recall_rows(label, user_id, ids):
                rows[row["id"]] = row
        return rows

    def _item(self, kind: MemoryKind, row: Row, q: RecallIn, known_at: int,
              as_of: int | None, window: TimeWindow | None, now: datetime,
              t: RecallTuning) -> RecallItem | None:
        now_ms = to_ms(now) or 0
        recorded = row.get("recordedAt", row.get("createdAt", 0)) or 0
        if recorded > known_at or not in_scope(kind, row, q.scope, q.session_id):
            return None
        imp = self.importance.of_row(LABEL[kind], row, now_ms)
        scores = Scores(importance=imp.effective, decay=imp.decay,
                        frequency=math.log1p(int(row.get("accessCount") or 0)))
        if kind is MemoryKind.RELATION:
            if not q.include_history:
                if window is not None and as_of is None:
                    if not _overlaps(row, window, known_at):
                        return None
                elif not valid_at(row, as_of if as_of is not None else now_ms, known_at):
                    return None
            until, status = believed(row, known_at)
            anchor = row["validFrom"]
            scores.recency = _recency(anchor, now_ms)
            if window is not None:
                scores.temporal = t.window_inside if _overlaps(row, window, known_at) else 0.0
            return RecallItem(kind, row["id"], row["statement"], 0.0, scores,
                              valid_from=from_ms(anchor), valid_until=from_ms(until),
                              status=status)
        if kind is MemoryKind.EPISODE:
            occurred = int(row.get("occurredAt") or 0)
            scores.recency = _recency(occurred, now_ms)
            if window is not None:
                start, end = to_ms(window.start) or 0, to_ms(window.end) or 0
                grace = min(end - start, int(t.window_grace_days * DAY_MS))
                inside = start <= occurred < end + max(0, grace)
                scores.temporal = t.window_inside if inside else (
                    t.window_before if occurred < start else t.window_outside)
            text = shown(row.get("speaker"), row["content"])
            return RecallItem(kind, row["id"], text, 0.0, scores,
                              occurred_at=from_ms(occurred))
        if kind is MemoryKind.ENTITY:
            text = row["name"] + (f" ({row['type']})" if row.get("type") else "")
            if row.get("summary"):
                text += f": {row['summary']}"
            return RecallItem(kind, row["id"], text, 0.0, scores)
        # an abstraction version: the same two time axes as a relation
        if not abstraction_visible(row, as_of if as_of is not None else now_ms, known_at,
                                   history=q.include_history):
            return None
        return RecallItem(kind, row["id"], row.get("conclusion", ""), 0.0, scores,
                          valid_from=from_ms(row.get("validFrom")),
                          status=abstraction_status(row, known_at))

    def _provenance(self, user_id: str, items: list[RecallItem], rows: dict[str, Row]) -> None:
        ep_ids: set[str] = set()
        for i in items:
            if i.kind is MemoryKind.RELATION:
                ep_ids.update(rows[i.id].get("episodeIds") or [])
        # an abstraction's sources are the relations it was drawn from
        derived = sorted({s for i in items if i.kind is MemoryKind.ABSTRACTION
                          for s in rows[i.id].get("sourceIds") or []})
        sources = {r["id"]: r for r in self.store.nodes("Relation", user_id, derived)}
        for i in items:
            if i.kind is MemoryKind.ABSTRACTION:
                found = [sources[s] for s in rows[i.id].get("sourceIds") or [] if s in sources]
                found.sort(key=lambda r: (r.get("validFrom") or 0, r["id"]))
                i.sources = [Source(r["id"], next(iter(r.get("sourceRefs") or []), None),
                                    from_ms(r.get("validFrom"))) for r in found]
        episodes = {r["id"]: r for r in self.store.nodes("Episode", user_id, sorted(ep_ids))}
        for i in items:
            if i.kind is MemoryKind.EPISODE:
                r = rows[i.id]
                i.sources = [Source(r["id"], r.get("sourceRef"), from_ms(r.get("occurredAt")))]
            elif i.kind is MemoryKind.RELATION:
                srcs = [episodes[e] for e in rows[i.id].get("episodeIds") or [] if e in episodes]
                srcs.sort(key=lambda r: r.get("occurredAt") or 0)
                i.sources = [Source(r["id"], r.get("sourceRef"), from_ms(r.get("occurredAt")))
                             for r in srcs]
                if not i.sources:
                    i.sources = [Source(i.id, ref, None)
                                 for ref in rows[i.id].get("sourceRefs") or []]

    def _abstraction_conflicts(self, user_id: str, items: list[RecallItem],
                               rows: dict[str, Row], at: int,
                               known_at: int) -> list[Conflict]:
        """DISPUTED abstraction versions found, each with the versions it disputes (drawn
        from disputed evidence: neither conclusion is settled)."""
        disputed = [i for i in items if i.kind is MemoryKind.ABSTRACTION
                    and i.status is MemoryStatus.DISPUTED]
        others = sorted({o for i in disputed for o in rows[i.id].get("disputes") or []})
        found = {r["id"]: r for r in self.store.recall_rows("Abstraction", user_id, others)}
        pairs: dict[tuple[str, str], Conflict] = {}
        for i in disputed:
            for o in rows[i.id].get("disputes") or []:
                other = found.get(o)
                if other is None or not abstraction_visible(other, at, known_at):
                    continue
                pair = (min(i.id, o), max(i.id, o))
                pairs.setdefault(pair, Conflict(ids=list(pair), warning=(
                    f"Conflicting conclusions: {i.text!r} and {other.get('conclusion')!r} "
                    f"rest on disputed evidence; ask to clarify")))
        return [pairs[p] for p in sorted(pairs)]

    def _conflicts(self, user_id: str, items: list[RecallItem], at: int, known_at: int,
                   window: TimeWindow | None, *, current: bool) -> list[Conflict]:
        """DISPUTED pairs among the relations found, both valid at the time asked about.

        The time asked about is ``asOf`` (else now), or the question's window: a dispute
        that a later fact has settled is still reported for a question about its time,
        and one that was not yet recorded at ``knownAt`` is not.
        """
        rel_ids = [i.id for i in items if i.kind is MemoryKind.RELATION]
        if current:
            # a pair valid now and disputed is DISPUTED now: no need to read edges for more
            rel_ids = [i.id for i in items if i.kind is MemoryKind.RELATION
                       and i.status is MemoryStatus.DISPUTED]
        if not rel_ids:
            return []
        pairs: set[tuple[str, str]] = set()
        for e in self.store.chain_edges(user_id, rel_ids):
            closed = e.get("expiredAt")
            if e["type"] == "DISPUTED" and (e.get("at") or 0) <= known_at \
                    and (closed is None or closed > known_at):
                pairs.add(tuple(sorted((e["src"], e["dst"]))))  # type: ignore[arg-type]
        if not pairs:
            return []
        rows = {r["id"]: r for r in self.store.nodes(
            "Relation", user_id, sorted({x for p in pairs for x in p}))}

        def held(row: Row | None) -> bool:
            if row is None or row.get("forgottenAt") is not None:
                return False
            if window is not None:
                return _overlaps(row, window, known_at)
            return valid_at(row, at, known_at)

        out = []
        for a, b in sorted(pairs):
            ra, rb = rows.get(a), rows.get(b)
            if ra is None or rb is None or not (held(ra) and held(rb)):
                continue
            out.append(Conflict(ids=[a, b], warning=(
                f"Conflicting facts: {ra['subject']} {ra['predicate'].replace('_', ' ')} "
                f"{ra['object']!r} and {rb['object']!r} from the same time; ask to clarify")))
        return out


# ---------------------------------------------------------------------- fusion


def _stems(text: str) -> set[str]:
    return {prefix_term(w).rstrip("*").casefold() for w in re.findall(r"[^\W_]+", text)}


def _fuse(ranks: dict[str, int], label: str, t: RecallTuning, cover: float = 0.0,
          standout: dict[str, float] | None = None) -> float:
    """One candidate's fused score: per search, its weight x (reciprocal rank, or with
    ``fusion="score"`` its standout on the scale of a top rank, 1 / (RRF_K + 1), plus
    ``RANK_SHARE`` of its reciprocal rank)."""
    graph = (t.graph_episode_weight if label == "Episode"
             else t.graph_weight + t.graph_cover_weight * cover)
    weight = {"vector": t.vector_weight, "fulltext": t.fulltext_weight, "graph": graph}
    out = 0.0
    for src, rank in ranks.items():
        if t.fusion == "score" and standout is not None and src in standout:
            # the rank share keeps every hit found above zero (a hit below its search's
            # mean still counts a little) and breaks ties
            out += weight.get(src, 0.0) * (standout[src] / (RRF_K + 1)
                                           + RANK_SHARE / (RRF_K + rank + 1))
        else:
            out += weight.get(src, 0.0) / (RRF_K + rank + 1)
    return out


def _standout(scores: dict[str, float]) -> dict[str, float]:
    """Each hit's score in standard deviations above the mean of its search's hits,
    clipped at 0 and divided by ``Z_SCALE``: comparable across searches whose raw scores
    are not (cosines, BM25), and small for a search whose hits all score alike."""
    if not scores:
        return {}
    vals = list(scores.values())
    mean = sum(vals) / len(vals)
    sd = math.sqrt(sum((v - mean) ** 2 for v in vals) / len(vals))
    if sd <= 0:
        return {i: 1.0 / Z_SCALE for i in scores}
    return {i: max(0.0, (v - mean) / sd) / Z_SCALE for i, v in scores.items()}


def _weigh(importance: float, w: float) -> float:
    """x (1 - w + 2 w importance): .5 is neutral, the factor spans 1 - w .. 1 + w."""
    return 1.0 - w + 2 * w * importance


def _top(ranks: dict[str, dict[str, int]], label_of: dict[str, str], label: str,
         n: int) -> list[str]:
    scored = [(min(r.values()), i) for i, r in ranks.items() if label_of.get(i) == label]
    return [i for _, i in sorted(scored)[:n]]


def _turn_order(row: Row) -> tuple[int, tuple[tuple[int, str], ...], int, str]:
    """Order of turns in a session: time, then the source's own numbering ("D3:12" before
    "D3:13"; turns of one session often share a timestamp), then arrival."""
    return (int(row.get("occurredAt") or 0), _natural(row.get("sourceRef") or ""),
            int(row.get("createdAt") or 0), str(row["id"]))


def _natural(text: str) -> tuple[tuple[int, str], ...]:
    return tuple((int(p), "") if p.isdigit() else (-1, p)
                 for p in re.split(r"(\d+)", text) if p)


# ---------------------------------------------------------------------- time


_PAST = re.compile(
    r"\b(?:did|was|were|had|went|happened|used|ever|have (?:I|we|you)|has|how often|"
    r"how many times)\b|过|几次|几回|多少次|了吗|那时|当时", re.I)


_YES_NO = re.compile(
    r"^\W*(?:do|does|am|is|are|have|has|can|could|will|would|should)\b|有没有|是不是|是否|吗\W*$",
    re.I)


def asks_yes_no(question: str) -> bool:
    """Is it a yes/no question ("Do I have experience with Rust?", 我有没有...)? It checks a
    claim: every side of it matters, not only the newest."""
    return _YES_NO.search(question.strip()) is not None


def asks_past(question: str) -> bool:
    """Does the question ask about the past or about experience and counts ("When did I
    move?", "Have I ever used Rust?", "How often have I..."), not about what holds now or
    next ("When is my deadline?", "Who is my manager?")?"""
    return _PAST.search(question) is not None


def newest_first_on_facet(items: list[RecallItem], rows: dict[str, Row],
                          facets: tuple[Facet, ...], depth: int) -> None:
    """Reorder, in place, the episodes among the first ``depth`` items that state something
    on a facet the question asks about (``graphmem._facets``): newest first, in the places
    those episodes held, each place keeping its score. "Who is my manager now?": every
    message naming the user's boss is a version of that one fact, whatever its score."""
    if not facets:
        return
    places = [n for n, it in enumerate(items[:depth]) if it.kind is MemoryKind.EPISODE
              and on_facet(str((rows.get(it.id) or {}).get("content") or ""), facets)]
    _newest_first(items, places)


def _newest_first(items: list[RecallItem], places: list[int]) -> None:
    """The items at ``places`` newest first, in those places, each place keeping its score
    (so the list stays sorted)."""
    if len(places) < 2:
        return
    ordered = sorted((items[n] for n in places),
                     key=lambda it: (-(to_ms(it.occurred_at) or 0), -it.score, it.id))
    scores = [items[n].score for n in places]
    for n, it, score in zip(places, ordered, scores, strict=True):
        it.score = score
        items[n] = it


def newest_first_among_equals(items: list[RecallItem], band: float, depth: int) -> None:
    """Reorder, in place, the episodes among the first ``depth`` items that score at least
    ``band`` x the best of them: newest first, in the places those episodes held (the
    other items stay where they are; each place keeps its score, so the list stays sorted).
    For a question about now, two messages that answer it about equally well are most
    likely an old and a new version of the same fact."""
    places = [n for n, it in enumerate(items[:depth]) if it.kind is MemoryKind.EPISODE]
    if len(places) < 2:
        return
    best = max(items[n].score for n in places)
    _newest_first(items, [n for n in places if items[n].score >= band * best])


def in_scope(kind: MemoryKind, row: Row, scope: str | None, session_id: str | None) -> bool:
    """Whether a memory is read under a scope and session filter: a scope sees its own
    memories and the user level's (no scope); a session only its episodes and relations."""
    if session_id is not None and (kind not in (MemoryKind.EPISODE, MemoryKind.RELATION)
                                   or row.get("sessionId") != session_id):
        return False
    return scope is None or row.get("scope") in (None, scope)


def _window(q: RecallIn, reference: datetime) -> TimeWindow | None:
    if q.between is not None:
        return TimeWindow(start=q.between[0], end=q.between[1], phrase="", kind="range")
    return resolve_window(q.query, reference)


def _overlaps(row: Row, window: TimeWindow, known_at: int) -> bool:
    """Was the relation, as believed at ``known_at``, valid at some time in ``window``?"""
    return valid_during(row, to_ms(window.start) or 0, to_ms(window.end) or 0, known_at)


def _recency(anchor_ms: int, now_ms: int, half_life_days: float = 180.0) -> float:
    age_days = max(0.0, (now_ms - anchor_ms) / DAY_MS)
    return math.exp(-math.log(2) * age_days / half_life_days)


def _quota(items: list[RecallItem], limit: int, kinds: list[MemoryKind]) -> list[RecallItem]:
    """Top items with no kind taking more than its share while others have candidates."""
    if len(kinds) == 1:
        return items[:limit]
    cap = {k: max(1, math.ceil(limit * (0.4 if k is MemoryKind.ENTITY else 0.7)))
           for k in kinds}
    taken: dict[MemoryKind, int] = defaultdict(int)
    chosen: list[RecallItem] = []
    rest: list[RecallItem] = []
    for it in items:
        if len(chosen) >= limit:
            break
        if taken[it.kind] < cap[it.kind]:
            chosen.append(it)
            taken[it.kind] += 1
        else:
            rest.append(it)
    for it in rest:  # fill up when the other kinds ran out
        if len(chosen) >= limit:
            break
        chosen.append(it)
    chosen.sort(key=lambda it: (-it.score, it.id))
    return chosen


__all__ = ["ABLATIONS", "DEFAULT_TUNING", "AccessTracker", "Conflict", "RecallItem",
           "RecallResult", "RecallTuning", "Recaller", "Scores", "Source", "SpeakerCache"]
