"""The MCP server through the SDK's own client: ``graphmem mcp`` over stdio (a child
process on a temp data dir, hashing embedder) and streamable HTTP at ``/mcp`` of the real
app under uvicorn, with API keys."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from graphmem.embed import HashingEmbedder
from graphmem.service import MemoryService
from graphmem.store.falkor import FalkorStore

from .conftest import DIM, make_settings
from .test_api_serve import child_env, graphmem_command
from .test_client import LiveApp

RUN = uuid.uuid4().hex[:8]
ANA, BOB = f"ana-{RUN}", f"bob-{RUN}"
KEYS = {"key-ana": [ANA], "key-bob": [BOB], "key-all": ["*"]}
TOOLS = {"remember", "remember_fact", "recall", "history", "what_changed", "forget",
         "restore", "reflect", "abstractions"}


def _text(result: Any) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "text", None))


async def _ok(client: Client, tool: str, args: dict[str, Any]) -> Any:
    result = await client.call_tool(tool, args)
    assert not result.is_error, _text(result)
    return result


async def _error(client: Client, tool: str, args: dict[str, Any]) -> str:
    result = await client.call_tool(tool, args)
    assert result.is_error, _text(result)
    text = _text(result)
    assert "Traceback" not in text and 'File "' not in text
    return text


async def _remember_recall_history(client: Client, user: str | None) -> None:
    """The agent's loop: remember, remember facts, recall (now and as of), history,
    what_changed; ``user`` None leaves user_id to the server's default."""
    who = {} if user is None else {"user_id": user}
    said = await _ok(client, "remember", {
        **who, "content": "I switched from Vue to React for the dashboard.",
        "occurred_at": "2024-03-01T09:00:00Z", "source_ref": "msg-1"})
    assert said.structured_content["episode_id"].startswith("epi_")
    assert "React" in _text(said)
    paris = await _ok(client, "remember_fact", {**who, "subject": "Ana", "predicate": "lives_in",
                                               "object": "Paris", "valid_from": "2020-01-01"})
    paris_id = paris.structured_content["relations"][0]["id"]
    time.sleep(0.01)  # a distinct system time for what_changed
    since = (await _ok(client, "remember_fact", {
        **who, "subject": "Ana", "predicate": "likes", "object": "tea"})
    ).structured_content["relations"][0]["recorded_at"]
    berlin = await _ok(client, "remember_fact", {
        **who, "subject": "Ana", "predicate": "lives_in", "object": "Berlin",
        "valid_from": "2023-06-01", "exclusive": True})
    rel = berlin.structured_content["relations"][0]
    assert rel["supersedes"] == [paris_id] and paris_id in _text(berlin)

    now = await _ok(client, "recall", {**who, "query": "where does Ana live?",
                                       "kinds": ["relation"]})
    items = now.structured_content["items"]
    assert any("Berlin" in i["text"] for i in items)
    assert not any("Paris" in i["text"] for i in items)
    assert all(i["id"] and i["score"] is not None for i in items)
    assert "Berlin" in _text(now) and rel["id"] in _text(now)
    then = await _ok(client, "recall", {**who, "query": "where does Ana live?",
                                        "as_of": "2021-01-01", "kinds": ["relation"]})
    assert any("Paris" in i["text"] for i in then.structured_content["items"])
    window = await _ok(client, "recall", {**who, "query": "dashboard", "kinds": ["episode"],
                                          "between": {"start": "2024-02-01",
                                                      "end": "2024-04-01"}})
    hit = window.structured_content["items"][0]
    assert hit["kind"] == "episode" and hit["sources"][0]["source_ref"] == "msg-1"

    chain = await _ok(client, "history", {**who, "relation_id": rel["id"]})
    assert [r["object"] for r in chain.structured_content["relations"]] == ["Paris", "Berlin"]
    assert "SUPERSEDED" in _text(chain)

    changed = await _ok(client, "what_changed", {**who, "since": since})
    kinds = {(c["change"], c["relation"]["object"])
             for c in changed.structured_content["changes"]}
    assert ("added", "Berlin") in kinds and ("closed", "Paris") in kinds
    assert ("added", "Paris") not in kinds  # recorded before `since`

    assert (await _ok(client, "forget", {**who, "memory_id": rel["id"]})
            ).structured_content == {"id": rel["id"], "changed": True}
    gone = await _ok(client, "recall", {**who, "query": "where does Ana live?",
                                        "kinds": ["relation"]})
    assert not any("Berlin" in i["text"] for i in gone.structured_content["items"])
    await _ok(client, "restore", {**who, "memory_id": rel["id"]})
    await _ok(client, "reflect", who)
    await _ok(client, "abstractions", who)


