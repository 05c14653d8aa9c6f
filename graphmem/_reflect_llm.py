"""Conclusions written by an LLM: one chat call per pattern, the reply validated by pydantic.

The model sees the pattern's kind, subject and its source statements, and answers one
``{"conclusion", "conditions"}`` item per candidate. A failed call, unparseable JSON, a
reply that does not validate, or a conclusion that merely repeats one source statement
gives ``None``: the caller then uses the rules' template for that pattern.
"""

from __future__ import annotations

import json
import logging
import threading
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, ValidationError, field_validator

from graphmem.model import normalize

if TYPE_CHECKING:
    import openai

    from graphmem._reflect_groups import Pattern
    from graphmem.settings import Settings

log = logging.getLogger(__name__)

SYSTEM_PROMPT = """\
You condense a person's long-term memory. You get one pattern: several related statements
drawn from different conversations. Write what they show together, as a conclusion that
holds beyond any single statement, with the conditions under which it holds.
Reply with ONE JSON object and nothing else:
{"items": [{"conclusion": str, "conditions": [str]}]}
- one item per candidate, in the order given;
- conclusion: one short sentence about the subject (a preference with its scope, a rule to
  follow, a habit), never a copy of one statement; same language as the statements;
- conditions: 0-4 short phrases (when / where / for what it holds); [] if none.
"""


class _Item(BaseModel):
    conclusion: str = Field(min_length=3, max_length=300)
    conditions: list[str] = Field(default_factory=list, max_length=4)

    @field_validator("conditions")
    @classmethod
    def _short(cls, v: list[str]) -> list[str]:
        out = [c.strip() for c in v if isinstance(c, str) and c.strip()]
        if any(len(c) > 120 for c in out):
            raise ValueError("a condition is longer than 120 characters")
        return out


class _Reply(BaseModel):
    items: list[_Item]


def _json_object(text: str | None) -> Any:
    """The JSON object in a reply, code fences or prose around it tolerated."""
    s = (text or "").strip()
    start, end = s.find("{"), s.rfind("}")
    if not 0 <= start < end:
        raise ValueError("no JSON object in the reply")
    return json.loads(s[start:end + 1])


class LLMConcluder:
    """Writes conclusions through an OpenAI-compatible chat endpoint (the extractor's
    settings: ``GRAPHMEM_LLM_BASE_URL``, ``_API_KEY``, ``_MODEL``, ``_TIMEOUT_S``,
    ``_MAX_RETRIES``)."""

    def __init__(self, settings: Settings, client: openai.OpenAI | None = None) -> None:
        self._settings = settings
        self._client = client
        self._lock = threading.Lock()
        self.calls = 0
        self.failures = 0

    def _get_client(self) -> openai.OpenAI:
        with self._lock:
            if self._client is None:
                import openai

                s = self._settings
                self._client = openai.OpenAI(
                    base_url=s.llm_base_url or None,
                    api_key=s.llm_api_key.get_secret_value() or "unused",
                    timeout=s.llm_timeout_s, max_retries=s.llm_max_retries)
            return self._client

    def conclude(self, pattern: Pattern) -> list[tuple[str, list[str]]] | None:
        """One (conclusion, conditions) per candidate of ``pattern``, or None on failure."""
        lines = [f"kind: {pattern.kind}", f"subject: {pattern.subject}",
                 f"about: {pattern.facet.replace('_', ' ')}"]
        for n, cand in enumerate(pattern.candidates):
            lines.append(f"candidate {n} ({len(cand.units)} independent sources):")
            lines.extend(f"- {s.get('statement')}" for s in cand.sources[:12])
        chat: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM_PROMPT},
                                      {"role": "user", "content": "\n".join(lines)}]
        with self._lock:
            self.calls += 1
        try:
            resp = self._get_client().chat.completions.create(  # type: ignore[call-overload]
                model=self._settings.llm_model, messages=chat, temperature=0.0,
                response_format={"type": "json_object"})
            content = resp.choices[0].message.content if resp.choices else None
            reply = _Reply.model_validate(_json_object(content))
        except (ValidationError, ValueError) as e:
            self._failed(f"invalid reply: {type(e).__name__}")
            return None
        except Exception as e:  # the template still answers when the model cannot
            self._failed(f"{type(e).__name__}")
            return None
        if len(reply.items) != len(pattern.candidates):
            self._failed("wrong number of items")
            return None
        statements = {normalize(str(s.get("statement") or ""))
                      for c in pattern.candidates for s in c.sources}
        if any(normalize(i.conclusion) in statements for i in reply.items):
            self._failed("a conclusion repeats a source statement")
            return None
        return [(i.conclusion.strip(), i.conditions) for i in reply.items]

    def _failed(self, reason: str) -> None:
        with self._lock:
            self.failures += 1
        log.warning("LLM conclusion failed, using the template: %s", reason)
        return None

    def close(self) -> None:
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()
