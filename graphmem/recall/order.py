"""Recall's final order: for a question about now, newest first among the episodes that
state something on a facet it names and among those that answer it about equally well, and
the newer of two whose answers are closest in meaning when it names something new; then
per-kind quotas. (Episode versions, which come before these, are
``_recall_versions``.)"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Callable

import numpy as np

from graphmem._facets import Facet, asks, on_facet, tells_on_the_way
from graphmem._passages import SENTENCE_END, states_anything
from graphmem._recall_versions import reach
from graphmem._version_rules import Gist, gist, restates, topic_terms, value_tokens
from graphmem.extract._text import has_cjk
from graphmem.model import MemoryKind, to_ms
from graphmem.recall.fuse import _NOT_USER
from graphmem.recall_model import RecallItem
from graphmem.store.base import Row

#: statements of an episode that may be its answer (those sharing the most terms with the
#: question, then the first ones): embedded when the question is asked
KIN_SENTENCES = 4
#: how many of the answers closest to the question a newer version's may be among
KIN_FIT = 2
#: a message said this soon (ms) after another goes on with what that one said ("Rent is
#: now $495 a week." then, five minutes later, "Car insurance is $98 a month."): no later
#: version of it by meaning alone
CONTINUES_MS = 3_600_000
#: the cosine from which two statements are alike, for an embedder that names none
KIN_SIMILARITY = 0.3
#: a sentence that only opens what follows: "Current draft:", 最慢的是这一段：
_HEADER = re.compile(r"[:：]\s*$")


def newest_first_on_facet(items: list[RecallItem], rows: dict[str, Row],
                          facets: tuple[Facet, ...], depth: int, kin: str | None = None,
                          sources: dict[str, Row] | None = None) -> None:
    """Reorder, in place, the episodes among the first ``depth`` items that state something
    on a facet the question asks about (``graphmem._facets``): newest first, in the places
    those episodes held, each place keeping its score. "Who is my manager now?": every
    message naming the user's boss is a version of that one fact, whatever its score. The
    assistant's (or a tool's) turns are left out: repeating an old value back to the user
    says nothing new about it. A relation stating something on the facet takes part at
    the time of the latest message it was read from (``sources``, ``relation_sources``):
    `user is learning Italian`, read in March, goes below "my Korean pronunciation is
    getting better", said in June, from which no relation was read."""
    if not facets:
        return
    sources = sources or {}
    places, times = [], {}
    for n, it in enumerate(items[:depth]):
        row = rows.get(it.id) or {}
        if it.kind is MemoryKind.EPISODE and _states(row, facets, kin):
            places.append(n)
        elif it.kind is MemoryKind.RELATION and it.id in sources \
                and _relation_states(row, facets, kin):
            places.append(n)
            times[n] = int(sources[it.id].get("occurredAt") or 0)
    _newest_first(items, places, times)


def lift_on_facet(items: list[RecallItem], rows: dict[str, Row], facets: tuple[Facet, ...],
                  lift: float, depth: int, kin: str | None = None,
                  relations: bool = False) -> None:
    """Raise, in place, the scores of the episodes (and with ``relations``, the relations)
    among the first ``depth`` items that state something on a facet the question names,
    x (1 + ``lift``), and sort again: "To whom do I report now?" - the message saying who
    the user's manager is, said in passing inside a long request, above messages about a
    nightly report job; "Who is my employer at this point?" - `user works at Bluefin
    Analytics`, valid now."""
    if not facets or lift <= 0:
        return
    for it in items[:depth]:
        if it.kind is MemoryKind.EPISODE and _states(rows.get(it.id) or {}, facets, kin) \
                or relations and it.kind is MemoryKind.RELATION \
                and _relation_states(rows.get(it.id) or {}, facets, kin):
            it.score = round(it.score * (1 + lift), 6)
    items.sort(key=lambda it: (-it.score, it.id))


