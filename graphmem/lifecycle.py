"""The memory lifecycle: importance now, feedback, garbage collection, health.

* ``importance(user, id)``: a memory's importance now, each factor of it (category,
  feedback, reinforcement by use, decay since it was last reviewed; see
  ``_lifecycle_score``), its confidence and its feedback log.
* ``feedback(user, id, signal, note)``: HELPFUL / WRONG / OUTDATED move importance and
  confidence by bounded steps (``feedback_step``; never past [0, 1]); each signal is
  appended to the memory's ``feedbackLog`` (time, signal, note, values before and after).
  A memory whose confidence falls below ``review_threshold`` is marked ``needsReview``:
  never deleted. The adjustments are kept apart from the values the write path derives
  (``importanceAdjust``, ``confidenceAdjust``), so new evidence for a relation does not
  wipe them out.
* ``gc(user, dry_run=True)``: the memories whose importance fell below
  ``forget_threshold``; with ``dry_run=False`` they are forgotten (the ordinary soft
  forget: ``restore`` brings each back). Episodes only unless asked; relations and
  abstractions are what was learned, so asking for them comes with warnings, and the
  sources of a current abstraction (and the episodes behind those) are always kept.
* ``health(user, stats)``: one object with whether reflection is due, mixed embedding
  models, integrity violations (dangling edges...) from ``graphmem.check``, size, memories
  marked for review or below the threshold, and the warnings that follow from them.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graphmem._feedback import AGGREGATED, MAX_TARGETS, FeedbackEntry, judge
from graphmem._feedback import entry_of as _entry
from graphmem._feedback import log_of as _log
from graphmem._feedback import raw_log as _raw_log
from graphmem._gc import KIND_OF, Collector, item_text
from graphmem._lifecycle_score import (
    Importance,
    ImportanceModel,
    confidence_of,
    importance_class,
    step,
)
from graphmem.check import check_store
from graphmem.errors import InvalidInputError, NotFoundError
from graphmem.guard import GuardPolicy
from graphmem.inputs import check_id, check_text, check_unit
from graphmem.model import MemoryKind, from_ms, to_ms
from graphmem.recall_access import AccessTracker
from graphmem.settings import Settings
from graphmem.store.base import Row, Store, WritePlan

LABEL_BY_PREFIX = {"rel": "Relation", "epi": "Episode", "ent": "Entity", "abs": "Abstraction"}

SIGNALS = ("HELPFUL", "WRONG", "OUTDATED")
MAX_NOTE_CHARS = 2000
#: memories (not forgotten) above which the health check suggests gc
LARGE_MEMORY = 100_000
_PAGE = 1000



@dataclass(slots=True)
class MemoryLife:
    """A memory's importance now, explained, with its confidence and feedback log."""

    id: str
    kind: MemoryKind
    text: str
    importance: Importance
    importance_class: str
    confidence: float | None
    needs_review: bool
    forgotten: bool
    feedback: list[FeedbackEntry] = field(default_factory=list)

    @property
    def last_reviewed_at(self) -> datetime:
        return from_ms(self.importance.last_reviewed_ms)


@dataclass(slots=True)
class HealthCheck:
    """A user's memory in one look, with the warnings that follow from it."""

    reflection_due: bool
    reflection_reason: str | None
    embedding_models: list[str]
    mixed_embedding_models: bool
    dangling_edges: int
    integrity_violations: dict[str, int]
    memories: dict[str, int]  # label -> not forgotten
    forgotten: int
    needs_review: list[str]
    below_threshold: int
    warnings: list[str] = field(default_factory=list)


