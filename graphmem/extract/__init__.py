"""Extraction: turn a window of messages into entities and relations.

Two engines implement ``Extractor``: the offline rule engine (``rules.RuleExtractor``) and
the LLM engine (``llm.LLMExtractor``, which falls back to the rules when the model fails).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from graphmem.model import Extraction


@dataclass(frozen=True, slots=True)
class Message:
    """One message of a window, as the extractor sees it.

    ``speaker`` is the person's name when known (``"Caroline"``); first-person statements
    are attributed to it, else to ``"user"`` when ``role == "user"``.
    ``occurred_at`` anchors relative dates ("last week", "去年").
    """

    content: str
    role: str = "user"
    speaker: str | None = None
    occurred_at: datetime | None = None


class Extractor(Protocol):
    name: str

    def extract(self, messages: list[Message]) -> Extraction:
        """Entities and relations of ``messages``; ``message_index`` points into the list."""
        ...


def extract_windows(extractor: Extractor, windows: list[list[Message]]) -> list[Extraction]:
    """One extraction per window (an episode's messages), in order. An engine with an
    ``extract_many`` (the LLM engine batches several episodes per request) gets all of
    them at once; any other is asked window by window."""
    many = getattr(extractor, "extract_many", None)
    if many is not None:
        results: list[Extraction] = many(windows)
        return results
    return [extractor.extract(w) for w in windows]