def valid_then_on_facet(items: list[RecallItem], rows: dict[str, Row],
                        facets: tuple[Facet, ...], start: int, inside: float, depth: int,
                        order_depth: int, kin: str | None = None) -> None:
    """What held when the question's window began (``start``, ms), in place: of the user's
    episodes among the first ``depth`` items that state something on a facet the question
    names and were said before the window, the latest counts as said inside it (temporal
    term ``inside``, the list sorted again), and those of them among the first
    ``order_depth`` come newest first, in their places. "Who did I report to in March
    2024?" - "My manager, Priya Raman, will read this", said in January, above messages
    about a nightly report job written in March and above "My manager is Tom Berg", said
    the October before."""
    if not facets:
        return
    before = [it for it in items[:depth]
              if it.kind is MemoryKind.EPISODE and (to_ms(it.occurred_at) or start) < start
              and _states(rows.get(it.id) or {}, facets, kin)]
    if not before:
        return
    latest = max(before, key=lambda it: (to_ms(it.occurred_at) or 0, it.score))
    if latest.scores.temporal < inside:
        latest.score = round(latest.score * (1 + inside) / (1 + latest.scores.temporal), 6)
        latest.scores.temporal = inside
        items.sort(key=lambda it: (-it.score, it.id))
    ids = {it.id for it in before}
    _newest_first(items, [n for n in _episode_places(items, order_depth)
                          if items[n].id in ids])


def demote_requests(items: list[RecallItem], rows: dict[str, Row], weight: float,
                    depth: int) -> None:
    """Lower, in place, the scores of the user's episodes among the first ``depth`` items
    that tell nothing of the user's (``_passages.states_anything``: only questions,
    requests and tasks for the assistant, naming nothing of theirs, "How do I get rid of
    fruit flies?"; nor a first-person clause on the way to a question,
    ``_facets.tells_on_the_way``), x (1 - ``weight``), and sort again: a question about a
    fact of the user's is answered by something the user told of it."""
    if weight <= 0:
        return
    for it in items[:depth]:
        row = rows.get(it.id) or {}
        if it.kind is MemoryKind.EPISODE and row.get("role") not in _NOT_USER \
                and not states_anything(text := str(row.get("content") or "")) \
                and not tells_on_the_way(text):
            it.score = round(it.score * (1 - weight), 6)
    items.sort(key=lambda it: (-it.score, it.id))


def _relation_states(row: Row, facets: tuple[Facet, ...], kin: str | None = None) -> bool:
    """Does the relation in ``row`` (its statement, `user works at Bluefin Analytics`)
    state a value of one of ``facets``?"""
    return on_facet(str(row.get("statement") or ""), facets, kin)


def _states(row: Row, facets: tuple[Facet, ...], kin: str | None = None) -> bool:
    """Does the user's (not the assistant's) message in ``row`` state a facet's value (of
    the user's own, or of ``kin``'s, the one close to the user whom the question names)?"""
    return row.get("role") not in _NOT_USER \
        and on_facet(str(row.get("content") or ""), facets, kin)


