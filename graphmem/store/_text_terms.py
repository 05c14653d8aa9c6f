"""What the full-text index holds of a text, and what a search looks for: its terms.

One analysis for stored texts and for questions, so a question's term is found exactly
where the same word was stored:

* English (and other space-separated) words are case-folded, function words dropped, and
  stemmed with the Snowball English stemmer ("runs", "running" -> ``run``);
* Chinese and Japanese runs, written without spaces, are segmented with jieba (the
  ``rjieba`` binding: a 3.7 MB wheel with its dictionary inside, ~0.13 s to import, on
  first use) in search mode, which also yields the shorter words inside a long one
  (阿里巴巴 -> 阿里, 巴巴, 阿里巴巴), plus the single characters of each word; common
  particles and pronouns are dropped. In a question, such a character of a longer word
  counts for a quarter of a term (``query_weights``): it stands in for a word cut another
  way in the memory, and at full weight long messages outrank the one naming the word.

Every node's analysed text is stored space-joined in its ``terms`` property, which is what
the full-text indexes cover; the stores rank by Okapi BM25 over those terms
(``graphmem.store._fulltext``). ``ANALYZER_VERSION`` names this analysis: a store whose
terms were made by another version makes them again.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

#: Bumped whenever ``terms`` of the same text would change.
ANALYZER_VERSION = 1

#: The text fields whose words a label's terms hold (what its full-text index covered).
TEXT_FIELDS: dict[str, tuple[str, ...]] = {
    "Episode": ("content",), "Entity": ("name", "summary"), "Relation": ("statement",),
    "Abstraction": ("conclusion",)}

#: The most distinct terms one search looks for.
MAX_QUERY_TERMS = 32

# Runs of Han characters and kana (segmented), else runs of letters and digits.
_CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN = re.compile(rf"([{_CJK}]+)|((?:(?![{_CJK}])[^\W_])+)")
_CJK_CHAR = re.compile(f"[{_CJK}]")

# English function words (the usual Snowball list, plus contraction remnants).
_EN_STOP = frozenset("""
a about above after again against all am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further
had has have having he her here hers herself him himself his how i if in into is it its
itself just me more most my myself no nor not now of off on once only or other ought our
ours ourselves out over own same she should so some such than that the their theirs them
themselves then there these they this those through to too under until up very was we were
what when where which while who whom why will with would you your yours yourself yourselves
s t d ll m re ve don doesn didn isn wasn aren weren won wouldn shouldn couldn
""".split())

# Chinese particles, pronouns and copulas that carry no topic.
_ZH_STOP = frozenset("""
的 了 着 过 是 在 和 与 及 或 也 都 就 还 又 很 吗 呢 吧 啊 呀 哦 嗯 么 之 其 这 那 这个 那个
这些 那些 我 你 您 他 她 它 我们 你们 他们 她们 它们 自己 有 没 没有 不 一个 个 被 把 给 让
对 从 向 跟 吗 什么 怎么 哪 哪里 哪儿 为什么 谁 多少 几
""".split())


@cache
def _stemmer() -> Any:
    import snowballstemmer

    return snowballstemmer.stemmer("english")


@cache
def _stem(word: str) -> str:
    return str(_stemmer().stemWord(word))


def stem(word: str) -> str:
    """The Snowball English stem of one lower-case word ("gaming" -> "game")."""
    return _stem(word)


def words(text: str) -> tuple[str, ...]:
    """jieba's words of ``text`` (accurate mode, the HMM guessing unknown words), in order:
    joined, they give ``text`` back. The rule extractor cuts Chinese objects on these
    boundaries, so the index and the extractor see the same words."""
    import rjieba

    return tuple(rjieba.cut(text))


def tagged(text: str) -> tuple[tuple[str, str], ...]:
    """``words`` with jieba's part-of-speech tags (``t`` a time word, ``v`` a verb...)."""
    import rjieba

    return tuple(rjieba.tag(text))


def _segment(run: str) -> list[str]:
    """Search-mode words, then the single characters of every word of two or more: a
    question's 猫 then finds 橘猫, and a word jieba cuts one way in the question and another
    in the memory (猫叫 / 橘猫，叫) still meets it character by character."""
    import rjieba

    found = [w for w in rjieba.cut_for_search(run) if w.strip()]
    return found + [ch for w in words(run) if len(w) > 1 for ch in w]


def analyse(text: str) -> list[str]:
    """The terms of ``text`` in order, repeats kept (they count as term frequency)."""
    out: list[str] = []
    for m in _TOKEN.finditer(text):
        if m[1]:
            out.extend(w for w in _segment(m[1]) if w not in _ZH_STOP and _TOKEN.fullmatch(w))
            continue
        word = m[2].casefold()
        if word in _EN_STOP:
            continue
        out.append(_stem(word) if word.isalpha() else word)
    return out


def index_terms(text: str) -> str:
    """What a node stores in ``terms``: its analysed text, space-joined."""
    return " ".join(analyse(text))


def query_terms(text: str) -> list[str]:
    """The distinct terms a search for ``text`` looks for (at most ``MAX_QUERY_TERMS``)."""
    return list(dict.fromkeys(analyse(text)))[:MAX_QUERY_TERMS]


#: what a single Chinese character of a question's longer word counts for, against the
#: word: it only stands in for a word cut another way in the memory (上级 -> 上, 级), and
#: at full weight every long message with 上周 or 级别 in it outranks the one naming 上级.
#: Chosen on dev: single-user corpus seed 1, Chinese (long requests with a fact in
#: passing), R@10 .830 / .853 / .888 / .886 / .829 at 1 / .5 / .25 / .1 / 0, update .78 ->
#: .84, both sides of a contradiction .60 -> 1.00 at .25; zh-dev short turns R@10 .972 at
#: both, MRR .813 -> .820; the update dev splits lost one Chinese change of 36
CHAR_WEIGHT = 0.25


def query_weights(text: str, terms: list[str] | None = None) -> dict[str, float]:
    """How much each of ``text``'s query terms (``terms`` when already analysed) counts: 1,
    but ``CHAR_WEIGHT`` for a single character that is no word of its own in the question,
    only a piece of a longer one."""
    terms = query_terms(text) if terms is None else terms
    singles = {t for t in terms if len(t) == 1 and _CJK_CHAR.match(t)}
    own: set[str] = set()
    if singles:  # only a Chinese question is segmented again
        import rjieba

        own = {w for m in _TOKEN.finditer(text) if m[1] for w in rjieba.cut_for_search(m[1])}
    return {t: CHAR_WEIGHT if t in singles and t not in own else 1.0 for t in terms}


def node_text(label: str, props: dict[str, Any]) -> str | None:
    """The text a ``label`` node's terms come from; None if ``props`` hold none of it."""
    fields = TEXT_FIELDS.get(label, ())
    if not any(f in props for f in fields):
        return None
    return " ".join(str(props.get(f) or "") for f in fields)


def complete_text(label: str, props: dict[str, Any]) -> bool:
    """Do ``props`` hold every text field of ``label`` (so its terms can be made anew)?"""
    fields = TEXT_FIELDS.get(label, ())
    return bool(fields) and all(f in props for f in fields)
