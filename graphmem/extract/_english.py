"""English patterns of the rule extractor.

Each pattern matches a verb construction ("like X", "switched from X to Y"); who said it is
read from the words before the match (``_subject``): "I", "we", "our project/team/app…",
possibly with adverbs ("I've always really liked"), negation ("I don't like" -> dislike),
"no longer" / "used to" (-> stop), or a modal ("I would use", -> dropped as hypothetical).
Objects are cut out of the greedy match by ``_english_phrases``.
"""

from __future__ import annotations

import re
from typing import Any

from graphmem.extract._english_changes import (
    CHANGE_RULES,
    GIVE_UP,
    LOOSE_GIVE_UP,
    PRONOUN_OBJECT,
    antecedent,
    find_allergy_pronoun,
    find_endings,
    find_role_verbs,
    find_turned_tastes,
    gerund_taste,
    like_object,
    new_value_after_stop,
)
from graphmem.extract._english_more import (
    EARLY_RULES,
    carried_subject,
    only_now,
    platform_after,
    tool_list_ok,
)
from graphmem.extract._english_phrases import (
    LIST_SPLIT,
    PLAN_CHATTER,
    noun_phrase,
    objects,
    tidy,
    valid,
    verb_phrase,
)
from graphmem.extract._idioms import tastes_en
from graphmem.extract._lexicon import canonicalize, is_role_en, lookup
from graphmem.extract._personal import (
    find_en,
    homes_in_passing_en,
    jobs_in_passing_en,
    kin_in_passing_en,
    pets_in_passing_en,
    plans_in_passing_en,
)
from graphmem.extract._products import PLACES_EN, how_to_en, owned_en, products_en
from graphmem.extract._text import Hit, Rule, Spans, add_passes, attach_when, scan

_CONTRACTIONS = [
    (re.compile(r"\b([Ii])'m\b|\b([Ii])m\b"), "I am"),
    (re.compile(r"\b[Ii]'ve\b"), "I have"),
    (re.compile(r"\b[Ii]'d\b"), "I would"),
    (re.compile(r"\b[Ii]'ll\b"), "I will"),
    (re.compile(r"\b([Ww]e)'re\b"), r"\1 are"),
    (re.compile(r"\b([Ww]e)'ve\b"), r"\1 have"),
    (re.compile(r"\b([Ww]e)'d\b"), r"\1 would"),
    (re.compile(r"\b([Ww]e)'ll\b"), r"\1 will"),
    (re.compile(r"\bcan't\b", re.I), "cannot"),
    (re.compile(r"\bwon't\b", re.I), "will not"),
    (re.compile(r"\b(\w+)n't\b", re.I), r"\1 not"),
    (re.compile(r"\b([Ii]t|[Tt]hat)'s\b"), r"\1 is"),
]

_CLAUSE_BREAK = re.compile(
    r"[,;:()\"—–]|\b(?:and|but|so|because|although|though|while|whereas|plus|then|cause|cuz)\b",
    re.I,
)
# Words allowed between the subject and the verb: adverbs, auxiliaries, negation, modals.
_BETWEEN = frozenset(
    """am are is have has been do does really also still now always absolutely totally
    definitely mostly mainly usually generally just actually honestly personally strongly much
    typically currently primarily only even truly genuinely kinda kind sort of pretty already
    finally recently lately officially seriously largely exclusively normally often sometimes
    increasingly certainly daily nowadays very too both all started start begun began stopped
    quit used to no longer not never would could should will can may might must gonna
    basically literally happily completely fully heavily professionally obviously mostly
    secretly come grown""".split()
)
_PROJECT_NOUNS = frozenset(
    "project team app codebase company service backend frontend product repo startup "
    "system site website api infrastructure infra pipeline org organization".split()
)
_PARTICIPLES = frozenset(
    "lived worked liked loved enjoyed preferred hated disliked used relied".split()
)
_DROPPED_I = frozenset(
    "been quit left just finally recently now currently still really also loving enjoying not"
    .split()
)
_MODALS = frozenset("would could should will can may might must gonna".split())
_HYPOTHETICAL_LEAD = frozenset(
    "if unless whether suppose supposing imagine wish assuming pretend said says told claims "
    "thinks".split()
)
_HEDGE = re.compile(
    r"\b(?:i think|i guess|i suppose|i believe|maybe|probably|perhaps|kind of|kinda|sort of|"
    r"i feel like|not sure|might|possibly)\b",
    re.I,
)
def _expand(text: str) -> str:
    text = text.replace("\u2019", "'").replace("\u2018", "'")
    for regex, repl in _CONTRACTIONS:
        text = regex.sub(repl, text)
    # a chat leaves the "I" out: "Cancelled Spotify last month", "Used to love running"
    return _NO_SUBJECT.sub(
        lambda m: m.group("lead") + ("I am " if re.match(r"(?i)gonna|going|planning|hoping",
                                                          m.group("verb")) else "I ")
        + m.group("verb"), text, count=1)


_NO_SUBJECT = re.compile(
    r"^(?P<lead>\s*(?:(?:finally|just|recently|also|so|and|then|honestly|anyway|btw)\s*,?\s+)*)"
    r"(?P<verb>(?-i:[A-Z]?)(?:used\s+to|cancell?ed|deleted|uninstalled|quit|ditched|dropped|"
    r"started|joined|switched|moved|relocated|settled|sold|left|adopted|signed\s+up|"
    r"gave\s+up|unsubscribed|got\s+rid\s+of|stopped|gonna|going\s+to|planning\s+to|"
    r"hoping\s+to)\b)", re.I)


# --------------------------------------------------------------------------- subject


def _subject(prefix: str, verb: str) -> tuple[str, list[str], list[str], float] | None:
    """``(subject, lead words, between words, confidence cap)`` from the text before a verb.

    None when no first-person or project subject stands there. Chat drops the "I" of past
    and progressive forms ("Switched to Neovim last week", "Loving Svelte so far"); at the
    very start of a sentence those count as the speaker's, a little less surely. Bare verbs
    ("Use React") are imperatives and do not.
    """
    clause = _CLAUSE_BREAK.split(prefix)[-1]
    words = re.findall(r"[a-z']+|\d+", clause.lower())
    i = len(words)
    while i > 0 and words[i - 1] in _BETWEEN:
        i -= 1
    between = words[i:]
    if i == 0:
        first = (words or verb.lower().split() or [""])[0]
        if clause == prefix and (first.endswith("ed") or first in _DROPPED_I):
            return "self", [], between, 0.8
        carried = carried_subject(prefix, clause)
        if carried:
            return carried, [], between, 0.85
        return None
    if words[i - 1] == "i":
        subject, lead = "self", words[: i - 1]
    elif words[i - 1] == "we":
        subject, lead = "project", words[: i - 1]
    elif words[i - 1] in _PROJECT_NOUNS and i >= 2 and words[i - 2] in ("our", "the", "this", "my"):
        subject, lead = "project", words[: i - 2]
    else:
        return None
    if any(w in _HYPOTHETICAL_LEAD for w in lead):
        return None
    return subject, lead, between, 1.0


