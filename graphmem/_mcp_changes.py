"""``what_changed``: how a user's relations changed between two system times.

The relations believed at ``since`` are compared with those believed at ``until`` (now by
default), both read with their history: a relation recorded in between was *added*; one
whose validity was open (or that was current) at ``since`` and is closed, superseded,
disputed or no longer believed at ``until`` was *closed*; one forgotten in between was
*forgotten*. A closing is dated by the relation that superseded or disputed it when there
is one, else by its expiry; otherwise it has no date of its own.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from graphmem._mcp_format import ChangeOut, ChangesOut, relation_out
from graphmem.model import MemoryStatus, Relation
from graphmem.relations import RelationPage

PAGE = 1000


class _Relations(Protocol):
    """Where the relations come from: the service, or a running server (``mcp --url``)."""

    def clock(self) -> datetime: ...
    def relations_page(self, user_id: str, *, known_at: datetime | None = ...,
                       include_history: bool = ..., limit: int = ...,
                       after: str | None = ...) -> RelationPage: ...


def _all(service: _Relations, user_id: str, known_at: datetime | None
         ) -> dict[str, Relation]:
    out: dict[str, Relation] = {}
    after: str | None = None
    while True:
        page = service.relations_page(user_id, include_history=True, known_at=known_at,
                                      limit=PAGE, after=after)
        out.update((r.id, r) for r in page.items)
        if page.next_cursor is None:
            return out
        after = page.next_cursor


def _current(r: Relation) -> bool:
    return r.valid_until is None and r.expired_at is None \
        and r.status in (MemoryStatus.ACTIVE, MemoryStatus.FORGOTTEN)


def changes_since(service: _Relations, user_id: str, since: datetime,
                  until: datetime | None, limit: int) -> ChangesOut:
    """The relation changes between ``since`` and ``until`` (now), newest first."""
    before = _all(service, user_id, since)
    after = _all(service, user_id, until)
    found: list[tuple[datetime | None, str, str, Relation]] = []

    def within(at: datetime | None) -> bool:
        return at is not None and since <= at and (until is None or at < until)

    for rid, r in after.items():
        if rid not in before and within(r.recorded_at):
            found.append((r.recorded_at, rid, "added", r))
        if within(r.forgotten_at):
            found.append((r.forgotten_at, rid, "forgotten", r))
        old = before.get(rid)
        if old is not None and _current(old) and not _current(r):
            found.append((_closed_at(r, after, within), rid, "closed", r))
    for rid, old in before.items():
        if rid not in after and _current(old):  # no longer believed: folded or expired
            found.append((None, rid, "closed", old))
    found.sort(key=lambda f: (f[0] or until or service.clock(), f[1]), reverse=True)
    return ChangesOut(since=since.isoformat(), more=len(found) > limit, changes=[
        ChangeOut(change=change, at=None if at is None else at.isoformat(),
                  relation=relation_out(r)) for at, _, change, r in found[:limit]])


def _closed_at(r: Relation, rels: dict[str, Relation], within: object) -> datetime | None:
    times = [rels[i].recorded_at for i in (*r.superseded_by_ids, *r.disputes_ids) if i in rels]
    times = [t for t in times if within(t)]  # type: ignore[operator]
    if times:
        return max(times)
    return r.expired_at
