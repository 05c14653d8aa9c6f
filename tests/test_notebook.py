"""The graph explorer: its module (``graphmem.explore``) and the notebook over it.

The notebook is executed headless with nbclient on a kernel of this interpreter (ipykernel's
native ``python3`` spec), from the ``notebooks/`` folder as a user would open it: against a
real ``graphmem serve`` in a child process (``GRAPHMEM_URL`` + ``GRAPHMEM_API_KEY``, data
written through the client), and with nothing set (the demo fallback). The committed
notebook carries no outputs.
"""

from __future__ import annotations

import base64
import json
import struct
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from graphmem import explore
from graphmem.bootstrap import build_service
from graphmem.client import AuthenticationError, GraphMemClient
from graphmem.embed import HashingEmbedder
from graphmem.explore import ExploreError, Fact
from graphmem.inputs import EpisodeIn, RelationIn
from graphmem.service import MemoryService
from graphmem.settings import Settings
from graphmem.store.falkor import FalkorStore

from .conftest import DIM, FakeClock, make_settings
from .test_api_serve import child_env, free_port, graphmem_command

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("matplotlib")

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "notebooks" / "graph_explorer.ipynb"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
KEY, ANA = "key-notebook", "ana"
COMPANIES = ("Acme", "Globex", "Initech")
ROLES = ("engineer", "designer", "manager", "analyst")
TOPICS = ("jazz", "chess", "rust", "cycling", "baking", "poetry", "go", "sailing")


def day(iso: str) -> datetime:
    return datetime.fromisoformat(iso).replace(tzinfo=UTC)


def fact(fid: str, s: str, p: str, o: str, start: str, until: str | None = None,
         status: str = "ACTIVE", *, supersedes: tuple[str, ...] = (),
         disputes: tuple[str, ...] = (), category: str = "fact") -> Fact:
    return Fact(fid, s, p, o, f"{s} {p} {o}", category, status, day(start),
                day(until) if until else None, day(start), 0.8, supersedes, disputes)


# --------------------------------------------------------------------------- the module


def test_filters_by_predicate_status_time_and_entity() -> None:
    facts = [fact("a", "Ana", "lives_in", "Madrid", "2020-01-01", "2021-03-01", "SUPERSEDED"),
             fact("b", "Ana", "lives_in", "Berlin", "2021-03-01", supersedes=("a",)),
             fact("c", "Bo", "likes", "Ana", "2022-01-01"),
             fact("d", "Bo", "likes", "chess", "2019-01-01", "2019-06-01", "FORGOTTEN")]
    ids = lambda fs: [f.id for f in fs]  # noqa: E731
    assert ids(explore.filter_facts(facts, predicate="Lives In")) == ["a", "b"]
    assert ids(explore.filter_facts(facts, statuses=["active"])) == ["b", "c"]
    assert ids(explore.filter_facts(facts, start="2020-06-01", end="2021-01-01")) == ["a"]
    assert ids(explore.filter_facts(facts, start="2021-06-01")) == ["b", "c"]
    assert ids(explore.filter_facts(facts, entity="ana")) == ["a", "b"]   # her own first
    assert ids(explore.filter_facts(facts, predicate="likes", entity="Ana")) == ["c"]
    with pytest.raises(ExploreError, match="STATUS"):
        explore.filter_facts(facts, statuses=["CURRENT"])
    assert explore.busiest_predicate(facts) == "lives_in"
    assert explore.suggested_moment(facts) == day("2021-03-01") - timedelta(milliseconds=1)


def test_instants_from_notebook_parameters() -> None:
    assert explore.instant("2024-05-01") == day("2024-05-01")
    assert explore.instant("2024-05-01T10:00:00Z") == datetime(2024, 5, 1, 10, tzinfo=UTC)
    assert explore.instant(None) is None
    with pytest.raises(ExploreError, match="not a date"):
        explore.instant("last tuesday")


def _star(n_friends: int) -> list[Fact]:
    """Ana knows n people; each works at one of three companies; a lives_in chain and a
    disputed manager."""
    out = [fact("m", "Ana", "lives_in", "Madrid", "2020-01-01", "2021-01-01", "SUPERSEDED"),
           fact("b", "Ana", "lives_in", "Berlin", "2021-01-01", supersedes=("m",)),
           fact("r1", "Ana", "reports_to", "Marta", "2024-01-01", status="DISPUTED",
                disputes=("r2",)),
           fact("r2", "Ana", "reports_to", "Jonas", "2024-01-01", status="DISPUTED",
                disputes=("r1",))]
    for i in range(n_friends):
        out.append(fact(f"k{i}", "Ana", "knows", f"Person {i}", "2022-01-01"))
        out.append(fact(f"w{i}", f"Person {i}", "works_at", COMPANIES[i % 3], "2022-01-01"))
    return out


