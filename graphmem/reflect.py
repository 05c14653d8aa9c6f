"""Reflection: abstractions drawn from a user's current relations, versioned over time.

``Reflector.reflect(user)`` reads the user's current relations, finds patterns of related
evidence (``_reflect_groups``) and, for each pattern with enough independent evidence
(``reflect_min_sources``) and confidence (``reflect_min_confidence``), keeps one line of
abstraction versions up to date:

* no version yet -> version 1;
* evidence changed (a new source, a reinforced one, a source superseded, forgotten or now
  DISPUTED) -> the next version, which SUPERSEDES the current one (closed in system time
  with ``expiredAt`` and in valid time with ``validUntil``; never deleted);
* candidates that disagree (DISPUTED relations in one slot) -> one version per candidate,
  each DISPUTED, linked by DISPUTED edges;
* the current version's evidence no longer qualifies -> it is closed, with no successor;
* evidence unchanged -> nothing is written (ids are hashes of user, pattern and version).

An abstraction holds only its conclusion, conditions and confidence, DERIVED_FROM edges to
its source relations, and bookkeeping; never a source's text. With an LLM configured
(``extractor=llm``) the conclusion and conditions come from one call per changed pattern,
else (or when the call fails) from templates.

``ReflectScheduler`` runs reflection in a background thread after every
``reflect_every`` new episodes of a user, never in the write's own request.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime

from graphmem._abstractions import abstraction_from_row, order_key, visible
from graphmem._lifecycle_score import ImportanceModel
from graphmem._reflect_groups import HAN, Candidate, Pattern, find_patterns, template
from graphmem._reflect_llm import LLMConcluder
from graphmem.embed import Embedder
from graphmem.model import (
    SCHEMA_VERSION,
    Abstraction,
    MemoryStatus,
    make_id,
    seen_under,
    to_ms,
)
from graphmem.settings import Settings
from graphmem.store.base import NodeWrite, RelationPageQuery, Row, Store, WritePlan

log = logging.getLogger(__name__)

_PAGE = 1000



@dataclass(slots=True)
class ReflectResult:
    """What one reflect run changed: new versions and versions closed without one."""

    written: list[Abstraction] = field(default_factory=list)
    closed: list[Abstraction] = field(default_factory=list)
    patterns: int = 0
    llm_calls: int = 0

    @property
    def changed(self) -> list[Abstraction]:
        return self.written + self.closed


class Reflector:
    """Draws and versions a user's abstractions; one reflect at a time (``lock``)."""

    def __init__(self, store: Store, embedder: Embedder, settings: Settings,
                 clock: Callable[[], datetime], apply: Callable[[WritePlan], None],
                 concluder: LLMConcluder | None = None) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings
        self.clock = clock
        self._apply = apply
        if concluder is None and settings.extractor == "llm":
            concluder = LLMConcluder(settings)
        self.concluder = concluder
        self.lock = threading.RLock()
        self.importance = ImportanceModel.from_settings(settings)

    # ------------------------------------------------------------------ reads

    def rows(self, user_id: str) -> list[Row]:
        """Every abstraction version of the user (a few per pattern)."""
        out: list[Row] = []
        while True:
            page = self.store.export_nodes("Abstraction", user_id, len(out), _PAGE)
            out.extend(page)
            if len(page) < _PAGE:
                return out

    def abstractions(self, user_id: str, *, as_of: datetime | None = None,
                     known_at: datetime | None = None,
                     include_history: bool = False, scope: str | None = None,
                     ) -> list[Abstraction]:
        """Versions valid at ``as_of`` as believed at ``known_at`` (both default to now),
        most confident first; with ``include_history`` every version recorded by
        ``known_at``, each lineage oldest first. Under a ``scope``: that scope's and the
        user level's."""
        now = to_ms(self.clock()) or 0
        at = now if as_of is None else to_ms(as_of) or 0
        known = now if known_at is None else to_ms(known_at) or 0
        rows = [r for r in self.rows(user_id)
                if visible(r, at, known, history=include_history)
                and seen_under(scope, r.get("scope"))]
        if include_history:
            rows.sort(key=lambda r: (str(r.get("lineage")), *order_key(r)))
        else:
            rows.sort(key=lambda r: (-float(r.get("confidence") or 0), r["id"]))
        return [abstraction_from_row(r, known) for r in rows]

    def current_relations(self, user_id: str, now: int) -> list[Row]:
        """The user's relations valid now as believed now, all pages."""
        out: list[Row] = []
        after: tuple[int, int, str] | None = None
        while True:
            page = RelationPageQuery(as_of=now, known_at=now, newest_first=False,
                                     after=after, limit=_PAGE)
            rows = self.store.relations(user_id, subject=None, predicate=None, obj=None,
                                        page=page)
            out.extend(rows)
            if len(rows) < _PAGE:
                return out
            last = rows[-1]
            after = (int(last["validFrom"]), int(last["recordedAt"]), str(last["id"]))

    # ------------------------------------------------------------------ reflect

    def reflect(self, user_id: str, scope: str | None = None) -> ReflectResult:
        """Bring the user's abstractions in line with their current relations; with a
        ``scope``, only the abstractions drawn from that scope's relations."""
        with self.lock:
            now = to_ms(self.clock()) or 0
            patterns, writes, closes = self._decide(user_id, now, scope)
            plan = WritePlan(user_id=user_id, at=now)
            result = ReflectResult(patterns=len(patterns))
            for current in closes:
                self._close(plan, current, now, None, result)
            self._write_versions(plan, writes, now, result)
            if not plan.is_empty():
                self._apply(plan)
            return result

    def due(self, user_id: str) -> str | None:
        """Why a reflect would change the user's abstractions now (None: it would not);
        reads only, asks no model."""
        patterns, writes, closes = self._decide(user_id, to_ms(self.clock()) or 0)
        new = sum(1 for _, versions in writes if not versions)
        parts = [f"{new} new pattern(s)" if new else "",
                 f"{len(writes) - new} with changed evidence" if len(writes) > new else "",
                 f"{len(closes)} no longer supported" if closes else ""]
        said = [p for p in parts if p]
        return "; ".join(said) if said else None

    def _decide(self, user_id: str, now: int, scope: str | None = None) -> tuple[
            list[Pattern], list[tuple[Pattern, list[Row]]], list[list[Row]]]:
        """The patterns, which of them need a new version (with their lineage's versions)
        and which lineages' current versions are to be closed with no successor; with a
        ``scope``, those of that scope only."""
        patterns = find_patterns(user_id, self.current_relations(user_id, now))
        by_lineage: dict[str, list[Row]] = {}
        for row in self.rows(user_id):
            by_lineage.setdefault(str(row.get("lineage") or ""), []).append(row)
        if scope is not None:
            patterns = [p for p in patterns if p.scope == scope]
            by_lineage = {k: v for k, v in by_lineage.items()
                          if any(r.get("scope") == scope for r in v)}
        writes: list[tuple[Pattern, list[Row]]] = []
        closes: list[list[Row]] = []
        seen: set[str] = set()
        for p in patterns:
            seen.add(p.lineage)
            versions = by_lineage.get(p.lineage, [])
            current = [r for r in versions if r.get("expiredAt") is None]
            if self._qualifies(p):
                if not current or any(r.get("evidenceKey") != p.evidence_key()
                                      for r in current):
                    writes.append((p, versions))
            elif current:
                closes.append(current)
        for lineage, versions in by_lineage.items():
            current = [r for r in versions if r.get("expiredAt") is None]
            if lineage not in seen and current:
                # every source is gone from the current relations (superseded, closed or
                # forgotten): the conclusion no longer stands
                closes.append(current)
        return patterns, writes, closes

    def _said(self, user_id: str, sources: list[Row]) -> list[str]:
        """What the user said in (up to 8 of) the episodes these relations were learned
        from."""
        ids = sorted({str(e) for r in sources for e in (r.get("episodeIds") or [])})[:8]
        return [str(r.get("content") or "") for r in self.store.nodes("Episode", user_id, ids)]

    @staticmethod
    def _in_chinese(said: list[str]) -> bool:
        """Whether most of what was said holds Han characters: the conclusion is then
        written in Chinese, even when what it names is written in Latin letters
        ("Firefox")."""
        return bool(said) and 2 * sum(bool(HAN.search(t)) for t in said) > len(said)

    def _said_as(self, user_id: str, cand: Candidate, said: list[str]) -> str:
        """What a conclusion in Chinese names the object by: the Chinese alias the user
        said (绿茶, stored under its canonical name "green tea"), else the object as stored."""
        ids = sorted({str(r.get("objectId")) for r in cand.sources if r.get("objectId")})
        names = [str(a) for e in (self.store.nodes("Entity", user_id, ids) if ids else [])
                 for a in (e.get("aliases") or []) if HAN.search(str(a))]
        text = " ".join(said)
        return next((n for n in names if n in text), cand.display)

    def _qualifies(self, p: Pattern) -> bool:
        s = self.settings
        return len(p.units) >= s.reflect_min_sources and p.confidence >= s.reflect_min_confidence

    def _close(self, plan: WritePlan, current: list[Row], now: int, until: int | None,
               result: ReflectResult) -> None:
        for row in current:
            end = max(int(row.get("validFrom") or 0), now if until is None else until)
            changes = {"expiredAt": now, "validUntil": end,
                       "status": MemoryStatus.SUPERSEDED.value}
            plan.update("Abstraction", row["id"], changes)
            if until is None:
                result.closed.append(abstraction_from_row({**row, **changes}, now))

    def _write_versions(self, plan: WritePlan, writes: list[tuple[Pattern, list[Row]]],
                        now: int, result: ReflectResult) -> None:
        texts: list[str] = []
        news: list[Row] = []
        for p, versions in writes:
            current = [r for r in versions if r.get("expiredAt") is None]
            version = 1 + max((int(r.get("version") or 0) for r in versions), default=0)
            drafted = self.concluder.conclude(p) if self.concluder is not None else None
            if self.concluder is not None:
                result.llm_calls += 1
            start = self._valid_from(p, current)
            ids = [make_id("abs", plan.user_id, p.lineage, version, c.key)
                   for c in p.candidates]
            for n, cand in enumerate(p.candidates):
                if drafted:
                    conclusion, conditions = drafted[n]
                else:  # in the language the user said it in, naming it as they did
                    said = self._said(plan.user_id, cand.sources)
                    zh = self._in_chinese(said)
                    conclusion, conditions = template(p, replace(
                        cand, display=self._said_as(plan.user_id, cand, said)) if zh else cand,
                        zh=zh)
                props: Row = {
                    "id": ids[n], "userId": plan.user_id, "createdAt": now,
                    "recordedAt": now, "expiredAt": None, "forgottenAt": None,
                    "validFrom": start, "validUntil": None,
                    "conclusion": conclusion, "conditions": list(conditions),
                    "confidence": cand.confidence if p.disputed else p.confidence,
                    "version": version, "kind": p.kind, "lineage": p.lineage,
                    "status": (MemoryStatus.DISPUTED if p.disputed
                               else MemoryStatus.ACTIVE).value,
                    "disputed": p.disputed, "evidenceKey": p.evidence_key(),
                    "sourceIds": sorted(s["id"] for s in cand.sources),
                    "supersedes": sorted(r["id"] for r in current),
                    "disputes": [i for i in ids if i != ids[n]], "scope": p.scope,
                    "importance": self.importance.for_category(p.kind), "accessCount": 0,
                    "engine": "llm" if drafted else "rules",
                    "embeddingModel": self.embedder.model_id,
                    "schemaVersion": SCHEMA_VERSION}
                news.append(props)
                texts.append(" ".join([conclusion, *conditions]))
                for src in props["sourceIds"]:
                    plan.link("DERIVED_FROM", ids[n], src, {"at": now})
                for old in current:
                    plan.link_versions("SUPERSEDES", ids[n], old["id"], {"at": now})
            for a, b in zip(ids, ids[1:], strict=False):
                plan.link_versions("DISPUTED", a, b, {"at": now})
            self._close(plan, current, now, start, result)
        vectors = self.embedder.embed(texts) if texts else []
        for props, vec in zip(news, vectors, strict=True):
            plan.abstractions.append(NodeWrite(props["id"], props, vec))
            result.written.append(abstraction_from_row(props, now))

    def _valid_from(self, p: Pattern, current: list[Row]) -> int:
        """When the evidence of a new version held: the first version from the moment
        enough independent evidence existed, a later one from its newest evidence (never
        before the version it replaces)."""
        starts = sorted(s for c in p.candidates for s in c.starts)
        if not current:
            n = min(self.settings.reflect_min_sources, len(starts))
            return starts[n - 1] if starts else 0
        return max([starts[-1] if starts else 0,
                    *(int(r.get("validFrom") or 0) for r in current)])

    def close(self) -> None:
        if self.concluder is not None:
            self.concluder.close()


