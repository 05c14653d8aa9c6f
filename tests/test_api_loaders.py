"""DataLoaders: nested fields of N parents load in one store call per level."""

from __future__ import annotations

import pytest

from graphmem.store.falkor import FalkorStore

from .api_support import CountingStore, make_service, serve_api
from .conftest import FakeClock

N = 6


def test_nested_reads_batch_per_level(embedded_store: FalkorStore, user: str,
                                      clock: FakeClock) -> None:
    store = CountingStore(embedded_store)
    service = make_service(store, clock)
    with serve_api(service) as api:
        episodes = [{"userId": user, "occurredAt": f"2025-01-{i + 1:02d}T10:00:00Z",
                     "content": f"I work at Company{i}.", "sourceRef": f"m{i}"}
                    for i in range(N)]
        api.data("mutation($ins: [EpisodeInput!]!) { addEpisodes(inputs: $ins) "
                 "{ duplicate } }", {"ins": episodes})
        q = """query($u: ID!) { relations(userId: $u, includeHistory: true) {
          id
          sources { id sourceRef }
          evidence { id content }
          subjectEntity { name }
          objectEntity { name }
          supersedes { id evidence { id } subjectEntity { name } }
          supersededBy { id evidence { id } objectEntity { name } }
        } }"""
        store.reset()
        rels = api.data(q, {"u": user})["relations"]
    assert len(rels) == N, rels
    assert sorted(s["sourceRef"] for r in rels for s in r["sources"]) == \
        sorted(f"m{i}" for i in range(N))
    # works_at is exclusive: each job supersedes the previous one.
    assert sum(len(r["supersedes"]) for r in rels) == N - 1
    calls = store.calls
    # Level 1: evidence + sources of all N relations share one episode read; subject and
    # object entities of all N relations one entity read. Level 2: supersedes + supersededBy
    # of all N relations one relation read (+ its chain edges); their evidence and entities
    # were all loaded at level 1 already: the request's loader cache answers.
    assert calls[("nodes", "Episode")] == 1, calls
    assert calls[("nodes", "Entity")] == 1, calls
    assert calls[("nodes", "Relation")] == 1, calls
    # relations() itself reads chain edges once, the relation loader once.
    assert calls[("chain_edges", "")] == 2, calls

    store.reset()
    with serve_api(service) as api:  # level 2 alone needs new ids: still one read per level
        deep = api.data("""query($u: ID!) { relations(userId: $u) {
          supersedes { evidence { id } supersedes { evidence { id } } } } }""",
                        {"u": user})["relations"]
    assert deep[0]["supersedes"][0]["supersedes"], deep
    assert calls[("nodes", "Relation")] == 2, calls  # one per level of supersedes
    assert calls[("nodes", "Episode")] == 2, calls  # one per level of evidence


@pytest.mark.parametrize("n", [1, 3])
def test_loader_is_per_request(embedded_store: FalkorStore, user: str, n: int) -> None:
    """A second request does not reuse the first one's cache (no stale reads)."""
    store = CountingStore(embedded_store)
    with serve_api(make_service(store)) as api:
        api.data(f'mutation {{ addEpisode(input: {{userId: "{user}", occurredAt: "2025-01-01", '
                 'content: "I live in Paris."}) { duplicate } }')
        q = f'{{ relations(userId: "{user}") {{ evidence {{ id }} }} }}'
        for _ in range(n):
            api.data(q)
        store.reset()
        api.data(q)
    assert store.calls[("nodes", "Episode")] == 1
