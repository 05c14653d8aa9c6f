"""The v2 single-user corpus: assistant chats the way people write them.

What v1 (``corpus.py``) lacked and held-out chats have: user turns are requests with
context (an intro, pasted code or drafts, the ask), often 1,000+ characters, and a planted
fact is said in passing between two of those paragraphs; assistant answers are long; filler
talks about the same things as the facts without their values ("my landlord still hasn't
fixed the heating", "my manager wants this before the planning meeting"); events are dated
relative to the day they are told ("last Tuesday", 上周二); the two sides of a
contradiction are worded differently; questions paraphrase what was said ("Who is my
employer at this point?" for "I'm at Quarry Games now").

The plan is v1's (slots that change value once or twice weeks apart, with a distractor; two
events; a repeated activity; a contradiction; a side project over three sessions; near
misses), and so are the question kinds and the meaning of ``evidence`` / ``old`` / ``new``.
Deterministic for (seed, language, index).
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from _corpus_v2_text import (
    ACTIVITIES,
    ASIDES,
    CONTEXT,
    CONTRADICTIONS,
    ECHO,
    EVENTS,
    PROJECTS,
    SLOTS,
    TASKS,
    WEEKDAYS,
)

SLOTS_PER_USER = 5
LONG_SHARE = 0.7  # planted facts said inside a long request (the rest: a short turn)
MENTION_SHARE = 0.35  # filler requests that talk about a slot without its value


class _Turn:
    __slots__ = ("key", "fact", "echo", "standalone")

    def __init__(self, key: str | None, fact: str | None, echo: str | None = None,
                 standalone: bool = False) -> None:
        self.key, self.fact, self.echo, self.standalone = key, fact, echo, standalone


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _lower_first(text: str) -> str:
    # "Since I left ..." -> "since I left ..."; keeps names and "I" as they are
    first = text.split(" ", 1)[0]
    if first in ("I", "I'm", "I've") or (len(first) > 1 and first[1:2].isupper()):
        return text
    return text[:1].lower() + text[1:]


def relative_day(rng: random.Random, told: datetime, lang: str) -> tuple[str, datetime]:
    """A phrase for a day shortly before ``told`` and the day it names."""
    pick = rng.randrange(3)
    if pick == 0:
        return ("yesterday" if lang == "en" else "昨天"), told - timedelta(days=1)
    if pick == 1:
        return ("two days ago" if lang == "en" else "前天"), told - timedelta(days=2)
    if lang == "en":  # the most recent such weekday, two to six days back
        day = told - timedelta(days=rng.randint(2, 6))
        return f"last {WEEKDAYS['en'][day.weekday()]}", day
    target = rng.randrange(7)  # a day of the previous calendar week
    day = told - timedelta(days=told.weekday() + 7 - target)
    return f"上周{WEEKDAYS['zh'][target]}", day


def request(rng: random.Random, lang: str, fact: str | None, long: bool) -> tuple[str, int]:
    """A user request with ``fact`` said in passing inside it; (text, task index)."""
    ti = rng.randrange(len(TASKS[lang]))
    task = TASKS[lang][ti]
    n = rng.randint(2, 9)
    intro, ask = rng.choice(task["intro"]), rng.choice(task["ask"])
    aside = None
    if fact is not None:
        aside = rng.choice(ASIDES[lang]).format(f=fact, f0=_lower_first(fact))
    if not long:
        parts = [intro, aside, ask] if aside else [intro, ask]
        return ("" if lang == "zh" else " ").join(p for p in parts if p), ti
    # Chinese says as much in fewer characters: more of the same circumstances
    context = ("" if lang == "zh" else " ").join(
        rng.sample(CONTEXT[lang], rng.randint(3, 6) if lang == "en" else rng.randint(5, 8)))
    paras = [context, *(p.format(n=n) for p in
                        rng.sample(task["pastes"], rng.randint(2, len(task["pastes"]))))]
    rng.shuffle(paras)
    if aside:
        # buried in the middle: never first or last, never the opening line
        paras.insert(rng.randint(1, len(paras) - 1), aside)
    return "\n\n".join([intro, *paras, ask]), ti


def reply(rng: random.Random, lang: str, ti: int, echo: str | None) -> str:
    paras = TASKS[lang][ti]["reply"]
    out = rng.sample(paras, rng.randint(2, len(paras)))
    if echo is not None and rng.random() < 0.25:
        out.insert(0, rng.choice(ECHO[lang]).format(v=echo))
    return "\n\n".join(out)


# --------------------------------------------------------------------------- planting


def plant(rng: random.Random, lang: str, user: str, n: int, dates: list[datetime],
          by_session: dict[int, list[_Turn]], questions: list[Any],
          question_cls: Any, helpers: Any) -> list[str]:
    """Puts the planted turns into ``by_session`` and their questions into ``questions``
    (evidence as turn keys); returns the slots chosen (their ``mention`` lines are filler)."""

    def put(s: int, turn: _Turn) -> None:
        by_session[s].append(turn)

    slots = SLOTS[lang]
    chosen = rng.sample(sorted(slots), SLOTS_PER_USER)
    for name in chosen:
        spec = slots[name]
        versions = 3 if rng.random() < 0.3 else 2
        s1 = rng.randint(0, 4)
        sessions = [s1, rng.randint(s1 + 5, s1 + 9)]
        if versions == 3:
            sessions.append(rng.randint(sessions[1] + 5, n - 1))
        values = helpers.slot_values(rng, spec, versions, lang, [dates[s] for s in sessions])
        keys = [f"{name}:{i}" for i in range(versions)]
        for i, (s, key) in enumerate(zip(sessions, keys, strict=True)):
            tpl = rng.choice(spec["first"] if i == 0 else spec["change"])
            put(s, _Turn(key, tpl.format(v=values[i], old=values[i - 1] if i else ""),
                         values[i]))
        put(rng.randrange(n), _Turn(f"{name}:distract",
                                    rng.choice(spec["distract"]).format(v=values[-1])))
        questions.append(question_cls(
            "", user, lang, "current", rng.choice(spec["current"]), values[versions - 1],
            [keys[-1]], [values[versions - 1]], old=keys[:-1], new=[keys[-1]], slot=name))
        i = rng.randrange(versions - 1)
        month = helpers.month_between(dates[sessions[i]], dates[sessions[i + 1]])
        if month is not None:
            questions.append(question_cls(
                "", user, lang, "past", rng.choice(spec["past"]).format(
                    when=helpers.fmt_month(month, lang)), values[i], [keys[i]], [values[i]],
                as_of=month.isoformat(), slot=name))

    for ei, ev in enumerate(rng.sample(EVENTS[lang], 2)):
        s = rng.randrange(n)
        phrase, day = relative_day(rng, dates[s], lang)
        put(s, _Turn(f"event:{ei}", _cap(rng.choice(ev["said"]).format(rel=phrase))))
        put(rng.randrange(n), _Turn(f"event:{ei}:near", ev["near"], standalone=True))
        questions.append(question_cls("", user, lang, "when", rng.choice(ev["q"]),
                                      helpers.fmt_date(day, lang), [f"event:{ei}"],
                                      [ev["key"]]))

    act = rng.choice(ACTIVITIES[lang])
    for j, near in enumerate(act["near"]):
        put(rng.randrange(n), _Turn(f"activity:near{j}", near, standalone=True))
    k = rng.randint(2, 5)
    said = rng.sample(act["said"], k)
    keys = []
    for j, s in enumerate(sorted(rng.sample(range(n), k))):
        put(s, _Turn(f"activity:{j}", said[j]))
        keys.append(f"activity:{j}")
    questions.append(question_cls("", user, lang, "how_many", act["q"], str(k), keys,
                                  [act["key"]]))

    c = CONTRADICTIONS[lang]
    tool, project = rng.choice(c["tools"]), rng.choice(c["projects"])
    a = rng.randrange(0, n // 2)
    b = rng.randint(a + 4, n - 1)
    put(a, _Turn("contra:never", rng.choice(c["never"]).format(t=tool)))
    put(b, _Turn("contra:did", rng.choice(c["did"]).format(t=tool, p=project)))
    put(rng.randrange(n), _Turn("contra:near", rng.choice(c["near"]).format(t=tool),
                                standalone=True))
    questions.append(question_cls("", user, lang, "contradiction",
                                  rng.choice(c["q"]).format(t=tool),
                                  "yes" if lang == "en" else "用过",
                                  ["contra:never", "contra:did"], [tool]))

    p = PROJECTS[lang]
    name = rng.choice(p["names"])
    tools = rng.sample(p["tools"], 4)
    put(rng.randrange(n), _Turn("project:near", p["near"].format(t=tools.pop(), p=name),
                                standalone=True))
    for j, s in enumerate(sorted(rng.sample(range(n), 3))):
        put(s, _Turn(f"project:{j}", p["parts"][j].format(p=name, t=tools[j])))
    questions.append(question_cls("", user, lang, "multi_session", p["q"].format(p=name),
                                  ", ".join(tools), [f"project:{j}" for j in range(3)],
                                  list(tools)))
    return chosen


def build_chat(seed: int, lang: str, index: int, types: Any, helpers: Any) -> tuple[Any, list[Any]]:
    """One v2 chat and its questions; ``types`` has Chat, ChatSession, Message, Question,
    ``helpers`` the date formatting and slot value functions of ``corpus``."""
    rng = random.Random(f"graphmem-corpus-v2-{seed}-{lang}-{index}")
    user = f"{lang}-v2s{seed}-u{index:02d}"
    n = rng.randint(22, 26)
    dates = []
    day = helpers.START + timedelta(days=rng.randint(0, 10))
    for _ in range(n):
        dates.append(day.replace(hour=rng.randint(8, 21), minute=rng.choice((0, 15, 30, 45))))
        day += timedelta(days=rng.randint(5, 10))
    by_session: dict[int, list[_Turn]] = {i: [] for i in range(n)}
    questions: list[Any] = []
    chosen = plant(rng, lang, user, n, dates, by_session, questions, types.Question, helpers)
    mentions = [m for name in chosen for m in SLOTS[lang][name]["mention"]]

    chat = types.Chat(user, lang, (dates[-1] + timedelta(days=1)).isoformat())
    ids: dict[str, str] = {}
    for si in range(n):
        turns: list[tuple[str, str, str | None]] = []  # (user text, reply, planted key)
        for t in by_session[si]:
            if t.standalone:
                # a near miss: the same words, asked for something else, as its own turn
                text, ti = t.fact or "", rng.randrange(len(TASKS[lang]))
            else:
                text, ti = request(rng, lang, t.fact, long=rng.random() < LONG_SHARE)
            turns.append((text, reply(rng, lang, ti, t.echo), t.key))
        for _ in range(rng.randint(4, 6)):
            fact = rng.choice(mentions) if rng.random() < MENTION_SHARE else None
            text, ti = request(rng, lang, fact, long=rng.random() < 0.75)
            turns.append((text, reply(rng, lang, ti, None), None))
        rng.shuffle(turns)
        session = types.ChatSession(f"{user}:s{si:02d}", dates[si].isoformat())
        for text, answer, key in turns:
            for role, content in (("user", text), ("assistant", answer)):
                at = dates[si] + timedelta(minutes=2 * len(session.messages))
                mid = f"{session.id}:m{len(session.messages):03d}"
                session.messages.append(types.Message(mid, role, content, at.isoformat()))
                if key is not None and role == "user":
                    ids[key] = mid
        chat.sessions.append(session)
    for qi, q in enumerate(questions):
        q.id = f"{user}:q{qi:02d}"
        q.evidence = [ids[k] for k in q.evidence]
        q.old = [ids[k] for k in q.old]
        q.new = [ids[k] for k in q.new]
    return chat, questions
