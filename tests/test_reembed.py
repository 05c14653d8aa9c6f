"""``graphmem reembed`` on a real data directory: mixed models in, one model out, resumable."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from graphmem._reembed import add_passages, reembed
from graphmem.bootstrap import build_service
from graphmem.cli import main
from graphmem.embed import HashingEmbedder
from graphmem.inputs import EpisodeIn, RecallIn
from graphmem.service import MemoryService
from graphmem.settings import Settings
from graphmem.store.queries import PASSAGE
from graphmem.transfer import LABELS

from .api_support import make_service
from .conftest import DIM

USER = "ana"
MINILM, USE, E5 = "all-MiniLM-L6-v2-int8", "use-multilingual-v3", "multilingual-e5-small-q4"
ROUTED = f"{MINILM}+{USE}-srht384"

LINES = [
    "I love green tea in the morning.", "My cat is called Doudou.",
    "I moved to Lisbon last spring.", "I work at Northwind Labs as a data engineer.",
    "My sister Anna lives in Berlin.", "I started learning the cello in January.",
    "I use Neovim for all my coding.", "Our team ships the billing service on Fridays.",
    "I ran a half marathon in October.", "My favourite book is The Left Hand of Darkness.",
    "I am allergic to peanuts.", "I prefer window seats on long flights.",
]


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("GRAPHMEM_DATA_DIR", "GRAPHMEM_STORE", "GRAPHMEM_EMBEDDER",
                "GRAPHMEM_EMBEDDING_DIM"):
        monkeypatch.delenv(var, raising=False)


def open_service(data_dir: Path, embedder: str) -> MemoryService:
    service = build_service(Settings(data_dir=data_dir, embedder=embedder))  # type: ignore[arg-type]
    service.open()
    return service


def ingest(service: MemoryService, lines: list[str], start: int = 0) -> None:
    service.add_episodes([
        EpisodeIn(user_id=USER, occurred_at=f"2025-03-{1 + start + i:02d}T10:00:00Z",
                  content=text, role="user", source_ref=f"m{start + i}")
        for i, text in enumerate(lines)])


def models(service: MemoryService) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for label in LABELS:
        rows = service.store.export_nodes(label, USER, 0, 1000)
        out[label] = {r.get("embeddingModel") for r in rows}
    return out


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def test_mixed_store_becomes_one_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    svc = open_service(data, "minilm")
    ingest(svc, LINES[:6])
    svc.close()
    svc = open_service(data, "e5")  # same length of vector: the store takes both
    ingest(svc, LINES[6:], start=6)
    assert svc.stats(USER).mixed_models_warning is not None
    svc.close()

    out = run_cli(capsys, "reembed", "--data-dir", str(data), "--model", "e5", "--dry-run")
    assert "would re-embed" in out
    dry = int(out.split()[2])
    assert dry > 0

    out = run_cli(capsys, "reembed", "--data-dir", str(data), "--model", "e5", "--batch", "4")
    assert out.startswith(f"re-embedded {dry} nodes with {E5}")

    svc = open_service(data, "e5")
    try:
        by_label = models(svc)
        assert by_label["Episode"] == by_label["Entity"] == by_label["Relation"] == {E5}
        stats = svc.stats(USER)
        assert stats.embedding_models == [E5] and stats.mixed_models_warning is None
        hit = svc.recall(RecallIn(user_id=USER, query="What pet do I have?", limit=3))
        assert any("Doudou" in (i.text or "") for i in hit.items)
    finally:
        svc.close()
    # a second run finds nothing to do and writes nothing
    out = run_cli(capsys, "reembed", "--data-dir", str(data), "--model", "e5")
    assert out.startswith(f"re-embedded 0 nodes with {E5}")


def test_new_length_remakes_the_index_and_chinese_finds_english(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    svc = open_service(data, "minilm")
    ingest(svc, LINES)
    assert svc.store.vector_index_dim(USER, "Episode") == 384  # type: ignore[attr-defined]
    svc.close()

    out = run_cli(capsys, "reembed", "--data-dir", str(data), "--model", "use")
    assert f"with {USE} (512 dimensions)" in out
    assert f"vector index made again: {USER} Episode" in out

    svc = open_service(data, "use")
    try:
        assert svc.store.vector_index_dim(USER, "Episode") == 512  # type: ignore[attr-defined]
        assert models(svc)["Episode"] == {USE}
        # "what tea do I like to drink?" in Chinese: only the vectors can find it
        hit = svc.recall(RecallIn(user_id=USER, query="我早上喜欢喝什么茶？", limit=3))
        assert hit.items and "green tea" in (hit.items[0].text or "")
    finally:
        svc.close()


def test_moving_a_minilm_store_to_the_default_embeds_only_its_chinese(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    chinese = ["我养了一只猫，叫豆豆。", "我对花生过敏。"]
    svc = open_service(data, "minilm")
    ingest(svc, LINES[:4] + chinese)
    svc.close()

    out = run_cli(capsys, "reembed", "--data-dir", str(data), "--model", "minilm+use")
    assert out.startswith("re-embedded ") and f"nodes with {ROUTED}" in out
    count, renamed = int(out.split()[1]), int(out.split("of them ")[1].split()[0])
    episodes = len(LINES[:4]) + len(chinese)
    # every node is named anew; the English ones (4 episodes at least) keep their vector,
    # the Chinese ones (2 episodes at least) are embedded again
    assert "episodes 6/6" in out and 4 <= renamed <= count - 2

    svc = open_service(data, "minilm+use")
    try:
        by_label = models(svc)
        assert by_label["Episode"] == {ROUTED}
        assert svc.stats(USER).mixed_models_warning is None
        rows = svc.store.export_nodes("Episode", USER, 0, 100)
        assert len(rows) == episodes
        # every stored vector is the one the embedder makes now: the English ones were
        # kept, the Chinese ones made again (MiniLM's vectors of Chinese are all alike)
        for row in rows:
            vec = svc.embedder.embed([row["content"]])[0]
            hit = svc.store.vector_search("Episode", USER, vec, 1)[0]
            assert hit.id == row["id"] and hit.score > 0.999, row["content"]
        hit = svc.recall(RecallIn(user_id=USER, query="有哪些食物不能碰？", limit=3))
        assert any("花生" in (i.text or "") for i in hit.items)
    finally:
        svc.close()


def test_interrupted_run_resumes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    svc = open_service(data, "minilm")
    ingest(svc, LINES)
    svc.close()  # closing runs the reflection the episodes made due: an abstraction more
    svc = open_service(data, "minilm")
    total = sum(svc.store.count_stale_vectors(label, USER, USE)[0] for label in LABELS)
    svc.close()
    assert total >= len(LINES)

    # killed (SIGKILL: no clean-up at all) once its first batch of one node is written
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-c", "from graphmem.cli import main; raise SystemExit(main())",
         "reembed", "--data-dir", str(data), "--model", "use", "--batch", "1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stderr is not None
    line = proc.stderr.readline()
    proc.kill()
    proc.wait()
    assert "re-embedded" in line, line

    svc = open_service(data, "minilm")  # a fresh open reaps the killed run's server
    left = sum(svc.store.count_stale_vectors(label, USER, USE)[0] for label in LABELS)
    svc.close()
    assert 0 < left < total

    out = run_cli(capsys, "reembed", "--data-dir", str(data), "--model", "use")
    assert out.startswith(f"re-embedded {left} nodes with {USE}")
    svc = open_service(data, "use")
    try:
        assert all(m == {USE} for m in models(svc).values() if m)
        assert svc.stats(USER).mixed_models_warning is None
    finally:
        svc.close()


class _Renamed(HashingEmbedder):
    """The hashing vectors under another model's name: a change of model of one length."""

    def __init__(self) -> None:
        super().__init__(DIM)
        self.model_id = "hashing-renamed"


