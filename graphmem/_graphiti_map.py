"""One Graphiti group as a graphmem export document (``graphmem.transfer``'s format).

A pure function of graphiti's models (``EpisodicNode``, ``EntityNode``, ``EntityEdge``,
``EpisodicEdge``) and the target user; ids are derived from graphiti's uuids and names, so
the same graph always gives the same document.

- an episodic node is an episode: ``valid_at`` -> ``occurredAt``, ``created_at`` ->
  ``recordedAt``; ``source`` message -> kind message, text / json -> document;
- an entity node is an entity (the id of graphmem's own for that name, so facts written
  later through graphmem join it); its first label other than ``Entity`` is its type;
- an entity edge is a claim: ``valid_at`` -> start (unknown: the episode's
  ``reference_time``, else ``created_at``), ``invalid_at`` -> declared end,
  ``created_at`` -> system time recorded; ``expired_at`` (graphiti's system time for
  learning the end) -> the time the end entered the node's ``untilLog``, so ``knownAt``
  before it still sees the fact open, as graphiti did;
- the claims of one subject and predicate form one exclusive slot (one object at a time,
  SUPERSEDES between successive objects) when graphmem treats the predicate as exclusive
  or graphiti's invalidation links two of them (an expired edge ending where another
  object of the slot starts), and that slot's timeline gives every edge exactly its own
  graphiti validity; otherwise each object is its own group (validity per object).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graphmem.model import SCHEMA_VERSION, MemoryStatus, make_id, normalize, to_ms
from graphmem.relations import belief_of, group_key
from graphmem.store._graphiti import GraphitiGroup
from graphmem.store.base import Row
from graphmem.temporal import Claim, DesiredNode, confidence_of, desired_nodes

SOURCE = "graphiti"
CATEGORY = "fact"


@dataclass(slots=True)
class MappedGroup:
    """A group's document records and what was left out, with why."""

    group_id: str
    user_id: str
    nodes: list[tuple[str, Row]] = field(default_factory=list)  # (label, props)
    edges: list[tuple[str, str, str, Row]] = field(default_factory=list)  # type, src, dst
    skipped: dict[str, int] = field(default_factory=dict)  # reason -> count
    slots: dict[str, int] = field(default_factory=lambda: {"exclusive": 0, "open": 0})
    group_keys: set[str] = field(default_factory=set)

    def skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1

    def count(self, label: str) -> int:
        return sum(1 for lab, _ in self.nodes if lab == label)

    def records(self, header: Row) -> list[Row]:
        """The export document: header, nodes, edges."""
        out: list[Row] = [header]
        out.extend({"type": "node", "label": lab, "props": p} for lab, p in self.nodes)
        out.extend({"type": "edge", "edge": e, "src": s, "dst": d, "props": p}
                   for e, s, d, p in self.edges)
        return out


@dataclass(slots=True)
class _Edge:
    """One usable graphiti entity edge, in graphmem's terms."""

    uuid: str
    subject_id: str
    object_id: str
    subject: str
    object: str
    subject_norm: str
    object_norm: str
    predicate: str
    fact: str
    start: int
    until: int | None
    recorded: int
    expired: int | None
    episode_ids: list[str]

    def claim(self) -> Claim:
        return Claim(self.object_norm, self.start, self.recorded, self.until,
                     episode_id=self.episode_ids[0] if self.episode_ids else None,
                     source_ref=f"{SOURCE}:{self.uuid}")


def _ms(value: datetime | None) -> int | None:
    return None if value is None else to_ms(value)


def _at(value: datetime) -> int:
    ms = to_ms(value)
    assert ms is not None  # graphiti's created_at / valid_at are required fields
    return ms


def _norm(name: str) -> str:
    return normalize(name) or name.strip().casefold()  # as graphmem's entity resolver


def episode_id(user_id: str, uuid: str) -> str:
    return make_id("epi", user_id, SOURCE, uuid)


