"""Scopes and sessions: a memory may belong to a project or workspace (``scope``) beside
its user and session. A scope has its own exclusive slots and abstractions; reads under a
scope see that scope and the user level (no scope), never another scope; a session filter
keeps that session's episodes and relations; gc deletes a scope; export takes one. On both
stores, and through the real server with the client."""

from __future__ import annotations

import io
import json
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from graphmem.client import GraphMemClient
from graphmem.errors import InvalidInputError
from graphmem.inputs import EpisodeIn, RecallIn, RelationIn
from graphmem.model import MemoryKind, MemoryStatus
from graphmem.readers import Readers
from graphmem.service import MemoryService
from graphmem.transfer import export_user, validate_export

from .test_client import gm, live  # noqa: F401 - fixtures

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)


def day(n: int) -> datetime:
    return T0 + timedelta(days=n)


def prefer(service: MemoryService, user: str, editor: str, n: int,
           scope: str | None) -> Any:
    return service.add_relation(RelationIn(
        user_id=user, subject="user", predicate="prefers", object=editor, valid_from=day(n),
        exclusive=True, category="preference:editor", source_ref=f"m{n}", scope=scope))


def say(service: MemoryService, user: str, n: int, text: str, *, scope: str | None = None,
        session: str | None = None) -> Any:
    return service.add_episode(EpisodeIn(user_id=user, occurred_at=day(n), content=text,
                                         scope=scope, session_id=session))


def recalled(service: MemoryService, user: str, query: str, **kw: Any) -> list[str]:
    return [i.id for i in service.recall(RecallIn(user_id=user, query=query, limit=20,
                                                  **kw)).items]


def test_a_scope_has_slots_of_its_own(service: MemoryService, user: str) -> None:
    vim = prefer(service, user, "Vim", 1, "acme")
    emacs = prefer(service, user, "Emacs", 2, "globex")
    nano = prefer(service, user, "nano", 3, None)
    # three scopes, three slots: none supersedes another
    assert {r.id for r in service.relations(user)} == {vim.id, emacs.id, nano.id}
    assert (vim.scope, emacs.scope, nano.scope) == ("acme", "globex", None)
    helix = prefer(service, user, "Helix", 4, "acme")
    assert helix.supersedes_ids == [vim.id]
    assert {r.id for r in service.relations(user, scope="acme")} == {helix.id, nano.id}
    assert {r.id for r in service.relations(user, scope="globex")} == {emacs.id, nano.id}
    assert {r.id for r in service.relations(user, scope="nowhere")} == {nano.id}
    old = service.relations(user, scope="acme", include_history=True)
    assert {r.id for r in old} == {vim.id, helix.id, nano.id}
    assert next(r for r in old if r.id == vim.id).status is MemoryStatus.SUPERSEDED


def test_recall_under_a_scope_never_shows_another_scope(service: MemoryService,
                                                        user: str) -> None:
    work = say(service, user, 1, "We deploy the billing service on Fridays.", scope="acme")
    home = say(service, user, 2, "We deploy the garden sprinklers on Fridays.", scope="home")
    mine = say(service, user, 3, "I never deploy anything late on Fridays.")
    everything = recalled(service, user, "deploy on Fridays", kinds=[MemoryKind.EPISODE])
    assert {work.episode.id, home.episode.id, mine.episode.id} <= set(everything)
    at_work = recalled(service, user, "deploy on Fridays", scope="acme")
    assert work.episode.id in at_work and mine.episode.id in at_work
    assert home.episode.id not in at_work
    # what is learned from a scoped episode belongs to its scope
    learned = say(service, user, 4, "I work at Initech as a tester.", scope="acme")
    assert learned.relations and all(r.scope == "acme" for r in learned.relations)
    assert learned.episode.scope == "acme"
    at_home = service.recall(RecallIn(user_id=user, query="Initech tester", scope="home"))
    assert all(i.id not in {r.id for r in learned.relations} | {learned.episode.id}
               for i in at_home.items)


def test_a_small_scope_in_a_big_memory_still_fills_its_recall(service: MemoryService,
                                                               user: str) -> None:
    # 400 episodes of another scope match the question better than the small scope's
    # three: the searches' first hits are all the other scope's, so recall must search
    # deeper rather than come back short
    service.add_episodes([EpisodeIn(user_id=user, occurred_at=day(n % 300), scope="big",
                                    content=f"We deploy the billing service on Fridays, "
                                            f"batch {n}.") for n in range(400)])
    mine = [say(service, user, 301 + n, f"Deploy notes {n}: the garden lights go on at dusk.",
                scope="tiny").episode.id for n in range(3)]
    got = service.recall(RecallIn(user_id=user, query="deploy the billing service on "
                                  "Fridays", limit=10, scope="tiny",
                                  kinds=[MemoryKind.EPISODE]))
    assert set(mine) <= {i.id for i in got.items}
    assert all(i.id in mine for i in got.items)


