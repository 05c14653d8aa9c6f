"""Corrections: a message that takes back a value the user gave before supersedes the message
that gave it.

"Correction from the other week - I told you the Striders meet on Tuesdays. I got that
wrong, it's Thursdays." and 更正一下，我上次说打球是周二，其实是周四晚上 say outright that an
earlier message was wrong, and which value it gave. The version rules (``_version_rules``)
look for a new value of an attribute the two messages share in words; a correction often
shares no attribute word with what it corrects ("the Striders meet on Tuesdays" corrects
"They do a group run on Tuesday evenings"), and it names the old value itself, which to
those rules reads as the same value said again.

``corrected(text)`` finds the values a message takes back: only in a message that says it
corrects something (correction, got that wrong, 更正, 说错了, 记错了...), the value after
"not" / 不是 ("Wednesdays, not Tuesdays", 不是周六上午，是周日下午) or the one the user says
they said ("I told you the Striders meet on Tuesdays", 我上次说打球是周二，其实是...).
``mentions(text, value)`` says whether an earlier message gave that value: a weekday in any
of its forms (Tuesdays, 周二, 星期二, 礼拜二), the numbers it holds, else its words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphmem._timestamps import CN_WEEKDAY_CHARS, WEEKDAYS

# saying that something told before was wrong
_WRONG = re.compile(
    r"(?i)\bcorrection\b|\bcorrect(?:ing)? (?:myself|something|what I)\b|"
    r"\bgot (?:that|it|this|them) (?:wrong|backwards|mixed up)\b|\bI was wrong\b|"
    r"\bI misspoke\b|\bmix(?:ed|ing)? (?:them|it|those|the two) up\b|"
    r"\b(?:need|have|want) to fix something I (?:told|said)\b|"
    r"更正|说错了|记错了|搞错了|弄错了|口误|记混了|搞混了|弄混了|看串了|记串了")
# asking the assistant to correct a text is no correction of the user's own words
_ASKS_TO_CORRECT = re.compile(
    r"(?i)\b(?:can|could|would|will)\s+you\b[^.?!]{0,40}\bcorrect|\bplease\s+(?:make\s+a\s+)?"
    r"correct|(?:帮我|请|麻烦你?)(?:改正|更正|纠正)")
# a clause about the mistake itself (说错了, 记混了), not a value
_SAYS_WRONG_ZH = re.compile(r"错|混|串")
_WEEKDAY_EN = re.compile(r"(?i)\b(mon|tues|wednes|thurs|fri|satur|sun)days?\b")
_WEEKDAY_ZH = re.compile(f"(?:周|星期|礼拜)([{CN_WEEKDAY_CHARS}])")
_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")
# a value word of English: a capitalised word or a number (weekdays, months, names, times)
_WORD = r"(?!I\b|I['’])(?:[A-Z][\w'’&-]*|\d[\w:.'’-]*(?:,\d{3})*)"
_VALUE_EN = rf"{_WORD}(?:\s+(?:{_WORD}|at\s+\d[\w:]*)){{0,2}}"
_TAKEN_BACK = [
    # "my shift is Wednesdays, not Tuesdays"; "not the 13th but the 19th"
    re.compile(rf"\bnot\s+(?:on\s+|at\s+|in\s+|the\s+)?(?P<old>{_VALUE_EN})"),
    # "I told you the Striders meet on Tuesdays", "I said Spanish was on Tuesdays"
    re.compile(rf"\bI\s+(?:said|told\s+you|mentioned|wrote|put)\b[^.!?;:]{{0,80}}?\b"
               rf"(?:is|was|are|were|meets?|on|at|in)\s+(?:on\s+|at\s+|in\s+|the\s+)?"
               rf"(?P<old>{_VALUE_EN})"),
    # 不是周六上午，是周日下午; 是4月19号不是13号
    re.compile(r"(?<!是)不是(?P<old>[^，,。！？!?；;、\s]{1,10})"),
    # 我上次说打球是周二，其实是周四; 之前说定投每月两千，我记错了
    re.compile(r"(?:上次|之前|以前|前面|那天|上回)(?:跟你)?说(?:的|过)?(?:[^，,。！？；]{0,12}?是)?"
               r"(?P<old>[^，,。！？!?；;、\s]{1,10})[，,]"),
]
# what the message says holds instead: "it's actually Thursdays", 其实是周四
_INSTEAD = re.compile(rf"\b(?:[Ii]t'?s|[Ii]t\s+is|[Tt]hey'?re|actually)\s+(?:actually\s+)?"
                      rf"(?:on\s+|at\s+|the\s+)?(?P<new>{_VALUE_EN})"
                      r"|其实是(?P<zh>[^，,。！？!?；;、\s]{1,12})")


@dataclass(frozen=True, slots=True)
class Correction:
    old: str  # the value taken back, as the message says it
    new: str  # what holds instead, when the message says it ("" else)

    @property
    def reason(self) -> str:
        return f"corrected: {self.old} -> {self.new}" if self.new else f"corrected: {self.old}"


def corrected(text: str) -> list[Correction]:
    """The values ``text`` takes back (module docstring); none unless it says it corrects
    something it said before."""
    if not _WRONG.search(text) or _ASKS_TO_CORRECT.search(text):
        return []
    instead = _INSTEAD.search(text)
    new = (instead["new"] or instead["zh"] or "").strip() if instead else ""
    out: dict[str, Correction] = {}
    for rx in _TAKEN_BACK:
        for m in rx.finditer(text):
            old = m["old"].strip(" .,'’")
            if old and old.casefold() != new.casefold() and _keys(old) \
                    and not _SAYS_WRONG_ZH.search(old):
                out.setdefault(old.casefold(), Correction(old, new))
    return list(out.values())


def mentions(text: str, value: str) -> bool:
    """Does ``text`` give ``value`` (a weekday in any form, its numbers, else its words)?"""
    want = _keys(value)
    return bool(want) and want <= _keys(text, among=want)


def _keys(text: str, among: frozenset[str] | None = None) -> frozenset[str]:
    """What identifies a value: its weekdays (``wd:1``) and numbers; a value with neither
    is its own case-folded text (looked for as a substring when ``among`` names it)."""
    keys = {f"wd:{WEEKDAYS.index(m[1].lower() + 'day')}" for m in _WEEKDAY_EN.finditer(text)}
    # 周日 and 周天 are both Sunday
    keys |= {f"wd:{min(CN_WEEKDAY_CHARS.index(m[1]), 6)}" for m in _WEEKDAY_ZH.finditer(text)}
    keys |= {f"n:{n}" for n in _NUMBER.findall(text)}
    if among is None:
        return frozenset(keys) if keys else frozenset({f"t:{text.casefold()}"}) \
            if len(text) >= 2 else frozenset()
    folded = text.casefold()
    keys |= {k for k in among if k.startswith("t:") and k[2:] in folded}
    return frozenset(keys)
