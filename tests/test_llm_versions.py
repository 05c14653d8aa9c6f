"""Version links proposed by the model (``graphmem.extract._llm_versions``): with the LLM
engine, a change said only by its sense ("the bed of my Tacoma" after "I drive a Civic")
is linked like one the rules read. Against the local OpenAI stub over real HTTP, the real
``openai`` client, the embedded store, and once through the real server; the attacks try
to make the model link what it must not: numbers it was never shown, two old messages,
another tenant's messages, a message forgotten meanwhile, secrets in the prompt."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from graphmem.embed import HashingEmbedder
from graphmem.extract._llm_versions import (
    VERSION_PROMPT,
    Shown,
    VersionAsk,
    build_version_messages,
    pack_asks,
    parse_versions,
)
from graphmem.extract.llm import LLMExtractor
from graphmem.extract.rules import RuleExtractor
from graphmem.inputs import EpisodeIn
from graphmem.service import MemoryService

from .conftest import DIM, FakeClock, make_settings
from .test_api_attack import LiveServer

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
CIVIC = "I drive a silver Honda Civic to work every day, it's been reliable."
TACOMA = ("Can you help me work out how many bags of mulch fit in the bed of my Tacoma? "
          "It's about five feet long.")
_LINE = re.compile(r"^\[(\d+)\] (?:\S+ \S+|\?)( NEW)?: (.*)$")

# (words of the newer message, words of the older, kind, fact, old value, new value)
Rule = tuple[str, str, str, str, str, str]
CAR: Rule = ("Tacoma", "Civic", "same_fact", "car", "Honda Civic", "Tacoma")


def is_version_request(messages: list[dict[str, Any]]) -> bool:
    return messages[0]["content"] == VERSION_PROMPT


def lines_of(messages: list[dict[str, Any]]) -> list[tuple[int, bool, str]]:
    out = []
    for line in str(messages[-1]["content"]).splitlines():
        m = _LINE.match(line)
        if m:
            out.append((int(m.group(1)), bool(m.group(2)), m.group(3)))
    return out


def empty_extraction(messages: list[dict[str, Any]]) -> str:
    prompt = str(messages[-1]["content"])
    n = len(re.findall(r"^Episode \d+:$", prompt, flags=re.M))
    if n:
        return json.dumps({"episodes": [{"episode": k, "entities": [], "relations": []}
                                        for k in range(n)]})
    return json.dumps({"entities": [], "relations": []})


def model(*rules: Rule, on_versions: Callable[[], None] | None = None
          ) -> Callable[[list[dict[str, Any]]], str]:
    """Answers like a model would: extraction empty; a version request links the shown
    messages a rule names (the newer by its words, the older by its)."""
    def reply(messages: list[dict[str, Any]]) -> str:
        if not is_version_request(messages):
            return empty_extraction(messages)
        if on_versions is not None:
            on_versions()
        shown = lines_of(messages)
        links = []
        for newer, older, kind, fact, old, new in rules:
            a = [n for n, _, text in shown if newer in text]
            b = [n for n, _, text in shown if older in text]
            if a and b:
                links.append({"a": a[0], "b": b[0], "kind": kind, "fact": fact,
                              "old": old, "new": new})
        return json.dumps({"links": links})
    return reply


@pytest.fixture
def llm(openai_stub: Any) -> Iterator[LLMExtractor]:
    ext = LLMExtractor(base_url=openai_stub.base_url, api_key="k", model="stub",
                       fallback=RuleExtractor(), batch_size=8, max_retries=1, timeout=5.0,
                       backoff_base=0.01, backoff_max=0.02)
    yield ext
    ext.close()


def make(store: Any, llm: LLMExtractor, **overrides: Any) -> MemoryService:
    return MemoryService(make_settings(**overrides), store, HashingEmbedder(DIM),
                         extractor=llm, clock=FakeClock())


def add(service: MemoryService, user: str, content: str, days: int, ref: str,
        role: str = "user") -> str:
    return service.add_episode(EpisodeIn(user_id=user, content=content, role=role,
                                         occurred_at=T0 + timedelta(days=days),
                                         source_ref=ref)).episode.id


def edges(service: MemoryService, user: str, ids: list[str]) -> set[tuple[str, str, str]]:
    return {(e["type"], e["src"], e["dst"]) for e in service.store.episode_versions(user, ids)}


def version_bodies(stub: Any) -> list[str]:
    return [json.dumps(b["messages"], ensure_ascii=False) for b in stub.bodies
            if is_version_request(b["messages"])]


# --------------------------------------------------------------------------- prompt and reply


def _ask(new: tuple[str, str, int], *others: tuple[str, str, int]) -> VersionAsk:
    return VersionAsk(Shown(*new), tuple(Shown(*o) for o in others))


def test_messages_are_shown_once_oldest_first_with_the_new_ones_marked() -> None:
    asks = [_ask(("n1", "I drive a Tacoma now", 5000), ("o1", "I drive a Civic", 1000),
                 ("o2", "My rent is 900", 2000)),
            _ask(("n2", "Rent is 950 from May", 6000), ("o2", "My rent is 900", 2000))]
    chat = build_version_messages(asks)
    assert chat[0]["content"] == VERSION_PROMPT
    assert [(n, new, text) for n, new, text in lines_of(chat)] == [
        (0, False, "I drive a Civic"), (1, False, "My rent is 900"),
        (2, True, "I drive a Tacoma now"), (3, True, "Rent is 950 from May")]


def test_reply_names_pairs_by_number_and_the_new_message_is_the_one_asked_for() -> None:
    asks = [_ask(("n1", "a", 5000), ("o1", "b", 1000), ("o2", "c", 2000)),
            _ask(("n2", "d", 6000), ("o2", "c", 2000))]
    # shown: 0 o1, 1 o2, 2 n1, 3 n2
    reply = json.dumps({"links": [
        {"a": 0, "b": 2, "kind": "same_fact", "fact": "car", "old": "Civic", "new": "Tacoma"},
        {"a": 3, "b": 1, "kind": "contradicts"},
        {"a": 2, "b": 3, "kind": "same_fact"},  # two new ones: the later is the new one
    ]})
    found, dropped = parse_versions(reply, asks)
    assert dropped == 0
    assert [(p.new_id, p.other_id, p.kind, p.reason) for p in found] == [
        ("n1", "o1", "SUPERSEDES", "model: car: Civic -> Tacoma"),
        ("n2", "o2", "DISPUTED", "model"),
        ("n2", "n1", "SUPERSEDES", "model")]


@pytest.mark.parametrize("link", [
    {"a": 0, "b": 1, "kind": "same_fact"},  # two old messages
    {"a": 3, "b": 0, "kind": "same_fact"},  # n2 was never shown with o1
    {"a": 2, "b": 2, "kind": "same_fact"},  # a message with itself
    {"a": 2, "b": 9, "kind": "same_fact"},  # a number never shown
    {"a": -1, "b": 2, "kind": "same_fact"},
    {"a": True, "b": 2, "kind": "same_fact"},
    {"a": "0", "b": 2, "kind": "same_fact"},
    {"a": 0, "b": 2, "kind": "replaces"},  # an unknown kind
    {"a": 0, "b": 2},
    "0-2",
])
def test_links_the_model_may_not_make_are_dropped_and_counted(link: Any) -> None:
    asks = [_ask(("n1", "a", 5000), ("o1", "b", 1000), ("o2", "c", 2000)),
            _ask(("n2", "d", 6000), ("o2", "c", 2000))]
    found, dropped = parse_versions(json.dumps({"links": [link]}), asks)
    assert (found, dropped) == ([], 1)


def test_at_most_three_links_per_new_message_and_long_fields_are_cut() -> None:
    asks = [_ask(("n", "x", 9000), *[(f"o{k}", "y", 1000 + k) for k in range(5)])]
    reply = json.dumps({"links": [{"a": 5, "b": k, "kind": "same_fact", "fact": "f" * 500}
                                  for k in range(5)]})
    found, dropped = parse_versions(reply, asks)
    assert len(found) == 3 and dropped == 2
    assert all(len(p.reason) < 100 for p in found)


@pytest.mark.parametrize("reply", ["", "nope", "[]", '{"items": []}', '{"links": {}}'])
def test_a_reply_without_a_links_list_is_invalid(reply: str) -> None:
    with pytest.raises(ValueError):
        parse_versions(reply, [_ask(("n", "x", 2), ("o", "y", 1))])


def test_asks_are_packed_within_the_budget_counting_shared_messages_once() -> None:
    shared = [("o1", "s" * 300, 1), ("o2", "t" * 300, 2)]
    asks = [_ask((f"n{k}", "n" * 100, 10 + k), *shared) for k in range(6)]
    # each message counts its text and 24 characters of number and time
    packs = pack_asks(asks, budget=1400)  # 2 * 324 + 6 * 124 = 1392; apart: 772 each
    assert [len(p) for p in packs] == [6]
    packs = pack_asks(asks, budget=900)
    assert [len(p) for p in packs] == [2, 2, 2]
    assert [a.new.id for p in packs for a in p] == [f"n{k}" for k in range(6)]


# --------------------------------------------------------------------------- through the write


def test_a_change_said_only_by_its_sense_is_linked_and_recall_marks_it(  # type: ignore[no-untyped-def]
        openai_stub, llm, embedded_store, user) -> None:
    openai_stub.default_reply = model(CAR)
    service = make(embedded_store, llm, api_keys={"key-a": [user]})
    civic = add(service, user, CIVIC, 0, "m1")
    add(service, user, "Can you explain how index funds work?", 10, "m2")
    tacoma = add(service, user, TACOMA, 90, "m3")
    assert edges(service, user, [civic]) == {("SUPERSEDES", tacoma, civic)}
    row = service.store.episode_versions(user, [civic])[0]
    assert row["reason"] == "model: car: Honda Civic -> Tacoma"
    assert llm.stats.version_requests >= 1 and llm.stats.version_failures == 0
    query = """query($u: ID!) { recall(input: {userId: $u, query: "What car do I drive now?",
      referenceTime: "2025-07-01T00:00:00Z", kinds: [EPISODE], limit: 5}) {
        items { id status supersededBy versionNote } } }"""
    with LiveServer(service, service.settings) as server:
        status, out = server.post(query, {"u": user})
    assert status == 200 and not out.get("errors"), out
    items = {i["id"]: i for i in out["data"]["recall"]["items"]}
    assert items[civic]["status"] == "SUPERSEDED" and items[civic]["supersededBy"] == [tacoma]
    assert "Civic -> Tacoma" in items[civic]["versionNote"]
    ranked = list(items)
    assert ranked.index(tacoma) < ranked.index(civic)


def test_without_the_model_the_rules_do_not_link_that_change(  # type: ignore[no-untyped-def]
        openai_stub, llm, embedded_store, user) -> None:
    openai_stub.default_reply = model(CAR)
    service = make(embedded_store, llm, llm_versions=False)
    civic = add(service, user, CIVIC, 0, "m1")
    add(service, user, TACOMA, 90, "m3")
    assert edges(service, user, [civic]) == set()
    assert version_bodies(openai_stub) == []


def test_an_older_message_arriving_later_is_still_the_earlier_version(  # type: ignore[no-untyped-def]
        openai_stub, llm, embedded_store, user) -> None:
    openai_stub.default_reply = model(("Civic", "Tacoma", "same_fact", "car", "", ""))
    service = make(embedded_store, llm)
    tacoma = add(service, user, TACOMA, 90, "m3")
    civic = add(service, user, CIVIC, 0, "m1")  # said first, sent last
    assert edges(service, user, [civic]) == {("SUPERSEDES", tacoma, civic)}


def test_a_contradiction_from_the_model_is_a_dispute(  # type: ignore[no-untyped-def]
        openai_stub, llm, embedded_store, user) -> None:
    openai_stub.default_reply = model(("Osaka", "Japan", "contradicts", "been to Japan",
                                       "never", "lived in Osaka"))
    service = make(embedded_store, llm)
    never = add(service, user, "Fun fact about me: I've never set foot in Japan.", 0, "a")
    osaka = add(service, user, "Back when I lived in Osaka I ate okonomiyaki weekly.", 50, "b")
    assert edges(service, user, [never]) == {("DISPUTED", osaka, never)}


def test_a_batch_is_asked_in_one_request_and_links_within_itself(  # type: ignore[no-untyped-def]
        openai_stub, llm, embedded_store, user) -> None:
    openai_stub.default_reply = model(CAR)
    service = make(embedded_store, llm)
    texts = [CIVIC] + [f"Remind me to water the plants on day {k}." for k in range(8)] \
        + [TACOMA]
    results = service.add_episodes([
        EpisodeIn(user_id=user, content=t, role="user", source_ref=f"m{k}",
                  occurred_at=T0 + timedelta(days=k)) for k, t in enumerate(texts)])
    civic, tacoma = results[0].episode.id, results[-1].episode.id
    assert edges(service, user, [civic]) == {("SUPERSEDES", tacoma, civic)}
    assert len(version_bodies(openai_stub)) == 1


# --------------------------------------------------------------------------- attacks


@pytest.mark.parametrize("links", [
    [{"a": 0, "b": 1, "kind": "same_fact"}],  # both old: neither is new
    [{"a": 7, "b": 0, "kind": "same_fact"}],  # a number never shown
    [{"a": 2, "b": 2, "kind": "same_fact"}],
    [{"a": 2, "b": 0, "kind": "supersedes"}],
])
def test_links_to_messages_never_shown_or_among_old_ones_are_not_written(  # type: ignore[no-untyped-def]
        openai_stub, llm, embedded_store, user, links) -> None:
    service = make(embedded_store, llm)
    first = add(service, user, CIVIC, 0, "m1")
    second = add(service, user, "I walk to work on sunny days, it takes 20 minutes.", 5, "m2")

    def reply(messages: list[dict[str, Any]]) -> str:
        return json.dumps({"links": links}) if is_version_request(messages) \
            else empty_extraction(messages)

    openai_stub.default_reply = reply
    new = add(service, user, TACOMA, 90, "m3")
    assert edges(service, user, [first, second, new]) == set()
    assert llm.stats.dropped_items >= 1


def test_a_failing_model_keeps_the_write_and_the_rules_links(  # type: ignore[no-untyped-def]
        openai_stub, llm, embedded_store, user) -> None:
    service = make(embedded_store, llm)
    old = add(service, user, "Our rent is 1200 dollars a month, the biggest line.", 0, "a")

    def reply(messages: list[dict[str, Any]]) -> str:
        return "the model wandered off" if is_version_request(messages) \
            else empty_extraction(messages)

    openai_stub.default_reply = reply
    new = add(service, user, "The landlord raised the rent to 1450 dollars a month.", 90, "b")
    assert service.store.nodes("Episode", user, [new])  # written
    assert edges(service, user, [old]) == {("SUPERSEDES", new, old)}  # by the rules
    assert llm.stats.version_failures == 1 and llm.stats.repairs == 1


def test_a_model_error_status_keeps_the_write(  # type: ignore[no-untyped-def]
        openai_stub, llm, embedded_store, user) -> None:
    openai_stub.default_reply = model(CAR)
    service = make(embedded_store, llm)
    civic = add(service, user, CIVIC, 0, "m1")
    openai_stub.reply(empty_extraction([{"content": "Messages:"}]))  # the extraction
    openai_stub.fail(400)  # the version request
    tacoma = add(service, user, TACOMA, 90, "m3")
    assert service.store.nodes("Episode", user, [tacoma])
    assert edges(service, user, [civic]) == set()
    assert llm.stats.version_failures == 1


def test_other_tenants_assistant_turns_and_secrets_never_reach_the_model(  # type: ignore[no-untyped-def]
        openai_stub, llm, embedded_store, user) -> None:
    openai_stub.default_reply = model(CAR)
    service = make(embedded_store, llm)
    other = f"{user}-other"
    add(service, other, "I drive a Ford Ranger to work, same as my neighbour.", 0, "x")
    add(service, user, "You could look at a Subaru Outback for the car, it fits mulch.", 1,
        "a1", role="assistant")
    add(service, user, "My car wifi password is hunter2-blue-47, I drive to work daily.", 2,
        "s")
    civic = add(service, user, CIVIC, 3, "m1")
    tacoma = add(service, user, TACOMA, 90, "m3")
    bodies = "\n".join(version_bodies(openai_stub))
    assert "Civic" in bodies  # the candidates were shown
    for leak in ("Ranger", "Outback", "hunter2-blue-47"):
        assert leak not in bodies
    assert ("SUPERSEDES", tacoma, civic) in edges(service, user, [civic])
    assert edges(service, other, [tacoma, civic]) == set()


def test_a_message_forgotten_while_the_model_thinks_is_not_linked(  # type: ignore[no-untyped-def]
        openai_stub, llm, embedded_store, user) -> None:
    service = make(embedded_store, llm)
    openai_stub.default_reply = model(CAR)
    civic = add(service, user, CIVIC, 0, "m1")
    openai_stub.default_reply = model(CAR, on_versions=lambda: service.forget(user, civic))
    tacoma = add(service, user, TACOMA, 90, "m3")
    assert version_bodies(openai_stub)  # the model was asked, with the Civic shown
    assert edges(service, user, [civic, tacoma]) == set()


def test_the_model_sees_an_older_value_of_the_same_fact_that_no_index_puts_near(  # type: ignore[no-untyped-def]
        openai_stub, llm, embedded_store, user, monkeypatch) -> None:
    import graphmem._episode_versions as versions

    openai_stub.default_reply = model(("Kia", "Mazda", "same_fact", "car", "Mazda 3", "Kia"))
    service = make(embedded_store, llm)
    mazda = add(service, user, "I bought a used Mazda 3 last spring, best car I have owned.",
                0, "m0")
    service.add_episodes([  # nearer to the new message by every index
        EpisodeIn(user_id=user, content=f"Charging my laptop overnight is cheap enough, "
                  f"tip number {k} of the overnight charging list.", role="user",
                  occurred_at=T0 + timedelta(days=1 + k), source_ref=f"f{k}")
        for k in range(20)])
    text = "Charging the Kia EV6 overnight is cheap, the car costs almost nothing to run."
    kia = add(service, user, text, 60, "m1")
    assert edges(service, user, [mazda]) == {("SUPERSEDES", kia, mazda)}
    # without the episodes stating the same fact, the Mazda is never shown
    monkeypatch.setattr(versions, "_on_its_facets", lambda *a: [])
    again = add(service, user, text.replace("EV6", "Niro"), 61, "m2")
    assert ("SUPERSEDES", again, mazda) not in edges(service, user, [mazda])