def _flags(between: list[str], verb: str, post: str) -> set[str]:
    text = " ".join([*between, verb.lower()])
    flags: set[str] = set()
    if re.search(r"\bno longer\b|\bstopped\b|\bquit\b|\bused to\b", text):
        flags.add("stop")
    elif re.search(r"\bnot\b|\bnever\b|\bno\b(?!\s+longer)", text):
        flags.add("stop" if re.search(r"\b(?:anymore|any more|any longer)\b", post) else "neg")
    if any(w in _MODALS for w in between) and "used" not in between:
        flags.add("modal")
    if re.search(r"\bnow\b|\bnowadays\b|\bthese days\b", text + " " + post):
        flags.add("now")
    if re.search(r"\bmight\b|\bkinda\b|\bkind of\b|\bsort of\b", text):
        flags.add("hedge")
    return flags


_STOP_OF = {"like": "stop_like", "use": "stop_use", "now_use": "stop_use", "lives": "stop_lives",
            "works": "stop_works", "role": "stop_role", "move": "stop_use",
            "learning": "stop_learning"}


def _rule(kind: str, pattern: str, **kw: Any) -> Rule:
    return Rule(kind, re.compile(pattern, re.I), **kw)


# A dot only ends it before a space ("Next.js" stays), and not after "St" / "Dr" / "Mt".
_O = r"(?P<obj>(?:[^.;!?]|\.(?=\w)|(?<=\bSt)\.|(?<=\bDr)\.|(?<=\bMt)\.)+)"
# how one works, between "work" and where or as what: "I work weekend shifts as a barista
# at Lark & Ladle", "I work nights at St Mary's"
_WORK_HOW = (r"(?:(?:remotely|full[- ]time|part[- ]time|nights|weekends|evenings|mornings|"
             r"shifts|(?:weekend|night|evening|morning|day|early|late|long|split|\d+-hour)\s+"
             r"shifts|(?:a\s+few|two|three|four|five|some)\s+(?:days|nights|evenings|"
             r"mornings|shifts)(?:\s+a\s+week)?)\s+)?")
_NAME = r"(?P<obj>(?-i:[A-Z])[\w'-]*(?:\s+(?-i:[A-Z])[\w'-]*){0,2})"
# what one keeps in an app ("I keep my to-do list in Todoist and my calendar in ...")
_KEPT = (r"(?:to-?do(?:\s+list)?s?|tasks|calendar|notes|journal|budget|finances|passwords|photos|"
         r"files|documents|docs|bookmarks|recipes|reading\s+list|habits|workouts|runs)")
# capitalised words that name a time, not a tool ("I am on Fridays", "in January")
_NOT_TOOL = (r"(?:Mondays?|Tuesdays?|Wednesdays?|Thursdays?|Fridays?|Saturdays?|Sundays?|"
             r"January|February|March|April|May|June|July|August|September|October|November|"
             r"December|Christmas|Easter|Vacation|Holiday)\b")
_LESSON_VERB = (
    r"(?:has\s+|have\s+|had\s+)?(?:failed|fails|fail|broke|break|breaks|crashed|crashes|errored(?:\s+out)?|"
    r"timed\s+out|kept\s+(?:failing|crashing|breaking)|keeps\s+(?:failing|crashing|breaking)|"
    r"(?:was|is|were|are)\s+(?:failing|breaking|crashing|broken)|did\s+not\s+work|does\s+not\s+work|"
    r"stopped\s+working|would\s+not\s+(?:start|build|compile|work|run))"
)
_S = r"(?:^|(?<=[,;:])\s*|\b(?:and|but|so|then)\s+)(?P<subj>[^,;:.!?]+?)"