def map_group(group: GraphitiGroup, user_id: str, *, exclusive_predicates: Iterable[str],
              importance: float, embedding_model: str) -> MappedGroup:
    """The export records of one graphiti group, written for ``user_id``."""
    out = MappedGroup(group.group_id, user_id)
    episodes = _episodes(group, user_id, embedding_model, out)
    entities = _entities(group, user_id, embedding_model, out)
    for src, dst in sorted({(e.source_node_uuid, e.target_node_uuid) for e in group.mentions}):
        if src in episodes and dst in entities:
            out.edges.append(("MENTIONS", episodes[src][0], entities[dst][0],
                              {"at": episodes[src][1]}))
    edges = _edges(group, entities, episodes, out)
    exclusive = {normalize(p).replace(" ", "_") for p in exclusive_predicates}
    slots: dict[tuple[str, str], list[_Edge]] = {}
    for e in edges:
        slots.setdefault((e.subject_norm, normalize(e.predicate)), []).append(e)
    for (subject_norm, pred_norm), slot in sorted(slots.items()):
        linked = _invalidation_linked(slot)
        if pred_norm.replace(" ", "_") in exclusive or linked:
            key = group_key(user_id, subject_norm, slot[0].predicate, CATEGORY, True, "")
            nodes, chain = desired_nodes(key, [e.claim() for e in slot])
            if _reproduces(nodes):
                out.slots["exclusive"] += 1
                _relations(out, key, True, slot, nodes, chain, importance, embedding_model)
                continue
            if linked:
                out.skip("slots kept per object: graphmem's one-object-at-a-time timeline "
                         "would change a graphiti validity")
        out.slots["open"] += 1
        by_object: dict[str, list[_Edge]] = {}
        for e in slot:
            by_object.setdefault(e.object_norm, []).append(e)
        for obj, same in sorted(by_object.items()):
            key = group_key(user_id, subject_norm, same[0].predicate, CATEGORY, False, obj)
            nodes, chain = desired_nodes(key, [e.claim() for e in same])
            _relations(out, key, False, same, nodes, chain, importance, embedding_model)
    return out


def _episodes(group: GraphitiGroup, user_id: str, model: str, out: MappedGroup
              ) -> dict[str, tuple[str, int]]:
    """graphiti uuid -> (episode id, recordedAt)."""
    found: dict[str, tuple[str, int]] = {}
    for ep in sorted(group.episodes, key=lambda e: (e.valid_at, e.uuid)):
        if not (ep.content or "").strip():
            out.skip("episodes with no content")
            continue
        eid = episode_id(user_id, ep.uuid)
        recorded = _at(ep.created_at)
        source = getattr(ep.source, "value", str(ep.source))
        out.nodes.append(("Episode", {
            "id": eid, "userId": user_id, "content": ep.content,
            "occurredAt": _at(ep.valid_at), "recordedAt": recorded, "createdAt": recorded,
            "kind": "message" if source == "message" else "document",
            "role": "user" if source == "message" else None, "speaker": None,
            "sessionId": group.group_id, "source": SOURCE, "sourceRef": ep.name or ep.uuid,
            "graphitiUuid": ep.uuid, "accessCount": 0, "embeddingModel": model,
            "schemaVersion": SCHEMA_VERSION}))
        found[ep.uuid] = (eid, recorded)
    return found


def _entities(group: GraphitiGroup, user_id: str, model: str, out: MappedGroup
              ) -> dict[str, tuple[str, str, str]]:
    """graphiti uuid -> (entity id, display name, normalised name)."""
    found: dict[str, tuple[str, str, str]] = {}
    written: set[str] = set()
    for node in sorted(group.entities, key=lambda n: (n.created_at, n.uuid)):
        norm = _norm(node.name or "")
        if not norm:
            out.skip("entities with no name")
            continue
        eid = make_id("ent", user_id, norm)
        found[node.uuid] = (eid, node.name, norm)
        if eid in written:  # two graphiti nodes of one name: one graphmem entity
            out.skip("entities merged with another of the same name")
            continue
        written.add(eid)
        etype = next((lab for lab in node.labels if lab != "Entity"), "thing")
        out.nodes.append(("Entity", {
            "id": eid, "userId": user_id, "name": node.name, "normName": norm,
            "type": etype.lower(), "aliases": [], "aliasNorms": [],
            "summary": node.summary or "", "createdAt": _at(node.created_at),
            "graphitiUuid": node.uuid, "embeddingModel": model,
            "schemaVersion": SCHEMA_VERSION}))
    return found


def _edges(group: GraphitiGroup, entities: dict[str, tuple[str, str, str]],
           episodes: dict[str, tuple[str, int]], out: MappedGroup) -> list[_Edge]:
    edges: list[_Edge] = []
    for e in sorted(group.edges, key=lambda x: (x.created_at, x.uuid)):
        subj, obj = entities.get(e.source_node_uuid), entities.get(e.target_node_uuid)
        predicate = "_".join(normalize(e.name or "").split())
        if subj is None or obj is None:
            out.skip("edges whose entity is not in the group")
            continue
        if not predicate:
            out.skip("edges with no name")
            continue
        recorded = _at(e.created_at)
        start = _ms(e.valid_at) or _ms(getattr(e, "reference_time", None)) or recorded
        until = _ms(e.invalid_at)
        if until is not None and until <= start:
            out.skip("edges never valid (invalid_at not after valid_at)")
            continue
        edges.append(_Edge(
            e.uuid, subj[0], obj[0], subj[1], obj[1], subj[2], obj[2], predicate,
            e.fact or f"{subj[1]} {predicate.replace('_', ' ')} {obj[1]}", start, until,
            recorded, _ms(e.expired_at),
            sorted(episodes[u][0] for u in set(e.episodes or []) if u in episodes)))
    return edges


