"""``graphmem demo``: load the shipped demo history into a fresh store and ask it questions.

The history (``graphmem.demo_data``) covers three years of one user, Ana. It is replayed
with the service's clock following it, so system time means something: a fact is
recorded on the day it was said, and "what did we believe on 1 January 2025?" has an
answer that differs from today's. The answers are printed on stdout, progress on stderr.

Also usable as a library (the explorer notebook does): ``ReplayClock``,
``build_demo_service``, ``load_history`` and ``ask``.
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from itertools import groupby
from pathlib import Path

from graphmem.demo_data import (
    DIRECT_RELATIONS,
    SPEAKER,
    TODAY,
    USER_ID,
    DemoRelation,
    DemoTurn,
    turns,
)
from graphmem.errors import GraphMemError
from graphmem.inputs import EpisodeIn, MessageIn, RecallIn, RelationIn
from graphmem.model import MemoryKind, Relation, from_ms
from graphmem.recall import RecallResult
from graphmem.service import MemoryService
from graphmem.settings import Settings

Progress = Callable[[str], None]

# Questions of the demo, also used by the tests and the notebook.
Q_NOW = "What does Ana prefer now?"
Q_LAST_YEAR = "What did Ana prefer last year?"
Q_BEFORE_BERLIN = "Where did Ana live before Berlin?"
BELIEF_DATE = datetime(2025, 1, 1, tzinfo=UTC)
Q_BELIEVED = f"What did we believe on {BELIEF_DATE:%Y-%m-%d} about where Ana lived?"
Q_REPORTS = "Who does Ana report to?"


class ReplayClock:
    """A settable clock: the service reads system time from it while history is replayed."""

    def __init__(self, now: datetime = TODAY) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def build_demo_service(settings: Settings, clock: ReplayClock) -> MemoryService:
    """A service over the configured store whose clock is ``clock``; call ``open()``."""
    from graphmem.bootstrap import build_embedder_from, build_extractor
    from graphmem.store.factory import build_store

    return MemoryService(settings, build_store(settings), build_embedder_from(settings),
                         clock=clock, extractor=build_extractor(settings))


# --------------------------------------------------------------------------- loading


@dataclass(slots=True)
class LoadSummary:
    episodes: int = 0
    duplicates: int = 0
    extracted: int = 0
    direct: int = 0
    seconds: float = 0.0


def episode_input(turn: DemoTurn, user_id: str = USER_ID) -> EpisodeIn:
    """The ``addEpisode`` input of one demo turn (with the assistant's reply, if any)."""
    if turn.reply is None:
        return EpisodeIn(user_id=user_id, occurred_at=turn.occurred_at, content=turn.content,
                         role="user", speaker=SPEAKER, session_id=turn.session_id,
                         source="demo-chat", source_ref=turn.source_ref)
    return EpisodeIn(user_id=user_id, occurred_at=turn.occurred_at,
                     messages=[MessageIn("user", turn.content, SPEAKER),
                               MessageIn("assistant", turn.reply)],
                     session_id=turn.session_id, source="demo-chat",
                     source_ref=turn.source_ref)


def relation_input(rel: DemoRelation, user_id: str = USER_ID) -> RelationIn:
    """The ``addRelation`` input of one direct demo statement."""
    return RelationIn(user_id=user_id, subject=rel.subject, predicate=rel.predicate,
                      object=rel.object, valid_from=rel.valid_from, exclusive=rel.exclusive,
                      confidence=rel.confidence, category=rel.category,
                      source_ref=rel.source_ref, statement=rel.statement)


def load_history(service: MemoryService, clock: ReplayClock, *, user_id: str = USER_ID,
                 progress: Progress | None = None) -> LoadSummary:
    """Replay the demo history into ``service``, in time order; leaves the clock at TODAY.

    Each day's turns are one ``add_episodes`` batch recorded a minute after the day's last
    turn; each direct relation is recorded at its own time.
    """
    say = progress or (lambda _msg: None)
    started = time.perf_counter()
    summary = LoadSummary()
    events: list[tuple[datetime, int, list[DemoTurn] | DemoRelation]] = []
    for _day, group in groupby(turns(), key=lambda t: t.occurred_at.date()):
        batch = list(group)
        events.append((batch[-1].occurred_at + timedelta(minutes=1), 0, batch))
    for rel in DIRECT_RELATIONS:
        events.append((rel.recorded, 1, rel))
    events.sort(key=lambda e: (e[0], e[1]))
    year = None
    try:
        for at, _, payload in events:
            if at.year != year:
                year = at.year
                say(f"  replaying {year} ...")
            clock.now = at
            if isinstance(payload, DemoRelation):
                service.add_relation(relation_input(payload, user_id))
                summary.direct += 1
                continue
            results = service.add_episodes([episode_input(t, user_id) for t in payload])
            summary.episodes += sum(not r.duplicate for r in results)
            summary.duplicates += sum(r.duplicate for r in results)
            summary.extracted += sum(len(r.relations) for r in results)
    finally:
        clock.now = TODAY
    summary.seconds = time.perf_counter() - started
    return summary


# --------------------------------------------------------------------------- questions


@dataclass(slots=True)
class Answer:
    """One question, how it was asked, and the printable answer lines."""

    question: str
    call: str
    answer: str = ""
    lines: list[str] = field(default_factory=list)
    objects: list[str] = field(default_factory=list)  # the objects the answer names


def _day(dt: datetime | None) -> str:
    return f"{dt:%Y-%m-%d}" if dt is not None else "now"


def _listing(items: list[str], last: str = "and") -> str:
    if len(items) <= 1:
        return "".join(items) or "nothing recorded"
    return f"{', '.join(items[:-1])} {last} {items[-1]}"


def _labelled(r: Relation) -> str:
    """``Svelte (frontend framework)`` for a preference with a domain, else the object."""
    _, _, domain = r.category.partition(":")
    return f"{r.object} ({domain.replace('_', ' ')})" if domain else r.object


def _span(r: Relation) -> str:
    return f"{_day(r.valid_from)} -> {_day(r.valid_until) if r.valid_until else 'now'}"


class _Provenance:
    """Where a relation came from: its source episodes (sourceRef, date) or direct refs."""

    def __init__(self, service: MemoryService, user_id: str) -> None:
        self.service, self.user_id = service, user_id
        self._episodes: dict[str, tuple[str, datetime | None]] = {}

    def of(self, r: Relation, limit: int = 2) -> str:
        missing = [e for e in r.episode_ids if e not in self._episodes]
        if missing:
            for row in self.service.store.nodes("Episode", self.user_id, missing):
                self._episodes[row["id"]] = (row.get("sourceRef") or row["id"],
                                             from_ms(row.get("occurredAt")))
        found = sorted((self._episodes[e] for e in r.episode_ids if e in self._episodes),
                       key=lambda x: x[1] or TODAY)
        if found:
            shown = [f"{ref} ({_day(at)})" for ref, at in found[-limit:]]
            more = f" +{len(found) - limit} earlier" if len(found) > limit else ""
            return "source: " + ", ".join(shown) + more
        refs = ", ".join(r.source_refs) or "(no sourceRef)"
        return f"source: {refs} (stated directly, recorded {_day(r.recorded_at)})"


def _recall_lines(result: RecallResult, limit: int) -> list[str]:
    lines = []
    if result.temporal_window is not None:
        w = result.temporal_window
        lines.append(f"time window from the question: {_day(w.start)} .. {_day(w.end)} "
                     f"({w.phrase or w.kind})")
    for rank, it in enumerate(result.items[:limit], start=1):
        src = ", ".join(f"{s.source_ref or s.id} "
                        f"({_day(s.occurred_at) if s.occurred_at else 'stated directly'})"
                        for s in it.sources[-2:])
        when = (f"valid {_day(it.valid_from)} -> "
                f"{_day(it.valid_until) if it.valid_until else 'now'}")
        status = "" if it.status == "ACTIVE" else f"  [{it.status}]"
        lines.append(f"  {rank}. {it.text}  ({when}, score {it.score:.2f}){status}")
        if src:
            lines.append(f"     source: {src}")
    return lines


def _answer_now(service: MemoryService, user_id: str, prov: _Provenance) -> Answer:
    now = service.clock()
    rels = service.relations(user_id, subject=SPEAKER, predicate="prefers")
    a = Answer(Q_NOW, f'relations(subject: "{SPEAKER}", predicate: "prefers") as of today '
                      f"({_day(now)}), then recall")
    for r in sorted(rels, key=lambda r: r.category):
        a.objects.append(r.object)
        a.lines.append(f"{r.object:<8} since {_day(r.valid_from)}  [{r.category}]  "
                       f"{prov.of(r)}")
    a.answer = _listing([_labelled(r) for r in sorted(rels, key=lambda r: r.category)])
    res = service.recall(RecallIn(user_id=user_id, query="What does Ana prefer?", limit=3,
                                  kinds=[MemoryKind.RELATION]))
    a.lines.append('recall("What does Ana prefer?"), top 3:')
    a.lines.extend(_recall_lines(res, 3))
    return a


def _answer_last_year(service: MemoryService, user_id: str, prov: _Provenance) -> Answer:
    res = service.recall(RecallIn(user_id=user_id, query=Q_LAST_YEAR, limit=4,
                                  kinds=[MemoryKind.RELATION]))
    w = res.temporal_window
    mid = (w.start + (w.end - w.start) / 2) if w is not None else service.clock()
    a = Answer(Q_LAST_YEAR, f'recall("{Q_LAST_YEAR}"), then relations(predicate: "prefers", '
                            f"asOf: {_day(mid)})")
    a.lines.extend(_recall_lines(res, 4))
    rels = service.relations(user_id, subject=SPEAKER, predicate="prefers", as_of=mid)
    a.lines.append(f"relations(asOf: {_day(mid)}):")
    for r in sorted(rels, key=lambda r: r.category):
        a.objects.append(r.object)
        a.lines.append(f"  {r.object:<8} {_span(r)}  [{r.status}]  {prov.of(r)}")
    labelled = [_labelled(r) for r in sorted(rels, key=lambda r: r.category)]
    a.answer = _listing(labelled) + (f" (as of {_day(mid)}, in the middle of "
                                      f"{w.phrase or 'the window'})" if w else "")
    return a


def _answer_before_berlin(service: MemoryService, user_id: str, prov: _Provenance) -> Answer:
    a = Answer(Q_BEFORE_BERLIN, 'relations(predicate: "lives_in"), then history(relationId) '
                                "of the current one")
    current = [r for r in service.relations(user_id, subject=SPEAKER, predicate="lives_in")]
    if not current:
        a.lines.append("(no current place of residence recorded)")
        return a
    chain = service.history(user_id, current[0].id)
    berlin = next((i for i, r in enumerate(chain) if r.object == "Berlin"), len(chain))
    before = list(reversed(chain[:berlin]))
    if not before:
        a.lines.append("nothing is recorded before Berlin")
    for n, r in enumerate(before):
        lead = "Before Berlin:" if n == 0 else "Before that:  "
        a.objects.append(r.object)
        a.lines.append(f"{lead} {r.object} ({_span(r)})  {prov.of(r)}")
    if before:
        a.answer = f"{before[0].object}" + (f" (and before that {_listing(
            [r.object for r in before[1:]])})" if len(before) > 1 else "")
    a.lines.append("whole chain, oldest first: " + " -> ".join(
        f"{r.object} [{r.status}]" for r in chain))
    return a


