"""The graph explorer notebook runs headless, end to end, and shows what it promises.

It is executed with nbclient on a kernel of this interpreter (ipykernel's native
``python3`` spec), from the ``notebooks/`` folder as a user would open it, on the embedded
store in a temporary directory. The committed notebook carries no outputs.
"""

from __future__ import annotations

import base64
import struct
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("matplotlib")

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "notebooks" / "graph_explorer.ipynb"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_notebook_is_committed_without_outputs() -> None:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code
    for c in code:
        assert c.outputs == [], "clear the notebook's outputs before committing"
        assert c.execution_count is None


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> nbformat.NotebookNode:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    # The kernel inherits this environment: the default (embedded) store in a temp dir.
    with pytest.MonkeyPatch.context() as mp:
        for key in ("GRAPHMEM_STORE", "GRAPHMEM_DATA_DIR", "GRAPHMEM_EMBEDDER"):
            mp.delenv(key, raising=False)
        mp.setenv("MPLCONFIGDIR", str(tmp_path_factory.mktemp("mpl")))
        client = nbclient.NotebookClient(
            nb, timeout=300, kernel_name="python3",
            resources={"metadata": {"path": str(NOTEBOOK.parent)}})
        client.execute()
    return nb


def _outputs(nb: nbformat.NotebookNode) -> list[dict]:  # type: ignore[type-arg]
    return [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]


def _text(nb: nbformat.NotebookNode) -> str:
    parts = []
    for o in _outputs(nb):
        if o.output_type == "stream":
            parts.append(o.text)
        for mime in ("text/markdown", "text/html", "text/plain"):
            if mime in o.get("data", {}):
                parts.append(o["data"][mime])
    return "\n".join(parts)


def _png_size(raw: bytes) -> tuple[int, int]:
    assert raw[:8] == PNG_MAGIC, "not a PNG"
    assert raw[12:16] == b"IHDR"
    width, height = struct.unpack(">II", raw[16:24])
    return width, height


@pytest.mark.slow
def test_notebook_draws_graph_and_timeline(executed: nbformat.NotebookNode) -> None:
    pngs = [base64.b64decode(o["data"]["image/png"]) for o in _outputs(executed)
            if "image/png" in o.get("data", {})]
    assert len(pngs) >= 2, "expected the graph and the timeline as images"
    for raw in pngs:
        width, height = _png_size(raw)
        assert width >= 400 and height >= 150, (width, height)
        assert len(raw) > 10_000, "an image this small is blank"
    graph, timeline = pngs[0], pngs[1]
    assert _png_size(graph)[1] > _png_size(timeline)[1]  # the big graph, then the short timeline
    errors = [o for o in _outputs(executed) if o.output_type == "error"]
    assert not errors


@pytest.mark.slow
def test_notebook_recall_table_and_dispute(executed: nbformat.NotebookNode) -> None:
    text = _text(executed)
    tables = [o["data"]["text/markdown"] for o in _outputs(executed)
              if "text/markdown" in o.get("data", {})]
    recall_table = next(t for t in tables if "What did Ana prefer last year?" in t)
    # asOf in the middle of last year: React (superseded since), not Svelte (later) or Vue.
    assert "Ana prefers React" in recall_table
    assert "Ana prefers coffee" in recall_table
    assert "Svelte" not in recall_table and "Vue" not in recall_table
    for column in ("vector", "fulltext", "graph", "recency", "importance", "temporal"):
        assert f" {column} |" in recall_table
    # The timeline's versions, oldest first, and the structured comparison.
    assert "Vue" in text and "React" in text and "Svelte" in text
    assert "last year (2025-07-01): coffee [drink], Neovim [editor], React" in text
    assert "today (2026-03-02): coffee [drink], Neovim [editor], Svelte" in text
    # The disputed pair: both DISPUTED, the warning names both objects.
    dispute = next(t for t in tables if "| statement |" in t)
    assert dispute.count("DISPUTED") == 2
    assert "WARNING: Conflicting facts: Ana reports to 'Marta' and 'Jonas'" in text
    assert "Marta [ACTIVE]" in text  # knownAt between the two writes