def newer_versions_first(items: list[RecallItem], rows: dict[str, Row], question: str,
                         depth: int, sources: dict[str, Row] | None = None) -> None:
    """Reorder, in place, the episodes among the first ``depth`` items of which a later one
    gives a new version of what an earlier one says (``_version_rules.restates``, read on
    the part of each that answers the question): newest first, in their places. "Which
    running shoes do I use now?": "I replaced the Pegasus with a pair of Hoka Cliftons"
    goes above "My running shoes are Nike Pegasus", which matches the question's words
    better; no link was stored between them.

    A relation among them takes part as the message it was read from (``sources``: relation
    id -> that episode's row), at that message's time: "prefers flat white" read from
    "My go-to coffee order is a flat white" goes below "I've switched my usual order to an
    oat cortado", which no relation was read from."""
    asked = topic_terms(question)
    sources = sources or {}
    found: list[tuple[int, int, Gist]] = []
    for n, it in enumerate(items[:depth]):
        if it.kind is MemoryKind.EPISODE:
            row, passage, at = rows.get(it.id) or {}, it.passage, to_ms(it.occurred_at) or 0
        elif it.kind is MemoryKind.RELATION and it.id in sources:
            row, passage = sources[it.id], None
            at = int(row.get("occurredAt") or 0)
        else:
            continue
        if row.get("role") in _NOT_USER:
            continue
        text = _answering(passage, row, asked)
        if text:
            found.append((n, at, gist(text)))
    older: dict[str, set[str]] = defaultdict(set)  # a newer version -> what it restates
    for n, at_a, a in found:
        for m, at_b, b in found:
            if at_b > at_a and restates(b, a, asked):
                older[items[m].id].add(items[n].id)
    times = {items[n].id: at for n, at, _ in found}
    replaced = {i for ids in older.values() for i in ids}
    # each line of versions (a newest one and what it replaced) in its own places, the
    # best-placed first: two later messages restating two parts of one long message are
    # two lines, and the one answering better stays above the other
    for head in [items[n].id for n, _, _ in found if items[n].id in older
                 and items[n].id not in replaced]:
        line = reach(head, older)
        places = sorted(n for n, it in enumerate(items[:depth]) if it.id in line)
        _newest_first(items, places, {n: times[items[n].id] for n in places})


def newer_kin_first(items: list[RecallItem], rows: dict[str, Row], question: str,
                    asked: list[float], depth: int, least: float,
                    embed: Callable[[list[str]], list[list[float]]],
                    reads_cjk: bool = True, others: frozenset[str] = frozenset()) -> None:
    """Reorder, in place, pairs of the user's episodes among the first ``depth`` items whose
    answers to the question are each other's closest in meaning and at least ``least``
    close, when the newer one's answer names something the older episode does not and is
    one of the ``KIN_FIT`` answers closest to the question: the newer first, in their
    places. An episode's answer is its statement (a sentence that asks nothing; of
    ``KIN_SENTENCES`` at most, those sharing the most terms with the ``question``, then
    the first) closest to the question's vector ``asked``; a sentence (nearly) the same
    as one of another episode is a template or a repeat, not an answer of either.
    Messages about someone else (``others``) take no part."""
    said = _user_statements(items, rows, topic_terms(question), depth, reads_cjk, others)
    if len(said) < 2:
        return
    texts, place, vectors, same = _alike(said, least, embed)
    like = vectors @ vectors.T
    to_question = _cosines(vectors, asked)
    answers = [(n, max(kept, key=lambda s: to_question[place[s]]))
               for n, parts in said if (kept := [s for s in parts if s not in same])]
    if len(answers) < 2:
        return
    # the newer answer must be one of the two closest to the question: a later fact of
    # the same form ("My favourite book is..." after "I love green tea") is no version
    fit = sorted(range(len(answers)), key=lambda i: -to_question[place[answers[i][1]]])
    near_question = set(fit[:KIN_FIT])
    close = {(i, j): float(like[place[answers[i][1]], place[answers[j][1]]])
             for i in range(len(answers)) for j in range(len(answers)) if i != j}
    nearest = {i: max((k for k in range(len(answers)) if k != i), key=lambda k: close[i, k])
               for i in range(len(answers))}
    for i, j in nearest.items():
        if j <= i or nearest[j] != i or close[i, j] < least or j not in near_question:
            continue
        upper, lower = items[answers[i][0]], items[answers[j][0]]
        if (to_ms(lower.occurred_at) or 0) <= (to_ms(upper.occurred_at) or 0):
            continue  # the newer already first
        # the newer one's answer names something the older message does not: a new value
        # ("the Kia EV6" after "a Ford Fiesta"), not the same topic again ("I still need
        # letters of support for the grant")
        older = str((rows.get(upper.id) or {}).get("content") or "")
        if value_tokens(answers[j][1]) - value_tokens(older):
            _newest_first(items, [answers[i][0], answers[j][0]])


