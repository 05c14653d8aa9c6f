"""English phrase cutting for the rule extractor: where an object starts and stops.

Patterns match greedily to the end of a clause; these helpers cut the object out of that
tail. The noun-phrase walker stops at the first preposition, conjunction or time phrase but
never inside a known multi-word name ("Ruby on Rails", "Visual Studio Code"), keeps lists
together ("React, Vue and Svelte") and stops before a new clause ("…and I use Vim").
"""

from __future__ import annotations

import re

from graphmem.extract._dates import TIME_PHRASE_EN
from graphmem.extract._lexicon import lookup
from graphmem.extract._text import clean_edges

_PRONOUN_LIKE = frozenset(
    """it this that these those them him her you me us what which something anything
    everything nothing one ones there here so such myself yourself stuff things thing lot
    doing being not no way idea fact time times sound look looks feeling vibe vibes thought
    thoughts""".split()
)
_FILLER = frozenset(
    """too anymore really lol haha now though honestly again either also just very much more
    most best better well anyway yet still all tbh imo imho btw ngl entirely completely
    altogether totally fully""".split()
)
_DETERMINER = re.compile(r"^(?:the|a|an|my|our|some|any|both|either|using|to use)\s+", re.I)
_NP_STOP = frozenset(
    """because since but so when whenever which who that as over than instead rather to in on
    at from after before while if until every with for though although whereas unless except
    via by like during about of now anymore nowadays lately recently more most better best
    daily mostly honestly really either anyway yet again haha lol last next this yesterday
    today tomorrow ago where whose also too tbh imo imho btw ngl entirely completely altogether
    totally fully is was are were feels felt""".split()
)
# After "and" / "or" these start a new clause, not a list item: "I ditched Word and write
# everything in Docs now".
_CLAUSE_VERBS = frozenset(
    """write wrote use used go went do did make made read run ran work worked keep kept put
    switch switched start started move moved get got take took drink drank eat ate play
    played watch watched listen listened buy bought sold never always""".split()
)
_NP_STOP_PHRASES = re.compile(
    r"^(?:these days|a lot|so much|very much|as well|any more|any longer|all the time|every day|"
    r"at work|at home)\b",
    re.I,
)
_PRONOUN_START = re.compile(r"^(?:i|we|my|our|it|he|she|they|you|then|also|now|still)\b", re.I)
_TOKEN = re.compile(r"[^\s,;:()\"!?]+|[,;:()\"!?]")
LIST_SPLIT = re.compile(r"\s*(?:,|\band\b|\bor\b|&|\s\+\s|\bplus\b|\bas well as\b)\s*", re.I)
_VP_CUT = re.compile(
    r"\s*[,;:()\"!?]|\s+\b(?:because|since|so that|so|but|though|although|while|which|whereas|"
    r"unless|as soon as|by|and then|to\s+become|to\s+be\s+(?:an?|the|closer|near|with)|"
    r"to\s+focus\s+on|in\s+order\s+to)\b",
    re.I,
)
# "playing chess on weekends" -> "playing chess": when, not what.
_HABITUAL = re.compile(
    r"\s+\b(?:(?:on|at|in|during|over)\s+(?:the\s+)?(?:weekends?|mornings?|evenings?|nights?|"
    r"afternoons?|(?:mon|tues|wednes|thurs|fri|satur|sun)days?|holidays?|vacations?)|every\s+"
    r"(?:day|morning|evening|night|week|weekend|month|year)|(?:each|most)\s+(?:day|morning|evening|"
    r"weekend)s?)\b.*$",
    re.I,
)
# "renovate the kitchen in the autumn", "learn Portuguese before the move": when, not what.
_WHEN_TAIL = re.compile(
    r"\s+\b(?:in|by|during|over|before|after|around)\s+(?:the\s+)?(?:spring|summer|autumn|fall|"
    r"winter|new\s+year|holidays|move|trip|wedding|deadline|end\s+of\s+(?:the\s+)?\w+)\b.*$"
    # "gave up running after the knee surgery": when, not what
    r"|\s+\b(?:after|before|following)\s+(?:the|my|our|his|her|their|this|that)\s+.*$",
    re.I,
)
_ALWAYS_STRIP = re.compile(
    r"^(?:a lot of|lots of|plenty of|tons of|using|to use|working with|working in|coding in|"
    r"programming in|writing code in|"
    r"writing in|developing in|building with|building in|the)\s+",
    re.I,
)
_LEXICON_STRIP = re.compile(
    r"^(?:drinking|to drink|eating|to eat|playing|to play|writing|reading|watching|"
    r"listening to)\s+",
    re.I,
)
PLAN_CHATTER = frozenset(
    "know say thank thanks ask see check make clarify confirm mention add point tell share "
    "be sure go the a an my".split()
)