RULES: list[Rule] = [
    # plans and goals first: "I plan to move to Berlin" must not also read as "moved to".
    _rule("plan", r"\b(?:plan|plans|planning|intend|intends|intending|aim|aiming|want|wants|"
          r"decided|going|about|preparing)\s+to\s+" + _O),
    _rule("plan", r"\b(?:hope|hoping|would\s+like|would\s+love)\s+to\s+" + _O, confidence=0.7),
    _rule("plan", r"\b(?:wanna|gonna)\s+" + _O),
    _rule("plan", r"\b(?:thinking\s+(?:about|of)|considering)\s+" + _O, confidence=0.6),
    _rule("plan", r"\b(?P<who>my|our)\s+plan\s+is\s+to\s+" + _O, subject="self"),
    _rule("plan", r"^\s*(?:so\s+(?:yeah\s+)?)?the\s+plan\s+is\s+to\s+" + _O, subject="self"),
    _rule("goal", r"\b(?P<who>my|our)\s+(?:main\s+|long-term\s+|big\s+|biggest\s+|primary\s+|"
          r"ultimate\s+|current\s+)?(?:goal|aim|objective|resolution|dream)(?:\s+for\s+(?:this|next|the)"
          r"\s+\w+|\s+this\s+\w+)?\s+is\s+(?:to\s+)?" + _O, subject="self"),
    _rule("learning", r"\b(?:learning|studying|picking\s+up|teaching\s+myself|"
          r"(?:trying|started|starting|began|beginning)\s+to\s+learn)\s+" + _O),
    # lessons: the subject is the thing that failed / needs something
    _rule("failed", _S + r"\s+" + _LESSON_VERB + r"(?:\s+again)?\s*,?\s*(?:because(?:\s+of)?|"
          r"due\s+to|as\s+a\s+result\s+of)\s+" + _O, subject="group"),
    _rule("failed", r"\bthe\s+reason\s+(?:why\s+)?(?P<subj>[^,;.!?]+?)\s+(?:failed|broke|crashed)"
          r"\s+(?:was|is)\s+(?:that\s+|because\s+)?" + _O, subject="group"),
    _rule("requires", r"\b(?:you|we|i|one)\s+(?:always\s+|still\s+|also\s+)?(?:need|needs|"
          r"have\s+to\s+use|must\s+use)\s+(?P<obj>[^.;!?]+?)\s+(?:for|(?:in\s+order\s+)?to\s+"
          r"(?:run|use|build|install|deploy|start|reach|access|connect\s+to|get\s+to|push\s+to|"
          r"pull\s+from|talk\s+to|work\s+on|compile|test))\s+"
          r"(?P<subj>[^.;!?,]+)", subject="group"),
    _rule("requires", r"\bto\s+(?:run|use|build|install|deploy|start)\s+(?P<subj>[^,]+?),?\s+"
          r"(?:you|we|i)\s+(?:need|have\s+to\s+use|must\s+use)\s+" + _O, subject="group"),
    _rule("requires", _S + r"\s+(?:requires|require|needs|need|depends\s+on|only\s+works\s+with|"
          r"only\s+runs\s+on|does\s+not\s+work\s+without|will\s+not\s+work\s+without|"
          r"cannot\s+run\s+without)\s+" + _O, subject="group"),
    *CHANGE_RULES,
    *EARLY_RULES,
    # a habit said as a routine: "I drink two cans of Coke a day", "I play chess every night"
    _rule("like", r"\b(?:eat|drink|play|watch|listen\s+to)\s+(?:(?:a|one|two|three|four|five|"
          r"\d+|a\s+couple\s+of|a\s+few)\s+(?:cans?|cups?|glass(?:es)?|bottles?|pints?|mugs?|"
          r"pieces?|slices?|bowls?|plates?|shots?|rounds?|games?|episodes?|hours?)\s+of\s+)?"
          r"(?P<obj>[\w' -]{2,40}?)\s+(?:pretty\s+much\s+|almost\s+|nearly\s+)?(?:every\s+"
          r"(?:single\s+)?(?:day|morning|evening|night|weekend)|daily|each\s+(?:day|night|morning)|"
          r"a\s+day|a\s+night|most\s+(?:days|nights|mornings|evenings))\b",
          confidence=0.75, self_only=True, extra={"check": "routine"}),
    _rule("like", r"\b(?:eat|eats|eating|drink|drinks|drinking|play|plays|playing)\s+" + _O,
          extra={"check": "stop"}),
    # changes
    _rule("switch", r"\b(?P<verb>switched|switch|switching|moved|move|moving|migrated|migrate|"
          r"migrating|changed|went|going|transitioned|converted|ported|jumped|made\s+the\s+switch|"
          r"making\s+the\s+switch|made\s+the\s+jump|making\s+the\s+jump)\s+(?:(?:over|back|"
          r"everything|it|all)\s+|(?:our|my|the)\s+[\w.+#-]+(?:\s+[\w.+#-]+)?\s+)?from\s+"
          r"(?P<obj>[^,.;!?]+?)\s+(?:over\s+)?(?:to|onto|into|for)\s+(?P<obj2>[^.;!?]+)"),
    _rule("switch", r"\breplaced\s+(?P<obj>[^,.;!?]+?)\s+with\s+(?P<obj2>[^.;!?]+)"),
    # "I moved all my notes out of Evernote into Notion"
    _rule("switch", r"\b(?:moved|move|moving|migrated|migrate|transferred|exported)\s+(?:all\s+)?"
          r"(?:of\s+)?(?:my|our|the)\s+[\w-]+(?:\s+[\w-]+)?\s+(?:out\s+of|off(?:\s+of)?)\s+"
          r"(?P<obj>[^,.;!?]+?)\s+(?:and\s+)?(?:in)?to\s+(?P<obj2>[^.;!?]+)",
          extra={"check": "named"}),
    _rule("switch", r"\b(?:ditched|dropped|abandoned|traded|swapped|exchanged)\s+(?:(?:my|our)\s+)?"
          r"(?P<obj>[^,.;!?]+?)\s+for\s+(?:(?:an?|the|some)\s+)?(?P<obj2>[^.;!?]+)"),
    # "these days I am on oat milk instead of regular milk"
    _rule("switch", r"\b(?:am|are)\s+(?:now\s+|mostly\s+)?(?:on|using|drinking|eating)\s+"
          r"(?P<obj2>[^,.;!?]+?)\s+instead\s+of\s+(?P<obj>[^,.;!?]+)"),
    # "these days I mostly use Linear instead of Jira"
    _rule("switch", r"\b(?:use|drink|eat|play|listen\s+to|read|watch)\s+(?P<obj2>[^,.;!?]+?)\s+"
          r"instead\s+of\s+(?P<obj>[^,.;!?]+)"),
    _rule("stop_works", r"\b(?:left|quit)\s+my\s+(?:job|position|role)\s+(?:at|with)\s+" + _O,
          self_only=True),
    _rule("stop_works", r"\bleft\s+(?P<obj>(?-i:[A-Z])[\w&.-]*(?:\s+(?-i:[A-Z])[\w&.-]*){0,3})",
          self_only=True),
    _rule("stop_use", r"\b(?P<verb>" + GIVE_UP + r")\s+" + _O, extra={"check": "give_up"}),
    # favourites: "my favorite way to spend a saturday morning is birding" is a taste
    _rule("like", r"\b(?P<who>my|our)\s+(?:all-time\s+|absolute\s+)?(?:favorite|favourite|fav)\s+"
          r"(?:way|thing)\s+to\s+[^,.;!?]{1,40}?\s+(?:is|has\s+to\s+be)\s+" + _O, subject="self"),
    # "I usually go for weird literary fantasy", "been playing a stupid amount of Balatro"
    _rule("like", r"\bI\s+(?:usually|always|tend\s+to|generally|normally)\s+go\s+for\s+" + _O,
          subject="self"),
    _rule("like", r"^\s*(?:I\s+have\s+)?been\s+(?:playing|watching|listening\s+to|reading|"
          r"eating)\s+"
          r"(?:a\s+(?:stupid|ridiculous|crazy|silly|huge|embarrassing|ton|lot)\s+(?:amount\s+)?of|"
          r"tons\s+of|so\s+much|nonstop|non-stop)\s+" + _O, subject="self"),
    _rule("like", r"\b(?P<who>my|our)\s+(?:all-time\s+|absolute\s+)?(?:favorite|favourite|fav|"
          r"preferred|go-to)\s+(?P<dom>[\w ]{1,30}?)\s+(?:is|are|has\s+to\s+be)\s+" + _O,
          subject="self"),
    _rule("like", r"(?:^|(?<=[,;:])\s*)(?P<obj>[\w.+# -]{1,30}?)\s+(?:is|are)\s+(?:the|a)\s+"
          r"highlight\s+of\s+(?P<who>my|our)\s+(?:day|week|weekend|month|year)\b", subject="self"),
    _rule("like", r"(?:^|(?<=[,;:])\s*)(?P<obj>[\w.+# -]{1,30}?)\s+is\s+(?P<who>my|our)\s+"
          r"(?:all-time\s+)?(?:favorite|favourite|fav|go-to|preferred)(?:\s+(?P<dom>[\w ]{1,30}))?",
          subject="self"),
    # identity and work
    _rule("name", r"\bmy\s+(?:first\s+|full\s+|real\s+|given\s+)?name(?:\s+is|'s|\u2019s)\s+"
          r"(?P<obj>[A-Za-z][\w'-]*(?:\s+(?-i:[A-Z])[\w'-]*){0,2})", subject="self"),
    _rule("name", r"\b(?:I\s+am\s+called|(?:you\s+can\s+|please\s+|just\s+)?call\s+me|I\s+go\s+by)"
          r"\s+" + _NAME, subject="self"),
    _rule("name", r"\b(?:hi|hello|hey)(?:\s+(?:there|all|everyone|guys))?[,!.]*\s+I\s+am\s+"
          # not "Hello, I'm Sarah's mom"
          r"(?P<obj>(?-i:[A-Z][a-z]+))\b(?!['\u2019]s\b)", subject="self"),
    _rule("role", r"\b(?:(?:work|works|working)\s+" + _WORK_HOW + r"|freelance\s+|freelancing\s+|"
          r"retrained\s+|retraining\s+)as\s+(?:an?\s+|the\s+)?" + _O, self_only=True),
    _rule("role", r"\b(?:am|have\s+been)\s+(?:(?:now|also|currently|still|actually|no\s+longer|"
          r"not|officially|"
          r"finally)\s+)*(?:an?|the)\s+" + _O, self_only=True, extra={"check": "role"}),
    # "my job is a nurse", not "my job is basically flying drones" (what the job does)
    _rule("role", r"\bmy\s+(?:job|role|job\s+title|title|position|profession|occupation)\s+is\s+"
          r"(?!(?:basically|mostly|just|mainly|largely|really|all\s+about)\b|\w+ing\s+(?!(?:"
          r"manager|engineer|lead|director|officer|specialist|coordinator|assistant|analyst|"
          r"consultant|technician|associate|executive|editor)\b))"
          r"(?:an?\s+)?" + _O, subject="self"),
    _rule("works", r"\b(?:work|works|working|worked)\s+" + _WORK_HOW + r"(?:as\s+(?:an?\s+)?\w+"
          r"(?:\s+\w+)?\s+)?(?:at|for)\s+" + _O, self_only=True),
    # "I'm interning at NASA this summer", "I went part-time at Costco" (a name after it)
    _rule("works", r"\b(?:interning|am\s+an\s+intern|went\s+(?:part|full)[- ]time|am\s+"
          r"(?:part|full)[- ]time)\s+(?:at|with|for)\s+(?P<obj>(?-i:[A-Z0-9])[^.;!?]*)",
          self_only=True),
    _rule("works", r"\b(?:started\s+(?:working\s+)?at|got\s+(?:a\s+job|hired)\s+(?:at|by)|"
          r"am\s+employed\s+(?:at|by)|joined)\s+(?P<obj>(?-i:[A-Z0-9])[^.;!?]*)", self_only=True),
    _rule("lives", r"\b(?:live|lives|living|lived|reside|resides|residing|based|located|"
          r"settled)\s+in\s+(?:(?:an?|the|our|my)\s+(?:(?:small|tiny|big|little|shared|new|"
          r"rented)\s+)?(?:flat|house|apartment|studio|place|condo|cottage)\s+in\s+)?" + _O,
          self_only=True),
    _rule("move", r"\b(?:moved|relocated)\s+(?:back\s+|over\s+|here\s+|out\s+here\s+)?to\s+" + _O),
    # "I'm new to Austin, any tips?": a newcomer to a town (a name the places list or a
    # capital says is one; not "new to Python")
    _rule("move", r"\bam\s+(?:pretty\s+|fairly\s+|very\s+|totally\s+)?new\s+(?:to|in)\s+"
          r"(?:the\s+)?(?P<obj>(?-i:[A-Z])[\w'-]*(?:\s+(?-i:[A-Z])[\w'-]*)?)(?=\s*(?:[,.!?;]|$|"
          r"and\b|so\b|-))", self_only=True, extra={"check": "place"}),
    _rule("lives", r"^\s*(?:living|"
                   r"life)\s+in\s+(?P<obj>(?-i:[A-Z])[\w'-]*(?:\s+(?-i:[A-Z])[\w'-]*)?)"
          # "living in Austin in August should be illegal"
          r"(?:\s+in\s+(?:the\s+)?(?:January|February|March|April|May|June|July|August|"
          r"September|October|November|December|summer|winter|spring|autumn|fall))?"
          r"\s+(?:has|is|was|should|can|must|sucks|rocks|means|feels)\b", subject="self"),
    _rule("move", r"\b(?:months?|weeks?|years?)\s+into\s+(?P<obj>(?-i:[A-Z])[\w'-]*)\s+life\b",
          subject="self"),
    # "back in Chicago for good now": home again
    _rule("move", r"\bback\s+in\s+(?P<obj>(?-i:[A-Z])[\w'-]*(?:\s+(?-i:[A-Z])[\w'-]*)?)"
          r"\s+for\s+good\b", subject="self"),
    # "the winters here in Oslo", "now that I'm out here in Denver": where the speaker is
    _rule("lives", r"^(?![^.!?]*\b(?:visit\w*|trip|conference|holiday|vacation|until|staying|"
          r"for\s+(?:a|the)\s+(?:week|few|couple|weekend|day|month)))[^.!?]*?\b(?:out\s+)?here\s+in\s+"
          r"(?P<obj>(?-i:[A-Z])[\w'-]*(?:\s+(?-i:[A-Z])[\w'-]*)?)", subject="self"),
    _rule("move", r"\b(?:settled|settling)\s+(?:down\s+)?(?:in|into)\s+"
          r"(?P<obj>(?-i:[A-Z])[\w'-]*(?:\s+(?!I\b)(?-i:[A-Z])[\w'-]*){0,2})"),
    # "moved down to Bristol", not "moved down to the basement": a name only
    _rule("move", r"\b(?:moved|relocated)\s+(?:down|up|out)\s+to\s+" + _NAME),
    _rule("now_use", r"\b(?:switched|switching|switch|migrated|migrating|changed|transitioned|"
          r"jumped)\s+(?:over\s+)?to\s+" + _O),
    _rule("now_use", r"\b(?:went\s+with|settled\s+on|opted\s+for|chose|picked)\s+" + _O,
          lexicon_only=True),
    # preferences
    _rule("dislike", r"\b(?:hate|hates|hated|dislike|dislikes|disliked|detest|despise|loathe|"
          r"cannot\s+stand|can\s+not\s+stand|(?:am\s+)?not\s+(?:a\s+)?(?:big\s+|huge\s+)?fan\s+of|am\s+not\s+into|"
          r"am\s+(?:sick|tired)\s+of|am\s+fed\s+up\s+with|am\s+not\s+much\s+of\s+a\s+fan\s+of)"
          r"\s+" + _O),
    _rule("like", r"\b(?:like(?!\s+(?:I|you|we|he|she|they)\s+(?:said|say|mean|know|was\s+saying))|"
          r"likes|love|loves|enjoy|enjoys|adore|adores|prefer|prefers|liking|"
          r"loving|enjoying|preferring|liked|loved|enjoyed|preferred|(?:am|been)\s+(?:a\s+)?(?:big\s+|huge\s+|"
          r"massive\s+|real\s+|long-time\s+|lifelong\s+|great\s+)?fan\s+of|"
          r"am\s+(?:no\s+longer\s+)?(?:really\s+|totally\s+|very\s+)?(?:into|obsessed\s+with|passionate\s+about|"
          r"crazy\s+about|keen\s+on|fond\s+of))\s+"
          # "like 4 cups before noon", "like six times": "like" as a filler word
          r"(?!(?:\d(?!0'?s\b)|a\s+(?:million|hundred|thousand|dozen)\b|twice\b|once\b|(?:two|three|four|"
          r"five|six|seven|eight|nine|ten|twenty|fifty|a\s+few)\s+(?:times|hours|cups|days|"
          r"weeks|minutes|years)\b))" + _O),
    # tools
    _rule("use", r"\b(?P<who>our|my|the)\s+(?:tech\s+|technology\s+|current\s+)?stack\s+"
          r"(?:is|includes|consists\s+of)\s+" + _O, subject="self"),
    _rule("use", r"\b(?:is|are)\s+(?:built|written|developed|implemented|made)\s+(?:with|in|on|"
          r"using)\s+" + _O),
    _rule("use", r"\b(?:runs|run|is\s+running|are\s+running|is\s+hosted|are\s+hosted|"
          r"is\s+deployed|are\s+deployed)\s+on\s+" + _O),
    _rule("use", r"\b(?:is|are)\s+(?:based\s+on|powered\s+by)\s+" + _O),
    _rule("use", r"\b(?:write|writes|writing)\s+(?:everything\s+|it\s+|all\s+|most\s+things\s+|"
          r"code\s+|our\s+\w+\s+)?in\s+" + _O),
    _rule("use", r"\b(?:write|writes|writing)\s+" + _O, lexicon_only=True),
    _rule("use", r"\b(?:deploy|deploys|deploying|host|hosts|hosting)\s+(?:everything\s+|it\s+|"
          r"(?:our|the|my)\s+[\w-]+\s+)?(?:on|to)\s+" + _O, lexicon_only=True),
    _rule("use", r"\b(?:use|uses|using|used(?!\s+to\b)|utilize|utilise|rely\s+on|relies\s+on|"
          r"relied\s+on|code\s+in|coding\s+in|"
          r"write\s+in|writing\s+in|program\s+in|programming\s+in|develop\s+in|developing\s+in|"
          r"build\s+with|building\s+with)\s+" + _O),
    # "at work we are on Microsoft Teams", "I keep my to-do list in Todoist": a name
    _rule("use", r"\b(?:am|are)\s+(?:all\s+)?on\s+(?!" + _NOT_TOOL + r")" + _NAME),
    _rule("use", r"\b(?:keep|track|manage|plan|do)\s+(?:all\s+)?(?:my|our)\s+" + _KEPT + r"\s+in\s+"
          r"(?!" + _NOT_TOOL + r")" + _NAME),
    _rule("use", r"\band\s+(?P<who>my|our)\s+" + _KEPT + r"\s+in\s+(?!" + _NOT_TOOL + r")" + _NAME,
          subject="self"),
    _rule("use", r"\b(?:run|runs|running|am\s+on|daily[- ]drive|work\s+with|working\s+with|drink|"
          r"drinks|drinking)\s+" + _O, lexicon_only=True),
]