async def _scopes(client: Client, user: str | None) -> None:
    """A memory remembered under a scope is recalled under that scope and with none, never
    under another; the user level is recalled under every scope; session_id keeps one
    session's episodes."""
    who = {} if user is None else {"user_id": user}
    tag = uuid.uuid4().hex[:8]
    alpha, beta = f"alpha-{tag}", f"beta-{tag}"
    fact = await _ok(client, "remember_fact", {
        **who, "subject": "Ana", "predicate": "uses", "object": f"Zephyrdb{tag}",
        "scope": alpha})
    assert fact.structured_content["relations"][0]["scope"] == alpha
    await _ok(client, "remember_fact", {**who, "subject": "Ana", "predicate": "uses",
                                        "object": f"Zephyrkit{tag}"})  # the user level
    said = await _ok(client, "remember", {
        **who, "content": f"The Zephyr{tag} rollout in the alpha project went well.",
        "scope": alpha, "session_id": f"s-{tag}"})
    episode_id = said.structured_content["episode_id"]

    async def found(query: str, **extra: Any) -> list[str]:
        # entities belong to the user, not to a scope: episodes and relations are scoped
        got = await _ok(client, "recall", {**who, "query": query, "limit": 50,
                                           "kinds": ["episode", "relation"], **extra})
        return [i["text"] for i in got.structured_content["items"]] + [
            i["id"] for i in got.structured_content["items"]]

    query = f"Zephyrdb{tag} Zephyrkit{tag} Zephyr{tag}"
    mine = await found(query, scope=alpha)
    assert any(f"Zephyrdb{tag}" in t for t in mine) and episode_id in mine
    assert any(f"Zephyrkit{tag}" in t for t in mine)  # the user level is seen
    other = await found(query, scope=beta)
    assert not any(f"Zephyrdb{tag}" in t for t in other) and episode_id not in other
    assert any(f"Zephyrkit{tag}" in t for t in other)
    everything = await found(query)
    assert any(f"Zephyrdb{tag}" in t for t in everything) and episode_id in everything
    session = await found(query, session_id=f"s-{tag}", kinds=["episode"])
    assert episode_id in session
    assert episode_id not in await found(query, session_id=f"other-{tag}", kinds=["episode"])
    assert "scope" in await _error(client, "recall", {**who, "query": "x", "scope": "x" * 201})


async def _bad_arguments(client: Client, user: str | None) -> None:
    who = {} if user is None else {"user_id": user}
    assert "limit" in await _error(client, "recall", {**who, "query": "x", "limit": 500})
    assert "query" in await _error(client, "recall", {**who})
    assert "BAD_ARGUMENT as_of" in await _error(client, "recall", {
        **who, "query": "x", "as_of": "next blue moon"})
    assert "kinds" in await _error(client, "recall", {**who, "query": "x",
                                                      "kinds": ["gossip"]})
    assert "content" in await _error(client, "remember", {**who})
    assert "BAD_ARGUMENT valid_until" in await _error(client, "remember_fact", {
        **who, "subject": "a", "predicate": "b", "object": "c", "valid_from": "2024-01-01",
        "valid_until": "2023-01-01"})
    assert "NOT_FOUND" in await _error(client, "history", {
        **who, "relation_id": "rel_000000000000000000000000"})
    assert "NOT_FOUND" in await _error(client, "forget", {**who, "memory_id": "nope"})
    assert "Unknown tool" in await _error(client, "rm_rf", {})


# --------------------------------------------------------------------------- stdio


