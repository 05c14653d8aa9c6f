"""The claim timeline (pure): the conflict rules, checked against a reference model."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.model import MemoryStatus
from graphmem.temporal import Claim, desired_nodes, timeline, until_at


def c(obj: str, start: int, *, stop: bool = False, until: int | None = None,
      rec: int = 0, told: int | None = None) -> Claim:
    return Claim(obj=obj, start=start, recorded=rec, stop=stop, until=until, told=told)


def objects_at(segments, t: int) -> set[str]:  # type: ignore[no-untyped-def]
    for seg in segments:
        if seg.start <= t and (seg.end is None or t < seg.end):
            return set(seg.objects)
    return set()


def reference_objects(claims: list[Claim], t: int) -> set[str]:
    """Written from the rules, independently of the implementation's segment walk:
    replay the distinct times up to t that a claim is read at (its start, and its telling
    when later and it declares no end); new positives replace the state, the same single
    object again joins it, stops of a held object clear it, and a declared end (when every
    claim of the state declares one) clears it once passed."""
    def read_at(x: Claim) -> set[int]:
        later = x.told is not None and x.told > x.start and x.until is None
        return {x.start, x.told} if later else {x.start}  # type: ignore[arg-type]

    state: set[str] = set()
    members: list[Claim] = []
    for start in sorted({p for x in claims for p in read_at(x) if p <= t}):
        if _ended(members, start):
            state, members = set(), []
        at = [x for x in claims if start in read_at(x)]
        pos = {x.obj for x in at if not x.stop}
        if pos:
            if pos == state and len(pos) == 1:
                members += [x for x in at if not x.stop and x not in members]
            else:
                state, members = pos, [x for x in at if not x.stop]
        elif state & {x.obj for x in at if x.stop}:
            state, members = set(), []
    return set() if _ended(members, t) else state


def _ended(members: list[Claim], t: int) -> bool:
    ends = [x.until for x in members if x.until is not None]
    return bool(members) and len(ends) == len(members) and max(ends) <= t


def test_supersede_closes_the_old_relation() -> None:
    segs = timeline([c("vue", 10), c("react", 20)])
    assert [(s.objects, s.start, s.end) for s in segs] == [(("vue",), 10, 20),
                                                          (("react",), 20, None)]


def test_backfill_is_inserted_before_the_current_one() -> None:
    segs = timeline([c("vue", 10), c("react", 30), c("svelte", 20)])
    assert [(s.objects, s.start, s.end) for s in segs] == [
        (("vue",), 10, 20), (("svelte",), 20, 30), (("react",), 30, None)]


def test_same_object_reinforces_without_a_new_segment() -> None:
    segs = timeline([c("vue", 10), c("vue", 15), c("vue", 18)])
    assert len(segs) == 1 and len(segs[0].claims) == 3


def test_same_start_conflict_is_one_disputed_segment_then_superseded() -> None:
    nodes, edges = desired_nodes("g", [c("vue", 10), c("react", 10)])
    assert {n.obj: n.status for n in nodes} == {"vue": MemoryStatus.DISPUTED,
                                                "react": MemoryStatus.DISPUTED}
    assert {e[0] for e in edges} == {"DISPUTED"}
    nodes, edges = desired_nodes("g", [c("vue", 10), c("react", 10), c("svelte", 20)])
    status = {n.obj: n.status for n in nodes}
    assert status == {"vue": MemoryStatus.SUPERSEDED, "react": MemoryStatus.SUPERSEDED,
                      "svelte": MemoryStatus.ACTIVE}
    assert sum(1 for e in edges if e[0] == "SUPERSEDES") == 2


def test_reinforcement_that_is_later_split_keeps_its_claim() -> None:
    # vue@10, vue@30 merge; react@20 then splits them: vue is true again from 30.
    segs = timeline([c("vue", 10), c("vue", 30), c("react", 20)])
    assert [(s.objects, s.start, s.end) for s in segs] == [
        (("vue",), 10, 20), (("react",), 20, 30), (("vue",), 30, None)]


def test_stop_ends_the_held_object_only() -> None:
    assert objects_at(timeline([c("vue", 10), c("vue", 20, stop=True)]), 25) == set()
    assert objects_at(timeline([c("vue", 10), c("react", 20, stop=True)]), 25) == {"vue"}


def test_declared_end_leaves_a_gap() -> None:
    segs = timeline([c("acme", 10, until=15), c("globex", 20)])
    assert objects_at(segs, 12) == {"acme"}
    assert objects_at(segs, 17) == set()
    assert objects_at(segs, 21) == {"globex"}


def test_a_claim_told_after_its_start_holds_again_when_told() -> None:
    # "moved to Chengdu last year" (start 10) told at 30, after "I live in Beijing" at 20
    segs = timeline([c("beijing", 20), c("chengdu", 10, told=30)])
    assert [(s.objects, s.start, s.end) for s in segs] == [
        (("chengdu",), 10, 20), (("beijing",), 20, 30), (("chengdu",), 30, None)]
    # told before the other's start (an old message imported late): history only
    segs = timeline([c("beijing", 20), c("chengdu", 10, told=15)])
    assert [(s.objects, s.start) for s in segs] == [(("chengdu",), 10), (("beijing",), 20)]
    # nothing in between: one segment, the claim listed once
    segs = timeline([c("chengdu", 10, told=30)])
    assert len(segs) == 1 and len(segs[0].claims) == 1
    # a declared end: read at its start only
    segs = timeline([c("beijing", 20), c("chengdu", 10, until=25, told=30)])
    assert objects_at(segs, 35) == {"beijing"}


def test_a_told_claim_keeps_its_telling_through_json() -> None:
    told = c("a", 1, told=5)
    plain = c("a", 1)
    assert Claim.from_json(told.to_json()) == told
    assert len(plain.to_json()) == 8 and Claim.from_json(plain.to_json()) == plain


def test_node_ids_depend_on_the_claims_not_their_order() -> None:
    claims = [c("a", 1), c("b", 5), c("a", 9), c("c", 5), c("b", 12)]
    first = sorted(n.id for n in desired_nodes("g", claims)[0])
    for seed in range(5):
        random.Random(seed).shuffle(claims)
        assert sorted(n.id for n in desired_nodes("g", claims)[0]) == first


def test_until_log_answers_by_system_time() -> None:
    log = [[100, None], [200, 50], [300, 40]]
    assert until_at(log, 50) == (False, None)
    assert until_at(log, 150) == (True, None)
    assert until_at(log, 250) == (True, 50)
    assert until_at(log, 999) == (True, 40)


claim_st = st.builds(
    c, st.sampled_from(["a", "b", "c", "d"]), st.integers(0, 40),
    stop=st.sampled_from([False, False, False, True]),
    until=st.one_of(st.none(), st.none(), st.integers(1, 50)),
    told=st.one_of(st.none(), st.none(), st.integers(0, 50)))


@settings(max_examples=400, deadline=None)
@given(st.lists(claim_st, min_size=1, max_size=12), st.integers(-1, 60))
def test_timeline_matches_the_reference_model(claims: list[Claim], t: int) -> None:
    claims = [x for x in claims if x.until is None or x.until > x.start]
    assert objects_at(timeline(claims), t) == reference_objects(claims, t)


@settings(max_examples=200, deadline=None)
@given(st.lists(claim_st, min_size=1, max_size=10), st.randoms())
def test_timeline_does_not_depend_on_arrival_order(claims: list[Claim], rnd) -> None:  # type: ignore[no-untyped-def]
    claims = [x for x in claims if x.until is None or x.until > x.start]
    shuffled = list(claims)
    rnd.shuffle(shuffled)
    a = [(s.objects, s.start, s.end) for s in timeline(claims)]
    b = [(s.objects, s.start, s.end) for s in timeline(shuffled)]
    assert a == b
