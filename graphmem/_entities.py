"""Entity resolution for one write: a name becomes the user's entity, found or new.

A name matches a stored entity by normalised name, by alias, or by a close embedding (the
match then learns the name as an alias); otherwise a new entity node joins the write plan.
One resolver serves one write: it remembers what it resolved, and ``prefetch`` turns the
per-name look-ups of a batch into one store read and one embedding call.

Resolution links, it never rewrites: the caller keeps the name it was given for what it
stores. Two names whose numbers, versions, codes or dates differ ("iPhone 14" / "iPhone 15",
"Flat 12B" / "Flat 12C", "March 2024" / "April 2024") are never linked by embedding however
close their vectors, and every embedding link is recorded on the entity (``resolutions``:
the name, the entity name it matched, the score) so it can be explained and undone.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from graphmem.embed import Embedder, reads_cjk
from graphmem.extract._text import has_cjk
from graphmem.model import SCHEMA_VERSION, make_id, normalize
from graphmem.store.base import NodeWrite, Row, Store, WritePlan


@dataclass(slots=True)
class EntityRef:
    id: str
    name: str
    new: bool


def _norm(name: str) -> str:
    return normalize(name) or name.strip().casefold()


_DATE_WORDS = frozenset(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday "
    "friday saturday sunday mon tue tues wed thu thur thurs fri sat sun".split())


def code_tokens(name: str) -> tuple[str, ...]:
    """The parts of a name that identify rather than describe: words holding a digit or
    numeral (versions, models, rooms, years, CJK numerals), single letters (Plan B, Flat
    C), month and day names. Names whose code tokens differ name different things."""
    return tuple(t for t in normalize(name).split()
                 if any(ch.isnumeric() for ch in t) or (len(t) == 1 and t.isascii())
                 or t in _DATE_WORDS)


def may_link(name: str, entity_name: str) -> bool:
    """Whether an embedding match may link ``name`` to the entity called ``entity_name``."""
    return code_tokens(name) == code_tokens(entity_name)


class EntityResolver:
    """Entity look-ups of one write: resolved names, prefetched rows, name vectors."""

    def __init__(self, store: Store, embedder: Embedder, similarity: float) -> None:
        self.store = store
        self.embedder = embedder
        self.similarity = similarity
        #: an English model's vectors of Chinese names are all alike (绿茶 and 红茶 score
        #: 1.0 with MiniLM): such names link by their spelling only
        self._reads_cjk = reads_cjk(embedder)
        self.refs: dict[str, EntityRef] = {}
        self.rows: dict[str, list[Row]] | None = None  # norm -> matching rows, when prefetched
        self.vectors: dict[str, list[float]] = {}
        self.changed: dict[str, Row] = {}  # entity id -> its row with this write's updates

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
            row = self.changed.get(row["id"], row)
            missing = [a for a in alias_norms if a not in (row.get("aliasNorms") or [])
                       and a != row["normName"]]
            if missing:
                self._learn(plan, row, {
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
        """A stored entity whose name embedding is close enough and whose code tokens are
        the same (``may_link``); it learns ``name`` as an alias, and the link is recorded.
        Never for a Chinese name when the embedder reads no Chinese."""
        if not self._reads_cjk and has_cjk(name):
            return None
        for hit in self.store.vector_search("Entity", plan.user_id, vec, 3):
            if hit.score < self.similarity:
                continue
            rows = self.store.nodes("Entity", plan.user_id, [hit.id])
            if not rows:
                continue
            row = self.changed.get(rows[0]["id"], rows[0])
            if not may_link(name, row["name"]) or (
                    not self._reads_cjk and has_cjk(row["name"])):
                continue
            resolutions = json.loads(row.get("resolutions") or "[]")
            resolutions.append({"name": name, "matched": row["name"],
                                "score": round(hit.score, 4), "method": "embedding",
                                "at": plan.at})
            self._learn(plan, row, {
                "aliasNorms": sorted({*(row.get("aliasNorms") or []), norm}),
                "aliases": sorted({*(row.get("aliases") or []), name}),
                "resolutions": json.dumps(resolutions, ensure_ascii=False)})
            return EntityRef(row["id"], row["name"], False)
        return None

    def _learn(self, plan: WritePlan, row: Row, changes: Row) -> None:
        """Update an entity in the plan; later look-ups of this write build on the change."""
        plan.update("Entity", row["id"], changes)
        self.changed[row["id"]] = {**row, **changes}

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
