"""Speakers and roles of episodes sent without a ``speaker``: content "Name: text" lines and
``role: user`` turns with no name.

Through the real service and GraphQL app: the label is read conservatively, learned per
user, the content stays exactly as sent, and recall finds a speaker's lines by a question
naming them as it does with the ``speaker`` field.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from graphmem._speakers import Head, head, shown
from graphmem.embed import HashingEmbedder
from graphmem.inputs import EpisodeIn, RecallIn
from graphmem.model import MemoryKind
from graphmem.service import MemoryService

from .api_support import Api, serve_api
from .conftest import DIM, FakeClock, make_settings

# --------------------------------------------------------------------------- detection


@pytest.mark.parametrize(("line", "label", "text"), [
    ("Caroline: I went to the support group", "Caroline", "I went to the support group"),
    ("Mary Ann: see you", "Mary Ann", "see you"),
    ("Dr. Smith: take two a day", "Dr. Smith", "take two a day"),
    ("Ludwig van Beethoven: hm", "Ludwig van Beethoven", "hm"),
    ("Jean-Luc Picard: Engage", "Jean-Luc Picard", "Engage"),
    ("  O'Brien:   yes", "O'Brien", "yes"),
    ("张伟：我喜欢喝茶", "张伟", "我喜欢喝茶"),          # full-width colon, no space needed
    ("张伟: 你好", "张伟", "你好"),
    ("欧阳娜娜：好的", "欧阳娜娜", "好的"),
    ("Caroline：hello", "Caroline", "hello"),
])
def test_a_name_like_label_is_read(line: str, label: str, text: str) -> None:
    h = head(line)
    assert h == Head(label, text)


@pytest.mark.parametrize("line", [
    "Note: buy milk", "NOTE: buy milk", "TODO: fix the build", "Re: the meeting",
    "Fwd: invoice", "Q: what is it?", "A: a thing", "PS: bring snacks",
    "Important: call mom", "Update: it shipped", "Summary: all good",
    "10:30 meeting with Bob", "At 10:30 we met", "Meeting at 10: 30",
    "http://example.com/a", "Visit https://example.com", "Caroline:no space after",
    "The Plan: go north", "my name: bob", "Step 2: mix", "Chapter 1: Intro",
    "I: x", "Caroline: ", "Caroline:", "john_doe: lowercase handle",
    "This is what I think: nothing", "Monday: gym",
    "注意：小心", "备注：明天开会", "问题：怎么办", "我认为：不行", "这个问题：很难",
])
def test_headings_times_urls_and_phrases_are_no_speaker(line: str) -> None:
    assert head(line) is None


@pytest.mark.parametrize(("line", "role"), [
    ("User: I like tea", "user"), ("Assistant: Noted.", "assistant"),
    ("用户：我喜欢茶", "user"), ("助手：好的", "assistant")])
def test_role_words_give_the_role(line: str, role: str) -> None:
    h = head(line)
    assert h is not None and h.role == role


def test_shown_does_not_repeat_a_label_the_content_carries() -> None:
    assert shown("Caroline", "Caroline: hi") == "Caroline: hi"
    assert shown("Caroline", "hi") == "Caroline: hi"
    assert shown(None, "Caroline: hi") == "Caroline: hi"


# --------------------------------------------------------------------------- ingest


@pytest.fixture
def svc(store: Any, clock: FakeClock) -> MemoryService:
    return MemoryService(make_settings(), store, HashingEmbedder(DIM), clock=clock)


def ep(user: str, content: str, ref: str, **extra: Any) -> EpisodeIn:
    return EpisodeIn(user_id=user, occurred_at=extra.pop("at", "2025-03-01T10:00:00Z"),
                     content=content, source_ref=ref, **extra)


def stored(svc: MemoryService, user: str, ids: list[str]) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in svc.store.nodes("Episode", user, ids)}


def test_a_label_seen_twice_is_the_speaker_and_the_content_stays_exact(
        svc: MemoryService, user: str) -> None:
    sent = ["Caroline: I moved to Boston last month.", "Melanie:   Oh nice!",
            "Caroline: Yes, I love it here."]
    out = svc.add_episodes([ep(user, c, f"D1:{i}", at=f"2025-03-01T10:0{i}:00Z")
                            for i, c in enumerate(sent)])
    rows = stored(svc, user, [o.episode.id for o in out])
    assert [rows[o.episode.id]["content"] for o in out] == sent  # exactly as sent
    assert [o.episode.content for o in out] == sent
    # Caroline heads two lines of the write; Melanie once, so not (yet) a speaker
    assert [o.episode.speaker for o in out] == ["Caroline", None, "Caroline"]
    assert {(r.subject, r.predicate, r.object) for r in out[0].relations} == {
        ("Caroline", "lives_in", "Boston")}
    # the same content again is the same episode (its id hashes the exact content)
    again = svc.add_episode(ep(user, sent[0], "D1:0", at="2025-03-01T10:00:00Z"))
    assert again.duplicate and again.episode.id == out[0].episode.id


def test_a_label_said_again_later_in_the_session_names_both_turns(
        svc: MemoryService, user: str) -> None:
    first = svc.add_episode(ep(user, "Melanie: I just painted a sunrise.", "D1:1"))
    assert first.episode.speaker is None  # seen once: not yet known to be a speaker
    second = svc.add_episode(ep(user, "Melanie: I like painting lakes.", "D1:2",
                                at="2025-03-01T10:05:00Z"))
    assert second.episode.speaker == "Melanie"
    assert {(r.subject, r.object) for r in second.relations} == {("Melanie", "painting lakes")}
    rows = stored(svc, user, [first.episode.id, second.episode.id])
    assert rows[first.episode.id]["speaker"] == "Melanie"  # learned backwards
    assert rows[first.episode.id]["content"] == "Melanie: I just painted a sunrise."
    # from now on one line is enough: Melanie is a known speaker of this user
    third = svc.add_episode(ep(user, "Melanie: I went camping.", "D2:1", session_id="s2",
                               at="2025-04-01T10:00:00Z"))
    assert third.episode.speaker == "Melanie"


def test_a_heading_said_again_is_never_a_speaker(svc: MemoryService, user: str) -> None:
    out = svc.add_episodes([ep(user, "Note: I prefer Vue.", "n1"),
                            ep(user, "Note: I live in Oslo.", "n2")])
    assert [o.episode.speaker for o in out] == [None, None]
    # a note is the user's own statement
    assert {r.subject for o in out for r in o.relations} == {"user"}


def test_a_transcript_in_one_content_is_read_line_by_line(svc: MemoryService,
                                                          user: str) -> None:
    content = ("Ana: I live in Lisbon now.\nBen: Since when?\nAna: Since May.\n"
               "And I like it a lot.")
    res = svc.add_episode(ep(user, content, "t1"))
    assert res.episode.content == content
    assert res.episode.speaker is None  # two people speak in it
    assert ("Ana", "lives_in", "Lisbon") in {(r.subject, r.predicate, r.object)
                                             for r in res.relations}
    # a window of lines is said by each of the people heading them (Ben, once he is known
    # as a speaker of this user)
    svc.add_episode(ep(user, "Hello!", "t0", speaker="Ben", at="2025-01-01T10:00:00Z"))
    found = svc.recall(RecallIn(user_id=user, query="Since when does Ben live in Lisbon?",
                                limit=3, kinds=[MemoryKind.EPISODE]))
    assert found.items[0].id == res.episode.id and found.items[0].scores.speaker == 1.0


def test_user_and_assistant_labels_give_roles(svc: MemoryService, user: str) -> None:
    res = svc.add_episode(ep(user, "User: I prefer tea over coffee.", "r1"))
    assert res.episode.role == "user" and res.episode.speaker is None
    assert res.relations and {r.subject for r in res.relations} == {"user"}
    bot = svc.add_episode(ep(user, "Assistant: I prefer Vue for front-end work.", "r2"))
    assert bot.episode.role == "assistant" and bot.relations == []


# --------------------------------------------------------------------------- roles


def test_role_only_user_turns_are_about_the_user_named_once_known(
        svc: MemoryService, user: str) -> None:
    before = svc.add_episode(ep(user, "I live in Porto.", "u1", role="user"))
    assert {r.subject for r in before.relations} == {"user"}
    assert before.episode.speaker is None
    named = svc.add_episode(ep(user, "My name is Ana.", "u2", role="user",
                               at="2025-03-02T10:00:00Z"))
    assert {(r.subject, r.predicate, r.object) for r in named.relations} == {
        ("user", "name_is", "Ana")}
    after = svc.add_episode(ep(user, "I work at Acme.", "u3", role="user",
                               at="2025-03-03T10:00:00Z"))
    assert {(r.subject, r.predicate, r.object) for r in after.relations} == {
        ("Ana", "works_at", "Acme")}
    assert after.episode.speaker == "Ana"
    assert after.episode.content == "I work at Acme."
    # an assistant's first person is not the user's
    bot = svc.add_episode(ep(user, "I work best with examples.", "a1", role="assistant",
                             at="2025-03-03T10:01:00Z"))
    assert bot.relations == [] and bot.episode.speaker is None


@pytest.mark.parametrize("said", ["店后门养了条土狗，叫旺财，黄毛的，三岁了。", "刚才我叫了辆滴滴",
                                  "Hello, I'm Sarah's mom and I need help."])
def test_a_pet_s_name_or_a_call_does_not_name_the_user(svc: MemoryService, user: str,
                                                      said: str) -> None:
    first = svc.add_episode(ep(user, said, "u1", role="user"))
    assert all(r.predicate != "name_is" for r in first.relations)
    after = svc.add_episode(ep(user, "I work at Acme.", "u2", role="user",
                               at="2025-03-03T10:00:00Z"))
    assert after.episode.speaker is None
    assert {(r.subject, r.predicate, r.object) for r in after.relations} == {
        ("user", "works_at", "Acme")}


def test_role_only_user_turns_take_the_name_their_session_was_sent_with(
        svc: MemoryService, user: str) -> None:
    svc.add_episode(ep(user, "Hello there.", "u1", role="user", speaker="Bea"))
    res = svc.add_episode(ep(user, "I use Neovim for everything.", "u2", role="user",
                             at="2025-03-01T10:01:00Z"))
    assert {r.subject for r in res.relations} == {"Bea"}


# --------------------------------------------------------------------------- recall


CHAT = [("Caroline", "I went to the LGBTQ support group yesterday, it was powerful."),
        ("Melanie", "Caroline, how was the support group? I kept thinking of the group."),
        ("Melanie", "I took my kids to the museum on Sunday."),
        ("Caroline", "The museum sounds fun! I love dinosaurs."),
        ("Melanie", "The support group thing, Caroline, tell me about the support group!"),
        ("Caroline", "I am researching adoption agencies.")]


@pytest.fixture
def api(store: Any, clock: FakeClock) -> Iterator[Api]:
    svc = MemoryService(make_settings(), store, HashingEmbedder(DIM), clock=clock)
    with serve_api(svc) as client:
        yield client


ADD = "mutation($ins: [EpisodeInput!]!) { addEpisodes(inputs: $ins) { episode { speaker } } }"
RECALL = """query($i: RecallInput!) { recall(input: $i) {
  items { kind text sources { sourceRef } } } }"""


def _send(api: Api, user: str, with_field: bool) -> None:
    ins = [{"userId": user, "occurredAt": f"2025-05-0{1 + i // 2}T10:0{i}:00Z",
            "sessionId": "s1", "sourceRef": f"D1:{i}",
            **({"speaker": who, "content": text} if with_field
               else {"content": f"{who}: {text}"})}
           for i, (who, text) in enumerate(CHAT)]
    # one turn per call, as a chat client sends them
    for one in ins:
        api.data(ADD, {"ins": [one]})


def _refs(api: Api, user: str, query: str) -> list[str]:
    items = api.data(RECALL, {"i": {"userId": user, "query": query, "limit": 5,
                                    "kinds": ["EPISODE"]}})["recall"]["items"]
    return [s["sourceRef"] for it in items for s in it["sources"]]


def test_speakerless_lines_are_found_by_naming_the_speaker_as_with_the_field(
        api: Api, user: str) -> None:
    _send(api, user, with_field=True)
    _send(api, user + "-content", with_field=False)
    question = "When did Caroline go to the support group?"
    with_field = _refs(api, user, question)
    content_only = _refs(api, user + "-content", question)
    assert with_field[0] == "D1:0"  # Caroline's own words, not Melanie's asking about it
    assert content_only[0] == "D1:0"
    assert content_only[:3] == with_field[:3]
    # what recall shows: the content as sent, its label once
    items = api.data(RECALL, {"i": {"userId": user + "-content", "query": question,
                                    "limit": 1, "kinds": ["EPISODE"]}})["recall"]["items"]
    assert items[0]["text"] == f"Caroline: {CHAT[0][1]}"


def test_an_assistant_turn_does_not_outrank_the_users_matching_turn(
        svc: MemoryService, user: str) -> None:
    svc.add_episodes([
        ep(user, "I adopted a beagle named Rex last week.", "m1", role="user",
           session_id="c1"),
        ep(user, "Congratulations on adopting Rex! Beagles are wonderful dogs. A beagle "
                 "like Rex needs long walks, a beagle-proof fence, and patience: adopted "
                 "beagles often need time. Many people who adopt a beagle find that Rex-"
                 "like dogs love to sniff. Here are tips for your adopted beagle Rex: "
                 "walks, toys, training, and regular vet visits for a beagle.",
           "m2", role="assistant", session_id="c1", at="2025-03-01T10:00:30Z")])
    found = svc.recall(RecallIn(user_id=user, query="What beagle did I adopt?", limit=5,
                                kinds=[MemoryKind.EPISODE]))
    refs = [s.source_ref for it in found.items for s in it.sources]
    assert refs.index("m1") < refs.index("m2")
