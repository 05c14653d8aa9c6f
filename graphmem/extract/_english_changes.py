"""English ways of saying that something changed, and facts said without their usual noun.

Endings: a last day at work ("my final day at Stripe"), a notice handed in, a break-up
("Sophie and I split up"), a pet that died or was rehomed, a habit or taste given up ("I
quit smoking", "I cut out Coke", "I've moved on from VS Code"). New values that only make
sense after such an ending: "…, it's Zed now", "…; I'm at Notion now". A role said as a
verb ("I teach chemistry" -> chemistry teacher) and a thing named before the pronoun that
stands for it ("Penicillin gives me a rash, I'm allergic to it").

The rules are ``Rule``s read by ``_english._apply`` like the others; the finders return
``(start, end, hits)`` like ``_personal.find_en``.
"""

from __future__ import annotations

import re
from typing import Any

from graphmem.extract._lexicon import lookup
from graphmem.extract._personal import KIN_EN, SPECIES_EN
from graphmem.extract._text import Hit, Rule, clean_edges
from graphmem.model import CURRENT_OBJECT

Found = list[tuple[int, int, list[Hit]]]


def _rule(kind: str, pattern: str, **kw: Any) -> Rule:
    return Rule(kind, re.compile(pattern, re.I), **kw)


_O = r"(?P<obj>(?:[^.;!?]|\.(?=\w))+)"
# An organisation as written: capitalised words ("Riverside Primary", "St. Mary's").
_ORG = r"(?P<obj>(?-i:[A-Z0-9])[\w&'.-]*(?:\s+(?-i:[A-Z0-9&])[\w&'.-]*){0,3})"
_EDITORISH = (r"(?:editor|text\s+editor|code\s+editor|ide|browser|web\s+browser|os|daily\s+driver|"
              r"operating\s+system|shell|terminal|phone|laptop|database|db|notes?\s+app|"
              r"note-taking\s+app|password\s+manager|email\s+client|distro|"
              r"(?:running\s+|smart\s*|fitness\s+)?watch|e-?reader)")