def test_a_session_filter_keeps_that_sessions_episodes_and_relations(
        service: MemoryService, user: str) -> None:
    one = say(service, user, 1, "I moved to Lisbon in spring.", session="s1")
    two = say(service, user, 2, "I moved to Porto in autumn.", session="s2")
    got = service.recall(RecallIn(user_id=user, query="where did I move", limit=20,
                                  session_id="s1"))
    ids = {i.id for i in got.items}
    assert one.episode.id in ids and two.episode.id not in ids
    assert all(i.kind in (MemoryKind.EPISODE, MemoryKind.RELATION) for i in got.items)
    rels = service.relations(user, session_id="s2")
    assert rels and all(r.session_id == "s2" for r in rels)
    assert {r.id for r in two.relations} >= {r.id for r in rels}


def test_reflect_draws_per_scope_and_reads_filter(service: MemoryService, user: str) -> None:
    for n in (1, 5):
        prefer(service, user, "Vim", n, "acme")
        prefer(service, user, "Emacs", n + 1, "globex")
    only = service.reflect(user, "acme")
    assert [a.scope for a in only.written] == ["acme"]
    assert "Vim" in only.written[0].conclusion
    rest = service.reflect(user)
    assert [a.scope for a in rest.written] == ["globex"]
    assert service.reflect(user).changed == []  # nothing new: nothing written
    assert [a.scope for a in service.abstractions(user, scope="acme")] == ["acme"]
    assert {a.scope for a in service.abstractions(user)} == {"acme", "globex"}


def test_gc_deletes_a_scope_after_a_dry_run(service: MemoryService, user: str) -> None:
    gone = [say(service, user, n, text, scope="old-project") for n, text in (
        (1, "We use Postgres for the ledger."), (2, "The ledger deploys on Mondays."))]
    kept = say(service, user, 3, "We use Redis for the cache.", scope="new-project")
    mine = say(service, user, 4, "I like green tea.")
    for n in (5, 9):
        prefer(service, user, "Vim", n, "old-project")
    drawn = service.reflect(user).written
    ids = {e.episode.id for e in gone}
    scoped_rel = {r.id for r in service.relations(user, scope="old-project")
                  if r.scope == "old-project"}
    report = service.lifecycle.gc(user, scope="old-project")
    assert report.dry_run and {c.id for c in report.candidates} == ids
    everything = [MemoryKind.EPISODE, MemoryKind.RELATION, MemoryKind.ABSTRACTION]
    done = service.lifecycle.gc(user, scope="old-project", kinds=everything, dry_run=False)
    assert {c.id for c in done.candidates} == ids | scoped_rel | {a.id for a in drawn}
    assert any("relations" in w for w in done.warnings)
    page = Readers(service).episodes_page(user, session_id=None, limit=100, offset=0)
    assert {e.id for e in page.items} == {kept.episode.id, mine.episode.id}
    assert not service.relations(user, scope="old-project") or all(
        r.scope is None for r in service.relations(user, scope="old-project"))
    assert service.abstractions(user) == []
    assert service.restore(user, gone[0].episode.id)


@pytest.mark.parametrize("scope", ["", "   ", "a\x00b", "x" * 201, "two\nlines"])
def test_a_bad_scope_is_refused_and_changes_nothing(service: MemoryService, user: str,
                                                    scope: str) -> None:
    say(service, user, 0, "I like tea.")
    before = service.stats(user)
    with pytest.raises(InvalidInputError) as err:
        say(service, user, 1, "I like coffee.", scope=scope)
    assert err.value.field == "scope"
    with pytest.raises(InvalidInputError):
        prefer(service, user, "Vim", 2, scope)
    for call in (lambda: service.recall(RecallIn(user_id=user, query="tea", scope=scope)),
                 lambda: service.relations(user, scope=scope),
                 lambda: service.lifecycle.gc(user, scope=scope, dry_run=False)):
        with pytest.raises(InvalidInputError) as err:
            call()
        assert err.value.field == "scope"
    after = service.stats(user)
    assert (after.episodes, after.relations) == (before.episodes, before.relations)


def test_a_scope_exports_alone(service: MemoryService, user: str, tmp_path: Path) -> None:
    work = say(service, user, 1, "I work at Initech as a tester.", scope="acme")
    say(service, user, 2, "I live in Lisbon.", scope="home")
    say(service, user, 3, "I like green tea.")
    buf = io.StringIO()
    summary = export_user(service, user, buf, scope="acme")
    records = [json.loads(line) for line in buf.getvalue().splitlines()]
    assert records[0]["scope"] == "acme"
    nodes = [r for r in records if r["type"] == "node"]
    assert {r["props"].get("scope") for r in nodes if r["label"] != "Entity"} == {"acme"}
    assert {r["props"]["id"] for r in nodes if r["label"] == "Episode"} == {work.episode.id}
    names = {r["props"]["name"] for r in nodes if r["label"] == "Entity"}
    assert "Initech" in names and "Lisbon" not in names
    assert summary.nodes["Episode"] == 1
    path = tmp_path / "acme.jsonl"
    path.write_text(buf.getvalue(), encoding="utf-8")
    validate_export(path)  # every edge joins two nodes of the file


