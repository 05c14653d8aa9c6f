"""Explore one user's memory: where it comes from and what the explorer shows of it.

The graph explorer notebook (``notebooks/graph_explorer.ipynb``) is a thin page over this
module. ``open_memory`` picks the source from the environment:

- ``GRAPHMEM_URL`` (and ``GRAPHMEM_API_KEY``): a running server, through ``graphmem.client``;
- ``GRAPHMEM_DATA_DIR`` (or ``GRAPHMEM_STORE=neo4j``): the store itself, in this process. The
  embedded store lets one process at a time open a data directory; when a server holds it,
  opening fails with an ``ExploreError`` that says to set ``GRAPHMEM_URL`` instead;
- neither: the shipped demo history, loaded into a temporary directory.

Whatever the source, relations come back as ``Fact`` and abstractions as ``Conclusion``, so
the filters, the tables (``believed_vs_true``, ``abstraction_rows``) and the graph view
(``graphmem._explore_graph``) do not care where they came from. This module is an entry
point, like the command line: it may import the client, the service and the demo.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

import graphmem.client as gmc
from graphmem import model
from graphmem._explore_graph import View, neighbourhood
from graphmem._explore_model import Conclusion, ExploreError, Fact, Instant, instant
from graphmem.errors import NotFoundError, UnavailableError
from graphmem.model import normalize
from graphmem.service import MemoryService
from graphmem.settings import Settings

__all__ = [
    "STATUSES", "Conclusion", "ExploreError", "Fact", "LocalMemory", "Memory", "RemoteMemory",
    "SlotRow", "View", "abstraction_rows", "abstractions_markdown", "believed_vs_true",
    "busiest_predicate", "draw_neighbourhood", "draw_timeline", "filter_facts", "instant",
    "neighbourhood", "neighbourhood_html", "open_memory", "slots_markdown",
    "suggested_moment",
]

STATUSES = ("ACTIVE", "SUPERSEDED", "DISPUTED", "FORGOTTEN")

def _fact_of_model(r: model.Relation) -> Fact:
    return Fact(r.id, r.subject, r.predicate, r.object, r.statement, r.category,
                r.status.value, r.valid_from, r.valid_until, r.recorded_at, r.confidence,
                tuple(r.supersedes_ids), tuple(r.disputes_ids), tuple(r.source_refs))


def _fact_of_wire(r: gmc.Relation) -> Fact:
    return Fact(r.id, r.subject, r.predicate, r.object, r.statement, r.category,
                r.status.value, r.valid_from, r.valid_until, r.recorded_at, r.confidence,
                tuple(m.id for m in r.supersedes), tuple(m.id for m in r.disputes),
                tuple(r.source_refs))


class Memory(Protocol):
    """What the explorer reads. ``mode`` is ``server``, ``store`` or ``demo``."""

    mode: str
    where: str
    default_user: str | None

    def relations(self, user_id: str, *, subject: str | None = None,
                  predicate: str | None = None, as_of: datetime | None = None,
                  known_at: datetime | None = None,
                  include_history: bool = False) -> list[Fact]: ...

    def relation(self, user_id: str, relation_id: str) -> Fact | None: ...

    def abstractions(self, user_id: str, *, include_history: bool = False
                     ) -> list[Conclusion]: ...

    def summary(self, user_id: str) -> str: ...

    def now(self) -> datetime:
        """The memory's present: where open validity ends on a timeline."""
        ...

    def close(self) -> None: ...


class RemoteMemory:
    """A running server, through ``graphmem.client`` (relations fetched page by page)."""

    mode = "server"

    def __init__(self, client: gmc.GraphMemClient, where: str) -> None:
        self.client = client
        self.where = where
        self.default_user: str | None = None

    def relations(self, user_id: str, *, subject: str | None = None,
                  predicate: str | None = None, as_of: datetime | None = None,
                  known_at: datetime | None = None,
                  include_history: bool = False) -> list[Fact]:
        return [_fact_of_wire(r) for r in self.client.iter_relations(
            user_id, subject=subject, predicate=predicate, as_of=as_of, known_at=known_at,
            include_history=include_history)]

    def relation(self, user_id: str, relation_id: str) -> Fact | None:
        try:
            return _fact_of_wire(self.client.relation(user_id, relation_id))
        except gmc.NotFoundError:
            return None

    def abstractions(self, user_id: str, *, include_history: bool = False
                     ) -> list[Conclusion]:
        return [Conclusion(a.id, a.conclusion, tuple(a.conditions), a.confidence, a.version,
                           a.status.value, a.kind, tuple(s.id for s in a.sources))
                for a in self.client.abstractions(user_id, include_history=include_history)]

    def summary(self, user_id: str) -> str:
        s = self.client.stats(user_id)
        by = ", ".join(f"{c.count} {c.status.value}" for c in s.by_status)
        return (f"{s.episodes} episodes, {s.entities} entities, {s.relations} relations "
                f"({by}), {s.abstractions} abstractions")

    def now(self) -> datetime:
        return datetime.now(UTC)

    def close(self) -> None:
        self.client.close()