# Placed before the general rules of ``_english.RULES`` (earlier rules claim their span).
CHANGE_RULES: list[Rule] = [
    # work endings and beginnings said without "work at"
    _rule("stop_works", r"\b(?P<who>my)\s+(?:very\s+)?(?:last|final)\s+(?:day|shift|week)\s+"
          r"(?:at|with)\s+" + _ORG, subject="self"),
    # a chat in lower case: "friday was my last day at shopify lol"
    _rule("stop_works", r"\b(?P<who>my)\s+(?:very\s+)?(?:last|final)\s+(?:day|shift|week)\s+"
          r"(?:at|with)\s+(?P<obj>[a-z][\w&.-]*)(?=\s*(?:[,.;!?]|$|\s+(?:lol|haha|today|was|is|"
          r"and|but|so|yesterday)\b))", subject="self"),
    # a job begun: "starting at Wealthsimple monday as a backend dev"
    _rule("works", r"(?:^\s*|\bI\s+am\s+|\bI\s+will\s+be\s+)(?:starting|start|started)\s+at\s+"
          + _ORG
          + r"(?=\s+(?:on\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
          r"tomorrow|today|next\s+\w+|this\s+\w+|in\s+\w+|as)\b)", subject="self"),
    # "Just accepted an offer from Rivian!!!"
    _rule("works", r"(?:^\s*(?:just\s+|finally\s+)?|\bI\s+(?:just\s+|finally\s+)?|\bI\s+have\s+"
          r"(?:just\s+|finally\s+)?)accepted\s+(?:an?\s+|the\s+)?(?:job\s+)?offer\s+(?:from|at|with)\s+"
          + _ORG, subject="self"),
    # moved in: "Finally done unpacking in Denver!!"
    _rule("relocate", r"\b(?:done\s+|finished\s+|still\s+)?unpack(?:ing|ed)\s+(?:boxes\s+)?in\s+"
          + _ORG),
    _rule("stop_works", r"\b(?:handed\s+in|gave|put\s+in)\s+my\s+(?:notice|resignation)\s+"
          r"(?:at|to)\s+" + _ORG, self_only=True),
    _rule("stop_works", r"\b(?:resigned|retired)\s+from\s+" + _ORG, self_only=True),
    _rule("stop_works", r"\bam\s+no\s+longer\s+(?:at|with|working\s+(?:at|for|with))\s+" + _ORG,
          self_only=True),
    _rule("stop_works", r"\b(?:was|got|have\s+been|been)\s+(?:laid\s+off|let\s+go|made\s+"
          r"redundant|fired)\s+(?:from|at|by)\s+" + _ORG, self_only=True),
    _rule("works", r"\b(?:started|starting|start|got|landed|accepted|took|found)\s+(?:a\s+|"
          r"the\s+)?(?:new\s+)?(?:job|role|position)(?:\s+as\s+(?:an?\s+)?"
          r"(?P<role>[a-z][\w -]{1,30}?))?\s+(?:at|with)\s+" + _ORG, self_only=True),
    _rule("works", r"\b(?P<who>my)\s+new\s+(?:job|employer|role|position)\s+(?:is\s+)?"
          r"(?:at|with)\s+" + _ORG, subject="self"),
    _rule("works", r"\b(?:am\s+|will\s+be\s+)?(?:starting|started|began|joined\s+the\s+team)\s+"
          r"(?:work\s+|a\s+new\s+job\s+)?at\s+(?:the\s+)?" + _ORG, self_only=True),
    # "my editor is VS Code": the thing named is in use
    _rule("use", r"\b(?P<who>my|our)\s+(?:main\s+|current\s+|daily\s+|primary\s+|default\s+|"
          r"usual\s+|work\s+|home\s+|personal\s+)?" + _EDITORISH
          + r"(?:\s+(?:of\s+choice\s+)?(?:is|=)|['’]s)\s+(?:now\s+)?" + _O,
          subject="self", extra={"check": "named"}),
    # what a device runs is in use: "my laptop runs Fedora now" (a known name only)
    _rule("use", r"\b(?P<who>my|our)\s+(?:new\s+|old\s+|work\s+|home\s+)?(?:laptop|computer|pc|"
          r"desktop|machine|server|phone|mac|macbook)\s+(?:now\s+)?(?:runs|is\s+running|is\s+on|"
          r"has)\s+(?:now\s+)?" + _O, subject="self", lexicon_only=True),
    # a home named by where it is: "I rent a studio flat in Glasgow", "we've got a little
    # terraced house in Cardiff" (the household's)
    _rule("relocate", r"\b(?:rent|own|have|got|bought|share)\s+(?:an?|our|my)\s+(?:[\w-]+\s+){0,3}?"
          r"(?:flat|apartment|house|home|room|studio|place|condo|cottage|bungalow)\s+in\s+"
          + _ORG),
    _rule("works", r"\b(?P<who>my)\s+(?:current\s+|new\s+)?employer\s+is\s+" + _ORG,
          subject="self"),
    # "Just accepted an offer from Rivian!!! gonna be a battery test engineer"
    _rule("role", r"\b(?:am\s+)?(?:gonna|going\s+to)\s+be\s+(?:an?|the)\s+"
          r"(?P<obj>[a-z][\w -]{1,30}?)(?=\s+(?:at|for|in|on|there|starting|from)\b|\s*[.,;!]|$)",
          self_only=True, extra={"check": "role"}),
    _rule("role", r"\b(?:got|was|been)\s+promoted\s+to\s+(?:an?\s+|the\s+)?"
          r"(?P<obj>[a-z][\w -]{1,30}?)(?=\s+(?:last|this|in|at|on|after|yesterday|today|"
          r"recently|a\s+few)\b|\s*[.,;!]|$)",
          self_only=True),
    # a thing in use named by what it is used for: "I read on an old Kindle Paperwhite",
    # "I listen to podcasts on Pocket Casts", "I track my runs with Strava" (known names)
    _rule("use", r"\b(?:read|listen\s+to\s+(?:podcasts|music|audiobooks)|watch\s+(?:shows|films|"
          r"movies|tv|videos|series)|track\s+(?:my\s+)?[a-z]+(?:\s+[a-z]+)?|keep\s+track\s+of\s+"
          r"(?:my\s+)?[a-z]+(?:\s+[a-z]+)?|take\s+(?:my\s+)?notes|log\s+(?:my\s+)?[a-z]+)\s+"
          r"(?:on|with|in|using)\s+(?:an?\s+|my\s+|the\s+)?(?:old\s+|new\s+|trusty\s+)?" + _O,
          lexicon_only=True),
    # "swimming is my thing now", "board games are kind of my thing"
    _rule("like", r"(?:^|(?<=[,;:])\s*)(?P<obj>[\w.+# -]{1,30}?)\s+(?:is|are)\s+(?:kind\s+of\s+|"
          r"sort\s+of\s+|really\s+|totally\s+)?(?P<who>my)\s+(?:new\s+)?thing\b", subject="self"),
    # "I'd pick a long train journey over flying any day" ("nothing beats X": _idioms)
    _rule("like", r"\bI\s+would\s+(?:pick|choose|take)\s+(?P<obj>[\w' -]{2,40}?)\s+over\s+",
          subject="self"),
    # "camping is my least favourite way to spend a weekend", "jazz fusion doesn't do it for me"
    _rule("dislike", r"(?:^|(?<=[,;:])\s*)(?P<obj>[\w.+# -]{1,30}?)\s+(?:is|are)\s+(?:honestly\s+|"
          r"probably\s+|easily\s+|definitely\s+)?(?P<who>my)\s+least\s+favou?rite\b",
          subject="self"),
    _rule("dislike", r"(?:^|(?<=[,;:])\s*)(?P<obj>[\w.+# -]{1,30}?)\s+(?:just\s+|really\s+|"
          r"honestly\s+)?(?:does\s+not|do\s+not)\s+do\s+it\s+for\s+(?P<who>me)\b",
          subject="self"),
    # "Todoist is gone, I am on Things 3 now" (known names)
    _rule("stop_either", r"(?:^|(?<=[,;:])\s*)(?P<obj>[\w.+# -]{1,30}?)(?:\s+is|\s+has|'s)\s+"
          r"(?:been\s+)?gone\b", subject="self", lexicon_only=True),
    _rule("now_use", r"\bam\s+(?:now\s+)?on\s+(?P<obj>[\w.+# -]{1,30}?)\s+(?:now|these\s+days)\b",
          self_only=True, lexicon_only=True),
    # home said as where one is settled: "we're settled in Edinburgh now", "home for me is
    # Porto these days", "we live in Bristol"
    _rule("relocate", r"\b(?:are|am|got|have\s+got|finally)\s+(?:now\s+|finally\s+|all\s+)?"
          r"settled\s+in\s+" + _ORG),
    _rule("relocate", r"\bhome\s+for\s+(?P<who>me|us)\s+is\s+(?:now\s+)?" + _ORG, subject="self"),
    _rule("relocate", r"\b(?:live|living|have\s+lived|have\s+been\s+living)\s+in\s+" + _ORG),
    # an allergy said by what it does: "Sesame gives me hives"
    _rule("allergy", r"(?:^|(?<=[,;:])\s*)(?P<obj>[\w -]{2,30}?)\s+(?:gives|give|gave)\s+me\s+"
          r"(?:hives|a\s+rash|rashes|an\s+allergic\s+reaction|a\s+reaction|anaphylaxis)\b",
          subject="self"),
    # "I break out in hives if I eat strawberries", "my lips swell up when I eat kiwi"
    _rule("allergy", r"\b(?:break|broke)\s+out\s+in\s+(?:hives|a\s+rash|spots)\s+(?:if|when|"
          r"whenever|every\s+time)\s+I\s+(?:eat|touch|take|have|drink|use)\s+" + _O,
          subject="self"),
    _rule("allergy", r"\b(?:get|got)\s+(?:hives|a\s+rash|rashes)\s+(?:if|when|whenever|every\s+"
          r"time)\s+I\s+(?:eat|touch|take|have|drink|use)\s+" + _O),
    # a car is a thing in use, named: "I drive a Toyota Corolla"; sold, it ends
    _rule("use", r"\bdrive\s+(?:an?\s+)?(?:new\s+|used\s+|old\s+|secondhand\s+|"
          r"electric\s+)?" + _ORG, self_only=True),
    _rule("stop_either", r"\b(?:sold|traded\s+in)\s+(?:my|our|the)\s+(?:old\s+)?" + _ORG,
          self_only=True),
    # people move house, "we" included: "we packed up and moved down to Bristol"
    _rule("relocate", r"\b(?:moved|move|moving)\s+(?:house\s+)?(?:down|up|out|away|home|"
          r"across(?:\s+the\s+country)?|north|south|east|west|abroad)\s+to\s+" + _O),
]

