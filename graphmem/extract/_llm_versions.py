"""Version links proposed by the model: which earlier messages a new one replaces or contradicts.

The rules (``graphmem._version_rules``) link two messages when a value they can read (a
number, a date, a name) changes under an attribute word both share. A change said only by
its sense escapes them: "the bed of my Tacoma is full of mulch" months after "I drive a
Civic". When the LLM engine is configured, each new message that states something goes to
the model with the user's messages nearest to it (``_episode_versions.version_asks``); the
messages of several asks go in one request, each shown once, numbered oldest first, and
the model names the pairs (at least one message new, the two shown to it as candidates of
each other) that hold two values of the same fact (``same_fact``) or cannot both be true
(``contradicts``).

The model only names pairs and the fact; which message is the newer one is decided from the
times the messages were said, as for the rules, so arrival order does not matter. A reply is
read leniently link by link (a number out of range, a pair not shown together or with no
new message, an unknown kind is dropped and counted) and the write then checks every
proposed pair again against the store.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeGuard

from graphmem.extract._llm_batch import json_object
from graphmem.extract._llm_output import short

VERSION_PROMPT = """\
You keep a user's long-term memory up to date. Below are messages one person wrote, oldest
first, numbered. Those marked NEW have just arrived. Find the pairs, at least one of them
NEW, that state the same fact about the same person or thing with different values, or
that cannot both be true.

Reply with ONE JSON object and nothing else:
{"links": [{"a": <number>, "b": <number>, "kind": "same_fact" or "contradicts",
  "fact": str, "old": str, "new": str}]}

- same_fact: one value replaced another: a new employer, home, phone, car, partner, rent,
  schedule, diet, app, a moved date, a corrected detail. The change may be said plainly or
  only shown by using the new value ("loading the bed of my Tacoma" after "I drive a Civic").
