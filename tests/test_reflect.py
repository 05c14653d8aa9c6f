"""Reflection: abstractions drawn from repeated evidence, versioned, disputed, re-checked,
written by templates or by an LLM (the local stub server), on both stores."""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from graphmem.check import check_store
from graphmem.embed import HashingEmbedder
from graphmem.inputs import EpisodeIn, RecallIn, RelationIn
from graphmem.model import MemoryKind, MemoryStatus, normalize
from graphmem.service import MemoryService

from .api_support import serve_api
from .conftest import DIM, FakeClock, make_settings

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)


def day(n: int) -> datetime:
    return T0 + timedelta(days=n)


def say(service: MemoryService, user: str, n: int, text: str) -> Any:
    return service.add_episode(EpisodeIn(user_id=user, occurred_at=day(n), content=text))


def prefer(service: MemoryService, user: str, obj: str, n: int, ref: str) -> Any:
    return service.add_relation(RelationIn(
        user_id=user, subject="user", predicate="prefers", object=obj, valid_from=day(n),
        exclusive=True, category="preference:editor", source_ref=ref))


def test_one_source_is_not_a_pattern(service: MemoryService, user: str) -> None:
    say(service, user, 0, "I prefer Neovim for editing.")
    assert service.reflect(user).changed == []
    assert service.abstractions(user) == []


def test_repeated_preference_becomes_an_abstraction(service: MemoryService, store: Any,
                                                    clock: FakeClock, user: str) -> None:
    first = say(service, user, 0, "I prefer Neovim for editing.")
    say(service, user, 5, "Honestly, I prefer Neovim.")
    clock.tick(60)
    result = service.reflect(user)
    assert len(result.written) == 1
    a = result.written[0]
    rel = first.relations[0]
    assert a.source_ids == [rel.id] and a.version == 1 and a.status is MemoryStatus.ACTIVE
    assert "Neovim" in a.conclusion and "editor" in a.conclusion
    assert normalize(a.conclusion) != normalize(rel.statement)  # not a copy of a statement
    assert a.conditions == ["when choosing an editor"]
    assert a.confidence >= service.settings.reflect_min_confidence
    assert a.valid_from == day(5)  # the pattern held once the second source existed
    assert service.abstractions(user) == [a]
    edges = store.export_edges("DERIVED_FROM", user)
    assert [(e["src"], e["dst"]) for e in edges] == [(a.id, rel.id)]
    # only conclusion, conditions, confidence and bookkeeping: no source text is stored
    row = store.nodes("Abstraction", user, [a.id])[0]
    assert not {"content", "statement", "subject", "object"} & row.keys()
    stored_text = json.dumps([v for v in row.values() if isinstance(v, str)])
    for episode_text in ("I prefer Neovim for editing.", "Honestly, I prefer Neovim."):
        assert episode_text not in stored_text


def test_reflecting_again_without_new_evidence_changes_nothing(
        service: MemoryService, store: Any, clock: FakeClock, user: str) -> None:
    say(service, user, 0, "I like hiking.")
    say(service, user, 1, "I like jazz.")
    first = service.reflect(user).written
    assert len(first) == 1 and first[0].kind == "taste"
    before = store.export_nodes("Abstraction", user, 0, 100)
    clock.tick(3600)
    again = service.reflect(user)
    assert again.changed == []
    assert store.export_nodes("Abstraction", user, 0, 100) == before


def test_new_evidence_writes_a_version_that_supersedes(service: MemoryService, store: Any,
                                                       clock: FakeClock, user: str) -> None:
    say(service, user, 0, "I like hiking.")
    say(service, user, 1, "I like jazz.")
    v1 = service.reflect(user).written[0]
    first_reflect = clock.now
    clock.tick(3600)
    say(service, user, 10, "I like sushi.")
    v2 = service.reflect(user).written[0]
    assert v2.version == 2 and v2.id != v1.id and v2.lineage == v1.lineage
    assert v2.supersedes_ids == [v1.id]
    assert v2.confidence > v1.confidence and "sushi" in v2.conclusion
    assert v2.valid_from == day(10)
    # now: only v2; the history keeps v1, closed in both times
    assert [a.id for a in service.abstractions(user)] == [v2.id]
    history = service.abstractions(user, include_history=True)
    assert [(a.version, a.status) for a in history] == [
        (1, MemoryStatus.SUPERSEDED), (2, MemoryStatus.ACTIVE)]
    assert history[0].expired_at == clock.now and history[0].valid_until == day(10)
    # asOf inside v1's valid time answers v1; knownAt before v2 was written answers v1
    assert [a.id for a in service.abstractions(user, as_of=day(5))] == [v1.id]
    believed = service.abstractions(user, known_at=first_reflect)
    assert [(a.id, a.status, a.valid_until) for a in believed] == [
        (v1.id, MemoryStatus.ACTIVE, None)]
    assert service.abstractions(user, known_at=first_reflect - timedelta(seconds=1)) == []
    edges = store.export_edges("SUPERSEDES", user)  # relation chains only
    assert all(e["src"].startswith("rel_") for e in edges)
    assert check_store(store, [user]).ok, check_store(store, [user]).summary()


