"""Recall's version stage for episodes: now, then, and both sides of a contradiction.

Episodes a later message restated with a new value are linked to it by SUPERSEDES edges,
contradicting ones by DISPUTED edges (``_episode_versions``). After ranking, for the
episodes found:

* each chain of versions (episodes joined by SUPERSEDES) answers with the version valid
  at the time asked about: the newest for a question about now; for a window ("in March",
  "last year") or ``asOf``, the last one said by its end; for a question about before a
  change ("before I switched", "used to", 以前), the one before the newest. That version
  takes the place of the chain's best-ranked member (it is brought in when the searches
  missed it), just above it; the versions it replaced stay, marked SUPERSEDED with
  ``superseded_by`` and the reason of the link;
* each side of a contradiction found brings the other side in, just below it; both are
  marked DISPUTED and reported as a conflict with both ids.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable

from graphmem.model import MemoryKind, MemoryStatus
from graphmem.recall_model import Conflict, RecallItem
from graphmem.store.base import Row, Store

#: how many of the ranked items the stage looks at, as a multiple of the limit asked for
DEPTH = 2
#: hops along SUPERSEDES edges read to complete a chain (three versions need two)
HOPS = 2
#: a version put above another scores this much more
_ABOVE = 1.001

_BEFORE = re.compile(
    r"\b(?:before (?:I|we|the|my|it|this|that)|used to|previously|originally|at first|formerly|"
    r"(?:my|the) (?:old|previous|former)|back then)\b|以前|之前|原来|当初|过去|曾经|换之前|"
    r"上一(?:份|个|任|家|辆|部|台)|上家|前任|上(?:个)?学期",
    re.I)


def asks_before(question: str) -> bool:
    """Does the question ask about how things were before a change?"""
    return _BEFORE.search(question) is not None


def resolve_versions(store: Store, user_id: str, items: list[RecallItem], rows: dict[str, Row],
                     make_item: Callable[[Row], RecallItem | None], *, at: int | None,
                     before: bool, limit: int, known_at: int) -> list[Conflict]:
    """Reorder ``items`` (sorted, best first) by episode versions, in place; returns the
    contradictions found. ``at``: the time asked about (None: now); ``before``: the
    question asks about before the latest change."""
    top = [i for i in items[: DEPTH * limit] if i.kind is MemoryKind.EPISODE]
    if not top:
        return []
    edges = _edges(store, user_id, [i.id for i in top], known_at)
    if not edges:
        return []
    by_id = {i.id: i for i in items if i.kind is MemoryKind.EPISODE}
    when: dict[str, int] = {}
    for e in edges:
        when[e["src"]] = int(e.get("srcAt") or 0)
        when[e["dst"]] = int(e.get("dstAt") or 0)
    missing = sorted(i for i in when if i not in by_id)
    for row in store.recall_rows("Episode", user_id, missing) if missing else []:
        item = make_item(row)
        if item is not None:
            rows[row["id"]] = row
            by_id[row["id"]] = item
            item.score = 0.0
            items.append(item)
    supersedes = [e for e in edges if e["type"] == "SUPERSEDES"
                  and e["src"] in by_id and e["dst"] in by_id]
    for chain in _chains(supersedes):
        _resolve_chain(chain, by_id, when, supersedes, at=at, before=before)
    conflicts = _disputes([e for e in edges if e["type"] == "DISPUTED"
                           and e["src"] in by_id and e["dst"] in by_id], by_id)
    items[:] = [i for i in items if i.score > 0]  # brought in and not chosen: left out
    items.sort(key=lambda it: (-it.score, it.id))
    return conflicts


def _edges(store: Store, user_id: str, ids: list[str], known_at: int) -> list[Row]:
    """Version edges around ``ids`` up to ``HOPS`` along them, known at ``known_at``."""
    out: dict[tuple[str, str, str], Row] = {}
    seen: set[str] = set()
    todo = list(ids)
    for _ in range(HOPS):
        todo = [i for i in todo if i not in seen]
        if not todo:
            break
        seen.update(todo)
        found = store.episode_versions(user_id, todo)
        nxt = []
        for e in found:
            if (e.get("at") or 0) > known_at or e.get("srcForgotten") is not None \
                    or e.get("dstForgotten") is not None:
                continue
            out[(e["type"], e["src"], e["dst"])] = e
            nxt += [e["src"], e["dst"]]
        todo = nxt
    return list(out.values())


def _chains(edges: list[Row]) -> list[set[str]]:
    """Episodes joined by SUPERSEDES edges, chain by chain."""
    links: dict[str, set[str]] = defaultdict(set)
    for e in edges:
        links[e["src"]].add(e["dst"])
        links[e["dst"]].add(e["src"])
    seen: set[str] = set()
    out = []
    for start in sorted(links):
        if start in seen:
            continue
        chain = reach(start, links)
        seen |= chain
        out.append(chain)
    return out


def reach(start: str, links: dict[str, set[str]]) -> set[str]:
    """``start`` and every id reached from it along ``links``."""
    found, todo = {start}, [start]
    while todo:
        for nxt in links.get(todo.pop(), ()):
            if nxt not in found:
                found.add(nxt)
                todo.append(nxt)
    return found


def _resolve_chain(chain: set[str], by_id: dict[str, RecallItem], when: dict[str, int],
                   edges: list[Row], *, at: int | None, before: bool) -> None:
    """Marks the chain's replaced versions, then resolves it line by line."""
    order = sorted(chain, key=lambda i: (when[i], i))
    later: dict[str, list[Row]] = defaultdict(list)
    for e in edges:
        if e["dst"] in chain:
            later[e["dst"]].append(e)
    for i in order:
        item = by_id[i]
        if later[i]:
            item.status = MemoryStatus.SUPERSEDED
            item.superseded_by = sorted({e["src"] for e in later[i]})
            newest = max(later[i], key=lambda e: (when[e["src"]], e["src"]))
            item.version_note = f"superseded by a later message: {newest.get('reason') or ''}"
        item.supersedes = sorted({e["dst"] for e in edges if e["src"] == i})
    lines = [(line, _valid(line, when, at=at, before=before))
             for line in _lines(chain, edges)]
    # the line whose valid version answers the question best takes the place of the
    # versions it shares with another line ("How much is my rent now?": the new rent, not
    # "I dropped YNAB", though both replaced one budget message); another line keeps the
    # places of its own versions
    lines.sort(key=lambda lv: (-(by_id[lv[1]].score if lv[1] else 0.0), lv[1] or ""))
    taken: set[str] = set()
    for line, valid in lines:
        if valid is not None:
            _put(by_id[valid], [by_id[i] for i in line - taken if i != valid])
        taken |= line


