"""The explorer's interactive neighbourhood view: one self-contained piece of HTML (inline
SVG, style and a few lines of script; nothing fetched, so it works offline and in a saved
notebook). Hovering an entity keeps its facts and neighbours in view and dims the rest,
a click pins that, the filter box keeps the facts whose predicate or entity matches, and
every node and fact says what it stands for in its tooltip. Same layout, colours and
highlights as the static figure."""

from __future__ import annotations

import itertools
import math
from html import escape
from typing import Any

from graphmem._explore_graph import View, layout

__all__ = ["neighbourhood_html"]

STATUS_COLOUR = {"ACTIVE": "#2e7d32", "SUPERSEDED": "#9e9e9e", "DISPUTED": "#ef6c00",
                 "FORGOTTEN": "#c62828"}
NODE_FILL = {"centre": ("#1565c0", "#0d47a1", 30), "entity": ("#e3f2fd", "#1565c0", 16),
             "hub": ("#ffe082", "#ff8f00", 24), "group": ("#eceff1", "#607d8b", 18)}
_SIDE = 900.0
_views = itertools.count(1)

_STYLE = """
#{v} {{ font: 12px sans-serif; }}
#{v} svg {{ background: #fff; border: 1px solid #ddd; max-width: 100%; height: auto; }}
#{v} .gm-fact line {{ stroke-width: 1.6; }}
#{v} .gm-SUPERSEDED line {{ stroke-dasharray: 6 4; }}
#{v} .gm-FORGOTTEN line {{ stroke-dasharray: 2 3; }}
#{v} .gm-link path {{ fill: none; }}
#{v} .gm-dim {{ opacity: 0.12; }}
#{v} .gm-off {{ display: none; }}
#{v} .gm-node {{ cursor: pointer; }}
#{v} .gm-node text {{ pointer-events: none; }}
"""

_SCRIPT = """
(function () {{
  const root = document.getElementById("{v}");
  const facts = Array.from(root.querySelectorAll(".gm-fact, .gm-link"));
  const nodes = Array.from(root.querySelectorAll(".gm-node"));
  let pinned = null;
  function focus(id) {{
    const near = new Set([id]);
    facts.forEach(f => {{
      const on = f.dataset.u === id || f.dataset.v === id;
      if (on) {{ near.add(f.dataset.u); near.add(f.dataset.v); }}
      f.classList.toggle("gm-dim", id !== null && !on);
    }});
    nodes.forEach(n => n.classList.toggle("gm-dim", id !== null && !near.has(n.dataset.id)));
  }}
  nodes.forEach(n => {{
    n.addEventListener("mouseenter", () => {{ if (pinned === null) focus(n.dataset.id); }});
    n.addEventListener("mouseleave", () => {{ if (pinned === null) focus(null); }});
    n.addEventListener("click", () => {{
      pinned = pinned === n.dataset.id ? null : n.dataset.id; focus(pinned);
    }});
  }});
  root.querySelector("input").addEventListener("input", e => {{
    const q = e.target.value.trim().toLowerCase();
    let shown = 0;
    facts.forEach(f => {{
      const hit = !q || f.dataset.text.toLowerCase().includes(q);
      f.classList.toggle("gm-off", !hit); shown += hit ? 1 : 0;
    }});
    root.querySelector(".gm-count").textContent = shown + " of " + facts.length + " links";
  }});
  root.dataset.ready = "1";
}})();
"""


def _xy(pos: dict[str, Any], n: str, box: tuple[float, float, float, float]) -> tuple[float,
                                                                                    float]:
    x0, y0, x1, y1 = box
    x, y = pos[n]
    margin = 60.0
    sx = (_SIDE - 2 * margin) / ((x1 - x0) or 1.0)
    sy = (_SIDE - 2 * margin) / ((y1 - y0) or 1.0)
    scale = min(sx, sy)
    return margin + (float(x) - x0) * scale, margin + (y1 - float(y)) * scale