# Verbs that give something up whatever it was, a taste or a tool: "I quit Jira", "I quit
# smoking", "I cut out Coke". What they end is read in ``_english._apply``.
GIVE_UP = (r"quit|ditched|dropped|abandoned|cancell?ed|deleted|unsubscribed\s+from|"
           r"gave\s+up(?:\s+on)?|given\s+up(?:\s+on)?|"
           r"got\s+rid\s+of|uninstalled|am\s+done\s+with|moved\s+away\s+from|moved\s+off(?:\s+of)?|"
           r"moved\s+on\s+from|switched\s+away\s+from|stopped|cut\s+out|kicked|swore\s+off|"
           r"sworn\s+off|gone\s+(?:right\s+|completely\s+|totally\s+)?off|went\s+off|lost\s+interest\s+in|got\s+tired\s+of|"
           r"grown\s+tired\s+of|grew\s+out\s+of|grown\s+out\s+of|fallen\s+out\s+of\s+love\s+"
           r"with|fell\s+out\s+of\s+love\s+with")
# Give-up verbs that also take everyday objects ("I dropped my phone", "kicked the door"):
# with these, only a known name is an ending.
LOOSE_GIVE_UP = re.compile(r"^(?:dropped|kicked|cut\s+out|stopped|quit)\b", re.I)