def test_forgotten_source_lowers_confidence_in_a_new_version(
        service: MemoryService, store: Any, clock: FakeClock, user: str) -> None:
    made = [say(service, user, n, f"I like {x}.") for n, x in
            enumerate(["hiking", "jazz", "sushi"])]
    v1 = service.reflect(user).written[0]
    clock.tick(60)
    assert service.forget(user, made[2].relations[0].id)
    clock.tick(60)
    v2 = service.reflect(user).written[0]
    assert v2.version == 2 and v2.confidence < v1.confidence and "sushi" not in v2.conclusion
    clock.tick(60)
    assert service.forget(user, made[1].relations[0].id)
    clock.tick(60)
    closed = service.reflect(user)
    # one source left: the conclusion no longer stands; closed, not deleted
    assert closed.written == [] and [a.id for a in closed.closed] == [v2.id]
    assert service.abstractions(user) == []
    history = service.abstractions(user, include_history=True)
    assert [(a.version, a.status) for a in history] == [
        (1, MemoryStatus.SUPERSEDED), (2, MemoryStatus.SUPERSEDED)]
    assert len(store.export_nodes("Abstraction", user, 0, 100)) == 2


def test_disputed_evidence_gives_disputed_versions_reported_by_recall(
        service: MemoryService, store: Any, clock: FakeClock, user: str) -> None:
    prefer(service, user, "Neovim", 0, "m1")
    prefer(service, user, "Neovim", 0, "m2")  # said twice, of the same time
    v1 = service.reflect(user).written[0]
    clock.tick(60)
    other = prefer(service, user, "VS Code", 0, "m3")  # same start: a dispute
    assert other.status is MemoryStatus.DISPUTED
    written = service.reflect(user).written
    assert sorted(a.conclusion for a in written) == [
        "user consistently prefers Neovim (editor)", "user consistently prefers VS Code (editor)"]
    assert {a.status for a in written} == {MemoryStatus.DISPUTED}
    assert {a.version for a in written} == {2}
    a, b = written
    assert a.disputes_ids == [b.id] and b.disputes_ids == [a.id]
    assert a.supersedes_ids == b.supersedes_ids == [v1.id]
    assert any("VS Code" in c for c in next(x for x in written if "Neovim" in x.conclusion)
               .conditions)
    result = service.recall(RecallIn(user_id=user, query="which editor does the user prefer",
                                     kinds=[MemoryKind.ABSTRACTION]))
    assert {i.id for i in result.items} == {a.id, b.id}
    assert [sorted(c.ids) for c in result.conflicts] == [sorted([a.id, b.id])]
    assert check_store(store, [user]).ok, check_store(store, [user]).summary()


def test_recall_finds_an_abstraction_with_its_sources(service: MemoryService,
                                                      user: str) -> None:
    made = [say(service, user, n, t) for n, t in
            enumerate(["I like hiking.", "I like jazz.", "I prefer tea."])]
    a = service.reflect(user).written[0]
    result = service.recall(RecallIn(user_id=user, query="what does the user like",
                                     kinds=[MemoryKind.ABSTRACTION]))
    item = next(i for i in result.items if i.id == a.id)
    assert item.text == a.conclusion
    assert {s.id for s in item.sources} == {made[0].relations[0].id, made[1].relations[0].id}


