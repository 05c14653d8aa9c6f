"""Passages of long episodes: spans embedded on their own, so a fact said deep inside a long
message is still found by meaning.

The embedders read a bounded window (MiniLM 256 word pieces: some 190 English words of prose,
fewer of code, about 250 Chinese characters); an episode longer than that gets one vector for
its opening only. Such an episode is also cut into passages on paragraph and sentence
boundaries, each at most ``MAX_UNITS`` units (a Latin word or a Han character each),
neighbours overlapping by about ``OVERLAP_UNITS``, and each passage gets its own vector.

Besides these windows, every sentence in which the user says something about themself
("Unrelated, but after the reorg Lena Vogel took over as my manager.", "我们上个月搬到了杭州。")
is a passage of its own when the episode has more than one sentence: a long request states
its facts in passing, one sentence among paragraphs about something else, and a window's
vector is mostly the something else. A first-person statement (I / my / we / our, 我; not a
question, not a request to the assistant) of ``MIN_STATEMENT_UNITS`` units or more counts,
at most ``MAX_STATEMENTS`` per episode. In a user's message that fits one vector (a chat
line, not a pasted document) a statement with the "I" left out counts too ("Caught the 8:10
ferry to the office this morning", 来厦门一个月了), unless it sets the assistant a task
("Explain...", 推荐...) or speaks to or of "you"; in an assistant's, system's or tool's turn
it does not (``NOT_USER_ROLES``).

A passage is an index entry of its episode, not a memory: a ``Passage`` node with the
user's ``userId``, its vector and ``embeddingModel``, no text of its own (the span is in its
id: ``<episodeId>#<start>-<end>``, character offsets into the episode's content, so a hit
names its episode and snippet without another read). It is written in the episode's own
write plan, and read only through the episode: recall maps a passage hit to its episode,
which is shown (or hidden, when forgotten) as it would be anyway.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from graphmem.store.base import Hit, NodeWrite

#: the most units one passage holds (a Latin word or a Han character each): what MiniLM's
#: 256 word pieces read of English prose (~1.3 pieces a word) with room for code and names
MAX_UNITS = 160
#: units the next passage repeats of the one before, so a fact cut at a boundary is whole
#: in one of them
OVERLAP_UNITS = 32
#: the id of a passage: its episode's id, then its span in the episode's content
SEPARATOR = "#"
#: a statement sentence shorter than this says too little to be searched on its own
MIN_STATEMENT_UNITS = 5
#: statement passages of one episode, at most (the first ones said)
MAX_STATEMENTS = 12
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|im|my|mine|me|we|we're|we've|our|ours|us)\b"
                           r"|我|咱|俺", re.I)
_QUESTION = re.compile(r"[?\uff1f]\s*[)\"”]?\s*$|[吗呢吧]\s*[。.!！]?\s*$")
_REQUEST = re.compile(
    r"^\W*(?:(?:can|could|would|will) you|please|give me|tell me|show me|help me|let me know|"
    r"let's)\b|^\s*(?:请|帮我|给我|能不能|能否|麻烦|你能)", re.I)

# something of the user's named: my cat, our flat, 我的猫, 我家, 我妈
_POSSESSIVE = re.compile(r"\b(?:my|our|mine|ours)\b|我的|我们的|我家|我们家|我[爸妈哥姐弟妹儿女老]",
                         re.I)
_YOU = re.compile(r"\b(?:you|your|yours|you're|you've|you'd|you'll|u)\b|你|您", re.I)
# a sentence that sets the assistant a task, said as an order: "Explain the difference...",
# "Suggest a name...", 推荐三道素菜, 用通俗的话讲讲...
_TASK = re.compile(
    r"^\W*(?:(?:also|now|then|anyway|and|so|ok|okay|first|quick(?:ly)?)[\s,]+)*"
    r"(?:explain|write|rewrite|suggest|recommend|give|help|tell|show|list|summari[sz]e|draft|"
    r"compare|find|make|create|plan|translate|describe|outline|brainstorm|generate|check|fix|"
    r"review|proofread|edit|convert|calculate|name|teach|walk|remind|set|book|add|remove|"
    r"share|send|sort|organi[sz]e|format|design|come\s+up|think\s+of|put\s+together|"
    r"break\s+down|go\s+through|look\s+up|pick|choose|estimate|define|rank|rate|turn|"
    r"simplify|shorten|expand|polish|improve|correct|answer|read|draw|compose|prepare)\b"
    r"|^\W*(?:(?:言归正传|另外|还有|对了|顺便|那么|所以|然后|好了|好吧|总之)[，,\s]*)?(?:推荐|讲讲|讲一下|说说|说一下|解释|介绍|列出|列一下|写|翻译|总结|比较|分析|整理|生成|算一下|"
    r"查一下|看看|看一下|想想|想一个|起个|起一个|出个|出一个|设计|规划|安排|润色|改写|改一下|"
    r"用通俗|用简单|用一句话)", re.I)
_UNIT = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]|[^\s\u3400-\u4dbf\u4e00-\u9fff"
                   r"\uf900-\ufaff]+")
# a sentence ends after . ! ? (then space; a closing bracket or quote may follow them; not
# after Dr. Mr. Ms. Mrs. St. Prof.) or 。！？ (Chinese needs no space), or at a line end
SENTENCE_END = re.compile(r"(?:(?<=[.!?])(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bSt\.)(?<!Mrs\.)"
                          r"(?<!Prof\.)|(?<=[.!?][)\]\"'”’]))\s+|(?<=[。！？；])|\n+")


def first_person(text: str) -> bool:
    """Does ``text`` speak of the speaker themself (I, my, we, our, 我)?"""
    return _FIRST_PERSON.search(text) is not None


@dataclass(frozen=True, slots=True)
class Span:
    start: int
    end: int


def units(text: str) -> int:
    return len(_UNIT.findall(text))


def needs_passages(text: str) -> bool:
    """Whether one vector of ``text`` would leave part of it unread."""
    return units(text) > MAX_UNITS


def _sentences(text: str) -> list[Span]:
    """Spans of the sentences (and lines) of ``text``, whitespace between them left out."""
    out: list[Span] = []
    start = 0
    for m in SENTENCE_END.finditer(text):
        if m.start() > start or m.end() > m.start():
            if text[start:m.start()].strip():
                out.append(Span(start, m.start()))
            start = m.end()
    if text[start:].strip():
        out.append(Span(start, len(text)))
    return out


def _pieces(text: str, span: Span) -> list[Span]:
    """A sentence longer than a passage, cut every ``MAX_UNITS - OVERLAP_UNITS`` units."""
    found = [(m.start() + span.start, m.end() + span.start)
             for m in _UNIT.finditer(text[span.start:span.end])]
    step = MAX_UNITS - OVERLAP_UNITS
    out = []
    for i in range(0, len(found), step):
        chunk = found[i:i + MAX_UNITS]
        out.append(Span(chunk[0][0], chunk[-1][1]))
        if i + MAX_UNITS >= len(found):
            break
    return out


def _stated(said: str, short: bool) -> bool:
    """Whether a sentence states something of the speaker's: in the first person, or, in a
    ``short`` message (one that fits one vector: a chat line, not a pasted document), with
    the "I" left out as chat does ("Caught the 8:10 ferry to the office this morning",
    来厦门一个月了) -- then neither telling the assistant to do something nor speaking to or
    of "you". Never a question or a request."""
    if _QUESTION.search(said) or _REQUEST.search(said):
        return False
    if _FIRST_PERSON.search(said):
        return True
    return short and not _YOU.search(said) and not _TASK.search(said)


def states_anything(text: str) -> bool:
    """Does the user's message ``text`` tell anything of theirs: a sentence that is no
    question, no request and no task for the assistant (the "I" may be left out), or one
    that names something of the user's ("Can you recommend a vet for my cat Luna?")?
    "How do I get rid of fruit flies in the kitchen?" and "Help me plan a day out with two
    kids." tell nothing."""
    return _POSSESSIVE.search(text) is not None \
        or any(_stated(text[s.start:s.end], True) for s in _sentences(text))