class LocalMemory:
    """A service over a store opened in this process (a data directory, Neo4j, the demo)."""

    def __init__(self, service: MemoryService, where: str, *, mode: str = "store",
                 default_user: str | None = None,
                 cleanup: Callable[[], None] | None = None) -> None:
        self.service = service
        self.where = where
        self.mode = mode
        self.default_user = default_user
        self._cleanup = cleanup

    def relations(self, user_id: str, *, subject: str | None = None,
                  predicate: str | None = None, as_of: datetime | None = None,
                  known_at: datetime | None = None,
                  include_history: bool = False) -> list[Fact]:
        out: list[Fact] = []
        after: str | None = None
        while True:
            page = self.service.relations_page(
                user_id, subject=subject, predicate=predicate, as_of=as_of, known_at=known_at,
                include_history=include_history, limit=1000, after=after)
            out.extend(_fact_of_model(r) for r in page.items)
            if page.next_cursor is None:
                return out
            after = page.next_cursor

    def relation(self, user_id: str, relation_id: str) -> Fact | None:
        try:
            return _fact_of_model(self.service.relation(user_id, relation_id))
        except NotFoundError:
            return None

    def abstractions(self, user_id: str, *, include_history: bool = False
                     ) -> list[Conclusion]:
        return [Conclusion(a.id, a.conclusion, tuple(a.conditions), a.confidence, a.version,
                           a.status.value, a.kind, tuple(a.source_ids))
                for a in self.service.abstractions(user_id, include_history=include_history)]

    def summary(self, user_id: str) -> str:
        s = self.service.stats(user_id)
        by = ", ".join(f"{n} {status}" for status, n in s.by_status.items())
        return (f"{s.episodes} episodes, {s.entities} entities, {s.relations} relations "
                f"({by}), {s.abstractions} abstractions")

    def now(self) -> datetime:
        return self.service.clock()

    def close(self) -> None:
        try:
            self.service.close()
        finally:
            if self._cleanup is not None:
                self._cleanup()


# --------------------------------------------------------------------------- opening


def open_memory(env: Mapping[str, str] | None = None, *,
                progress: Callable[[str], None] | None = None) -> Memory:
    """The memory the environment points at: a server, a store, or else the demo."""
    env = os.environ if env is None else env
    url = env.get("GRAPHMEM_URL", "").strip()
    if url:
        key = env.get("GRAPHMEM_API_KEY", "").strip() or None
        return RemoteMemory(gmc.GraphMemClient(url, api_key=key), url)
    data_dir = env.get("GRAPHMEM_DATA_DIR", "").strip()
    if data_dir or env.get("GRAPHMEM_STORE", "").strip().lower() == "neo4j":
        return _open_store(data_dir)
    return _open_demo(progress)


def _open_store(data_dir: str) -> LocalMemory:
    from graphmem.bootstrap import build_service

    if data_dir:
        path = Path(data_dir).expanduser()
        if not path.is_dir():
            raise ExploreError(f"GRAPHMEM_DATA_DIR={data_dir} ({path.resolve()}) is not a "
                               "directory; point it at the data directory of graphmem serve, "
                               "as an absolute path (or set GRAPHMEM_URL)")
        settings = Settings(store="embedded", data_dir=path)
        where = str(path)
    else:
        settings = Settings()
        where = settings.neo4j_uri
    service = build_service(settings)
    try:
        service.open()
    except UnavailableError as exc:
        raise ExploreError(
            f"{exc}.\nThe embedded store lets one process at a time open a data directory, "
            "and another one (a graphmem serve?) holds this one. Explore it through that "
            "server instead: set GRAPHMEM_URL=http://HOST:PORT (and GRAPHMEM_API_KEY when "
            "the server has API keys) and unset GRAPHMEM_DATA_DIR.") from None
    return LocalMemory(service, where)


