"""Recall's first stage, reading the question: the time window it states, whether it asks
when, about the past or yes or no, the people it names, and the text each search reads
(the full text also the other words of the facets it names, ``graphmem._facets``)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from graphmem._facets import synonyms
from graphmem._passages import first_person
from graphmem._recall_versions import asks_before
from graphmem.inputs import RecallIn
from graphmem.model import MemoryKind, to_ms
from graphmem.question import (
    DURATION_QUESTION,
    content_words,
    name_pattern,
    without_names,
)
from graphmem.recall_model import RecallTuning
from graphmem.timeparse import TimeWindow, is_when_question, resolve_window, strip_window

# 是...的 around a when-word puts a Chinese question in the past: 新店是哪天开张的？
_DE_PAST = (r"(?:什么时候|哪天|哪一天|几号|几月几号|哪年|哪一年|哪个月)"
            r"[^，。？?！!,]{0,12}的[？?\s]*$")
_PAST = re.compile(
    r"\b(?:did|was|were|had|went|happened|used|ever|have (?:I|we|you)|has|how often|"
    r"how many times)\b|过|几次|几回|多少次|了吗|那时|当时|那次|那回|上次|上回|" + _DE_PAST,
    re.I)
# a present perfect that asks where things stand now ("How far has my car been driven so
# far?", "What has my rent gone up to by now?"), unless a word of the past is there too
_UP_TO_NOW = re.compile(r"\b(?:so far|to date|by now|as of (?:now|today)|currently|"
                        r"at the moment|right now|at present|these days|nowadays)\b", re.I)
_PAST_ONLY = re.compile(r"\b(?:did|was|were|went|happened|used to|ever|how often|"
                        r"how many times)\b|过|几次|几回|多少次|那时|当时|那次|那回|上次|上回|"
                        + _DE_PAST, re.I)

# a rate of the user's asks what holds now, not how often something happened: "How often
# do I water the ferns?", "how many times a week", 一天要吃几次 (without it, 几次 counts as
# the past); someone else's ("How often does Melanie go to the beach?") asks for every time
_RATE = re.compile(
    r"\bhow (?:often|many times)(?= (?:a |per |each |every )?(?:day|week|fortnight|month|"
    r"year|do|does|am|is|are|should|must|can|will|need|have to)\b)|"
    r"\b(?:a|per|each|every) (?:day|week|fortnight|month|year)\b|"
    r"[每一](?:天|日|周|星期|礼拜|个?月|年)[^，。？?！!]{0,8}?(?:几次|几回|多少次)", re.I)
# a yes/no question in the first person about what still holds asks about now ("Is my
# father still working?", "Do I still take the 10 mg?", 我现在还在吃优甲乐吗): the newest
# version is its answer
_STILL = re.compile(r"\b(?:still|anymore|any more|any longer|currently|right now|"
                    r"at the moment|these days|nowadays)\b|还在|现在|目前|如今|仍然|依然",
                    re.I)


_YES_NO = re.compile(
    r"^\W*(?:do|does|am|is|are|have|has|can|could|will|would|should)\b|是否|吗\W*$|"
    # a verb asked as "A not A": 有没有, 是不是, 喝不喝, 去没去, 喜不喜欢; ...没有？ at the end
    r"([\u4e00-\u9fff])[不没]\1|没有\W*$",
    re.I)


@dataclass(slots=True)
class Asked:
    """A recall question as every later stage reads it."""

    window: TimeWindow | None  # the time the question states (or ``between``)
    known_at: int  # ms: what had been recorded by then counts (``knownAt``, else now)
    as_of: int | None  # ms: ``asOf``
    kinds: list[MemoryKind]
    when: bool  # a when- (or how-long-) question: items that state a time count more
    cand: int  # hits asked of each search
    names: list[str]  # the people who speak in this memory and whom the question names
    search: str  # what the vector search reads: the question without its window (or names)
    words: str  # the question's words (what the graph's paths cover)
    looked_for: str  # what the full-text search reads: ``words`` and their facets' others


def read_question(q: RecallIn, now: datetime, t: RecallTuning,
                  speakers: Callable[[str], list[str]]) -> Asked:
    """The question ``q`` read at ``now``; ``speakers`` gives the names of the people who
    speak in a user's memory (read only when ``t.speakers``)."""
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

    names = _named_speakers(speakers(q.user_id), text) if t.speakers else []
    search = without_names(text, names) if names and t.strip_names else text
    words = content_words(search) if t.stopwords else search
    looked_for = words  # the full text also looks for the other words of its facets
    if t.facet_words and (more := synonyms(search)):
        looked_for = f"{words} {' '.join(more)}"
    return Asked(window=window, known_at=known_at, as_of=as_of, kinds=kinds, when=when,
                 cand=cand, names=names, search=search, words=words, looked_for=looked_for)


def about_now(q: RecallIn, a: Asked) -> bool:
    """Does the question ask what holds now: no ``asOf``, no window, no history, no words
    of before or of the past, and no yes/no question but one of the user's about what
    still holds?"""
    # "these days", "lately": a window of the last weeks that ends now asks about now
    recent = a.window is not None and a.window.kind == "recent"
    return a.as_of is None and (a.window is None or recent) and not q.include_history \
        and not asks_before(q.query) and not asks_past(q.query) \
        and (not asks_yes_no(q.query)
             or _STILL.search(q.query) is not None and first_person(q.query))


def asks_yes_no(question: str) -> bool:
    """Is it a yes/no question ("Do I have experience with Rust?", 我有没有...)? It checks a
    claim: every side of it matters, not only the newest."""
    return _YES_NO.search(question.strip()) is not None


def asks_past(question: str) -> bool:
    """Does the question ask about the past or about experience and counts ("When did I
    move?", "Have I ever used Rust?", "How often have I..."), not about what holds now or
    next ("When is my deadline?", "Who is my manager?", "How far has my car been driven
    so far?", "How often do I take the tablets?", 一天吃几次)?"""
    if first_person(question):  # "How often does Melanie go to the beach?": every time
        question = _RATE.sub(" ", question)
    if _PAST.search(question) is None:
        return False
    return _UP_TO_NOW.search(question) is None or _PAST_ONLY.search(question) is not None


def _named_speakers(speakers: list[str], text: str) -> list[str]:
    """The people among ``speakers`` whom ``text`` names."""
    return [name for name in speakers if name_pattern(name).search(text)]


def _window(q: RecallIn, reference: datetime) -> TimeWindow | None:
    if q.between is not None:
        return TimeWindow(start=q.between[0], end=q.between[1], phrase="", kind="range")
    return resolve_window(q.query, reference)
