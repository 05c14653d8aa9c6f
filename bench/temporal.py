"""Time correctness: asOf / knownAt reads, stale facts in recall, same-day disputes.

Seeded histories: each user's preferences (editor, programming language, web framework,
drink), employer, city and notes app change a few times between 2012 and 2025. Some changes
are same-day contradictions (two objects with one ``validFrom``); some are reinforcements
(the same object stated again later). Every fact goes through
``MemoryService.add_relation`` (exclusive predicates, ``validFrom`` dates) in a shuffled
arrival order, so older facts often arrive after newer ones (back-fills). The service runs
on a hand-moved clock: each insertion happens one minute after the previous one, so the
system time of every insertion is known.

Measured against the generator's truth (computed here, independently of graphmem's rules):

* asOf accuracy   for random and boundary instants T, ``relations(asOf=T)`` names exactly
                  the objects true at T in every slot (none before the first fact);
* knownAt accuracy after the first m insertions (``knownAt`` = the m-th insertion's system
                  time), ``relations(asOf=T, knownAt=...)`` matches the truth of those m
                  facts only;
* stale share     superseded facts among the top-10 of current-time recalls ("Which editor
                  does Maya prefer?", ``kinds=[RELATION]``), plus whether the top item is
                  the current answer;
* disputes        same-day contradictions linked as a dispute (both versions kept, each
                  naming the other), and reported in ``recall().conflicts``.

Peer: graphiti-core 0.28.2 holding the same facts as ``EntityEdge``s with ``valid_at`` /
``invalid_at`` set as its own invalidation would set them (``invalid_at`` = the next fact's
``valid_at``; a same-day pair both end at the next change), searched with its
``EDGE_HYBRID_SEARCH_RRF`` recipe (no temporal mode) and, as a second row, with its own
``invalid_at IS NULL`` filter. Both embed with the same local model.

Examples::

    python bench/temporal.py --quick          # 12 users, about a minute
    python bench/temporal.py                  # 40 users
    python bench/temporal.py --users 100 --seed 3 --json out.json
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import _graphiti_peer as peer  # noqa: E402
from _common import RESULTS, ManualClock, header, log, ratio, table, write_json  # noqa: E402

from graphmem.bootstrap import settle  # noqa: E402
from graphmem.embed import build_embedder  # noqa: E402
from graphmem.inputs import RecallIn, RelationIn  # noqa: E402
from graphmem.model import MemoryKind, Relation, normalize  # noqa: E402
from graphmem.service import MemoryService  # noqa: E402
from graphmem.settings import Settings  # noqa: E402
from graphmem.store.falkor import FalkorStore  # noqa: E402

# --------------------------------------------------------------------------- generator


@dataclass(frozen=True, slots=True)
class Slot:
    key: str
    predicate: str
    category: str
    values: tuple[str, ...]
    question: str  # {name}: the user's first name
    fact: str  # {name}, {obj}
    exclusive: bool | None = None  # None: the service's default list decides


SLOTS = (
    Slot("editor", "prefers", "editor",
         ("VS Code", "Vim", "Emacs", "Sublime Text", "IntelliJ IDEA", "Zed", "Helix", "Neovim"),
         "Which editor does {name} prefer?", "{name} prefers {obj} as editor"),
    Slot("language", "prefers", "programming language",
         ("Python", "Rust", "Go", "TypeScript", "Java", "Kotlin", "Haskell", "Elixir"),
         "Which programming language does {name} prefer?",
         "{name} prefers {obj} as programming language"),
    Slot("framework", "prefers", "web framework",
         ("Django", "Flask", "FastAPI", "Ruby on Rails", "Spring Boot", "Express", "Laravel",
          "Next.js"),
         "Which web framework does {name} prefer?", "{name} prefers {obj} as web framework"),
    Slot("drink", "prefers", "drink",
         ("black coffee", "green tea", "espresso", "matcha latte", "chai", "sparkling water",
          "hot chocolate", "earl grey"),
         "What does {name} like to drink?", "{name} prefers {obj} as drink"),
    Slot("job", "works_at", "employer",
         ("Acme Robotics", "Globex", "Initech", "Umbrella Health", "Stark Industries",
          "Wayne Enterprises", "Hooli", "Pied Piper", "Vandelay Imports"),
         "Where does {name} work?", "{name} works at {obj}"),
    Slot("city", "lives_in", "home",
         ("Berlin", "Lisbon", "Toronto", "Osaka", "Nairobi", "Austin", "Melbourne",
          "Copenhagen", "Montreal", "Seoul"),
         "Which city does {name} live in?", "{name} lives in {obj}"),
    Slot("notes", "uses", "notes app",
         ("Obsidian", "Notion", "Evernote", "Bear", "Logseq", "OneNote", "Joplin"),
         "Which notes app does {name} use?", "{name} uses {obj} for notes", exclusive=True),
)
SLOT_BY_KEY = {s.key: s for s in SLOTS}
SLOT_BY_PRED = {(normalize(s.predicate), normalize(s.category)): s.key for s in SLOTS}

FIRST = ("Maya", "Liam", "Noor", "Kenji", "Ines", "Tomas", "Amara", "Felix", "Priya", "Omar",
         "Sofia", "Jonas", "Lena", "Ravi", "Chloe", "Mateo", "Yara", "Hugo", "Zara", "Elias")
LAST = ("Patel", "Okafor", "Lindqvist", "Moreau", "Tanaka", "Silva", "Novak", "Haddad",
        "Kowalski", "Reyes", "Fischer", "Mensah", "Duarte", "Ivanova", "Brennan")

HISTORY_START = date(2012, 1, 1)
HISTORY_END = date(2025, 12, 31)
SYSTEM_START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)  # first insertion; after all history


@dataclass(frozen=True, slots=True)
class Fact:
    idx: int
    user: str
    name: str  # the user's full name (the subject)
    slot: str
    obj: str
    day: date
    kind: str  # "change" | "dispute" | "reinforce"

    @property
    def start(self) -> datetime:
        return datetime(self.day.year, self.day.month, self.day.day, tzinfo=UTC)

    def text(self) -> str:
        return SLOT_BY_KEY[self.slot].fact.format(name=self.name, obj=self.obj)


@dataclass(slots=True)
class User:
    id: str
    name: str

    @property
    def first(self) -> str:
        return self.name.split()[0]


@dataclass(frozen=True, slots=True)
class Dispute:
    user: str
    slot: str
    day: date
    objs: frozenset[str]  # normalised


def generate(seed: int, n_users: int, p_dispute: float = 0.2, p_reinforce: float = 0.2,
             changes: tuple[int, int] = (2, 6)) -> tuple[list[User], list[Fact]]:
    """Users and their facts, in generation (chronological per slot) order."""
    rng = random.Random(seed)
    names = [f"{f} {last}" for f in FIRST for last in LAST]
    rng.shuffle(names)
    if n_users > len(names):
        raise SystemExit(f"at most {len(names)} users")
    users = [User(f"user{u:03d}", names[u]) for u in range(n_users)]
    span = (HISTORY_END - HISTORY_START).days
    facts: list[Fact] = []

    def add(user: User, slot: str, obj: str, day: date, kind: str) -> None:
        facts.append(Fact(len(facts), user.id, user.name, slot, obj, day, kind))

    for user in users:
        for slot in SLOTS:
            k = rng.randint(*changes)
            days = sorted(rng.sample(range(span), k))
            prev: set[str] = set()
            for i, d in enumerate(days):
                day = HISTORY_START + timedelta(days=d)
                choices = [v for v in slot.values if v not in prev]
                obj = rng.choice(choices)
                add(user, slot.key, obj, day, "change")
                objs = {obj}
                if rng.random() < p_dispute:
                    other = rng.choice([v for v in choices if v != obj])
                    add(user, slot.key, other, day, "dispute")
                    objs.add(other)
                nxt = days[i + 1] if i + 1 < len(days) else span + 1
                if len(objs) == 1 and nxt - d > 2 and rng.random() < p_reinforce:
                    later = HISTORY_START + timedelta(days=rng.randint(d + 1, nxt - 1))
                    add(user, slot.key, obj, later, "reinforce")
                prev = objs
    return users, facts


# --------------------------------------------------------------------------- truth


@dataclass(slots=True)
class Segment:
    start: datetime
    end: datetime | None
    objs: frozenset[str]  # normalised
    facts: list[Fact] = field(default_factory=list)


def segments(facts: list[Fact]) -> list[Segment]:
    """One slot's timeline: at each start the objects stated then hold until the next start
    that states a different set (a same-object restatement only reinforces)."""
    by_start: dict[datetime, list[Fact]] = defaultdict(list)
    for f in facts:
        by_start[f.start].append(f)
    out: list[Segment] = []
    for start in sorted(by_start):
        objs = frozenset(normalize(f.obj) for f in by_start[start])
        if out and out[-1].objs == objs:
            out[-1].facts.extend(by_start[start])
            continue
        if out:
            out[-1].end = start
        out.append(Segment(start, None, objs, list(by_start[start])))
    return out


def truth_at(segs: list[Segment], t: datetime) -> frozenset[str]:
    for s in segs:
        if s.start <= t and (s.end is None or t < s.end):
            return s.objs
    return frozenset()


def slot_segments(facts: list[Fact]) -> dict[tuple[str, str], list[Segment]]:
    grouped: dict[tuple[str, str], list[Fact]] = defaultdict(list)
    for f in facts:
        grouped[(f.user, f.slot)].append(f)
    return {k: segments(v) for k, v in grouped.items()}


def disputes_of(segs: dict[tuple[str, str], list[Segment]]) -> list[tuple[Dispute, bool]]:
    """Every same-day contradiction, and whether it is still the current state."""
    out = []
    for (user, slot), ss in sorted(segs.items()):
        for i, s in enumerate(ss):
            if len(s.objs) > 1:
                out.append((Dispute(user, slot, s.start.date(), s.objs), i == len(ss) - 1))
    return out


# --------------------------------------------------------------------------- graphmem side


def slot_of(rel: Relation) -> str | None:
    return SLOT_BY_PRED.get((normalize(rel.predicate), normalize(rel.category)))


def state_of(rels: list[Relation]) -> dict[str, frozenset[str]]:
    by_slot: dict[str, set[str]] = defaultdict(set)
    for r in rels:
        by_slot[slot_of(r) or f"?{r.predicate}/{r.category}"].add(normalize(r.object))
    return {k: frozenset(v) for k, v in by_slot.items()}


def compare(got: dict[str, frozenset[str]], want: dict[str, frozenset[str]]
            ) -> list[tuple[str, frozenset[str], frozenset[str]]]:
    """The slots where the read differs from the truth: (slot, got, want)."""
    bad = []
    for key in sorted(set(got) | set(want)):
        g, w = got.get(key, frozenset()), want.get(key, frozenset())
        if g != w:
            bad.append((key, g, w))
    return bad


def user_truth(segs: dict[tuple[str, str], list[Segment]], user: str,
               t: datetime) -> dict[str, frozenset[str]]:
    out = {}
    for slot in SLOTS:
        objs = truth_at(segs.get((user, slot.key), []), t)
        if objs:
            out[slot.key] = objs
    return out


@dataclass(slots=True)
class Tally:
    checks: int = 0
    correct: int = 0
    examples: list[dict[str, Any]] = field(default_factory=list)

    def add(self, bad: list[tuple[str, frozenset[str], frozenset[str]]], n_slots: int,
            context: dict[str, Any]) -> None:
        self.checks += n_slots
        self.correct += n_slots - len(bad)
        for slot, g, w in bad:
            if len(self.examples) < 12:
                self.examples.append({**context, "slot": slot, "got": sorted(g),
                                      "want": sorted(w)})

    def summary(self) -> dict[str, Any]:
        return {"checks": self.checks, "correct": self.correct,
                "accuracy": ratio(self.correct, self.checks), "examples": self.examples}


def ingest(svc: MemoryService, clock: ManualClock, facts: list[Fact]
           ) -> tuple[list[datetime], dict[str, Any]]:
    """Every fact through add_relation, one minute apart; the system time of each."""
    times: list[datetime] = []
    latest: dict[tuple[str, str], date] = {}
    backfills = 0
    started = time.perf_counter()
    for n, f in enumerate(facts, 1):
        slot = SLOT_BY_KEY[f.slot]
        times.append(clock.advance(minutes=1))
        key = (f.user, f.slot)
        if key in latest and f.day < latest[key]:
            backfills += 1
        latest[key] = max(latest.get(key, f.day), f.day)
        svc.add_relation(RelationIn(
            user_id=f.user, subject=f.name, predicate=slot.predicate, object=f.obj,
            valid_from=f.start, category=slot.category, exclusive=slot.exclusive,
            statement=f.text(), source_ref=f"fact{f.idx}"))
        if n % 200 == 0:
            log(f"  ingested {n}/{len(facts)}")
    took = time.perf_counter() - started
    return times, {"facts": len(facts), "seconds": round(took, 2),
                   "facts_per_s": round(len(facts) / took, 1) if took else None,
                   "backfilled": backfills, "backfill_share": ratio(backfills, len(facts))}


def check_as_of(svc: MemoryService, users: list[User], segs: dict[tuple[str, str],
                list[Segment]], rng: random.Random, per_user: int, now: datetime
                ) -> dict[str, Any]:
    tallies = {"random": Tally(), "boundary": Tally(), "now": Tally()}
    lo = datetime(2011, 6, 1, tzinfo=UTC)
    for user in users:
        points: list[tuple[str, datetime]] = [("now", now)]
        span = (now - lo).total_seconds()
        points += [("random", lo + timedelta(seconds=rng.uniform(0, span)))
                   for _ in range(per_user)]
        starts = [s.start for slot in SLOTS for s in segs.get((user.id, slot.key), [])]
        for s in rng.sample(starts, min(len(starts), per_user // 2)):
            points += [("boundary", s), ("boundary", s - timedelta(milliseconds=1))]
        for kind, t in points:
            got = state_of(svc.relations(user.id, as_of=t))
            want = user_truth(segs, user.id, t)
            tallies[kind].add(compare(got, want), len(SLOTS),
                              {"user": user.id, "asOf": t.isoformat()})
    total = Tally()
    for t in tallies.values():
        total.checks += t.checks
        total.correct += t.correct
        total.examples += t.examples[: max(0, 12 - len(total.examples))]
    return {"all": total.summary(), **{k: v.summary() for k, v in tallies.items()}}


def check_known_at(svc: MemoryService, users: list[User], facts: list[Fact],
                   times: list[datetime], rng: random.Random, checkpoints: int,
                   per_user: int, now: datetime) -> dict[str, Any]:
    tally = Tally()
    n = len(facts)
    marks = sorted({max(1, round(n * (i + 1) / (checkpoints + 1))) for i in range(checkpoints)})
    lo = datetime(2011, 6, 1, tzinfo=UTC)
    per_mark = []
    for m in marks:
        known_at = times[m - 1] + timedelta(seconds=rng.uniform(0, 59))  # before insertion m+1
        segs = slot_segments(facts[:m])
        before = tally.correct, tally.checks
        for user in users:
            points = [now] + [lo + timedelta(seconds=rng.uniform(0, (now - lo).total_seconds()))
                              for _ in range(per_user)]
            for t in points:
                got = state_of(svc.relations(user.id, as_of=t, known_at=known_at))
                want = user_truth(segs, user.id, t)
                tally.add(compare(got, want), len(SLOTS),
                          {"user": user.id, "afterInsertions": m, "asOf": t.isoformat()})
        per_mark.append({"after_insertions": m,
                         "accuracy": ratio(tally.correct - before[0], tally.checks - before[1])})
    return {**tally.summary(), "checkpoints": per_mark}


def history_map(svc: MemoryService, users: list[User]) -> dict[str, Relation]:
    out = {}
    for user in users:
        for r in svc.relations(user.id, include_history=True, limit=10000):
            out[r.id] = r
    return out


@dataclass(slots=True)
class StaleTally:
    queries: int = 0
    items: int = 0
    stale: int = 0
    unknown: int = 0
    queries_with_stale: int = 0
    top1_current: int = 0
    current_in_top10: int = 0

    def summary(self) -> dict[str, Any]:
        return {"queries": self.queries, "items": self.items, "stale": self.stale,
                "unknown_items": self.unknown,
                "stale_share_top10": ratio(self.stale, self.items),
                "queries_with_stale_share": ratio(self.queries_with_stale, self.queries),
                "top1_current_answer": ratio(self.top1_current, self.queries),
                "current_answer_in_top10": ratio(self.current_in_top10, self.queries)}


def judge(tally: StaleTally, asked: str, hits: list[tuple[str, str, datetime] | None],
          segs: dict[tuple[str, str], list[Segment]], user: str) -> None:
    """hits: (slot, normalised object, start) per returned fact; None if unmappable."""
    tally.queries += 1
    current_keys = set()
    stale_here = 0
    for i, hit in enumerate(hits):
        tally.items += 1
        if hit is None:
            tally.unknown += 1
            continue
        slot, obj, start = hit
        ss = segs.get((user, slot), [])
        cur = ss[-1] if ss else None
        is_current = cur is not None and cur.start == start and obj in cur.objs
        if not is_current:
            stale_here += 1
        elif slot == asked:
            current_keys.add(obj)
            if i == 0:
                tally.top1_current += 1
    tally.stale += stale_here
    tally.queries_with_stale += 1 if stale_here else 0
    want = segs.get((user, asked), [])
    if want and want[-1].objs <= current_keys:
        tally.current_in_top10 += 1


def check_stale_graphmem(svc: MemoryService, users: list[User], segs: dict[tuple[str, str],
                         list[Segment]], history: dict[str, Relation], *,
                         include_history: bool) -> tuple[dict[str, Any], list[float]]:
    tally = StaleTally()
    took: list[float] = []
    for user in users:
        for slot in SLOTS:
            q = slot.question.format(name=user.first)
            started = time.perf_counter()
            res = svc.recall(RecallIn(user_id=user.id, query=q, kinds=[MemoryKind.RELATION],
                                      limit=10, include_history=include_history))
            took.append((time.perf_counter() - started) * 1000)
            hits: list[tuple[str, str, datetime] | None] = []
            for item in res.items:
                r = history.get(item.id)
                s = slot_of(r) if r is not None else None
                hits.append(None if r is None or s is None
                            else (s, normalize(r.object), r.valid_from))
            judge(tally, slot.key, hits, segs, user.id)
    return tally.summary(), took


def check_disputes(svc: MemoryService, users: list[User], segs: dict[tuple[str, str],
                   list[Segment]], history: dict[str, Relation]) -> dict[str, Any]:
    names = {u.id: u for u in users}
    by_slot_start: dict[tuple[str, str, datetime], list[Relation]] = defaultdict(list)
    for r in history.values():
        s = slot_of(r)
        if s is not None and r.expired_at is None:
            by_slot_start[(r.user_id, s, r.valid_from)].append(r)
    counts = {"current": [0, 0, 0], "historical": [0, 0, 0]}  # total, linked, in conflicts
    examples = []
    for d, current in disputes_of(segs):
        bucket = counts["current" if current else "historical"]
        bucket[0] += 1
        start = datetime(d.day.year, d.day.month, d.day.day, tzinfo=UTC)
        nodes = [r for r in by_slot_start[(d.user, d.slot, start)]
                 if normalize(r.object) in d.objs]
        ids = {r.id for r in nodes}
        linked = ({normalize(r.object) for r in nodes} == d.objs
                  and all(ids - {r.id} <= set(r.disputes_ids) for r in nodes))
        bucket[1] += linked
        q = SLOT_BY_KEY[d.slot].question.format(name=names[d.user].first)
        res = svc.recall(RecallIn(user_id=d.user, query=q, kinds=[MemoryKind.RELATION],
                                  limit=10, as_of=None if current else start + timedelta(hours=1)))
        reported = any(set(c.ids) == ids for c in res.conflicts) if len(ids) == 2 else False
        bucket[2] += reported
        if (not linked or not reported) and len(examples) < 8:
            examples.append({"user": d.user, "slot": d.slot, "day": d.day.isoformat(),
                             "objects": sorted(d.objs), "current": current, "linked": linked,
                             "in_recall_conflicts": reported,
                             "statuses": sorted(r.status.value for r in nodes)})
    total = [a + b for a, b in zip(counts["current"], counts["historical"], strict=True)]
    return {
        "disputes": total[0], "current": counts["current"][0],
        "historical": counts["historical"][0],
        "linked_rate": ratio(total[1], total[0]),
        "recall_conflict_rate_current": ratio(counts["current"][2], counts["current"][0]),
        "recall_conflict_rate_historical_asof": ratio(counts["historical"][2],
                                                      counts["historical"][0]),
        "recall_conflict_rate_all": ratio(total[2], total[0]),
        "examples": examples,
    }


def false_conflicts(svc: MemoryService, users: list[User],
                    segs: dict[tuple[str, str], list[Segment]],
                    history: dict[str, Relation]) -> dict[str, int]:
    """Conflicts reported by current-time recalls that are not a current same-day pair."""
    reported = spurious = 0
    for user in users:
        for slot in SLOTS:
            res = svc.recall(RecallIn(user_id=user.id, query=slot.question.format(
                name=user.first), kinds=[MemoryKind.RELATION], limit=10))
            for c in res.conflicts:
                reported += 1
                rels = [history.get(i) for i in c.ids]
                if any(r is None for r in rels):
                    spurious += 1
                    continue
                s = {slot_of(r) for r in rels if r is not None}
                cur = segs.get((user.id, next(iter(s)) or ""), []) if len(s) == 1 else []
                ok = (bool(cur) and len(cur[-1].objs) > 1
                      and all(r is not None and r.valid_from == cur[-1].start
                              and normalize(r.object) in cur[-1].objs for r in rels))
                spurious += not ok
    return {"conflicts_reported": reported, "spurious": spurious}


def merged_objects(users: list[User], facts: list[Fact],
                   history: dict[str, Relation]) -> list[dict[str, str]]:
    """Facts whose object was stored under another entity's name (entity resolution)."""
    stored: dict[tuple[str, str], set[str]] = defaultdict(set)
    for r in history.values():
        s = slot_of(r)
        if s is not None:
            stored[(r.user_id, s)].add(normalize(r.object))
    out = []
    seen = set()
    for f in facts:
        key = (f.user, f.slot, normalize(f.obj))
        if key in seen:
            continue
        seen.add(key)
        if normalize(f.obj) not in stored[(f.user, f.slot)]:
            out.append({"user": f.user, "slot": f.slot, "object": f.obj})
    return out


