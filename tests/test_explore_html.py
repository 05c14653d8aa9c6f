"""The explorer's interactive view: self-contained HTML (nothing fetched), every node and
highlight in it, and — in a real browser — hovering an entity dims what is not its, the
filter keeps only matching facts, and the script runs without errors."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from pathlib import Path

import pytest

from graphmem import explore
from graphmem.explore import Fact

CHROMIUM = Path("/usr/bin/chromium")


def _fact(fid: str, s: str, p: str, o: str, start: str, status: str = "ACTIVE",
          supersedes: tuple[str, ...] = (), disputes: tuple[str, ...] = ()) -> Fact:
    at = datetime.fromisoformat(start).replace(tzinfo=UTC)
    return Fact(fid, s, p, o, f"{s} {p} {o}", "fact", status, at, None, at, 0.8,
                supersedes, disputes)


def _facts() -> list[Fact]:
    out = [_fact("r1", "Ana", "lives_in", "Madrid", "2020-01-01", "SUPERSEDED"),
           _fact("r2", "Ana", "lives_in", "Berlin", "2023-01-01", supersedes=("r1",)),
           _fact("r3", "Ana", "reports_to", "Marta", "2024-01-01", "DISPUTED",
                 disputes=("r4",)),
           _fact("r4", "Ana", "reports_to", "Jonas", "2024-01-01", "DISPUTED",
                 disputes=("r3",)),
           _fact("r5", "Ana", "works_at", "Acme <Labs> & \"Co\"", "2022-01-01")]
    out += [_fact(f"k{i}", "Ana", "knows", f"Person {i}", "2022-01-01") for i in range(40)]
    return out


def _view() -> explore.View:
    return explore.neighbourhood(_facts(), "Ana", hops=2, max_per_group=6)


def test_the_view_is_self_contained_and_shows_everything() -> None:
    view = _view()
    html = explore.neighbourhood_html(view, title="Ana & friends")
    assert not re.search(r"\b(src|href)\s*=|https?://|@import|url\((?!#)", html)
    svg = ET.fromstring(re.search(r"<svg[\s\S]*</svg>", html).group(0))  # well-formed
    titles = [t.text or "" for t in svg.iter("title")]
    nodes = [g for g in svg.iter("g") if "gm-node" in g.get("class", "")]
    assert {g.get("data-id") for g in nodes} == set(view.graph.nodes)
    assert any("knows: 40" in t and "40 entities folded" in t for t in titles)  # a group
    assert any("Berlin SUPERSEDES Madrid" in t for t in titles)
    assert any("DISPUTED" in t and "Jonas" in t and "Marta" in t for t in titles)
    assert 'Acme &lt;Labs&gt; &amp; &quot;Co&quot;' in html  # names are escaped
    assert "Ana &amp; friends" in html
    # two views in one notebook do not share element ids
    other = explore.neighbourhood_html(view)
    assert re.search(r'id="(gm-view-\d+)"', html).group(1) != \
        re.search(r'id="(gm-view-\d+)"', other).group(1)


@pytest.mark.browser
@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium")
def test_hover_and_filter_work_in_a_browser() -> None:
    playwright = pytest.importorskip("playwright.sync_api")
    html = explore.neighbourhood_html(_view())
    requests: list[str] = []
    problems: list[str] = []
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                    args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page()
            page.on("request", lambda r: requests.append(r.url))
            page.on("pageerror", lambda e: problems.append(str(e)))
            page.set_content(f"<!doctype html><html><body>{html}</body></html>")
            page.wait_for_selector(".gm-explorer[data-ready='1']", timeout=20_000)

            def dimmed(selector: str) -> list[str]:
                return page.eval_on_selector_all(
                    selector, "els => els.filter(e => e.classList.contains('gm-dim'))"
                              ".map(e => e.dataset.id || e.dataset.text)")

            assert dimmed(".gm-node") == []
            page.hover(".gm-node[data-id='berlin']")
            facts_dimmed = dimmed(".gm-fact, .gm-link")
            assert facts_dimmed and not any("Berlin" in t for t in facts_dimmed)
            nodes_dimmed = dimmed(".gm-node")
            assert "ana" not in nodes_dimmed and "madrid" not in nodes_dimmed  # its links
            assert "jonas" in nodes_dimmed
            page.mouse.move(0, 0)
            assert dimmed(".gm-node") == []
            page.fill(".gm-explorer input", "reports")
            shown = page.eval_on_selector_all(
                ".gm-fact, .gm-link", "els => els.filter(e => !e.classList.contains('gm-off'))"
                                      ".map(e => e.dataset.text)")
            assert shown and all("reports" in t.lower() for t in shown)
            total = page.eval_on_selector_all(".gm-fact, .gm-link", "els => els.length")
            assert page.inner_text(".gm-count") == f"{len(shown)} of {total} links"
        finally:
            browser.close()
    assert not problems, problems
    assert all(u.startswith(("about:", "data:")) for u in requests), requests
