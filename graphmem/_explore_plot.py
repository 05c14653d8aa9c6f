"""The explorer's figures, static matplotlib (nothing fetched at run time): the
neighbourhood view and a predicate's timeline. Needs the ``notebook`` extra."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import matplotlib.dates as mdates
import matplotlib.pyplot as plt
import networkx as nx
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from graphmem._explore_graph import View, layout
from graphmem._explore_model import Fact
from graphmem.model import normalize

__all__ = ["STATUS_COLOUR", "neighbourhood_figure", "timeline_figure"]

STATUS_COLOUR = {"ACTIVE": "#2e7d32", "SUPERSEDED": "#9e9e9e", "DISPUTED": "#ef6c00",
                 "FORGOTTEN": "#c62828"}
STATUS_STYLE = {"ACTIVE": "solid", "SUPERSEDED": "dashed", "DISPUTED": "solid",
                "FORGOTTEN": "dotted"}
NODE_STYLE = {  # kind -> (fill, border, size, shape)
    "centre": ("#1565c0", "#0d47a1", 2600, "o"),
    "entity": ("#e3f2fd", "#1565c0", 1100, "o"),
    "hub": ("#ffe082", "#ff8f00", 2000, "o"),
    "group": ("#eceff1", "#607d8b", 0, "s"),  # drawn as its label's box
}


def _short(text: str, width: int = 22) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"


def neighbourhood_figure(view: View, *, title: str = "", edge_labels: int = 90) -> Figure:
    """The view as a figure: nodes by kind, facts coloured by status, SUPERSEDES (red
    dashed, newer -> older object) and DISPUTED (orange, both ways) highlighted; labels on
    every shown node, predicate labels when there are at most ``edge_labels`` edges."""
    g = view.graph
    n = g.number_of_nodes()
    side = min(20.0, 10.0 + n / 8)
    fig, ax = plt.subplots(figsize=(side, side * 0.78))
    pos = layout(view)
    for status, colour in STATUS_COLOUR.items():
        edges = [(u, v) for u, v, d in g.edges(data=True) if d["status"] == status]
        if edges:
            nx.draw_networkx_edges(g, pos, edgelist=edges, edge_color=colour,
                                   style=STATUS_STYLE[status], width=1.6, arrows=True,
                                   arrowsize=12, node_size=1400, ax=ax)
    if view.supersedes:
        nx.draw_networkx_edges(g, pos, edgelist=view.supersedes, edge_color="#d32f2f",
                               style="dashed", width=2.4, arrows=True, arrowsize=18,
                               node_size=1400, connectionstyle="arc3,rad=0.3", ax=ax)
    if view.disputes:
        nx.draw_networkx_edges(g, pos, edgelist=view.disputes, edge_color="#ef6c00",
                               width=3.5, arrows=True, arrowstyle="<|-|>", arrowsize=18,
                               node_size=1400, connectionstyle="arc3,rad=0.3", ax=ax)
    for kind, (fill, border, size, shape) in NODE_STYLE.items():
        nodes = [x for x, d in g.nodes(data=True) if d["kind"] == kind]
        if nodes and size:
            nx.draw_networkx_nodes(g, pos, nodelist=nodes, node_color=fill,
                                   edgecolors=border, linewidths=2, node_size=size,
                                   node_shape=shape, ax=ax)
    for x, d in g.nodes(data=True):
        label = _short(d["label"])
        if d["kind"] == "hub":
            label = f"{label}\n+{d['hidden']} facts"
        px, py = pos[x]
        box: dict[str, Any] | None = {"boxstyle": "round,pad=0.15", "fc": "white",
                                      "ec": "none", "alpha": 0.75}
        if d["kind"] == "centre":
            box = None
        elif d["kind"] == "group":
            fill, border = NODE_STYLE["group"][:2]
            box = {"boxstyle": "round,pad=0.5", "fc": fill, "ec": border, "lw": 2}
        ax.text(px, py, label, ha="center", va="center", zorder=5,
                fontsize=11 if d["kind"] == "centre" else 8.5,
                fontweight="bold" if d["kind"] in ("centre", "hub", "group") else "normal",
                color="white" if d["kind"] == "centre" else "black", bbox=box)
    if g.number_of_edges() <= edge_labels:
        labels = {}
        for u, v, d in g.edges(data=True):
            if g.nodes[v]["kind"] == "group" or g.nodes[u]["kind"] == "group":
                continue  # the group's own label names the predicate
            text = ", ".join(d["predicates"][:2]) + (" …" if len(d["predicates"]) > 2 else "")
            labels[(u, v)] = text + (f" ×{d['facts']}" if d["facts"] > 1 else "")
        nx.draw_networkx_edge_labels(g, pos, edge_labels=labels, font_size=7,
                                     font_color="#37474f", rotate=False,
                                     bbox={"fc": "white", "ec": "none", "alpha": 0.6}, ax=ax)
    handles = [Line2D([], [], color=c, ls=STATUS_STYLE[s], lw=2, label=f"fact {s}")
               for s, c in STATUS_COLOUR.items()]
    handles += [Line2D([], [], color="#d32f2f", ls="--", lw=2.4, label="SUPERSEDES (new → old)"),
                Line2D([], [], color="#ef6c00", lw=3.5, label="DISPUTED pair")]
    handles += [Line2D([], [], marker=NODE_STYLE[k][3], ls="", markersize=11,
                       markerfacecolor=NODE_STYLE[k][0], markeredgecolor=NODE_STYLE[k][1],
                       label=text)
                for k, text in (("centre", "chosen entity"), ("entity", "entity"),
                                ("hub", "hub (not expanded)"), ("group", "folded group"))]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=9,
              frameon=False)
    ax.set_title(title or view.describe(), fontsize=12, loc="left", wrap=True)
    ax.axis("off")
    ax.margins(0.06)
    fig.tight_layout()
    return fig


def timeline_figure(facts: Sequence[Fact], predicate: str, *, at: datetime | None = None,
                    now: datetime | None = None, max_rows: int = 30) -> Figure:
    """One bar per version of ``predicate`` from validFrom to validUntil (open bars run to
    ``now``), coloured by status, grouped by subject; a dotted line at ``at``. The newest
    ``max_rows`` versions when there are more."""
    now = now or datetime.now(UTC)
    rows = sorted((f for f in facts if normalize(f.predicate) == normalize(predicate)),
                  key=lambda f: f.valid_from)[-max_rows:]
    rows.sort(key=lambda f: (normalize(f.subject), f.category, f.valid_from, f.object))
    subjects = {normalize(f.subject) for f in rows}
    categories = {f.category for f in rows}
    fig, ax = plt.subplots(figsize=(12, 1.4 + 0.42 * max(len(rows), 2)))
    if not rows:
        ax.text(0.5, 0.5, f"no versions of {predicate!r} after the filters", ha="center",
                va="center", transform=ax.transAxes)
        ax.axis("off")
        return fig
    first = min(f.valid_from for f in rows)
    last = max([now, *(f.valid_until for f in rows if f.valid_until)])
    span = mdates.date2num(last) - mdates.date2num(first)
    for y, f in enumerate(rows):
        start = mdates.date2num(f.valid_from)
        end = mdates.date2num(f.valid_until or now)
        ax.barh(y, max(end - start, span / 400), left=start, height=0.6,
                color=STATUS_COLOUR.get(f.status, "#607d8b"), edgecolor="black", lw=0.6,
                hatch="//" if f.valid_until is None and f.status != "SUPERSEDED" else None)
        until = f.valid_until.strftime("%Y-%m-%d") if f.valid_until else "now"
        ax.text(end + span / 150, y, f"{f.valid_from:%Y-%m-%d} → {until}  {f.status}",
                va="center", fontsize=8)
    labels = [(_short(f.subject, 14) + " → " if len(subjects) > 1 else "") + _short(f.object)
              + (f" [{f.category.split(':')[-1]}]" if len(categories) > 1 else "")
              for f in rows]
    for y in range(1, len(rows)):  # a thin line between slots
        if (normalize(rows[y].subject), rows[y].category) != \
                (normalize(rows[y - 1].subject), rows[y - 1].category):
            ax.axhline(y - 0.5, color="#bdbdbd", lw=0.8)
    ax.set_yticks(range(len(rows)), labels, fontsize=9)
    ax.invert_yaxis()
    if at is not None:
        ax.axvline(mdates.date2num(at), color="black", ls=":", lw=1.5,
                   label=f"AT {at:%Y-%m-%d}")
        ax.legend(loc="lower right", fontsize=8)
    ax.set_xlim(mdates.date2num(first) - span / 50, mdates.date2num(last) + span / 4)
    ax.xaxis_date()
    ax.xaxis.set_major_formatter(mdates.DateFormatter("%Y-%m"))
    ax.grid(axis="x", color="#eeeeee")
    ax.set_title(f"{predicate.replace('_', ' ')}: {len(rows)} versions, validFrom → "
                 "validUntil (hatched: open)", fontsize=11, loc="left")
    fig.tight_layout()
    return fig