# --------------------------------------------------------------------------- peer side


def run_peer(users: list[User], facts: list[Fact], times: list[datetime],
             segs: dict[tuple[str, str], list[Segment]], embedder: Any,
             now: datetime) -> dict[str, Any]:
    ok, info = peer.load()
    if not ok:
        log(f"graphiti-core peer skipped: {info}")
        return {"skipped": True, "reason": info}
    arrival = {f.idx: times[i] for i, f in enumerate(facts)}
    nodes: dict[str, peer.PeerNode] = {}
    edges: list[peer.PeerEdge] = []
    key_info: dict[str, tuple[str, str, datetime]] = {}
    for user in users:
        nodes[f"{user.id}|@"] = peer.PeerNode(f"{user.id}|@", user.name, user.id)
    for (user_id, slot_key), ss in sorted(segs.items()):
        slot = SLOT_BY_KEY[slot_key]
        for i, s in enumerate(ss):
            nxt = ss[i + 1] if i + 1 < len(ss) else None
            for obj in sorted(s.objs):
                mine = [f for f in s.facts if normalize(f.obj) == obj]
                created = min(arrival[f.idx] for f in mine)
                invalid_at = nxt.start if nxt else None
                expired = None
                if nxt is not None:
                    expired = max(created, min(arrival[f.idx] for f in nxt.facts))
                nkey = f"{user_id}|{obj}"
                if nkey not in nodes:
                    nodes[nkey] = peer.PeerNode(nkey, mine[0].obj, user_id)
                key = f"{user_id}|{slot_key}|{s.start.date().isoformat()}|{obj}"
                key_info[key] = (slot_key, obj, s.start)
                edges.append(peer.PeerEdge(
                    key=key, group=user_id, source=f"{user_id}|@", target=nkey,
                    name=slot.predicate.upper(), fact=mine[0].text(), created_at=created,
                    valid_at=s.start, invalid_at=invalid_at, expired_at=expired))
    p = peer.GraphitiPeer(embedder=embedder)
    out: dict[str, Any] = {"skipped": False, "version": info, "edges": len(edges),
                           "nodes": len(nodes),
                           "edges_invalidated": sum(e.invalid_at is not None for e in edges)}
    try:
        p.start()
        started = time.perf_counter()
        p.add(list(nodes.values()), edges, created_at=now)
        out["build_seconds"] = round(time.perf_counter() - started, 2)
        for mode, only_valid in (("edge_hybrid_rrf", False),
                                 ("edge_hybrid_rrf+invalid_at_is_null", True)):
            tally = StaleTally()
            took = []
            invalid_seen = 0
            for user in users:
                for slot in SLOTS:
                    q = slot.question.format(name=user.first)
                    t0 = time.perf_counter()
                    hits = p.search(user.id, q, limit=10, only_valid=only_valid)
                    took.append((time.perf_counter() - t0) * 1000)
                    invalid_seen += sum(h.invalid_at is not None and h.invalid_at <= now
                                        for h in hits)
                    judge(tally, slot.key, [key_info.get(h.key) for h in hits], segs, user.id)
            out[mode] = {**tally.summary(), "invalidated_items": invalid_seen,
                         "p50_ms": round(sorted(took)[len(took) // 2], 2)}
    finally:
        p.close()
    return out


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="12 users (a minute or so)")
    ap.add_argument("--users", type=int, default=None, help="users (default 40, quick 12)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--embedder", choices=("minilm", "hashing"), default="minilm")
    ap.add_argument("--no-peer", action="store_true", help="skip graphiti-core")
    ap.add_argument("--json", type=Path, default=RESULTS / "temporal.json",
                    help="where to write the JSON (default: bench/results/temporal.json)")
    args = ap.parse_args(argv)
    n_users = args.users or (12 if args.quick else 40)
    per_user = 12 if args.quick else 20
    checkpoints = 6 if args.quick else 10

    users, facts = generate(args.seed, n_users)
    rng = random.Random(args.seed + 1)
    order = list(facts)
    rng.shuffle(order)
    segs = slot_segments(facts)
    n_disputes = sum(1 for f in facts if f.kind == "dispute")
    log(f"{len(users)} users, {len(facts)} facts ({n_disputes} same-day contradictions, "
        f"{sum(f.kind == 'reinforce' for f in facts)} reinforcements), embedder "
        f"{args.embedder}")

    embedder = build_embedder(args.embedder, cache_entries=50_000)
    clock = ManualClock(SYSTEM_START)
    report: dict[str, Any] = header("temporal")
    report["config"] = {"users": n_users, "seed": args.seed, "quick": args.quick,
                        "embedder": args.embedder, "slots": [s.key for s in SLOTS],
                        "asof_points_per_user": per_user, "knownat_checkpoints": checkpoints,
                        "facts": len(facts), "same_day_contradictions": n_disputes,
                        "history": [HISTORY_START.isoformat(), HISTORY_END.isoformat()]}
    with tempfile.TemporaryDirectory(prefix="graphmem-temporal-") as tmp:
        settings = Settings(data_dir=Path(tmp), embedder=args.embedder)
        svc = MemoryService(settings, FalkorStore(Path(tmp)), embedder, clock=clock)
        svc.open()
        settle(svc)  # as `graphmem serve` does at startup
        try:
            log("ingesting in shuffled order ...")
            times, ingest_stats = ingest(svc, clock, order)
            now = clock.advance(minutes=5)
            log(f"  {ingest_stats['facts']} facts in {ingest_stats['seconds']} s, "
                f"{ingest_stats['backfilled']} back-filled")
            gm: dict[str, Any] = {"ingest": ingest_stats}
            log("asOf reads ...")
            gm["as_of"] = check_as_of(svc, users, segs, rng, per_user, now)
            log("knownAt reads ...")
            gm["known_at"] = check_known_at(svc, users, order, times, rng, checkpoints,
                                            max(2, per_user // 4), now)
            history = history_map(svc, users)
            gm["merged_objects"] = merged_objects(users, facts, history)
            log("current-time recalls ...")
            gm["recall"], took = check_stale_graphmem(svc, users, segs, history,
                                                      include_history=False)
            gm["recall"]["p50_ms"] = round(sorted(took)[len(took) // 2], 2)
            gm["recall_include_history"], _ = check_stale_graphmem(
                svc, users, segs, history, include_history=True)
            log("disputes ...")
            gm["disputes"] = check_disputes(svc, users, segs, history)
            gm["false_conflicts"] = false_conflicts(svc, users, segs, history)
        finally:
            svc.close()
    report["graphmem"] = gm
    if args.no_peer:
        report["graphiti"] = {"skipped": True, "reason": "--no-peer"}
    else:
        log("graphiti-core peer ...")
        report["graphiti"] = run_peer(users, order, times, segs, embedder, now)

    print(render(report))
    write_json(args.json, report)
    return 0


def render(report: dict[str, Any]) -> str:
    gm, gp = report["graphmem"], report["graphiti"]
    cfg = report["config"]
    skipped = gp.get("skipped")
    na = "n/a" if not skipped else "skipped"
    lines = [f"time correctness: {cfg['users']} users, {cfg['facts']} facts in shuffled order "
             f"({gm['ingest']['backfilled']} back-filled, {cfg['same_day_contradictions']} "
             f"same-day contradictions), seed {cfg['seed']}, embedder {cfg['embedder']}", ""]
    a, k, d = gm["as_of"], gm["known_at"], gm["disputes"]
    rows = [
        ["asOf accuracy, all (slot checks)", f"{a['all']['accuracy']:.4f} ({a['all']['checks']})",
         na],
        ["  random instants", f"{a['random']['accuracy']:.4f}", na],
        ["  boundaries (start day, 1 ms before)", f"{a['boundary']['accuracy']:.4f}", na],
        ["  now", f"{a['now']['accuracy']:.4f}", na],
        ["knownAt accuracy (after m insertions)", f"{k['accuracy']:.4f} ({k['checks']})", na],
        ["same-day contradictions linked as disputes", f"{d['linked_rate']}", na],
        ["  reported in recall conflicts (current)", f"{d['recall_conflict_rate_current']}", na],
        ["  reported in recall conflicts (historical, asOf)",
         f"{d['recall_conflict_rate_historical_asof']}", na],
        ["objects merged into another entity", str(len(gm["merged_objects"])), "–"],
    ]
    lines.append(table(["metric", "graphmem", "graphiti-core"], rows))
    lines.append("")
    head = ["current-time recall, top-10", "stale share", "queries with stale",
            "top-1 = current answer", "current answer in top-10", "p50 ms"]
    srows = []
    for label, s in (("graphmem recall (kinds=[RELATION])", gm["recall"]),
                     ("graphmem recall, includeHistory", gm["recall_include_history"])):
        srows.append([label, s["stale_share_top10"], s["queries_with_stale_share"],
                      s["top1_current_answer"], s["current_answer_in_top10"],
                      s.get("p50_ms")])
    if skipped:
        srows.append([f"graphiti-core: skipped ({gp['reason']})", None, None, None, None, None])
    else:
        for label, key in ((f"graphiti-core {gp['version']} EDGE_HYBRID_SEARCH_RRF",
                            "edge_hybrid_rrf"),
                           ("graphiti-core + invalid_at IS NULL filter",
                            "edge_hybrid_rrf+invalid_at_is_null")):
            s = gp[key]
            srows.append([label, s["stale_share_top10"], s["queries_with_stale_share"],
                          s["top1_current_answer"], s["current_answer_in_top10"],
                          s.get("p50_ms")])
    lines.append(table(head, srows))
    if not skipped:
        lines.append("")
        lines.append("graphiti-core: asOf/knownAt n/a (its valid_at/invalid_at were set here "
                     "from the truth, so reads by them are right by construction; it keeps no "
                     "system-time log); no dispute notion (a same-day pair stays as two valid "
                     "edges).")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