def gerund_taste(text: str) -> str | None:
    """What an "-ing" object of a give-up verb gave up: "smoking", "playing tennis" ->
    "tennis", "drinking soda" -> "soda"; None when it is no "-ing" object or names no thing
    ("playing with the kids")."""
    m = re.match(r"^(?P<verb>(?:playing|drinking|eating)\s+(?:the\s+)?)?(?P<x>[a-z][\w' -]*)$",
                 text.strip(), re.I)
    if not m or re.match(r"^(?:with|around|outside|along|for|at|in|on)\b", m.group("x")):
        return None
    if m.group("verb") or re.match(r"^[a-z]+ing\b", m.group("x")):
        return m.group("x")
    return None


def like_object(text: str) -> str:
    """A liked activity without its light verb: "playing tennis" -> "tennis", so that "I
    gave up tennis" later ends the same fact."""
    text = re.sub(r"\s+instead$", "", text)  # "fallen for swimming instead"
    m = re.match(r"^playing\s+(?:the\s+)?(?P<x>(?!with\b|around\b|outside\b|along\b|for\b|"
                 r"at\b|in\b|on\b)[a-z][\w' -]*)$", text, re.I)
    return m.group("x") if m else text


# --------------------------------------------------------------------------- new values

_NEW_VALUE = re.compile(
    r"(?:^|,|;|\bbut\b|\band\b)\s*(?:(?:and|but|so)\s+)?(?:now\s+)?(?:it\s+is|it's)\s+"
    r"(?:all\s+)?(?P<obj>[\w.+# '-]{1,30}?)\s*(?:for\s+me\s+)?(?:now|these\s+days|nowadays)"
    r"\s*[.!]?$",
    re.I,
)
_NEW_WORK = re.compile(
    r"(?:^|,|;|\bbut\b|\band\b)\s*(?:(?:and|but|so)\s+)?(?:now\s+)?I\s+am\s+(?:now\s+)?"
    r"(?:at|with)\s+(?P<obj>(?-i:[A-Z0-9])[\w&'.-]*(?:\s+(?-i:[A-Z0-9&])[\w&'.-]*){0,3})"
    r"(?P<now>\s+now)?\s*[.!]?$",
    re.I,
)
_TASTE_STOPS = frozenset({"stop_like", "stop_use", "stop_either"})


def new_value_after_stop(text: str, found: list[tuple[int, int, list[Hit]]],
                         previous: list[Hit]) -> list[Hit]:
    """The new value that follows an ending, in its sentence or the next: "I've moved on
    from VS Code, it's Zed now" (a choice), "my final day at Stripe; I'm at Notion now" (an
    employer). Without the ending these say nothing ("I'm at Heathrow now")."""
    hits = [h for _, _, hs in found for h in hs]
    if not any(h.kind == "stop_works" or h.kind in _TASTE_STOPS for h in hits):
        hits = [h for h in previous if not found]  # the ending was the sentence before
    last_end = max((e for _, e, _ in found), default=0)
    out: list[Hit] = []
    stop = next((h for h in reversed(hits) if h.kind == "stop_works"), None)
    m = _NEW_WORK.search(text)
    if stop and m and m.start() >= last_end - 1 and (m.group("now") or "now" in m.group(0)):
        name = clean_edges(m.group("obj"))
        if name and name.lower() != stop.obj.lower():
            out.append(Hit("works", stop.subject, name, confidence=stop.confidence))
    taste = next((h for h in reversed(hits) if h.kind in _TASTE_STOPS), None)
    m = _NEW_VALUE.search(text)
    if taste and m and m.start() >= last_end - 1:
        obj = re.sub(r"^(?:the|a|an|some)\s+", "", m.group("obj").strip(), flags=re.I)
        if obj and obj.lower() not in ("that", "this", "it", "over", "done", "fine", "ok"):
            known = lookup(obj) is not None or lookup(taste.obj) is not None
            kind = "now_use" if taste.kind == "stop_use" or known else "like"
            out.append(Hit(kind, taste.subject, obj, confidence=taste.confidence,
                           group=taste.group))
    return out


