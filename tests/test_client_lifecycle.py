"""The client's lifecycle calls against the real server under uvicorn: feedback and its
audit trail, importance, gc (dry run first), the events feed paged to the end; and every
root field of the GraphQL contract has a method on both clients."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import anyio
import pytest

from graphmem.client import (
    AsyncGraphMemClient,
    ClientError,
    FeedbackSignal,
    GraphMemClient,
    MemoryEventKind,
    MemoryKind,
)

from .test_client import FAST, LiveApp, gm, live  # noqa: F401 - fixtures

ROOT = Path(__file__).resolve().parent.parent


def _user() -> str:
    return f"life-{uuid.uuid4().hex[:10]}"


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def test_every_query_and_mutation_has_a_client_method() -> None:
    schema = (ROOT / "schema.graphql").read_text(encoding="utf-8")
    fields: set[str] = set()
    for root in ("Query", "Mutation"):
        body = schema.split(f"type {root} {{", 1)[1].split("\n}", 1)[0]
        body = re.sub(r'"""[\s\S]*?"""', "", body)
        fields |= {m for m in re.findall(r"^\s{2}(\w+)\s*[(:]", body, flags=re.M)}
    assert {"recall", "addFeedback", "gc", "events", "importance"} <= fields
    for client in (GraphMemClient, AsyncGraphMemClient):
        missing = sorted(f for f in fields if not callable(getattr(client, _snake(f), None)))
        assert not missing, (client.__name__, missing)


def test_feedback_moves_importance_and_is_audited(gm: GraphMemClient) -> None:  # noqa: F811
    user = _user()
    rel = gm.add_relation(user, "Ana", "prefers", "tea", source_ref="m1")
    before = gm.importance(user, rel.id)
    assert before.kind == MemoryKind.RELATION and before.feedback == []
    one = gm.feedback(user, rel.id, "helpful", note="used in an answer")
    assert one.applied.signal == FeedbackSignal.HELPFUL
    assert one.applied.importance_after > one.applied.importance_before
    agreeing = [gm.add_feedback(user, [rel.id], FeedbackSignal.POSITIVE, confidence=0.8,
                                by="agent-7")[0] for _ in range(2)]
    assert agreeing[1].applied.importance_after >= agreeing[0].applied.importance_after
    trail = gm.importance(user, rel.id).feedback
    assert [e.signal for e in trail] == ["HELPFUL", "POSITIVE", "POSITIVE"]
    assert [e.by for e in trail[1:]] == ["agent-7", "agent-7"] and trail[1].weight == 0.8
    # one unknown target: nothing is applied to the known one either
    with pytest.raises(ClientError):
        gm.add_feedback(user, [rel.id, "rel_nope"], "NEGATIVE")
    assert len(gm.importance(user, rel.id).feedback) == 3
    with pytest.raises(ClientError):
        gm.feedback(user, rel.id, "SPLENDID")  # not a signal: refused before sending


def test_gc_reports_before_it_forgets_and_forgotten_memories_restore(
        gm: GraphMemClient) -> None:  # noqa: F811
    user = _user()
    old = [gm.add_episode(user, f"2015-0{m}-01T10:00:00Z", source_ref=f"old-{m}",
                          content=f"Note {m}: the printer on floor {m} jammed again.")
           for m in range(1, 4)]
    fresh = gm.add_episode(user, "2030-01-01T10:00:00Z", content="I like hiking.")
    report = gm.gc(user, older_than="2020-01-01T00:00:00Z", max_importance=1.0)
    assert report.dry_run and report.forgotten == 0
    assert {c.id for c in report.candidates} == {e.episode.id for e in old}
    assert gm.episodes(user).total == 4  # a dry run hides nothing
    done = gm.gc(user, dry_run=False, older_than="2020-01-01T00:00:00Z", max_importance=1.0)
    assert done.forgotten == 3
    assert [e.id for e in gm.episodes(user).items] == [fresh.episode.id]
    assert gm.restore(user, old[0].episode.id)
    assert gm.episodes(user).total == 2


def test_the_events_feed_pages_to_the_end_on_both_clients(
        gm: GraphMemClient, live: LiveApp) -> None:  # noqa: F811
    user = _user()
    since = "2000-01-01T00:00:00Z"
    a = gm.add_relation(user, "Ana", "lives_in", "Paris", valid_from="2020-01-01",
                        exclusive=True)
    b = gm.add_relation(user, "Ana", "lives_in", "Berlin", valid_from="2023-01-01",
                        exclusive=True)
    gm.forget(user, b.id)
    events = list(gm.iter_events(user, since, page_size=2))
    kinds = [(e.kind, e.memory_id) for e in events]
    assert (MemoryEventKind.RECORDED, a.id) in kinds and (MemoryEventKind.RECORDED, b.id) in kinds
    assert (MemoryEventKind.SUPERSEDED, a.id) in kinds
    assert (MemoryEventKind.FORGOTTEN, b.id) in kinds
    assert len({e.cursor for e in events}) == len(events)
    assert [e.at for e in events] == sorted(e.at for e in events)

    async def paged() -> list[str]:
        async with AsyncGraphMemClient(live.url, api_key="key-all", retry=FAST) as agm:
            return [e.cursor async for e in agm.iter_events(user, since, page_size=3)]

    assert anyio.run(paged) == [e.cursor for e in events]


def test_a_session_is_deleted_through_the_api(gm: GraphMemClient) -> None:  # noqa: F811
    user = _user()
    mine = [gm.add_episode(user, f"2025-03-0{d}T10:00:00Z", session_id="trip",
                           content=f"Day {d} of the trip: we walked a lot.").episode.id
            for d in (1, 2)]
    kept = gm.add_episode(user, "2025-04-01T10:00:00Z", session_id="work",
                          content="I report to Marta now.").episode.id
    report = gm.gc(user, session_id="trip")
    assert report.dry_run and {c.id for c in report.candidates} == set(mine)
    assert gm.gc(user, session_id="trip", dry_run=False).forgotten == 2
    assert [e.id for e in gm.episodes(user).items] == [kept]
    with pytest.raises(ClientError) as err:
        gm.gc(user, session_id="trip", kinds=["relation"])
    assert err.value.field and "kinds" in err.value.field