def statements(text: str, user: bool = True) -> list[Span]:
    """The sentences of ``text`` in which the user states something about themself (module
    docstring); none when ``text`` is one sentence (its own vector is that sentence). Not
    ``user`` (an assistant's or a tool's turn): only sentences in the first person, as no
    "I" left out there is the user's."""
    sentences = _sentences(text)
    if len(sentences) < 2:
        return []
    out: list[Span] = []
    short = user and not needs_passages(text)
    for s in sentences:
        said = text[s.start:s.end]
        n = units(said)
        if n < MIN_STATEMENT_UNITS or n > MAX_UNITS or not _stated(said, short):
            continue
        out.append(s)
        if len(out) == MAX_STATEMENTS:
            break
    return out


def spans(text: str, user: bool = True) -> list[Span]:
    """Every passage of ``text``: its statement sentences, then its windows (``split``)."""
    said = statements(text, user)
    return said + [w for w in split(text) if w not in set(said)]


def split(text: str) -> list[Span]:
    """The windows of ``text``: whole sentences packed up to ``MAX_UNITS`` units, each after
    the first starting with the last sentences of the one before (up to ``OVERLAP_UNITS``).
    Empty when the text fits one vector."""
    if not needs_passages(text):
        return []
    sentences: list[tuple[Span, int]] = []
    for s in _sentences(text):
        n = units(text[s.start:s.end])
        if n > MAX_UNITS:
            sentences.extend((p, units(text[p.start:p.end])) for p in _pieces(text, s))
        else:
            sentences.append((s, n))
    passages: list[Span] = []
    i = 0
    while i < len(sentences):
        j, total = i, 0
        while j < len(sentences) and (j == i or total + sentences[j][1] <= MAX_UNITS):
            total += sentences[j][1]
            j += 1
        passages.append(Span(sentences[i][0].start, sentences[j - 1][0].end))
        if j >= len(sentences):
            break
        # step back over the last sentences (up to the overlap), never to where we began
        k, back = j, 0
        while k - 1 > i and back + sentences[k - 1][1] <= OVERLAP_UNITS:
            back += sentences[k - 1][1]
            k -= 1
        i = k
    return passages