def successors_first(items: list[RecallItem], rows: dict[str, Row], question: str,
                     asked: list[float], anchors: int, depth: int, least: float, fit: float,
                     embed: Callable[[list[str]], list[list[float]]],
                     reads_cjk: bool = True, others: frozenset[str] = frozenset(),
                     sources: dict[str, Row] | None = None, nearest: bool = False) -> None:
    """For a question about now, in place: each of the user's best ``anchors`` episodes
    (the answers recall found) gets its latest successor among the first ``depth`` items
    right above it, and above the relations read from it (``sources``: relation id -> the
    row of the message it was read from). A successor is a later message of the user's
    with a statement at least ``least`` alike the anchor's answer (its statement closest
    to the question), at least ``fit`` x as close to the question as that answer (a long
    request has a sentence alike to almost anything; the one that counts is about the
    question) and, with ``nearest``, closer to a statement of the anchor than to any
    other episode's ("my morning routine has been a mess" is closer to "my oolong tea is
    the only fixed part of my morning routine" than to "lately it's hot chocolate first
    thing in the morning"). "Where are we going for our anniversary trip?": "the October
    anniversary week is booked in Kyoto, and Lisbon can wait until next year", said in
    April, goes above "For our anniversary in October we are flying to Lisbon", said in
    January; no word of change is in it, but it speaks of the same thing. Statements said
    (nearly) the same in two messages are templates or repeats and link nothing; messages
    about someone else (``others``) take no part."""
    said = _user_statements(items, rows, topic_terms(question), depth, reads_cjk, others,
                            most=2 * KIN_SENTENCES, headers=True)
    if len(said) < 2:
        return
    _, place, vectors, same = _alike(said, least, embed)
    to_question = _cosines(vectors, asked)
    like = vectors @ vectors.T
    # each episode's statements that are no template or repeat, as rows of ``vectors``
    kept = {n: [place[s] for s in parts if s not in same] for n, parts in said}
    nearest_of = _nearest_owners(kept, like) if nearest else {}
    ids = {n: items[n].id for n, _ in said}
    times = {n: to_ms(items[n].occurred_at) or 0 for n, _ in said}
    for anchor, _ in said[:anchors]:
        if not kept[anchor]:
            continue
        best = max(kept[anchor], key=lambda k: to_question[k])
        fits = fit * to_question[best]
        later = [(times[n], n) for n, _ in said if times[n] > times[anchor] + CONTINUES_MS and any(
            like[k, best] >= least and to_question[k] >= fits
            and (not nearest or nearest_of[k] == anchor) for k in kept[n])]
        if later:
            where = {it.id: k for k, it in enumerate(items)}
            read_from = [where[r] for r, row in (sources or {}).items()
                         if row.get("id") == ids[anchor] and r in where]
            newest, old = where[ids[max(later)[1]]], min([where[ids[anchor]], *read_from])
            if newest > old:
                _raise(items, newest, old)


def _nearest_owners(kept: dict[int, list[int]], like: np.ndarray) -> dict[int, int | None]:
    """For each of the ``kept`` statements (rows of ``like``, by the episode place that
    said them), the episode whose statement is closest to it among the other episodes'
    (None: no other episode has one)."""
    rows = [k for ks in kept.values() for k in ks]
    if not rows:
        return {}
    owners = np.array([n for n, ks in kept.items() for _ in ks])
    near = like[np.ix_(rows, rows)].copy()
    near[owners[:, None] == owners[None, :]] = -np.inf  # not the episode's own
    best = near.argmax(axis=1)
    return {k: int(owners[b]) if np.isfinite(near[i, b]) else None
            for i, (k, b) in enumerate(zip(rows, best, strict=True))}