def _open_demo(progress: Callable[[str], None] | None) -> LocalMemory:
    from graphmem.demo import ReplayClock, build_demo_service, load_history
    from graphmem.demo_data import USER_ID

    tmp = Path(tempfile.mkdtemp(prefix="graphmem-explorer-"))
    clock = ReplayClock()
    service = build_demo_service(Settings(store="embedded", data_dir=tmp), clock)

    def cleanup() -> None:
        shutil.rmtree(tmp, ignore_errors=True)

    try:
        service.open()
        load_history(service, clock, user_id=USER_ID, progress=progress)
        service.reflect(USER_ID)
    except BaseException:
        service.close()
        cleanup()
        raise
    return LocalMemory(service, f"the demo history in {tmp}", mode="demo",
                       default_user=USER_ID, cleanup=cleanup)


# --------------------------------------------------------------------------- filters


def filter_facts(facts: Iterable[Fact], *, predicate: str | None = None,
                 statuses: Sequence[str] | None = None, start: Instant = None,
                 end: Instant = None, entity: str | None = None) -> list[Fact]:
    """The facts of ``predicate`` (any when None) with a status in ``statuses`` (any when
    None) whose validity overlaps ``[start, end)`` (open ends when None); with ``entity``,
    those it is the subject of, else those it is the object of, else all of them."""
    lo, hi = instant(start), instant(end)
    wanted = {s.upper() for s in statuses} if statuses is not None else None
    if wanted is not None and wanted - set(STATUSES):
        raise ExploreError(f"STATUS: {sorted(wanted - set(STATUSES))} are not statuses; "
                           f"use some of {', '.join(STATUSES)}")
    pred = normalize(predicate) if predicate else None
    kept = [f for f in facts
            if (pred is None or normalize(f.predicate) == pred)
            and (wanted is None or f.status in wanted)
            and (hi is None or f.valid_from < hi)
            and (lo is None or f.valid_until is None or f.valid_until > lo)]
    if not entity:
        return kept
    key = normalize(entity)
    return ([f for f in kept if normalize(f.subject) == key]
            or [f for f in kept if normalize(f.object) == key] or kept)


def busiest_predicate(facts: Sequence[Fact]) -> str | None:
    """The predicate that changed most (SUPERSEDES links, then versions): the timeline's
    default."""
    if not facts:
        return None
    changes = Counter(f.predicate for f in facts for _ in f.supersedes)
    versions = Counter(f.predicate for f in facts)
    return max(versions, key=lambda p: (changes[p], versions[p], p))


def suggested_moment(facts: Sequence[Fact]) -> datetime | None:
    """A moment worth comparing belief and truth at: a millisecond (the store's grain)
    before graphmem last changed its mind (the newest write that superseded something),
    else before the newest write."""
    changed = [f.recorded_at for f in facts if f.supersedes]
    pool = changed or [f.recorded_at for f in facts]
    return max(pool) - timedelta(milliseconds=1) if pool else None


# --------------------------------------------------------------------------- tables


@dataclass(frozen=True, slots=True)
class SlotRow:
    """One slot (subject, predicate, category) at a moment: what graphmem believed then
    about then, and what is true then as known now."""

    subject: str
    predicate: str
    category: str
    believed: tuple[str, ...]
    true: tuple[str, ...]

    @property
    def differs(self) -> bool:
        return set(self.believed) != set(self.true)


def _by_slot(facts: Iterable[Fact]) -> dict[tuple[str, str, str], list[Fact]]:
    out: dict[tuple[str, str, str], list[Fact]] = {}
    for f in facts:
        out.setdefault(f.slot, []).append(f)
    return out


def _shown(f: Fact) -> str:
    return f"{f.object} [DISPUTED]" if f.status == "DISPUTED" else f.object