def passage_id(episode_id: str, span: Span) -> str:
    return f"{episode_id}{SEPARATOR}{span.start}-{span.end}"


def parse_id(pid: str) -> tuple[str, Span] | None:
    """(episode id, span) of a passage id; None if it is not one."""
    episode_id, sep, rest = pid.rpartition(SEPARATOR)
    start, dash, end = rest.partition("-")
    if not (sep and dash and start.isdigit() and end.isdigit()):
        return None
    return episode_id, Span(int(start), int(end))


#: roles whose turns are not the user's own words
NOT_USER_ROLES = frozenset({"assistant", "system", "tool"})


def passage_writes(embed: Callable[[list[str]], list[list[float]]], model_id: str,
                   episodes: list[tuple[str, str, str, str | None]],
                   wanted: Callable[[str], bool] | None = None) -> dict[str, list[NodeWrite]]:
    """The passage nodes of each episode, embedded: ``episodes`` are (id, userId,
    content, role); a one-sentence episode that fits one vector gets none. ``wanted``: only
    the passages whose id it accepts (the ones a stored episode lacks)."""
    found = {eid: (user, content, [s for s in spans(content, role not in NOT_USER_ROLES)
                                   if wanted is None or wanted(passage_id(eid, s))])
             for eid, user, content, role in episodes}
    texts = [content[s.start:s.end] for _, content, ss in found.values() for s in ss]
    vectors = iter(embed(texts) if texts else [])
    out: dict[str, list[NodeWrite]] = {}
    for eid, (user, _, ss) in found.items():
        for s in ss:
            pid = passage_id(eid, s)
            out.setdefault(eid, []).append(NodeWrite(pid, {
                "id": pid, "userId": user, "episodeId": eid, "start": s.start, "end": s.end,
                "embeddingModel": model_id}, next(vectors)))
    return out


def with_passages(episode_hits: list[Hit], passage_hits: list[Hit],
                  k: int) -> tuple[list[Hit], dict[str, Span]]:
    """Episode vector hits with their passages' folded in: an episode scores its whole
    text's similarity or its best passage's, whichever is higher; the spans of the episodes
    a passage lifted (for the snippet). At most ``k`` hits, best first."""
    best = {h.id: h.score for h in episode_hits}
    spans: dict[str, Span] = {}
    for h in passage_hits:
        parsed = parse_id(h.id)
        if parsed is None:
            continue
        eid, span = parsed
        if h.score > best.get(eid, float("-inf")):
            best[eid] = h.score
            spans[eid] = span
    ranked = sorted(best.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
    kept = {eid for eid, _ in ranked}
    return [Hit(eid, score) for eid, score in ranked], \
        {eid: s for eid, s in spans.items() if eid in kept}


def snippet(content: str, span: Span | None) -> str | None:
    """The passage's text, or None without a span (or with one that does not fit)."""
    if span is None or not 0 <= span.start < span.end <= len(content):
        return None
    return content[span.start:span.end]
