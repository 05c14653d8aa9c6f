"""Garbage collection: forget what fell below the forgetting threshold, a session or a
scope, after a dry run that says what would go and why anything is kept.

``Collector`` is the gc half of ``graphmem.lifecycle.Lifecycle`` (which supplies the store,
the importance model, the write path and the scans).
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime

from graphmem._events import forget_change
from graphmem._lifecycle_score import ImportanceModel, importance_class
from graphmem.errors import InvalidInputError
from graphmem.inputs import check_id, check_instant
from graphmem.model import MemoryKind, from_ms, to_ms
from graphmem.settings import Settings
from graphmem.store.base import Row, Store, WritePlan

KIND_OF = {"Relation": MemoryKind.RELATION, "Episode": MemoryKind.EPISODE,
           "Entity": MemoryKind.ENTITY, "Abstraction": MemoryKind.ABSTRACTION}
LABEL_OF = {kind: label for label, kind in KIND_OF.items()}
MAX_GC_LIMIT = 10_000
#: the plural a warning names a category class by
_PLURAL = {"preference": "preferences", "lesson": "lessons", "fact": "facts",
           "goal": "goals", "context": "context memories"}


@dataclass(slots=True)
class GcItem:
    """A memory gc looked at: below the threshold, and why it was kept if it was."""

    id: str
    kind: MemoryKind
    text: str
    category: str
    importance: float
    last_reviewed_at: datetime
    reason: str | None = None


@dataclass(slots=True)
class GcReport:
    """What one gc found and did (``dry_run``: nothing)."""

    dry_run: bool
    threshold: float
    kinds: list[MemoryKind]
    scanned: int = 0
    candidates: list[GcItem] = field(default_factory=list)  # forgotten, or would be
    kept: list[GcItem] = field(default_factory=list)
    remaining: int = 0  # below the threshold beyond ``limit``
    forgotten: int = 0
    warnings: list[str] = field(default_factory=list)


class Collector:
    """gc over the attributes and scans a ``Lifecycle`` has."""

    store: Store
    settings: Settings
    model: ImportanceModel
    _lock: threading.RLock
    _apply: Callable[[WritePlan], None]

    def _now(self) -> int:
        raise NotImplementedError

    def _user(self, user_id: str) -> str:
        raise NotImplementedError

    def _rows(self, label: str, user_id: str, ids: list[str]) -> list[Row]:
        raise NotImplementedError

    def _scan(self, user_id: str, labels: list[str]) -> Iterator[tuple[str, Row]]:
        raise NotImplementedError


    def gc(self, user_id: str, *, dry_run: bool = True,
           kinds: list[MemoryKind] | None = None, max_importance: float | None = None,
           limit: int = 1000, older_than: datetime | None = None,
           session_id: str | None = None, scope: str | None = None) -> GcReport:
        """The memories below the forgetting threshold; forgotten unless ``dry_run``.

        ``older_than``: only memories from before it (an episode by when it happened, a
        relation or abstraction by when it was recorded). ``session_id``: every episode of
        that session, whatever its importance (delete a session; what was learned from it
        stays, and the sources of current abstractions are kept and said so). ``scope``:
        every memory of that scope among ``kinds``, whatever its importance (delete a
        project); the user level's memories are never in a scope, and the sources of a
        current abstraction of another scope or the user level are kept."""
        user_id = self._user(user_id)
        session_id = check_id(session_id, "sessionId", required=False)
        scope = check_id(scope, "scope", required=False)
        older_than = check_instant(older_than, "olderThan")
        before = None if older_than is None else to_ms(older_than)
        kinds = list(dict.fromkeys(kinds or [MemoryKind.EPISODE]))
        if MemoryKind.ENTITY in kinds:
            raise InvalidInputError("kinds", "gc forgets episodes, relations and "
                                             "abstractions, not entities")
        if session_id is not None and kinds != [MemoryKind.EPISODE]:
            raise InvalidInputError("kinds", "a session holds episodes: with sessionId, "
                                             "kinds is [EPISODE]")
        if session_id is not None and max_importance is not None:
            raise InvalidInputError("maxImportance", "with sessionId every episode of the "
                                                     "session is taken, whatever it weighs")
        if scope is not None and max_importance is not None:
            raise InvalidInputError("maxImportance", "with scope every memory of the scope "
                                                     "is taken, whatever it weighs")
        if not 1 <= limit <= MAX_GC_LIMIT:
            raise InvalidInputError("limit", f"must be between 1 and {MAX_GC_LIMIT}")
        threshold = self.settings.forget_threshold if max_importance is None \
            else float(max_importance)
        if not 0.0 <= threshold <= 1.0:
            raise InvalidInputError("maxImportance", "must be between 0 and 1")
        whole = session_id is not None or scope is not None
        report = GcReport(dry_run=dry_run, threshold=1.0 if whole else threshold,
                          kinds=kinds)
        if whole:
            threshold = math.inf  # below it: everything
        now = self._now()
        # a scope's abstractions forgotten with it no longer protect their sources
        protected = self._protected(
            user_id, scope if MemoryKind.ABSTRACTION in kinds else None)
        below: list[tuple[str, GcItem]] = []
        scanned: Counter[str] = Counter()
        for label, row in self._scan(user_id, [LABEL_OF[k] for k in kinds]):
            scanned[label] += 1
            if before is not None and not _from_before(label, row, before):
                continue
            if session_id is not None and row.get("sessionId") != session_id:
                continue
            if scope is not None and row.get("scope") != scope:
                continue
            item = self._below(label, row, now, threshold)
            if item is None:
                continue
            item.reason = protected.get(row["id"]) or (
                "marked for review" if row.get("needsReview") else None)
            if item.reason is not None:
                report.kept.append(item)
            else:
                below.append((label, item))
        below.sort(key=lambda p: (p[1].importance, p[1].id))
        chosen, report.remaining = below[:limit], max(0, len(below) - limit)
        report.scanned = sum(scanned.values())
        if not dry_run and chosen:
            chosen = self._forget(user_id, chosen, threshold, protected)
            report.forgotten = len(chosen)
        report.candidates = [item for _, item in chosen]
        report.warnings = self._gc_warnings(report, scanned, chosen)
        return report

    def _below(self, label: str, row: Row, now: int, threshold: float) -> GcItem | None:
        if row.get("forgottenAt") is not None:
            return None
        imp = self.model.of_row(label, row, now)
        if imp.effective >= threshold:
            return None
        return GcItem(id=row["id"], kind=KIND_OF[label], text=item_text(label, row)[:200],
                      category=imp.category, importance=imp.effective,
                      last_reviewed_at=from_ms(imp.last_reviewed_ms))

    def _protected(self, user_id: str, dropped: str | None = None) -> dict[str, str]:
        """Ids gc never forgets, with why: the sources of current abstractions and the
        episodes those relations were learned from."""
        out: dict[str, str] = {}
        sources: set[str] = set()
        for _, row in self._scan(user_id, ["Abstraction"]):
            if row.get("expiredAt") is None and row.get("forgottenAt") is None \
                    and (dropped is None or row.get("scope") != dropped):
                sources.update(row.get("sourceIds") or [])
        for rel in self.store.nodes("Relation", user_id, sorted(sources)) if sources else []:
            out[rel["id"]] = "a source of a current abstraction"
            for ep in rel.get("episodeIds") or []:
                out.setdefault(ep, "evidence of a source of a current abstraction")
        return out

    def _forget(self, user_id: str, chosen: list[tuple[str, GcItem]], threshold: float,
                protected: dict[str, str]) -> list[tuple[str, GcItem]]:
        """Forget the chosen memories in one write, each checked again under the lock (a
        recall or a restore may have come in since the scan)."""
        with self._lock:
            now = self._now()
            by_label: dict[str, list[str]] = {}
            for label, item in chosen:
                by_label.setdefault(label, []).append(item.id)
            still: dict[str, Row] = {}
            for label, ids in by_label.items():
                for row in self._rows(label, user_id, ids):
                    if row["id"] not in protected and not row.get("needsReview") \
                            and self._below(label, row, now, threshold) is not None:
                        still[row["id"]] = row
            done = [(label, item) for label, item in chosen if item.id in still]
            if done:
                plan = WritePlan(user_id=user_id, at=now)
                for label, item in done:
                    plan.update(label, item.id, forget_change(still[item.id], now,
                                                              forgotten=True))
                self._apply(plan)
        return done

    def _gc_warnings(self, report: GcReport, scanned: Counter[str],
                     chosen: list[tuple[str, GcItem]]) -> list[str]:
        verb = "would forget" if report.dry_run else "forgot"
        out: list[str] = []
        learned = [k for k in report.kinds if k is not MemoryKind.EPISODE]
        if learned:
            out.append(f"{' and '.join(k.value.lower() + 's' for k in learned)} were asked "
                       f"for: they hold what was learned, not raw records (restore brings "
                       f"each back)")
        classes = Counter(_class(self.model, item.category) for label, item in chosen
                          if label != "Episode")
        for cls in ("preference", "lesson", "fact", "goal", "context"):
            if classes[cls]:
                out.append(f"{verb} {classes[cls]} {_PLURAL[cls] if classes[cls] > 1 else cls}")
        abstractions = sum(1 for label, _ in chosen if label == "Abstraction")
        if abstractions:
            out.append(f"{verb} {abstractions} abstraction(s)")
        per_label = Counter(label for label, _ in chosen)
        for label, n in sorted(per_label.items()):
            if scanned[label] and n * 2 >= scanned[label]:
                out.append(f"{verb} {n} of the user's {scanned[label]} "
                           f"{label.lower()}s ({100 * n // scanned[label]}%)")
        if report.kept:
            out.append(f"kept {len(report.kept)} below the threshold (sources of current "
                       f"abstractions, their evidence, or marked for review)")
        if report.remaining:
            out.append(f"{report.remaining} more below the threshold beyond the limit: run "
                       f"gc again")
        return out


def _class(model: ImportanceModel, category: str) -> str:
    return importance_class(category, model.table)


def item_text(label: str, row: Row) -> str:
    key = {"Episode": "content", "Relation": "statement", "Abstraction": "conclusion",
           "Entity": "name"}[label]
    return str(row.get(key) or "")


def _from_before(label: str, row: Row, before: int) -> bool:
    """Is the memory from before ``before`` (ms): an episode by when it happened, anything
    else by when it was recorded?"""
    at = row.get("occurredAt") if label == "Episode" else None
    if at is None:
        at = row.get("recordedAt") if row.get("recordedAt") is not None else row.get("createdAt")
    return at is not None and int(at) < before