def test_rule_and_habit_templates(service: MemoryService, user: str) -> None:
    for n, (s, p, o, cat) in enumerate([
            ("Docker build", "failed_because", "out of memory", "lesson"),
            ("Docker build", "requires", "a build cache", "lesson"),
            ("user", "goes", "running", "event"), ("user", "goes", "running", "event")]):
        service.add_relation(RelationIn(user_id=user, subject=s, predicate=p, object=o,
                                        category=cat, valid_from=day(7 * n),
                                        source_ref=f"r{n}"))
    by_kind = {a.kind: a for a in service.reflect(user).written}
    assert by_kind["rule"].conclusion == ("When working on Docker build: watch out for out "
                                          "of memory, which made it fail before; make sure "
                                          "it has a build cache")
    assert by_kind["habit"].conclusion == "user habitually goes running"
    assert "about every 7 days" in by_kind["habit"].conditions


def test_the_users_own_lessons_read_as_a_rule_they_keep(service: MemoryService,
                                                        user: str) -> None:
    """Each lesson said again in other words is one rule, as first said; two different
    lessons are two rules, and a lesson said once is none."""
    for n, text in enumerate(["Lesson learned: always back up before upgrading.",
                              "Lesson learned: run the tests before deploying.",
                              "Lesson learned: back up before every upgrade.",
                              "Lesson learned: always run the tests before a deploy.",
                              "Lesson learned: label the cables."]):
        say(service, user, 7 * n, text)
    for n, text in enumerate(["升级前一定要备份", "部署前先跑测试", "升级之前要先备份"]):
        service.add_relation(RelationIn(user_id=f"{user}-zh", subject="user",
                                        predicate="learned", object=text,
                                        category="lesson", valid_from=day(7 * n),
                                        source_ref=f"z{n}"))
    rules = sorted(a.conclusion for a in service.reflect(user).written if a.kind == "rule")
    assert rules == ["user keeps to: always back up before upgrading",
                     "user keeps to: run the tests before deploying"]
    assert all(a.conditions == ["learned from experience"]
               for a in service.abstractions(user) if a.kind == "rule")
    zh = [a for a in service.reflect(f"{user}-zh").written if a.kind == "rule"]
    assert [a.conclusion for a in zh] == ["用户的经验：升级前一定要备份"]
    assert len(zh[0].source_ids) == 2


def test_what_a_user_said_in_chinese_is_concluded_in_chinese(service: MemoryService,
                                                             user: str) -> None:
    # The object is written in Latin letters either way: the language of the conclusion
    # follows what the user said, not the name it holds.
    for n, text in enumerate(["我最喜欢用Firefox浏览器。", "我还是更喜欢Firefox浏览器。",
                              "浏览器我一直用Firefox。"]):
        say(service, f"{user}-zh", 7 * n, text)
    for n, text in enumerate(["I prefer Firefox as my browser.",
                              "I prefer Firefox for browsing, still."]):
        say(service, f"{user}-en", 7 * n, text)
    (zh,) = [a for a in service.reflect(f"{user}-zh").written if a.kind == "preference"]
    assert zh.conclusion == "用户一贯偏好Firefox（浏览器）" and zh.conditions == ["选择浏览器时"]
    (en,) = [a for a in service.reflect(f"{user}-en").written if a.kind == "preference"]
    assert en.conclusion == "user consistently prefers Firefox (browser)"


@pytest.fixture
def llm_service(store: Any, openai_stub: Any, clock: FakeClock) -> MemoryService:
    settings = make_settings(extractor="llm", llm_base_url=openai_stub.base_url,
                             llm_api_key="test", llm_max_retries=0)
    return MemoryService(settings, store, HashingEmbedder(DIM), clock=clock)


def test_llm_writes_the_conclusion_one_call_per_pattern(llm_service: MemoryService,
                                                        openai_stub: Any, user: str) -> None:
    prefer(llm_service, user, "Neovim", 0, "m1")
    prefer(llm_service, user, "Neovim", 3, "m2")
    openai_stub.reply(json.dumps({"items": [{
        "conclusion": "Picks Neovim whenever there is code to edit",
        "conditions": ["when editing code"]}]}))
    written = llm_service.reflect(user).written
    assert [(a.conclusion, a.conditions) for a in written] == [
        ("Picks Neovim whenever there is code to edit", ["when editing code"])]
    assert openai_stub.requests["chat"] == 1
    prompt = openai_stub.bodies[0]["messages"][1]["content"]
    assert "user prefers Neovim" in prompt and "2 independent sources" in prompt
    assert llm_service.reflect(user).changed == []  # nothing new: no call either
    assert openai_stub.requests["chat"] == 1