class ReflectScheduler:
    """Reflects a user in a background thread once ``every`` new episodes arrived.

    Counts live in this process (they are only a trigger: a missed count delays a reflect,
    it loses nothing, and ``reflect`` can always be asked for). One worker thread, users
    queued once; a failing reflect is logged and does not stop the worker.
    """

    def __init__(self, reflect: Callable[[str], object], every: int) -> None:
        self._reflect = reflect
        self.every = every
        self._counts: dict[str, int] = {}
        self._queue: deque[str] = deque()
        self._queued: set[str] = set()
        self._cond = threading.Condition()
        self._busy = False
        self._thread: threading.Thread | None = None
        self._closed = False

    def pending(self, user_id: str) -> int:
        """New episodes of the user since the last scheduled reflect."""
        with self._cond:
            return self._counts.get(user_id, 0)

    def queued(self, user_id: str) -> bool:
        with self._cond:
            return user_id in self._queued

    def note(self, user_id: str, new_episodes: int) -> bool:
        """Count new episodes; True when that scheduled a reflect of the user."""
        if self.every <= 0 or new_episodes <= 0:
            return False
        with self._cond:
            if self._closed:
                return False
            count = self._counts.get(user_id, 0) + new_episodes
            if count < self.every:
                self._counts[user_id] = count
                return False
            self._counts[user_id] = 0
            if user_id not in self._queued:
                self._queued.add(user_id)
                self._queue.append(user_id)
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, name="graphmem-reflect",
                                                daemon=True)
                self._thread.start()
            self._cond.notify_all()
            return True

    def _work(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return
                user_id = self._queue.popleft()
                self._busy = True
            try:
                self._reflect(user_id)
            except Exception:  # logged; the next trigger tries again
                log.exception("background reflect failed")
            finally:
                with self._cond:
                    self._queued.discard(user_id)
                    self._busy = False
                    self._cond.notify_all()

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Wait until nothing is queued or running; False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._queue and not self._busy, timeout)

    def close(self, timeout: float = 30.0) -> None:
        """Let a running reflect finish, drop queued ones, stop the worker."""
        with self._cond:
            self._closed = True
            self._queue.clear()
            self._queued.clear()
            self._cond.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join(timeout)