def test_neighbourhood_collapses_hubs_and_folds_groups() -> None:
    facts = _star(60)
    view = explore.neighbourhood(facts, "ana", hops=2, hub_degree=15, max_per_group=6)
    g = view.graph
    assert view.centre == "ana" and g.nodes["ana"]["kind"] == "centre"
    # 60 'knows' neighbours are one group; the chains stay visible as entities
    assert view.groups == {"Ana knows 60": 60}
    assert {"madrid", "berlin", "marta", "jonas"} <= set(g.nodes)
    assert view.supersedes == [("berlin", "madrid")]
    assert view.disputes == [("jonas", "marta")] or view.disputes == [("marta", "jonas")]
    assert g.nodes["berlin"]["hop"] == 1
    # the walk did not go through the folded people, so no company is reached
    assert not {"acme", "globex", "initech"} & set(g.nodes)
    assert g.number_of_nodes() == 6  # Ana, 4 chain/dispute objects, one group

    # From a person: the company (20 people work there) and Ana (64 facts) are hubs, each
    # shown once with the count of its facts left out, and not walked through.
    view = explore.neighbourhood(facts, "Person 3", hops=2, hub_degree=15)
    g = view.graph
    assert g.nodes["acme"]["kind"] == "hub" and g.nodes["ana"]["kind"] == "hub"
    assert view.hubs == {"Acme": 19, "Ana": 63}  # the facts to Person 3 are drawn
    assert set(g.nodes) == {"person 3", "acme", "ana"}
    assert "2 hub(s) collapsed: Ana (+63), Acme (+19)" in view.describe()


def test_neighbourhood_defaults_and_limits() -> None:
    facts = _star(10)
    assert explore.neighbourhood(facts).centre == "ana"  # the most connected entity
    with pytest.raises(ExploreError, match="close names: person 1"):
        explore.neighbourhood(facts, "Persn 1")
    with pytest.raises(ExploreError, match="no facts"):
        explore.neighbourhood([], None)
    small = explore.neighbourhood(facts, "Ana", max_per_group=50, max_nodes=8)
    assert small.graph.number_of_nodes() == 8 and small.truncated > 0


@pytest.fixture
def local(embedded_store: FalkorStore, user: str) -> tuple[explore.LocalMemory, FakeClock]:
    clock = FakeClock(datetime(2026, 1, 1, tzinfo=UTC))
    service = MemoryService(make_settings(), embedded_store, HashingEmbedder(DIM), clock=clock)
    # not closed: the store is the session's
    return explore.LocalMemory(service, "test store", default_user=user), clock


def test_believed_vs_true_and_abstractions_in_process(
        local: tuple[explore.LocalMemory, FakeClock], user: str) -> None:
    memory, clock = local
    service = memory.service  # type: ignore[attr-defined]
    service.add_relation(RelationIn(user_id=user, subject="Ana", predicate="lives_in",
                                    object="Madrid", valid_from=day("2020-01-01"),
                                    exclusive=True))
    between = clock.tick(3600)
    clock.tick(3600)
    service.add_relation(RelationIn(user_id=user, subject="Ana", predicate="lives_in",
                                    object="Berlin", valid_from=day("2021-03-01"),
                                    exclusive=True))
    for n, text in enumerate(("I prefer Neovim for editing.", "Honestly, I prefer Neovim.")):
        clock.tick(60)
        service.add_episode(EpisodeIn(user_id=user, occurred_at=day("2025-02-01") +
                                      timedelta(days=30 * n), content=text, speaker="Ana"))
    clock.tick(60)
    service.reflect(user)
    rows = explore.believed_vs_true(memory, user, between, predicate="lives_in")
    assert [(r.believed, r.true, r.differs) for r in rows] == [(("Madrid",), ("Berlin",), True)]
    assert "| Ana | lives_in | fact | Madrid | Berlin | **≠** |" in \
        explore.slots_markdown(rows, between)
    # before anything was recorded nothing was believed; what was true is known now
    early = explore.believed_vs_true(memory, user, "2020-06-01", predicate="lives_in")
    assert [(r.believed, r.true) for r in early] == [((), ("Madrid",))]

    everything = memory.relations(user, include_history=True)
    assert len(everything) == 3
    rows_a = explore.abstraction_rows(memory, user, everything)
    assert len(rows_a) == 1
    (source,) = rows_a[0].sources
    assert isinstance(source, Fact) and source.statement == "Ana prefers Neovim"
    table = explore.abstractions_markdown(rows_a)
    assert "Neovim" in table.splitlines()[2].split("|")[1]  # the conclusion's cell
    assert "Ana prefers Neovim (ACTIVE, 2025-02-01)" in table
    # a source missing from the list is read by id
    assert explore.abstraction_rows(memory, user, [])[0].sources == (source,)


