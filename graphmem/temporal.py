"""The conflict rules as a pure function: claims in, the timeline of a relation group out.

A *group* is the set of relations that compete for one slot: for an exclusive predicate the
(user, subject, predicate, category) slot, otherwise one (user, subject, predicate, object).
Every statement the service accepts is kept as a *claim* (object, start, evidence). The
group's timeline is a function of its claims only, so arrival order never changes the
answer (the property tests check exactly this):

* claims sorted by start; at each start time the positive claims name the object(s) true
  from then on;
* the same single object as the current segment -> the claim reinforces that segment
  (rule 1: no new node);
* another object -> a new segment; the previous one ends where it starts (rules 2 and 3:
  supersede, or back-fill before the current one);
* two different objects claimed at the same start -> one segment holding both, DISPUTED
  (rule 4), until a later claim supersedes them;
* a ``stop`` claim ("no longer uses X") ends the current segment if it holds X;
* a claim's declared ``until`` ends its segment early when nothing else ends it first;
* a claim told after the start it states (``told``: "I moved to Chengdu last year", said
  today) also holds at its telling: it is read at both times. A present-tense statement
  told in between ("I live in Beijing", said in March) then keeps its own segment, and the
  later telling is current again from when it was said. A claim told before a later start
  (an old message imported late) changes nothing at its telling, so back-filled history
  still goes before the current segment.

Each segment maps to one relation node per object, with an id derived from
(group, object, segment start) so the mapping is deterministic. ``plan_group`` diffs the
desired timeline against the stored nodes and says what to create, close, re-status or
expire; nothing is ever deleted.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from graphmem.model import MemoryStatus, make_id


@dataclass(frozen=True, slots=True)
class Claim:
    """One accepted statement about a group: ``obj`` true from ``start`` (epoch ms)."""

    obj: str  # normalised object
    start: int
    recorded: int
    until: int | None = None
    stop: bool = False
    episode_id: str | None = None
    source_ref: str | None = None
    confidence: float = 0.8
    #: when the statement was said (epoch ms), if after ``start``; None when it states no
    #: earlier start or has a declared end
    told: int | None = None

    def to_json(self) -> list[object]:
        out: list[object] = [self.obj, self.start, self.recorded, self.until, self.stop,
                             self.episode_id, self.source_ref, self.confidence]
        return out if self.told is None else [*out, self.told]

    @classmethod
    def from_json(cls, raw: Sequence[object]) -> Claim:
        obj, start, recorded, until, stop, episode_id, source_ref, confidence = raw[:8]
        told = raw[8] if len(raw) > 8 else None
        return cls(str(obj), int(start), int(recorded),  # type: ignore[call-overload]
                   None if until is None else int(until),  # type: ignore[call-overload]
                   bool(stop), episode_id if episode_id is None else str(episode_id),
                   source_ref if source_ref is None else str(source_ref),
                   float(confidence),  # type: ignore[arg-type]
                   None if told is None else int(told))  # type: ignore[call-overload]

    def points(self) -> list[int]:
        """The times this claim is read at: its start, and its telling when later."""
        if self.told is not None and self.told > self.start and self.until is None:
            return [self.start, self.told]
        return [self.start]


@dataclass(slots=True)
class Segment:
    objects: tuple[str, ...]
    start: int
    end: int | None
    claims: list[Claim] = field(default_factory=list)


def timeline(claims: Iterable[Claim]) -> list[Segment]:
    """The segments the claims imply, oldest first (see the module docstring)."""
    by_start: dict[int, list[Claim]] = {}
    for c in claims:
        for at in c.points():
            by_start.setdefault(at, []).append(c)
    segments: list[Segment] = []
    current: Segment | None = None
    orphans: list[Claim] = []
    for start in sorted(by_start):
        group = by_start[start]
        positive = tuple(sorted({c.obj for c in group if not c.stop}))
        stops = [c for c in group if c.stop]
        if current is not None and current.end is not None and current.end <= start:
            current = None  # its declared end passed: a gap before this start
        owner = current
        if positive:
            if current is not None and current.objects == positive and len(positive) == 1:
                # only a told claim can come twice (read at its start and its telling)
                current.claims.extend(c for c in group if not c.stop and (
                    c.told is None or c not in current.claims))
            else:
                if current is not None:
                    current.end = start
                current = Segment(positive, start, None, [c for c in group if not c.stop])
                segments.append(current)
            _apply_declared_end(current)
            owner = current
        elif current is not None and {c.obj for c in stops} & set(current.objects):
            current.end = start
            current = None
        # Stop claims stay stored with the segment they closed or fell in, so they keep
        # applying when later claims re-shape the timeline.
        if stops:
            if owner is None and segments:
                owner = segments[-1]
            held = orphans if owner is None else owner.claims
            held.extend(c for c in stops if c.told is None or c not in held)
    if orphans and segments:
        segments[0].claims.extend(orphans)
    return segments


def _apply_declared_end(seg: Segment) -> None:
    positive = [c for c in seg.claims if not c.stop]
    ends = [c.until for c in positive if c.until is not None]
    # Only when every claim of the segment declares an end does it close by itself; a
    # claim without an end says the statement was still open.
    if ends and len(ends) == len(positive):
        seg.end = max(max(ends), seg.start + 1)
    else:
        seg.end = None


def node_id(group_key: str, obj: str, start: int) -> str:
    return make_id("rel", group_key, obj, start)


@dataclass(slots=True)
class DesiredNode:
    id: str
    obj: str
    start: int
    end: int | None
    status: MemoryStatus
    claims: list[Claim]


def desired_nodes(group_key: str, claims: Iterable[Claim]) -> tuple[list[DesiredNode],
                                                                    set[tuple[str, str, str]]]:
    """Nodes and chain edges (type, from_id, to_id) the claims call for."""
    segs = timeline(claims)
    nodes: list[DesiredNode] = []
    edges: set[tuple[str, str, str]] = set()
    prev_ids: list[str] = []
    for i, seg in enumerate(segs):
        superseded = i + 1 < len(segs)
        ids = []
        for obj in seg.objects:
            status = (MemoryStatus.SUPERSEDED if superseded
                      else MemoryStatus.DISPUTED if len(seg.objects) > 1
                      else MemoryStatus.ACTIVE)
            own = [c for c in seg.claims if c.obj == obj or c.stop]
            nid = node_id(group_key, obj, seg.start)
            nodes.append(DesiredNode(nid, obj, seg.start, seg.end, status, own))
            ids.append(nid)
        for a in ids:
            for b in prev_ids:
                edges.add(("SUPERSEDES", a, b))
        for x in range(len(ids)):
            for y in range(x + 1, len(ids)):
                edges.add(("DISPUTED", ids[x], ids[y]))
        prev_ids = ids
    return nodes, edges


def confidence_of(claims: Sequence[Claim]) -> float:
    """Noisy-OR of the positive claims' confidences: each reinforcement raises it."""
    miss = 1.0
    for c in claims:
        if not c.stop:
            miss *= 1.0 - min(max(c.confidence, 0.0), 1.0)
    return round(min(1.0 - miss, 0.99), 4) if claims else 0.0


def until_at(log: Sequence[Sequence[int | None]], known_at: int) -> tuple[bool, int | None]:
    """The valid-until believed at system time ``known_at`` from a node's change log.

    The log holds ``[system_ms, until_ms_or_None]`` pairs, oldest first. Returns
    ``(known, until)``; ``known`` is False when the node was not yet recorded.
    """
    result: tuple[bool, int | None] = (False, None)
    for at, until in log:
        if at is not None and at <= known_at:
            result = (True, until)
        else:
            break
    return result


def status_at(log: Sequence[Sequence[object]], known_at: int) -> MemoryStatus | None:
    """The status believed at ``known_at`` from a ``[system_ms, status]`` log."""
    found: MemoryStatus | None = None
    for at, status in log:
        if int(at) <= known_at:  # type: ignore[call-overload]
            found = MemoryStatus(str(status))
        else:
            break
    return found
