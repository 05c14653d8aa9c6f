"""Delete a session: gc(sessionId) takes every episode of that session whatever its
importance, reports first (dry run by default), forgets softly (restore brings each back),
leaves what was learned from them, and touches no other session or user. On both stores."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from graphmem.errors import InvalidInputError
from graphmem.inputs import EpisodeIn
from graphmem.model import MemoryKind
from graphmem.readers import Readers
from graphmem.service import MemoryService


def _say(service: MemoryService, user: str, session: str, text: str, day: int) -> str:
    return service.add_episode(EpisodeIn(
        user_id=user, session_id=session, content=text, role="user",
        occurred_at=datetime(2025, 3, day, tzinfo=UTC))).episode.id


def _visible(service: MemoryService, user: str) -> set[str]:
    page = Readers(service).episodes_page(user, session_id=None, limit=100, offset=0)
    return {e.id for e in page.items}


def test_a_session_is_reported_then_forgotten_and_restorable(service: MemoryService,
                                                             user: str) -> None:
    s1 = [_say(service, user, "s1", text, d) for d, text in (
        (1, "I prefer green tea in the mornings."), (2, "My sister lives in Porto."),
        (3, "Can you summarise this article for me?"))]
    s2 = [_say(service, user, "s2", "I moved to Lyon last spring.", 4)]
    other = f"{user}-other"
    theirs = _say(service, other, "s1", "I prefer coffee.", 5)
    learned = {r.statement for r in service.relations(user)}

    report = service.lifecycle.gc(user, session_id="s1")
    assert report.dry_run and report.forgotten == 0
    assert {c.id for c in report.candidates} == set(s1)
    assert _visible(service, user) == set(s1 + s2)  # a dry run hides nothing

    done = service.lifecycle.gc(user, session_id="s1", dry_run=False)
    assert done.forgotten == 3
    assert _visible(service, user) == set(s2)
    assert {r.statement for r in service.relations(user)} == learned  # nothing cascades
    assert _visible(service, other) == {theirs}  # the same session name, another user
    assert service.restore(user, s1[0])
    assert _visible(service, user) == {s1[0], *s2}


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"kinds": [MemoryKind.RELATION]}, "kinds"),
    ({"max_importance": 0.5}, "maxImportance"),
    ({"session_id": "s\x00"}, "sessionId"),
])
def test_bad_session_requests_change_nothing(service: MemoryService, user: str,
                                             kwargs: dict[str, object], field: str) -> None:
    ids = {_say(service, user, "s1", "I prefer green tea.", 1)}
    args: dict[str, object] = {"session_id": "s1", "dry_run": False, **kwargs}
    with pytest.raises(InvalidInputError) as err:
        service.lifecycle.gc(user, **args)  # type: ignore[arg-type]
    assert err.value.field == field
    assert _visible(service, user) == ids
