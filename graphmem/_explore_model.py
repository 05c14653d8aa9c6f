"""The explorer's records: what it shows of a relation (``Fact``) and of an abstraction
(``Conclusion``), its error, and how a notebook parameter becomes an instant."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime

from graphmem.errors import GraphMemError
from graphmem.model import normalize

__all__ = ["Conclusion", "ExploreError", "Fact", "Instant", "instant"]

type Instant = datetime | date | str | None


class ExploreError(GraphMemError):
    """The explorer cannot open or read what it was pointed at; the message says why and
    what to do."""


@dataclass(frozen=True, slots=True)
class Fact:
    """One relation version as the explorer shows it (from the service or the client)."""

    id: str
    subject: str
    predicate: str
    object: str
    statement: str
    category: str
    status: str
    valid_from: datetime
    valid_until: datetime | None
    recorded_at: datetime
    confidence: float
    supersedes: tuple[str, ...] = ()
    disputes: tuple[str, ...] = ()
    source_refs: tuple[str, ...] = ()

    @property
    def slot(self) -> tuple[str, str, str]:
        """What competes with this fact: subject, predicate and category."""
        return (normalize(self.subject), normalize(self.predicate), self.category)


@dataclass(frozen=True, slots=True)
class Conclusion:
    """One abstraction version: what was concluded and the ids it rests on."""

    id: str
    conclusion: str
    conditions: tuple[str, ...]
    confidence: float
    version: int
    status: str
    kind: str
    source_ids: tuple[str, ...]


def instant(value: Instant) -> datetime | None:
    """A notebook parameter as an aware datetime: ``"2024-05-01"``, an ISO-8601 instant,
    a date or a datetime (naive ones are UTC)."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise ExploreError(f"{value!r} is not a date or an ISO-8601 instant") from None
    if not isinstance(value, datetime):
        value = datetime(value.year, value.month, value.day)
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