def _answer_believed(service: MemoryService, user_id: str, prov: _Provenance) -> Answer:
    k = BELIEF_DATE
    a = Answer(Q_BELIEVED, f'relations(predicate: "lives_in", knownAt: {_day(k)}, '
                           "includeHistory: true) vs. today")
    then = service.relations(user_id, subject=SPEAKER, predicate="lives_in", known_at=k,
                             include_history=True)
    today = service.relations(user_id, subject=SPEAKER, predicate="lives_in",
                              include_history=True)
    a.lines.append(f"believed on {_day(k)}:")
    for r in sorted(then, key=lambda r: r.valid_from):
        a.objects.append(r.object)
        a.lines.append(f"  {r.object:<8} {_span(r)}  {prov.of(r)}")
    known = {r.id for r in then}
    later = [r for r in today if r.id not in known]
    a.answer = " then ".join(a.objects) or "nothing"
    if later:
        a.answer += f" (not yet known then: {_listing([r.object for r in later])})"
    for r in sorted(later, key=lambda r: r.valid_from):
        a.lines.append(f"learned later: {r.object} ({_span(r)}), recorded "
                       f"{_day(r.recorded_at)}  {prov.of(r)}")
    return a


def _answer_reports(service: MemoryService, user_id: str, prov: _Provenance) -> Answer:
    a = Answer(Q_REPORTS, f'recall("{Q_REPORTS}") conflicts, relations(predicate: '
                          '"reports_to"), and the same with knownAt')
    res = service.recall(RecallIn(user_id=user_id, query=Q_REPORTS, limit=5))
    for c in res.conflicts:
        a.lines.append(f"WARNING: {c.warning}")
        a.lines.append(f"         ids: {', '.join(c.ids)}")
    if not res.conflicts:
        a.lines.append("(recall reported no conflict)")
    rels = service.relations(user_id, subject=SPEAKER, predicate="reports_to")
    for r in sorted(rels, key=lambda r: r.recorded_at):
        a.objects.append(r.object)
        a.lines.append(f"{r.object:<8} [{r.status}] since {_day(r.valid_from)}, recorded "
                       f"{r.recorded_at:%Y-%m-%d %H:%M}  {prov.of(r)}")
    if len(rels) > 1 and all(r.status == "DISPUTED" for r in rels):
        a.answer = f"unclear: {_listing(a.objects, 'or')} (two sources disagree)"
    elif rels:
        a.answer = _listing(a.objects)
    if rels:
        # Between the two sources, the memory believed the first one alone.
        first = min(rels, key=lambda r: r.recorded_at)
        k = first.recorded_at + timedelta(hours=1)
        then = service.relations(user_id, subject=SPEAKER, predicate="reports_to", known_at=k)
        a.lines.append(f"as believed at {k:%Y-%m-%d %H:%M} (knownAt): " + ", ".join(
            f"{r.object} [{r.status}]" for r in then))
    return a