# --------------------------------------------------------------------------- finders

_NAME = r"(?-i:[A-Z][a-z]+)"
_KIN_PARTNER = r"(?:girlfriend|boyfriend|partner|wife|husband|fiancée?|fiancee?)"
_ENDED = (r"(?:have\s+|had\s+|just\s+|finally\s+|recently\s+|officially\s+)*(?:broke\s+up|"
          r"broken\s+up|split\s+up|called\s+it\s+quits|got\s+divorced|(?:split|separated|"
          r"divorced)(?=\s*(?:[.,;!]|$|\s+(?:last|in|this|after|a\s+(?:few|couple)|recently|"
          r"earlier|two|three|for\s+good))))")
PARTNER_KINS = ("boyfriend", "girlfriend", "partner", "fiance", "wife", "husband", "spouse")
_SPLIT_RULES = [
    re.compile(rf"\b(?:(?P<name>{_NAME})|my\s+(?P<kin>{_KIN_PARTNER}))\s+and\s+I\s+{_ENDED}",
               re.I),
    re.compile(rf"\bI\s+{_ENDED}\s+with\s+(?:my\s+(?P<kin>{_KIN_PARTNER})\s*,?\s*)?"
               rf"(?P<name>{_NAME})?", re.I),
    re.compile(rf"\bI\s+(?:have\s+)?(?:divorced|left|separated\s+from)\s+my\s+"
               rf"(?P<kin>wife|husband|partner)\b(?:\s*,?\s*(?P<name>{_NAME}))?", re.I),
    # "the divorce from Dev is final", "my divorce from my husband went through"
    re.compile(rf"\b(?:the|my|our)\s+divorce\s+(?:from|with)\s+(?:my\s+(?P<kin>{_KIN_PARTNER})"
               rf"\s*,?\s*)?(?P<name>{_NAME})?", re.I),
]
_PET_GONE = [
    re.compile(rf"\b(?:my|our)\s+(?:(?:old|sweet|beloved|little|poor)\s+)?(?P<species>"
               rf"{SPECIES_EN})(?:\s*,?\s*(?P<name>{_NAME})\s*,?)?\s+(?:has\s+|had\s+|just\s+|"
               rf"sadly\s+|finally\s+)*(?:died|passed\s+away|passed|was\s+put\s+down|had\s+to\s+"
               rf"be\s+put\s+down|was\s+rehomed|ran\s+away|went\s+missing)\b", re.I),
    re.compile(rf"\b(?:we|I)\s+(?:had\s+to\s+|have\s+)?(?:put|rehomed|re-homed|rehome|re-home)\s+(?:(?:our|my)"
               rf"\s+(?:old\s+)?(?P<species>{SPECIES_EN})\s*,?\s*)?(?P<name>{_NAME})?\s*,?\s*"
               rf"(?:down\b)?", re.I),
    # the pet's name alone, opening the sentence ("Nibbles died last week"): it ends a
    # stored pet of that name, and nothing when none is stored (a stop of nothing)
    re.compile(rf"^\s*(?P<species>(?!))?(?P<name>{_NAME})\s+(?:has\s+|had\s+|just\s+|"
               rf"sadly\s+)*(?:died|passed\s+away|was\s+put\s+down|had\s+to\s+be\s+put\s+"
               rf"down|was\s+rehomed|ran\s+away|went\s+missing)\b"),
    # "We lost Smudge in the autumn": it ends a stored pet of that name, and nothing else
    re.compile(rf"\b(?:we|I)\s+(?:sadly\s+|just\s+|finally\s+)?(?:lost|buried)\s+(?:(?:our|my)\s+"
               rf"(?:old\s+|sweet\s+)?"
               rf"(?P<species>{SPECIES_EN})\s*,?\s*)?(?P<name>{_NAME})\b(?!')", re.I),
]