def _trimmed(a: tuple[float, float], b: tuple[float, float], ra: float,
             rb: float) -> tuple[tuple[float, float], tuple[float, float]]:
    """The segment a -> b without the parts inside the two nodes (the arrow head shows)."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = math.hypot(dx, dy)
    if length <= ra + rb:
        return a, b
    ux, uy = dx / length, dy / length
    return (a[0] + ux * ra, a[1] + uy * ra), (b[0] - ux * rb, b[1] - uy * rb)


def _short(text: str, width: int = 24) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"


def neighbourhood_html(view: View, *, title: str = "") -> str:
    """The view as self-contained HTML (see the module docstring)."""
    g = view.graph
    v = f"gm-view-{next(_views)}"
    pos = layout(view)
    xs = [float(p[0]) for p in pos.values()]
    ys = [float(p[1]) for p in pos.values()]
    box = (min(xs), min(ys), max(xs), max(ys))
    at = {n: _xy(pos, n, box) for n in g.nodes}
    label = {n: str(d["label"]) for n, d in g.nodes(data=True)}
    out = [f'<div id="{v}" class="gm-explorer">', f"<style>{_STYLE.format(v=v)}</style>",
           f"<div><b>{escape(title or view.describe())}</b></div>",
           '<div><input type="search" placeholder="filter by predicate or entity" size="32">'
           f' <span class="gm-count">{g.number_of_edges() + len(view.supersedes)}'
           f' of {g.number_of_edges() + len(view.supersedes)} links</span>'
           ' · hover an entity to follow its facts, click to pin</div>',
           f'<svg viewBox="0 0 {_SIDE:.0f} {_SIDE:.0f}" '
           f'width="{_SIDE:.0f}" height="{_SIDE:.0f}">',
           f'<defs><marker id="{v}-arrow" viewBox="0 0 10 10" refX="10" refY="5" '
           'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
           '<path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker></defs>']
    radius = {n: NODE_FILL.get(d["kind"], NODE_FILL["entity"])[2] for n, d in g.nodes(data=True)}
    for u, w, d in g.edges(data=True):
        (x1, y1), (x2, y2) = _trimmed(at[u], at[w], radius[u], radius[w])
        preds = ", ".join(d["predicates"])
        text = f"{label[u]} {preds} {label[w]}"
        out.append(
            f'<g class="gm-fact gm-{escape(d["status"])}" data-u="{escape(u)}" '
            f'data-v="{escape(w)}" data-text="{escape(text)}">'
            f"<title>{escape(text)} ({d['status']}, {d['facts']} fact(s))</title>"
            f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
            f'stroke="{STATUS_COLOUR.get(d["status"], "#555")}" '
            f'marker-end="url(#{v}-arrow)"/></g>')
    for kind, pairs, colour in (("SUPERSEDES", view.supersedes, "#d32f2f"),
                                ("DISPUTED", view.disputes, "#ef6c00")):
        for u, w in pairs:
            if u not in at or w not in at:
                continue
            (x1, y1), (x2, y2) = at[u], at[w]
            mx, my = (x1 + x2) / 2 - (y2 - y1) * 0.25, (y1 + y2) / 2 + (x2 - x1) * 0.25
            text = f"{label[u]} {kind} {label[w]}"
            dash = ' stroke-dasharray="7 4"' if kind == "SUPERSEDES" else ""
            out.append(
                f'<g class="gm-link gm-{kind}" data-u="{escape(u)}" data-v="{escape(w)}" '
                f'data-text="{escape(text)}"><title>{escape(text)}</title>'
                f'<path d="M{x1:.1f},{y1:.1f} Q{mx:.1f},{my:.1f} '
                f'{x2:.1f},{y2:.1f}" stroke="{colour}" stroke-width="2.6"{dash}/></g>')
    for n, d in g.nodes(data=True):
        x, y = at[n]
        fill, border, r = NODE_FILL.get(d["kind"], NODE_FILL["entity"])
        tip = label[n]
        if d["kind"] == "hub":
            tip += f" — hub, {d['hidden']} more facts not expanded"
        elif d["kind"] == "group":
            tip += f" — {d['hidden']} entities folded"
        shape = (f'<rect x="{x - 2 * r:.1f}" y="{y - r * 0.7:.1f}" width="{4 * r:.1f}" '
                 f'height="{1.4 * r:.1f}" rx="6"' if d["kind"] == "group"
                 else f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}"')
        colour = "#fff" if d["kind"] == "centre" else "#000"
        out.append(
            f'<g class="gm-node gm-{d["kind"]}" data-id="{escape(n)}">'
            f"<title>{escape(tip)}</title>"
            f'{shape} fill="{fill}" stroke="{border}" stroke-width="2"/>'
            f'<text x="{x:.1f}" y="{y + 4:.1f}" text-anchor="middle" fill="{colour}" '
            f'font-weight="{"bold" if d["kind"] != "entity" else "normal"}">'
            f"{escape(_short(label[n]))}</text></g>")
    out += ["</svg>", f"<script>{_SCRIPT.format(v=v)}</script>", "</div>"]
    return "\n".join(out)
