"""Patterns in a user's current relations, and the template conclusions drawn from them.

The user's subgraph (entities, current relations, the episodes evidencing them) is built
with networkx. A pattern is the neighbourhood of one subject entity in one family of
relations:

* ``preference``: an exclusive preference or tool slot (``preference:editor``,
  ``tool:database``); each object held in it now is a candidate, two or more candidates
  (DISPUTED relations) make a disputed pattern;
* ``taste``: open-ended likes / dislikes (category ``preference``) of one predicate;
* ``rule``: lessons about one subject;
* ``habit``: one recurring event (category ``event`` / ``habit`` / ``routine``).

Evidence is counted in independent units: the distinct episodes behind the relations'
claims (a claim without an episode counts by its ``sourceRef``, else on its own), so a
statement repeated in one episode, or two relations drawn from one message, count once.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime

import networkx as nx  # type: ignore[import-untyped]

from graphmem.model import make_id, normalize
from graphmem.store.base import Row

#: a Han character (what a Chinese text holds)
HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff]")
FAMILY_CATEGORIES = {"event": "habit", "habit": "habit", "routine": "habit", "lesson": "rule"}


@dataclass(slots=True)
class Candidate:
    """One conclusion a pattern supports: its source relations and evidence."""

    key: str  # the object (normalised) for a preference slot, else ""
    display: str  # what the conclusion names (the object as sent, or a list)
    sources: list[Row]
    units: set[str] = field(default_factory=set)
    starts: list[int] = field(default_factory=list)

    @property
    def confidence(self) -> float:
        return support(self.sources, len(self.units))


@dataclass(slots=True)
class Pattern:
    """A group of related evidence: one lineage of abstraction versions."""

    kind: str  # preference / taste / rule / habit
    lineage: str  # stable across runs: hash of user + group key
    subject: str
    facet: str  # the slot's domain, the predicate, or the event
    candidates: list[Candidate]
    scope: str | None = None  # its sources' scope: patterns never mix scopes

    @property
    def disputed(self) -> bool:
        return len(self.candidates) > 1

    @property
    def units(self) -> set[str]:
        return set().union(*(c.units for c in self.candidates))

    @property
    def confidence(self) -> float:
        return support([s for c in self.candidates for s in c.sources], len(self.units))

    def evidence_key(self) -> str:
        """A fingerprint of the evidence (sources, their status, their units): equal
        fingerprints mean nothing new to conclude."""
        parts = sorted((c.key, sorted((s["id"], s.get("status") or "", sorted(_units(s)))
                                      for s in c.sources)) for c in self.candidates)
        raw = json.dumps(parts, separators=(",", ":"), sort_keys=True)
        return hashlib.sha256(raw.encode("utf-8")).hexdigest()[:32]


def support(sources: list[Row], units: int) -> float:
    """Confidence of a conclusion: its sources' mean confidence, scaled by how much
    independent evidence there is (1 - 2^-n: one unit .5, two .75, four .94)."""
    if not sources or units <= 0:
        return 0.0
    mean = sum(float(s.get("confidence") or 0.0) for s in sources) / len(sources)
    return round(mean * (1.0 - 0.5 ** units), 3)


def _claims(row: Row) -> list[list[object]]:
    try:
        raw = json.loads(row.get("claims") or "[]")
    except (TypeError, ValueError):
        return []
    return [c for c in raw if isinstance(c, list) and len(c) >= 7 and not c[4]]


def _units(row: Row) -> set[str]:
    """The independent evidence behind one relation."""
    out: set[str] = set()
    for c in _claims(row):
        if c[5]:
            out.add(f"epi:{c[5]}")
        elif c[6]:
            out.add(f"ref:{c[6]}")
        else:
            out.add(f"claim:{row['id']}:{c[1]}:{c[2]}")
    if not out:
        out.update(f"epi:{e}" for e in row.get("episodeIds") or [])
        out.update(f"ref:{r}" for r in row.get("sourceRefs") or [] if not out)
    return out or {f"rel:{row['id']}"}


def _starts(row: Row) -> list[int]:
    starts = [int(c[1]) for c in _claims(row) if isinstance(c[1], int)]
    return starts or [int(row.get("validFrom") or 0)]


def family(row: Row) -> str | None:
    category = str(row.get("category") or "")
    head = category.split(":", 1)[0]
    if row.get("exclusive") and head in ("preference", "tool") and ":" in category:
        return "preference"
    if head == "preference":
        return "taste"
    return FAMILY_CATEGORIES.get(head)


def subgraph(rows: list[Row]) -> nx.Graph:
    """Entities, relations and episodes of the user's current relations as one graph."""
    g = nx.Graph()
    for r in rows:
        g.add_node(r["id"], kind="relation", row=r)
        for end, role in ((r.get("subjectId"), "subject"), (r.get("objectId"), "object")):
            if end:
                g.add_node(end, kind="entity")
                g.add_edge(end, r["id"], role=role)
        for unit in _units(r):
            g.add_node(unit, kind="evidence")
            g.add_edge(r["id"], unit, role="evidence")
    return g


