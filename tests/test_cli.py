"""The ``graphmem`` command line: help, ingest, recall, export/import, demo hook."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from graphmem.cli import build_parser, main
from graphmem.embed import HashingEmbedder
from graphmem.errors import InvalidInputError
from graphmem.inputs import RelationIn
from graphmem.service import MemoryService
from graphmem.store.falkor import FalkorStore
from graphmem.transfer import export_user, import_file

from .conftest import DIM, FakeClock, make_settings


@pytest.fixture(autouse=True)
def _fast_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHMEM_EMBEDDER", "hashing")
    monkeypatch.setenv("GRAPHMEM_EMBEDDING_DIM", str(DIM))
    for var in ("GRAPHMEM_DATA_DIR", "GRAPHMEM_STORE", "GRAPHMEM_API_KEY"):
        monkeypatch.delenv(var, raising=False)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("command", ["serve", "schema", "ingest", "recall", "export",
                                     "import", "gc"])
def test_help(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main([command, "--help"])
    assert e.value.code == 0
    text = capsys.readouterr().out
    assert f"graphmem {command}" in text
    if command in ("serve", "ingest", "recall", "export", "import", "gc"):
        assert "--data-dir" in text and "GRAPHMEM_" in text


def test_top_level_help_lists_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    for cmd in ("serve", "schema", "ingest", "recall", "export", "import", "demo"):
        assert cmd in text
    assert build_parser().parse_args(["serve", "--port", "9"]).port == 9


def write_lines(path: Path, items: list[Any]) -> Path:
    path.write_text("\n".join(i if isinstance(i, str) else json.dumps(i) for i in items) + "\n")
    return path


JOBS = [
    {"content": "I work at Initech.", "occurredAt": "2021-03-01T09:00:00Z", "sourceRef": "m1",
     "sessionId": "s1"},
    {"content": "I started a new job: I work at Globex now.", "occurred_at": "2023-06-01",
     "source_ref": "m2", "session_id": "s2"},
    '{"content": "broken json',
    {"content": "no time given"},
    {"messages": [{"role": "user", "content": "I prefer tea."}],
     "occurredAt": "2024-01-01T00:00:00Z", "sourceRef": "m3"},
    {"content": "", "occurredAt": "2024-01-02T00:00:00Z"},
]


@pytest.mark.slow
def test_ingest_recall_and_reingest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "mem"
    src = write_lines(tmp_path / "episodes.jsonl", JOBS)
    code, _, err = run(capsys, "ingest", str(src), "--user", "ana", "--data-dir", str(data),
                       "--batch-size", "2")
    assert code == 1  # some lines were bad; the good ones are stored
    assert "line 3: not JSON" in err
    assert "line 4: occurredAt: is required" in err
    assert "line 6: content:" in err
    assert "ingested 3 new episodes (0 already stored)" in err and "3 bad" in err
    assert "ingest: 3/3 episodes" in err  # progress

    code, out, _ = run(capsys, "recall", "where does she work?", "--user", "ana",
                       "--data-dir", str(data), "--json")
    assert code == 0
    result = json.loads(out)
    texts = [i["text"] for i in result["items"]]
    assert any("Globex" in t for t in texts), texts
    refs = {s["source_ref"] for i in result["items"] for s in i["sources"]}
    assert "m2" in refs

    code, out, _ = run(capsys, "recall", "where did she work?", "--user", "ana",
                       "--data-dir", str(data), "--as-of", "2022-01-01", "--limit", "5")
    assert code == 0 and "Initech" in out and "1." in out

    code, _, err = run(capsys, "recall", "x", "--user", "ana", "--data-dir", str(data),
                       "--limit", "0")
    assert code == 2 and "limit" in err

    array = tmp_path / "episodes.json"
    array.write_text(json.dumps([j for j in JOBS if isinstance(j, dict)][:2]))
    code, _, err = run(capsys, "ingest", str(array), "--user", "ana", "--data-dir", str(data))
    assert code == 0 and "ingested 0 new episodes (2 already stored)" in err


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines()]


@pytest.mark.slow
def test_export_import_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = write_lines(tmp_path / "episodes.jsonl", [j for j in JOBS if isinstance(j, dict)
                                                    and j.get("content") != ""
                                                    and ("occurredAt" in j
                                                         or "occurred_at" in j)])
    first, second = tmp_path / "a", tmp_path / "b"
    assert run(capsys, "ingest", str(src), "--user", "ana", "--data-dir", str(first))[0] == 0
    out1 = tmp_path / "ana.jsonl"
    code, _, err = run(capsys, "export", "--user", "ana", "--out", str(out1), "--data-dir",
                       str(first))
    assert code == 0 and "exported user ana" in err
    exported = _lines(out1)
    assert exported[0]["type"] == "header" and exported[0]["userId"] == "ana"
    edges = {r["edge"] for r in exported if r["type"] == "edge"}
    assert {"SUBJECT_OF", "OBJECT", "EVIDENCED_BY", "MENTIONS", "SUPERSEDES"} <= edges
    statuses = {r["props"]["status"] for r in exported
                if r["type"] == "node" and r["label"] == "Relation"}
    assert "SUPERSEDED" in statuses

    code, _, err = run(capsys, "import", str(out1), "--data-dir", str(second))
    assert code == 0 and "imported user ana" in err
    code, _, _ = run(capsys, "import", str(out1), "--data-dir", str(second))  # idempotent
    assert code == 0
    out2 = tmp_path / "ana-again.jsonl"
    assert run(capsys, "export", "--user", "ana", "--out", str(out2), "--data-dir",
               str(second))[0] == 0
    again = _lines(out2)
    assert again[1:] == exported[1:]  # every node and edge, byte for byte (header aside)
    code, out, _ = run(capsys, "recall", "where did she work?", "--user", "ana",
                       "--data-dir", str(second), "--as-of", "2022-01-01")
    assert "Initech" in out  # indexes and vectors work on the imported graph


def test_import_rejects_a_bad_file_before_writing(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    bad = write_lines(tmp_path / "bad.jsonl", [
        {"type": "header", "format": "graphmem-export", "version": 1, "userId": "u"},
        {"type": "node", "label": "Episode", "props": {"id": "epi_1", "userId": "u",
                                                       "content": "hi", "occurredAt": 1,
                                                       "recordedAt": 1, "createdAt": 1}},
        {"type": "node", "label": "Robot", "props": {"id": "x", "userId": "u"}}])
    code, _, err = run(capsys, "import", str(bad), "--data-dir", str(tmp_path / "d"))
    assert code == 2 and "line 3" in err
    code, _, err = run(capsys, "import", str(write_lines(tmp_path / "x.jsonl", [{"a": 1}])),
                       "--data-dir", str(tmp_path / "d"))
    assert code == 2 and "line 1" in err and "header" in err


def test_transfer_keeps_history_and_forgotten(embedded_store: FalkorStore, user: str,
                                              tmp_path: Path) -> None:
    """Lossless: after an import, asOf / knownAt / forgotten answers are the same."""
    clock = FakeClock(datetime(2025, 1, 1, tzinfo=UTC))
    svc = MemoryService(make_settings(), embedded_store, HashingEmbedder(DIM), clock=clock)
    day = datetime(2024, 1, 1, tzinfo=UTC)
    svc.add_relation(RelationIn(user, "user", "lives_in", "Oslo", valid_from=day))
    believed = clock.tick(60)
    clock.tick(60)
    svc.add_relation(RelationIn(user, "user", "lives_in", "Rome",
                                valid_from=day + timedelta(days=100)))
    gone = svc.add_relation(RelationIn(user, "user", "likes", "opera"))
    svc.forget(user, gone.id)
    buf = io.StringIO()
    export_user(svc, user, buf)
    path = tmp_path / "u.jsonl"
    path.write_text(buf.getvalue())

    fresh = FalkorStore(tmp_path / "fresh", dim=DIM)
    fresh.open()
    try:
        other = MemoryService(make_settings(), fresh, HashingEmbedder(DIM), clock=clock)
        summary = import_file(other, path)
        assert summary.nodes["Relation"] == 3 and summary.edges["SUPERSEDES"] == 1

        def answers(s: MemoryService) -> list[Any]:
            return [[(r.object, r.status.value, r.valid_until) for r in s.relations(user, **kw)]
                    for kw in ({}, {"as_of": day + timedelta(days=10)},
                               {"as_of": day + timedelta(days=200), "known_at": believed},
                               {"include_history": True})]

        assert answers(other) == answers(svc)
        assert [r.object for r in other.relations(user, include_history=True)
                if r.status.value == "FORGOTTEN"] == ["opera"]
        buf2 = io.StringIO()
        export_user(other, user, buf2)
        assert buf2.getvalue().splitlines()[1:] == buf.getvalue().splitlines()[1:]
    finally:
        fresh.close()
    with pytest.raises(InvalidInputError):
        export_user(svc, "", io.StringIO())


def test_demo_subcommand_runs_the_demo(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["demo", "--data-dir", str(tmp_path / "demo"), "--embedder", "hashing"])
    out = capsys.readouterr().out
    assert code == 0
    assert "What did Ana prefer last year?" in out and "React" in out


def test_gc_lists_by_default_and_forgets_only_with_apply(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "mem"
    src = write_lines(tmp_path / "episodes.jsonl", [
        {"content": "The printer jammed.", "occurredAt": "2021-03-01T09:00:00Z"},
        {"content": "The scanner jammed.", "occurredAt": "2024-03-01T09:00:00Z"}])
    assert run(capsys, "ingest", str(src), "--user", "ana", "--data-dir", str(data))[0] == 0
    # episodes start at importance .4: a threshold of .5 puts both below it
    base = ("gc", "--user", "ana", "--data-dir", str(data), "--max-importance", "0.5")
    code, out, _ = run(capsys, *base, "--older-than", "2022-01-01", "--json")
    report = json.loads(out)
    assert code == 0 and report["dry_run"] is True
    assert [c["text"] for c in report["candidates"]] == ["The printer jammed."]
    code, out, _ = run(capsys, *base, "--older-than", "2022-01-01", "--apply")
    assert code == 0 and "forgot 1 below importance 0.50" in out and "printer" in out
    code, out, _ = run(capsys, "recall", "jammed", "--user", "ana", "--data-dir", str(data),
                       "--json")
    texts = [i["text"] for i in json.loads(out)["items"]]
    assert any("scanner" in t for t in texts) and not any("printer" in t for t in texts)
    code, _, err = run(capsys, *base, "--older-than", "not a time")
    assert code == 2 and "--older-than" in err