# --------------------------------------------------------------------------- applying

_Q_START = re.compile(
    r"^\s*(?:do|does|did|are|is|am|can|could|would|should|will|have|has|shall|may|was|were)\s+"
    r"(?:you|i|we|they|he|she|it|your|there|anyone|someone)\b",
    re.I,
)
_WH = re.compile(r"^\s*(?:what|which|who|whom|whose|how|why|where|when)\b", re.I)
_REQUEST_TAIL = re.compile(
    r"[,;:]\s*(?:(?:so|and|but|anyway|now|then|pls|please)\s+)*(?:give|tell|help|suggest|recommend|"
    r"show|write|make|find|send|list|draft|plan)\s+(?:me|us)\b", re.I)
_ASK_TAIL = re.compile(
    r"(?:[,;:]|\s[-–—]\s|\s(?=(?:so|and|but)\s))\s*(?:(?:so|and|but|anyway|now|then)\s+)*"
    r"(?=(?:can|could|would|will)\s+you\b|(?:how|what|which|where|when|why|who)(?:'s|\s)|"
    r"(?:is|are|do|does|should|would|could|can|shall)\s+(?:it|there|that|this|i|we|they|these|"
    r"those|my|the)\b|any\s+\w+|"
    r"(?:tips|ideas|thoughts|suggestions|recs)\s*\?|help\s+me\b|please\b)", re.I)
