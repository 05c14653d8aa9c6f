"""More English patterns of the rule extractor: everyday ways of saying the same facts.

Preferences said indirectly ("I've come to really like X", "X has grown on me", "X is my
weakness", "I find X relaxing"), tools named in a list ("my daily tools are X, Y and Z",
"I track my runs with Strava"), moves said as a relocation ("we relocated to Austin",
"after moving to Denver, I joined…"), and "no more X for me". The rules are ``Rule``s read
by ``_english._apply`` like the others; the helpers below carry a subject across "and"
("I moved to Lisbon and joined Paylane") and read the "…, only Y now" that follows a stop.
"""

from __future__ import annotations

import re
from typing import Any

from graphmem.extract._lexicon import lookup
from graphmem.extract._text import Hit, Rule


def _rule(kind: str, pattern: str, **kw: Any) -> Rule:
    return Rule(kind, re.compile(pattern, re.I), **kw)


_O = r"(?P<obj>(?:[^.;!?]|\.(?=\w))+)"
_LEAD = r"(?:^|(?<=[,;:])\s*)"
_ADJ = r"(?:(?:really|so|very|incredibly|super|quite|pretty|oddly|surprisingly)\s+)?"

# Placed before the general rules of ``_english.RULES`` (earlier rules claim their span).
EARLY_RULES: list[Rule] = [
    _rule("stop_like", r"\bno\s+more\s+(?P<obj>[\w' -]{1,30}?)\s+for\s+me\b", subject="self"),
    _rule("works", r"\b(?:joined|started\s+at)\s+(?:an?\s+|the\s+)?(?:[\w-]+\s+){0,4}?(?:called|"
          r"named)\s+(?P<obj>(?-i:[A-Z])[^.;!?,]*)", self_only=True),
    # "just wrapped up my first week at Stripe": a new employer, said in passing
    _rule("works", r"\bmy\s+first\s+(?:full\s+)?(?:day|week|month|shift)\s+(?:at|with)\s+"
          r"(?P<obj>(?-i:[A-Z0-9])[\w&'.-]*(?:\s+(?-i:[A-Z0-9&])[\w&'.-]*){0,3})",
          subject="self"),
    # "we migrated all our tickets to Linear": what the user's things live in now (a name)
    _rule("now_use", r"\b(?:migrated|moved|ported|transferred)\s+(?:all\s+)?(?:of\s+)?(?:my|our)"
          r"\s+[\w-]+(?:\s+[\w-]+)?\s+(?:over\s+)?(?:to|into|onto)\s+"
          r"(?P<obj>(?-i:[A-Z])[^.;!?,]*)"),
    # "my new Kobo Libra arrived": a new thing of the user's, named
    _rule("use", r"\bmy\s+new\s+(?P<obj>(?-i:[A-Z]|i[A-Z])[\w-]*(?:\s+(?-i:[A-Z0-9])[\w-]*){0,3})"
          r"\s+(?:has\s+|finally\s+|just\s+)*(?:arrived|came|showed\s+up|got\s+delivered|is\s+here)\b",
          subject="self"),
    _rule("relocate", r"\b(?:after|since)\s+(?:moving|relocating)\s+(?:back\s+)?to\s+"
          r"(?P<obj>[^,;.!?]+?)(?=\s*,?\s+I\s)", subject="self"),
    _rule("relocate", r"\b(?:relocated|relocating|relocate)\s+(?:back\s+)?to\s+" + _O),
    _rule("use", r"\bmy\s+(?:[\w-]+\s+){0,2}?(?:tools|apps|setup|toolkit|toolchain|stack|kit|"
          r"workflow)\s+(?:is|are|includes?|consists\s+of)\s+[^:.;!?]{0,30}:\s*" + _O,
          subject="self"),
    _rule("use", r"\bmy\s+(?:[\w-]+\s+){0,2}?(?:tools|apps|toolkit|toolchain)\s+(?:are|include|"
          r"consist\s+of)\s+" + _O, subject="self"),
    _rule("use", r"\b(?:track|manage|plan|edit|organi[sz]e|log|record|schedule|keep|do|handle|"
          r"sync|store|write|take)\s+(?:all\s+|most\s+)?(?:of\s+)?my\s+[\w ]{1,25}?\s+(?:with|"
          r"using|in|on|via|through)\s+" + _O, extra={"check": "tool_list"}),
    _rule("like", _LEAD + r"(?P<obj>[\w' -]{1,40}?)\s+(?:has|have)\s+(?:really\s+|kind\s+of\s+|"
          r"slowly\s+|totally\s+|definitely\s+)?grown\s+on\s+me\b", subject="self"),
    _rule("like", _LEAD + r"(?P<obj>[\w' -]{1,30}?)\s+(?:is|are)\s+my\s+(?:(?:biggest|greatest|"
          r"secret|real|one|true)\s+)?(?:weakness|guilty\s+pleasure|comfort\s+food|passion)\b",
          subject="self"),
    _rule("like", r"\bfind\s+(?P<obj>[\w' -]{1,30}?)\s+" + _ADJ + r"(?:relaxing|fun|enjoyable|"
          r"calming|satisfying|fascinating|therapeutic|rewarding|soothing|addictive)\b"),
    _rule("like", r"\b(?:grown|grew|become|became|getting|gotten)\s+" + _ADJ + r"(?:fond\s+of|"
          r"into|hooked\s+on|attached\s+to|obsessed\s+with)\s+" + _O),
    _rule("like", r"\b(?:cannot|can\s+not)\s+get\s+enough\s+of\s+" + _O),
    _rule("like", r"\b(?:have|has)\s+(?:a\s+)?(?:soft\s+spot|weakness)\s+for\s+" + _O),
]

