"""The explorer's subgraph: the neighbourhood of one entity, kept readable when the memory
is big.

Entities are nodes and facts are edges (subject -> object). From the centre the view
walks ``hops`` steps; on the way

- a **hub** (an entity other than the centre in more than ``hub_degree`` facts) is shown
  as one node with the count of its facts left out, and the walk does not go through it;
- a **group**: when one node has more than ``max_per_group`` new neighbours by the same
  predicate and direction, they become one node ("likes: 40") unless they take part in a
  SUPERSEDES chain or a DISPUTED pair, which always stay visible;
- the walk stops adding nodes at ``max_nodes``.

SUPERSEDES and DISPUTED links are between facts of one slot (same subject and predicate),
so the view draws them between the facts' objects: newer object -> older object.
"""

from __future__ import annotations

import difflib
import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from graphmem._explore_model import ExploreError, Fact
from graphmem.model import normalize

__all__ = ["View", "degrees", "layout", "neighbourhood"]

_STATUS_RANK = {"DISPUTED": 3, "ACTIVE": 2, "SUPERSEDED": 1, "FORGOTTEN": 0}


@dataclass(slots=True)
class View:
    """What to draw. ``graph`` is a ``networkx.DiGraph`` whose nodes carry ``label``,
    ``kind`` (centre / entity / hub / group), ``hop``, ``hidden`` (the facts a hub or
    group stands for) and ``order`` (predicate, category, validFrom of the fact that
    reached it: a ring order that keeps a slot's versions together), and whose edges
    carry ``predicates`` (labels), ``status`` (the strongest of the facts it draws) and
    ``facts`` (their count)."""

    graph: Any
    centre: str
    hubs: dict[str, int] = field(default_factory=dict)     # hub label -> facts left out
    groups: dict[str, int] = field(default_factory=dict)   # group label -> entities folded
    supersedes: list[tuple[str, str]] = field(default_factory=list)
    disputes: list[tuple[str, str]] = field(default_factory=list)
    truncated: int = 0  # entities reached but not shown (max_nodes)
    entities: int = 0   # entities in the facts the view was drawn from
    facts: int = 0

    def describe(self) -> str:
        g = self.graph
        parts = [f"{g.number_of_nodes()} nodes shown of {self.entities} entities and "
                 f"{self.facts} facts"]
        if self.hubs:
            parts.append(f"{len(self.hubs)} hub(s) collapsed: " + ", ".join(
                f"{h} (+{n})" for h, n in sorted(self.hubs.items(), key=lambda x: -x[1])))
        if self.groups:
            parts.append(f"{len(self.groups)} group(s) folded: " + ", ".join(
                f"{label} ({n})" for label, n in sorted(self.groups.items(),
                                                        key=lambda x: -x[1])))
        if self.supersedes or self.disputes:
            parts.append(f"{len(self.supersedes)} SUPERSEDES and {len(self.disputes)} "
                         "DISPUTED links highlighted")
        if self.truncated:
            parts.append(f"{self.truncated} more entities not shown (max_nodes)")
        return "; ".join(parts)


def degrees(facts: list[Fact]) -> dict[str, int]:
    """Facts per entity (normalised name)."""
    out: dict[str, int] = defaultdict(int)
    for f in facts:
        out[normalize(f.subject)] += 1
        if normalize(f.object) != normalize(f.subject):
            out[normalize(f.object)] += 1
    return dict(out)


def _pick_centre(facts: list[Fact], entity: str | None, deg: dict[str, int]) -> str:
    if not deg:
        raise ExploreError("no facts to draw: loosen the filters (PREDICATE, STATUS, FROM/TO)")
    if not entity:
        return max(deg, key=lambda k: (deg[k], k))
    key = normalize(entity)
    if key not in deg:
        close = difflib.get_close_matches(key, list(deg), n=5, cutoff=0.5)
        hint = f"; close names: {', '.join(close)}" if close else ""
        raise ExploreError(f"ENTITY {entity!r} is in none of the filtered facts{hint}")
    return key


def _chained(facts: list[Fact]) -> set[str]:
    """Ids of facts in a SUPERSEDES chain or a DISPUTED pair (among ``facts``)."""
    ids = {f.id for f in facts}
    out: set[str] = set()
    for f in facts:
        for other in (*f.supersedes, *f.disputes):
            if other in ids:
                out.update((f.id, other))
    return out