- contradicts: the two cannot both be true and neither says it replaces the other ("I have
  never been to Japan" / "back when I lived in Osaka").
- No link for: the same value said again, a fact of someone else, a plan or wish, a
  question, a hypothetical, or two messages about different topics. When unsure, no link.
- fact: a few words naming the fact ("employer", "car"); old and new: the earlier and the
  later value, as the messages say them. No pairs: {"links": []}.
"""

#: characters of the new message and of each other message shown to the model
NEW_CHARS = 1500
OTHER_CHARS = 400
#: characters of one fact/old/new string kept from the reply
FIELD_CHARS = 80
#: links kept per new message
MAX_ITEM_LINKS = 3
KINDS = {"same_fact": "SUPERSEDES", "contradicts": "DISPUTED"}


@dataclass(frozen=True, slots=True)
class Shown:
    """One message as the model sees it."""

    id: str
    text: str
    at: int  # epoch ms


@dataclass(frozen=True, slots=True)
class VersionAsk:
    """A new message and the user's messages it may replace or contradict."""

    new: Shown
    others: tuple[Shown, ...]


@dataclass(frozen=True, slots=True)
class VersionProposal:
    """A pair the model linked: ``kind`` is SUPERSEDES or DISPUTED (direction decided later
    from the times), ``reason`` what changed, in the model's words."""

    new_id: str
    other_id: str
    kind: str
    reason: str


@dataclass(slots=True)
class _Pool:
    """The messages of one request, numbered oldest first, and the pairs it may link."""

    shown: list[Shown]
    new: set[str]
    allowed: set[frozenset[str]]


def pack_asks(asks: Sequence[VersionAsk], budget: int) -> list[list[VersionAsk]]:
    """Asks grouped into requests: a group's messages, each shown once however many asks
    share it, stay within ``budget`` characters (an ask alone may pass it)."""
    packs: list[list[VersionAsk]] = []
    shown: set[str] = set()
    size = 0
    for ask in asks:
        extra = sum(_shown_len(s, s.id == ask.new.id) for s in (ask.new, *ask.others)
                    if s.id not in shown)
        if packs and size + extra > budget:
            packs.append([])
            shown, size = set(), 0
            extra = sum(_shown_len(s, s.id == ask.new.id) for s in (ask.new, *ask.others))
        if not packs:
            packs.append([])
        packs[-1].append(ask)
        shown.update(s.id for s in (ask.new, *ask.others))
        size += extra
    return packs


def _pool(asks: Sequence[VersionAsk]) -> _Pool:
    new = {a.new.id for a in asks}
    by_id: dict[str, Shown] = {}
    allowed: set[frozenset[str]] = set()
    for a in asks:
        by_id[a.new.id] = a.new
        for o in a.others:
            by_id.setdefault(o.id, o)
            allowed.add(frozenset((a.new.id, o.id)))
    allowed |= {frozenset((x, y)) for x in new for y in new if x != y}
    return _Pool(sorted(by_id.values(), key=lambda s: (s.at, s.id)), new, allowed)


def build_version_messages(asks: Sequence[VersionAsk]) -> list[dict[str, str]]:
    """The chat messages of one request over a pack of asks."""
    pool = _pool(asks)
    lines = [f"[{k}] {_when(s.at)}{' NEW' if s.id in pool.new else ''}: "
             f"{short(s.text, NEW_CHARS if s.id in pool.new else OTHER_CHARS)}"
             for k, s in enumerate(pool.shown)]
    user = "Messages:\n" + "\n".join(lines) + "\n\nReturn the JSON object."
    return [{"role": "system", "content": VERSION_PROMPT}, {"role": "user", "content": user}]


def parse_versions(text: str | None, asks: Sequence[VersionAsk]
                   ) -> tuple[list[VersionProposal], int]:
    """The proposals of a reply over ``asks`` (as numbered by ``build_version_messages``)
    and how many of its links were dropped as invalid: a number out of range, a pair with
    no new message or one not shown together, an unknown kind, more than ``MAX_ITEM_LINKS``
    for one new message.

    Raises ``ValueError`` when the reply is no JSON object with a ``links`` list."""
    obj = json_object(text)
    links = obj.get("links")
    if not isinstance(links, list):
        raise ValueError("no 'links' list")
    pool = _pool(asks)
    out: list[VersionProposal] = []
    seen: set[frozenset[str]] = set()
    per_new: dict[str, int] = {}
    dropped = 0
    for link in links:
        proposal = _proposal(link, pool)
        if proposal is None or per_new.get(proposal.new_id, 0) >= MAX_ITEM_LINKS:
            dropped += 1
            continue
        pair = frozenset((proposal.new_id, proposal.other_id))
        if pair not in seen:
            seen.add(pair)
            out.append(proposal)
            per_new[proposal.new_id] = per_new.get(proposal.new_id, 0) + 1
    return out, dropped


def _proposal(link: Any, pool: _Pool) -> VersionProposal | None:
    if not isinstance(link, dict):
        return None
    a, b, kind = link.get("a"), link.get("b"), KINDS.get(str(link.get("kind") or ""))
    n = len(pool.shown)
    if kind is None or not _index(a, n) or not _index(b, n) or a == b:
        return None
    x, y = pool.shown[a], pool.shown[b]
    if frozenset((x.id, y.id)) not in pool.allowed:
        return None
    # the new one of the two (the later, when both are new) is the one the link is asked for
    new, other = (y, x) if y.id in pool.new and (x.id not in pool.new or
                                                 (y.at, y.id) > (x.at, x.id)) else (x, y)
    fact, old, value = (_field(link.get(key)) for key in ("fact", "old", "new"))
    change = f"{old} -> {value}" if old and value else (old or value)
    reason = "model" + (f": {fact}" if fact else "") + (f": {change}" if change else "")
    return VersionProposal(new.id, other.id, kind, reason)


def _shown_len(s: Shown, new: bool) -> int:
    return min(len(s.text), NEW_CHARS if new else OTHER_CHARS) + 24


def _index(v: Any, size: int) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v < size


def _field(v: Any) -> str:
    return " ".join(str(v).split())[:FIELD_CHARS] if isinstance(v, str | int | float) \
        and not isinstance(v, bool) else ""


def _when(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M") if ms else "?"
