"""Batched reads for the API's DataLoaders and listings: many ids in, one store call out.

Each method takes every id a GraphQL level asked for and answers with one store read
(plus, for relations, one read of their chain edges), so nested fields cost one round
trip per level, not one per parent.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import partial

from graphmem.errors import InvalidInputError
from graphmem.inputs import check_chars, check_id
from graphmem.model import Entity, Episode, Relation, normalize, to_ms
from graphmem.relations import RelationPage, fetch_page, page_query, relation_from_row
from graphmem.service import MemoryService, entity_from_row, episode_from_row


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
                              include_history: bool, limit: int,
                              newest_first: bool | None = None,
                              after: str | None = None) -> dict[str, RelationPage]:
        """A page of the relations whose subject or object is each of ``entity_ids``.

        Valid at ``as_of`` as believed at ``known_at`` (both default to now), forgotten ones
        hidden, newest first; with ``include_history`` every version known then, oldest
        first. Filtered, ordered and cut in the store's query, so a hub entity's page holds
        its newest relations, not an arbitrary sample.
        """
        query = page_query(as_of=to_ms(as_of), known_at=to_ms(known_at),
                           now=to_ms(self.service.clock()) or 0, history=include_history,
                           newest_first=newest_first, after=after, limit=limit)
        return {eid: fetch_page(self.store, user_id, query,
                                partial(self.store.entity_relations, user_id, eid))
                for eid in sorted(set(entity_ids))}

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

