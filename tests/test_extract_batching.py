"""The LLM engine batches several episodes per request (``extract_many``, used by
``addEpisodes``), validates the answer per episode and never half-applies one: against the
local OpenAI stub, the real ``openai`` client over real HTTP, the real rule engine behind."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from graphmem.embed import HashingEmbedder
from graphmem.extract import Message, extract_windows
from graphmem.extract._llm_versions import VERSION_PROMPT
from graphmem.extract.llm import LLMExtractor
from graphmem.extract.rules import RuleExtractor
from graphmem.inputs import EpisodeIn
from graphmem.service import MemoryService
from tests.conftest import DIM, make_settings

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
_LINE = re.compile(r"^\[(\d+)\] [^|]*\| [^:]*: .*?(\w+)\W*$")


def _relations(lines: list[str], tag: str = "") -> list[dict[str, Any]]:
    out = []
    for line in lines:
        m = _LINE.match(line)
        if m:
            out.append({"subject": "I", "predicate": "likes", "object": tag + m.group(2),
                        "category": "preference", "message_index": int(m.group(1))})
    return out


def model(messages: list[dict[str, Any]]) -> str:
    """Answers like a model would: one ``likes`` per numbered message (its last word), per
    episode when the request holds several; no version links."""
    if messages[0]["content"] == VERSION_PROMPT:
        return json.dumps({"links": []})
    prompt = str(messages[-1]["content"])
    if "Episode 0:" not in prompt:
        return json.dumps({"entities": [], "relations": _relations(prompt.splitlines())})
    blocks = re.split(r"^Episode (\d+):$", prompt, flags=re.M)
    return json.dumps({"episodes": [
        {"episode": int(blocks[k]), "entities": [],
         "relations": _relations(blocks[k + 1].splitlines())}
        for k in range(1, len(blocks) - 1, 2)]})


@pytest.fixture
def llm(openai_stub) -> Iterator[LLMExtractor]:  # type: ignore[no-untyped-def]
    openai_stub.default_reply = model
    ext = LLMExtractor(base_url=openai_stub.base_url, api_key="k", model="stub",
                       fallback=RuleExtractor(), batch_size=8, max_retries=1, timeout=5.0,
                       backoff_base=0.01, backoff_max=0.02)
    yield ext
    ext.close()


def windows(n: int, start: int = 0) -> list[list[Message]]:
    return [[Message(f"I like drink{i}", role="user", speaker="Ana", occurred_at=T0)]
            for i in range(start, start + n)]


def objects(result: Any) -> list[str]:
    return [r.object for r in result.relations]


def test_several_episodes_per_request_each_gets_its_own(openai_stub, llm) -> None:  # type: ignore[no-untyped-def]
    out = llm.extract_many(windows(10))
    assert openai_stub.requests["chat"] == 2  # 8 + 2 single-message episodes
    assert [objects(r) for r in out] == [[f"drink{i}"] for i in range(10)]
    assert all(r.relations[0].subject == "Ana" and r.relations[0].message_index == 0
               for r in out)
    assert sum(r.llm_calls for r in out) == 2
    assert sum(r.prompt_tokens for r in out) == openai_stub.prompt_tokens
    assert sum(r.completion_tokens for r in out) == openai_stub.completion_tokens
    prompt = openai_stub.bodies[0]["messages"][1]["content"]
    assert "Episode 7:" in prompt and "Episode 8:" not in prompt


def test_fewer_calls_and_tokens_than_one_request_per_episode(openai_stub, llm) -> None:  # type: ignore[no-untyped-def]
    batch = windows(16)
    before = [llm.extract(w) for w in batch]
    calls_before, tokens_before = openai_stub.requests["chat"], openai_stub.prompt_tokens
    after = llm.extract_many(batch)
    calls_after = openai_stub.requests["chat"] - calls_before
    tokens_after = openai_stub.prompt_tokens - tokens_before
    print(f"calls/episode {calls_before / 16:.2f} -> {calls_after / 16:.3f}; prompt tokens/"
          f"episode {tokens_before / 16:.0f} -> {tokens_after / 16:.0f}")
    assert calls_before == 16 and calls_after == 2
    assert tokens_after * 3 < tokens_before
    assert [objects(r) for r in after] == [objects(r) for r in before]


def test_an_invalid_part_is_not_half_applied_but_retried_alone(openai_stub, llm) -> None:  # type: ignore[no-untyped-def]
    parts = [{"episode": e, "relations": [{"subject": "I", "predicate": "likes",
                                           "object": f"batch{e}", "message_index": 0}]}
             for e in range(4)]
    parts[2]["relations"].append({"subject": "I", "predicate": "likes"})  # no object
    openai_stub.reply(json.dumps({"episodes": parts}))
    out = llm.extract_many(windows(4))
    assert openai_stub.requests["chat"] == 2  # the batch, then episode 2 alone
    assert [objects(r) for r in out] == [["batch0"], ["batch1"], ["drink2"], ["batch3"]]
    assert llm.stats.solo_retries == 1 and llm.stats.batched_episodes == 4
    alone = openai_stub.bodies[1]["messages"][1]["content"]
    assert "I like drink2" in alone and "drink1" not in alone and "Episode" not in alone


def test_a_missing_or_misshapen_part_is_retried_alone(openai_stub, llm) -> None:  # type: ignore[no-untyped-def]
    openai_stub.reply(json.dumps({"episodes": [
        {"episode": 0, "relations": []},
        {"episode": 2, "relations": "not a list"}]}))
    out = llm.extract_many(windows(3))
    assert openai_stub.requests["chat"] == 3  # episodes 1 and 2 again, alone
    assert [objects(r) for r in out] == [[], ["drink1"], ["drink2"]]


def test_an_unreadable_reply_is_repaired_once_then_each_episode_alone(openai_stub, llm) -> None:  # type: ignore[no-untyped-def]
    openai_stub.reply("no json here")
    openai_stub.reply('{"relations": []}')  # JSON, but not the batch shape
    out = llm.extract_many(windows(3))
    assert openai_stub.requests["chat"] == 2 + 3
    assert "episodes" in openai_stub.bodies[1]["messages"][-1]["content"]
    assert [objects(r) for r in out] == [["drink0"], ["drink1"], ["drink2"]]
    assert all(r.engine == "llm" for r in out)


def test_a_failed_request_falls_back_to_the_rules_for_each_episode(openai_stub, llm) -> None:  # type: ignore[no-untyped-def]
    openai_stub.fail(400)
    texts = ["I like Vue.", "I live in Lisbon.", "ok thanks!"]
    out = llm.extract_many([[Message(t, occurred_at=T0)] for t in texts])
    assert openai_stub.requests["chat"] == 1
    assert [r.engine for r in out] == ["fallback"] * 3 and "HTTP 400" in (out[0].error or "")
    assert [[(x.predicate, x.object) for x in r.relations] for r in out] == [
        [("prefers", "Vue")], [("lives_in", "Lisbon")], []]
    assert llm.stats.fallbacks == 3


def test_a_long_episode_goes_alone_and_order_is_kept(openai_stub, llm) -> None:  # type: ignore[no-untyped-def]
    long = [Message(f"I like long{i}", occurred_at=T0) for i in range(10)]
    out = llm.extract_many([*windows(2), long, *windows(2, start=2)])
    assert [objects(r) for r in out] == [
        ["drink0"], ["drink1"], [f"long{i}" for i in range(10)], ["drink2"], ["drink3"]]
    assert [r.message_index for r in out[2].relations] == list(range(10))


def test_other_engines_are_asked_window_by_window() -> None:
    out = extract_windows(RuleExtractor(), [[Message("I like Vue.")], [Message("hi")]])
    assert [len(r.relations) for r in out] == [1, 0]


def test_add_episodes_makes_at_most_one_call_per_five_episodes(  # type: ignore[no-untyped-def]
        openai_stub, llm, embedded_store, user) -> None:
    service = MemoryService(make_settings(), embedded_store, HashingEmbedder(DIM),
                            extractor=llm)
    episodes = [EpisodeIn(user_id=user, occurred_at=T0 + timedelta(hours=i),
                          content=f"I like drink{i}", role="user", source_ref=f"m{i}")
                for i in range(20)]
    results = service.add_episodes(episodes)
    # three extraction requests (8 + 8 + 4 episodes) and one for the version links
    assert llm.stats.version_requests == 1
    assert openai_stub.requests["chat"] / len(episodes) <= 0.2
    assert [[r.statement for r in res.relations] for res in results] == [
        [f"user likes drink{i}"] for i in range(20)]
    stored = service.relations(user, predicate="likes")
    assert {r.object: r.source_refs for r in stored}["drink7"] == ["m7"]
