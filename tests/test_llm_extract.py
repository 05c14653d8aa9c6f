"""LLMExtractor against the local OpenAI stub: the real ``openai`` client over real HTTP."""

from __future__ import annotations

import json
import random
import re
import socket
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from graphmem.extract import Message
from graphmem.extract.llm import LLMExtractor, parse_json_object
from graphmem.model import ExtractedRelation, Extraction


class FakeRules:
    """A stand-in fallback: one ``said`` relation per message, and a log of its calls."""

    name = "rules"

    def __init__(self) -> None:
        self.calls: list[list[Message]] = []

    def extract(self, messages: list[Message]) -> Extraction:
        self.calls.append(list(messages))
        rels = [
            ExtractedRelation(subject="user", predicate="said", object=m.content, message_index=i)
            for i, m in enumerate(messages)
        ]
        return Extraction(engine="rules", relations=rels)


class Sleeps:
    """Records backoff delays instead of sleeping, so the suite stays fast."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


T0 = datetime(2025, 3, 10, 9, 30, tzinfo=UTC)

GOOD = {
    "entities": [
        {"name": "Neovim", "type": "tool", "aliases": ["nvim"], "message_index": 0},
        {"name": "Berlin", "type": "place", "message_index": 1},
    ],
    "relations": [
        {"subject": "I", "predicate": "prefers", "object": "Neovim",
         "category": "preference:editor", "exclusive": True, "confidence": 0.9,
         "valid_from": None, "stop": False, "statement": "Caroline prefers Neovim",
         "message_index": 0},
        {"subject": "Caroline", "predicate": "Lives In", "object": "Berlin",
         "category": "fact", "exclusive": False, "confidence": 1.4,
         "valid_from": "2025-03-03", "stop": False, "message_index": 1},
    ],
}


def _messages(n: int) -> list[Message]:
    return [Message(content=f"message number {i}", role="user", speaker="Caroline",
                    occurred_at=T0) for i in range(n)]


@pytest.fixture
def make(openai_stub) -> Callable[..., tuple[LLMExtractor, FakeRules, Sleeps]]:  # type: ignore[no-untyped-def]
    made: list[LLMExtractor] = []

    def build(**overrides: Any) -> tuple[LLMExtractor, FakeRules, Sleeps]:
        rules, sleeps = FakeRules(), Sleeps()
        opts: dict[str, Any] = {
            "base_url": openai_stub.base_url, "api_key": "test-key", "model": "stub-model",
            "fallback": rules, "batch_size": 8, "max_retries": 2, "timeout": 2.0,
            "backoff_base": 0.01, "backoff_max": 0.05, "sleep": sleeps, "rng": random.Random(7),
        }
        opts.update(overrides)
        ext = LLMExtractor(**opts)
        made.append(ext)
        return ext, rules, sleeps

    yield build
    for ext in made:
        ext.close()


def _user_prompt(body: dict[str, Any]) -> str:
    return str(body["messages"][1]["content"])


# --------------------------------------------------------------------------- success


def test_good_reply_is_parsed_and_canonicalised(openai_stub, make) -> None:  # type: ignore[no-untyped-def]
    openai_stub.reply(json.dumps(GOOD))
    ext, rules, _ = make()
    msgs = [Message("I now prefer Neovim.", speaker="Caroline", occurred_at=T0),
            Message("I moved to Berlin last week.", speaker="Caroline", occurred_at=T0)]
    out = ext.extract(msgs)

    assert out.engine == "llm" and out.error is None
    assert rules.calls == []
    assert [e.name for e in out.entities] == ["Neovim", "Berlin"]
    assert out.entities[0].aliases == ["nvim"] and out.entities[1].message_index == 1
    pref, home = out.relations
    assert (pref.subject, pref.predicate, pref.object) == ("Caroline", "prefers", "Neovim")
    assert pref.category == "preference:editor" and pref.exclusive and pref.confidence == 0.9
    assert pref.statement == "Caroline prefers Neovim"
    assert (home.predicate, home.category, home.exclusive) == ("lives_in", "identity", True)
    assert home.confidence == 1.0  # clamped
    assert home.valid_from == datetime(2025, 3, 3, tzinfo=UTC)
    assert home.message_index == 1

    body = openai_stub.bodies[0]
    assert body["model"] == "stub-model"
    assert body["response_format"] == {"type": "json_object"}
    prompt = _user_prompt(body)
    assert "[0] 2025-03-10T09:30:00+00:00 | Caroline (user): I now prefer Neovim." in prompt
    assert "[1]" in prompt
    assert "preference:<domain>" in body["messages"][0]["content"]


def test_subjects_categories_and_slots(openai_stub, make) -> None:  # type: ignore[no-untyped-def]
    rel = {"subject": "I", "message_index": 0}
    openai_stub.reply(json.dumps({"entities": [], "relations": [
        {**rel, "subject": "me", "predicate": "uses", "object": "Rust", "category": "fact",
         "exclusive": True},
        {**rel, "subject": "我", "predicate": "likes", "object": "咖啡",
         "category": "preference:drink", "exclusive": False, "message_index": 1},
        {**rel, "predicate": "likes", "object": "hiking", "category": "preference",
         "exclusive": True, "message_index": 1},
        {**rel, "predicate": "prefers", "object": "tabs", "category": "fact", "exclusive": True,
         "message_index": 1},
        {**rel, "predicate": "uses", "object": "Neovim", "category": "tool:editor"},
        {**rel, "predicate": "plans_to", "object": "learn Go", "category": "plan",
         "exclusive": True, "valid_from": "2026-01-01"},
        {**rel, "predicate": "uses", "object": "Postgres", "category": "tool:database"},
        {**rel, "predicate": "uses", "object": "SQLite", "category": "tool:database"},
        {**rel, "predicate": "uses", "object": "SQLite", "category": "tool:database",
         "confidence": 0.95},                                  # a duplicate: the surer wins
        {**rel, "predicate": "likes", "object": "jokes", "message_index": 2},  # assistant
        {**rel, "subject": "Caroline", "predicate": "works_at", "object": "ACME",
         "message_index": 2},
    ]}))
    ext, _, _ = make()
    out = ext.extract([Message("I use Rust"), Message("我喜欢咖啡", role="user"),
                       Message("I like jokes. Caroline works at ACME", role="assistant")])
    got = {(r.object): (r.subject, r.predicate, r.category, r.exclusive) for r in out.relations}
    assert got["Rust"] == ("user", "uses", "tool", False)
    # a liking within a domain is that slot's preference, exclusive like the rule engine's
    assert got["咖啡"] == ("user", "prefers", "preference:drink", True)
    # no domain: no single-choice slot, so never exclusive
    assert got["hiking"] == ("user", "likes", "preference", False)
    assert got["tabs"] == ("user", "prefers", "preference", False)
    assert got["Neovim"] == ("user", "uses", "tool:editor", True)
    assert got["learn Go"] == ("user", "plans_to", "plan", False)
    # two databases named in one message hold at once: not exclusive
    assert got["Postgres"] == got["SQLite"] == ("user", "uses", "tool:database", False)
    assert [r.confidence for r in out.relations if r.object == "SQLite"] == [0.95]
    assert "jokes" not in got  # an unnamed assistant's first person is not memory
    assert got["ACME"] == ("Caroline", "works_at", "work", True)
    assert next(r for r in out.relations if r.object == "learn Go").valid_from is None
    assert ext.stats.dropped_items == 1
    assert "| user: I use Rust" in _user_prompt(openai_stub.bodies[0])
    assert "| assistant: I like jokes" in _user_prompt(openai_stub.bodies[0])


def test_batches_map_message_index_back(openai_stub, make) -> None:  # type: ignore[no-untyped-def]
    def per_message(messages: list[dict[str, Any]]) -> str:
        lines = re.findall(r"^\[(\d+)\] [^|]*\| [^:]*: (.*)$", messages[1]["content"], re.M)
        rels = [{"subject": "I", "predicate": "said", "object": text, "message_index": int(i)}
                for i, text in lines]
        return json.dumps({"entities": [], "relations": rels})

    openai_stub.default_reply = per_message
    ext, _, _ = make(batch_size=4)
    msgs = _messages(10)
    out = ext.extract(msgs)
    assert openai_stub.requests["chat"] == 3  # ceil(10 / 4)
    assert out.engine == "llm" and out.llm_calls == 3
    assert [r.message_index for r in out.relations] == list(range(10))
    assert [r.object for r in out.relations] == [m.content for m in msgs]
    assert [len(re.findall(r"^\[\d+\]", _user_prompt(b), re.M)) for b in openai_stub.bodies] \
        == [4, 4, 2]


def test_empty_window_makes_no_call(openai_stub, make) -> None:  # type: ignore[no-untyped-def]
    ext, _, _ = make()
    out = ext.extract([])
    assert out.engine == "llm" and out.llm_calls == 0 and openai_stub.requests["chat"] == 0


@pytest.mark.parametrize("wrap", [
    "```json\n{body}\n```",
    "```\n{body}\n```",
    "Here is the JSON you asked for:\n```json\n{body}\n```\nHope it helps.",
    "Sure! {body}",
])
def test_code_fenced_json(openai_stub, make, wrap: str) -> None:  # type: ignore[no-untyped-def]
    openai_stub.reply(wrap.replace("{body}", json.dumps(GOOD)))
    ext, _, _ = make()
    out = ext.extract(_messages(2))
    assert out.engine == "llm" and len(out.relations) == 2 and out.llm_calls == 1


def test_invalid_items_are_dropped_and_counted(openai_stub, make) -> None:  # type: ignore[no-untyped-def]
    openai_stub.reply(json.dumps({
        "entities": [{"name": ""}, {"name": "Ok", "message_index": 0}, "junk",
                     {"name": "Far", "message_index": 9}],
        "relations": [
            {"subject": "I", "predicate": "uses", "object": "Go", "message_index": 0},
            {"subject": "I", "predicate": "uses"},                       # no object
            {"subject": "I", "predicate": "uses", "object": "X", "valid_from": "someday"},
            {"subject": "I", "predicate": "!!!", "object": "X"},          # empty predicate
            {"subject": "I", "predicate": "uses", "object": "Y", "message_index": 5},
        ],
    }))
    ext, _, _ = make()
    out = ext.extract(_messages(1))
    assert out.engine == "llm"
    assert [e.name for e in out.entities] == ["Ok"]
    assert [r.object for r in out.relations] == ["Go"]
    assert ext.stats.dropped_items == 7


# --------------------------------------------------------------------------- repair and fallback


def test_malformed_json_is_repaired(openai_stub, make) -> None:  # type: ignore[no-untyped-def]
    openai_stub.reply('{"entities": [], "relations": [')
    openai_stub.reply(json.dumps(GOOD))
    ext, rules, _ = make()
    out = ext.extract(_messages(2))
    assert out.engine == "llm" and out.error is None and len(out.relations) == 2
    assert out.llm_calls == 2 and ext.stats.repairs == 1 and rules.calls == []
    repair = openai_stub.bodies[1]["messages"]
    assert repair[2] == {"role": "assistant", "content": '{"entities": [], "relations": ['}
    assert "not valid JSON" in repair[3]["content"]


def test_malformed_json_twice_falls_back(openai_stub, make) -> None:  # type: ignore[no-untyped-def]
    openai_stub.reply("this is not json at all")
    openai_stub.reply('["a list", "not an object"]')
    ext, rules, _ = make()
    msgs = _messages(3)
    out = ext.extract(msgs)
    assert openai_stub.requests["chat"] == 2
    assert out.engine == "fallback"
    assert out.error is not None and out.error.startswith("invalid JSON:")
    assert "not an object" in out.error
    assert rules.calls == [msgs]
    assert [r.object for r in out.relations] == [m.content for m in msgs]
    assert out.llm_calls == 2 and ext.stats.fallbacks == 1


def test_429_then_success_honours_retry_after(openai_stub, make) -> None:  # type: ignore[no-untyped-def]
    openai_stub.fail(429, retry_after=0.02)
    openai_stub.reply(json.dumps(GOOD))
    ext, rules, sleeps = make()
    out = ext.extract(_messages(2))
    assert out.engine == "llm" and out.error is None and rules.calls == []
    assert out.llm_calls == 2 and ext.stats.retries == 1
    assert sleeps.delays == [pytest.approx(0.02)]


def test_retry_after_is_capped(openai_stub, make) -> None:  # type: ignore[no-untyped-def]
    openai_stub.fail(503, retry_after=3600)
    openai_stub.reply(json.dumps(GOOD))
    ext, _, sleeps = make(retry_after_max=0.05)
    assert ext.extract(_messages(1)).engine == "llm"
    assert sleeps.delays == [0.05]


def test_500_every_time_falls_back(openai_stub, make) -> None:  # type: ignore[no-untyped-def]
    openai_stub.fail(500, times=3)
    ext, rules, sleeps = make(max_retries=2, backoff_base=0.01, backoff_max=0.015)
    out = ext.extract(_messages(2))
    assert openai_stub.requests["chat"] == 3 and openai_stub.pending() == 0
    assert out.engine == "fallback" and out.error == "HTTP 500 after 2 retries"
    assert len(rules.calls) == 1 and len(out.relations) == 2
    assert out.llm_calls == 3
    # exponential with jitter in [0.5, 1] x base * 2**attempt, capped
    assert len(sleeps.delays) == 2
    assert 0.005 <= sleeps.delays[0] <= 0.01 and 0.0075 <= sleeps.delays[1] <= 0.015


def test_non_retryable_status_falls_back_at_once(openai_stub, make) -> None:  # type: ignore[no-untyped-def]
    openai_stub.fail(401)
    ext, rules, sleeps = make()
    out = ext.extract(_messages(1))
    assert out.engine == "fallback" and out.error is not None
    assert out.error.startswith("HTTP 401")
    assert openai_stub.requests["chat"] == 1 and sleeps.delays == []


@pytest.mark.parametrize(("body", "reason"), [
    ("<html>bad gateway</html>", "invalid response body"),
    ('{"object": "chat.completion", "choices": []}', "reply has no choices"),
])
def test_broken_http_body_falls_back(openai_stub, make, body: str, reason: str) -> None:  # type: ignore[no-untyped-def]
    openai_stub.raw(body)
    ext, rules, _ = make()
    out = ext.extract(_messages(1))
    assert out.engine == "fallback" and out.error is not None and out.error.startswith(reason)
    assert len(rules.calls) == 1 and openai_stub.requests["chat"] == 1


def test_timeout_falls_back(openai_stub, make) -> None:  # type: ignore[no-untyped-def]
    openai_stub.slow(2.0, json.dumps(GOOD), times=2)
    ext, rules, _ = make(timeout=0.25, max_retries=1)
    out = ext.extract(_messages(2))
    assert out.engine == "fallback" and out.error == "timeout after 1 retries"
    assert len(rules.calls) == 1 and out.llm_calls == 2


def test_connection_error_falls_back() -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    rules, sleeps = FakeRules(), Sleeps()
    ext = LLMExtractor(base_url=f"http://127.0.0.1:{port}/v1", api_key="k", model="m",
                       fallback=rules, max_retries=1, timeout=1.0, sleep=sleeps)
    out = ext.extract(_messages(1))
    ext.close()
    assert out.engine == "fallback" and out.error is not None
    assert out.error.startswith("connection error") and out.error.endswith("after 1 retries")
    assert len(sleeps.delays) == 1


def test_time_budget_stops_retries(openai_stub, make) -> None:  # type: ignore[no-untyped-def]
    openai_stub.fail(429, retry_after=10, times=5)
    ext, _, sleeps = make(max_retries=4, total_timeout=1.0)
    out = ext.extract(_messages(1))
    assert out.engine == "fallback" and out.error is not None and "time budget" in out.error
    assert sleeps.delays == [] and openai_stub.requests["chat"] == 1


def test_one_failed_batch_keeps_the_others(openai_stub, make) -> None:  # type: ignore[no-untyped-def]
    ok = json.dumps({"entities": [], "relations": [
        {"subject": "I", "predicate": "uses", "object": "Go", "message_index": 1}]})
    openai_stub.reply(ok)
    openai_stub.fail(400)
    openai_stub.reply(ok)
    ext, rules, _ = make(batch_size=2)
    msgs = _messages(6)
    out = ext.extract(msgs)
    assert out.engine == "fallback" and out.error is not None
    assert out.error.startswith("batch 2: HTTP 400")
    assert rules.calls == [msgs[2:4]]
    assert [(r.predicate, r.message_index) for r in out.relations] == [
        ("uses", 1), ("said", 2), ("said", 3), ("uses", 5)]


# --------------------------------------------------------------------------- accounting


def test_tokens_are_counted_from_usage(openai_stub, make) -> None:  # type: ignore[no-untyped-def]
    openai_stub.reply("{broken")
    openai_stub.reply(json.dumps(GOOD))
    openai_stub.reply(json.dumps(GOOD))
    ext, _, _ = make(batch_size=3)
    out = ext.extract(_messages(5))
    assert out.llm_calls == 3 == openai_stub.requests["chat"]
    assert out.prompt_tokens == openai_stub.prompt_tokens > 0
    assert out.completion_tokens == openai_stub.completion_tokens > 0
    assert ext.stats.prompt_tokens == out.prompt_tokens
    assert ext.stats.calls == 3


def test_parse_json_object() -> None:
    assert parse_json_object('{"relations": []}') == {"relations": []}
    assert parse_json_object('```json\n{"entities": []}\n```') == {"entities": []}
    for bad in ["", "   ", "[]", '{"facts": []}', "{nope"]:
        with pytest.raises(ValueError):
            parse_json_object(bad)


def test_rule_engine_as_fallback(openai_stub) -> None:  # type: ignore[no-untyped-def]
    rules_mod = pytest.importorskip("graphmem.extract.rules")
    openai_stub.fail(503, times=2)
    ext = LLMExtractor(base_url=openai_stub.base_url, api_key="k", model="m",
                       fallback=rules_mod.RuleExtractor(), max_retries=1, sleep=Sleeps())
    try:
        out = ext.extract([Message("I live in Berlin.", speaker="Caroline")])
    finally:
        ext.close()
    assert out.engine == "fallback" and out.error == "HTTP 503 after 1 retries"
    assert [(r.subject, r.predicate, r.object) for r in out.relations] == [
        ("Caroline", "lives_in", "Berlin")]