def find_patterns(user_id: str, rows: list[Row]) -> list[Pattern]:
    """Every group of related evidence among ``rows`` (the user's current relations),
    qualifying or not; deterministic order."""
    g = subgraph(rows)
    groups: dict[tuple[str, ...], list[Row]] = defaultdict(list)
    lessons: dict[str, list[Row]] = defaultdict(list)
    for node, data in g.nodes(data=True):
        if data.get("kind") != "entity":
            continue
        for rid in g.neighbors(node):
            if g.edges[node, rid].get("role") != "subject":
                continue
            row = g.nodes[rid]["row"]
            fam = family(row)
            if fam is None:
                continue
            subj = str(row.get("subjectNorm") or normalize(str(row.get("subject") or "")))
            key: tuple[str, ...]
            if fam == "preference":
                key = (fam, subj, str(row.get("category")))
            elif fam == "taste":
                key = (fam, subj, str(row.get("predicateNorm") or row.get("predicate")))
            elif fam == "rule" and str(row.get("predicateNorm") or "") == "learned":
                lessons[subj].append(row)  # grouped by what they say, below
                continue
            elif fam == "rule":
                key = (fam, subj)
            else:
                key = (fam, subj, str(row.get("predicateNorm") or row.get("predicate")),
                       str(row.get("objectNorm") or row.get("object")))
            groups[_scoped(key, row)].append(row)
    for subj, said in lessons.items():
        # one pattern per lesson said again in other words, not one for all of them
        for cluster in _alike(said):
            first = min(cluster, key=lambda r: (int(r.get("validFrom") or 0), r["id"]))
            key = ("rule", subj, "lesson", str(first.get("objectNorm") or first["id"]))
            groups[_scoped(key, first)].extend(cluster)
    patterns = []
    for key, members in sorted(groups.items()):
        members.sort(key=lambda r: (int(r.get("validFrom") or 0), r["id"]))
        patterns.append(_pattern(user_id, key, members, g))
    return patterns


def _scoped(key: tuple[str, ...], row: Row) -> tuple[str, ...]:
    """A pattern's key in its source's scope: a scope's patterns are its own (the user
    level's keys name no scope, as before scopes)."""
    return (*key, f"scope:{row['scope']}") if row.get("scope") else key


_STOP = frozenset("the a an to of and or always never just then every each it is be".split())
_ALIKE = 0.4


def _marks(text: str) -> set[str]:
    """What a lesson says, for telling two wordings of it from two lessons: Han characters
    one by one, other words without their common endings."""
    han = set(HAN.findall(text))
    words = {re.sub(r"(?:ing|ed|es|e|s)$", "", w) for w in re.findall(r"[a-z]+", text.lower())
             if w not in _STOP}
    return han | {w for w in words if w}


