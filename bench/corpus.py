"""A seeded generator of long single-user assistant chats with planted, changing facts.

Each user talks to an assistant over ~8 months (22-28 sessions, a user turn and an assistant
reply at a time). Most turns are filler (what people ask assistants: explain, draft, compare);
planted among them, at chosen sessions:

* slots whose value changes (employer and manager names, city, rent and houseplant counts,
  a deadline date, the editor and morning drink preferred), first stated and later restated
  with a new value (one or two changes), plus a distractor turn that mentions another value
  of the same kind in another context;
* dated events, with the date in the text;
* a repeated activity (2-5 mentions in different sessions);
* a contradiction: "I have never used X", later "I built P with X";
* one side project whose tools are named in three different sessions;
* near misses for each of these: turns with the question's words that do not answer it
  ("My friend is nervous about her driving test", "Is bouldering bad for your fingers?",
  "Can you explain what Kafka is used for?"), and filler topics that share words with the
  questions ("remote work", "rent control", "coffee brewing").

Questions, each with the ids of the user turns that answer it (``evidence``) and, for a
changed fact, the ids of the earlier versions (``old``) and of the current one (``new``):

* ``current``        what holds now (the last version; ``old`` must rank below ``new``);
* ``past``           what held in a month named in the question ("in March 2024"), before
                     the next change (``as_of`` is that month's end);
* ``when``           the date of an event;
* ``how_many``       how many times the activity was mentioned (``evidence``: every mention);
* ``contradiction``  both sides of it;
* ``multi_session``  the project's tools, spread over three sessions.

``support`` lists strings each of which appears in some evidence turn (the answer, or for
``how_many`` the activity's keyword, which every mention carries).

The same seed and language give the same corpus, byte for byte (``random.Random`` seeded
with a string). English and Chinese share the plan; the words are in ``_corpus_text``.
Seeds: 1 is the dev corpus (tune there), 2 the test corpus (report only).

This module is v1 (``--corpus v1``); v2, the default (``_corpus_v2``), keeps the plan and
the question kinds and says everything the way assistant chats do: long requests with
context and pastes, the facts in passing, relative dates, paraphrased questions.

Examples::

    python bench/corpus.py --seed 1 --lang en --users 2 --out /tmp/dev.json
    python bench/corpus.py --corpus v1 --seed 1 --show 1
    python bench/corpus.py --seed 2 --lang both --show 1
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus_text import (  # noqa: E402
    ACTIVITIES,
    CONTRADICTIONS,
    EVENTS,
    FILLER,
    MONTHS_EN,
    PROJECTS,
    SLOTS,
    TOPICS,
)

LANGS = ("en", "zh")
KINDS = ("current", "past", "when", "how_many", "contradiction", "multi_session")
DEV_SEED, TEST_SEED = 1, 2
VERSIONS = ("v1", "v2")
DEFAULT_VERSION = "v2"
START = datetime(2024, 1, 8, tzinfo=UTC)
SLOTS_PER_USER = 5
PREFIXES = {"en": ["", "Quick note: ", "Update: ", "So, ", "Anyway, "],
            "zh": ["", "记一下：", "更新一下：", "对了，", "另外，"]}


@dataclass(slots=True)
class Message:
    id: str
    role: str  # "user" or "assistant"
    content: str
    occurred_at: str  # ISO-8601, UTC


@dataclass(slots=True)
class ChatSession:
    id: str
    start: str
    messages: list[Message] = field(default_factory=list)


@dataclass(slots=True)
class Question:
    id: str
    user_id: str
    lang: str
    kind: str
    text: str
    answer: str
    evidence: list[str]
    support: list[str]
    old: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    as_of: str | None = None
    slot: str | None = None


@dataclass(slots=True)
class Chat:
    user_id: str
    lang: str
    reference_time: str  # a day after the last session: "now" for the questions
    sessions: list[ChatSession] = field(default_factory=list)

    @property
    def messages(self) -> list[Message]:
        return [m for s in self.sessions for m in s.messages]


@dataclass(slots=True)
class Corpus:
    seed: int
    langs: list[str]
    chats: list[Chat]
    questions: list[Question]

    def to_json(self) -> dict[str, Any]:
        return {"seed": self.seed, "langs": self.langs,
                "chats": [{**asdict(c)} for c in self.chats],
                "questions": [asdict(q) for q in self.questions]}


# --------------------------------------------------------------------------- formatting


def fmt_date(d: datetime, lang: str) -> str:
    return f"{MONTHS_EN[d.month - 1]} {d.day}" if lang == "en" else f"{d.month}月{d.day}日"


def fmt_month(d: datetime, lang: str) -> str:
    return f"in {MONTHS_EN[d.month - 1]} {d.year}" if lang == "en" else f"{d.year}年{d.month}月"


def month_end(d: datetime) -> datetime:
    nxt = datetime(d.year + d.month // 12, d.month % 12 + 1, 1, tzinfo=UTC)
    return nxt - timedelta(seconds=1)


def month_between(start: datetime, end: datetime) -> datetime | None:
    """The last month that ends at or after ``start`` and before ``end`` (its end), if any."""
    m = month_end(start)
    best = None
    while m < end:
        best = m
        m = month_end(m + timedelta(days=1))
    return best


# --------------------------------------------------------------------------- planting


@dataclass(slots=True)
class Planted:
    """A user turn the plan puts in a session; ``key`` names it for the questions."""

    key: str
    text: str
    echo: str | None = None  # the value an assistant reply may repeat


class _Plan:
    def __init__(self, rng: random.Random, lang: str, n_sessions: int,
                 dates: list[datetime]) -> None:
        self.rng, self.lang, self.n, self.dates = rng, lang, n_sessions, dates
        self.by_session: dict[int, list[Planted]] = {i: [] for i in range(n_sessions)}
        self.session_of: dict[str, int] = {}

    def put(self, session: int, item: Planted) -> None:
        self.by_session[session].append(item)
        self.session_of[item.key] = session


def _slot_values(rng: random.Random, spec: dict[str, Any], n: int, lang: str,
                 dates: list[datetime]) -> list[str]:
    """``n`` successive values of a slot and one more (the distractor), all distinct."""
    if spec["kind"] == "name":
        return rng.sample(spec["values"], n + 1)
    if spec["kind"] == "number":
        v = rng.randrange(spec["low"], spec["high"], spec["step"])
        out = [v]
        for _ in range(n - 1):
            v += rng.randint(*spec["delta"]) // spec["step"] * spec["step"] or spec["step"]
            out.append(v)
        other = v + spec["step"] * rng.randint(3, 9)
        return [str(x) for x in (*out, other)]
    d = dates[0] + timedelta(days=rng.randint(60, 90))
    days = [d]
    for _ in range(n):
        d += timedelta(days=rng.randint(14, 45))
        days.append(d)
    return [fmt_date(x, lang) for x in days]


def _plant_slots(plan: _Plan, user: str, questions: list[Question]) -> None:
    rng, lang = plan.rng, plan.lang
    slots = SLOTS[lang]
    for name in rng.sample(sorted(slots), SLOTS_PER_USER):
        spec = slots[name]
        versions = 3 if rng.random() < 0.3 else 2
        s1 = rng.randint(0, 4)
        sessions = [s1, rng.randint(s1 + 6, s1 + 10)]
        if versions == 3:
            sessions.append(rng.randint(sessions[1] + 6, plan.n - 1))
        values = _slot_values(rng, spec, versions, lang, [plan.dates[s] for s in sessions])
        keys = [f"{name}:{i}" for i in range(versions)]
        for i, (s, key) in enumerate(zip(sessions, keys, strict=True)):
            tpl = rng.choice(spec["first"] if i == 0 else spec["change"])
            plan.put(s, Planted(key, tpl.format(v=values[i], old=values[i - 1] if i else ""),
                                values[i]))
        plan.put(rng.randrange(plan.n),
                 Planted(f"{name}:distract", rng.choice(spec["distract"]).format(v=values[-1])))
        questions.append(Question(
            "", user, lang, "current", rng.choice(spec["current"]), values[versions - 1],
            [keys[-1]], [values[versions - 1]], old=keys[:-1], new=[keys[-1]], slot=name))
        i = rng.randrange(versions - 1)  # a past version, asked in a month it held
        month = month_between(plan.dates[sessions[i]], plan.dates[sessions[i + 1]])
        if month is not None:
            questions.append(Question(
                "", user, lang, "past", rng.choice(spec["past"]).format(
                    when=fmt_month(month, lang)), values[i], [keys[i]], [values[i]],
                as_of=month.isoformat(), slot=name))


def _plant_rest(plan: _Plan, user: str, questions: list[Question]) -> None:
    rng, lang, n = plan.rng, plan.lang, plan.n
    for ei, (tpl, q, near) in enumerate(rng.sample(EVENTS[lang], 2)):
        s = rng.randrange(n)
        day = fmt_date(plan.dates[s] - timedelta(days=rng.randint(0, 3)), lang)
        plan.put(s, Planted(f"event:{ei}", tpl.format(d=day)))
        plan.put(rng.randrange(n), Planted(f"event:{ei}:near", near))
        questions.append(Question("", user, lang, "when", q, day, [f"event:{ei}"], [day]))

    keyword, mentions, q, nears = rng.choice(ACTIVITIES[lang])
    for j, near in enumerate(nears):
        plan.put(rng.randrange(n), Planted(f"activity:near{j}", near))
    k = rng.randint(2, 5)
    combos = rng.sample([(p, m) for p in PREFIXES[lang] for m in mentions], k)
    keys = []
    for j, s in enumerate(sorted(rng.sample(range(n), k))):
        prefix, mention = combos[j]
        plan.put(s, Planted(f"activity:{j}", prefix + mention))
        keys.append(f"activity:{j}")
    questions.append(Question("", user, lang, "how_many", q, str(k), keys, [keyword]))

    c = CONTRADICTIONS[lang]
    tool, project = rng.choice(c["tools"]), rng.choice(c["projects"])
    a = rng.randrange(0, n // 2)
    b = rng.randint(a + 4, n - 1)
    plan.put(a, Planted("contra:never", rng.choice(c["never"]).format(t=tool)))
    plan.put(b, Planted("contra:did", rng.choice(c["did"]).format(t=tool, p=project)))
    plan.put(rng.randrange(n), Planted("contra:near", rng.choice(c["near"]).format(t=tool)))
    questions.append(Question("", user, lang, "contradiction", rng.choice(c["q"]).format(t=tool),
                              "yes" if lang == "en" else "用过",
                              ["contra:never", "contra:did"], [tool]))

    p = PROJECTS[lang]
    name = rng.choice(p["names"])
    tools = rng.sample(p["tools"], 4)
    plan.put(rng.randrange(n), Planted("project:near", p["near"].format(t=tools.pop(), p=name)))
    for j, s in enumerate(sorted(rng.sample(range(n), 3))):
        text = p["parts"][j].format(p=name, t=tools[j])
        plan.put(s, Planted(f"project:{j}", text[:1].upper() + text[1:]))
    questions.append(Question("", user, lang, "multi_session", p["q"].format(p=name),
                              ", ".join(tools), [f"project:{j}" for j in range(3)], list(tools)))


# --------------------------------------------------------------------------- a chat


def generate_chat(seed: int, lang: str, index: int) -> tuple[Chat, list[Question]]:
    rng = random.Random(f"graphmem-corpus-{seed}-{lang}-{index}")
    user = f"{lang}-s{seed}-u{index:02d}"
    n = rng.randint(22, 28)
    dates = []
    day = START + timedelta(days=rng.randint(0, 10))
    for _ in range(n):
        dates.append(day.replace(hour=rng.randint(8, 21), minute=rng.choice((0, 15, 30, 45))))
        day += timedelta(days=rng.randint(5, 11))
    plan = _Plan(rng, lang, n, dates)
    questions: list[Question] = []
    _plant_slots(plan, user, questions)
    _plant_rest(plan, user, questions)

    f = FILLER[lang]
    fillers = [(a, x) for a in f["ask"] for x in TOPICS[lang]]
    rng.shuffle(fillers)
    chat = Chat(user, lang, (dates[-1] + timedelta(days=1)).isoformat())
    ids: dict[str, str] = {}
    for si in range(n):
        turns: list[tuple[str, str, str | None]] = []  # (user text, reply, planted key)
        for item in plan.by_session[si]:
            if item.echo is not None and rng.random() < 0.25:
                reply = rng.choice(f["echo"]).format(v=item.echo)
            else:
                reply = rng.choice(f["ack"])
            turns.append((item.text, reply, item.key))
        for _ in range(rng.randint(3, 6)):
            ask, x = fillers.pop()
            turns.append((ask.format(x=x), rng.choice(f["reply"]).format(x=x), None))
        rng.shuffle(turns)
        session = ChatSession(f"{user}:s{si:02d}", dates[si].isoformat())
        for text, reply, key in turns:
            for role, content in (("user", text), ("assistant", reply)):
                at = dates[si] + timedelta(minutes=len(session.messages))
                mid = f"{session.id}:m{len(session.messages):03d}"
                session.messages.append(Message(mid, role, content, at.isoformat()))
                if key is not None and role == "user":
                    ids[key] = mid
        chat.sessions.append(session)
    for qi, q in enumerate(questions):
        q.id = f"{user}:q{qi:02d}"
        q.evidence = [ids[k] for k in q.evidence]
        q.old = [ids[k] for k in q.old]
        q.new = [ids[k] for k in q.new]
    return chat, questions


def generate(seed: int, langs: tuple[str, ...] | list[str] = LANGS, users: int = 10,
             version: str = DEFAULT_VERSION) -> Corpus:
    """``users`` chats per language, with their questions; ``version`` "v1" (short turns,
    questions in the statements' words) or "v2" (``_corpus_v2``: long requests with the
    facts said in passing, paraphrased questions)."""
    if version not in VERSIONS:
        raise ValueError(f"unknown corpus version {version!r}")
    chats: list[Chat] = []
    questions: list[Question] = []
    for lang in langs:
        for i in range(users):
            if version == "v1":
                chat, qs = generate_chat(seed, lang, i)
            else:
                chat, qs = _build_v2(seed, lang, i)
            chats.append(chat)
            questions.extend(qs)
    return Corpus(seed, list(langs), chats, questions)


def _build_v2(seed: int, lang: str, index: int) -> tuple[Chat, list[Question]]:
    import types

    from _corpus_v2 import build_chat

    helpers = types.SimpleNamespace(START=START, slot_values=_slot_values, fmt_date=fmt_date,
                                    fmt_month=fmt_month, month_between=month_between)
    kinds = types.SimpleNamespace(Chat=Chat, ChatSession=ChatSession, Message=Message,
                                  Question=Question)
    chat, qs = build_chat(seed, lang, index, kinds, helpers)
    return chat, qs


def summary(corpus: Corpus) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for lang in corpus.langs:
        chats = [c for c in corpus.chats if c.lang == lang]
        qs = [q for q in corpus.questions if q.lang == lang]
        msgs = [m for c in chats for m in c.messages]
        out[lang] = {"users": len(chats), "sessions": sum(len(c.sessions) for c in chats),
                     "messages": len(msgs),
                     "user_turns": sum(1 for m in msgs if m.role == "user"),
                     "questions": len(qs),
                     "by_kind": {k: sum(1 for q in qs if q.kind == k) for k in KINDS}}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench/corpus.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=DEV_SEED,
                    help=f"{DEV_SEED}: dev (default), {TEST_SEED}: test")
    ap.add_argument("--corpus", choices=VERSIONS, default=DEFAULT_VERSION,
                    help="v2 (default): long requests, facts said in passing; v1: the "
                         "first generator, short turns")
    ap.add_argument("--lang", choices=("en", "zh", "both"), default="both")
    ap.add_argument("--users", type=int, default=10, help="chats per language (default 10)")
    ap.add_argument("--out", type=Path, default=None, help="write the corpus as JSON here")
    ap.add_argument("--show", type=int, default=0, metavar="N",
                    help="print the first N chats and their questions")
    args = ap.parse_args(argv)
    corpus = generate(args.seed, LANGS if args.lang == "both" else (args.lang,), args.users,
                      args.corpus)
    for chat in corpus.chats[: args.show]:
        for s in chat.sessions:
            print(f"--- {s.id} {s.start}")
            for m in s.messages:
                print(f"  {m.id} {m.role}: {m.content}")
        for q in corpus.questions:
            if q.user_id == chat.user_id:
                print(f"Q {q.kind}: {q.text} -> {q.answer} {q.evidence} old={q.old}")
    if args.out:
        args.out.write_text(json.dumps(corpus.to_json(), ensure_ascii=False, indent=1) + "\n",
                            encoding="utf-8")
    print(json.dumps(summary(corpus), ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