@pytest.mark.parametrize("reply", [
    "not json at all",
    json.dumps({"items": [{"conclusion": "", "conditions": []}]}),  # fails validation
    json.dumps({"items": [{"conclusion": "user prefers Neovim", "conditions": []}]}),  # a copy
    json.dumps({"items": []}),  # wrong count
])
def test_llm_failure_falls_back_to_the_template(llm_service: MemoryService, openai_stub: Any,
                                                user: str, reply: str) -> None:
    prefer(llm_service, user, "Neovim", 0, "m1")
    prefer(llm_service, user, "Neovim", 3, "m2")
    openai_stub.reply(reply)
    written = llm_service.reflect(user).written
    assert [a.conclusion for a in written] == ["user consistently prefers Neovim (editor)"]
    assert openai_stub.requests["chat"] == 1


def test_background_reflect_after_n_episodes(store: Any, clock: FakeClock, user: str) -> None:
    service = MemoryService(make_settings(reflect_every=2), store, HashingEmbedder(DIM),
                            clock=clock)
    try:
        say(service, user, 0, "I like hiking.")
        assert service.reflections.pending(user) == 1
        done = threading.Event()
        # A reflect in the request path would wait for this lock: the write must not.
        with service.reflector.lock:
            writer = threading.Thread(target=lambda: (say(service, user, 1, "I like jazz."),
                                                      done.set()))
            writer.start()
            assert done.wait(20), "addEpisode waited for the reflect"
            assert service.reflections.queued(user)
            assert service.abstractions(user) == []  # not reflected yet
        writer.join()
        assert service.reflections.wait_idle(30)
        found = service.abstractions(user)
        assert [a.kind for a in found] == ["taste"]
    finally:
        service.reflections.close()