def _raise(items: list[RecallItem], frm: int, to: int) -> None:
    """The item at ``frm`` moved up to ``to``, those between one place down; each place
    keeps its score (so the list stays sorted)."""
    scores = [it.score for it in items[to:frm + 1]]
    items.insert(to, items.pop(frm))
    for k, score in enumerate(scores):
        items[to + k].score = score


def _user_statements(items: list[RecallItem], rows: dict[str, Row], terms: set[str],
                     depth: int, reads_cjk: bool, others: frozenset[str],
                     most: int = KIN_SENTENCES,
                     headers: bool = False) -> list[tuple[int, list[str]]]:
    """The places of the user's episodes among the first ``depth`` items (not the
    assistant's, not ``others``), each with its statements (sentences that ask nothing;
    Chinese ones only if the embedder reads them; with ``headers``, not those that only
    open what follows, "Current draft:", 最慢的是这一段：): at most ``most``, those
    sharing the most of ``terms`` first, then in their order."""
    said: list[tuple[int, list[str]]] = []
    for n, it in enumerate(items[:depth]):
        row = rows.get(it.id) or {}
        if it.kind is not MemoryKind.EPISODE or row.get("role") in _NOT_USER \
                or it.id in others:
            continue
        parts = [s.strip() for s in SENTENCE_END.split(str(row.get("content") or ""))
                 if s.strip() and not asks(s) and (reads_cjk or not has_cjk(s))
                 and not (headers and _HEADER.search(s))]
        parts = list(dict.fromkeys(parts))
        parts.sort(key=lambda s: -len(topic_terms(s) & terms))  # stable: then the first
        if parts:
            said.append((n, parts[:most]))
    return said


def _alike(said: list[tuple[int, list[str]]], least: float,
           embed: Callable[[list[str]], list[list[float]]]
           ) -> tuple[list[str], dict[str, int], np.ndarray, set[str]]:
    """The statements of ``said`` embedded: the texts, each one's row, their unit vectors,
    and those that are templates or repeats: (nearly) the same words as a sentence of another
    episode, or said in two of them (nearly the same: six sevenths of the way from alike,
    ``least``, to the same; .9 for MiniLM)."""
    texts = list(dict.fromkeys(s for _, parts in said for s in parts))
    vectors = np.asarray(embed(texts), dtype=np.float64)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    like = vectors @ vectors.T
    place = {s: k for k, s in enumerate(texts)}
    owner = np.array([next(n for n, parts in said if s in parts) for s in texts])
    same = {texts[k] for k in np.flatnonzero(
        ((like >= 1 - (1 - least) / 7) & (owner[:, None] != owner[None, :])).any(axis=1))}
    same |= {s for s in texts if sum(s in parts for _, parts in said) > 1}
    return texts, place, vectors, same


def _cosines(vectors: np.ndarray, asked: list[float]) -> np.ndarray:
    """The cosine of each of the unit ``vectors`` with the question's vector ``asked``."""
    return np.asarray(vectors @ (np.asarray(asked, dtype=np.float64)
                                 / max(float(np.linalg.norm(asked)), 1e-12)))


def relation_sources(items: list[RecallItem], rows: dict[str, Row], depth: int,
                     episodes: Callable[[list[str]], list[Row]]) -> dict[str, Row]:
    """For the relations among the first ``depth`` items, the row of the latest episode
    each was read from (from ``rows`` when loaded, else ``episodes`` reads them by id):
    what ``newer_versions_first`` compares them by. Nothing when no episode is among
    those items."""
    top = items[:depth]
    if not any(it.kind is MemoryKind.EPISODE for it in top):
        return {}  # no message to compare them with
    wanted = {it.id: [str(e) for e in (rows.get(it.id) or {}).get("episodeIds") or []]
              for it in top if it.kind is MemoryKind.RELATION}
    ids = {e for eps in wanted.values() for e in eps}
    if not ids:
        return {}
    by_id = {e: rows[e] for e in ids if e in rows}  # candidates already loaded
    missing = sorted(ids - set(by_id))
    by_id.update({str(r["id"]): r for r in episodes(missing)} if missing else {})
    out: dict[str, Row] = {}
    for rel, eps in wanted.items():
        have = [by_id[e] for e in eps if e in by_id]
        if have:
            out[rel] = max(have, key=lambda r: int(r.get("occurredAt") or 0))
    return out


