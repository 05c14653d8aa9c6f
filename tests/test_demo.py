"""``graphmem demo``: the shipped history, its extraction, and the printed answers."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from graphmem import cli, demo
from graphmem.demo_data import DIRECT_RELATIONS, TODAY, USER_ID, turns
from graphmem.extract import Message
from graphmem.extract.rules import RuleExtractor


def test_history_is_deterministic_and_ordered() -> None:
    a, b = turns(), turns()
    assert a == b
    assert [t.occurred_at for t in a] == sorted(t.occurred_at for t in a)
    assert len({t.source_ref for t in a}) == len(a)
    assert a[0].occurred_at.year == 2023 and a[-1].occurred_at < TODAY
    assert 60 <= len(a) <= 200
    assert all(r.recorded < TODAY for r in DIRECT_RELATIONS)


def _extracted(text: str) -> set[tuple[str, str, bool]]:
    turn = next(t for t in turns() if t.content == text)
    ex = RuleExtractor().extract([Message(turn.content, "user", "Ana", turn.occurred_at)])
    return {(r.predicate, r.object, r.stop) for r in ex.relations}


@pytest.mark.parametrize(("text", "expected"), [
    ("I really like Vue for small projects.", {("prefers", "Vue", False)}),
    ("These days I prefer React.", {("prefers", "React", False)}),
    ("I switched from React to Svelte.", {("prefers", "Svelte", False),
                                          ("prefers", "React", True)}),
    ("I switched from tea to coffee.", {("prefers", "coffee", False), ("prefers", "tea", True)}),
    ("I moved from Lisbon to Berlin last week.", {("lives_in", "Berlin", False),
                                                  ("lives_in", "Lisbon", True)}),
    ("I left Farfetch. I joined Zalando as a staff engineer.",
     {("works_at", "Farfetch", True), ("works_at", "Zalando", False)}),
    ("I plan to move to Berlin this autumn.", {("plans_to", "move to Berlin", False)}),
    ("The Docker build failed because the corporate proxy was not configured.",
     {("failed_because", "corporate proxy was not configured", False)}),
    ("I now use Neovim.", {("uses", "Neovim", False)}),
])
def test_key_turns_extract_what_the_demo_relies_on(
        text: str, expected: set[tuple[str, str, bool]]) -> None:
    assert expected <= _extracted(text)


def test_chatter_extracts_nothing() -> None:
    keys = {t for t in turns() if t.source_ref.split("-")[-1].startswith("c")}
    assert keys
    for t in keys:
        ex = RuleExtractor().extract([Message(t.content, "user", "Ana", t.occurred_at)])
        assert ex.relations == [], t.content


def test_refuses_a_non_empty_data_dir(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "something").write_text("x")
    assert demo.main(["--data-dir", str(tmp_path), "--embedder", "hashing"]) == 1
    err = capsys.readouterr().err
    assert "not empty" in err and "--force" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["something"]


def test_help_through_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        cli.main(["demo", "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert "graphmem demo" in out and "--embedder" in out and "default minilm" in out


def test_default_embedder_is_minilm() -> None:
    assert demo.build_parser().parse_args([]).embedder == "minilm+use"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, str, str]:
    """One demo run through ``graphmem demo`` on a fresh directory (hashing: fast)."""
    data_dir = tmp_path_factory.mktemp("demo") / "data"
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["demo", "--data-dir", str(data_dir), "--embedder", "hashing"])
    return code, out.getvalue(), err.getvalue()


def _section(out: str, n: int) -> str:
    parts = re.split(r"^Q\d+\. ", out, flags=re.M)
    return parts[n]


def _answer(section: str) -> str:
    return re.search(r"^\s+A: (.*)$", section, flags=re.M).group(1)  # type: ignore[union-attr]


@pytest.mark.slow
def test_demo_runs_and_reports_progress(run: tuple[int, str, str]) -> None:
    code, out, err = run
    assert code == 0, err
    assert "loaded 100 episodes" in err and "3 direct relations" in err
    assert "replaying 2023" in err and "replaying 2026" in err
    assert "Q5." in out and "Traceback" not in out + err


@pytest.mark.slow
def test_now_is_svelte_and_coffee(run: tuple[int, str, str]) -> None:
    q = _section(run[1], 1)
    assert q.startswith(demo.Q_NOW)
    answer = _answer(q)
    assert "Svelte (frontend framework)" in answer and "coffee (drink)" in answer
    assert "React" not in answer and "Vue" not in answer and "tea" not in answer
    assert "source: msg-2026-01-20-" in q  # provenance: the turn that said it, with its date
    assert "(2026-01-20)" in q


@pytest.mark.slow
def test_last_year_is_react(run: tuple[int, str, str]) -> None:
    q = _section(run[1], 2)
    answer = _answer(q)
    assert "React (frontend framework)" in answer and "coffee (drink)" in answer
    assert "Svelte" not in answer
    assert "time window from the question: 2025-01-01 .. 2026-01-01" in q
    assert "Ana prefers React" in q and "[SUPERSEDED]" in q  # recall: superseded since
    assert "relations(asOf: 2025-07-02)" in q


@pytest.mark.slow
def test_before_berlin_is_lisbon_then_porto(run: tuple[int, str, str]) -> None:
    q = _section(run[1], 3)
    assert _answer(q) == "Lisbon (and before that Porto)"
    assert "Lisbon (2023-01-10 -> 2024-08-26)" in q
    assert "Porto (2019-09-01 -> 2023-01-10)" in q and "profile-import-2025-05-12" in q
    assert "Porto [SUPERSEDED] -> Lisbon [SUPERSEDED] -> Berlin [ACTIVE]" in q


@pytest.mark.slow
def test_belief_on_a_past_date_lacks_the_backfilled_fact(run: tuple[int, str, str]) -> None:
    q = _section(run[1], 4)
    assert _answer(q) == "Lisbon then Berlin (not yet known then: Porto)"
    assert "learned later: Porto" in q and "recorded 2025-05-12" in q


@pytest.mark.slow
def test_disputed_pair_is_reported(run: tuple[int, str, str]) -> None:
    q = _section(run[1], 5)
    assert _answer(q) == "unclear: Marta or Jonas (two sources disagree)"
    assert "WARNING: Conflicting facts: Ana reports to 'Marta' and 'Jonas'" in q
    assert q.count("[DISPUTED]") == 2
    assert "hr-sync-2025-03-03" in q and "org-chart-2025-03-03" in q
    assert re.search(r"as believed at 2025-03-03 09:00 \(knownAt\): Marta \[ACTIVE\]$", q,
                     flags=re.M)


@pytest.mark.slow
def test_data_dir_is_kept_and_queryable_hint(run: tuple[int, str, str]) -> None:
    err = run[2]
    assert f"--user {USER_ID}" in err and "--embedder hashing" in err


@pytest.mark.slow
def test_a_temporary_store_is_removed_and_the_keep_hint_printed() -> None:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = cli.main(["demo", "--embedder", "hashing"])
    assert code == 0, err.getvalue()
    where = re.search(r"embedded store in (\S+),", err.getvalue())
    assert where is not None
    assert not Path(where.group(1)).exists()
    assert "graphmem demo --keep" in err.getvalue()
