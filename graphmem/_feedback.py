"""Aggregated feedback (``addFeedback``): many signals on a memory, judged together.

A signal (POSITIVE, NEGATIVE, CORRECTION) weighted by the sender's ``confidence`` (0..1)
adds to two sums kept in the memory's ``feedbackLog``: evidence on its importance and on
its confidence. What feedback of this kind adds to each value is a bounded, saturating
function of that sum, ``most x tanh(evidence / AGREEMENT)``, and a new signal moves the
value by the change of that function only:

* one signal alone moves little (one full-confidence POSITIVE: +0.096 importance with the
  default step of 0.1, a third of ``most``);
* signals that agree add up, each one less (three: +0.23; six: +0.29, never past 0.3);
* opposite signals take it back (a NEGATIVE after a POSITIVE lowers the sum again), so the
  adjustment is reversible as long as no bound of [0, 1] was reached;
* a CORRECTION also marks the memory for review at once (its note says what is right).

The single-step ``feedback`` mutation (HELPFUL / WRONG / OUTDATED) is unchanged; both
write the same log, and the log's entries are the audit trail: when, which signal, with
what weight, from whom (``by``), the note, and each value before and after.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graphmem._lifecycle_score import step
from graphmem.model import from_ms
from graphmem.store.base import Row

#: signal -> (importance evidence, confidence evidence) per unit of weight
AGGREGATED = {"POSITIVE": (1.0, 1.0), "NEGATIVE": (-0.5, -1.0), "CORRECTION": (-1.0, -1.0)}
#: evidence at which the adjustment reaches tanh(1) = 0.76 of its most
AGREEMENT = 3.0
#: the most aggregated feedback moves a value, in feedback steps
MOST_STEPS = 3.0
MAX_TARGETS = 100


@dataclass(frozen=True, slots=True)
class Evidence:
    importance: float = 0.0
    confidence: float = 0.0

    def plus(self, signal: str, weight: float) -> Evidence:
        d_imp, d_conf = AGGREGATED[signal]
        return Evidence(round(self.importance + weight * d_imp, 6),
                        round(self.confidence + weight * d_conf, 6))


def evidence_of(log: list[Any]) -> Evidence:
    """The evidence the aggregated entries of a feedback log add up to."""
    out = Evidence()
    for entry in log:
        if isinstance(entry, dict) and entry.get("signal") in AGGREGATED:
            try:
                out = out.plus(str(entry["signal"]), float(entry.get("weight", 1.0)))
            except (TypeError, ValueError):
                continue
    return out


def adjustment(evidence: float, feedback_step: float) -> float:
    """What aggregated feedback adds to a value for this much evidence."""
    return MOST_STEPS * feedback_step * math.tanh(evidence / AGREEMENT)


@dataclass(frozen=True, slots=True)
class Judged:
    """One signal applied to one memory: the property changes and the log entry."""

    changes: dict[str, Any]
    entry: dict[str, Any]


def judge(row: dict[str, Any], log: list[Any], *, signal: str, weight: float,
          importance_base: float, importance_adjust: float, confidence: float | None,
          feedback_step: float, review_threshold: float, at: int, note: str | None,
          by: str | None) -> Judged:
    """Apply ``signal`` with ``weight`` to a memory whose log is ``log``."""
    before = evidence_of(log)
    after = before.plus(signal, weight)
    d_imp = adjustment(after.importance, feedback_step) - adjustment(before.importance,
                                                                     feedback_step)
    imp_after = step(importance_base, d_imp)
    changes: dict[str, Any] = {
        "importanceAdjust": round(importance_adjust + imp_after - importance_base, 6)}
    conf_after = None
    needs_review = bool(row.get("needsReview"))
    if confidence is not None:
        d_conf = adjustment(after.confidence, feedback_step) - adjustment(before.confidence,
                                                                          feedback_step)
        conf_after = step(confidence, d_conf)
        adjust = float(row.get("confidenceAdjust") or 0.0)
        changes["confidenceAdjust"] = round(adjust + conf_after - confidence, 6)
        needs_review = conf_after < review_threshold
    if signal == "CORRECTION":
        needs_review = True
    changes["needsReview"] = needs_review
    entry = {"at": at, "signal": signal, "note": note, "weight": weight, "by": by,
             "importance": [importance_base, imp_after],
             "confidence": None if confidence is None else [confidence, conf_after],
             "needsReview": needs_review,
             "evidence": [after.importance, after.confidence]}
    changes["feedbackLog"] = json.dumps([*log, entry], ensure_ascii=False)
    return Judged(changes, entry)


@dataclass(slots=True)
class FeedbackEntry:
    """One feedback signal as applied: when, which, the note, the values it moved."""

    at: datetime
    signal: str
    note: str | None
    importance_before: float
    importance_after: float
    confidence_before: float | None
    confidence_after: float | None
    needs_review: bool
    weight: float | None = None  # addFeedback: the sender's confidence in the signal
    by: str | None = None  # addFeedback: who sent it, as they said


def entry_of(raw: dict[str, Any]) -> FeedbackEntry:
    imp = raw.get("importance") or [0.0, 0.0]
    conf = raw.get("confidence")
    return FeedbackEntry(at=from_ms(int(raw.get("at") or 0)), signal=str(raw.get("signal")),
                         note=raw.get("note"), importance_before=float(imp[0]),
                         importance_after=float(imp[1]),
                         confidence_before=None if conf is None else float(conf[0]),
                         confidence_after=None if conf is None else float(conf[1]),
                         needs_review=bool(raw.get("needsReview")),
                         weight=None if raw.get("weight") is None else float(raw["weight"]),
                         by=raw.get("by"))


def log_of(row: Row) -> list[FeedbackEntry]:
    """The feedback log of a row, oldest first (a malformed log reads as empty)."""
    return [entry_of(e) for e in raw_log(row) if isinstance(e, dict)]


def raw_log(row: Row) -> list[Any]:
    try:
        raw = json.loads(row.get("feedbackLog") or "[]")
    except (TypeError, ValueError):
        return []
    return raw if isinstance(raw, list) else []