_WH_Q = re.compile(r"\b(?:do|does|did|are|is|can|would|should|will)\s+(?:you|i|we|they)\b", re.I)
_TAG = re.compile(
    r",\s*(?:what about you|how about you|and you|do you|right|you|yours|what do you think|"
    r"have you|are you|do not you|or not|no|eh|ok|okay|how about yours)\s*\?+\s*$",
    re.I,
)
_HYPOTHETICAL_START = re.compile(
    r"^\s*(?:if(?![^,]{1,40}?\btaught\s+me\s+anything\b)|suppose|imagine|what if|assuming|"
    r"unless|i wish|say\s+(?=i\b|we\b)|let(?:'s|\s+us)\s+say)\b", re.I
)
_SUBJECT_NOISE = re.compile(
    r"^(?:(?:so|and|but|well|ok|okay|yeah|also|then|again|unfortunately|apparently|btw|lol|"
    r"today|yesterday|earlier|this\s+morning|i\s+(?:think|guess|found|learned|realized|noticed|"
    r"discovered|figured)(?:\s+out)?(?:\s+that)?)\s*,?\s+)+",
    re.I,
)
_NOT_A_SUBJECT = frozenset(
    "i we you he she they it this that everything something nothing someone everyone people "
    "me us one there which what".split()
)
_NOT_A_NAME = frozenset(
    "not a the here back sorry ready fine good done so just in on going from also still now "
    "really very called tired happy glad".split()
)
_NOT_A_PLACE_OR_ORG = frozenset("home remotely myself the moment free a while".split())


def _question_free(text: str) -> str | None:
    """``text`` without a trailing tag question ("…, what about you?") or request ("…, give me
    some new ones"); None for a question."""
    t = text.strip()
    request = _REQUEST_TAIL.search(t)
    if request and len(t[: request.start()].split()) >= 3:
        t = t[: request.start()].strip(" ,;:-")
    if _Q_START.match(t):
        return None
    if t.endswith("?"):
        m = _TAG.search(t)
        if m and not _WH.match(t):
            return t[: m.start()]
        # "I'm allergic to shellfish so can you swap the shrimp?": the statement before
        # the request is told; the request asks
        ask = _ASK_TAIL.search(t)
        lead = t[: ask.start()].strip(" ,;:-") if ask else ""
        if len(lead.split()) >= 3 and not _WH.match(lead) and not _Q_START.match(lead):
            return lead
        return None
    if _WH.match(t) and _WH_Q.search(t):
        return None
    return t


def _thing(text: str | None) -> str | None:
    """A lesson's subject: "The Docker build" -> "Docker build"; pronouns -> None."""
    if not text:
        return None
    t = tidy(_SUBJECT_NOISE.sub("", text.strip()))
    words = t.split()
    if len(words) > 1 and words[0].lower() in ("this", "that", "these", "those"):
        words = words[1:]  # "this build failed" is about the build
        t = " ".join(words)
    if not words or len(words) > 6 or {words[0].lower(), words[-1].lower()} & _NOT_A_SUBJECT:
        return None
    return "project" if t.lower() in _PROJECT_NOUNS else t


