"""Abstraction rows: the time-visibility rule for abstraction versions, and rows to models.

An abstraction version is visible at valid time ``as_of`` as believed at system time
``known_at`` when it was recorded by ``known_at``, began by ``as_of``, and either was still
current at ``known_at`` (not yet superseded: its valid time was still open) or its closed
valid time contains ``as_of``. A version is superseded by setting ``expiredAt`` (system
time) and ``validUntil`` (valid time) together, which is what makes this one rule exact for
both axes. Forgotten versions are hidden unless history is asked for.
"""

from __future__ import annotations

from datetime import datetime

from graphmem.model import SCHEMA_VERSION, Abstraction, MemoryStatus, from_ms
from graphmem.store.base import Row


def status_at(row: Row, known_at: int) -> MemoryStatus:
    """The version's status as believed at ``known_at``."""
    if row.get("forgottenAt") is not None:
        return MemoryStatus.FORGOTTEN
    expired = row.get("expiredAt")
    if expired is not None and expired <= known_at:
        return MemoryStatus.SUPERSEDED
    return MemoryStatus.DISPUTED if row.get("disputed") else MemoryStatus.ACTIVE


def visible(row: Row, as_of: int, known_at: int, *, history: bool = False) -> bool:
    """Whether a version answers a read at ``as_of`` / ``known_at`` (see the module doc);
    with ``history`` every version recorded by ``known_at`` does, forgotten ones included."""
    if int(row.get("recordedAt") or row.get("createdAt") or 0) > known_at:
        return False
    if history:
        return True
    if row.get("forgottenAt") is not None:
        return False
    if int(row.get("validFrom") or 0) > as_of:
        return False
    expired = row.get("expiredAt")
    if expired is None or expired > known_at:
        return True
    until = row.get("validUntil")
    return until is None or as_of < until


def abstraction_from_row(row: Row, known_at: int) -> Abstraction:
    return Abstraction(
        id=row["id"], user_id=row["userId"],
        created_at=_instant(row.get("createdAt")),
        conclusion=row.get("conclusion") or "", conditions=list(row.get("conditions") or []),
        confidence=_confidence(row),
        version=int(row.get("version") or 1),
        status=status_at(row, known_at), source_ids=list(row.get("sourceIds") or []),
        kind=row.get("kind") or "pattern", lineage=row.get("lineage") or "",
        valid_from=from_ms(row.get("validFrom")),
        # the valid-until believed at known_at: open until the version was superseded
        valid_until=from_ms(row.get("validUntil")) if row.get("expiredAt") is not None
        and row["expiredAt"] <= known_at else None,
        recorded_at=from_ms(row.get("recordedAt")),
        expired_at=from_ms(row.get("expiredAt")) if row.get("expiredAt") is not None
        and row["expiredAt"] <= known_at else None,
        forgotten_at=from_ms(row.get("forgottenAt")),
        supersedes_ids=list(row.get("supersedes") or []),
        disputes_ids=list(row.get("disputes") or []),
        scope=row.get("scope"),
        embedding_model=row.get("embeddingModel"),
        schema_version=str(row.get("schemaVersion") or SCHEMA_VERSION))


def _confidence(row: Row) -> float:
    """The stored confidence with what feedback added (graphmem.lifecycle), in [0, 1]."""
    value = float(row.get("confidence") or 0.0)
    adjust = float(row.get("confidenceAdjust") or 0.0)
    return round(min(1.0, max(0.0, value + adjust)), 6) if adjust else value


def _instant(ms: object) -> datetime:
    at = from_ms(int(ms) if isinstance(ms, int) else 0)
    assert at is not None
    return at


def order_key(row: Row) -> tuple[int, int, str]:
    """Versions oldest first: by valid start, then recording, then id."""
    return (int(row.get("validFrom") or 0), int(row.get("recordedAt") or 0), str(row["id"]))
