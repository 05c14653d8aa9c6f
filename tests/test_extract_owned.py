"""Things held one at a time and named in passing (``graphmem.extract._products.owned_en``),
cars named by their make (``_lexicon``), pets named in other shapes and homes said in
passing (``_personal``): engine output and what must yield nothing; the changes they make
through the service are in test_extract_endings' CHANGES, and here one user's car leaves
another's alone. None of these sentences is in bench/data."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from graphmem.extract import Message
from graphmem.extract._lexicon import canonicalize
from graphmem.extract.rules import RuleExtractor

from .api_support import make_service
from .test_extract_endings import _now, _tell

AT = datetime(2025, 6, 15, 10, 0, tzinfo=UTC)


def facts(text: str) -> set[tuple[str, str, bool]]:
    out = RuleExtractor().extract([Message(text, role="user", occurred_at=AT)])
    return {(r.predicate, r.object, r.stop) for r in out.relations if r.subject == "user"}


def categories(text: str) -> dict[str, str]:
    out = RuleExtractor().extract([Message(text, role="user", occurred_at=AT)])
    return {r.object: r.category for r in out.relations if not r.stop}


@pytest.mark.parametrize(("name", "canonical"), [
    ("2019 Hyundai Tucson", "Hyundai Tucson"), ("used Volkswagen Polo", "Volkswagen Polo"),
    ("Land Rover Defender", "Land Rover Defender"), ("Prius", "Toyota Prius"),
    ("Gousto", "Gousto"),
])
def test_a_car_is_known_by_its_make(name: str, canonical: str) -> None:
    shown, term = canonicalize(name)
    assert shown == canonical and term is not None
    assert term.domain == ("meal_kit" if name == "Gousto" else "car")


@pytest.mark.parametrize("name", ["mini fridge", "Range", "Land", "Ford", "Fordham Road"])
def test_a_word_that_only_looks_like_a_make_is_no_car(name: str) -> None:
    _, term = canonicalize(name)
    assert term is None or name == "Ford" and term.domain == "car"


@pytest.mark.parametrize(("text", "obj", "category"), [
    ("Topping up the Hyundai Ioniq 5 at the supermarket charger took forty minutes.",
     "Hyundai Ioniq 5", "tool:car"),
    ("I parked the Skoda Octavia round the back.", "Skoda Octavia", "tool:car"),
    ("Our Volvo XC60 needs new tyres before winter.", "Volvo XC60", "tool:car"),
    ("Last week's Mindful Chef box had a great curry.", "Mindful Chef", "tool:meal_kit"),
    ("The new Kobo Clara arrived this morning.", "Kobo Clara", "tool:e_reader"),
    ("Just picked up the keys to our Tesla Model Y.", "Tesla Model Y", "tool:car"),
])
def test_a_thing_held_one_at_a_time_named_in_passing_is_used(text: str, obj: str,
                                                             category: str) -> None:
    assert ("uses", obj, False) in facts(text)
    assert categories(text)[obj] == category  # exclusive: a new one replaces the old


@pytest.mark.parametrize("text", [
    "A Tesla cut me up on the ring road this morning.",  # not the speaker's
    "My brother's Kia Sportage broke down again.",  # someone else's
    "I test-drove a Polestar 2 on Saturday.",  # tried, not had
    "Thinking about getting a Hyundai Kona next year.",  # a wish
    "The hire car was a Fiat 500, tiny but fine.",  # hired
    "It is cheaper than a Toyota Corolla to insure.",  # a comparison
    "We sold the Peugeot 208 in March.",  # an ending, not a use
])
def test_no_car_the_speaker_does_not_have(text: str) -> None:
    assert not {f for f in facts(text) if f[0] == "uses" and not f[2]}


@pytest.mark.parametrize(("text", "name"), [
    ("Our hamster is called Nibbles.", "Nibbles"),
    ("My dog's name is Juniper.", "Juniper"),
    ("We adopted a kitten in May and the kids named her Pesto.", "Pesto"),
    ("Waffles the guinea pig squeaks whenever I open the fridge.", "Waffles"),
])
def test_a_pet_is_kept_by_its_name(text: str, name: str) -> None:
    assert ("has_pet", name, False) in facts(text)


@pytest.mark.parametrize("text", [
    "My neighbour's cat Tigger the tabby sits on our wall.",  # someone else's
    "Paddington the bear is my son's favourite film.",  # a bear is no pet here
])
def test_no_pet_that_is_not_the_speakers(text: str) -> None:
    assert not {f for f in facts(text) if f[0] == "has_pet"}


@pytest.mark.parametrize(("text", "place"), [
    ("The boiler in our Leicester flat packed in again.", "Leicester"),
    ("My new apartment in Porto gets the morning sun.", "Porto"),
])
def test_a_home_said_in_passing(text: str, place: str) -> None:
    assert ("lives_in", place, False) in facts(text)


@pytest.mark.parametrize(("text", "place"), [
    ("来青岛三个多月了，每天下班都去海边走走。", "青岛"),
    ("搬来昆明半年了，还是不太习惯这里的紫外线。", "昆明"),  # not 昆明半年
    ("我们到南宁快两年了。", "南宁"),
])
def test_a_chinese_home_said_by_how_long_one_has_been_there(text: str, place: str) -> None:
    assert {f for f in facts(text) if f[0] == "lives_in"} == {("lives_in", place, False)}


@pytest.mark.parametrize("text", ["来北京出差两个月了。", "他来深圳一年了。", "来公司一年了。",
                                  "到大理旅游一个月了。"])
def test_no_chinese_home_for_a_trip_or_someone_else(text: str) -> None:
    assert not {f for f in facts(text) if f[0] == "lives_in"}


@pytest.mark.parametrize("text", [
    "The Lisbon apartment we booked for the holiday was lovely.",
    "My parents' house in Whitby is up for sale.",
    "We viewed a flat in Norwich on Saturday.",
    "Our old house in Derby had a huge garden.",
    "My sister's flat in Oslo is tiny.",
])
def test_no_home_that_is_not_the_speakers_now(text: str) -> None:
    assert not {f for f in facts(text) if f[0] == "lives_in"}


def test_a_car_named_by_another_user_changes_nothing_of_mine(store: Any, user: str) -> None:
    service = make_service(store)
    _tell(service, user, ["I drive a grey Ford Focus."])
    _tell(service, f"{user}-other", ["Charging the Kia Niro overnight costs next to nothing."])
    assert ("uses", "Ford Focus") in _now(service, user)
    assert not any(o == "Kia Niro" for _, o in _now(service, user))


@pytest.mark.parametrize(("text", "fact"), [
    ("Honestly we live in Notion at my job.", ("uses", "Notion", False)),
    ("We live in Slack all day, it's exhausting.", ("uses", "Slack", False)),
    ("We live in Jira for sprint planning.", ("uses", "Jira", False)),
    ("I live in Derby for now.", ("lives_in", "Derby", False)),
    ("We've lived in Bristol for six years.", ("lives_in", "Bristol", False)),
    ("I live in Berlin for love.", ("lives_in", "Berlin", False)),
])
def test_living_in_an_app_is_using_it(text: str, fact: tuple[str, str, bool]) -> None:
    found = facts(text)
    assert fact in found
    assert not {f for f in found if f[0] == "lives_in" and f != fact}


def test_a_make_one_works_at_is_an_organization() -> None:
    def types(text: str) -> dict[str, str]:
        out = RuleExtractor().extract([Message(text, role="user", occurred_at=AT)])
        return {e.name: e.type for e in out.entities}
    assert types("I work at Tesla.")["Tesla"] == "organization"
    assert types("I drive a Tesla these days.")["Tesla"] == "car"