def ask(service: MemoryService, user_id: str = USER_ID) -> list[Answer]:
    """The demo's questions, answered from the memory (load the history first)."""
    prov = _Provenance(service, user_id)
    return [f(service, user_id, prov) for f in (_answer_now, _answer_last_year,
                                                _answer_before_berlin, _answer_believed,
                                                _answer_reports)]


def render(answers: list[Answer]) -> str:
    out = []
    for n, a in enumerate(answers, start=1):
        out.append(f"Q{n}. {a.question}")
        out.append(f"    A: {a.answer}")
        out.append(f"    ({a.call})")
        out.extend(f"    {line}" for line in a.lines)
        out.append("")
    return "\n".join(out)


# --------------------------------------------------------------------------- command


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="graphmem demo",
        description="Load a three-year demo history of one user (Ana) into a fresh embedded "
                    "store, then ask it temporal questions: what she prefers now and "
                    "preferred last year, where she lived before Berlin, what the memory "
                    "believed on a past date, and a disputed pair of facts. No network.")
    p.add_argument("--data-dir", type=Path,
                   help="where to create the store (must be empty or absent; default: a new "
                        "temporary directory, removed afterwards unless --keep)")
    p.add_argument("--force", action="store_true",
                   help="use --data-dir even if it is not empty (the demo adds user "
                        f"'{USER_ID}'; nothing is deleted)")
    p.add_argument("--keep", action="store_true",
                   help="keep the temporary data directory and print how to query it")
    p.add_argument("--embedder", choices=["minilm+use", "minilm", "hashing"],
                   default="minilm+use",
                   help="embedding model (default minilm+use: local, no network; hashing is "
                        "faster and cruder)")
    return p