def test_reembed_through_the_plan_on_both_stores(service: MemoryService, user: str) -> None:
    service.add_episodes([EpisodeIn(user_id=user, occurred_at="2025-03-01T10:00:00Z",
                                    content=text, source_ref=f"m{i}")
                          for i, text in enumerate(LINES[:4])])
    before = service.store.count_stale_vectors("Episode", user, "hashing-renamed")
    assert before == (4, 4)
    report = reembed(service.store, _Renamed(), [user], batch=3)
    assert report.stale[user]["Episode"] == 4 and not report.rebuilt
    assert service.store.count_stale_vectors("Episode", user, "hashing-renamed") == (0, 4)
    hit = service.recall(RecallIn(user_id=user, query="green tea", limit=2))
    assert "green tea" in hit.items[0].text
    assert reembed(service.store, _Renamed(), [user]).count == 0


CHAT = [  # what a store written without (or before) these passages lacks
    "Quick question first. Caught the 8:40 tram to the office again this morning. "
    "Anyway, suggest a few podcasts about cities.",
    "Some context: the greenhouse on the allotment finally has tomatoes. Now, explain "
    "how compost works.",
    "Just one line, nothing to cut.",
]


def _passage_ids(service: MemoryService, user: str) -> set[str]:
    return {str(r["id"]) for r in service.store.export_nodes(PASSAGE, user, 0, 1000)}