def _lines(chain: set[str], edges: list[Row]) -> list[set[str]]:
    """The lines of versions in a chain: each newest version (one no other supersedes)
    with every version it replaced, directly or not. A long message gives several facts,
    and two later messages may each replace another of them ("the nanny is now 张阿姨",
    "I dropped 随手记 for 钱迹" after one budget message): two lines, each answering for its
    own fact, not one chain whose newest message answers for both."""
    older: dict[str, set[str]] = defaultdict(set)
    for e in edges:
        if e["src"] in chain:
            older[e["src"]].add(e["dst"])
    replaced = {d for ds in older.values() for d in ds}
    heads = sorted(i for i in chain if i not in replaced)
    if not heads:  # versions said at the same moment, each replacing the other
        return [chain]
    return [reach(head, older) for head in heads]


def _valid(line: set[str], when: dict[str, int], *, at: int | None,
           before: bool) -> str | None:
    """The version of a line valid at the time asked about: the last said by ``at``, the
    one before the newest (``before``), else the newest."""
    order = sorted(line, key=lambda i: (when[i], i))
    if at is not None:
        said = [i for i in order if when[i] <= at]
        return said[-1] if said else None
    if before and len(order) > 1:
        return order[-2]
    return order[-1]


def _put(chosen: RecallItem, replaced: list[RecallItem]) -> None:
    """``chosen`` just above the best-ranked of the versions whose place it takes."""
    best = max((it.score for it in replaced), default=0.0)
    if chosen.score < best * _ABOVE:
        chosen.score = round(best * _ABOVE, 6)
    if chosen.status is MemoryStatus.SUPERSEDED and chosen.version_note \
            and not chosen.version_note.startswith("valid at"):
        chosen.version_note = "valid at the time asked about; " + chosen.version_note


def _disputes(edges: list[Row], by_id: dict[str, RecallItem]) -> list[Conflict]:
    out: dict[tuple[str, str], Conflict] = {}
    for e in edges:
        a, b = by_id[e["src"]], by_id[e["dst"]]
        hi, lo = (a, b) if (a.score, a.id) >= (b.score, b.id) else (b, a)
        if lo.score < hi.score / _ABOVE:
            lo.score = round(hi.score / _ABOVE, 6)
        for item in (a, b):
            item.status = MemoryStatus.DISPUTED
            item.version_note = f"contradicted by another message: {e.get('reason') or ''}"
        pair = (min(a.id, b.id), max(a.id, b.id))
        out[pair] = Conflict(ids=list(pair), warning=(
            f"Conflicting statements in two messages ({e.get('reason') or 'contradiction'}):"
            f" {_short(b.text)!r} and later {_short(a.text)!r}; ask to clarify"))
    return [out[p] for p in sorted(out)]


def _short(text: str, n: int = 80) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"
