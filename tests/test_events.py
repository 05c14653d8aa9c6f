"""The events feed on both stores: every kind of change shows up once, in order, read back
from where the write recorded it; paging by cursor neither repeats nor skips; bad input is
refused and other users' events are out of reach."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from graphmem.embed import HashingEmbedder
from graphmem.errors import InvalidInputError, NotFoundError
from graphmem.inputs import EpisodeIn, RelationIn
from graphmem.service import MemoryService

from .api_support import serve_api
from .conftest import DIM, FakeClock, make_settings

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)


def lives(service: MemoryService, user: str, city: str, at: datetime) -> Any:
    return service.add_relation(RelationIn(user_id=user, subject="Ana", predicate="lives in",
                                           object=city, valid_from=at, exclusive=True))


def kinds(page: Any) -> list[tuple[str, str]]:
    return [(e.kind, e.memory_id) for e in page.items]


def test_every_change_is_an_event_in_order(service: MemoryService, clock: FakeClock,
                                           user: str) -> None:
    start = clock()
    lisbon = lives(service, user, "Lisbon", T0)
    clock.tick(60)
    ep = service.add_episode(EpisodeIn(user_id=user, occurred_at=T0, content="Lunch at noon."))
    clock.tick(60)
    porto = lives(service, user, "Porto", T0 + timedelta(days=30))
    clock.tick(60)
    service.forget(user, ep.episode.id)
    clock.tick(60)
    service.restore(user, ep.episode.id)
    clock.tick(60)
    service.lifecycle.feedback(user, porto.id, "HELPFUL", "right")
    everything = service.events(user, since=start, limit=1000)
    got = kinds(everything)
    assert ("RECORDED", lisbon.id) in got and ("RECORDED", porto.id) in got
    assert ("RECORDED", ep.episode.id) in got
    superseded = [e for e in everything.items if e.kind == "SUPERSEDED"]
    assert [(e.memory_id, e.related_id) for e in superseded] == [(lisbon.id, porto.id)]
    tail = [k for k in got if k[1] in (ep.episode.id, porto.id)
            and k[0] in ("FORGOTTEN", "RESTORED", "FEEDBACK")]
    assert tail == [("FORGOTTEN", ep.episode.id), ("RESTORED", ep.episode.id),
                    ("FEEDBACK", porto.id)]
    assert [e.at for e in everything.items] == sorted(e.at for e in everything.items)
    assert everything.next_cursor is None
    feedback = next(e for e in everything.items if e.kind == "FEEDBACK")
    assert feedback.detail == "HELPFUL" and feedback.text and "Porto" in feedback.text
    # a window: only what happened in it
    later = service.events(user, since=start + timedelta(seconds=150))
    assert {e.kind for e in later.items} == {"FORGOTTEN", "RESTORED", "FEEDBACK"}
    assert service.events(user, since=start + timedelta(seconds=150),
                          until=start + timedelta(seconds=200)).items[0].kind == "FORGOTTEN"


def test_paging_by_cursor_neither_repeats_nor_skips(service: MemoryService, clock: FakeClock,
                                                    user: str) -> None:
    start = clock()
    for n in range(7):  # several events share one system time
        service.add_episodes([EpisodeIn(user_id=user, occurred_at=T0,
                                        content=f"Note {n}a."),
                              EpisodeIn(user_id=user, occurred_at=T0,
                                        content=f"Note {n}b.")])
        clock.tick(1)
    whole = service.events(user, since=start, limit=1000).items
    seen: list[Any] = []
    after = None
    while True:
        page = service.events(user, since=start, after=after, limit=3)
        seen.extend(page.items)
        if page.next_cursor is None:
            break
        after = page.next_cursor
    assert [e.cursor for e in seen] == [e.cursor for e in whole]
    assert len({e.cursor for e in seen}) == len(seen) >= 14
    # a poller that saw everything sees only what comes next
    clock.tick(5)
    service.add_episode(EpisodeIn(user_id=user, occurred_at=T0, content="Later."))
    new = service.events(user, since=start, after=whole[-1].cursor)
    assert [e.kind for e in new.items] == ["RECORDED"] and new.items[0].text == "Later."


def test_bad_input_is_refused(service: MemoryService, clock: FakeClock, user: str) -> None:
    lives(service, user, "Lisbon", T0)
    with pytest.raises(InvalidInputError):
        service.events(user, since=clock(), limit=0)
    with pytest.raises(InvalidInputError):
        service.events(user, since=clock(), after="not a cursor")
    with pytest.raises(InvalidInputError):
        service.events(user, since=clock(), until=clock() - timedelta(days=1))
    with pytest.raises(InvalidInputError):
        service.events(user, since=datetime(1, 1, 1, tzinfo=UTC))
    with pytest.raises(NotFoundError):
        service.events("nobody-at-all", since=clock())


EVENTS = """query($u: ID!, $since: DateTime!, $after: String) {
  events(userId: $u, since: $since, after: $after) {
    items { at kind memoryId memoryKind text relatedId cursor } nextCursor } }"""


def test_events_over_graphql_stay_with_their_user(store: Any, clock: FakeClock,
                                                  user: str) -> None:
    other = f"{user}-other"
    settings = make_settings(api_keys={"k-ana": [user], "k-bob": [other]})
    service = MemoryService(settings, store, HashingEmbedder(DIM), clock=clock)
    start = clock()
    lisbon = lives(service, user, "Lisbon", T0)
    lives(service, other, "Madrid", T0)
    with serve_api(service, settings) as api:
        ana = {"Authorization": "Bearer k-ana"}
        items = api.data(EVENTS, {"u": user, "since": start.isoformat()},
                         headers=ana)["events"]["items"]
        assert ("RECORDED", lisbon.id, "RELATION") in {
            (i["kind"], i["memoryId"], i["memoryKind"]) for i in items}
        assert all("Madrid" not in (i["text"] or "") for i in items)
        err = api.errors(EVENTS, {"u": user, "since": start.isoformat()},
                         headers={"Authorization": "Bearer k-bob"})
        assert err[0]["extensions"]["code"] == "FORBIDDEN"
        err = api.errors(EVENTS, {"u": user, "since": start.isoformat(), "after": "x"},
                         headers=ana)
        assert err[0]["extensions"]["code"] == "BAD_USER_INPUT"