def _invalidation_linked(slot: list[_Edge]) -> bool:
    """Did graphiti end one edge of the slot where another object of it starts?"""
    starts = {(e.start, e.object_norm) for e in slot}
    return any(e.expired is not None and e.until is not None
               and any(s == e.until and o != e.object_norm for s, o in starts) for e in slot)


def _reproduces(nodes: list[DesiredNode]) -> bool:
    """One edge per node, each with exactly its own validity, no disputes."""
    return all(len(n.claims) == 1 and n.status != MemoryStatus.DISPUTED
               and n.claims[0].start == n.start and n.claims[0].until == n.end
               for n in nodes)


def _relations(out: MappedGroup, key: str, exclusive: bool, slot: list[_Edge],
               nodes: list[DesiredNode], chain: set[tuple[str, str, str]],
               importance: float, model: str) -> None:
    out.group_keys.add(key)
    by_source = {f"{SOURCE}:{e.uuid}": e for e in slot}
    recorded: dict[str, int] = {}
    expired: dict[str, int | None] = {}
    for node in nodes:
        own = [by_source[str(c.source_ref)] for c in node.claims]
        first = min(own, key=lambda e: (e.start, e.recorded))
        rec = min(e.recorded for e in own)
        recorded[node.id] = rec
        ends_learned = [e.expired for e in own if e.expired is not None and e.until is not None]
        expired[node.id] = max(ends_learned) if len(own) == 1 and ends_learned else None
        until_log: list[list[Any]] = [[rec, node.end]]
        if node.end is not None and expired[node.id] is not None \
                and (expired[node.id] or 0) > rec:
            until_log = [[rec, None], [expired[node.id], node.end]]
        claims = sorted(node.claims, key=lambda c: (c.start, c.recorded, c.obj, c.stop))
        props: Row = {
            "id": node.id, "userId": out.user_id, "createdAt": rec,
            "subject": first.subject, "predicate": first.predicate, "object": first.object,
            "subjectNorm": first.subject_norm, "predicateNorm": normalize(first.predicate),
            "objectNorm": node.obj, "subjectId": first.subject_id,
            "objectId": first.object_id, "statement": first.fact, "category": CATEGORY,
            "exclusive": exclusive, "confidence": confidence_of(node.claims),
            "importance": importance, "validFrom": node.start, "validUntil": node.end,
            "recordedAt": rec, "expiredAt": None, "status": MemoryStatus.ACTIVE.value,
            "groupKey": key, "forgottenAt": None,
            "sourceRefs": sorted(str(c.source_ref) for c in node.claims),
            "episodeIds": sorted({i for e in own for i in e.episode_ids}),
            "claims": json.dumps([c.to_json() for c in claims]),
            "untilLog": json.dumps(until_log), "aliveLog": json.dumps([[rec, 1]]),
            "statusLog": json.dumps([[rec, MemoryStatus.ACTIVE.value]]),
            "graphitiUuids": sorted(e.uuid for e in own), "accessCount": 0,
            "embeddingModel": model, "schemaVersion": SCHEMA_VERSION}
        out.nodes.append(("Relation", props))
        out.edges.append(("SUBJECT_OF", first.subject_id, node.id, {"at": rec}))
        out.edges.append(("OBJECT", node.id, first.object_id, {"at": rec}))
        for ep in props["episodeIds"]:
            out.edges.append(("EVIDENCED_BY", node.id, ep, {"at": rec}))
    props_of = {p["id"]: p for lab, p in out.nodes if lab == "Relation"}
    for edge_type, newer, older in sorted(chain):
        # graphiti learned the end when it expired the older edge; else when both were known
        at = expired[older] or max(recorded[newer], recorded[older])
        out.edges.append((edge_type, newer, older, {"at": at, "expiredAt": None}))
        _set_status(props_of[older], at, MemoryStatus.SUPERSEDED)
    for node in nodes:
        p = props_of[node.id]
        p["beliefAt"], p["beliefUntil"] = belief_of(p)


def _set_status(props: Row, at: int, status: MemoryStatus) -> None:
    log = json.loads(props["statusLog"])
    if at <= log[0][0]:
        log = [[log[0][0], status.value]]
    else:
        log.append([at, status.value])
    props["statusLog"] = json.dumps(log)
    props["status"] = status.value
