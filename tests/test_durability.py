"""The embedded store survives restarts, and a write killed mid-batch is all or nothing."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest

from graphmem.check import check_store
from graphmem.embed import HashingEmbedder
from graphmem.inputs import RelationIn
from graphmem.service import MemoryService
from graphmem.store.falkor import FalkorStore

from .conftest import DIM, make_settings

pytestmark = pytest.mark.slow

BATCH = 40

WRITER = textwrap.dedent(f"""
    import sys
    from datetime import UTC, datetime, timedelta
    from graphmem.embed import HashingEmbedder
    from graphmem.inputs import RelationIn
    from graphmem.service import MemoryService
    from graphmem.settings import Settings
    from graphmem.store.falkor import FalkorStore

    store = FalkorStore(sys.argv[1], dim={DIM})
    svc = MemoryService(Settings(embedding_dim={DIM}), store, HashingEmbedder({DIM}))
    svc.open()
    base = datetime(2024, 1, 1, tzinfo=UTC)
    for i in range(10_000):
        batch = [RelationIn("w", f"batch-{{i}}", "has_item", f"item-{{j}}",
                            valid_from=base + timedelta(days=i)) for j in range({BATCH})]
        batch.append(RelationIn("w", "user", "prefers", f"tool-{{i}}", exclusive=True,
                                valid_from=base + timedelta(days=i)))
        svc.add_relations(batch)
        print(i, flush=True)
""")


def _server_pids(data_dir: Path) -> list[int]:
    pids = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if (b"redis-server" in (proc / "cmdline").read_bytes()
                    and Path(os.readlink(proc / "cwd")).resolve() == data_dir.resolve()):
                pids.append(int(proc.name))
        except (OSError, ValueError):
            continue
    return pids


def _check_consistent(store: FalkorStore) -> int:
    rels = store.export_nodes("Relation", "w", 0, 100_000)
    subject_of = Counter(e["dst"] for e in store.export_edges("SUBJECT_OF", "w"))
    object_of = Counter(e["src"] for e in store.export_edges("OBJECT", "w"))
    ids = {r["id"] for r in rels}
    for r in rels:
        assert subject_of[r["id"]] == 1 and object_of[r["id"]] == 1, r["id"]
    per_batch = Counter(r["subject"] for r in rels if r["subject"].startswith("batch-"))
    assert set(per_batch.values()) <= {BATCH}, per_batch  # no half-written batch
    prefs = [r for r in rels if r["predicate"] == "prefers"]
    assert len(prefs) == len(per_batch)  # the batch's exclusive statement came with it
    sup = store.export_edges("SUPERSEDES", "w")
    for e in sup:
        assert e["src"] in ids and e["dst"] in ids
    superseded = {e["dst"] for e in sup if e["props"].get("expiredAt") is None}
    for r in prefs:
        assert (r["status"] == "SUPERSEDED") == (r["id"] in superseded)
    assert sum(1 for r in prefs if r["status"] == "ACTIVE") == (1 if prefs else 0)
    return len(per_batch)


@pytest.mark.parametrize("kill_server", [False, True], ids=["writer", "writer+server"])
def test_sigkill_mid_batch_leaves_no_half_write(tmp_path: Path, kill_server: bool) -> None:
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    done = 0
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 120
        while done < 3 and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            done += 1
        assert done >= 3, proc.stderr.read() if proc.stderr else ""
        time.sleep(random.Random(done).uniform(0.0, 0.25))
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    if kill_server:
        for pid in _server_pids(tmp_path):
            os.kill(pid, signal.SIGKILL)
        time.sleep(0.2)
    store = FalkorStore(tmp_path, dim=DIM)
    store.open()
    try:
        batches = _check_consistent(store)
        report = check_store(store, ["w"])  # the store's own invariants, after the crash
        assert report.ok, [v.describe() for v in report.violations[:10]]
        if not kill_server:
            assert batches >= done  # every acknowledged batch is there
        assert _server_pids(tmp_path)  # the reopened store runs its own server
    finally:
        store.close()
    assert not _server_pids(tmp_path)


def test_data_survives_close_and_reopen(tmp_path: Path) -> None:
    def service() -> MemoryService:
        return MemoryService(make_settings(), FalkorStore(tmp_path, dim=DIM),
                             HashingEmbedder(DIM))

    svc = service()
    svc.open()
    rel = svc.add_relation(RelationIn("p", "user", "lives_in", "Lisbon",
                                      valid_from=datetime(2020, 1, 1, tzinfo=UTC)))
    svc.close()
    svc = service()
    svc.open()
    try:
        got = svc.relations("p")
        report = check_store(svc.store, ["p"])  # type: ignore[arg-type]
        assert report.ok, [v.describe() for v in report.violations[:10]]
        assert [(r.id, r.object) for r in got] == [(rel.id, "Lisbon")]
    finally:
        svc.close()
