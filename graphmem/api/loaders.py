"""DataLoaders, built per request: nested fields of one GraphQL level load in one batch.

Keys carry the user (every read is scoped to one user) and, for relations, the system-time
point the parent was read at, so a relation's neighbours are shown as believed then.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

import anyio.to_thread
from strawberry.dataloader import DataLoader

from graphmem.model import Entity, Episode, Relation, from_ms
from graphmem.readers import Readers
from graphmem.relations import RelationPage

T = TypeVar("T")

RelationKey = tuple[str, str, int | None]  # userId, relation id, knownAt (ms) or None = now
NodeKey = tuple[str, str]  # userId, id
# userId, entity id, asOf ms, knownAt ms, includeHistory, limit, newestFirst, after
EntityRelationsKey = tuple[str, str, int | None, int | None, bool, int, bool | None, str | None]


async def run_sync[T](fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run blocking service/store work off the event loop."""
    return await anyio.to_thread.run_sync(partial(fn, *args, **kwargs))


@dataclass(slots=True)
class Loaders:
    relation: DataLoader[RelationKey, Relation | None]
    episode: DataLoader[NodeKey, Episode | None]
    entity: DataLoader[NodeKey, Entity | None]
    entity_relations: DataLoader[EntityRelationsKey, RelationPage]


def build_loaders(readers: Readers) -> Loaders:
    """Fresh loaders (and caches) for one request."""

    async def load_relations(keys: Sequence[RelationKey]) -> list[Relation | None]:
        groups: dict[tuple[str, int | None], list[str]] = defaultdict(list)
        for user, rid, known in keys:
            groups[(user, known)].append(rid)
        found: dict[RelationKey, Relation] = {}
        for (user, known), ids in groups.items():
            rels = await run_sync(readers.relations_by_ids, user, ids, from_ms(known))
            for rid, rel in rels.items():
                found[(user, rid, known)] = rel
        return [found.get(k) for k in keys]

    def node_loader(read: Callable[[str, list[str]], dict[str, T]],
                    ) -> Callable[[Sequence[NodeKey]], Awaitable[list[T | None]]]:
        async def load(keys: Sequence[NodeKey]) -> list[T | None]:
            groups: dict[str, list[str]] = defaultdict(list)
            for user, node_id in keys:
                groups[user].append(node_id)
            found: dict[NodeKey, T] = {}
            for user, ids in groups.items():
                for node_id, node in (await run_sync(read, user, ids)).items():
                    found[(user, node_id)] = node
            return [found.get(k) for k in keys]
        return load

    async def load_entity_relations(keys: Sequence[EntityRelationsKey]) -> list[RelationPage]:
        groups: dict[tuple[Any, ...], list[str]] = defaultdict(list)
        for user, eid, *rest in keys:
            groups[(user, *rest)].append(eid)
        found: dict[EntityRelationsKey, RelationPage] = {}
        for (user, as_of, known, history, limit, newest, after), ids in groups.items():
            per_entity = await run_sync(
                readers.relations_of_entities, user, ids, as_of=from_ms(as_of),
                known_at=from_ms(known), include_history=history, limit=limit,
                newest_first=newest, after=after)
            for eid in ids:
                found[(user, eid, as_of, known, history, limit, newest, after)] = \
                    per_entity.get(eid, RelationPage([], None))
        return [found.get(k, RelationPage([], None)) for k in keys]

    return Loaders(
        relation=DataLoader(load_fn=load_relations),
        episode=DataLoader(load_fn=node_loader(readers.episodes_by_ids)),
        entity=DataLoader(load_fn=node_loader(readers.entities_by_ids)),
        entity_relations=DataLoader(load_fn=load_entity_relations),
    )