def test_a_data_dir_held_by_a_server_says_to_use_the_url(tmp_path: Path) -> None:
    holder = FalkorStore(tmp_path, dim=DIM)
    holder.open()
    try:
        with pytest.raises(ExploreError) as info:
            explore.open_memory({"GRAPHMEM_DATA_DIR": str(tmp_path)})
        assert "is in use by graphmem pid" in str(info.value)
        assert "set GRAPHMEM_URL=http://HOST:PORT" in str(info.value)
    finally:
        holder.close()
    with pytest.raises(ExploreError, match="not a directory"):
        explore.open_memory({"GRAPHMEM_DATA_DIR": str(tmp_path / "missing")})


def test_a_free_data_dir_is_opened_in_process(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, embedder="hashing", embedding_dim=DIM)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GRAPHMEM_EMBEDDER", "hashing")
        mp.setenv("GRAPHMEM_EMBEDDING_DIM", str(DIM))
        service = build_service(settings)
        service.open()
        service.add_relation(RelationIn(user_id="bo", subject="Bo", predicate="likes",
                                        object="chess"))
        service.close()
        memory = explore.open_memory({"GRAPHMEM_DATA_DIR": str(tmp_path)})
        try:
            assert memory.mode == "store" and memory.where == str(tmp_path)
            assert [f.statement for f in memory.relations("bo")] == ["Bo likes chess"]
            assert "1 relations" in memory.summary("bo")
        finally:
            memory.close()


# --------------------------------------------------------------------------- a real server


@dataclass
class Served:
    url: str
    between: datetime  # after the first writes, before the ones that changed them