@contextlib.contextmanager
def _data_dir(args: argparse.Namespace) -> Iterator[Path]:
    if args.data_dir is None:
        path = Path(tempfile.mkdtemp(prefix="graphmem-demo-"))
        try:
            yield path
        finally:
            if not args.keep:
                shutil.rmtree(path, ignore_errors=True)
        return
    path = Path(args.data_dir)
    if path.exists() and not path.is_dir():
        raise GraphMemError(f"--data-dir {path} is not a directory")
    if path.exists() and any(path.iterdir()) and not args.force:
        raise GraphMemError(f"--data-dir {path} is not empty; the demo needs a fresh "
                            f"directory (or pass --force to add the demo user to it)")
    path.mkdir(parents=True, exist_ok=True)
    yield path


def main(argv: list[str] | None = None) -> int:
    """Run the demo; ``argv`` as after ``graphmem demo``. Returns the exit status."""
    args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)

    def progress(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    try:
        with _data_dir(args) as path:
            settings = Settings(store="embedded", data_dir=path, embedder=args.embedder)
            progress(f"graphmem demo: embedded store in {path}, embedder {args.embedder}")
            clock = ReplayClock()
            service = build_demo_service(settings, clock)
            service.open()
            try:
                n = len(turns())
                progress(f"loading {n} episodes and {len(DIRECT_RELATIONS)} direct "
                         f"relations for user '{USER_ID}' (2023 -> {TODAY:%Y-%m-%d}) ...")
                summary = load_history(service, clock, progress=progress)
                progress(f"loaded {summary.episodes} episodes ({summary.extracted} "
                         f"relations extracted) and {summary.direct} direct relations "
                         f"in {summary.seconds:.1f} s; today is {TODAY:%Y-%m-%d}")
                answers = ask(service)
            finally:
                service.close()
            print(render(answers), flush=True)
            if args.keep or args.data_dir is not None:
                progress(f"data kept in {path}; try:\n  graphmem recall \"where does Ana "
                         f"live?\" --user {USER_ID} --data-dir {path} --embedder "
                         f"{args.embedder}")
            else:
                progress("the demo's temporary store was removed; run 'graphmem demo --keep' "
                         "(or --data-dir DIR) to keep it and query it afterwards")
    except GraphMemError as e:
        print(f"graphmem demo: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
