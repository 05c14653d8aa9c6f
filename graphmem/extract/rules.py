"""The offline rule extraction engine: deterministic, English and Chinese, stdlib only.

``RuleExtractor().extract(messages)`` splits each message into sentences, runs the English or
Chinese patterns (``_english`` / ``_chinese``; a sentence with any Chinese character is read
as Chinese), and turns what they find into relations with these conventions, which the
service's conflict rules rely on:

* subject: the message's ``speaker``, else ``"user"`` for ``role == "user"`` (first-person
  statements of an unnamed assistant are dropped); "we / our project / 我们 / 项目" ->
  ``"project"``; lessons keep the thing they talk about ("Docker build").
* predicates: ``prefers likes dislikes uses name_is lives_in works_at has_role plans_to
  learning goal failed_because requires``, and for personal facts (``_personal``)
  ``allergic_to`` (category ``health``), ``has_pet`` and ``has_<kin>`` (``has_sister``,
  ``has_son``…; category ``family``; the object is the name, else the species / kin word)
  and ``learned`` (a lesson as said, category ``lesson``). A key or password found by
  ``graphmem.guard.scan`` is never a subject or object.
* a preference or tool whose object is in the lexicon gets a domain: "I like Vue" ->
  ``prefers`` / ``preference:frontend_framework`` / exclusive, so a later "I now prefer
  React" lands in the same slot. Outside the lexicon: ``likes`` / ``"preference"`` /
  non-exclusive. Tools: ``uses`` / ``tool:<domain>`` (exclusive) or ``"tool"``.
  Several objects of one domain in one list ("I like Python and Rust") are all true at once,
  so they are emitted non-exclusive rather than as a dispute.
* changes: "switched from X to Y", "now use Y", 改用Y are choices: for a known tool they emit
  both ``prefers`` and ``uses`` for Y (each slot then supersedes its old value), and "from
  X" / "no longer use X" / 不再用X emit ``stop=True`` for both on X. "no longer like X"
  stops only the preference. Tastes (drinks, dark mode, tabs) never get a ``uses``.
  "I quit / gave up / cut out X" with X unknown ends both ``likes`` and ``uses`` X (it was
  one or the other; a stop that finds nothing changes nothing), an "-ing" habit only the
  taste ("I quit smoking"). A break-up stops ``has_<partner>`` for the name (every partner
  slot when the kin is not said), a pet that died or was rehomed stops ``has_pet``.
  (The service adds one more: a like ends a dislike of the same thing, and the reverse.)
* identity: ``name_is`` / ``lives_in`` (category ``identity``), ``works_at`` / ``has_role``
  (``work``), all exclusive. "We relocated to Lyon" is the speaker's move; a verb with no
  subject continues a first-person clause ("I moved to Oslo and joined Equinor").
  Plans: ``plans_to`` (``plan``), ``goal`` (``goal``), ``learning`` (``learning``);
  lessons: ``failed_because`` / ``requires`` (``lesson``).
* confidence: 0.9 stated plainly; 0.8 when a Chinese subject is left out; 0.6-0.7 hedged
  ("I think", "maybe", 可能, 觉得) or tentative ("hope to", "thinking about"). Questions,
  conditionals ("if I used…", 如果…) and modals ("I would use") produce nothing.
* ``valid_from``: the time the sentence states (see ``_dates``), else None so the service
  uses ``occurred_at``; always None for plans and goals (their dates are in the future).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from datetime import datetime

from graphmem.extract import Message, _chinese, _english
from graphmem.extract._dates import resolve_time
from graphmem.extract._english_changes import PARTNER_KINS
from graphmem.extract._lexicon import NON_TOOL_DOMAINS, Term, canonicalize, domain_of_word
from graphmem.extract._personal import KIN_ZH
from graphmem.extract._products import PLACES_EN
from graphmem.extract._text import Hit, has_cjk, split_sentences
from graphmem.guard import scan
from graphmem.model import (
    CURRENT_OBJECT,
    ExtractedEntity,
    ExtractedRelation,
    Extraction,
    normalize,
)

_PHRASE = {
    "prefers": "prefers", "likes": "likes", "dislikes": "dislikes", "uses": "uses",
    "name_is": "is named", "lives_in": "lives in", "works_at": "works at",
    "has_role": "works as", "plans_to": "plans to", "learning": "is learning",
    "goal": "has the goal to", "failed_because": "failed because", "requires": "requires",
    "allergic_to": "is allergic to", "has_pet": "has a pet", "learned": "learned",
    "goes": "goes",
}
_OBJECT_TYPE = {
    "name_is": "person", "lives_in": "place", "works_at": "organization", "has_role": "role",
    "plans_to": "goal", "goal": "goal", "learning": "topic", "allergic_to": "allergen",
    "has_pet": "animal", "learned": "lesson", "goes": "activity",
}
_UNDATED = frozenset({"plans_to", "goal"})
# predicates whose object's type the predicate says, whatever the lexicon knows the name as
_TYPED_BY_PREDICATE = frozenset({"works_at", "lives_in", "name_is"})
# words of software work: "we moved to X" among them moves a project to a tool, else it is
# the speaker's household moving home ("We moved to Bristol in August")
_WORK_WORDS = re.compile(
    r"\b(?:code|codebase|repos?|stack|database|db|servers?|cluster|cloud|ci|pipelines?|"
    r"backend|frontend|apps?|tools?|tooling|platform|framework|library|services?|tickets?|"
    r"issues|docs|wiki|deploy\w*|hosting|infra\w*|team|sprint|projects?|migrat\w*|"
    r"version|release|builds?|tests?|monorepo|vendor|provider|license|licence|plan|tier|"
    r"company|organi[sz]ation|office|workspace|e-?mail|accounts?|software|system|suite)\b",
    re.I)


# A tool taken up beside the others: "I also use Cursor now", "started using Cursor too",
# "use Obsidian as well"
_BESIDES = re.compile(
    r"\balso\s+(?:\w+\s+){0,2}?(?:use|uses|using|started|start|tried|try|got|run|running)\b|"
    r"\b(?:use|uses|using|used)\s+\S+(?:\s+\S+)?\s+(?:too|as\s+well)\b", re.I)
# "live in X" said of an app or a tool: X all day, X for tickets (not "for work", "for now",
# "for two years")
_LIVE_IN_AN_APP = re.compile(
    r"(?i)\blive\s+in\s+X\s+(?:all\s+day|day\s+and\s+night|24/7|"
    r"for\s+(?!(?:work|now|good|school|uni|college|a|an|the|my|his|her|our|their|"
    r"\d+|one|two|three|four|five|six|ten|several|many|some|years?|months?|weeks?|"
    r"the\s+time\s+being)\b)[a-z]+)")


class _Emitter:
    """Turns the hits of one sentence into relations and entities."""

    def __init__(self, speaker: str | None, index: int, sentence: str = "") -> None:
        self.speaker = speaker
        self.when: datetime | None = None
        self.index = index
        self.sentence = sentence  # what "we moved to X" is read against
        self.relations: list[ExtractedRelation] = []
        self.entities: list[ExtractedEntity] = []

    # ---------------------------------------------------------------- helpers

    def _subject(self, hit: Hit) -> tuple[str, str, Term | None] | None:
        if hit.subject == "self":
            return (self.speaker, "person", None) if self.speaker else None
        if hit.subject == "project":
            return "project", "project", None
        name, term = canonicalize(hit.subject)
        return name, (term.domain if term else "thing"), term

    def _add(self, hit: Hit, subj: tuple[str, str, Term | None], predicate: str, obj: str,
             category: str, exclusive: bool, stop: bool = False, said: str | None = None,
             object_type: str | None = None) -> None:
        name, term = (obj, None) if obj == CURRENT_OBJECT else canonicalize(obj)
        if not name or scan(name) or scan(subj[0]):
            return  # a key or password is never a memory's subject or object
        phrase = _PHRASE.get(predicate) or predicate.replace("_", " ")
        statement = f"{subj[0]} {'no longer ' + phrase if stop else phrase} {name}"
        if said is not None:
            statement = f"{subj[0]} {said}"
        if stop and predicate == "learning":
            statement = f"{subj[0]} is no longer learning {name}"
        self.relations.append(
            ExtractedRelation(
                subject=subj[0], predicate=predicate, object=name, category=category,
                exclusive=exclusive, confidence=round(hit.confidence, 2),
                valid_from=None if predicate in _UNDATED else self.when,
                stop=stop, statement=statement, message_index=self.index,
            )
        )
        self._entity(subj[0], subj[1], subj[2])
        if name == CURRENT_OBJECT:
            return  # no thing of that name: the service finds what it ends
        # a workplace is an organization even when its name is a known make ("works at Tesla")
        otype = object_type or (_OBJECT_TYPE.get(predicate) if predicate in _TYPED_BY_PREDICATE
                                else None) or (term.domain if term else
                                               _OBJECT_TYPE.get(predicate, "thing"))
        self._entity(name, otype, term)

    def _entity(self, name: str, etype: str, term: Term | None) -> None:
        aliases = list(term.aliases) if term is not None and term.canonical == name else []
        self.entities.append(
            ExtractedEntity(name=name, type=etype, aliases=aliases, message_index=self.index)
        )

    @staticmethod
    def _domain(obj: str, hint: str | None = None) -> str | None:
        _, term = canonicalize(obj)
        if term is not None:
            return term.domain
        return domain_of_word(hint) if hint else None

    # ---------------------------------------------------------------- families

    def preference(self, hit: Hit, subj: tuple[str, str, Term | None], obj: str, *,
                   stop: bool = False, shared: bool = False, negative: bool = False) -> None:
        if negative:
            self._add(hit, subj, "dislikes", obj, "preference", False)
            return
        domain = self._domain(obj, hit.domain_hint) or _favourite_slot(hit.domain_hint)
        if domain:
            self._add(hit, subj, "prefers", obj, f"preference:{domain}", not shared, stop)
        else:
            self._add(hit, subj, "likes", obj, "preference", False, stop)

    def tool(self, hit: Hit, subj: tuple[str, str, Term | None], obj: str, *,
             choice: bool = False, stop: bool = False, shared: bool = False) -> None:
        """``uses``; a *choice* ("now use", "switched to") also sets the preference."""
        domain = self._domain(obj)
        if domain is None:
            self._add(hit, subj, "uses", obj, "tool", False, stop)
            return
        if domain in NON_TOOL_DOMAINS or choice or stop:
            self._add(hit, subj, "prefers", obj, f"preference:{domain}", not shared, stop)
        if domain not in NON_TOOL_DOMAINS:
            self._add(hit, subj, "uses", obj, f"tool:{domain}", not shared, stop)

    def given_up(self, hit: Hit, subj: tuple[str, str, Term | None], obj: str) -> None:
        """"I quit X", "I cut out X": a known tool or taste ends in its own slot; anything
        else may have been liked or used, so both end (a stop that finds nothing to end
        changes nothing)."""
        if self._domain(obj) is not None:
            self.tool(hit, subj, obj, stop=True)
            return
        self._add(hit, subj, "likes", obj, "preference", False, True)
        self._add(hit, subj, "uses", obj, "tool", False, True)

    def emit(self, hit: Hit, shared: bool) -> None:
        subj = self._subject(hit)
        if subj is None:
            return
        k, o = hit.kind, hit.obj
        person = hit.subject == "self"
        if k in ("like", "dislike", "stop_like"):
            self.preference(hit, subj, o, stop=k == "stop_like", shared=shared,
                            negative=k == "dislike")
        elif k in ("use", "now_use", "stop_use"):
            self.tool(hit, subj, o, choice=k == "now_use", stop=k == "stop_use", shared=shared)
        elif k == "stop_either":
            self.given_up(hit, subj, o)
        elif k == "switch" or (k == "move_from" and (self._domain(o) or self._domain(hit.obj2))):
            self.tool(hit, subj, o, stop=True)
            self.tool(hit, subj, hit.obj2, choice=True)
        elif k == "move" and hit.subject == "project" and self._domain(o) is None \
                and not _WORK_WORDS.search(self.sentence):
            if self.speaker and o[:1].isupper():  # "we moved to Bristol": a home
                self._add(hit, (self.speaker, "person", None), "lives_in", o, "identity", True)
            # "we moved to the suburbs": neither a tool nor a place to name
        elif k == "move" and (self._domain(o) or not person):
            self.tool(hit, subj, o, choice=True)  # a project "moves to" a tool, not a city
        elif k in ("lives", "relocate") and self.speaker and (self._domain(o) or (
                o not in PLACES_EN and _LIVE_IN_AN_APP.search(
                    self.sentence.replace(o, "X", 1)))):
            # "we basically live in Notion", "we live in Linear for tickets": an app
            self.tool(hit, (self.speaker, "person", None), o)
        elif k == "relocate" and self.speaker:  # people relocate, "we" included
            self._add(hit, (self.speaker, "person", None), "lives_in", o, "identity", True)
        elif k in ("move", "lives", "stop_lives") and person:
            self._add(hit, subj, "lives_in", o, "identity", True, k == "stop_lives")
        elif k == "move_from" and person:
            self._add(hit, subj, "lives_in", o, "identity", True, True)
            self._add(hit, subj, "lives_in", hit.obj2, "identity", True)
        elif k == "works_switch" and person:
            self._add(hit, subj, "works_at", o, "work", True, True)
            self._add(hit, subj, "works_at", hit.obj2, "work", True)
        elif k in ("works", "stop_works") and person:
            self._add(hit, subj, "works_at", o, "work", True, k == "stop_works")
        elif k in ("stop_job", "retire") and person:
            # "I quit my job", "I retired": whatever employer (and role) is current ends
            self._add(hit, subj, "works_at", CURRENT_OBJECT, "work", True, True,
                      said="no longer works there")
            if k == "retire":
                self._add(hit, subj, "has_role", CURRENT_OBJECT, "work", True, True,
                          said="has retired")
        elif k in ("role", "stop_role") and person:
            self._add(hit, subj, "has_role", o, "work", True, k == "stop_role")
        elif k == "name" and person:
            self._add(hit, subj, "name_is", o, "identity", True)
        elif k == "plan":
            self._add(hit, subj, "plans_to", o, "plan", False)
        elif k == "goal":
            self._add(hit, subj, "goal", o, "goal", False)
        elif k in ("learning", "stop_learning"):
            self._add(hit, subj, "learning", o, "learning", False, k == "stop_learning")
        elif k == "failed":
            self._add(hit, subj, "failed_because", o, "lesson", False)
        elif k == "requires":
            self._add(hit, subj, "requires", o, "lesson", False)
        elif k == "allergy" and person:
            self._add(hit, subj, "allergic_to", o, "health", False)
        elif k == "learned":
            self._add(hit, subj, "learned", o, "lesson", False)
        elif k in ("habit", "event") and person:
            # the cadence as said stays in the statement: "user goes climbing every Tuesday"
            self._add(hit, subj, "goes", o, k, False,
                      said=f"goes {o} {hit.obj2}" if hit.obj2 else None)
        elif k in ("family", "pet") and person:
            self.relative(hit, subj)
        elif k == "split" and person:
            # "Sophie and I split up" does not say what Sophie was: each partner slot that
            # holds her ends; the others hold no Sophie, and a stop of nothing changes nothing
            for kin in (hit.obj2,) if hit.obj2 else PARTNER_KINS:
                self._add(hit, subj, f"has_{kin}", o, "family", False, True,
                          said=f"is no longer with {o}" if o != CURRENT_OBJECT
                          else f"is no longer with their {kin}", object_type="person")
        elif k == "pet_gone" and person:
            self._add(hit, subj, "has_pet", o, "family", False, True,
                      said=f"no longer has {o}", object_type="animal")

    def relative(self, hit: Hit, subj: tuple[str, str, Term | None]) -> None:
        """A family member ("has_sister Lena") or a pet ("has_pet Biscuit", typed "dog")."""
        named = hit.obj != hit.obj2 and hit.obj not in KIN_ZH  # 我妈妈: a kin word, no name
        if hit.kind == "pet":
            said = f"has a {hit.obj2} named {hit.obj}" if named else f"has a {hit.obj2}"
            self._add(hit, subj, "has_pet", hit.obj, "family", False, said=said,
                      object_type=hit.obj2 if named else "animal")
            return
        kin = hit.obj2 if re.fullmatch(r"[a-z]+", hit.obj2) else "relative"
        said = f"has a {kin} named {hit.obj}" if named else f"has a {kin}"
        self._add(hit, subj, f"has_{kin}", hit.obj, "family", False, said=said,
                  object_type="person")


def _shared_groups(hits: list[Hit]) -> set[tuple[int, str]]:
    """(group, domain) pairs named more than once in one list: simultaneous, not exclusive."""
    counts: Counter[tuple[int, str]] = Counter()
    for h in hits:
        if h.kind in ("like", "use", "now_use"):
            domain = _Emitter._domain(h.obj, h.domain_hint)
            if domain:
                counts[(h.group, domain)] += 1
    return {key for key, n in counts.items() if n > 1}


def _favourite_slot(kind: str | None) -> str | None:
    """The slot of a favourite of a kind the lexicon does not know: "my favourite band is
    Coldplay" and later "my favourite band is Arctic Monkeys" compete in ``favourite_band``
    (最喜欢的运动 in ``favourite_运动``), so the second ends the first."""
    words = normalize(kind or "").split()
    if not words or len(words) > 3:
        return None
    return "favourite_" + "_".join(words)


class RuleExtractor:
    """Regex-and-lexicon extraction; no network, no model, same input -> same output."""

    name = "rules"

    def extract(self, messages: list[Message]) -> Extraction:
        """Entities and relations of ``messages``; ``message_index`` points into the list."""
        relations: list[ExtractedRelation] = []
        entities: dict[str, ExtractedEntity] = {}
        for index, message in enumerate(messages):
            speaker = message.speaker or ("user" if message.role == "user" else None)
            seen: dict[tuple[str, str, str, bool], int] = {}
            previous: list[Hit] = []
            for sentence in split_sentences(message.content or ""):
                # "My last day at Stripe was Friday. I'm at Notion now.": the English new
                # value may follow its ending in the next sentence
                found = (_chinese.hits(sentence) if has_cjk(sentence)
                         else _english.hits(sentence, previous))
                previous = found
                if not found:
                    continue
                emitter = _Emitter(speaker, index, sentence)
                shared = _shared_groups(found)
                besides = _BESIDES.search(sentence) is not None
                for hit in found:
                    domain = _Emitter._domain(hit.obj, hit.domain_hint)
                    emitter.when = resolve_time(hit.when_text or sentence, message.occurred_at)
                    if besides and hit.kind in ("use", "now_use"):
                        # "I've started using Cursor too": one more, the others stay
                        emitter.emit(replace(hit, kind="use"), True)
                        continue
                    emitter.emit(hit, (hit.group, domain or "") in shared)
                for rel in emitter.relations:
                    key = (normalize(rel.subject), rel.predicate, normalize(rel.object), rel.stop)
                    if key in seen:  # the same statement twice in one message: keep the surer
                        j = seen[key]
                        if rel.confidence > relations[j].confidence:
                            relations[j] = rel
                        continue
                    seen[key] = len(relations)
                    relations.append(rel)
                for ent in emitter.entities:
                    entities.setdefault(normalize(ent.name), ent)
        return Extraction(entities=list(entities.values()), relations=relations, engine="rules")
