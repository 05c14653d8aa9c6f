"""The lifecycle operations: feedback, addFeedback, importance, gc and events."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from graphmem.client._errors import BadInputError
from graphmem.client._models import MemoryKind
from graphmem.client._models_life import (
    FeedbackResult,
    FeedbackSignal,
    GcReport,
    MemoryEventPage,
    MemoryImportance,
)
from graphmem.client._ops import Op, _adapter, _iso, _list_of

_ENTRY = """at signal note importanceBefore importanceAfter confidenceBefore confidenceAfter
  needsReview weight by"""
IMPORTANCE_FIELDS = f"""id kind text category importanceClass base feedbackAdjustment
  accessCount lastReviewedAt reinforcement decay halfLifeDays effective confidence
  needsReview forgotten
  feedback {{ {_ENTRY} }}"""
_RESULT = f"applied {{ {_ENTRY} }} memory {{ {IMPORTANCE_FIELDS} }}"
_GC_ITEM = "id kind text category importance lastReviewedAt reason"
GC_FIELDS = f"""dryRun threshold kinds scanned candidates {{ {_GC_ITEM} }}
  kept {{ {_GC_ITEM} }} remaining forgotten warnings"""
EVENT_FIELDS = "at kind memoryId memoryKind text relatedId detail cursor"


def _signal(signal: FeedbackSignal | str) -> str:
    try:
        return str(FeedbackSignal(str(signal).upper()))
    except ValueError:
        known = ", ".join(FeedbackSignal)
        raise BadInputError(f"signal: {signal!r} is not one of {known}", code="BAD_USER_INPUT",
                            field="signal") from None


def feedback(user_id: str, memory_id: str, signal: FeedbackSignal | str,
             note: str | None) -> Op[FeedbackResult]:
    return Op(f"mutation($userId: ID!, $id: ID!, $signal: FeedbackSignal!, $note: String) "
              f"{{ feedback(userId: $userId, id: $id, signal: $signal, note: $note) "
              f"{{ {_RESULT} }} }}",
              {"userId": user_id, "id": memory_id, "signal": _signal(signal),
               "note": note}, "feedback", _adapter(FeedbackResult), mutation=True)


def add_feedback(user_id: str, target_ids: Sequence[str], signal: FeedbackSignal | str,
                 confidence: float, note: str | None,
                 by: str | None) -> Op[list[FeedbackResult]]:
    return Op(f"mutation($userId: ID!, $ids: [ID!]!, $signal: FeedbackSignal!, "
              f"$confidence: Float!, $note: String, $by: String) {{ addFeedback("
              f"userId: $userId, targetIds: $ids, signal: $signal, confidence: $confidence, "
              f"note: $note, by: $by) {{ {_RESULT} }} }}",
              {"userId": user_id, "ids": list(target_ids), "signal": _signal(signal),
               "confidence": confidence, "note": note, "by": by},
              "addFeedback", _list_of(FeedbackResult), mutation=True)


def importance(user_id: str, memory_id: str) -> Op[MemoryImportance]:
    return Op(f"query($userId: ID!, $id: ID!) {{ importance(userId: $userId, id: $id) "
              f"{{ {IMPORTANCE_FIELDS} }} }}", {"userId": user_id, "id": memory_id},
              "importance", _adapter(MemoryImportance))


def gc(user_id: str, dry_run: bool, kinds: Sequence[MemoryKind | str] | None,
       max_importance: float | None, limit: int,
       older_than: datetime | str | None, session_id: str | None = None,
       scope: str | None = None) -> Op[GcReport]:
    return Op(f"mutation($userId: ID!, $dryRun: Boolean!, $kinds: [MemoryKind!], "
              f"$max: Float, $limit: Int!, $older: DateTime, $session: ID, $scope: String) "
              f"{{ gc(userId: $userId, dryRun: $dryRun, kinds: $kinds, maxImportance: $max, "
              f"limit: $limit, olderThan: $older, sessionId: $session, scope: $scope) "
              f"{{ {GC_FIELDS} }} }}",
              {"userId": user_id, "dryRun": dry_run,
               "kinds": [str(MemoryKind(str(k).upper())) for k in kinds] if kinds else None,
               "max": max_importance, "limit": limit, "older": _iso(older_than),
               "session": session_id, "scope": scope},
              # a dry run changes nothing: only a real one is not sent twice
              "gc", _adapter(GcReport), mutation=not dry_run)


def events(user_id: str, since: datetime | str, until: datetime | str | None,
           after: str | None, limit: int, scope: str | None = None) -> Op[MemoryEventPage]:
    return Op(f"query($userId: ID!, $since: DateTime!, $until: DateTime, $after: String, "
              f"$limit: Int!, $scope: String) {{ events(userId: $userId, since: $since, "
              f"until: $until, after: $after, limit: $limit, scope: $scope) "
              f"{{ items {{ {EVENT_FIELDS} }} nextCursor }} }}",
              {"userId": user_id, "since": _iso(since), "until": _iso(until), "after": after,
               "limit": limit, "scope": scope}, "events", _adapter(MemoryEventPage))
