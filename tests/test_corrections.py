"""Corrections: a message that takes back a value the user gave before ("I told you Tuesdays,
I got that wrong, it's Thursdays", 更正一下，我上次说是周二，其实是周四) supersedes the message
that gave it, and recall puts the correction first; never across speakers, tenants or
roles, never forward in time."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from graphmem._corrections import corrected, mentions
from graphmem.inputs import EpisodeIn, RecallIn
from graphmem.model import MemoryKind, MemoryStatus
from graphmem.service import MemoryService

from .api_support import assert_newer_version_first, make_service, serve_api

CLUB = ("I've also joined a local club, the Broughty Striders. They do a group run on Tuesday "
        "evenings, can that be my speed session?")
FIX = ("Oh, and a correction from the other week: I told you the Striders meet on Tuesdays. "
       "I got that wrong, it's Thursdays. Tuesday is my son's football training.")
BALL = "打羽毛球对降压有帮助吗？我每周二晚上在朝阳体育中心打两个小时。"
FIX_ZH = "对了更正一下，我上次说打球是周二，其实是周四晚上，周二是我老婆的瑜伽课。"
REFERENCE = datetime(2026, 1, 10, tzinfo=UTC)


@pytest.mark.parametrize(("text", "old", "new"), [
    (FIX, "Tuesdays", "Thursdays"),
    ("Correction to something I told you a while back: my evening shift at the shop is "
     "Wednesdays, not Tuesdays.", "Tuesdays", ""),
    ("Correction on the visa thing: it was actually the 4th of April, not the 3rd, I'd misread "
     "their email.", "3rd", "4th"),
    (FIX_ZH, "周二", "周四晚上"),
    ("上回我说错了，数学补课不是周六上午，是周日下午两点到四点。", "周六上午", ""),
    ("我之前跟你说的考试时间记错了，是4月19号不是13号。那复习计划是不是可以往后挪一周？",
     "13号", ""),
])
def test_a_correction_names_the_value_it_takes_back(text: str, old: str, new: str) -> None:
    assert [(c.old, c.new) for c in corrected(text)] == [(old, new)]


@pytest.mark.parametrize("text", [
    "The Striders meet on Tuesdays, not Thursdays like the other club.",  # no correction
    "I'm not sure whether Tuesday works, can we do Thursday?",
    "这周是不是周二开会？",
    "Can you correct the grammar in this paragraph? It says Tuesdays, not Thursdays.",
    "Could you make a correction to my draft: the meeting is Monday, not Friday.",
    "帮我更正一下这段通知：开会是周一，不是周五。",
    "I got that wrong again, sorry.",  # no value taken back
])
def test_nothing_is_taken_back_without_saying_a_told_value_was_wrong(text: str) -> None:
    assert corrected(text) == []


@pytest.mark.parametrize(("text", "value", "said"), [
    ("They do a group run on Tuesday evenings", "Tuesdays", True),
    ("我每周二晚上打球", "Tuesdays", True),  # a weekday in either language
    ("跑团星期二集合", "周二", True),
    ("They do a group run on Thursday evenings", "Tuesdays", False),
    ("The appointment is on April 3rd at 10", "3rd", True),
    ("The appointment is on April 13th", "3rd", False),  # a number is whole, not a digit
    ("补课是周日下午", "周六上午", False),
])
def test_an_earlier_message_gives_a_value_in_any_of_its_forms(text: str, value: str,
                                                               said: bool) -> None:
    assert mentions(text, value) is said


def _add(service: MemoryService, user: str, content: str, when: datetime, ref: str, *,
         role: str = "user", speaker: str | None = None) -> str:
    res = service.add_episode(EpisodeIn(user_id=user, content=content, occurred_at=when,
                                        source_ref=ref, role=role, speaker=speaker))
    return res.episode.id


def _links(service: MemoryService, user: str, ids: list[str]) -> set[tuple[str, str, str]]:
    return {(e["type"], e["src"], e["dst"]) for e in service.store.episode_versions(user, ids)}


@pytest.mark.parametrize(("old_text", "fix_text", "question", "reason"), [
    (CLUB, FIX, "What night of the week is my running club?", "corrected: Tuesdays -> Thursdays"),
    (BALL, FIX_ZH, "我每周是哪天晚上去打羽毛球？", "corrected: 周二 -> 周四晚上"),
])
def test_a_correction_supersedes_the_message_that_gave_the_value_and_comes_first(
        service: MemoryService, user: str, old_text: str, fix_text: str, question: str,
        reason: str) -> None:
    _add(service, user, "Can you explain interval training in simple terms?",
         datetime(2025, 1, 5, tzinfo=UTC), "filler")
    old = _add(service, user, old_text, datetime(2025, 2, 3, tzinfo=UTC), "old")
    fix = _add(service, user, fix_text, datetime(2025, 2, 20, tzinfo=UTC), "fix")
    rows = service.store.episode_versions(user, [old])
    assert [(r["type"], r["src"], r["dst"]) for r in rows] == [("SUPERSEDES", fix, old)]
    assert rows[0]["reason"] == reason
    res = service.recall(RecallIn(user_id=user, query=question, reference_time=REFERENCE,
                                  kinds=[MemoryKind.EPISODE]))
    ids = [i.id for i in res.items]
    assert ids.index(fix) < ids.index(old)
    assert res.items[ids.index(old)].status is MemoryStatus.SUPERSEDED


def test_a_correction_takes_back_the_message_about_what_it_speaks_of(
        service: MemoryService, user: str) -> None:
    # both earlier messages give 周六; the nearer one is about a fire inspection, the
    # correction about the tutoring
    tutoring = _add(service, user,
                    "他数学补课是每周六上午九点到十一点，过年停两周。怎么跟老师开口？",
                    datetime(2025, 1, 19, tzinfo=UTC), "tutoring")
    inspection = _add(service, user,
                      "上回说的事有变，上周六下午消防的来店里检查了，你帮我把整改排一下，"
                      "我周末中午店里走不开", datetime(2025, 3, 17, tzinfo=UTC), "inspection")
    fix = _add(service, user, "上回我说错了，子轩数学补课不是周六上午，是周日下午两点到四点。"
               "你帮我把周末接送排一下，我周末中午店里走不开",
               datetime(2025, 3, 30, tzinfo=UTC), "fix")
    links = {(t, s, d) for t, s, d in _links(service, user, [tutoring, inspection, fix])}
    assert ("SUPERSEDES", fix, tutoring) in links
    assert ("SUPERSEDES", fix, inspection) not in links


def test_only_the_same_speakers_earlier_user_message_is_corrected(service: MemoryService,
                                                                  user: str) -> None:
    # the value said by someone else in a shared chat, by the assistant, by another tenant,
    # or after the correction: none of these is the message Ana takes back
    other = _add(service, user, "The Striders do a group run on Tuesday evenings.",
                 datetime(2025, 2, 1, tzinfo=UTC), "o1", speaker="Rob")
    bot = _add(service, user, "The Striders run on Tuesday evenings, a good speed session.",
               datetime(2025, 2, 2, tzinfo=UTC), "o2", role="assistant")
    elsewhere = _add(service, "another-tenant", CLUB, datetime(2025, 2, 3, tzinfo=UTC), "o3")
    fix = _add(service, user, FIX, datetime(2025, 2, 20, tzinfo=UTC), "fix", speaker="Ana")
    later = _add(service, user, "The Striders added a Tuesday hill session last week.",
                 datetime(2025, 3, 1, tzinfo=UTC), "o4", speaker="Ana")
    assert _links(service, user, [other, bot, fix, later]) == set()
    assert service.store.episode_versions("another-tenant", [elsewhere]) == []


def test_a_correction_of_a_value_never_given_links_nothing(service: MemoryService,
                                                           user: str) -> None:
    old = _add(service, user, CLUB.replace("Tuesday", "Monday"),
               datetime(2025, 2, 3, tzinfo=UTC), "old")
    _add(service, user, FIX, datetime(2025, 2, 20, tzinfo=UTC), "fix")
    # (the other rules may still read Monday -> Thursday as a change; no correction is)
    reasons = [str(e["reason"]) for e in service.store.episode_versions(user, [old])]
    assert not [r for r in reasons if r.startswith("corrected")]


def test_recall_through_graphql_explains_the_correction(store: object, user: str) -> None:
    service = make_service(store)
    old = _add(service, user, CLUB, datetime(2025, 2, 3, tzinfo=UTC), "old")
    fix = _add(service, user, FIX, datetime(2025, 2, 20, tzinfo=UTC), "fix")
    query = """query($u: ID!) { recall(input: {userId: $u,
      query: "Which evening does my running club meet?", referenceTime: "2026-01-10T00:00:00Z",
      kinds: [EPISODE], limit: 5}) { items { id status supersededBy versionNote } } }"""
    with serve_api(service) as api:
        items = api.data(query, {"u": user})["recall"]["items"]
    assert_newer_version_first(items, fix, old, "corrected: Tuesdays -> Thursdays")