def _alike(rows: list[Row]) -> list[list[Row]]:
    """``rows`` in groups of lessons that share most of what they say (Jaccard of their
    marks >= 0.4, joined transitively), oldest first within each."""
    rows = sorted(rows, key=lambda r: (int(r.get("validFrom") or 0), r["id"]))
    marks = [_marks(str(r.get("object") or "")) for r in rows]
    parent = list(range(len(rows)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(len(rows)):
        for j in range(i):
            union = marks[i] | marks[j]
            if union and len(marks[i] & marks[j]) / len(union) >= _ALIKE:
                parent[root(i)] = root(j)
    out: dict[int, list[Row]] = defaultdict(list)
    for i, r in enumerate(rows):
        out[root(i)].append(r)
    return list(out.values())


def _pattern(user_id: str, key: tuple[str, ...], members: list[Row], g: nx.Graph) -> Pattern:
    fam = key[0]
    subject = str(members[0].get("subject") or key[1])
    by_candidate: dict[str, list[Row]] = defaultdict(list)
    for r in members:
        by_candidate[str(r.get("objectNorm") or "") if fam == "preference" else ""].append(r)
    candidates = []
    for cand_key, rows in sorted(by_candidate.items()):
        units = {u for r in rows for u in g.neighbors(r["id"])
                 if g.nodes[u].get("kind") == "evidence"}
        starts = sorted(s for r in rows for s in _starts(r))
        display = str(rows[0].get("object") or cand_key)
        candidates.append(Candidate(cand_key, display, rows, units, starts))
    if fam == "preference":
        facet = str(members[0].get("category")).split(":", 1)[1]
        # a slot holds one object at a time: several current ones are a dispute only when
        # the store says so (two current, not DISPUTED, would be history read mid-write)
        if len(candidates) > 1 and not any(r.get("status") == "DISPUTED" for r in members):
            candidates = [max(candidates, key=lambda c: (len(c.units), c.starts[-1], c.key))]
    elif fam == "rule":
        facet = "lesson"
    else:
        facet = str(members[0].get("predicate") or key[2])
    return Pattern(kind=fam, lineage=make_id("agk", user_id, *key), subject=subject,
                   facet=facet, candidates=candidates, scope=members[0].get("scope"))


# --------------------------------------------------------------------------- templates


def _words(text: str) -> str:
    return text.replace("_", " ").strip()


def _article(noun: str) -> str:
    return "an" if noun[:1].lower() in "aeiou" else "a"


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _has_cjk(text: str) -> bool:
    return any("\u3400" <= ch <= "\u9fff" for ch in text)


_VERB = {"likes": "like", "dislikes": "dislike", "prefers": "prefer", "loves": "love",
         "enjoys": "enjoy", "hates": "hate", "avoids": "avoid"}
_RULE = {"requires": "make sure it has {o}",
         "failed_because": "watch out for {o}, which made it fail before",
         "needs": "make sure it has {o}", "avoid": "avoid {o}", "learned": "{o}"}
_WEEKDAYS = ("Mondays", "Tuesdays", "Wednesdays", "Thursdays", "Fridays", "Saturdays",
             "Sundays")
_WEEKDAYS_ZH = ("周一", "周二", "周三", "周四", "周五", "周六", "周日")


def _zh_domain() -> dict[str, str]:
    """A preference slot's name in Chinese (the first Chinese word the extractor reads as
    that domain: browser -> 浏览器)."""
    from graphmem.extract._lexicon import DOMAIN_WORDS

    out: dict[str, str] = {}
    for word, slot in DOMAIN_WORDS.items():
        if _has_cjk(word):
            out.setdefault(slot, word)
    return out


def _zh(subject: str) -> str:
    """The subject of a conclusion written in Chinese: the user is 用户."""
    return "用户" if normalize(subject) == "user" else subject


def template(p: Pattern, c: Candidate, *, zh: bool = False) -> tuple[str, list[str]]:
    """The conclusion and conditions the rules draw for one candidate of a pattern; in
    Chinese when ``zh`` (the user said it in Chinese) or what it names is Chinese."""
    subject = p.subject
    if p.kind == "preference":
        domain = _words(p.facet)
        tool = str(c.sources[0].get("category") or "").startswith("tool:")
        if zh or _has_cjk(c.display + subject):
            verb = "一直使用" if tool else "一贯偏好"
            domain = _zh_domain().get(p.facet.replace(" ", "_"), domain)
            return f"{_zh(subject)}{verb}{c.display}（{domain}）", [f"选择{domain}时"]
        verb = "relies on" if tool else "consistently prefers"
        conditions = [f"when choosing {_article(domain)} {domain}"]
        if p.disputed:
            others = [o.display for o in p.candidates if o is not c]
            conditions.append(f"disputed: {_join(others)} was stated for the same time")
        return f"{subject} {verb} {c.display} ({domain})", conditions
    if p.kind == "taste":
        ranked = sorted({r.get("object") or "": r for r in c.sources}.values(),
                        key=lambda r: (-len(_units(r)), str(r.get("object"))))
        objects = [str(r.get("object")) for r in ranked][:5]
        verb = _VERB.get(normalize(p.facet).replace(" ", "_"), _words(p.facet))
        if zh or _has_cjk("".join(objects) + subject):
            like = "不喜欢" if verb in ("dislike", "hate", "avoid") else "喜欢"
            return f"{_zh(subject)}总体上{like}{'、'.join(objects)}", ["一般口味"]
        return f"{subject} tends to {verb} {_join(objects)}", ["as a general taste"]
    if p.kind == "rule":
        steps = []
        for r in c.sources:
            pred = normalize(str(r.get("predicate") or "")).replace(" ", "_")
            step = _RULE.get(pred, "{p} {o}").format(o=r.get("object"), p=_words(pred))
            if step not in steps:
                steps.append(step)
        if all(normalize(str(r.get("predicate") or "")) == "learned" for r in c.sources):
            steps = steps[:1]  # one lesson said again in other words: as first said
        if normalize(subject) == "user":  # the user's own lessons: a rule they keep
            if zh or _has_cjk("".join(steps)):
                return f"{_zh(subject)}的经验：{'；'.join(steps)}", ["从自己的经历中得出"]
            return f"{subject} keeps to: {'; '.join(steps)}", ["learned from experience"]
        return f"When working on {subject}: {'; '.join(steps)}", [f"when working on {subject}"]
    verb = _words(p.facet)
    stated = []  # cadences as said ("every Tuesday", 每周二), from the statements
    for r in c.sources:
        obj, said = str(r.get("object") or ""), str(r.get("statement") or "")
        tail = said.split(obj, 1)[1].strip() if obj and obj in said else ""
        if str(r.get("category")) == "habit" and tail and tail not in stated:
            stated.append(tail)
    # otherwise how often it happened, from the times of the events themselves (not from
    # when a habit was mentioned)
    events = sorted(s for r in c.sources if str(r.get("category")) != "habit"
                    for s in _starts(r))
    if zh or _has_cjk(c.display + subject):
        return f"{_zh(subject)}经常{c.display}", stated or cadence(events, zh=True)
    return f"{subject} habitually {verb} {c.display}", stated or cadence(events)


def cadence(starts: list[int], *, zh: bool = False) -> list[str]:
    """How regular a recurring event is: the usual weekday, the typical gap."""
    days = sorted({s // 86_400_000 for s in starts})
    out: list[str] = []
    if len(days) >= 2:
        weekdays = Counter(datetime.fromtimestamp(d * 86_400, UTC).weekday() for d in days)
        day, n = weekdays.most_common(1)[0]
        if n * 3 >= len(days) * 2:
            out.append(f"通常在{_WEEKDAYS_ZH[day]}" if zh else f"usually on {_WEEKDAYS[day]}")
        gaps = sorted(b - a for a, b in zip(days, days[1:], strict=False))
        gap = gaps[len(gaps) // 2]
        out.append(f"大约每{gap}天一次" if zh else f"about every {gap} days")
    return out