def _objects_for(rule: Rule, kind: str, raw: str) -> tuple[list[str], int]:
    if kind in ("plan", "goal"):
        # "finally sit the exam before the end of the quarter", "repaint it once it warms up"
        raw = _PLAN_TAIL.sub("", _PLAN_LEAD.sub("", raw))
        vp, used = verb_phrase(raw.lstrip())
        text = tidy(vp)
        first = vp.split()[0].lower() if vp.split() else ""  # before "the" is tidied away
        ok = valid(text, 12) and first not in PLAN_CHATTER and not text[:1].isupper()
        return ([text] if ok else []), used + len(raw) - len(raw.lstrip())
    if kind == "failed":
        vp, used = verb_phrase(re.sub(r"^\s*of\s+", "", raw))
        text = tidy(vp)
        return ([text] if valid(text, 12) else []), len(raw)
    if kind == "requires":
        raw = re.sub(r"\s+or\s+(?:newer|later|above|higher|greater|more)\b", "", raw)
        np, used = noun_phrase(raw.lstrip())
        items = [tidy(p) for p in LIST_SPLIT.split(np)]
        return [p for p in items if valid(p, 6)], used
    if kind in ("lives", "stop_lives", "move", "relocate", "works", "stop_works", "role",
                "stop_role"):
        # "Madrid and work at Acme": a lower-case word after "and" starts a new clause.
        raw = re.split(r"\s+(?:and|but)\s+(?:then\s+)?(?=[a-z])", raw)[0]
        stripped = raw.lstrip()
        if kind in ("lives", "move") and re.match(r"^an?\s", stripped, re.I):
            return [], 0
        if kind == "relocate" and re.match(r"^(?:an?|the)\s+[a-z]", stripped):
            return [], 0  # "we moved down to the basement": a room, not a town
        np, used = noun_phrase(stripped)
        text = tidy(np)
        if text.lower() in _NOT_A_PLACE_OR_ORG or not valid(text, 6):
            return [], 0
        if rule.extra.get("check") == "role" and not is_role_en(text):
            return [], 0
        called = re.search(r"\b(?:called|named)\s+(?P<n>(?-i:[A-Z]).*)$", text)
        return [called.group("n") if called else text], used + len(raw) - len(stripped)
    if kind.startswith("stop"):  # "deleted Notion off all my devices"
        raw = re.sub(r"\s+(?:off|from)\s+(?:all\s+)?(?:of\s+)?(?:my|the|our)\b.*$", "", raw)
    if kind in ("like", "dislike"):  # "birding at the marsh near my place": birding
        raw = re.sub(r"^(\s*\w+ing)\s+(?:at|near|around|by)\s+(?:the|a|an|my|our)\b.*$", r"\1",
                     raw, flags=re.I)
    return objects(raw, kind)


# What stands between a change and its two sides without being either: a level, a measure,
# a mood ("went from bad to worse", "from 80kg to 72kg", "from two days a week to three").
_NOT_A_SIDE = re.compile(
    r"^(?:[\d.,]+\s*\w{0,6}|(?:one|two|three|four|five|six|seven|eight|nine|ten|a|an)\s+"
    r"(?:days?|weeks?|months?|years?|hours?|times?|cups?|miles?|kilos?|pounds?)\b.*|bad|worse|"
    r"good|better|best|ok|okay|fine|great|zero|nothing|scratch|there|here|home|work|school|"
    r"hating\s+it|loving\s+it)$", re.I)


def _two_things(verb: str, a: str, b: str) -> bool:
    """Whether "<verb> from ``a`` to ``b``" names two things one uses, lives in or likes.

    Neither side may be a level or a measure. "went", "going" and "jumped" are also said
    of trips and of levels, so after them both sides must be known to the lexicon or named
    ("from android to an iPhone 15"), and not places ("went from Chicago to Denver" is a
    trip). A move between homes names places ("moved from Seattle to Denver"), not "the
    couch" and "the bed".
    """
    if _NOT_A_SIDE.match(a) or _NOT_A_SIDE.match(b):
        return False

    def named(x: str) -> bool:
        return (lookup(x) is not None or x[:1].isupper()
                or re.match(r"[a-z]+[A-Z]", x) is not None)

    if verb.startswith(("went", "going", "jumped", "made the jump", "making the jump")):
        return all(named(x) and (x not in PLACES_EN or lookup(x) is not None) for x in (a, b))
    if verb.startswith("mov"):
        return all(named(x) for x in (a, b))
    return True


# Words that open a chat line without being its subject ("ugh going from android to...")
_INTERJECTIONS = frozenset(
    "ugh ok okay so well honestly welp yeah yep man lol haha hmm anyway btw also and but".split())


def _gerund_lead(prefix: str, verb: str) -> tuple[str, list[str], list[str], float] | None:
    """The speaker as the subject of a change said as a gerund at the start of a clause
    ("Switching from Chrome to Firefox was easy", "ugh going from android to an iPhone 15
    is so confusing"): only interjections may come before it."""
    first = (verb.split() or [""])[0].lower()
    if not first.endswith("ing") and first not in ("made", "making"):
        return None
    clause = _CLAUSE_BREAK.split(prefix)[-1]
    if clause != prefix:  # "…, and going from X to Y": another clause's subject
        return None
    words = re.findall(r"[a-z']+", clause.lower())
    if any(w not in _INTERJECTIONS for w in words):
        return None
    return "self", [], [], 0.8


def _kind_after_flags(kind: str, flags: set[str]) -> str | None:
    if kind.startswith("stop_"):
        return kind
    if "stop" in flags:
        return _STOP_OF.get(kind)
    if "neg" in flags:
        return "dislike" if kind == "like" else None
    if "now" in flags and kind == "use":
        return "now_use"
    return kind


_ONLY_CUT = re.compile(r"\s*[,;]\s*(?:(?:and|but)\s+)?(?:I\s+)?(?:now\s+)?(?:only|just)\s+", re.I)