def neighbourhood(facts: list[Fact], entity: str | None = None, *, hops: int = 2,
                  hub_degree: int = 15, max_per_group: int = 6,
                  max_nodes: int = 70) -> View:
    """The view around ``entity`` (the most connected entity when None)."""
    deg = degrees(facts)
    centre = _pick_centre(facts, entity, deg)
    names: dict[str, str] = {}
    incident: dict[str, list[Fact]] = defaultdict(list)
    for f in facts:
        s, o = normalize(f.subject), normalize(f.object)
        names.setdefault(s, f.subject)
        names.setdefault(o, f.object)
        incident[s].append(f)
        if o != s:
            incident[o].append(f)
    chained = _chained(facts)

    hop: dict[str, int] = {centre: 0}
    order: dict[str, tuple[str, ...]] = {centre: ()}  # keeps a slot's versions side by side
    groups: dict[str, tuple[str, str, int, list[Fact]]] = {}  # id -> (owner, label, n, facts)
    truncated: set[str] = set()
    frontier = [centre]
    for step in range(1, hops + 1):
        nxt: list[str] = []
        for u in sorted(frontier):
            if u != centre and deg[u] > hub_degree:
                continue  # a hub: shown, not walked through
            new: dict[tuple[str, str], list[tuple[str, Fact]]] = defaultdict(list)
            for f in incident[u]:
                s, o = normalize(f.subject), normalize(f.object)
                v, way = (o, "out") if s == u else (s, "in")
                if v not in hop:
                    new[(f.predicate, way)].append((v, f))
            for (pred, way), members in sorted(new.items()):
                fold = len({v for v, _ in members}) > max_per_group
                for v, f in members:
                    if v in hop:
                        continue
                    if fold and f.id not in chained:
                        gid = f"group:{u}:{pred}:{way}"
                        label = (f"{pred.replace('_', ' ')}: "
                                 if way == "out" else f"← {pred.replace('_', ' ')}: ")
                        owner, _, n, gf = groups.get(gid, (u, label, 0, []))
                        groups[gid] = (owner, label, n + 1, [*gf, f])
                        continue
                    if len(hop) >= max_nodes:
                        truncated.add(v)
                        continue
                    hop[v] = step
                    order[v] = (pred, f.category, f.valid_from.isoformat(), v)
                    nxt.append(v)
        frontier = nxt

    g = nx.DiGraph()
    view = View(graph=g, centre=centre, entities=len(deg), facts=len(facts),
                truncated=len(truncated - set(hop)))
    for key, h in hop.items():
        kind = "centre" if key == centre else ("hub" if deg[key] > hub_degree else "entity")
        shown_facts = sum(1 for f in incident[key]
                          if normalize(f.subject) in hop and normalize(f.object) in hop)
        hidden = deg[key] - shown_facts if kind == "hub" else 0
        g.add_node(key, label=names[key], kind=kind, hop=h, hidden=hidden, order=order[key])
        if kind == "hub":
            view.hubs[names[key]] = hidden
    for gid, (owner, label, n, gfacts) in groups.items():
        g.add_node(gid, label=f"{label}{n}", kind="group", hop=hop[owner] + 1, hidden=n,
                   order=(label.strip("← :"), "", "", gid))
        view.groups[f"{names[owner]} {label}{n}".replace(": ", " ")] = n
        out = not label.startswith("←")
        _add_edge(g, (owner, gid) if out else (gid, owner), gfacts)
    by_id = {f.id: f for f in facts}
    for f in facts:
        s, o = normalize(f.subject), normalize(f.object)
        if s in hop and o in hop:
            _add_edge(g, (s, o), [f])
    for f in facts:
        if normalize(f.object) not in hop or normalize(f.subject) not in hop:
            continue
        for other_id, links in ((x, view.supersedes) for x in f.supersedes):
            _link(by_id.get(other_id), f, hop, links)
        for other_id in f.disputes:
            if other_id > f.id:
                _link(by_id.get(other_id), f, hop, view.disputes)
    return view


def _link(other: Fact | None, f: Fact, hop: dict[str, int],
          links: list[tuple[str, str]]) -> None:
    if other is None:
        return
    a, b = normalize(f.object), normalize(other.object)
    if a != b and a in hop and b in hop and (a, b) not in links:
        links.append((a, b))


def _add_edge(g: Any, pair: tuple[str, str], facts: list[Fact]) -> None:
    u, v = pair
    if u == v:
        return
    data = g.get_edge_data(u, v)
    preds = sorted({f.predicate.replace("_", " ") for f in facts})
    status = max((f.status for f in facts), key=lambda s: _STATUS_RANK.get(s, 0))
    if data is None:
        g.add_edge(u, v, predicates=preds, status=status, facts=len(facts))
        return
    data["predicates"] = sorted(set(data["predicates"]) | set(preds))
    data["facts"] += len(facts)
    if _STATUS_RANK.get(status, 0) > _STATUS_RANK.get(data["status"], 0):
        data["status"] = status


def layout(view: View) -> dict[str, Any]:
    """Rings by hop around the centre, each ring ordered by its owner's position, then a
    few spring iterations to untangle; the centre stays in the middle."""
    g = view.graph
    rings: dict[int, list[str]] = {}
    for n, d in g.nodes(data=True):
        rings.setdefault(d["hop"], []).append(n)
    pos: dict[str, Any] = {view.centre: (0.0, 0.0)}
    for h in sorted(k for k in rings if k > 0):
        def angle_of_parent(n: str) -> float:
            parents = [p for p in (*g.predecessors(n), *g.successors(n)) if p in pos]
            if not parents:
                return 0.0
            x, y = pos[parents[0]]
            return math.atan2(y, x)

        ring = sorted(rings[h], key=lambda n: (round(angle_of_parent(n), 2),
                                               g.nodes[n]["order"]))
        radius = float(h) * (1.0 + len(ring) / 40)
        for i, n in enumerate(ring):
            a = 2 * math.pi * i / len(ring) + (0.3 if h % 2 == 0 else 0.0)
            pos[n] = (radius * math.cos(a), radius * math.sin(a))
    outer = [x for x, d in g.nodes(data=True) if d["hop"] > 1]
    if outer:  # the centre and the first ring stay put, so a slot's versions stay adjacent
        inner = [x for x, d in g.nodes(data=True) if d["hop"] <= 1]
        k = 1.6 / math.sqrt(g.number_of_nodes())
        pos = nx.spring_layout(g.to_undirected(), pos=pos, fixed=inner, k=k, iterations=40,
                               seed=7)
    return pos
