"""The real ``graphmem serve`` process: HTTP, SIGTERM, restart, data still there."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def graphmem_command() -> list[str]:
    """The installed console script next to this interpreter, else the module."""
    exe = shutil.which("graphmem", path=str(Path(sys.executable).parent))
    return [exe] if exe else [sys.executable, "-m", "graphmem.cli"]


def child_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env.setdefault("GRAPHMEM_EMBEDDER", "hashing")
    env.update(extra)
    return env


class Server:
    """``graphmem serve`` in a child process on a free loopback port."""

    def __init__(self, data_dir: Path, log: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        self._out = open(log, "ab")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [*graphmem_command(), "serve", "--host", "127.0.0.1", "--port", str(self.port),
             "--data-dir", str(data_dir), "--embedder", "hashing"],
            stdout=self._out, stderr=subprocess.STDOUT, env=child_env(), cwd=data_dir.parent)

    def wait_ready(self, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"server exited early:\n{self.log.read_text()}")
            try:
                if httpx.get(self.url + "/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise AssertionError(f"server not ready in {timeout}s:\n{self.log.read_text()}")

    def gql(self, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        resp = httpx.post(self.url + "/graphql", json={"query": query,
                                                       "variables": variables or {}},
                          timeout=60)
        body = resp.json()
        assert not body.get("errors"), body
        return body["data"]

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 60.0) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self._out.close()
        return self.proc.returncode


@pytest.mark.slow
def test_serve_sigterm_restart_keeps_data(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    log = tmp_path / "serve.log"
    server = Server(data_dir, log)
    try:
        server.wait_ready()
        health = httpx.get(server.url + "/health").json()
        assert health["status"] == "ok" and health["store"] == "embedded"
        out = server.gql("""mutation { addEpisode(input: {userId: "alice",
            occurredAt: "2024-03-01T09:00:00Z", content: "I moved to Lisbon last month.",
            sourceRef: "chat-1"}) { episode { id } duplicate } }""")
        assert out["addEpisode"]["duplicate"] is False
        server.gql("""mutation { addRelation(input: {userId: "alice", subject: "alice",
            predicate: "prefers", object: "Vue", validFrom: "2023-01-01", exclusive: true})
            { id } }""")
        server.gql("""mutation { addRelation(input: {userId: "alice", subject: "alice",
            predicate: "prefers", object: "React", validFrom: "2024-01-01", exclusive: true})
            { id } }""")
        page = httpx.get(server.url + "/graphql", headers={"accept": "text/html"})
        assert page.status_code == 200 and "graphiql" in page.text.lower()
    finally:
        code = server.stop(signal.SIGTERM)
    assert code == 0, log.read_text()
    text = log.read_text()
    assert "shutting down" in text.lower(), text

    again = Server(data_dir, log)
    try:
        again.wait_ready()
        stats = again.gql('{ stats(userId: "alice") { episodes relations } }')["stats"]
        assert stats["episodes"] == 1 and stats["relations"] >= 2
        rels = again.gql("""{ relations(userId: "alice", predicate: "prefers",
            includeHistory: true) { object status validUntil } }""")["relations"]
        assert [(r["object"], r["status"]) for r in rels] == [("Vue", "SUPERSEDED"),
                                                              ("React", "ACTIVE")]
        eps = again.gql('{ episodes(userId: "alice") { items { sourceRef content } } }')
        assert eps["episodes"]["items"][0]["sourceRef"] == "chat-1"
    finally:
        assert again.stop() == 0, log.read_text()


@pytest.mark.slow
def test_second_process_on_the_same_data_dir_is_refused(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    server = Server(data_dir, tmp_path / "serve.log")
    try:
        server.wait_ready()
        res = subprocess.run(
            [*graphmem_command(), "recall", "anything", "--user", "u", "--data-dir",
             str(data_dir)], capture_output=True, text=True, env=child_env(), timeout=120)
        assert res.returncode == 1
        assert "in use" in res.stderr and "--url" in res.stderr
        # The server was not disturbed, and the CLI can ask it over HTTP instead.
        assert httpx.get(server.url + "/health").json()["status"] == "ok"
        res = subprocess.run(
            [*graphmem_command(), "recall", "anything", "--user", "u", "--url", server.url,
             "--json"], capture_output=True, text=True, env=child_env(), timeout=120)
        assert res.returncode == 0, res.stderr
        assert '"coldStart": true' in res.stdout
    finally:
        assert server.stop() == 0