# --------------------------------------------------------------------------- objects


def _lex_at(tokens: list[re.Match[str]], i: int) -> int:
    """How many tokens from ``i`` form a known name (longest first), or 0."""
    for n in range(min(4, len(tokens) - i), 0, -1):
        words = [t.group(0) for t in tokens[i : i + n]]
        if any(not w[0].isalnum() and len(w) == 1 for w in words):
            continue
        if lookup(" ".join(words)) is not None:
            return n
    return 0


def noun_phrase(raw: str) -> tuple[str, int]:
    """The object at the start of ``raw`` and how many characters it covers."""
    tokens = list(_TOKEN.finditer(raw))
    end, i = 0, 0
    while i < len(tokens):
        tok = tokens[i]
        word = tok.group(0).lower().rstrip(".")
        n = _lex_at(tokens, i)
        if n:
            end, i = tokens[i + n - 1].end(), i + n
            continue
        rest = raw[tok.start() :]
        if word in (",", "and", "or", "&", "+", "plus"):
            nxt = raw[tok.end() :].lstrip()
            first = nxt.split(maxsplit=1)[0].lower() if nxt else ""
            if end == 0 or _PRONOUN_START.match(nxt) or not nxt or (
                    word in ("and", "or") and first in _CLAUSE_VERBS):
                break
            i += 1
            continue
        if not word or word in "; : ( ) \" ! ?".split() or word in _NP_STOP:
            break
        if _NP_STOP_PHRASES.match(rest) or TIME_PHRASE_EN.match(" " + rest):
            break
        end, i = tok.end(), i + 1
    return raw[:end], end


def verb_phrase(raw: str) -> tuple[str, int]:
    """A plan / cause clause at the start of ``raw`` (to the next clause or time phrase)."""
    # a time phrase first: "a while ago" would otherwise be cut at "while", leaving "a"
    t = TIME_PHRASE_EN.search(raw)
    cut = raw[: t.start()] if t else raw
    m = _VP_CUT.search(cut)
    cut = cut[: m.start()] if m else cut
    for regex in (TIME_PHRASE_EN, _HABITUAL, _WHEN_TAIL):
        t = regex.search(cut)
        cut = cut[: t.start()] if t else cut
    return cut, len(cut)


def tidy(text: str) -> str:
    """Drop leading articles / possessives and trailing filler ("the proxy", "Vim too")."""
    text = clean_edges(text)
    for _ in range(3):
        text = _DETERMINER.sub("", text)
        words = text.split()
        while words and words[-1].lower().strip(".,!") in _FILLER:
            words.pop()
        text = clean_edges(" ".join(words))
    return text


def valid(text: str, max_words: int) -> bool:
    """Worth keeping: not empty, not too long, not a pronoun or filler ("it", "that one")."""
    words = text.split()
    if not words or len(words) > max_words:
        return False
    if words[0].lower() in _PRONOUN_LIKE or all(w.lower() in _FILLER for w in words):
        return False
    return any(ch.isalnum() for ch in text)


def objects(raw: str, kind: str) -> tuple[list[str], int]:
    """Objects of a preference / tool / learning statement (a list splits) and the span."""
    lead = len(raw)
    raw = _ALWAYS_STRIP.sub("", raw.lstrip())
    offset = lead - len(raw)
    lex = _LEXICON_STRIP.match(raw)
    if lex:
        np, used = noun_phrase(raw[lex.end() :])
        if lookup(tidy(np)) is not None:
            return [tidy(np)], offset + lex.end() + used
    verbal = raw.lower().startswith(("to ", "how to ")) or (
        kind != "use" and re.match(r"^[a-z]+ing\b", raw) is not None and not lookup(raw.split()[0])
    )
    if verbal:
        body = re.sub(r"^(?:how\s+)?to\s+", "", raw, flags=re.I)
        vp, used = verb_phrase(body)
        text = tidy(vp)
        return ([text] if valid(text, 8) else []), offset + (len(raw) - len(body)) + used
    np, used = noun_phrase(raw)
    items = [tidy(p) for p in LIST_SPLIT.split(np)]
    return [p for p in items if valid(p, 5)], offset + used
