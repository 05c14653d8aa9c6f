"""Shared pieces of the rule extractor: the ``Hit`` a pattern yields, the ``Rule`` record, and
sentence splitting.

A hit is still language-level ("self likes vue"); ``rules.py`` turns it into relations with
the lexicon (predicate, category, exclusivity) and the message context (subject name, time).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import lru_cache

from graphmem.store import _text_terms

# Kinds a pattern can report. The ``stop_*`` kinds end something (``stop_either``: a taste or
# a tool, whichever it was); ``switch`` / ``move_from`` / ``works_switch`` carry two objects
# (from ``obj`` to ``obj2``); ``split`` ends a partner (obj2: the kin when said),
# ``pet_gone`` a pet, ``stop_job`` the current employer and ``retire`` the current employer
# and role (both named by no object).
KINDS = frozenset(
    {
        "like", "dislike", "stop_like", "use", "now_use", "stop_use", "switch",
        "name", "lives", "stop_lives", "move", "move_from", "works", "stop_works",
        "works_switch", "role", "stop_role", "plan", "goal", "learning", "stop_learning",
        "failed", "requires", "allergy", "family", "pet", "learned", "relocate",
        "stop_either", "split", "pet_gone", "stop_job", "retire",
    }
)


@dataclass(frozen=True, slots=True)
class Hit:
    """One statement a pattern found in a sentence.

    ``subject`` is ``"self"`` (the speaker), ``"project"``, or a literal subject (lessons).
    ``group`` ties the items of one list together ("I use Python, Go and Rust") so the
    engine can tell several simultaneous choices from a single one. ``when_text`` is the part
    of the sentence a stated time would belong to (see ``attach_when``).
    """

    kind: str
    subject: str
    obj: str
    obj2: str = ""
    confidence: float = 0.9
    domain_hint: str | None = None
    group: int = 0
    when_text: str = ""


@dataclass(frozen=True, slots=True)
class Rule:
    """A pattern and how to read it.

    ``subject``: ``"prefix"`` reads the words before the match (and must find a first-person
    or project subject there), ``"self"`` means the pattern itself is first-person ("my name
    is"), ``"group"`` takes the subject from the ``subj`` group (lessons).
    """

    kind: str
    regex: re.Pattern[str]
    subject: str = "prefix"
    self_only: bool = False
    confidence: float = 0.9
    lexicon_only: bool = False
    extra: dict[str, str] = field(default_factory=dict)


class Spans:
    """Character spans already claimed by an earlier (more specific) rule in a sentence."""

    def __init__(self) -> None:
        self._spans: list[tuple[int, int]] = []

    def free(self, start: int, end: int) -> bool:
        return all(end <= s or start >= e for s, e in self._spans)

    def take(self, start: int, end: int) -> None:
        if end > start:  # an empty span claims nothing
            self._spans.append((start, end))


def scan(rules: list[Rule], text: str) -> Iterator[tuple[Rule, re.Match[str]]]:
    """Every match of every rule, in rule order, including matches that start inside an
    earlier one: objects are matched greedily to the clause end and cut afterwards, so
    ``finditer`` would hide the second verb of "I used to love X but now I prefer Y".
    """
    for rule in rules:
        pos = 0
        while (m := rule.regex.search(text, pos)) is not None:
            yield rule, m
            pos = m.start() + 1


_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
#: the common Chinese family names (a name said after a kin word, 我妹妹王雪; a person named
#: by surname and title, 李医生)
SURNAMES_ZH = ("王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余"
               "杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙"
               "史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤")
# Sentence ends: English .!? followed by space or end (so "Node.js" and "3.12" stay whole),
# Chinese 。！？；and newlines always. The punctuation stays with its sentence: question
# detection needs it.
_SPLIT = re.compile(r"(?<=[.!?])(?<!\bSt\.)(?<!\bDr\.)(?<!\bMt\.)(?<!\bMr\.)(?<!\bMs\.)"
                    r"(?<!\bMrs\.)\s+|(?<=[。！？；;])|\n+|(?<=[!?])(?=[\u3400-\u9fff])")


def has_cjk(text: str) -> bool:
    """Whether ``text`` contains Chinese characters (then the Chinese patterns apply)."""
    return bool(_CJK.search(text))


def someone_else_helps(request: str, before: str) -> bool:
    """Is the request word ``request`` (帮我, 帮忙), after ``before`` in its clause, someone
    else's help rather than a request to the assistant (他周末可以开车帮我去宜家拉书架)?"""
    return request in ("帮我", "帮忙") and re.search(r"[他她]", before) is not None


MAX_SENTENCE = 400


def _chunks(sentence: str) -> list[str]:
    # Matching is roughly quadratic in sentence length; a run-on "sentence" (a pasted log,
    # text without punctuation) is cut at a comma or space so the cost stays linear overall.
    out = []
    while len(sentence) > MAX_SENTENCE:
        window = sentence[:MAX_SENTENCE]
        cut = max(window.rfind(","), window.rfind("，"), window.rfind(" "))
        cut = cut + 1 if cut > MAX_SENTENCE // 2 else MAX_SENTENCE
        out.append(sentence[:cut])
        sentence = sentence[cut:]
    return [*out, sentence]


def split_sentences(text: str) -> list[str]:
    """Sentences of a message, stripped, empty ones dropped; run-ons cut into pieces."""
    return [c.strip() for s in _SPLIT.split(text) if s for c in _chunks(s) if c.strip()]


def clean_edges(text: str) -> str:
    """Trim whitespace, quotes and trailing punctuation off an extracted phrase."""
    text = text.strip().strip("\"'“”‘’「」『』《》()（）[]").strip()
    return text.rstrip(".,!?;:。，！？；：、~～").strip()


@lru_cache(maxsize=4096)
def words(text: str) -> tuple[str, ...]:
    """jieba's words of ``text``, as the full-text index cuts them (short texts: cached)."""
    return _text_terms.words(text)


@lru_cache(maxsize=4096)
def tagged(text: str) -> tuple[tuple[str, str], ...]:
    """jieba's words of ``text`` with their part-of-speech tags (``t`` a time word...)."""
    return _text_terms.tagged(text)


@lru_cache(maxsize=4096)
def word_bounds(text: str) -> frozenset[int]:
    """The offsets in ``text`` where a jieba word starts or ends (0 and ``len(text)``
    included): a Chinese object is cut only there, so 协和医院 keeps its 和 and 比亚迪 its 比."""
    out, i = {0}, 0
    for w in words(text):
        i += len(w)
        out.add(i)
    if i != len(text):  # the segmenter lost or added text: every offset is a boundary
        return frozenset(range(len(text) + 1))
    return frozenset(out)


def noun_at(text: str, start: int) -> bool:
    """Whether the jieba word that starts at ``start`` is a noun (比赛, 比亚迪: no cut there)."""
    i = 0
    for w, tag in tagged(text):
        if i == start:
            return tag.startswith("n") or tag in ("vn", "eng", "l", "i", "j")
        i += len(w)
        if i > start:
            return False
    return False


def cut_at_words(regex: re.Pattern[str], text: str) -> re.Match[str] | None:
    """The first match of ``regex`` that starts on a word boundary of ``text`` and either
    ends on one or starts a word that is no noun (比起 cuts, 比赛 does not)."""
    bounds = word_bounds(text) if has_cjk(text) else None
    for m in regex.finditer(text):
        if bounds is None or (m.start() in bounds and (
                m.end() in bounds or not noun_at(text, m.start()))):
            return m
    return None


def split_at_words(regex: re.Pattern[str], text: str,
                   no_item: re.Pattern[str] | None = None) -> list[str]:
    """``regex.split`` at separators that are words of their own (和 in 猫和狗, not in
    协和医院 or 和平里); with ``no_item``, not after a part that it matches whole (nothing,
    or a bare verb: 和 is then a preposition or part of a name, as in 和声学, 吃和牛)."""
    if not has_cjk(text):
        return regex.split(text)
    bounds = word_bounds(text)
    parts, last = [], 0
    for m in regex.finditer(text):
        core = m.group(0).strip()
        start = m.start() + m.group(0).index(core) if core else m.start()
        if core and not (start in bounds and start + len(core) in bounds):
            continue
        if no_item is not None and no_item.fullmatch(text[last : m.start()].strip()):
            continue
        parts.append(text[last : m.start()])
        last = m.end()
    return [*parts, text[last:]]


# Someone other than the speaker in a Chinese clause, for the passes that must not take their
# facts for the speaker's: people around one, and (``kin``) relatives, and (``you``) the one
# spoken to and people at large.
_PEOPLE_ZH = "他|她|朋友|同事|邻居|同学|室友|老板|领导"
_RELATIVES_ZH = ("儿子|女儿|孩子|老公|老婆|爸|妈|哥|姐|弟|妹|爷爷|奶奶|外公|外婆|姥姥|姥爷|"
                 "男朋友|女朋友")


def someone_else_zh(*, kin: bool, you: bool = False) -> re.Pattern[str]:
    """A pattern for someone other than the speaker in Chinese text (see above)."""
    return re.compile("|".join(
        [*(["你|您"] if you else []), _PEOPLE_ZH, *([_RELATIVES_ZH] if kin else []),
         *(["大家|别人"] if you else [])]))


_CLAUSE_END = re.compile(r"[,;，；]")
_NOW = re.compile(r"现在|如今|目前|\b(?:now|nowadays|these\s+days)\b", re.I)


def already_named(found: list[tuple[int, int, list[Hit]]], name: str, *,
                  second_too: bool = False) -> bool:
    """Whether a hit of ``found`` names ``name``, in the same words or in more or fewer (one
    inside the other, case ignored): a pass adds nothing a rule has read. ``second_too``: a
    hit's second name (a switch's new value, a pet's species) counts as well."""
    low = name.casefold()
    for _, _, hits in found:
        for h in hits:
            for said in (h.obj, h.obj2) if second_too else (h.obj,):
                s = said.casefold()
                if s and (low in s or s in low):
                    return True
    return False


def add_passes(text: str, found: list[tuple[int, int, list[Hit]]],
               passes: Iterable[Callable[[str, list[tuple[int, int, list[Hit]]]], list[Hit]]],
               ) -> None:
    """Run the last passes of a sentence (what is said in passing) one after the other, each
    seeing what the rules and the passes before it found, and add their hits to ``found``
    (claiming no span)."""
    for run in passes:
        hits = run(text, found)
        if hits:
            found.append((len(text), len(text), hits))


def attach_when(text: str, found: list[tuple[int, int, list[Hit]]], hedged: bool) -> list[Hit]:
    """Give each hit the stretch of ``text`` its time phrase would sit in, cap hedged ones.

    That is from the end of the previous statement to the end of the hit's own clause: in
    "Since 2019, I have lived in Berlin" the leading phrase belongs to the statement, while in
    "我叫李明，今年三十岁" 今年 does not belong to the name.
    """
    out: list[Hit] = []
    for start, end, hits in found:
        prev = max((e for s, e, _ in found if e <= start), default=0)
        m = _CLAUSE_END.search(text, end)
        segment = text[prev : m.start() if m else len(text)]
        own = text[max((b.end() for b in _CLAUSE_END.finditer(text, prev, start)), default=prev)
                   : m.start() if m else len(text)]
        if own != segment and _NOW.search(own):
            # "在四川待了两年，我现在无辣不欢": the stay's two years are not the taste's
            segment = own
        for h in hits:
            conf = min(h.confidence, 0.65) if hedged else h.confidence
            out.append(replace(h, when_text=segment, confidence=conf))
    return out