def _apply(rule: Rule, m: re.Match[str], text: str, group: int) -> tuple[list[Hit], int]:
    gd = m.groupdict()
    obj_start = m.start("obj") if gd.get("obj") is not None else m.end()
    verb = text[m.start() : obj_start]
    post = text[obj_start:]
    conf = rule.confidence
    if rule.subject == "group":
        subject = _thing(gd.get("subj"))
        if subject is None:
            return [], 0
        flags: set[str] = set()
    else:
        if rule.subject == "self":
            who = (gd.get("who") or "my").lower()
            subject = "project" if who in ("our", "the") else "self"
            between: list[str] = []
            lead = _CLAUSE_BREAK.split(text[: m.start()])[-1].lower().split()
            if any(w in _HYPOTHETICAL_LEAD for w in lead):
                return [], 0
        else:
            found = _subject(text[: m.start()], verb)
            if found is None and rule.kind == "switch":
                found = _gerund_lead(text[: m.start()], verb)
            if found is None:
                return [], 0
            subject, _, between, cap = found
            conf = min(conf, cap)
        flags = _flags(between, "" if rule.kind == "dislike" else verb, post)
        first = verb.split()[0].lower() if verb.split() else ""
        if first in _PARTICIPLES and not {"have", "has"} & set(between):
            return [], 0  # "I lived in Paris": over, but not clearly a retraction either
        if "modal" in flags or (rule.self_only and subject != "self"):
            return [], 0
    if "hedge" in flags:
        conf = min(conf, 0.65)
    kind = _kind_after_flags(rule.kind, flags)
    if rule.kind == "dislike" and _NOT_ANYMORE.search(verb) and _ANYMORE.search(post):
        kind = "stop_like"  # "I'm not into jazz anymore" ends a taste, it is no dislike
    if kind is None:
        return [], 0
    if gd.get("obj2") is not None:
        a, _ = noun_phrase(gd["obj"])
        b, used = noun_phrase(gd["obj2"].lstrip())
        a, b = tidy(a), tidy(b)
        if not (valid(a, 5) and valid(b, 5)):
            return [], 0
        if rule.extra.get("check") == "named" and not all(
                canonicalize(x)[1] is not None or x[:1].isupper() or re.match(r"[a-z]+[A-Z]", x)
                for x in (a, b)):  # a name, a known thing, or one by version (iPhone 15)
            return [], 0  # "moved my desk out of the bedroom into the study"
        verb_word = (gd.get("verb") or "").lower()
        two = "move_from" if verb_word.startswith("mov") else "switch"
        if not _two_things(verb_word, a, b):
            return [], 0
        return [Hit(two, subject, a, b, conf, group=group)], m.start("obj2") + used
    if kind == "name":
        name = gd["obj"].strip()
        if name.split()[0].lower() in _NOT_A_NAME:
            return [], 0
        out = [Hit("name", subject, name, confidence=conf)]
        return out + _tail_hits("name", subject, text[m.end() :], conf), m.end()
    if rule.extra.get("check") == "routine" and kind != "like":
        return [], 0  # "I don't drink coffee every day" says no taste either way
    if rule.extra.get("check") == "stop" and not kind.startswith("stop_"):
        return [], 0  # "I eat tofu" is no taste; "I don't eat tofu anymore" ends one
    # "coffee, only tea now": the part after "only" is the new value (only_now), not a list item
    raw_obj = _ONLY_CUT.split(gd["obj"])[0] if kind.startswith("stop_") else gd["obj"]
    items, used = _objects_for(rule, kind, raw_obj)
    if not items and kind in ("like", "dislike", "stop_like") and PRONOUN_OBJECT.match(raw_obj):
        thing = antecedent(text, obj_start)  # "Cilantro tastes like soap, I can't stand it"
        items, used = ([thing], len(raw_obj) - len(raw_obj.lstrip()) + 2) if thing else ([], 0)
    if rule.lexicon_only:
        items = [i for i in items if lookup(i) is not None]
    check = rule.extra.get("check")
    if check == "tool_list":
        items = [i for n, i in enumerate(items) if tool_list_ok(i, first=n == 0)]
    if check == "named":  # "my editor is VS Code", not "my phone is dead"
        # "a ThinkPad running Arch Linux": the device, not what it runs
        items = [re.split(r"\s+(?:running|with|on|that|which)\s+", i, maxsplit=1)[0]
                 for i in items]
        items = [i for i in items if lookup(i) is not None or i[:1].isupper() or i[:1].isdigit()]
    if check == "place":  # "I'm new to Austin", not "new to Python" or "new to Reddit"
        items = [i for i in items if i in PLACES_EN]
    if kind in ("like", "dislike", "stop_like"):
        items = [like_object(i) for i in items]
    if kind in ("use", "now_use"):  # "the whole vault syncs through Syncthing" names no tool
        items = [i for i in items if len(i.split()) <= 4 or lookup(i) is not None]
    if kind.startswith("stop_"):
        # "deleted the app", "cancelled the subscription": the product named before it in
        # the sentence, else nothing ("I let my Duolingo streak die and deleted the app")
        named = [_named_before(text[: m.start()]) if _GENERIC_THING.match(i) else i
                 for i in items]
        items = [i for i in named if i]
    kinds = [kind] * len(items)
    if kind == "stop_use" and check == "give_up":
        kinds, items = _given_up(gd.get("verb") or "", raw_obj, items)
    elif kind == "stop_use":
        items = [i for i in items if not re.match(r"^[a-z]+ing\b", i) or lookup(i)]
        kinds = [kind] * len(items)
    if not items:
        return [], 0
    hint = gd.get("dom")
    out = [Hit(k, subject, i, confidence=conf, domain_hint=hint, group=group)
           for k, i in zip(kinds, items, strict=True)]
    end = obj_start + used
    if kind == "works" and gd.get("role") and is_role_en(tidy(gd["role"])):
        out.append(Hit("role", subject, tidy(gd["role"]), confidence=conf, group=group))
    if kind in ("works", "role"):
        out += _tail_hits(kind, subject, text[end:], conf)
    app = _LEARNED_ON.match(text[end:]) if kind == "learning" else None
    if app and (lookup(app.group("app")) is not None or (
            app.group("prep").lower() != "with" and not re.match(_NOT_TOOL, app.group("app")))):
        out.append(Hit("use", subject, app.group("app"), confidence=conf, group=group))
        end += app.end()
    platform = platform_after(text[end:]) if kind in ("use", "now_use") else None
    if platform and lookup(platform) is not None:
        out.append(Hit(kind, subject, platform, confidence=conf, group=group))
        end += len(text[end:]) - len(text[end:].lstrip()) + 3 + len(platform)
    return out, end


_NOT_ANYMORE = re.compile(r"\bnot\s+(?:much\s+of\s+a\s+|a\s+)?(?:big\s+|huge\s+)?(?:fan|into)\b",
                          re.I)
_ANYMORE = re.compile(r"\b(?:anymore|any\s+more|any\s+longer|these\s+days|now)\b", re.I)
_OWNED = re.compile(r"^\s*(?:my|our|the|a|an|his|her|their|your)\s", re.I)


# where one learns is a tool in use: "learning Spanish on Duolingo"; after "with" only a
# known name ("with Anki"), since "learning guitar with Tom" names a person
_LEARNED_ON = re.compile(r"^\s+(?P<prep>on|with|using|through)\s+(?P<app>(?-i:[A-Z])[\w.+-]*"
                         r"(?:\s+(?-i:[A-Z])[\w.+-]*){0,2})\b", re.I)


_GENERIC_THING = re.compile(r"^(?:the\s+|that\s+|this\s+)?(?:app|apps|subscription|sub|membership|"
                            r"account|service|platform|thing|program|plan)$", re.I)


def _named_before(prefix: str) -> str | None:
    """The last product the lexicon knows among the capitalised names in ``prefix``."""
    for m in reversed(list(re.finditer(r"(?-i:[A-Z])[\w+.-]*(?:\s+(?-i:[A-Z])[\w+.-]*)?",
                                       prefix))):
        for name in (m.group(0), m.group(0).split()[0]):
            if lookup(name) is not None:
                return name
    return None


