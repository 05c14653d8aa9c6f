"""Entity resolution for one write: a name becomes the user's entity, found or new.

A name matches a stored entity by normalised name, by alias, or by a close embedding (the
match then learns the name as an alias); otherwise a new entity node joins the write plan.
One resolver serves one write: it remembers what it resolved, and ``prefetch`` turns the
per-name look-ups of a batch into one store read and one embedding call.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphmem.embed import Embedder
from graphmem.model import SCHEMA_VERSION, make_id, normalize
from graphmem.store.base import NodeWrite, Row, Store, WritePlan


@dataclass(slots=True)
class EntityRef:
    id: str
    name: str
    new: bool


def _norm(name: str) -> str:
    return normalize(name) or name.strip().casefold()


class EntityResolver:
    """Entity look-ups of one write: resolved names, prefetched rows, name vectors."""

    def __init__(self, store: Store, embedder: Embedder, similarity: float) -> None:
        self.store = store
        self.embedder = embedder
        self.similarity = similarity
        self.refs: dict[str, EntityRef] = {}
        self.rows: dict[str, list[Row]] | None = None  # norm -> matching rows, when prefetched
        self.vectors: dict[str, list[float]] = {}

    def prefetch(self, user_id: str, names: dict[str, list[str]]) -> None:
        """One store read for every name (and alias) of a batch, one embedding call for
        the names not stored yet: the per-name look-ups then hit memory."""
        norms: dict[str, str] = {}
        for name, aliases in names.items():
            for n in (name, *aliases):
                key = _norm(n)
                if key:
                    norms[key] = n
        rows = self.store.entities_by_norm(user_id, sorted(norms)) if norms else []
        self.rows = {n: [] for n in norms}
        for row in rows:
            for n in {row["normName"], *(row.get("aliasNorms") or [])}:
                if n in self.rows:
                    self.rows[n].append(row)
        unknown = [name for name in names if not self.rows.get(_norm(name))]
        if unknown:
            self.vectors.update(zip(unknown, self.embedder.embed(unknown), strict=True))

    def resolve(self, plan: WritePlan, name: str, etype: str,
                aliases: list[str] | None) -> EntityRef:
        """The user's entity for ``name``: by normalised name, alias, or close embedding."""
        norm = _norm(name)
        if norm in self.refs:
            return self.refs[norm]
        alias_norms = sorted({normalize(a) for a in aliases or [] if normalize(a)} - {norm})
        wanted = [norm, *alias_norms]
        if self.rows is not None and all(n in self.rows for n in wanted):
            found = list({r["id"]: r for n in wanted for r in self.rows[n]}.values())
        else:
            found = self.store.entities_by_norm(plan.user_id, wanted)
        if found:
            row = sorted(found, key=lambda r: (r["normName"] != norm, r["id"]))[0]
            missing = [a for a in alias_norms if a not in (row.get("aliasNorms") or [])
                       and a != row["normName"]]
            if missing:
                plan.update("Entity", row["id"], {
                    "aliasNorms": sorted({*(row.get("aliasNorms") or []), *missing}),
                    "aliases": sorted({*(row.get("aliases") or []), *(aliases or [])})})
            ref = EntityRef(row["id"], row["name"], False)
        else:
            vec = self.vectors.get(name) or self.embedder.embed([name])[0]
            ref = self._similar(plan, vec, name, norm) or self._create(
                plan, vec, name, norm, etype, aliases, alias_norms)
        self.refs[norm] = ref
        for a in alias_norms:
            self.refs.setdefault(a, ref)
        return ref

    def _similar(self, plan: WritePlan, vec: list[float], name: str,
                 norm: str) -> EntityRef | None:
        """A stored entity whose name embedding is close enough; it learns ``name``."""
        for hit in self.store.vector_search("Entity", plan.user_id, vec, 3):
            if hit.score < self.similarity:
                continue
            rows = self.store.nodes("Entity", plan.user_id, [hit.id])
            if rows:
                row = rows[0]
                plan.update("Entity", row["id"], {
                    "aliasNorms": sorted({*(row.get("aliasNorms") or []), norm}),
                    "aliases": sorted({*(row.get("aliases") or []), name})})
                return EntityRef(row["id"], row["name"], False)
        return None

    def _create(self, plan: WritePlan, vec: list[float], name: str, norm: str, etype: str,
                aliases: list[str] | None, alias_norms: list[str]) -> EntityRef:
        eid = make_id("ent", plan.user_id, norm)
        plan.entities.append(NodeWrite(eid, {
            "id": eid, "userId": plan.user_id, "createdAt": plan.at, "name": name,
            "normName": norm, "type": etype, "aliases": sorted(set(aliases or [])),
            "aliasNorms": alias_norms, "summary": "",
            "embeddingModel": self.embedder.model_id, "schemaVersion": SCHEMA_VERSION,
        }, vec))
        return EntityRef(eid, name, True)