class Lifecycle(Collector):
    """Importance, feedback, gc and health over one store; writes through ``apply`` under
    the service's write ``lock``."""

    def __init__(self, store: Store, settings: Settings, clock: Callable[[], datetime],
                 apply: Callable[[WritePlan], None], lock: threading.RLock,
                 tracker: AccessTracker | None = None) -> None:
        self.store = store
        self.settings = settings
        self.clock = clock
        self._apply = apply
        self._lock = lock
        self.tracker = tracker
        self.model = ImportanceModel.from_settings(settings)

    # ------------------------------------------------------------------ importance

    def importance(self, user_id: str, memory_id: str) -> MemoryLife:
        """A memory's importance now, explained; NotFoundError for another user's id."""
        label, row = self._one(user_id, memory_id)
        return self._life(label, row, self._now())

    def _life(self, label: str, row: Row, now: int) -> MemoryLife:
        imp = self.model.of_row(label, row, now)
        return MemoryLife(id=row["id"], kind=KIND_OF[label], text=item_text(label, row),
                          importance=imp,
                          importance_class=_class(self.model, imp.category),
                          confidence=confidence_of(row) if label != "Episode" else None,
                          needs_review=bool(row.get("needsReview")),
                          forgotten=row.get("forgottenAt") is not None,
                          feedback=_log(row))

    # ------------------------------------------------------------------ feedback

    def feedback(self, user_id: str, memory_id: str, signal: str,
                 note: str | None = None) -> tuple[FeedbackEntry, MemoryLife]:
        """Apply one signal to a memory, gradually, and log it; the entry and the memory."""
        signal = str(signal).upper()
        if signal not in SIGNALS:
            raise InvalidInputError("signal", f"must be one of {', '.join(SIGNALS)}")
        note = check_text(note, "note", MAX_NOTE_CHARS, required=False)
        if note is not None:
            note = GuardPolicy.from_settings(self.settings).guard(note, "note").text
        with self._lock:
            label, row = self._one(user_id, memory_id)
            if label == "Entity":
                raise InvalidInputError("id", "feedback applies to episodes, relations and "
                                              "abstractions")
            now = self._now()
            s = self.settings.feedback_step
            d_imp, d_conf = {"HELPFUL": (s, s / 2), "WRONG": (-s / 2, -s),
                             "OUTDATED": (-s, 0.0)}[signal]
            has_conf = label != "Episode" and row.get("confidence") is not None
            if not has_conf and signal == "WRONG":
                d_imp = -s  # a record cannot be wrong with less confidence: it matters less
            imp_row = self.model.of_row(label, row, now)
            imp_before = imp_row.base
            imp_after = step(imp_before, d_imp)
            changes: Row = {"importanceAdjust": round(imp_row.adjust + imp_after - imp_before,
                                                      6)}
            conf_before = confidence_of(row) if has_conf else None
            conf_after = None
            needs_review = bool(row.get("needsReview"))
            if conf_before is not None:
                conf_after = step(conf_before, d_conf)
                adjust = float(row.get("confidenceAdjust") or 0.0)
                changes["confidenceAdjust"] = round(adjust + conf_after - conf_before, 6)
                needs_review = conf_after < self.settings.review_threshold
                changes["needsReview"] = needs_review
            entry = {"at": now, "signal": signal, "note": note,
                     "importance": [imp_before, imp_after],
                     "confidence": None if conf_before is None else [conf_before, conf_after],
                     "needsReview": needs_review}
            log = json.loads(row.get("feedbackLog") or "[]")
            log.append(entry)
            changes["feedbackLog"] = json.dumps(log, ensure_ascii=False)
            plan = WritePlan(user_id=user_id, at=now)
            plan.update(label, row["id"], changes)
            self._apply(plan)
            after = {**row, **changes}
        return _entry(entry), self._life(label, after, now)

    def add_feedback(self, user_id: str, target_ids: list[str], signal: str,
                     confidence: float = 1.0, note: str | None = None,
                     by: str | None = None) -> list[tuple[FeedbackEntry, MemoryLife]]:
        """One signal on several memories, aggregated with the signals each already has
        (``graphmem._feedback``); all targets or none."""
        signal = str(signal).upper()
        if signal not in AGGREGATED:
            raise InvalidInputError("signal", f"must be one of {', '.join(AGGREGATED)}")
        if not target_ids or len(target_ids) > MAX_TARGETS:
            raise InvalidInputError("targetIds", f"give 1 to {MAX_TARGETS} ids")
        weight = check_unit(confidence, "confidence")
        if weight is None:
            raise InvalidInputError("confidence", "is required")
        note = self._guarded(note, "note", MAX_NOTE_CHARS)
        by = self._guarded(by, "by", 200)
        ids = list(dict.fromkeys(check_id(i, "targetIds") or "" for i in target_ids))
        with self._lock:
            found = [self._one(user_id, memory_id) for memory_id in ids]
            if any(label == "Entity" for label, _ in found):
                raise InvalidInputError("targetIds", "feedback applies to episodes, relations "
                                                     "and abstractions")
            now = self._now()
            plan = WritePlan(user_id=check_id(user_id, "userId") or "", at=now)
            out: list[tuple[str, Row, dict[str, Any]]] = []
            for label, row in found:
                imp = self.model.of_row(label, row, now)
                judged = judge(row, _raw_log(row), signal=signal, weight=weight,
                               importance_base=imp.base, importance_adjust=imp.adjust,
                               confidence=confidence_of(row) if label != "Episode" else None,
                               feedback_step=self.settings.feedback_step,
                               review_threshold=self.settings.review_threshold, at=now,
                               note=note, by=by)
                plan.update(label, row["id"], judged.changes)
                out.append((label, {**row, **judged.changes}, judged.entry))
            self._apply(plan)
        return [(_entry(entry), self._life(label, after, now)) for label, after, entry in out]

    def _guarded(self, text: str | None, name: str, limit: int) -> str | None:
        text = check_text(text, name, limit, required=False)
        if text is None:
            return None
        return GuardPolicy.from_settings(self.settings).guard(text, name).text

    # ------------------------------------------------------------------ health

    def health(self, user_id: str, *, reflection_reason: str | None,
               embedding_models: list[str]) -> HealthCheck:
        """The user's memory in one look (reads everything of the user: not for every
        request)."""
        user_id = self._user(user_id)
        now = self._now()
        live: Counter[str] = Counter()
        forgotten = 0
        review: list[str] = []
        below = 0
        for label, row in self._scan(user_id, ["Episode", "Entity", "Relation",
                                               "Abstraction"]):
            if row.get("forgottenAt") is not None:
                forgotten += 1
                continue
            live[label] += 1
            if row.get("needsReview"):
                review.append(row["id"])
            if label != "Entity" and self._below(label, row, now,
                                                 self.settings.forget_threshold):
                below += 1
        report = check_store(self.store, [user_id], now=from_ms(now))  # type: ignore[arg-type]
        by_rule = dict(sorted(report.by_rule.items()))
        dangling = sum(by_rule.get(r, 0) for r in ("chain", "relation-edges", "edge-ends"))
        h = HealthCheck(
            reflection_due=reflection_reason is not None,
            reflection_reason=reflection_reason, embedding_models=list(embedding_models),
            mixed_embedding_models=len(embedding_models) > 1, dangling_edges=dangling,
            integrity_violations=by_rule,
            memories={k: live[k] for k in ("Episode", "Entity", "Relation", "Abstraction")},
            forgotten=forgotten, needs_review=sorted(review), below_threshold=below)
        if h.reflection_due:
            h.warnings.append(f"reflection is due: {reflection_reason}")
        if h.mixed_embedding_models:
            h.warnings.append(f"memories were embedded with {len(embedding_models)} models "
                              f"({', '.join(embedding_models)}): their vectors are not "
                              f"comparable; re-embed or keep one model")
        if by_rule:
            h.warnings.append(f"graphmem check found {sum(by_rule.values())} integrity "
                              f"violation(s) ({', '.join(f'{k} {v}' for k, v in by_rule.items())}"
                              f"), {dangling} of them dangling or missing edges")
        if review:
            h.warnings.append(f"{len(review)} memory(ies) marked for review after feedback")
        if below:
            h.warnings.append(f"{below} memory(ies) below the forgetting threshold "
                              f"{self.settings.forget_threshold}: gc(dryRun: true) lists them")
        total = sum(live.values())
        if total > LARGE_MEMORY:
            h.warnings.append(f"{total} memories: a gc would keep recall and reflection fast")
        return h

    # ------------------------------------------------------------------ reads

    def _now(self) -> int:
        return to_ms(self.clock()) or 0

    def _user(self, user_id: str) -> str:
        user_id = check_id(user_id, "userId") or ""
        if not any(self.store.count(label, user_id)[0] for label in ("Relation", "Episode")):
            raise NotFoundError("user", user_id)
        return user_id

    def _one(self, user_id: str, memory_id: str) -> tuple[str, Row]:
        user_id = check_id(user_id, "userId") or ""
        memory_id = check_id(memory_id, "id") or ""
        label = LABEL_BY_PREFIX.get(memory_id.split("_", 1)[0])
        rows = self._rows(label, user_id, [memory_id]) if label else []
        if not rows:
            raise NotFoundError("memory", memory_id)
        return label or "", rows[0]

    def _rows(self, label: str, user_id: str, ids: list[str]) -> list[Row]:
        return self._with_pending(label, user_id, self.store.nodes(label, user_id, ids))

    def _scan(self, user_id: str, labels: list[str]) -> Iterator[tuple[str, Row]]:
        for label in labels:
            skip = 0
            while True:
                page = self.store.export_nodes(label, user_id, skip, _PAGE)
                yield from ((label, r) for r in self._with_pending(label, user_id, page))
                if len(page) < _PAGE:
                    break
                skip += _PAGE

    def _with_pending(self, label: str, user_id: str, rows: list[Row]) -> list[Row]:
        """Rows with the access counts recall has not written yet (reads write nothing)."""
        if self.tracker is None or not rows:
            return rows
        pending = self.tracker.pending(user_id, label, [r["id"] for r in rows])
        if not pending:
            return rows
        out = []
        for r in rows:
            p = pending.get(r["id"])
            if p is not None:
                r = {**r, "accessCount": int(r.get("accessCount") or 0) + p[0],
                     "lastAccessedAt": max(int(r.get("lastAccessedAt") or 0), p[1])}
            out.append(r)
        return out


def _class(model: ImportanceModel, category: str) -> str:
    return importance_class(category, model.table)