def test_add_passages_writes_only_what_episodes_lack_on_both_stores(store: Any,
                                                                    user: str) -> None:
    old = make_service(store, passages=False)
    other = f"{user}-other"
    for who in (user, other):
        old.add_episodes([EpisodeIn(user_id=who, occurred_at="2025-03-01T10:00:00Z",
                                    content=text, role="user", source_ref=f"m{i}")
                          for i, text in enumerate(CHAT)])
    assert not _passage_ids(old, user)  # written without passages
    embedder = HashingEmbedder(DIM)
    dry = add_passages(old.store, embedder, [user], dry_run=True)
    assert dry.added[user] >= 2 and dry.episodes[user] == 2 and not _passage_ids(old, user)
    report = add_passages(old.store, embedder, [user], batch=1)
    assert report.added == dry.added and report.episodes == dry.episodes
    # the passages a fresh write makes, with their spans and the model named
    fresh = make_service(store)
    fresh.add_episodes([EpisodeIn(user_id=f"{user}-new", occurred_at="2025-03-01T10:00:00Z",
                                  content=text, role="user", source_ref=f"m{i}")
                        for i, text in enumerate(CHAT)])

    def spans_of(who: str) -> set[str]:
        return {pid.split("#")[1] for pid in _passage_ids(fresh, who)}
    assert spans_of(user) == spans_of(f"{user}-new") and spans_of(user)
    rows = old.store.export_nodes(PASSAGE, user, 0, 1000)
    assert {r["embeddingModel"] for r in rows} == {embedder.model_id}
    assert {r["userId"] for r in rows} == {user}
    # the tram, said with the "I" left out, is found through its passage
    hit = fresh.recall(RecallIn(user_id=user, query="tram to the office", limit=3))
    assert hit.items and hit.items[0].passage == (
        "Caught the 8:40 tram to the office again this morning.")
    assert add_passages(old.store, embedder, [user]).added[user] == 0  # nothing twice
    assert not _passage_ids(old, other)  # another user's episodes untouched


def test_reembed_passages_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                              monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "data"
    monkeypatch.setenv("GRAPHMEM_PASSAGES", "false")
    svc = open_service(data, "hashing")
    ingest(svc, CHAT)
    svc.close()
    # with passages off there is nothing to add: a clear error, nothing written
    assert main(["reembed", "--data-dir", str(data), "--model", "hashing", "--passages"]) == 1
    assert "passages are off" in capsys.readouterr().err
    monkeypatch.delenv("GRAPHMEM_PASSAGES")
    out = run_cli(capsys, "reembed", "--data-dir", str(data), "--model", "hashing",
                  "--passages", "--dry-run")
    assert "would add" in out and "to 2 episodes" in out
    out = run_cli(capsys, "reembed", "--data-dir", str(data), "--model", "hashing",
                  "--passages")
    assert "added" in out and "to 2 episodes" in out
    out = run_cli(capsys, "reembed", "--data-dir", str(data), "--model", "hashing",
                  "--passages")
    assert "added 0 passages to 0 episodes" in out


def test_an_index_made_with_older_options_is_made_again(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a store whose Episode index was made before M 32 / efRuntime 200 (FalkorDB's 16 / 10)
    data = tmp_path / "data"
    svc = open_service(data, "hashing")
    ingest(svc, LINES)
    store: Any = svc.store
    graph = store._handle(store._tenant_for_write(USER))
    graph.query("DROP VECTOR INDEX FOR (n:Episode) ON (n.embedding)")
    graph.query("CREATE VECTOR INDEX FOR (n:Episode) ON (n.embedding) OPTIONS "
                f"{{dimension: {svc.embedder.dim}, similarityFunction: 'cosine'}}")
    assert store.vector_index_outdated(USER, "Episode")
    assert not store.vector_index_outdated(USER, "Relation")
    svc.close()

    # a dry run says so and changes nothing
    out = run_cli(capsys, "reembed", "--data-dir", str(data), "--model", "hashing",
                  "--dry-run")
    assert f"{USER} Episode" in out
    svc = open_service(data, "hashing")
    assert svc.store.vector_index_outdated(USER, "Episode")  # type: ignore[attr-defined]
    svc.close()

    out = run_cli(capsys, "reembed", "--data-dir", str(data), "--model", "hashing")
    assert f"vector index made again: {USER} Episode" in out
    assert f"{USER} Relation" not in out  # up to date: left as it was
    svc = open_service(data, "hashing")
    try:
        store = svc.store
        assert not store.vector_index_outdated(USER, "Episode")
        assert store.vector_index_dim(USER, "Episode") == svc.embedder.dim
        # every episode is in the index made again: the index path finds each by its words
        import graphmem.store.falkor as falkor
        exact, falkor.EXACT_SCAN_MAX = falkor.EXACT_SCAN_MAX, -1
        try:
            for text in LINES:
                hits = store.vector_search("Episode", USER, svc.embedder.embed_one(text), 1)
                found = store.recall_rows("Episode", USER, [hits[0].id])
                assert found[0]["content"] == text
        finally:
            falkor.EXACT_SCAN_MAX = exact
    finally:
        svc.close()
    # a second run has nothing to do
    assert "vector index made again" not in run_cli(
        capsys, "reembed", "--data-dir", str(data), "--model", "hashing")