# A job that ends without a name: "I quit my job", "I retired from teaching last year",
# "I'm retired now". An employer named after it ("retired from Boeing", "left my job at
# Acme") is read by the rules that take the name.
_NO_NAME_AFTER = r"(?!\s+(?:at|with|from)\s+(?-i:[A-Z]))"
_JOB_ENDS = [
    ("retire", re.compile(r"\bI(?:'ve|\s+have|'m|\s+am)?\s+(?:now\s+|just\s+|finally\s+|"
                          r"officially\s+|recently\s+|fully\s+)*retired\b(?!\s+(?:[a-z]+\s+)?"
                          r"(?:teacher|nurse|officer|engineer|doctor|from\s+(?-i:[A-Z])))",
                          re.I)),
    ("stop_job", re.compile(r"\bI(?:'ve|\s+have)?\s+(?:just\s+|finally\s+|recently\s+)*"
                            r"(?:quit|left|lost|resigned\s+from)\s+my\s+(?:day\s+|full-time\s+|"
                            r"old\s+|corporate\s+)?job\b" + _NO_NAME_AFTER, re.I)),
    ("stop_job", re.compile(r"\bI(?:'ve|\s+have)?\s+(?:just\s+|finally\s+|recently\s+)*"
                            r"resigned\b(?!\s+(?:from|as)\b)", re.I)),
    ("stop_job", re.compile(r"\bI\s+(?:was|got|have\s+been|'ve\s+been)\s+(?:laid\s+off|let\s+"
                            r"go|made\s+redundant|fired)\b" + _NO_NAME_AFTER, re.I)),
    ("stop_job", re.compile(r"\bI(?:'m|\s+am)\s+(?:currently\s+|now\s+|still\s+)?(?:between\s+"
                            r"jobs|out\s+of\s+work|unemployed|jobless)\b", re.I)),
]


# A diet taken up ends a taste for meat: "I went vegan in January".
_NO_MEAT = re.compile(r"\bI(?:'ve|\s+have|'m|\s+am)?\s+(?:now\s+|just\s+|recently\s+|finally\s+)*"
                      r"(?:went|gone|turned|become|became|switched\s+to\s+being|now)\s+(?:fully\s+|"
                      r"completely\s+|strictly\s+|100%\s+)?(?:vegan|vegetarian|plant-based)\b",
                      re.I)


def find_endings(text: str) -> Found:
    """Break-ups, pets that are gone and jobs that end unnamed: ``split`` (obj: the name,
    else the kin word; obj2: the kin when said), ``pet_gone`` (obj: the name, else the
    species), ``stop_job`` and ``retire`` (obj: ``CURRENT_OBJECT``)."""
    found: Found = []
    for m in _NO_MEAT.finditer(text):
        found.append((m.start(), m.end(), [Hit("stop_like", "self", "meat")]))
    for kind, regex in _JOB_ENDS:
        for m in regex.finditer(text):
            found.append((m.start(), m.end(), [Hit(kind, "self", CURRENT_OBJECT)]))
    for regex in _SPLIT_RULES:
        for m in regex.finditer(text):
            kin = _partner(m.group("kin"))
            name = m.group("name")
            if name and name in ("I", "We", "My", "The", "And", "But", "So"):
                name = None
            if name or kin:
                found.append((m.start(), m.end(), [Hit("split", "self", name or kin, kin)]))
    for n, regex in enumerate(_PET_GONE):
        for m in regex.finditer(text):
            species, name = m.group("species"), m.group("name")
            put = re.search(r"\bput\b", m.group(0), re.I)
            if n == 1 and put and not m.group(0).lower().rstrip(" ,").endswith("down"):
                continue  # "we put our dog in the car"
            if not (species or name) or (name and name.lower() in KIN_EN):
                continue  # "Grandma passed away": no pet
            obj = name or re.sub(r"s$", "", species.lower())
            found.append((m.start(), m.end(), [Hit("pet_gone", "self", obj)]))
    return found


def _partner(word: str | None) -> str:
    if not word:
        return ""
    w = word.lower()
    return KIN_EN.get(w, w)


_ROLE_VERBS = {"teach": "teacher", "tutor": "tutor", "lecture": "lecturer", "coach": "coach",
               "freelance": "freelancer"}
