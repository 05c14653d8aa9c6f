"""A message whose relation supersedes one an earlier message evidenced is linked to that
message as its new version (SUPERSEDES between the episodes, in the same write), even when
no word of change or shared value links the two texts: "Just wrapped up my first week at
Stripe" after "I work as a backend developer at Shopify". Through GraphQL."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from graphmem.inputs import EpisodeIn
from graphmem.service import MemoryService

from .api_support import make_service, serve_api

OLD = "I work as a backend developer at Shopify, mostly on the checkout team."
NEW = "Just wrapped up my first week at Stripe and the onboarding has been intense."
ADD = """mutation($inputs: [EpisodeInput!]!) { addEpisodes(inputs: $inputs) {
  episode { id } } }"""
RECALL = """query($u: ID!, $q: String!) { recall(input: {userId: $u, query: $q,
  referenceTime: "2026-01-10T00:00:00Z", kinds: [EPISODE], limit: 5}) {
    items { id status supersededBy supersedes versionNote } } }"""


def _send(api: Any, user: str, content: str, day: str, ref: str) -> str:
    got = api.data(ADD, {"inputs": [{"userId": user, "content": content, "role": "user",
                                     "occurredAt": f"{day}T09:00:00Z", "sourceRef": ref}]})
    return str(got["addEpisodes"][0]["episode"]["id"])


def _edges(service: MemoryService, user: str, ids: list[str]) -> set[tuple[str, str, str]]:
    return {(e["type"], e["src"], e["dst"]) for e in service.store.episode_versions(user, ids)}


def test_a_new_employer_said_in_passing_supersedes_the_old_message(store: Any,
                                                                   user: str) -> None:
    service = make_service(store)
    other = f"{user}-other"
    with serve_api(service) as api:
        old = _send(api, user, OLD, "2025-02-03", "a")
        _send(api, user, "Can you explain index funds in simple terms?", "2025-03-01", "f")
        theirs = _send(api, other, OLD, "2025-02-03", "a")  # another tenant, same words
        new = _send(api, user, NEW, "2025-06-02", "b")
        items = api.data(RECALL, {"u": user, "q": "Which company am I working for?"}
                         )["recall"]["items"]
    assert _edges(service, user, [old]) == {("SUPERSEDES", new, old)}
    ids = [i["id"] for i in items]
    assert ids.index(new) < ids.index(old)
    earlier = items[ids.index(old)]
    assert earlier["status"] == "SUPERSEDED" and earlier["supersededBy"] == [new]
    assert "works at shopify -> stripe" in earlier["versionNote"].lower()
    # the other tenant's message is nobody's earlier version
    assert _edges(service, other, [theirs]) == set()
    assert _edges(service, user, [theirs]) == set()


def test_an_older_message_arriving_later_is_the_earlier_version(store: Any,
                                                                user: str) -> None:
    service = make_service(store)
    with serve_api(service) as api:
        new = _send(api, user, NEW, "2025-06-02", "b")
        old = _send(api, user, OLD, "2025-02-03", "a")  # imported late
    assert _edges(service, user, [old, new]) == {("SUPERSEDES", new, old)}


def _say(service: MemoryService, user: str, content: str, month: int) -> str:
    return service.add_episode(EpisodeIn(
        user_id=user, content=content, role="user",
        occurred_at=datetime(2025, month, 1, tzinfo=UTC))).episode.id


def _objects(service: MemoryService, user: str, history: bool = False) -> set[str]:
    return {r.object for r in service.relations(user, include_history=history)}


def test_a_change_told_later_but_dated_earlier_is_current(store: Any, user: str) -> None:
    # "I work at Shopify" said in March; in July a message dates a start at Stripe back to
    # August last year. July's telling is the newer word: Stripe is current, Shopify kept
    # as history, and July's message replaces March's
    service = make_service(store)
    march = _say(service, user, "I work at Shopify.", 3)
    july = _say(service, user, "I started at Stripe in August 2024.", 7)
    assert _objects(service, user) == {"Stripe"}
    assert _objects(service, user, history=True) == {"Shopify", "Stripe"}
    assert _edges(service, user, [march, july]) == {("SUPERSEDES", july, march)}


def test_the_same_messages_imported_in_the_order_said_agree(store: Any, user: str) -> None:
    # an old message sent after a newer one: the told times, not the arrival, decide
    service = make_service(store)
    july = _say(service, user, "I started at Stripe in August 2024.", 7)
    march = _say(service, user, "I work at Shopify.", 3)
    assert _objects(service, user) == {"Stripe"}
    assert _edges(service, user, [march, july]) == {("SUPERSEDES", july, march)}


def test_a_story_from_years_ago_does_not_replace_the_present(store: Any, user: str) -> None:
    # a start stated years before its telling is a story about the past, not news
    service = make_service(store)
    march = _say(service, user, "I work at Shopify.", 3)
    july = _say(service, user, "I started at Stripe in 2019.", 7)
    assert _objects(service, user) == {"Shopify"}
    assert _objects(service, user, history=True) == {"Shopify", "Stripe"}
    assert _edges(service, user, [march, july]) == set()


def test_a_new_device_of_one_kind_replaces_the_old_one(service: MemoryService,
                                                      user: str) -> None:
    # one e-reader at a time: the new one's relation supersedes the old, and so its
    # message the old message, though the two share no word
    old = service.add_episode(EpisodeIn(
        user_id=user, content="I've been using a Kindle Paperwhite for all my reading.",
        role="user", occurred_at=datetime(2025, 2, 3, tzinfo=UTC))).episode.id
    new = service.add_episode(EpisodeIn(
        user_id=user, content="My new Kobo Libra arrived and I love the page-turn buttons.",
        role="user", occurred_at=datetime(2025, 6, 3, tzinfo=UTC))).episode.id
    assert "Kobo Libra" in {r.object for r in service.relations(user)}
    assert "Kindle Paperwhite" not in {r.object for r in service.relations(user)}
    assert _edges(service, user, [old]) == {("SUPERSEDES", new, old)}


def test_a_fact_said_many_times_links_its_last_tellings_only(service: MemoryService,
                                                              user: str) -> None:
    said = [service.add_episode(EpisodeIn(
        user_id=user, content="I work at Shopify.", role="user",
        occurred_at=datetime(2025, 1, 1 + 3 * n, tzinfo=UTC))).episode.id for n in range(6)]
    new = service.add_episode(EpisodeIn(
        user_id=user, content="I started at Stripe this week.", role="user",
        occurred_at=datetime(2025, 6, 2, tzinfo=UTC))).episode.id
    linked = {dst for kind, src, dst in _edges(service, user, [new]) if src == new}
    assert linked == set(said[-3:])  # the three latest tellings, not all six


def test_a_stop_links_no_episode(service: MemoryService, user: str) -> None:
    old = service.add_episode(EpisodeIn(
        user_id=user, content=OLD, role="user",
        occurred_at=datetime(2025, 2, 3, tzinfo=UTC))).episode.id
    service.add_episode(EpisodeIn(user_id=user, content="Can you suggest a podcast?",
                                  role="user", occurred_at=datetime(2025, 4, 3, tzinfo=UTC)))
    assert _edges(service, user, [old]) == set()
