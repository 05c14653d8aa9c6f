"""What changed in a user's memory, as a feed of events read back from the graph.

Every change the memory makes is already recorded where it happened, in the same atomic
write: a node's ``recordedAt`` (or ``createdAt``) and ``expiredAt``, the ``at`` of a
SUPERSEDES or DISPUTED edge, a ``forgetLog`` of forget and restore (``forget_change``), and
the ``feedbackLog`` of every feedback signal. The feed reads those back, so an event can
neither be lost nor announce a write that did not land, and it needs no store of its own:

* ``RECORDED``: an episode, entity, relation or abstraction (a reflected version too) was
  written;
* ``SUPERSEDED`` / ``DISPUTED``: a relation or abstraction version was superseded by, or
  put in dispute with, ``relatedId``;
* ``EXPIRED``: a node stopped being believed (its claims were folded into another);
* ``FORGOTTEN`` / ``RESTORED``; ``FEEDBACK`` (the signal in ``detail``).

Events are ordered by ``(at, kind, memoryId, relatedId)``; ``after`` is the last event a
client saw (its ``cursor``), so polling with it never repeats or skips one written later
at a later time. A write stamped with an earlier system time than one already read (two
services with skewed clocks) can be missed by a poller that passed it: poll with a
``since`` a little behind the last ``at`` to be safe.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graphmem.errors import InvalidInputError
from graphmem.model import MemoryKind, from_ms, seen_under, to_ms
from graphmem.store.base import Row, Store

#: the most events one page holds
MAX_EVENTS = 1000
EVENT_KINDS = ("RECORDED", "SUPERSEDED", "DISPUTED", "EXPIRED", "FORGOTTEN", "RESTORED",
               "FEEDBACK")
_KIND_OF = {"Episode": MemoryKind.EPISODE, "Entity": MemoryKind.ENTITY,
            "Relation": MemoryKind.RELATION, "Abstraction": MemoryKind.ABSTRACTION}
_VERSIONED = ("Relation", "Abstraction")
_EDGE_EVENT = {"SUPERSEDES": "SUPERSEDED", "DISPUTED": "DISPUTED"}
_TEXT_CHARS = 200


@dataclass(frozen=True, slots=True)
class MemoryEvent:
    at: datetime
    kind: str
    memory_id: str
    memory_kind: MemoryKind
    text: str | None = None
    related_id: str | None = None
    detail: str | None = None

    @property
    def cursor(self) -> str:
        return _cursor(self._key)

    @property
    def _key(self) -> tuple[int, str, str, str]:
        return (to_ms(self.at) or 0, self.kind, self.memory_id, self.related_id or "")


@dataclass(frozen=True, slots=True)
class EventPage:
    items: list[MemoryEvent]
    next_cursor: str | None  # the last item's cursor when more may follow


def forget_change(row: Row, at: int, *, forgotten: bool) -> Row:
    """The properties that forget (or restore) a node, its ``forgetLog`` extended."""
    try:
        log = json.loads(row.get("forgetLog") or "[]")
    except (TypeError, ValueError):
        log = []
    if not isinstance(log, list):
        log = []
    log.append([at, "FORGOTTEN" if forgotten else "RESTORED"])
    return {"forgottenAt": at if forgotten else None, "forgetLog": json.dumps(log)}


def events(store: Store, user_id: str, *, since: datetime, until: datetime | None = None,
           after: str | None = None, limit: int = 100, scope: str | None = None) -> EventPage:
    """The user's events with ``since <= at < until`` (until: none), oldest first, after
    the event ``after`` names, at most ``limit``; under a ``scope``, only those about that
    scope's memories and the user level's (entities belong to the user: always)."""
    if not 1 <= limit <= MAX_EVENTS:
        raise InvalidInputError("limit", f"must be between 1 and {MAX_EVENTS}")
    start = to_ms(since) or 0
    end = None if until is None else to_ms(until)
    if end is not None and end <= start:
        raise InvalidInputError("until", "must be after since")
    last = _parse_cursor(after) if after else None
    if last is not None:
        start = max(start, last[0])
    found: list[MemoryEvent] = []
    texts: dict[str, str | None] = {}
    for label, kind in _KIND_OF.items():
        for row in store.event_nodes(label, user_id, start):
            if not seen_under(scope, row.get("scope")):
                continue
            texts[str(row["id"])] = _short(row.get("text"))
            found.extend(_node_events(row, kind))
    for label in _VERSIONED:
        for edge in ("SUPERSEDES", "DISPUTED"):
            edges = [e for e in store.export_edges(edge, user_id, ends=(label, label))
                     if (_ms((e.get("props") or {}).get("at")) or -1) >= start]
            if scope is not None:
                seen = _seen_in(store, label, user_id, scope, [str(e["dst"]) for e in edges])
                edges = [e for e in edges if str(e["dst"]) in seen]
            for e in edges:
                at = _ms((e.get("props") or {}).get("at"))
                if at is not None:
                    # the older version is the one the event is about
                    found.append(MemoryEvent(from_ms(at), _EDGE_EVENT[edge], str(e["dst"]),
                                             _KIND_OF[label], related_id=str(e["src"])))
    out = sorted({ev._key: ev for ev in found
                  if (to_ms(ev.at) or 0) >= start and (end is None or (to_ms(ev.at) or 0) < end)
                  and (last is None or ev._key > last)}.values(), key=lambda ev: ev._key)
    page = [ev if ev.text is not None else _with_text(ev, texts) for ev in out[:limit]]
    return EventPage(page, page[-1].cursor if len(out) > limit else None)


def _seen_in(store: Store, label: str, user_id: str, scope: str, ids: list[str]) -> set[str]:
    """Those of ``ids`` a read under ``scope`` sees: the scope's and the user level's."""
    rows = store.nodes(label, user_id, sorted(set(ids))) if ids else []
    return {str(r["id"]) for r in rows if seen_under(scope, r.get("scope"))}


def _node_events(row: Row, kind: MemoryKind) -> list[MemoryEvent]:
    node_id, text = str(row["id"]), _short(row.get("text"))
    out: list[MemoryEvent] = []

    def add(at: Any, what: str, detail: str | None = None) -> None:
        ms = _ms(at)
        if ms is not None:
            out.append(MemoryEvent(from_ms(ms), what, node_id, kind, text, detail=detail))

    add(row.get("recordedAt"), "RECORDED")
    add(row.get("expiredAt"), "EXPIRED")
    logged = _json_list(row.get("forgetLog"))
    for entry in logged:
        if isinstance(entry, list) and len(entry) == 2 and entry[1] in ("FORGOTTEN",
                                                                        "RESTORED"):
            add(entry[0], str(entry[1]))
    if not logged:  # forgotten before the log was kept
        add(row.get("forgottenAt"), "FORGOTTEN")
    for entry in _json_list(row.get("feedbackLog")):
        if isinstance(entry, dict):
            add(entry.get("at"), "FEEDBACK", str(entry.get("signal") or ""))
    return out


def _with_text(ev: MemoryEvent, texts: dict[str, str | None]) -> MemoryEvent:
    return MemoryEvent(ev.at, ev.kind, ev.memory_id, ev.memory_kind, texts.get(ev.memory_id),
                       ev.related_id, ev.detail)


def _json_list(raw: Any) -> list[Any]:
    try:
        value = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return []
    return value if isinstance(value, list) else []


def _ms(value: Any) -> int | None:
    try:
        return None if value is None else int(value)
    except (TypeError, ValueError):
        return None


def _short(text: Any) -> str | None:
    return None if text is None else str(text)[:_TEXT_CHARS]


def _cursor(key: tuple[int, str, str, str]) -> str:
    return json.dumps(list(key), ensure_ascii=True, separators=(",", ":"))


def _parse_cursor(raw: str) -> tuple[int, str, str, str]:
    try:
        at, kind, memory, related = json.loads(raw)
        if not isinstance(at, int) or kind not in EVENT_KINDS:
            raise ValueError(raw)
        return at, str(kind), str(memory), str(related)
    except (TypeError, ValueError) as e:
        raise InvalidInputError("after", "not a cursor this feed gave") from e
