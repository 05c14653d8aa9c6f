"""Recall's explanation of the items shown: their provenance (source episodes, or an
abstraction's source relations) and the conflicts among them."""

from __future__ import annotations

from graphmem._abstractions import visible as abstraction_visible
from graphmem.model import MemoryKind, MemoryStatus, from_ms
from graphmem.recall.items import _overlaps
from graphmem.recall_model import Conflict, RecallItem, Source
from graphmem.relations import valid_at
from graphmem.store.base import Row, Store
from graphmem.timeparse import TimeWindow


def _provenance(store: Store, user_id: str, items: list[RecallItem],
                rows: dict[str, Row]) -> None:
    """Sets each item's sources: an episode itself, a relation the episodes it was
    learned from (else its own source refs), an abstraction its source relations."""
    ep_ids: set[str] = set()
    for i in items:
        if i.kind is MemoryKind.RELATION:
            ep_ids.update(rows[i.id].get("episodeIds") or [])
    # an abstraction's sources are the relations it was drawn from
    derived = sorted({s for i in items if i.kind is MemoryKind.ABSTRACTION
                      for s in rows[i.id].get("sourceIds") or []})
    sources = {r["id"]: r for r in store.nodes("Relation", user_id, derived)}
    for i in items:
        if i.kind is MemoryKind.ABSTRACTION:
            found = [sources[s] for s in rows[i.id].get("sourceIds") or [] if s in sources]
            found.sort(key=lambda r: (r.get("validFrom") or 0, r["id"]))
            i.sources = [Source(r["id"], next(iter(r.get("sourceRefs") or []), None),
                                from_ms(r.get("validFrom"))) for r in found]
    episodes = {r["id"]: r for r in store.nodes("Episode", user_id, sorted(ep_ids))}
    for i in items:
        if i.kind is MemoryKind.EPISODE:
            r = rows[i.id]
            i.sources = [Source(r["id"], r.get("sourceRef"), from_ms(r.get("occurredAt")))]
        elif i.kind is MemoryKind.RELATION:
            srcs = [episodes[e] for e in rows[i.id].get("episodeIds") or [] if e in episodes]
            srcs.sort(key=lambda r: r.get("occurredAt") or 0)
            i.sources = [Source(r["id"], r.get("sourceRef"), from_ms(r.get("occurredAt")))
                         for r in srcs]
            if not i.sources:
                i.sources = [Source(i.id, ref, None)
                             for ref in rows[i.id].get("sourceRefs") or []]


def _abstraction_conflicts(store: Store, user_id: str, items: list[RecallItem],
                           rows: dict[str, Row], at: int,
                           known_at: int) -> list[Conflict]:
    """DISPUTED abstraction versions found, each with the versions it disputes (drawn
    from disputed evidence: neither conclusion is settled)."""
    disputed = [i for i in items if i.kind is MemoryKind.ABSTRACTION
                and i.status is MemoryStatus.DISPUTED]
    others = sorted({o for i in disputed for o in rows[i.id].get("disputes") or []})
    found = {r["id"]: r for r in store.recall_rows("Abstraction", user_id, others)}
    pairs: dict[tuple[str, str], Conflict] = {}
    for i in disputed:
        for o in rows[i.id].get("disputes") or []:
            other = found.get(o)
            if other is None or not abstraction_visible(other, at, known_at):
                continue
            pair = (min(i.id, o), max(i.id, o))
            pairs.setdefault(pair, Conflict(ids=list(pair), warning=(
                f"Conflicting conclusions: {i.text!r} and {other.get('conclusion')!r} "
                f"rest on disputed evidence; ask to clarify")))
    return [pairs[p] for p in sorted(pairs)]


def _conflicts(store: Store, user_id: str, items: list[RecallItem], at: int, known_at: int,
               window: TimeWindow | None, *, current: bool) -> list[Conflict]:
    """DISPUTED pairs among the relations found, both valid at the time asked about.

    The time asked about is ``asOf`` (else now), or the question's window: a dispute
    that a later fact has settled is still reported for a question about its time,
    and one that was not yet recorded at ``knownAt`` is not.
    """
    rel_ids = [i.id for i in items if i.kind is MemoryKind.RELATION]
    if current:
        # a pair valid now and disputed is DISPUTED now: no need to read edges for more
        rel_ids = [i.id for i in items if i.kind is MemoryKind.RELATION
                   and i.status is MemoryStatus.DISPUTED]
    if not rel_ids:
        return []
    pairs: set[tuple[str, str]] = set()
    for e in store.chain_edges(user_id, rel_ids):
        closed = e.get("expiredAt")
        if e["type"] == "DISPUTED" and (e.get("at") or 0) <= known_at \
                and (closed is None or closed > known_at):
            pairs.add(tuple(sorted((e["src"], e["dst"]))))  # type: ignore[arg-type]
    if not pairs:
        return []
    rows = {r["id"]: r for r in store.nodes(
        "Relation", user_id, sorted({x for p in pairs for x in p}))}

    def held(row: Row | None) -> bool:
        if row is None or row.get("forgottenAt") is not None:
            return False
        if window is not None:
            return _overlaps(row, window, known_at)
        return valid_at(row, at, known_at)

    out = []
    for a, b in sorted(pairs):
        ra, rb = rows.get(a), rows.get(b)
        if ra is None or rb is None or not (held(ra) and held(rb)):
            continue
        out.append(Conflict(ids=[a, b], warning=(
            f"Conflicting facts: {ra['subject']} {ra['predicate'].replace('_', ' ')} "
            f"{ra['object']!r} and {rb['object']!r} from the same time; ask to clarify")))
    return out
