"""Now and then at episode level: a message that restates a fact with a new value is linked
to the earlier message it replaces.

Most conversations never produce an exclusive relation ("Ana lives in Berlin"): what the
user said is only in episodes. When an episode is written, this finds the user's earlier
(or, arriving late, later) episodes that say the same thing about the same attribute with
another value, and adds to the write's plan, in the same transaction as the episode:

* ``(newer:Episode)-[:SUPERSEDES {at, reason, score}]->(older:Episode)`` for a restated
  value ("Our rent is 1200 dollars a month" -> "rent goes from 1200 to 1450 dollars");
* ``(newer)-[:DISPUTED {at, reason, score}]->(older)`` for a contradiction ("I have never
  used Kafka" / "I built the billing service with Kafka").

Candidates: the new episode's nearest episodes of the user through the vector index and
its best full-text matches (``CANDIDATES`` each), the other episodes of the same write,
and, sentence by sentence, the earlier passages nearest to each of its own statement
sentences that carry a value or a change (through the passage index: a fact said in
passing in a long request is compared with the sentence that said it before).
The decision is ``_version_rules.judge`` (rules on values, attribute words and
change words, with the two messages' cosine as one signal), made on the pair ordered by
when each was said, so the order of arrival does not matter: an older message arriving
later is linked as the earlier version. ``reason`` says which values changed and which
words made the attribute. Recall reads the edges back (``_recall_versions``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from graphmem._corrections import corrected, mentions
from graphmem._facets import on_facet, stated
from graphmem._passages import SENTENCE_END, parse_id, statements
from graphmem._version_rules import Said, Verdict, judge, read, read_sentences, topic_terms
from graphmem.extract._llm_versions import Shown, VersionAsk, VersionProposal
from graphmem.ingest import PreparedEpisode
from graphmem.model import to_ms
from graphmem.store.base import NodeWrite, Row, Store, WritePlan
from graphmem.store.queries import PASSAGE

#: nearest episodes per new episode, from each of the vector and the full-text index
CANDIDATES = 8
#: at most this many version links from one new episode
MAX_LINKS = 3
#: content embedded per episode (the service embeds the same prefix, so its cache answers)
EMBED_CHARS = 2000
#: the least score of a verdict found sentence by sentence: those on values (a number, a
#: date or a name replaced: .7 and up), not the one on shared words alone (.6)
VALUE_SCORE = 0.7
#: the score of a link the model proposed (the rules' surest verdicts score higher)
MODEL_SCORE = 0.8
#: the score of a correction's link ("I told you Tuesdays; I got that wrong"): the user says
#: outright which message it replaces, surer than any verdict on shared words
CORRECTION_SCORE = 0.95
#: other episodes shown to the model per new episode
MAX_ASKED = 12
#: episodes stating a value of the same personal fact, per fact a new episode states
FACET_CANDIDATES = 4


@dataclass(frozen=True, slots=True)
class NewEpisode:
    """An episode being written: what the version rules need of it."""

    id: str
    content: str
    occurred_at: int  # epoch ms
    role: str | None
    speaker: str | None
    vector: Sequence[float]

    @classmethod
    def of(cls, p: PreparedEpisode, vector: Sequence[float]) -> NewEpisode:
        return cls(p.id, p.content, to_ms(p.occurred_at) or 0, p.role, p.speaker, vector)


@dataclass(frozen=True, slots=True)
class VersionLink:
    kind: str  # SUPERSEDES or DISPUTED
    src: str  # the later episode
    dst: str  # the earlier one
    verdict: Verdict


def plan_versions(store: Store, plan: WritePlan, episodes: Sequence[PreparedEpisode],
                  vectors: Sequence[Sequence[float]],
                  embed: Callable[[list[str]], list[list[float]]],
                  passages: dict[str, list[NodeWrite]] | None = None,
                  proposed: Sequence[VersionProposal] = ()) -> list[VersionLink]:
    """Add to ``plan`` the SUPERSEDES / DISPUTED edges between the episodes being written
    (with their content vectors and their passages') and the user's others, and among
    themselves; returns them. Only statements by the same speaker are compared.
    ``proposed``: pairs the model linked (``version_asks``), each checked again here."""
    fresh = [NewEpisode.of(p, v) for p, v in zip(episodes, vectors, strict=True)]
    said = {e.id: read_sentences(e.id, e.content, e.occurred_at, e.role) for e in fresh}
    who = {e.id: speaker_of(e.speaker) for e in fresh}
    short = {e.id for e in fresh if len(said[e.id]) <= 1}
    asking = [e for e in fresh if said[e.id]]
    if not asking:
        return []
    user = plan.user_id
    found = {e.id: [i for i in _nearest(store, user, e) if i not in said] for e in asking}
    wanted = {i for ids in found.values() for i in ids}
    wanted |= {p.other_id for p in proposed if p.other_id not in said}
    stored = {r["id"]: r for r in store.nodes("Episode", user, sorted(wanted))}
    for i, row in stored.items():
        if row.get("forgottenAt") is None:
            said[i] = read_sentences(i, str(row.get("content") or ""),
                                     int(row.get("occurredAt") or 0), row.get("role"))
            who[i] = speaker_of(row.get("speaker"))
            if len(said[i]) <= 1:
                short.add(i)
    vecs = {e.id: list(e.vector) for e in fresh}
    # a message's cosine speaks for its one sentence; a long message's does not
    texts = {i: str(stored[i].get("content") or "")[:EMBED_CHARS] for i in stored
             if i in short and said.get(i)}
    if texts:
        order = sorted(texts)
        vecs.update(zip(order, embed([texts[i] for i in order]), strict=True))
    by_sentence = _sentence_links(store, user, asking, passages or {}, who)
    by_model = _model_links(proposed, {e.id: e for e in fresh}, stored, who)
    by_correction = _correction_links(asking, found, stored, who)
    pairs: dict[frozenset[str], VersionLink] = {}
    for e in asking:
        mine: list[VersionLink] = by_sentence.get(e.id, []) + by_model.get(e.id, []) \
            + by_correction.get(e.id, [])
        ids = [i for i in found[e.id] if said.get(i)] + [o.id for o in asking if o.id != e.id]
        for other in ids:
            if who[other] != who[e.id]:
                continue  # what one person says does not replace what another said
            cosine = _cosine(vecs[e.id], vecs[other]) if e.id in short and other in short \
                else 0.0
            link = _best(said[e.id], said[other], cosine)
            if link is not None and frozenset((e.id, other)) not in pairs:
                mine.append(link)
        mine.sort(key=lambda lk: (-lk.verdict.score, lk.src, lk.dst))
        for link in mine:
            if len({lk for lk in pairs.values() if e.id in (lk.src, lk.dst)}) >= MAX_LINKS:
                break
            pairs.setdefault(frozenset((link.src, link.dst)), link)
    links = sorted(pairs.values(), key=lambda lk: (lk.src, lk.dst))
    for link in links:
        plan.link_episodes(link.kind, link.src, link.dst,
                           {"at": plan.at, "reason": link.verdict.reason,
                            "score": link.verdict.score})
    return links


def version_asks(store: Store, user: str, fresh: Sequence[NewEpisode]) -> list[VersionAsk]:
    """What the model is asked about a write (``graphmem.extract._llm_versions``): each
    new episode that states something, with at most ``MAX_ASKED`` of the same speaker's
    episodes, taken in turn from its nearest by vector, those stating a value of the same
    personal fact, its best full-text matches and the write's earlier episodes; shown
    oldest first."""
    asking = [e for e in fresh if read_sentences(e.id, e.content, e.occurred_at, e.role)]
    if not asking:
        return []
    new_ids = {e.id for e in fresh}
    sources = {e.id: _sources(store, user, e) for e in asking}
    rows = {r["id"]: r for r in store.nodes("Episode", user, sorted(
        {i for lists in sources.values() for ids in lists for i in ids if i not in new_ids}))}
    asks: list[VersionAsk] = []
    for e in asking:
        stored = [[s for i in ids if (s := _shown(rows.get(i), e)) is not None]
                  for ids in sources[e.id]]
        earlier = [Shown(o.id, o.content, o.occurred_at)  # the latest first
                   for o in sorted(asking, key=lambda o: (o.occurred_at, o.id), reverse=True)
                   if (o.occurred_at, o.id) < (e.occurred_at, e.id)
                   and speaker_of(o.speaker) == speaker_of(e.speaker)]
        chosen: dict[str, Shown] = {}
        for said in _in_turn([*stored, earlier]):
            if len(chosen) >= MAX_ASKED:
                break
            chosen.setdefault(said.id, said)
        if chosen:
            others = sorted(chosen.values(), key=lambda o: (o.at, o.id))
            asks.append(VersionAsk(Shown(e.id, e.content, e.occurred_at), tuple(others)))
    return asks


def _shown(row: Row | None, e: NewEpisode) -> Shown | None:
    """A stored episode as the model sees it, when it may be shown beside ``e``: not
    forgotten, not an assistant's turn, said by the same speaker."""
    if row is None or row.get("forgottenAt") is not None or row.get("role") == "assistant" \
            or speaker_of(row.get("speaker")) != speaker_of(e.speaker):
        return None
    text = str(row.get("content") or "")
    return Shown(str(row["id"]), text, int(row.get("occurredAt") or 0)) if text.strip() \
        else None


def _sources(store: Store, user: str, e: NewEpisode) -> list[list[str]]:
    return [_by_vector(store, user, e), _on_its_facets(store, user, e),
            _by_text(store, user, e)]


def _in_turn[T](lists: list[list[T]]) -> list[T]:
    """The first of each list, then the second of each..."""
    return [x[k] for k in range(max(map(len, lists), default=0)) for x in lists if k < len(x)]


def _nearest(store: Store, user: str, e: NewEpisode) -> list[str]:
    """The user's episodes nearest to ``e``: by vector, then by full text."""
    return list(dict.fromkeys(_by_vector(store, user, e) + _by_text(store, user, e)))


def _by_vector(store: Store, user: str, e: NewEpisode) -> list[str]:
    return [h.id for h in store.vector_search("Episode", user, list(e.vector), CANDIDATES)]


def _by_text(store: Store, user: str, e: NewEpisode) -> list[str]:
    return [h.id for h in store.fulltext_search("Episode", user, e.content, CANDIDATES)]


def _on_its_facets(store: Store, user: str, e: NewEpisode) -> list[str]:
    """The user's episodes that state a value of a personal fact ``e`` states a value of
    (``_facets.stated``: a home, an employer, a partner, a car...), by the facet's words and
    usual values through the full-text index: "Charging the Kia EV6 overnight is cheap, the
    car costs almost nothing to run" and "I bought a used Mazda 3 last spring" share no
    word, and a user's other messages about charging a laptop are nearer in both indexes."""
    out: list[str] = []
    for facet in stated(e.content):
        hits = store.fulltext_search("Episode", user, " ".join(facet.words + facet.values),
                                     FACET_CANDIDATES * 3)
        rows = store.nodes("Episode", user, [h.id for h in hits if h.id != e.id])
        on = {r["id"] for r in rows if on_facet(str(r.get("content") or ""), (facet,))}
        out += [h.id for h in hits if h.id in on][:FACET_CANDIDATES]
    return out


def _model_links(proposed: Sequence[VersionProposal], fresh: dict[str, NewEpisode],
                 stored: dict[str, Row], who: dict[str, str]) -> dict[str, list[VersionLink]]:
    """The model's pairs that still hold at write time: the new episode is being written,
    the other is one of the user's (or of this write), not forgotten, not an assistant's
    turn, and said by the same speaker. The newer of the two is the one said later."""
    out: dict[str, list[VersionLink]] = {}
    for p in proposed:
        e = fresh.get(p.new_id)
        if e is None or p.other_id == p.new_id:
            continue
        if p.other_id in fresh:
            o = fresh[p.other_id]
            other_at, role, speaker = o.occurred_at, o.role, o.speaker
        elif (row := stored.get(p.other_id)) is not None and row.get("forgottenAt") is None:
            other_at, role, speaker = (int(row.get("occurredAt") or 0), row.get("role"),
                                       row.get("speaker"))
        else:
            continue
        if role == "assistant" or speaker_of(speaker) != who.get(e.id, speaker_of(e.speaker)):
            continue
        newer, older = (e.id, p.other_id) if (e.occurred_at, e.id) > (other_at, p.other_id) \
            else (p.other_id, e.id)
        verdict = Verdict(p.kind, MODEL_SCORE, p.reason)
        out.setdefault(e.id, []).append(VersionLink(p.kind, newer, older, verdict))
    return out


def _correction_links(asking: Sequence[NewEpisode], found: dict[str, list[str]],
                      stored: dict[str, Row], who: dict[str, str]) -> dict[str, list[VersionLink]]:
    """Each value a new episode takes back (``_corrections``: "I told you Tuesdays, I got
    that wrong") links it to the nearest earlier episode of the same speaker that gave the
    value: among its candidates (``found``) and the write's earlier episodes, said before
    it, not an assistant's turn, not forgotten, and not itself a correction of that value."""
    out: dict[str, list[VersionLink]] = {}
    for e in asking:
        fixes = corrected(e.content) if e.role != "assistant" else []
        if not fixes:
            continue
        earlier: list[tuple[str, str, int]] = []
        for i in found.get(e.id, []):
            row = stored.get(i)
            if row is not None and row.get("forgottenAt") is None \
                    and row.get("role") != "assistant":
                earlier.append((i, str(row.get("content") or ""), int(row.get("occurredAt") or 0)))
        earlier += [(o.id, o.content, o.occurred_at) for o in asking
                    if o.id != e.id and o.role != "assistant"]
        earlier = [(i, text, at) for i, text, at in earlier
                   if (at, i) < (e.occurred_at, e.id) and who.get(i) == who.get(e.id)]
        sentences = [s for s in SENTENCE_END.split(e.content) if s.strip()]
        for fix in fixes:
            gave = [(n, i, text) for n, (i, text, _) in enumerate(earlier)
                    if mentions(text, fix.old)
                    and not any(mentions(c.old, fix.old) for c in corrected(text))]
            if not gave:
                continue
            # the one that says most of what the correcting sentence speaks of ("子轩数学补课
            # 不是周六上午" takes back the tutoring's 周六上午, not a fire inspection's 上周六),
            # then the nearest
            about = set().union(*(topic_terms(s) for s in sentences if mentions(s, fix.old))) \
                - topic_terms(f"{fix.old} {fix.new}")
            _, i, _ = max(gave, key=lambda g: (len(about & topic_terms(g[2])), -g[0]))
            verdict = Verdict("SUPERSEDES", CORRECTION_SCORE, fix.reason)
            out.setdefault(e.id, []).append(VersionLink("SUPERSEDES", e.id, i, verdict))
    return out


def _sentence_links(store: Store, user: str, asking: Sequence[NewEpisode],
                    passages: dict[str, list[NodeWrite]],
                    who: dict[str, str]) -> dict[str, list[VersionLink]]:
    """Links found sentence by sentence: each statement sentence of a new episode that
    carries a value or a change searches the passages of the user's earlier episodes
    (their statement sentences, and the windows of long ones) with its own vector, and is
    judged against the span each hit covers, the hit's similarity being the pair's cosine.
    A fact said in passing in a long request is compared with the sentence that said it
    before, not with the whole message."""
    asked: list[tuple[NewEpisode, Said, list[float]]] = []
    for e in asking:
        own = set(statements(e.content))
        for node in passages.get(e.id, []):
            parsed = parse_id(node.id)
            if parsed is None or parsed[1] not in own or not node.embedding:
                continue
            span = parsed[1]
            said = read(e.id, e.content[span.start:span.end], e.occurred_at, e.role)
            if said.statement and (said.values or said.change or said.never):
                asked.append((e, said, list(node.embedding)))
    if not asked:
        return {}
    fresh = {e.id for e in asking}
    hits: list[tuple[NewEpisode, Said, str, int, int, float]] = []
    for e, said, vector in asked:
        for h in store.vector_search(PASSAGE, user, vector, CANDIDATES):
            parsed = parse_id(h.id)
            if parsed is not None and parsed[0] not in fresh:
                hits.append((e, said, parsed[0], parsed[1].start, parsed[1].end, h.score))
    rows = {r["id"]: r for r in store.nodes("Episode", user, sorted({h[2] for h in hits}))}
    out: dict[str, list[VersionLink]] = {}
    for e, said, other, start, end, score in hits:
        row = rows.get(other)
        if row is None or row.get("forgottenAt") is not None \
                or speaker_of(row.get("speaker")) != who[e.id]:
            continue
        content = str(row.get("content") or "")
        before = read(other, content[start:end], int(row.get("occurredAt") or 0),
                      row.get("role"))
        link = _best([said], [before], float(score))
        # a sentence pair links on values (a number, a date or a name replaced) or as a
        # contradiction; on shared words alone too many sentences of one user's habits of
        # phrasing would replace each other
        if link is not None and (link.kind == "DISPUTED" or link.verdict.score >= VALUE_SCORE):
            out.setdefault(e.id, []).append(link)
    return out


def _best(a: list[Said], b: list[Said], cosine: float) -> VersionLink | None:
    """The strongest link between two messages' statements, from the later message to the
    earlier one."""
    best: VersionLink | None = None
    for x in a:
        for y in b:
            newer, older = (x, y) if (x.occurred, x.id) > (y.occurred, y.id) else (y, x)
            verdict = judge(newer, older, cosine)
            if verdict is not None and (best is None or verdict.score > best.verdict.score):
                best = VersionLink(verdict.kind, newer.id, older.id, verdict)
    return best


def _cosine(u: Sequence[float], v: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(u, v, strict=False))
    nu = math.sqrt(sum(x * x for x in u))
    nv = math.sqrt(sum(y * y for y in v))
    return dot / (nu * nv) if nu and nv else 0.0


def speaker_of(speaker: object) -> str:
    return str(speaker or "").casefold()