def write_history(gm: GraphMemClient, user: str) -> datetime:
    """A few hundred relations through the client: Ana knows 60 people who work at three
    companies (hubs) and have roles and topics; she likes 40 things; where she lives and
    her editor change (SUPERSEDES chains); two managers on one day (DISPUTED), one of whom
    leads a team, and the countries of two cities (two steps from Ana); and two
    episodes that reflect turns into an abstraction. Returns an instant between the first
    writes and those that superseded them."""
    rels: list[dict[str, Any]] = [
        {"subject": "Ana", "predicate": "lives_in", "object": "Madrid",
         "validFrom": "2020-01-01T00:00:00Z", "exclusive": True},
        {"subject": "Ana", "predicate": "prefers", "object": "Vim", "exclusive": True,
         "category": "preference:editor", "validFrom": "2019-01-01T00:00:00Z"},
        {"subject": "Ana", "predicate": "works_at", "object": "Acme",
         "validFrom": "2022-01-01T00:00:00Z"}]
    for i in range(60):
        person = f"Person {i:02d}"
        start = f"{2019 + i % 5}-0{1 + i % 9}-01T00:00:00Z"
        rels += [{"subject": "Ana", "predicate": "knows", "object": person, "validFrom": start},
                 {"subject": person, "predicate": "works_at", "object": COMPANIES[i % 3],
                  "validFrom": start},
                 {"subject": person, "predicate": "has_role", "object": ROLES[i % 4],
                  "validFrom": start},
                 {"subject": person, "predicate": "likes", "object": TOPICS[i % 8],
                  "validFrom": start}]
    for i in range(40):
        rels.append({"subject": "Ana", "predicate": "likes", "object": f"hobby {i:02d}",
                     "validFrom": f"{2018 + i % 7}-05-01T00:00:00Z"})
    for chunk in range(0, len(rels), 50):
        gm.add_relations([{"userId": user, **r} for r in rels[chunk:chunk + 50]])
    time.sleep(1.2)
    between = datetime.now(UTC)
    time.sleep(1.2)
    for obj, start in (("Berlin", "2021-03-01"), ("Lisbon", "2023-06-01")):
        gm.add_relation(user, "Ana", "lives_in", obj, valid_from=f"{start}T00:00:00Z",
                        exclusive=True)
    gm.add_relation(user, "Ana", "prefers", "VS Code", valid_from="2021-05-01T00:00:00Z",
                    exclusive=True, category="preference:editor")
    for boss in ("Marta", "Jonas"):
        gm.add_relation(user, "Ana", "reports_to", boss, valid_from="2024-01-01T00:00:00Z",
                        exclusive=True)
    gm.add_relations([{"userId": user, "subject": s, "predicate": p, "object": o,
                       "validFrom": "2024-01-01T00:00:00Z"}
                      for s, p, o in (("Marta", "leads", "Team Atlas"),
                                      ("Lisbon", "located_in", "Portugal"),
                                      ("Berlin", "located_in", "Germany"))])
    for n, text in enumerate(("I prefer Neovim for editing.", "Honestly, I prefer Neovim.")):
        gm.add_episode(user, f"2024-0{2 + 3 * n}-01T09:00:00Z", content=text, speaker="Ana",
                       source_ref=f"chat-{n}")
    assert gm.reflect(user), "reflect drew nothing"
    return between


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """``graphmem serve`` (embedded store, hashing embedder, one API key) with the history
    written through the client."""
    data = tmp_path_factory.mktemp("nbserve")
    port = free_port()
    env = child_env(GRAPHMEM_API_KEYS=json.dumps({KEY: [ANA]}), GRAPHMEM_REFLECT_EVERY="0")
    with open(data / "serve.log", "wb") as log:
        proc = subprocess.Popen(
            [*graphmem_command(), "serve", "--port", str(port), "--data-dir",
             str(data / "mem"), "--embedder", "hashing"],
            stdout=log, stderr=subprocess.STDOUT, env=env, cwd=data)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None, (data / "serve.log").read_text()
            assert time.monotonic() < deadline, "server not ready"
            try:
                if httpx.get(url + "/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        with GraphMemClient(url, api_key=KEY) as gm:
            between = write_history(gm, ANA)
        yield Served(url, between)
    finally:
        proc.terminate()
        proc.wait(60)


def test_remote_memory_reads_the_server_page_by_page(served: Served) -> None:
    memory = explore.open_memory({"GRAPHMEM_URL": served.url, "GRAPHMEM_API_KEY": KEY})
    try:
        assert memory.mode == "server" and memory.default_user is None
        everything = memory.relations(ANA, include_history=True)
        assert len(everything) == len({f.id for f in everything}) == 292  # three pages
        lisbon = next(f for f in everything if f.object == "Lisbon")
        berlin = next(f for f in everything if f.object == "Berlin")
        assert lisbon.supersedes == (berlin.id,) and berlin.status == "SUPERSEDED"
        rows = explore.believed_vs_true(memory, ANA, served.between, predicate="lives_in")
        assert [(r.believed, r.true) for r in rows] == [(("Madrid",), ("Lisbon",))]
        (row,) = explore.abstraction_rows(memory, ANA, everything)
        assert row.conclusion.confidence > 0
        assert [s.statement for s in row.sources if isinstance(s, Fact)] == \
            ["Ana prefers Neovim"]
    finally:
        memory.close()
    wrong = explore.open_memory({"GRAPHMEM_URL": served.url, "GRAPHMEM_API_KEY": "wrong"})
    try:
        with pytest.raises(AuthenticationError):
            wrong.summary(ANA)
    finally:
        wrong.close()


# --------------------------------------------------------------------------- the notebook


def test_notebook_is_committed_without_outputs() -> None:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code
    for c in code:
        assert c.outputs == [], "clear the notebook's outputs before committing"
        assert c.execution_count is None
    assert "parameters" in code[0].metadata.get("tags", [])


def _execute(tmp: Path, env: dict[str, str], parameters: str = "") -> Any:
    """Run the notebook with ``env`` for the kernel; ``parameters`` is a cell run after the
    parameters cell (as papermill injects one)."""
    nb = nbformat.read(NOTEBOOK, as_version=4)
    if parameters:
        at = next(i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", []))
        nb.cells.insert(at + 1, nbformat.v4.new_code_cell(parameters))
    with pytest.MonkeyPatch.context() as mp:
        for key in ("GRAPHMEM_URL", "GRAPHMEM_API_KEY", "GRAPHMEM_DATA_DIR", "GRAPHMEM_STORE",
                    "GRAPHMEM_EMBEDDER"):
            mp.delenv(key, raising=False)
        mp.setenv("MPLCONFIGDIR", str(tmp / "mpl"))
        for key, value in env.items():
            mp.setenv(key, value)
        client = nbclient.NotebookClient(
            nb, timeout=300, kernel_name="python3",
            resources={"metadata": {"path": str(NOTEBOOK.parent)}})
        client.execute()
    return nb


def _outputs(nb: Any) -> list[Any]:
    return [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]


def _text(nb: Any) -> str:
    parts = []
    for o in _outputs(nb):
        if o.output_type == "stream":
            parts.append(o.text)
        for mime in ("text/markdown", "text/plain"):
            if mime in o.get("data", {}):
                parts.append(o["data"][mime])
    return "\n".join(parts)


def _markdown(nb: Any, header: str) -> str:
    return next(o["data"]["text/markdown"] for o in _outputs(nb)
                if header in o.get("data", {}).get("text/markdown", ""))


def _png_size(raw: bytes) -> tuple[int, int]:
    assert raw[:8] == PNG_MAGIC, "not a PNG"
    assert raw[12:16] == b"IHDR"
    width, height = struct.unpack(">II", raw[16:24])
    return width, height


def _pngs(nb: Any, keep: Path) -> list[bytes]:
    """The notebook's two images, checked; written to ``keep`` for a look."""
    assert not [o for o in _outputs(nb) if o.output_type == "error"]
    pngs = [base64.b64decode(o["data"]["image/png"]) for o in _outputs(nb)
            if "image/png" in o.get("data", {})]
    assert len(pngs) == 2, "expected the graph and the timeline as images"
    for raw in pngs:
        width, height = _png_size(raw)
        assert width >= 600 and height >= 200, (width, height)
        assert len(raw) > 20_000, "an image this small is blank"
    graph, timeline = pngs
    assert _png_size(graph)[1] > _png_size(timeline)[1]  # the big graph, then the timeline
    (keep / "graph.png").write_bytes(graph)
    (keep / "timeline.png").write_bytes(timeline)
    return pngs


@pytest.mark.slow
def test_notebook_on_a_running_server(served: Served, tmp_path: Path) -> None:
    nb = _execute(tmp_path, {"GRAPHMEM_URL": served.url, "GRAPHMEM_API_KEY": KEY},
                  f'USER = "{ANA}"\nENTITY = "Ana"\nAT = "{served.between.isoformat()}"')
    _pngs(nb, tmp_path)
    text = _text(nb)
    assert f"server: {served.url}" in text
    # the interactive view of the same neighbourhood, self-contained
    views = ["".join(o["data"]["text/html"]) for o in _outputs(nb)
             if "gm-explorer" in "".join(o.get("data", {}).get("text/html", ""))]
    assert len(views) == 1 and "Acme" in views[0] and "knows: 60" in views[0]
    assert "http" not in views[0].replace(served.url, "")
    # the neighbourhood of Ana: her 60 acquaintances and 40 likes folded, Acme a hub
    assert "1 hub(s) collapsed: Acme (+" in text
    assert "Ana knows 60" in text and "Ana likes 40" in text
    assert "15 nodes shown of 127 entities and 292 facts" in text  # with a team, countries
    assert "4 SUPERSEDES and 1 DISPUTED links highlighted" in text  # home, editor
    # the timeline is of a predicate that changed most: Ana's editor, oldest first
    assert text.index("Ana prefers Vim") < text.index("Ana prefers VS Code") \
        < text.index("Ana prefers Neovim")
    # believed at AT (before the moves were recorded) vs true at AT (as known now)
    table = _markdown(nb, "believed on")
    assert "| Ana | lives_in | fact | Madrid | Lisbon | **≠** |" in table
    assert "| Ana | prefers | preference:editor | Vim | Neovim | **≠** |" in table
    # the managers were recorded after AT, for a time before it; the slots that did not
    # change read the same on both sides
    assert "| Ana | reports_to | fact | — | Jonas [DISPUTED], Marta [DISPUTED] | **≠** |" \
        in table
    assert "| Ana | works_at | fact | Acme | Acme |  |" in table
    # the abstraction beside its source
    abstractions = _markdown(nb, "| conclusion |")
    assert "Neovim" in abstractions and "Ana prefers Neovim (ACTIVE, 2024-02-01)" in \
        abstractions


@pytest.mark.slow
def test_notebook_falls_back_to_the_demo(tmp_path: Path) -> None:
    nb = _execute(tmp_path, {})
    _pngs(nb, tmp_path)
    text = _text(nb)
    assert "demo: the demo history in" in text and "user ana:" in text
    assert "SUPERSEDES" in text
    slots = _markdown(nb, "believed on")
    assert "**≠**" in slots  # just before the last change of mind, belief and truth differ
    abstractions = _markdown(nb, "| conclusion |")
    assert "(no abstractions" not in abstractions and "Ana prefers" in abstractions