def test_stdio_session_remembers_recalls_and_reads_history(tmp_path: Path) -> None:
    cmd = graphmem_command()
    params = StdioServerParameters(
        command=cmd[0], args=[*cmd[1:], "mcp", "--user", "ana", "--data-dir",
                              str(tmp_path / "mem")],
        env=child_env(GRAPHMEM_EMBEDDER="hashing", GRAPHMEM_REFLECT_EVERY="0"))

    async def main() -> None:
        async with Client(params, read_timeout_seconds=120) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert names == TOOLS
            recall = next(t for t in (await client.list_tools()).tools if t.name == "recall")
            schema = recall.input_schema
            assert schema["required"] == ["query"]
            assert schema["properties"]["limit"]["maximum"] == 50
            assert recall.output_schema is not None and recall.description
            await _remember_recall_history(client, None)
            await _remember_recall_history(client, "someone-else")
            await _scopes(client, None)
            await _bad_arguments(client, None)
            facts = await client.read_resource("graphmem://users/ana/facts")
            assert "Berlin" in facts.contents[0].text  # type: ignore[union-attr]
            recent = await client.read_resource("graphmem://users/ana/episodes")
            assert "Vue to React" in recent.contents[0].text  # type: ignore[union-attr]
            templates = await client.list_resource_templates()
            assert {t.uri_template for t in templates.resource_templates} == {
                "graphmem://users/{user_id}/facts", "graphmem://users/{user_id}/episodes"}

    anyio.run(main)


# --------------------------------------------------------------------------- HTTP


@pytest.fixture(scope="module")
def live(embedded_store: FalkorStore) -> Iterator[LiveApp]:
    settings = make_settings(api_keys=KEYS, reflect_every=0)
    service = MemoryService(settings, embedded_store, HashingEmbedder(DIM))
    with LiveApp(service, settings) as app:
        yield app


def _http(live: LiveApp, key: str | None) -> Client:
    headers = {"authorization": f"Bearer {key}"} if key else {}
    http = httpx2.AsyncClient(headers=headers, timeout=60)
    return Client(streamable_http_client(f"{live.url}/mcp", http_client=http),
                  read_timeout_seconds=60)


def test_http_session_with_a_key_for_one_user(live: LiveApp) -> None:
    async def main() -> None:
        async with _http(live, "key-ana") as client:
            assert {t.name for t in (await client.list_tools()).tools} == TOOLS
            await _remember_recall_history(client, None)  # the key's one user
            await _scopes(client, None)
            named = await _ok(client, "recall", {"query": "where does Ana live?",
                                                 "user_id": ANA})
            assert "Berlin" in _text(named)
            again = await _ok(client, "remember", {
                "content": "I switched from Vue to React for the dashboard.",
                "occurred_at": "2024-03-01T09:00:00Z", "source_ref": "msg-1",
                "user_id": ANA})
            assert again.structured_content["duplicate"] is True
            await _bad_arguments(client, None)
            facts = await client.read_resource(f"graphmem://users/{ANA}/facts")
            assert "Berlin" in facts.contents[0].text  # type: ignore[union-attr]

    anyio.run(main)


def test_http_key_for_user_a_cannot_touch_user_b(live: LiveApp) -> None:
    async def main() -> None:
        async with _http(live, "key-bob") as bob:
            await _ok(bob, "remember_fact", {"subject": "Bob", "predicate": "likes",
                                             "object": "secret-sauce"})
        async with _http(live, "key-ana") as ana:
            for tool, args in (("recall", {"query": "sauce"}), ("history", {"relation_id": "x"}),
                               ("remember", {"content": "hi"}),
                               ("what_changed", {"since": "2000-01-01"}),
                               ("forget", {"memory_id": "rel_1"}), ("reflect", {})):
                text = await _error(ana, tool, {**args, "user_id": BOB})
                assert text.endswith(f"FORBIDDEN: this API key may not access user {BOB!r}")
                assert "secret-sauce" not in text
            with pytest.raises(MCPError) as e:
                await ana.read_resource(f"graphmem://users/{BOB}/facts")
            assert "FORBIDDEN" in str(e.value) and "secret-sauce" not in str(e.value)
        async with _http(live, "key-all") as admin:  # a key for every user names one
            assert "user_id: required" in await _error(admin, "recall", {"query": "x"})
            got = await _ok(admin, "recall", {"query": "sauce", "user_id": BOB})
            assert "secret-sauce" in _text(got)

    anyio.run(main)


def test_http_without_a_key_reaches_nothing(live: LiveApp) -> None:
    init = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    for headers in ({}, {"authorization": "Bearer wrong"}):
        resp = httpx.post(f"{live.url}/mcp", json=init, timeout=30, headers={
            "accept": "application/json, text/event-stream", **headers})
        assert resp.status_code == 401
        assert resp.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
        assert httpx.get(f"{live.url}/mcp", headers=headers, timeout=30).status_code == 401

    async def main() -> None:
        async with _http(live, None) as client:
            await client.list_tools()

    with pytest.raises(ExceptionGroup) as e:  # the SDK's client: the server refused it
        anyio.run(main)
    assert e.group_contains(MCPError, depth=None)