@pytest.mark.slow
def test_cli_reflect(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from graphmem.cli import main

    data = tmp_path / "mem"
    src = tmp_path / "episodes.jsonl"
    src.write_text("\n".join(json.dumps({"content": c, "occurredAt": f"2025-0{n + 1}-01"})
                             for n, c in enumerate(["I like hiking.", "I like jazz."])) + "\n")
    common = ["--data-dir", str(data), "--embedder", "hashing"]
    assert main(["ingest", str(src), "--user", "ana", *common]) == 0
    capsys.readouterr()
    assert main(["reflect", "--user", "ana", *common]) == 0
    out = capsys.readouterr().out
    assert "1 new or re-versioned, 0 closed, 1 current" in out
    assert "user tends to like hiking and jazz" in out
    assert main(["reflect", "--user", "ana", "--json", *common]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["changed"] == [] and len(again["abstractions"]) == 1


REFLECT = """mutation($u: ID!) { reflect(userId: $u) { id conclusion conditions confidence version
  status createdAt kind validFrom sources { id kind } supersedes { id } disputes { id } } }"""
ABSTRACTIONS = """query($u: ID!, $at: DateTime, $h: Boolean! = false) {
  abstractions(userId: $u, asOf: $at, includeHistory: $h) { id version status conclusion } }"""


def test_graphql_reflect_and_abstractions(service: MemoryService, clock: FakeClock,
                                          user: str) -> None:
    made = [say(service, user, n, t) for n, t in enumerate(["I like hiking.", "I like jazz."])]
    with serve_api(service) as api:
        first = api.data(REFLECT, {"u": user})["reflect"]
        assert len(first) == 1
        a = first[0]
        assert a["conclusion"] == "user tends to like hiking and jazz"
        assert a["version"] == 1 and a["status"] == "ACTIVE" and a["kind"] == "taste"
        assert a["validFrom"].startswith("2025-03-02T09:00:00")
        assert {s["id"] for s in a["sources"]} == {m.relations[0].id for m in made}
        assert {s["kind"] for s in a["sources"]} == {"RELATION"}
        assert api.data(REFLECT, {"u": user})["reflect"] == []
        clock.tick(60)
        say(service, user, 9, "I like sushi.")
        second = api.data(REFLECT, {"u": user})["reflect"]
        assert [(x["version"], x["supersedes"]) for x in second] == [(2, [{"id": a["id"]}])]
        now = api.data(ABSTRACTIONS, {"u": user})["abstractions"]
        assert [x["id"] for x in now] == [second[0]["id"]]
        then = api.data(ABSTRACTIONS, {"u": user, "at": "2025-03-05T00:00:00Z"})["abstractions"]
        assert [x["id"] for x in then] == [a["id"]]
        history = api.data(ABSTRACTIONS, {"u": user, "h": True})["abstractions"]
        assert [(x["version"], x["status"]) for x in history] == [(1, "SUPERSEDED"),
                                                                  (2, "ACTIVE")]
        err = api.errors(ABSTRACTIONS, {"u": "nobody-at-all"})
        assert err[0]["extensions"]["code"] == "NOT_FOUND"


def test_a_key_cannot_reflect_or_read_another_users_abstractions(
        embedded_store: Any, user: str) -> None:
    a, b = f"{user}-a", f"{user}-b"
    settings = make_settings(api_keys={"key-a": [a], "key-b": [b]})
    service = MemoryService(settings, embedded_store, HashingEmbedder(DIM), clock=FakeClock())
    for n, t in enumerate(["I like hiking.", "I like jazz."]):
        say(service, b, n, t)
    key_a, key_b = {"Authorization": "Bearer key-a"}, {"Authorization": "Bearer key-b"}
    with serve_api(service, settings) as api:
        for query in (REFLECT, ABSTRACTIONS):
            err = api.errors(query, {"u": b}, key_a)
            assert err[0]["extensions"] == {"code": "FORBIDDEN", "field": "userId"}
        assert api.data(ABSTRACTIONS, {"u": b}, key_b)["abstractions"] == []  # none written
        assert len(api.data(REFLECT, {"u": b}, key_b)["reflect"]) == 1
        assert api.errors(ABSTRACTIONS, {"u": b}, key_a)[0]["extensions"]["code"] == "FORBIDDEN"


def test_stats_say_whether_reflection_is_due(service: MemoryService, clock: FakeClock,
                                             user: str) -> None:
    made = [say(service, user, n, f"I like {x}.") for n, x in
            enumerate(["hiking", "jazz", "sushi"])]
    stats = service.stats(user)
    assert stats.reflection_due and stats.reflection_reason == "1 new pattern(s)"
    service.reflect(user)
    stats = service.stats(user)
    assert not stats.reflection_due and stats.reflection_reason is None
    clock.tick(60)
    service.forget(user, made[0].relations[0].id)
    assert service.stats(user).reflection_reason == "1 with changed evidence"
    with serve_api(service) as api:
        got = api.data("query($u: ID!) { stats(userId: $u) { reflectionDue reflectionReason } }",
                       {"u": user})["stats"]
    assert got == {"reflectionDue": True, "reflectionReason": "1 with changed evidence"}


def test_a_habit_keeps_its_cadence_as_said(service: MemoryService, user: str) -> None:
    """"I go climbing every Tuesday" said twice: a habit whose condition is the cadence as
    said, not how often it was mentioned; in Chinese for what was said in Chinese."""
    for n, text in enumerate(["I go climbing every Tuesday.", "I went climbing again.",
                              "I go climbing every Tuesday."]):
        say(service, user, 9 * n, text)
    for n, text in enumerate(["我每周二去攀岩。", "我又去攀岩了。"]):
        service.add_episode(EpisodeIn(user_id=f"{user}-zh", occurred_at=day(9 * n),
                                      content=text))
    habit = next(a for a in service.reflect(user).written if a.kind == "habit")
    assert (habit.conclusion, habit.conditions) == ("user habitually goes climbing",
                                                    ["every Tuesday"])
    zh = next(a for a in service.reflect(f"{user}-zh").written if a.kind == "habit")
    assert (zh.conclusion, zh.conditions) == ("用户经常攀岩", ["每周二"])


def test_a_chinese_conclusion_names_the_object_as_the_user_said_it(service: MemoryService,
                                                                   user: str) -> None:
    """绿茶 is stored under its canonical name "green tea"; the Chinese conclusion says 绿茶."""
    for n, text in enumerate(["我喜欢喝绿茶。", "我最喜欢的饮料是绿茶。"]):
        service.add_episode(EpisodeIn(user_id=user, occurred_at=day(5 * n), content=text))
    drink = next(a for a in service.reflect(user).written if a.kind == "preference")
    assert drink.conclusion == "用户一贯偏好绿茶（饮料）"
    assert [service.relation(user, i).object for i in drink.source_ids] == ["green tea"]