_CARRY_BREAK = re.compile(r"(?:\band|\bthen|\bbut|,)\s*$", re.I)
_FIRST_PERSON_CLAUSE = re.compile(
    r"^\s*(?:[A-Za-z]+\s+){0,3}?(?P<who>I|[Ww]e)\s+(?!think\b|guess\b|heard\b|hear\b|"
    r"believe\b|wonder\b|was\s+told\b|am\s+told\b|doubt\b)",
)
_BREAK = re.compile(r"[;:()\"—–]|\b(?:but|so|because|although|though|while|whereas)\b", re.I)


def carried_subject(prefix: str, clause: str) -> str | None:
    """The subject a verb with none of its own carries over from a first-person clause:
    "I moved to Lisbon and joined Paylane" (the "I" of "moved" also joined: ``"self"``; "I'm
    from Ohio but live in NYC" lives there),
    "we sold the house and moved to Devon" (``"project"``: "we"); None when there is none."""
    head = prefix[: len(prefix) - len(clause)] if clause and prefix.endswith(clause) else prefix
    if not _CARRY_BREAK.search(head):
        return None
    before = re.split(r"\b(?:and|then|but)\s*$|,\s*$", head.rstrip(), flags=re.I)[0]
    previous = re.split(r",", _BREAK.split(before)[-1])[-1]
    m = _FIRST_PERSON_CLAUSE.match(previous)
    if not m:
        return None
    return "self" if m.group("who") == "I" else "project"


_ONLY_NOW = re.compile(
    r"(?:,|;|\bbut\b)\s*(?:(?:and|but)\s+)?(?:I\s+)?(?:now\s+)?(?:only|just)\s+(?:use\s+|drink\s+|"
    r"eat\s+|play\s+|listen\s+to\s+|have\s+)?(?P<obj>[\w.+# '-]{1,30}?)\s*(?:now|these\s+days|"
    r"nowadays)?\s*[.!]?$",
    re.I,
)
_AFTER_STOP = {"stop_use": "now_use", "stop_like": "like", "stop_either": "now_use"}


def only_now(text: str, found: list[tuple[int, int, list[Hit]]]) -> list[Hit]:
    """The "…, only Y now" after a stop: "I don't use Windows anymore, just Linux now"."""
    stops = [h for _, _, hs in found for h in hs if h.kind in _AFTER_STOP]
    if not stops:
        return []
    m = _ONLY_NOW.search(text)
    last_end = max(e for _, e, _ in found)
    if not m or m.start() < last_end - 1:
        return []
    obj = re.sub(r"^(?:the|a|an|some)\s+", "", m.group("obj").strip(), flags=re.I)
    if not obj or obj.lower() in ("that", "this", "it", "one", "once", "me"):
        return []
    h = stops[-1]
    kind = _AFTER_STOP[h.kind]
    if h.kind == "stop_either" and re.search(r"\b(?:drink|eat|listen)\b", m.group(0), re.I):
        kind = "like"  # "I cut out Coke, I only drink water now": a taste, not a tool
    return [Hit(kind, h.subject, obj, confidence=h.confidence, group=h.group)]


_TIMEY = re.compile(
    r"^(?:weekends?|mornings?|evenings?|nights?|(?:mon|tues|wednes|thurs|fri|satur|sun)days?|"
    r"the\s+(?:weekend|morning|evening|side)|my\s+\w+|paper|my\s+head|english|chinese)$",
    re.I,
)


def tool_list_ok(item: str, first: bool = True) -> bool:
    """An item of "I track my runs with X" that names a tool, not a time or a language; after
    the first, a name, not the clause the list runs into ("... in Obsidian and sync the vault
    between laptop and phone")."""
    s = item.strip()
    named = s[:1].isupper() or s[:1].isdigit() or re.match(r"[a-z]{1,3}[A-Z]", s) is not None
    return not _TIMEY.match(s) and (
        (first and len(s.split()) <= 3) or named or lookup(s) is not None)


_ON_PLATFORM = re.compile(r"^\s+(?:on|in)\s+(?P<x>[A-Za-z][\w.+#-]*(?:\s+[A-Z][\w.+#-]*)?)")


def platform_after(tail: str) -> str | None:
    """The platform after a tool: "deploy everything to Kubernetes on AWS" -> "AWS"."""
    m = _ON_PLATFORM.match(tail)
    return m.group("x") if m else None
