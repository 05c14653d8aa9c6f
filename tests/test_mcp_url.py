"""``graphmem mcp --url``: the stdio MCP server over a running ``graphmem serve``.

A real server runs in a child process with API keys; ``graphmem mcp --url ... --api-key``
runs in another, driven by the SDK's own client over stdio. It opens no store: every tool
call goes through ``graphmem.client`` to the server, which authorises it by the key.
"""

from __future__ import annotations

import json
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx
import pytest
from mcp import Client, StdioServerParameters

from graphmem.client import GraphMemClient

from .test_api_serve import child_env, free_port, graphmem_command
from .test_mcp import (
    TOOLS,
    _bad_arguments,
    _error,
    _remember_recall_history,
    _scopes,
    _text,
)

RUN = uuid.uuid4().hex[:8]
ANA, BOB = f"ana-{RUN}", f"bob-{RUN}"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``graphmem serve`` with a key for ANA only; its URL."""
    data = tmp_path_factory.mktemp("serve")
    port = free_port()
    env = child_env(GRAPHMEM_API_KEYS=json.dumps({"key-ana": [ANA]}),
                    GRAPHMEM_REFLECT_EVERY="0")
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
        yield url
    finally:
        proc.terminate()
        proc.wait(60)


def _mcp(url: str, key: str, tmp_path: Path) -> StdioServerParameters:
    cmd = graphmem_command()
    # --data-dir names a directory that does not exist: --url must not open a store
    return StdioServerParameters(
        command=cmd[0], args=[*cmd[1:], "mcp", "--url", url, "--api-key", key, "--user", ANA,
                              "--data-dir", str(tmp_path / "never-opened")],
        env=child_env())


def test_remember_recall_and_history_through_the_server(server: str, tmp_path: Path) -> None:
    async def main() -> None:
        async with Client(_mcp(server, "key-ana", tmp_path), read_timeout_seconds=120) as c:
            assert {t.name for t in (await c.list_tools()).tools} == TOOLS
            await _remember_recall_history(c, None)
            await _scopes(c, None)
            await _bad_arguments(c, None)
            facts = await c.read_resource(f"graphmem://users/{ANA}/facts")
            assert "Berlin" in facts.contents[0].text  # type: ignore[union-attr]
            recent = await c.read_resource(f"graphmem://users/{ANA}/episodes")
            assert "Vue to React" in recent.contents[0].text  # type: ignore[union-attr]
            # the key is ANA's: the server refuses another user, as a clean tool error
            refused = await _error(c, "recall", {"query": "anything", "user_id": BOB})
            assert f"FORBIDDEN: this API key may not access user '{BOB}'" in refused

    anyio.run(main)
    assert not (tmp_path / "never-opened").exists()
    # what the tools wrote is in the server's store, read over GraphQL with the key
    with GraphMemClient(server, api_key="key-ana") as gm:
        assert [r.object for r in gm.relations(ANA, predicate="lives_in")] == ["Berlin"]


def test_a_wrong_key_is_a_clean_tool_error(server: str, tmp_path: Path) -> None:
    async def main() -> None:
        async with Client(_mcp(server, "not-a-key", tmp_path), read_timeout_seconds=120) as c:
            for tool, args in (("remember", {"content": "I like tea."}),
                               ("recall", {"query": "tea"})):
                result = await c.call_tool(tool, args)
                assert result.is_error
                text = _text(result)
                assert "UNAUTHENTICATED: the graphmem server refused the API key" in text
                assert "Traceback" not in text

    anyio.run(main)
    with GraphMemClient(server, api_key="key-ana") as gm:  # nothing was written
        assert all(e.content != "I like tea." for e in gm.episodes(ANA, limit=100).items)
