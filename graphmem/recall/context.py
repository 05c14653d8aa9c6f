"""Recall's conversational context: turns next to the strongest episodes in their session
inherit part of their fused score (the topical words are often in one turn and the
answer in the next: "How long have you had them?" - "Three years now!")."""

from __future__ import annotations

import re
from collections import defaultdict

from graphmem.question import is_named, states_time
from graphmem.recall.retrieve import _Candidates
from graphmem.recall_model import RecallTuning
from graphmem.store.base import Row, Store


def _context(store: Store, user_id: str, c: _Candidates, fused: dict[str, float],
             named: dict[str, bool], names: list[str], when: bool,
             known_at: int, t: RecallTuning) -> dict[str, float]:
    """What turns next to the strongest episodes inherit from them.

    Only turns by a named person inherit when the question names someone (the answer
    is theirs); for when-questions a neighbour that states a time inherits more.
    Episodes forgotten or not yet recorded at ``known_at`` neither give nor take.
    A neighbour the searches missed joins the candidates (``c``), and what is learned of
    whether it is by a named person joins ``named``.
    """

    def visible(row: Row) -> bool:
        return (row.get("forgottenAt") is None
                and (row.get("recordedAt") or row.get("createdAt") or 0) <= known_at)

    episodes = sorted((i for i in fused if c.label_of[i] == "Episode" and i in c.rows
                       and visible(c.rows[i])),
                      key=lambda i: (-fused[i], i))[: t.context_seeds]
    if not episodes:
        return {}
    rows = store.session_context(user_id, episodes, t.context_span_ms,
                                 max(400, 40 * len(episodes)))
    by_session: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        if visible(row):
            by_session[str(row.get("sessionId"))].append(row)
    best: dict[str, float] = defaultdict(float)
    seeds = set(episodes)
    for members in by_session.values():
        members.sort(key=_turn_order)
        for pos, row in enumerate(members):
            if row["id"] not in seeds:
                continue
            score = fused[row["id"]]
            for nb in (pos - 1, pos + 1):
                if not 0 <= nb < len(members):
                    continue
                other = members[nb]
                span = abs(int(other.get("occurredAt") or 0) - int(row.get("occurredAt")
                                                                       or 0))
                if span <= t.context_span_ms:
                    best[other["id"]] = max(best[other["id"]], score)
    members_by_id = {r["id"]: r for r in rows}
    out: dict[str, float] = {}
    for i, score in best.items():
        row = members_by_id[i]
        if names:
            gate = named.get(i)
            if gate is None:
                gate = is_named("Episode", row, names)
                named[i] = gate
            if not gate:
                continue
        share = t.context_weight
        if when and states_time(row.get("content", "")):
            share += t.context_time_weight
        out[i] = share * score
        if i not in c.label_of:
            c.label_of[i] = "Episode"
            c.rows[i] = row
            c.ranks[i]["context"] = 0
    return out


def _turn_order(row: Row) -> tuple[int, tuple[tuple[int, str], ...], int, str]:
    """Order of turns in a session: time, then the source's own numbering ("D3:12" before
    "D3:13"; turns of one session often share a timestamp), then arrival."""
    return (int(row.get("occurredAt") or 0), _natural(row.get("sourceRef") or ""),
            int(row.get("createdAt") or 0), str(row["id"]))


def _natural(text: str) -> tuple[tuple[int, str], ...]:
    return tuple((int(p), "") if p.isdigit() else (-1, p)
                 for p in re.split(r"(\d+)", text) if p)
