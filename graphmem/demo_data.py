"""The shipped demo history: three years of one user ("ana") talking to an assistant.

Everything here is generated deterministically (a fixed seed, fixed dates), so every run of
``graphmem demo`` and of the explorer notebook sees the same memory. The history has:

* turns the offline rule extractor (``graphmem.extract.rules``) turns into relations:
  preferences that change (Vue -> React -> Svelte, tea -> coffee, VS Code -> Neovim), a move
  (Lisbon -> Berlin), a job change (Farfetch -> Zalando), tools, a plan, a lesson;
* small talk around them (questions and requests the extractor rightly ignores), so recall
  has to find the right turns among many;
* two kinds of direct statements (``add_relation``): a back-filled fact (Ana lived in Porto
  before Lisbon, learned only in 2025) and a same-day contradiction (two systems disagree
  on who Ana reports to) that the conflict rules keep as a ``DISPUTED`` pair.

Times are UTC. ``recorded`` is when the memory learned a thing (system time): the demo
replays the history with the service's clock set to it, as if graphmem had been running
for those three years.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

USER_ID = "ana"
SPEAKER = "Ana"
# "Today" for the demo: the clock stands here once the history is loaded.
TODAY = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
SEED = 20230110


@dataclass(frozen=True, slots=True)
class DemoTurn:
    """One user turn (an episode), optionally with the assistant's reply in the same episode."""

    occurred_at: datetime
    session_id: str
    source_ref: str
    content: str
    reply: str | None = None


@dataclass(frozen=True, slots=True)
class DemoRelation:
    """A statement added directly (``add_relation``), learned at ``recorded``."""

    recorded: datetime
    subject: str
    predicate: str
    object: str
    valid_from: datetime
    source_ref: str
    category: str = "fact"
    exclusive: bool = True
    confidence: float = 0.9
    statement: str | None = None


def _at(day: str, hour: int = 9, minute: int = 30) -> datetime:
    y, m, d = (int(x) for x in day.split("-"))
    return datetime(y, m, d, hour, minute, tzinfo=UTC)


# The turns that carry facts. (day, text, optional assistant reply)
_KEY_TURNS: list[tuple[str, str, str | None]] = [
    ("2023-01-10", "Hi! I'm Ana. I live in Lisbon and I work at Farfetch as a frontend "
                   "developer.", "Nice to meet you, Ana! How can I help?"),
    ("2023-01-10", "I really like Vue for small projects.", None),
    ("2023-01-24", "I drink tea every morning.", None),
    ("2023-03-02", "Our stack is Vue, Vite and PostgreSQL.", None),
    ("2023-06-14", "I use VS Code for everything.", None),
    ("2023-09-05", "I'm learning Rust.", "Great choice. Want a reading list?"),
    ("2023-11-20", "The Docker build failed because the corporate proxy was not configured.",
     None),
    ("2023-11-20", "The Docker build requires the proxy settings.", None),
    ("2024-03-04", "These days I prefer React.", None),
    ("2024-04-15", "I plan to move to Berlin this autumn.", None),
    ("2024-06-10", "I switched from tea to coffee.", None),
    ("2024-09-02", "I moved from Lisbon to Berlin last week.", "Welcome to Berlin!"),
    ("2024-10-01", "I left Farfetch. I joined Zalando as a staff engineer.", None),
    ("2025-01-20", "I now use Neovim.", None),
    ("2025-04-08", "I'm going to learn German this year.", None),
    ("2025-06-17", "I still prefer React for work projects.", None),
    ("2025-09-23", "I drink coffee every morning.", None),
    ("2026-01-20", "I switched from React to Svelte.", "Svelte 5 runes are worth a look."),
    ("2026-02-16", "Svelte is my favorite framework now.", None),
]

# Small talk: requests and questions that carry no durable fact.
_CHATTER = [
    "Can you help me debug a flaky test in the checkout flow?",
    "What's a good way to structure fixtures in pytest?",
    "Could you review this SQL query for me?",
    "How do I squash the last three commits?",
    "Can you summarise this RFC in five bullet points?",
    "What's the difference between a mutex and a semaphore?",
    "Can you suggest a name for the new design-system package?",
    "How should I phrase this message to the team about the outage?",
    "Could you explain CSS container queries with an example?",
    "Can you write a regex that matches ISO dates?",
    "What are good questions to ask in a one-on-one?",
    "How do I profile a slow Node script?",
    "Can you help me plan the sprint demo?",
    "Could you translate this paragraph into Portuguese?",
    "What does this TypeScript error mean?",
    "Can you draft release notes from these commit messages?",
]

# Statements added directly, each learned (recorded) on its own day.
DIRECT_RELATIONS: list[DemoRelation] = [
    # Same-day contradiction: two systems disagree on the same day -> DISPUTED pair.
    DemoRelation(recorded=_at("2025-03-03", 8, 0), subject=SPEAKER, predicate="reports_to",
                 object="Marta", valid_from=_at("2025-03-03", 0, 0),
                 source_ref="hr-sync-2025-03-03", statement="Ana reports to Marta"),
    DemoRelation(recorded=_at("2025-03-03", 17, 0), subject=SPEAKER, predicate="reports_to",
                 object="Jonas", valid_from=_at("2025-03-03", 0, 0),
                 source_ref="org-chart-2025-03-03", statement="Ana reports to Jonas"),
    # Back-filled history: learned in May 2025, true from 2019 until she moved to Lisbon.
    DemoRelation(recorded=_at("2025-05-12", 10, 0), subject=SPEAKER, predicate="lives_in",
                 object="Porto", valid_from=_at("2019-09-01", 0, 0),
                 source_ref="profile-import-2025-05-12", category="identity",
                 statement="Ana lives in Porto"),
]


def turns() -> list[DemoTurn]:
    """Every episode of the demo, oldest first (same list on every call)."""
    rng = random.Random(SEED)
    out: list[DemoTurn] = []
    for n, (day, text, reply) in enumerate(_KEY_TURNS):
        when = _at(day) + timedelta(minutes=n % 3)
        out.append(DemoTurn(when, f"s-{day}", f"msg-{day}-{n:03d}", text, reply))
    # Chatter: about two turns a month over the three years, at generated times.
    cursor = _at("2023-01-16")
    end = _at("2026-02-28")
    k = 0
    while True:
        cursor += timedelta(days=rng.randint(9, 20))
        if cursor >= end:
            break
        when = cursor.replace(hour=rng.randint(8, 19), minute=rng.randint(0, 59))
        text = _CHATTER[rng.randrange(len(_CHATTER))]
        out.append(DemoTurn(when, f"s-{when:%Y-%m-%d}", f"msg-{when:%Y-%m-%d}-c{k:03d}", text,
                            "Sure, here is how I would approach it."))
        k += 1
    out.sort(key=lambda t: (t.occurred_at, t.source_ref))
    return out


__all__ = ["DIRECT_RELATIONS", "SPEAKER", "TODAY", "USER_ID", "DemoRelation", "DemoTurn",
           "turns"]