def believed_vs_true(memory: Memory, user_id: str, at: Instant, *,
                     predicate: str | None = None, entity: str | None = None) -> list[SlotRow]:
    """Per slot, "what did we believe on ``at``" (asOf = knownAt = ``at``) beside "what was
    true on ``at``" (asOf = ``at``, as known now); slots that differ first. ``entity``
    keeps the slots it is the subject or an object of."""
    moment = instant(at)
    if moment is None:
        raise ExploreError("AT: give a date or an instant to compare belief and truth at")
    believed = memory.relations(user_id, predicate=predicate, as_of=moment, known_at=moment)
    true = memory.relations(user_id, predicate=predicate, as_of=moment)
    b_slots, t_slots = _by_slot(believed), _by_slot(true)
    rows = []
    for slot in set(b_slots) | set(t_slots):
        facts = b_slots.get(slot, []) + t_slots.get(slot, [])
        if entity and not any(normalize(entity) in (normalize(f.subject), normalize(f.object))
                              for f in facts):
            continue
        first = facts[0]
        rows.append(SlotRow(first.subject, first.predicate, first.category,
                            tuple(sorted(_shown(f) for f in b_slots.get(slot, []))),
                            tuple(sorted(_shown(f) for f in t_slots.get(slot, [])))))
    return sorted(rows, key=lambda r: (not r.differs, normalize(r.subject), r.predicate,
                                       r.category))


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def slots_markdown(rows: Sequence[SlotRow], at: Instant, *, limit: int = 30) -> str:
    moment = instant(at)
    day = "?"
    if moment is not None:
        moment = moment.astimezone(UTC)
        day = moment.isoformat(sep=" ", timespec="milliseconds" if moment.microsecond
                               else "seconds").replace("+00:00", " UTC")
    out = [f"| subject | predicate | category | believed on {day} (knownAt) | "
           f"true on {day} (asOf, known now) | |", "|---|---|---|---|---|---|"]
    for r in rows[:limit]:
        out.append(f"| {_cell(r.subject)} | {_cell(r.predicate)} | {_cell(r.category)} | "
                   f"{_cell(', '.join(r.believed) or '—')} | "
                   f"{_cell(', '.join(r.true) or '—')} | {'**≠**' if r.differs else ''} |")
    if len(rows) > limit:
        out.append(f"| … {len(rows) - limit} more slots | | | | | |")
    if not rows:
        out.append("| (nothing held then) | | | | | |")
    return "\n".join(out)


@dataclass(frozen=True, slots=True)
class AbstractionRow:
    conclusion: Conclusion
    sources: tuple[Fact | str, ...]  # a fact, or the id of a source that is not a relation


def abstraction_rows(memory: Memory, user_id: str, facts: Sequence[Fact], *,
                     include_history: bool = False) -> list[AbstractionRow]:
    """Each abstraction with its sources' facts (from ``facts``, else read one by one)."""
    known = {f.id: f for f in facts}
    rows = []
    for a in memory.abstractions(user_id, include_history=include_history):
        sources: list[Fact | str] = []
        for sid in a.source_ids:
            fact = known.get(sid) or memory.relation(user_id, sid)
            sources.append(fact if fact is not None else sid)
        rows.append(AbstractionRow(a, tuple(sources)))
    return sorted(rows, key=lambda r: (-r.conclusion.confidence, r.conclusion.conclusion))


def abstractions_markdown(rows: Sequence[AbstractionRow]) -> str:
    out = ["| conclusion | confidence | version | conditions | sources (statement, status, "
           "valid from) |", "|---|---|---|---|---|"]
    for row in rows:
        a = row.conclusion
        sources = "<br>".join(
            f"{_cell(s.statement)} ({s.status}, {s.valid_from:%Y-%m-%d})"
            if isinstance(s, Fact) else f"`{_cell(s)}`" for s in row.sources)
        out.append(f"| {_cell(a.conclusion)} | {a.confidence:.2f} | v{a.version} {a.status} | "
                   f"{_cell('; '.join(a.conditions)) or '—'} | {sources} |")
    if not rows:
        out.append("| (no abstractions: `reflect` draws them from repeated evidence) | | | | |")
    return "\n".join(out)


# --------------------------------------------------------------------------- figures


def draw_neighbourhood(view: View, *, title: str = "") -> Any:
    """The neighbourhood view as a matplotlib figure (the ``notebook`` extra)."""
    from graphmem._explore_plot import neighbourhood_figure

    return neighbourhood_figure(view, title=title)


def neighbourhood_html(view: View, *, title: str = "") -> str:
    """The neighbourhood view as self-contained interactive HTML (inline SVG and script,
    nothing fetched): hover or click an entity to follow its facts, filter by predicate or
    entity. In a notebook: ``display(HTML(explore.neighbourhood_html(view)))``."""
    from graphmem._explore_html import neighbourhood_html as html

    return html(view, title=title)


def draw_timeline(facts: Sequence[Fact], predicate: str, *, at: Instant = None,
                  now: Instant = None, max_rows: int = 30) -> Any:
    """A predicate's versions as bars from validFrom to validUntil (the ``notebook``
    extra)."""
    from graphmem._explore_plot import timeline_figure

    return timeline_figure(facts, predicate, at=instant(at), now=instant(now),
                           max_rows=max_rows)
