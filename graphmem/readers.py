"""Batched reads for the API's DataLoaders and listings: many ids in, one store call out.

Each method takes every id a GraphQL level asked for and answers with one store read
(plus, for relations, one read of their chain edges), so nested fields cost one round
trip per level, not one per parent.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from graphmem.errors import InvalidInputError
from graphmem.inputs import check_chars, check_id
from graphmem.model import Entity, Episode, Relation, normalize, to_ms
from graphmem.relations import relation_from_row, valid_at
from graphmem.service import MemoryService, entity_from_row, episode_from_row
from graphmem.store.base import Row


@dataclass(slots=True)
class Page[T]:
    items: list[T]
    total: int
    limit: int
    offset: int


def check_page(limit: int, offset: int, max_limit: int = 100) -> None:
    if not 1 <= limit <= max_limit:
        raise InvalidInputError("limit", f"must be between 1 and {max_limit}")
    if not 0 <= offset <= 1_000_000:
        raise InvalidInputError("offset", "must be between 0 and 1000000")


class Readers:
    """Read helpers over one service's store (the API's only way to batch by id)."""

    def __init__(self, service: MemoryService) -> None:
        self.service = service
        self.store = service.store

    # ------------------------------------------------------------------ by id

    def relations_by_ids(self, user_id: str, ids: list[str],
                         known_at: datetime | None = None) -> dict[str, Relation]:
        ids = sorted(set(ids))
        if not ids:
            return {}
        rows = self.store.nodes("Relation", user_id, ids)
        edges = self.store.chain_edges(user_id, [r["id"] for r in rows])
        k = to_ms(known_at)
        return {r["id"]: relation_from_row(r, known_at=k, edges=edges) for r in rows}

    def episodes_by_ids(self, user_id: str, ids: list[str]) -> dict[str, Episode]:
        ids = sorted(set(ids))
        if not ids:
            return {}
        return {r["id"]: episode_from_row(r) for r in self.store.nodes("Episode", user_id, ids)}

    def entities_by_ids(self, user_id: str, ids: list[str]) -> dict[str, Entity]:
        ids = sorted(set(ids))
        if not ids:
            return {}
        return {r["id"]: entity_from_row(r) for r in self.store.nodes("Entity", user_id, ids)}

    # ------------------------------------------------------------------ neighbourhoods

    def relations_of_entities(self, user_id: str, entity_ids: list[str], *,
                              as_of: datetime | None, known_at: datetime | None,
                              include_history: bool, limit: int) -> dict[str, list[Relation]]:
        """Relations whose subject or object is one of ``entity_ids``, per entity.

        Valid at ``as_of`` as believed at ``known_at`` (both default to now), forgotten ones
        hidden; with ``include_history`` every version known then, oldest first.
        """
        entity_ids = sorted(set(entity_ids))
        if not entity_ids:
            return {}
        now = self.service.clock()
        k = to_ms(known_at or now) or 0
        t = to_ms(as_of or now) or 0
        rel_ids = [r["id"] for r in self.store.adjacent(user_id, entity_ids,
                                                         limit * len(entity_ids) * 4 + 50)]
        rows = self.store.nodes("Relation", user_id, rel_ids)
        keep: list[Row] = []
        for r in rows:
            if include_history:
                if r["recordedAt"] <= k:
                    keep.append(r)
            elif r.get("forgottenAt") is None and valid_at(r, t, k):
                keep.append(r)
        keep.sort(key=lambda r: (r["validFrom"], r["recordedAt"], r["id"]))
        edges = self.store.chain_edges(user_id, [r["id"] for r in keep])
        out: dict[str, list[Relation]] = defaultdict(list)
        wanted = set(entity_ids)
        for r in keep:
            rel = relation_from_row(r, known_at=k, edges=edges)
            for eid in dict.fromkeys((r.get("subjectId"), r.get("objectId"))):
                if eid in wanted and len(out[eid]) < limit:
                    out[eid].append(rel)
        return dict(out)

    # ------------------------------------------------------------------ listings

    def episodes_page(self, user_id: str, *, session_id: str | None, limit: int, offset: int,
                      include_forgotten: bool = False) -> Page[Episode]:
        """A user's episodes in event-time order (oldest first), optionally of one session."""
        check_page(limit, offset)
        user_id = check_id(user_id, "userId") or ""
        session_id = check_id(session_id, "sessionId", required=False)
        total, ids = self.store.page_episodes(user_id, session_id=session_id,
                                              with_forgotten=include_forgotten,
                                              offset=offset, limit=limit)
        rows = self.store.nodes("Episode", user_id, ids)
        rows.sort(key=lambda r: (r.get("occurredAt") or 0, r["id"]))
        return Page([episode_from_row(r) for r in rows], total, limit, offset)

    def entities_page(self, user_id: str, *, name: str | None, limit: int, offset: int,
                      include_forgotten: bool = False) -> Page[Entity]:
        """A user's entities by name; ``name`` matches a part of the name or an alias."""
        check_page(limit, offset)
        user_id = check_id(user_id, "userId") or ""
        needle = normalize(check_chars(name, "name")) if name else ""
        if name is not None and not needle:
            raise InvalidInputError("name", "must contain a letter or digit")
        total, ids = self.store.page_entities(user_id, needle=needle or None,
                                              with_forgotten=include_forgotten,
                                              offset=offset, limit=limit)
        order = {i: n for n, i in enumerate(ids)}
        rows = sorted(self.store.nodes("Entity", user_id, ids), key=lambda r: order[r["id"]])
        return Page([entity_from_row(r) for r in rows], total, limit, offset)

