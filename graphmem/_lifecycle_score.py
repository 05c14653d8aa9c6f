"""How much a memory matters now: importance by category, decay since it was last used,
reinforcement by use, and the bounded steps feedback moves it by (pure functions; the
lifecycle use cases are in ``graphmem.lifecycle``).

* base importance: the memory's stored ``importance`` (set at write time from its category,
  or given by the caller), plus what feedback added (``importanceAdjust``), in [0, 1];
* reinforcement: ``x (1 + r * ln(1 + accessCount))``, capped at 1 (seed: a reviewed memory
  gains weight, with diminishing returns);
* decay: ``x 0.5 ** (days since last review / half-life)``, where the last review is the
  last recall that returned it, else when it was recorded (seed: importance falls
  exponentially with the time since it was last reviewed). The half-life is one for every
  memory unless the settings give a category (or its head, or its class) its own.

Recency, the age of what a memory is about (``validFrom``, ``occurredAt``), is a separate
recall term: an old fact recalled yesterday is fresh in this sense.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from graphmem.store.base import Row

if TYPE_CHECKING:
    from graphmem.settings import Settings

DAY_MS = 86_400_000

#: Importance by category (seed 001's table): what the user likes, what went wrong and how
#: to avoid it, facts about them, their goals, passing context.
DEFAULT_IMPORTANCE: dict[str, float] = {
    "preference": 0.9, "lesson": 0.85, "fact": 0.8, "goal": 0.7, "context": 0.4}

#: Categories the extractors write (and abstraction kinds), read as one of the above when
#: the setting does not name them itself. Episodes and entities are context: an episode is
#: the raw record, what was learned from it lives on in relations.
CATEGORY_CLASS: dict[str, str] = {
    "tool": "fact", "identity": "fact", "work": "fact", "learning": "fact",
    "plan": "goal", "taste": "preference", "rule": "lesson", "habit": "fact",
    "episode": "context", "entity": "context"}

#: Which category a memory of each label without a stored category counts as.
LABEL_CATEGORY = {"Episode": "episode", "Entity": "entity"}

#: The category whose importance is a label's reference: recall weighs a memory by its
#: importance relative to the reference of its kind, so the kind priors recall is tuned
#: with are kept and an episode is not ranked below a fact for being an episode (that
#: difference is for forgetting).
REFERENCE_CATEGORY = {"Episode": "episode", "Entity": "entity", "Relation": "fact",
                      "Abstraction": "fact"}


def category_of(label: str, row: Row) -> str:
    """A memory's category: a relation's own, an abstraction's kind, else its label's."""
    if label == "Relation":
        return str(row.get("category") or "fact")
    if label == "Abstraction":
        return str(row.get("kind") or "pattern")
    return LABEL_CATEGORY.get(label, "fact")


def importance_class(category: str, table: Mapping[str, float] | None = None) -> str:
    """The key of ``table`` a category takes its importance from: itself, its head
    (``preference`` of ``preference:editor``), its class, else ``fact``."""
    table = table if table is not None else DEFAULT_IMPORTANCE
    name = category.strip().casefold()
    head = name.split(":", 1)[0]
    for key in (name, head):
        if key in table:
            return key
    cls = CATEGORY_CLASS.get(head, "fact")
    return cls if cls in table else "fact"


def _unit(x: float) -> float:
    return min(1.0, max(0.0, x))


@dataclass(frozen=True, slots=True)
class Importance:
    """A memory's importance now, and each factor of it."""

    category: str
    base: float  # stored importance + feedback, in [0, 1]
    adjust: float  # what feedback added to the stored importance
    access_count: int
    last_reviewed_ms: int  # the last recall that returned it, else when it was recorded
    reinforcement: float  # the factor use multiplies the base by (>= 1)
    decay: float  # the factor time since the last review multiplies it by (0..1]
    effective: float
    half_life_days: float = 30.0  # the days without a review that halve it, by category


@dataclass(frozen=True, slots=True)
class ImportanceModel:
    """Importance by category, decay and reinforcement, from the settings."""

    table: Mapping[str, float]
    half_life_days: float = 30.0
    reinforcement: float = 0.2
    #: half-lives of their own, by category, head or class (the rest: ``half_life_days``)
    half_lives: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def of(cls, overrides: Mapping[str, float], half_life_days: float,
           reinforcement: float, half_lives: Mapping[str, float] | None = None
           ) -> ImportanceModel:
        table = {**DEFAULT_IMPORTANCE, **_keyed(overrides)}
        return cls(table, half_life_days, reinforcement, _keyed(half_lives or {}))

    @classmethod
    def from_settings(cls, settings: Settings) -> ImportanceModel:
        """The model the settings describe (``importance_*``)."""
        return cls.of(settings.importance_by_category, settings.importance_half_life_days,
                      settings.importance_reinforcement,
                      settings.importance_half_life_by_category)

    def for_category(self, category: str) -> float:
        """The importance a new memory of ``category`` starts with."""
        return self.table[importance_class(category, self.table)]

    def reference(self, label: str) -> float:
        """The importance a memory of ``label`` is weighed against in recall."""
        return self.for_category(REFERENCE_CATEGORY.get(label, "fact"))

    def half_life(self, category: str) -> float:
        """The days without a review that halve the importance of a memory of
        ``category``: its own, its head's or its class's half-life if the settings give
        one, else ``half_life_days`` (looked up as ``for_category`` looks up importance)."""
        if not self.half_lives:
            return self.half_life_days
        return self.half_lives.get(importance_class(category, self.half_lives),
                                   self.half_life_days)

    def decay(self, last_reviewed_ms: int, now_ms: int,
              half_life_days: float | None = None) -> float:
        days = max(0.0, (now_ms - last_reviewed_ms) / DAY_MS)
        return 0.5 ** (days / (half_life_days or self.half_life_days))

    def of_row(self, label: str, row: Row, now_ms: int) -> Importance:
        """The importance of a stored memory (a row with its access count) at ``now_ms``."""
        category = category_of(label, row)
        stored = row.get("importance")
        start = self.for_category(category) if stored is None else float(stored)
        adjust = float(row.get("importanceAdjust") or 0.0)
        base = _unit(start + adjust)
        count = int(row.get("accessCount") or 0)
        recorded = int(row.get("recordedAt") or row.get("createdAt") or 0)
        last = max(recorded, int(row.get("lastAccessedAt") or 0))
        boost = 1.0 + self.reinforcement * math.log1p(count)
        half_life = self.half_life(category)
        decay = self.decay(last, now_ms, half_life)
        effective = min(1.0, base * boost) * decay
        return Importance(category=category, base=round(base, 6), adjust=round(adjust, 6),
                          access_count=count, last_reviewed_ms=last,
                          reinforcement=round(boost, 6), decay=round(decay, 6),
                          effective=round(effective, 6), half_life_days=half_life)


def _keyed(values: Mapping[str, float]) -> dict[str, float]:
    return {k.strip().casefold(): float(v) for k, v in values.items()}


def confidence_of(row: Row) -> float | None:
    """A memory's confidence with what feedback added (None: it has none, e.g. an
    episode)."""
    raw = row.get("confidence")
    if raw is None:
        return None
    return round(_unit(float(raw) + float(row.get("confidenceAdjust") or 0.0)), 6)


def step(value: float, delta: float) -> float:
    """``value + delta`` kept in [0, 1]: what a feedback step can actually move."""
    return round(_unit(value + delta), 6)