_ROLE_VERB = re.compile(
    r"\bI\s+(?:also\s+|currently\s+|now\s+|still\s+|mostly\s+|mainly\s+|actually\s+)?"
    r"(?P<verb>teach|tutor|lecture|coach|freelance)(?:\s+in)?"
    r"(?:\s+(?P<obj>[A-Za-z][a-z]+(?:\s+[a-z]+)?|\d+(?:st|nd|rd|th)\s+grade))?"
    r"(?=\s*(?:$|[,.;!]|\s(?:at|for|in|to|on|and|full-time|part-time)\b))",
)
# "I teach kids", "I tutor online": the job without a subject; "I coach my son's team",
# "I teach the dog tricks": no job at all.
_WHO_OR_HOW = re.compile(r"^(?:kids|children|students|adults|people|classes|class|online|"
                         r"remotely|privately|part|full|for|now)$", re.I)
_NOT_A_JOB = re.compile(r"^(?:my|our|your|his|her|their|the|a|an|them|him|us|you|myself|"
                        r"it|this|that)\b", re.I)
_AT_ORG = re.compile(r"^\s+at\s+" + _ORG.replace("(?P<obj>", "(?P<org>"))


def find_role_verbs(text: str) -> Found:
    """A job said as what one does: "I teach chemistry" -> "chemistry teacher", "now I
    freelance" -> "freelancer", with the employer when one is named after "at"."""
    found: Found = []
    for m in _ROLE_VERB.finditer(text):
        lead = text[: m.start()].lower()
        if re.search(r"\b(?:if|would|could|might|wish|want\s+to)\b[^,;.]*$", lead):
            continue
        verb, subject = m.group("verb").lower(), m.group("obj")
        if subject and _NOT_A_JOB.match(subject):
            continue
        if subject and (_WHO_OR_HOW.match(subject.split()[0]) or verb == "freelance"):
            subject = None
        noun = _ROLE_VERBS[verb]
        hits = [Hit("role", "self", f"{subject} {noun}" if subject else noun)]
        end = m.end()
        org = _AT_ORG.match(text[end:])
        if org:
            hits.append(Hit("works", "self", clean_edges(org.group("org"))))
            end += org.end()
        found.append((m.start(), end, hits))
    return found


# --------------------------------------------------------------------------- pronouns

PRONOUN_OBJECT = re.compile(r"^\s*(?:it|them)\b(?!\s+(?:is|was|to|that)\b)", re.I)
# "Penicillin gives me a rash", "Cilantro tastes like soap", "Sushi is amazing": the thing
# that leads the sentence, told of with a verb of how it affects or seems to the speaker.
_LEADING_THING = re.compile(
    r"^\s*(?P<np>(?:the\s+)?[A-Za-z][\w'-]*(?:\s+[a-z][\w'-]*){0,2}?)\s+(?P<verb>gives|give|"
    r"gave|makes|make|made|tastes|taste|smells|smell|looks|sounds|feels|is|are|was|were|"
    r"has\s+been|have\s+been|does|do|did|sets\s+off|triggers|brings)\b",
    re.I,
)
_NOT_A_THING = re.compile(
    r"^(?:i|we|you|he|she|they|it|this|that|these|those|there|here|my|our|your|his|her|their|"
    r"what|everything|nothing|something|someone|everyone|today|tonight|yesterday|tomorrow|"
    r"work|life|mine|which|who|one|so|and|but|well|honestly|yeah|ok|okay)\b",
    re.I,
)


def antecedent(text: str, at: int) -> str | None:
    """The thing a pronoun (or a left-out object) at ``at`` stands for, when the sentence
    opened by naming it in an earlier clause; None when it did not (then nothing is said:
    "I love it" alone is no fact)."""
    m = _LEADING_THING.match(text)
    if not m or m.end() > at or not re.search(r"[,;]", text[m.end() : at]):
        return None
    if re.match(r"(?:the|this|that)\s", m.group("np"), re.I) and re.match(
            r"is|are|was|were|has|have", m.group("verb"), re.I):
        return None  # "The weather is awful, I hate it": a moment's mood, not a taste
    np = clean_edges(re.sub(r"^the\s+", "", m.group("np"), flags=re.I))
    if not np or _NOT_A_THING.match(np) or len(np.split()) > 3:
        return None
    return np


