"""The DateTime scalar and the enums of the GraphQL contract."""

from __future__ import annotations

from datetime import UTC, date, datetime
from enum import Enum
from typing import Any

import strawberry

from graphmem import model


def serialize_datetime(value: Any) -> str:
    if isinstance(value, datetime):
        return model.aware(value).isoformat()
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC).isoformat()
    raise ValueError(f"not a datetime: {type(value).__name__}")


def parse_datetime(value: Any) -> datetime:
    """ISO-8601; without an offset it is read as UTC; a date alone is its midnight UTC."""
    if not isinstance(value, str):
        raise ValueError("DateTime must be an ISO-8601 string, e.g. 2025-06-01T09:30:00+02:00")
    text = value.strip()
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"DateTime must be ISO-8601 (e.g. 2025-06-01T09:30:00+02:00 or "
                         f"2025-06-01), got {value[:40]!r}") from None
    return model.aware(parsed)


DATETIME = strawberry.scalar(
    name="DateTime",
    description="An ISO-8601 date-time with a UTC offset (2025-06-01T09:30:00+02:00). Input "
                "without an offset is read as UTC; a date alone (2025-06-01) is its midnight UTC.",
    serialize=serialize_datetime,
    parse_value=parse_datetime,
)


@strawberry.enum(description="What kind of memory an item is.")
class MemoryKind(Enum):
    EPISODE = "EPISODE"
    ENTITY = "ENTITY"
    RELATION = "RELATION"
    ABSTRACTION = "ABSTRACTION"

    @classmethod
    def from_model(cls, value: model.MemoryKind) -> MemoryKind:
        return cls(value.value)

    def to_model(self) -> model.MemoryKind:
        return model.MemoryKind(self.value)


@strawberry.enum(description="A memory's standing as of the read's knownAt.")
class MemoryStatus(Enum):
    ACTIVE = "ACTIVE"
    SUPERSEDED = "SUPERSEDED"
    DISPUTED = "DISPUTED"
    FORGOTTEN = "FORGOTTEN"

    @classmethod
    def from_model(cls, value: model.MemoryStatus | str) -> MemoryStatus:
        return cls(value.value if isinstance(value, model.MemoryStatus) else str(value))