def _given_up(verb: str, raw: str, items: list[str]) -> tuple[list[str], list[str]]:
    """(kinds, objects) of "I quit / gave up / cut out X": a known tool stops being used; an
    "-ing" habit or game stops being liked ("I quit smoking", "gave up playing tennis");
    anything else may have been either, so both end ("I cut out Coke"). With the verbs
    that also take everyday objects ("I dropped my phone") only a known name counts."""
    kinds: list[str] = []
    out: list[str] = []
    for item in items:
        paid = re.match(r"^(?:paying\s+for|subscribing\s+to|using)\s+(?P<x>\S.*)$", item, re.I)
        if paid:  # "I stopped paying for ChatGPT Plus": a product no longer used
            product = tidy(paid.group("x"))
            if product[:1].isupper() or lookup(product) is not None:  # not "the gym"
                kinds.append("stop_use")
                out.append(product)
            continue
        taste = gerund_taste(item)
        if lookup(item) is not None:
            kinds.append("stop_use")
            out.append(item)
        elif taste:
            kinds.append("stop_like")
            out.append(taste)
        elif not (LOOSE_GIVE_UP.match(verb) and _OWNED.match(raw)):
            kinds.append("stop_either")
            out.append(item)
    return kinds, out


def _tail_hits(kind: str, subject: str, tail: str, conf: float) -> list[Hit]:
    """The other half of "works at Google as a data scientist", "am a data scientist at
    Google", "I am Priya, a data engineer at Spotify"."""
    if kind == "name":
        m = re.match(r"^\s*,\s*(?:an?|the)\s+(?P<obj>[^.;!?]+)", tail, re.I)
        if not m:
            return []
        role, used = noun_phrase(m.group("obj"))
        if not is_role_en(tidy(role)):
            return []
        hits = [Hit("role", subject, tidy(role), confidence=conf)]
        return hits + _tail_hits("role", subject, m.group("obj")[used:], conf)
    if kind == "works":
        m = re.match(r"^(?:\s+(?:in|since|back\s+in|from)\s+[\w-]+|\s+(?:on\s+)?(?:monday|tuesday|"
                     r"wednesday|thursday|friday|saturday|sunday|tomorrow|today|next\s+\w+))?"
                     r"\s*,?\s*as\s+"
                     r"(?:an?\s+|the\s+)?(?P<obj>[^.;!?]+)", tail, re.I)
        other = "role"
    else:
        # "at Unilever", "for Ørsted", "at a small firm called Ortiz & Blum"
        m = re.match(r"^\s*(?:at|for|with)\s+(?:an?\s+(?:[\w-]+\s+){0,3}?(?:firm|company|startup|"
                     r"agency|practice|clinic|studio|shop|business|charity|school|hospital)\s+"
                     r"(?:called|named)\s+)?"
                     r"(?P<obj>[A-Z0-9À-ÖØ-Þ](?:[^.;!?]|(?<=\bSt)\.)*)", tail)
        other = "works"
    if not m:
        return []
    obj = m.group("obj")
    if other == "works" and re.match(r"\d+\s*(?:years?|yrs?|months?|weeks?|days?|hours?|"
                                      r"decades?)\b", obj, re.I):
        return []  # "I've been a nurse for 10 years": how long, not where
    if other == "works":  # "at Mass General and these night shifts are killing me"
        obj = re.split(r"\s+(?:and|but|so|because|while|where|which|who)\s+(?-i:[a-z])", obj)[0]
    np, _ = noun_phrase(obj)
    text = tidy(np)
    return [Hit(other, subject, text, confidence=conf)] if valid(text, 5) else []


_PLAN_LEAD = re.compile(r"^\s*(?:finally|actually|definitely|really|probably|officially|just|"
                        r"also|totally|seriously)\s+", re.I)
_PLAN_TAIL = re.compile(r"\s+(?:once|when|after|before|as\s+soon\s+as|because|since|so\s+that|"
                        r"until|by\s+the\s+end)\b.*$", re.I)


def _owned_products_en(text: str, found: list[tuple[int, int, list[Hit]]]) -> list[Hit]:
    """The products a question names as the speaker's own ("my OpenAI key is ..., why?"),
    not those it asks about using ("Can I use Notion for this?")."""
    return [h for h in products_en(text, found)
            if re.search(rf"\b(?:[Mm]y|[Oo]ur)\s+{re.escape(h.obj)}\b", text)]


def _asked_in_passing(text: str) -> list[Hit]:
    """What a question or request tells in passing, whatever it asks: the product a how-to
    question is about ("How do I add a rollup in Notion?"), and the user's own named people
    and pets, job and devices on the way ("Can you recommend a vet for my cat Luna?", "help
    me write a note to my team at Shopify", "my iPhone 12 won't charge?"). Not an unnamed
    relative ("Should I call my dad?"), nor when it supposes."""
    if _HYPOTHETICAL_START.match(text):
        return []
    found: list[tuple[int, int, list[Hit]]] = []
    if how := how_to_en(text):
        found.append((len(text), len(text), how))
    add_passes(text, found, (kin_in_passing_en, pets_in_passing_en, jobs_in_passing_en,
                             owned_en, _owned_products_en))
    # a relative or pet only by name: "Should I call my dad?" asks, it tells nothing
    found = [(s, e, [h for h in hs if h.kind not in ("family", "pet") or h.obj != h.obj2])
             for s, e, hs in found]
    return attach_when(text, found, bool(_HEDGE.search(text)))


def hits(sentence: str, previous: list[Hit] | None = None) -> list[Hit]:
    """Everything the English patterns find in one sentence; ``previous``: what the
    sentence before it in the same message said (an ending there may get its new value
    here)."""
    text = _question_free(_expand(sentence))
    if text is None:
        return _asked_in_passing(_expand(sentence))
    if _HYPOTHETICAL_START.match(text):
        return []
    spans, found_all = Spans(), find_en(text)
    endings = find_endings(text)
    # an ending wins over the mention of the pet or person inside it ("we had to rehome
    # our dog Max" ends Max; "our dog Max" alone would say Max is had)
    found_all = [f for f in found_all
                 if not (all(h.kind in ("pet", "family") for h in f[2])
                         and any(s <= f[0] and f[1] <= e for s, e, _ in endings))]
    for extra in (find_allergy_pronoun(text), endings, find_role_verbs(text),
                  find_turned_tastes(text)):
        found_all += [f for f in extra if all(f[1] <= s or f[0] >= e for s, e, _ in found_all)]
    for start, end, _ in found_all:
        spans.take(start, end)
    for group, (rule, m) in enumerate(scan(RULES, text), start=1):
        obj_start = m.start("obj") if m.groupdict().get("obj") is not None else m.end()
        if not spans.free(m.start(), max(obj_start, m.start() + 1)):
            continue
        found, end = _apply(rule, m, text, group)
        if found:
            spans.take(m.start(), max(end, obj_start))
            found_all.append((m.start(), max(end, obj_start), found))
    after = only_now(text, found_all) or new_value_after_stop(text, found_all, previous or [])
    if after:
        found_all.append((len(text), len(text), after))
    add_passes(text, found_all, (kin_in_passing_en, pets_in_passing_en, homes_in_passing_en,
                                 jobs_in_passing_en,
                                 plans_in_passing_en, products_en, owned_en, tastes_en))
    return attach_when(text, found_all, bool(_HEDGE.search(text)))