# A taste that turned: "I used to love true crime podcasts but I cannot stand them now",
# "I hated horror movies as a kid, but now I love them". (Contractions are expanded first.)
_LIKED_THEN = (r"(?:used\s+to\s+(?:love|like|enjoy|adore|be\s+(?:really\s+|so\s+)?into|be\s+"
               r"obsessed\s+with|be\s+a\s+(?:big\s+|huge\s+)?fan\s+of)|loved|liked|enjoyed|adored|"
               r"was\s+(?:really\s+|so\s+)?into|was\s+obsessed\s+with|was\s+a\s+(?:big\s+|huge\s+)?"
               r"fan\s+of)")
_DISLIKED_THEN = (r"(?:used\s+to\s+(?:hate|dislike|detest|loathe|be\s+(?:scared|afraid)\s+of)|"
                  r"hated|disliked|detested|loathed|could\s+not\s+stand|was\s+(?:scared|afraid)\s+"
                  r"of|was\s+not\s+(?:a\s+fan\s+of|into))")
_LIKE_NOW = (r"(?:love|like|enjoy|adore|am\s+(?:really\s+|so\s+|totally\s+|kind\s+of\s+)?into|"
             r"am\s+obsessed\s+with|am\s+(?:a\s+)?(?:big\s+|huge\s+)?fan\s+of|(?:have\s+)?come\s+"
             r"(?:around\s+)?to\s+(?:love|like|enjoy))")
_DISLIKE_NOW = (r"(?:hate|dislike|detest|loathe|cannot\s+stand|can\s+not\s+stand|do\s+not\s+"
                r"(?:like|enjoy)|am\s+(?:so\s+|totally\s+|completely\s+)?(?:over|sick\s+of|tired\s+of|done\s+"
                r"with)|am\s+not\s+(?:into|a\s+fan\s+of)|(?:have\s+)?gone\s+off)")
_TURNED = re.compile(
    rf"\bI\s+(?:(?P<liked>{_LIKED_THEN})|{_DISLIKED_THEN})\s+(?P<x>[^,.;!?]{{2,40}}?)"
    r"(?:\s+(?:as\s+a\s+(?:kid|child|teen|teenager)|growing\s+up|in\s+(?:college|school|high\s+"
    r"school|my\s+twenties)|back\s+then|for\s+years|before))?\s*,?\s+but\s+"
    r"(?:(?:now|these\s+days|lately|honestly|actually|somehow)\s*,?\s+)*(?:I\s+)?"
    r"(?:(?:now|honestly|actually|really|kind\s+of|kinda|genuinely|just)\s+)*"
    rf"(?:(?P<like>{_LIKE_NOW})|{_DISLIKE_NOW})\s+(?:it|them|those|that|these)\b", re.I)


def find_turned_tastes(text: str) -> Found:
    """A taste said to have turned over: the old one ends and its opposite holds (``like``
    or ``dislike``; the service ends the opposite taste of a new one, ``_opposites``).
    "I liked it but now I love it" turns nothing and gives nothing here."""
    found: Found = []
    for m in _TURNED.finditer(text):
        before, now = m.group("liked") is not None, m.group("like") is not None
        thing = clean_edges(re.sub(r"^(?:the|my)\s+", "", m.group("x").strip(), flags=re.I))
        if before == now or not thing or _NOT_A_THING.match(thing) or len(thing.split()) > 5:
            continue
        hits = [Hit("stop_like", "self", thing), Hit("dislike", "self", thing)] if before \
            else [Hit("like", "self", thing)]
        found.append((m.start(), m.end(), hits))
    return found


_ALLERGIC_TO_IT = re.compile(
    r"\bI\s+am\s+(?:(?:very|really|severely|quite|so|also|badly|mildly)\s+)?allergic"
    r"(?P<pro>\s+to\s+(?:it|them))?\s*[.!]?\s*$", re.I)


_CELIAC = re.compile(r"\bI\s+(?:am|have|was\s+diagnosed\s+with)\s+(?:a\s+)?(?:celiac|coeliac)\b"
                     r"(?!\s+(?:friend|cousin|sister|brother|mum|mom|dad|son|daughter))", re.I)


def find_allergy_pronoun(text: str) -> Found:
    """"Penicillin gives me a rash, I'm allergic to it": the allergen named before; "I'm
    celiac": gluten."""
    celiac = _CELIAC.search(text)
    if celiac:
        return [(celiac.start(), celiac.end(), [Hit("allergy", "self", "gluten")])]
    m = _ALLERGIC_TO_IT.search(text)
    thing = antecedent(text, m.start()) if m else None
    if not m or not thing:
        return []
    return [(m.start(), m.end(), [Hit("allergy", "self", thing.lower()
                                      if thing[1:].islower() else thing)])]