def test_a_session_exports_alone(service: MemoryService, user: str, tmp_path: Path) -> None:
    one = say(service, user, 1, "I work at Initech as a tester.", session="s1")
    say(service, user, 2, "I live in Lisbon.", session="s2")
    buf = io.StringIO()
    export_user(service, user, buf, session_id="s1")
    records = [json.loads(line) for line in buf.getvalue().splitlines()]
    assert records[0]["sessionId"] == "s1"
    nodes = [r for r in records if r["type"] == "node"]
    assert {r["props"]["id"] for r in nodes if r["label"] == "Episode"} == {one.episode.id}
    assert {r["props"]["id"] for r in nodes if r["label"] == "Relation"} == {
        rel.id for rel in one.relations}
    assert "Lisbon" not in buf.getvalue()
    path = tmp_path / "s1.jsonl"
    path.write_text(buf.getvalue(), encoding="utf-8")
    validate_export(path)


def test_events_under_a_scope_are_about_its_memories_and_the_user_level(
        service: MemoryService, user: str) -> None:
    a = say(service, user, 1, "We deploy the billing service on Fridays.", scope="acme")
    b = say(service, user, 2, "We water the garden on Fridays.", scope="home")
    shared = say(service, user, 3, "I prefer short meetings.")
    vim = prefer(service, user, "Vim", 4, "acme")
    helix = prefer(service, user, "Helix", 5, "acme")
    emacs = prefer(service, user, "Emacs", 6, "home")
    nano = prefer(service, user, "nano", 7, "home")

    def seen(scope: str | None) -> set[tuple[str, str]]:
        page = service.events(user, since=T0 - timedelta(days=365 * 50), limit=1000,
                              scope=scope)
        return {(e.kind, e.memory_id) for e in page.items}

    acme, everything = seen("acme"), seen(None)
    ids = {m for _, m in acme}
    assert {a.episode.id, shared.episode.id, vim.id, helix.id} <= ids
    assert not ids & {b.episode.id, emacs.id, nano.id}
    assert ("SUPERSEDED", vim.id) in acme and ("SUPERSEDED", emacs.id) not in acme
    assert ("SUPERSEDED", emacs.id) in seen("home")
    assert acme < everything  # no scope: every event
    assert {m for _, m in seen("nowhere")} & {a.episode.id, b.episode.id} == set()
    with pytest.raises(InvalidInputError):
        service.events(user, since=T0, scope=" ")


# --------------------------------------------------------------------------- the server


def test_scopes_through_the_server(gm: GraphMemClient) -> None:  # noqa: F811
    user, other = f"sc-{uuid.uuid4().hex[:8]}", f"sc-{uuid.uuid4().hex[:8]}"
    a = gm.add_episode(user, "2025-03-01T09:00:00Z", scope="acme",
                       content="We deploy the billing service on Fridays.")
    b = gm.add_episode(user, "2025-03-02T09:00:00Z", scope="home",
                       content="We deploy the garden sprinklers on Fridays.")
    theirs = gm.add_episode(other, "2025-03-02T09:00:00Z", scope="acme",
                            content="We deploy the billing service on Fridays too.")
    assert a.episode.scope == "acme"
    got = {i.id for i in gm.recall(user, "deploy on Fridays", scope="acme").items}
    assert a.episode.id in got and b.episode.id not in got
    assert theirs.episode.id not in got  # a scope name is no way into another user
    r1 = gm.add_relation(user, "user", "prefers", "Vim", exclusive=True, scope="acme",
                         category="preference:editor")
    r2 = gm.add_relation(user, "user", "prefers", "Emacs", exclusive=True, scope="home",
                         category="preference:editor")
    assert (r1.scope, r2.scope) == ("acme", "home") and not r2.supersedes
    assert {r.id for r in gm.relations(user, scope="acme")} == {r1.id}
    report = gm.gc(user, scope="home")
    assert report.dry_run and {c.id for c in report.candidates} == {b.episode.id}
    done = gm.gc(user, scope="home", dry_run=False)
    assert done.forgotten == 1
    assert b.episode.id not in {i.id for i in gm.recall(user, "garden sprinklers").items}
    assert {e.id for e in gm.episodes(other).items} == {theirs.episode.id}
    # the feed under a scope: its memories and the user level's, never another user's
    feed = {e.memory_id for e in gm.events(user, "2000-01-01T00:00:00Z", scope="acme",
                                           limit=1000).items}
    assert {a.episode.id, r1.id} <= feed and not feed & {b.episode.id, r2.id}
    assert theirs.episode.id not in feed
