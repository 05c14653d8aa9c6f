"""Endings and replacements said in other words than the fact they end ("ditched Word"
after "Microsoft Word", 综艺 after 综艺节目, a new favourite band), through the real GraphQL
server on the embedded store."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from graphmem._stop_names import ending_target, same_thing
from graphmem.store.falkor import FalkorStore

from .api_support import Api, make_service, serve_api
from .conftest import FakeClock

ADD = """mutation($in: EpisodeInput!) { addEpisode(input: $in) { episode { id } } }"""
CURRENT = """query($u: ID!, $p: String) { relations(userId: $u, predicate: $p) { object } }"""


@pytest.fixture
def api(embedded_store: FalkorStore, clock: FakeClock) -> Iterator[Api]:
    with serve_api(make_service(embedded_store, clock)) as client:
        yield client


def say(api: Api, user: str, day: int, text: str) -> None:
    api.data(ADD, {"in": {"userId": user, "content": text,
                          "occurredAt": f"2025-03-{day:02d}T10:00:00Z"}})


def current(api: Api, user: str, predicate: str) -> set[str]:
    rows: list[dict[str, Any]] = api.data(CURRENT, {"u": user, "p": predicate})["relations"]
    return {r["object"] for r in rows}


def test_names_in_other_words() -> None:
    assert same_thing("word", "microsoft word") and same_thing("综艺", "综艺节目")
    assert not same_thing("java", "javascript")  # a word, not a piece of one
    assert not same_thing("go", "google go")  # too short to stand for a longer name
    assert not same_thing("茶", "奶茶")  # one Han character names too much
    assert ending_target("Word", ["Microsoft Word", "Google Docs"]) == "Microsoft Word"
    assert ending_target("Word", ["Word"]) is None  # the same name needs no aiming
    assert ending_target("Coke", ["Coke Zero", "Diet Coke"]) is None  # which one? neither


def test_a_shorter_name_ends_the_fact(api: Api, user: str) -> None:
    say(api, user, 1, "I do all my writing in Microsoft Word.")
    assert "Microsoft Word" in current(api, user, "uses")
    say(api, user, 20, "I've ditched Word entirely and write everything in Google Docs now.")
    assert current(api, user, "uses") == {"Google Docs"}


def test_a_chinese_ending_with_a_shorter_name(api: Api, user: str) -> None:
    say(api, user, 1, "我很喜欢看综艺节目。")
    assert current(api, user, "likes") == {"综艺节目"}
    say(api, user, 20, "现在我对综艺一点兴趣都没有了。")
    assert current(api, user, "likes") == set()


def test_two_candidates_end_neither(api: Api, user: str) -> None:
    say(api, user, 1, "I can't stand Diet Coke.")
    api.data("""mutation($in: RelationInput!) { addRelation(input: $in) { id } }""",
             {"in": {"userId": user, "subject": "user", "predicate": "likes",
                     "object": "Coke Zero"}})
    api.data("""mutation($in: RelationInput!) { addRelation(input: $in) { id } }""",
             {"in": {"userId": user, "subject": "user", "predicate": "likes",
                     "object": "Cherry Coke"}})
    say(api, user, 20, "I cut out Coke completely.")
    assert current(api, user, "likes") == {"Coke Zero", "Cherry Coke"}


def test_an_ending_never_reaches_another_tenant(api: Api, user: str) -> None:
    other = user + "-other"
    say(api, other, 1, "I do all my writing in Microsoft Word.")
    say(api, user, 20, "I've ditched Word entirely.")
    assert "Microsoft Word" in current(api, other, "uses")
    assert current(api, user, "uses") == set()


def test_a_new_favourite_of_a_kind_replaces_the_old(api: Api, user: str) -> None:
    say(api, user, 1, "My favourite band is Coldplay. My favourite film is Alien.")
    say(api, user, 20, "These days my favourite band is Arctic Monkeys.")
    assert current(api, user, "prefers") == {"Arctic Monkeys", "Alien"}  # films untouched
    say(api, user, 21, "我最喜欢的运动是篮球。")
    say(api, user, 22, "现在我最喜欢的运动是羽毛球。")
    assert current(api, user, "prefers") == {"Arctic Monkeys", "Alien", "羽毛球"}


def test_a_taste_ends_only_its_own_opposite(api: Api, user: str) -> None:
    # "I like tea" ends a dislike of tea, and never, by a name inside another, a dislike
    # of green tea: only endings the user said are aimed at other names
    say(api, user, 1, "I really dislike green tea.")
    say(api, user, 20, "I like tea.")
    assert current(api, user, "dislikes") == {"green tea"}