def _answering(passage: str | None, row: Row, asked: set[str]) -> str:
    """The part of an episode that answers the question: the passage that matched, else
    its (at most two) statement sentences sharing the most terms with the question (the
    first two when none shares one: it was found by meaning)."""
    if passage:
        return passage
    said = [s for s in SENTENCE_END.split(str(row.get("content") or "")) if s.strip()
            and not asks(s)]
    overlap = [len(topic_terms(s) & asked) for s in said]
    ranked = sorted(range(len(said)), key=lambda i: -overlap[i])
    best = [i for i in ranked[:2] if overlap[i]] or ranked[:2]
    return " ".join(said[i] for i in sorted(best))


def _newest_first(items: list[RecallItem], places: list[int],
                  times: dict[int, int] | None = None) -> None:
    """The items at ``places`` newest first (by ``times`` of each place, else the item's
    own time), in those places, each place keeping its score (so the list stays sorted)."""
    if len(places) < 2:
        return
    at = {n: (times or {}).get(n, to_ms(items[n].occurred_at) or 0) for n in places}
    ordered = [items[n] for n in sorted(places, key=lambda n: (-at[n], -items[n].score,
                                                               items[n].id))]
    scores = [items[n].score for n in places]
    for n, it, score in zip(places, ordered, scores, strict=True):
        it.score = score
        items[n] = it


def newest_first_among_equals(items: list[RecallItem], band: float, depth: int,
                              others: frozenset[str] = frozenset()) -> None:
    """Reorder, in place, the episodes among the first ``depth`` items that score at least
    ``band`` x the best of them: newest first, in the places those episodes held (the
    other items stay where they are; each place keeps its score, so the list stays sorted).
    For a question about now, two messages that answer it about equally well are most
    likely an old and a new version of the same fact (unless one is about someone else,
    ``others``)."""
    places = _episode_places(items, depth, others)
    if len(places) < 2:
        return
    best = max(items[n].score for n in places)
    _newest_first(items, [n for n in places if items[n].score >= band * best])


def newest_first_among_standouts(items: list[RecallItem], gap: float, floor: float,
                                 most: int, depth: int,
                                 others: frozenset[str] = frozenset()) -> None:
    """Reorder, in place, the (at most ``most``) best episodes among the first ``depth``
    items when they stand apart from the rest: the last of them scores at least ``gap`` x
    the next episode and at least ``floor`` x the best. Newest first, in their places.
    A question about now with two clear answers far above everything else ("Which running
    watch do I use?": the message naming the Garmin, the later one naming the Coros) most
    likely has an old and a new version of one fact, even when the new one matches the
    question's words half as well and no word of change links them. Messages about
    someone else (``others``) take no part."""
    places = _episode_places(items, depth, others)
    best = items[places[0]].score if places else 0.0
    for i in range(1, min(most, len(places) - 1)):
        here, after = items[places[i]].score, items[places[i + 1]].score
        if here < floor * best:
            return
        if here >= gap * after:
            _newest_first(items, places[:i + 1])
            return


def _episode_places(items: list[RecallItem], depth: int,
                    others: frozenset[str] = frozenset()) -> list[int]:
    """The places of the episodes among the first ``depth`` items, but those of ``others``
    (messages about someone else: ``_facets.of_another``)."""
    return [n for n, it in enumerate(items[:depth])
            if it.kind is MemoryKind.EPISODE and it.id not in others]


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
