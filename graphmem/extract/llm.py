"""The LLM extraction engine: an OpenAI-compatible chat model, with the rules as fallback.

Messages go to the model in batches (``batch_size`` per request, numbered so each item's
``message_index`` maps back). ``extract_many`` does the same for several episodes at once
(what ``addEpisodes`` sends): episodes are packed into one request while their messages fit
in ``batch_size``, and the answer is validated per episode (``_llm_batch``); an episode
whose part is missing or invalid is extracted again alone, never half-applied. Each
request is retried on 429, 5xx, timeouts and connection errors with exponential backoff
and jitter (``Retry-After`` honoured, capped); an unparseable reply gets one repair request.
When a batch still fails, the fallback extractor handles that batch and the result says
``engine="fallback"`` with the reason.
"""

from __future__ import annotations

import email.utils
import logging
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from functools import partial
from typing import TYPE_CHECKING, Any

from pydantic import SecretStr

from graphmem.extract import Extractor, Message
from graphmem.extract._llm_batch import build_batch_messages, parse_batch, part_extraction
from graphmem.extract._llm_output import (
    parse_json_object,
    short,
    speaker_label,
    to_extraction,
)
from graphmem.extract._llm_versions import (
    VersionAsk,
    VersionProposal,
    build_version_messages,
    pack_asks,
    parse_versions,
)
from graphmem.model import Extraction, aware

if TYPE_CHECKING:
    import openai

log = logging.getLogger(__name__)

#: HTTP statuses worth another try (rate limit, overload, server trouble).
RETRY_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504})

SYSTEM_PROMPT = """\
You extract long-term memory from chat messages. Reply with ONE JSON object and nothing else:
{"entities": [...], "relations": [...]}

entity: {"name": str, "type": "person|organization|place|product|tool|language|concept|event|thing",
         "aliases": [str], "message_index": int}
relation: {"subject": str, "predicate": str, "object": str, "category": str, "exclusive": bool,
           "confidence": number 0..1, "valid_from": ISO date/datetime or null, "stop": bool,
           "statement": short sentence, "message_index": int}

Rules:
- message_index is the [n] number of the message the item comes from.
- Subjects: first-person statements ("I", "my", "我") take the speaker name shown in the message
  header ("user" when the name is unknown); skip first-person statements of an "assistant"
  header. "we", "our project", "我们", "项目" -> "project". Lessons keep the thing they are
  about as subject ("Docker build" failed_because "out of memory").
- predicate is snake_case English. Use these when they fit: prefers, likes, dislikes, uses,
  name_is, lives_in, works_at, has_role, plans_to, learning, goal, failed_because, requires.
  Other snake_case predicates are allowed.
- Preferences: a liking or choice in a single-choice domain ("I like Vue", "I now prefer React")
  is "prefers", category "preference:<domain>" with a short snake_case domain (editor,
  programming_language, frontend_framework, database, os, drink, ...), exclusive=true.
  Open-ended tastes ("I like hiking") are likes/dislikes, category "preference", exclusive=false.
- Tools: "uses", category "tool:<domain>" with exclusive=true when it fills a single-choice slot
  (editor, database, os, ...), else category "tool", exclusive=false. Tastes (drinks, themes)
  are never "uses". Several choices named together ("I use Python and Rust") are all true at
  once: exclusive=false.
- Changes: "switched from X to Y" / "now use Y" -> prefers Y and uses Y, plus the same two with
  stop=true for X. "no longer use X" / "不再用X" -> stop=true for uses and prefers of X; "no
  longer like X" -> stop=true for the preference only.
- name_is, lives_in: category "identity", exclusive=true. works_at, has_role: category "work",
  exclusive=true. plans_to: "plan". learning: "learning". goal: "goal". failed_because,
  requires: "lesson". Anything else: "fact".
- valid_from: when it became true, resolved against the message time ("last week", "in 2019",
  "去年"); null when it holds from the message time; always null for plans and goals.
- confidence: 0.9 when stated plainly, 0.6-0.7 when hedged ("I think", "maybe", "可能").
  Questions, conditionals ("if I used...") and hypotheticals ("I would use") give nothing.
- Only facts stated in the messages; keep names as written (any language).
- Nothing to extract: {"entities": [], "relations": []}.
"""

REPAIR_BATCH_PROMPT = (
    "Your reply was not valid ({error}). Reply again with only the corrected JSON object "
    '{{"episodes": [{{"episode": 0, "entities": [...], "relations": [...]}}, ...]}} '
    "and nothing else."
)
REPAIR_VERSIONS_PROMPT = (
    "Your reply was not valid ({error}). Reply again with only the corrected JSON object "
    '{{"links": [...]}} and nothing else.'
)
#: characters of messages in one version request (each message shown once)
VERSION_CHARS = 16000
REPAIR_PROMPT = (
    "Your reply was not valid JSON ({error}). Reply again with only the corrected JSON object "
    '{{"entities": [...], "relations": [...]}} and nothing else.'
)


# --------------------------------------------------------------------------- helpers


class LLMFailure(Exception):
    """A batch the model could not handle; ``reason`` goes into ``Extraction.error``."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(slots=True)
class LLMStats:
    """Running totals of one extractor (all batches, all threads)."""

    calls: int = 0
    retries: int = 0
    repairs: int = 0
    fallbacks: int = 0
    dropped_items: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    batched_episodes: int = 0
    solo_retries: int = 0
    version_requests: int = 0
    version_failures: int = 0

    def add(self, other: LLMStats) -> None:
        """Add ``other``'s counts to these."""
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))


def _retry_after(response: Any) -> float | None:
    if response is None:
        return None
    headers = response.headers
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (aware(when) - datetime.now(UTC)).total_seconds())


# --------------------------------------------------------------------------- extractor


class LLMExtractor:
    """Extraction through an OpenAI-compatible chat endpoint, falling back per batch.

    ``client`` replaces the one built from ``base_url``/``api_key``/``timeout`` (built on
    first use, with the client's own retries off: this class retries). ``sleep`` and
    ``rng`` exist for tests. ``total_timeout`` bounds one batch's retries in seconds.
    """

    name = "llm"

    def __init__(
        self,
        *,
        base_url: str | None,
        api_key: str | SecretStr,
        model: str,
        fallback: Extractor,
        batch_size: int = 8,
        max_retries: int = 3,
        timeout: float = 30.0,
        total_timeout: float | None = None,
        backoff_base: float = 0.5,
        backoff_max: float = 8.0,
        retry_after_max: float = 30.0,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        json_mode: bool = True,
        client: openai.OpenAI | None = None,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
    ) -> None:
        self.model = model
        self.fallback = fallback
        self.batch_size = max(1, batch_size)
        self.max_retries = max(0, max_retries)
        self.timeout = timeout
        self.total_timeout = total_timeout
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.retry_after_max = retry_after_max
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.json_mode = json_mode
        self.stats = LLMStats()
        self._base_url = base_url
        key = api_key.get_secret_value() if isinstance(api_key, SecretStr) else api_key
        self._api_key = key or "unused"
        self._client = client
        self._owns_client = client is None
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._lock = threading.Lock()

    # -- public ----------------------------------------------------------------------

    def extract(self, messages: list[Message]) -> Extraction:
        """Entities and relations of ``messages``; ``message_index`` points into the list."""
        result = Extraction(engine="llm")
        errors: list[str] = []
        batches = range(0, len(messages), self.batch_size)
        for n, start in enumerate(batches, 1):
            batch = messages[start : start + self.batch_size]
            tally = LLMStats()
            try:
                part = self._extract_batch(batch, tally)
            except LLMFailure as e:
                log.warning("LLM extraction failed, using %s: %s", self.fallback.name, e.reason)
                errors.append(e.reason if len(batches) == 1 else f"batch {n}: {e.reason}")
                part = self.fallback.extract(batch)
                tally.fallbacks += 1
            for ent in part.entities:
                shifted = {"message_index": ent.message_index + start}
                result.entities.append(ent.model_copy(update=shifted))
            for rel in part.relations:
                shifted = {"message_index": rel.message_index + start}
                result.relations.append(rel.model_copy(update=shifted))
            result.llm_calls += tally.calls + part.llm_calls
            result.prompt_tokens += tally.prompt_tokens + part.prompt_tokens
            result.completion_tokens += tally.completion_tokens + part.completion_tokens
            with self._lock:
                self.stats.add(tally)
        if errors:
            result.engine = "fallback"
            result.error = "; ".join(errors)
        return result

    def extract_many(self, windows: list[list[Message]]) -> list[Extraction]:
        """One extraction per window (an episode's messages), several episodes per request.

        Windows are packed in order while their messages fit in ``batch_size``; a window
        longer than that goes through ``extract`` alone. A request that fails outright
        (HTTP errors, timeouts after the retries) falls back to the rules for each of its
        episodes. A reply that is not a JSON object with an ``episodes`` list gets one
        repair request. Then each episode's part is checked on its own: missing, the wrong
        shape, or any item that does not validate, and that episode is extracted again
        alone (``extract``: its own repair and rule fallback); the others keep their parts.
        The request's calls and tokens are counted on the first episode of its pack.
        """
        out: list[Extraction | None] = [None] * len(windows)
        pack: list[int] = []
        size = 0
        for i, window in enumerate(windows):
            if len(window) > self.batch_size or not window:
                out[i] = self.extract(window)
                continue
            if pack and size + len(window) > self.batch_size:
                self._extract_pack(windows, pack, out)
                pack, size = [], 0
            pack.append(i)
            size += len(window)
        if pack:
            self._extract_pack(windows, pack, out)
        return [x if x is not None else Extraction(engine="llm") for x in out]

    def _extract_pack(self, windows: list[list[Message]], pack: list[int],
                      out: list[Extraction | None]) -> None:
        if len(pack) == 1:
            out[pack[0]] = self.extract(windows[pack[0]])
            return
        tally = LLMStats(batched_episodes=len(pack))
        deadline = None if self.total_timeout is None else time.monotonic() + self.total_timeout
        chat = build_batch_messages(SYSTEM_PROMPT, [windows[i] for i in pack])
        parts: dict[int, Any] = {}
        try:
            try:
                parts = self._parsed(chat, tally, deadline, parse_batch, REPAIR_BATCH_PROMPT)
            except ValueError:
                parts = {}  # every episode of the pack is extracted again alone
        except LLMFailure as e:
            log.warning("LLM extraction failed, using %s: %s", self.fallback.name, e.reason)
            for i in pack:
                part = self.fallback.extract(windows[i])
                out[i] = part.model_copy(update={"engine": "fallback", "error": e.reason})
            tally.fallbacks += len(pack)
        else:
            for n, i in enumerate(pack):
                result = part_extraction(parts.get(n), windows[i])
                if result is None:
                    tally.solo_retries += 1
                    result = self.extract(windows[i])
                out[i] = result
        head = out[pack[0]]
        assert head is not None
        head.llm_calls += tally.calls
        head.prompt_tokens += tally.prompt_tokens
        head.completion_tokens += tally.completion_tokens
        with self._lock:
            self.stats.add(tally)

    def propose_versions(self, asks: list[VersionAsk]) -> list[VersionProposal]:
        """The pairs of messages the model links as versions of one fact (or as a
        contradiction), the messages of several asks in one request (at most
        ``VERSION_CHARS`` characters of messages each). A request that fails (HTTP
        errors, timeouts after the retries, a reply still invalid after one repair)
        proposes nothing: the rules' links stand alone, and the write goes on."""
        out: list[VersionProposal] = []
        for pack in pack_asks(asks, VERSION_CHARS):
            tally = LLMStats(version_requests=1)
            deadline = None if self.total_timeout is None \
                else time.monotonic() + self.total_timeout
            chat = build_version_messages(pack)
            try:
                try:
                    found, tally.dropped_items = self._parsed(
                        chat, tally, deadline, partial(parse_versions, asks=pack),
                        REPAIR_VERSIONS_PROMPT)
                except ValueError as still:
                    raise LLMFailure(f"invalid JSON: {short(str(still))}") from None
                out.extend(found)
            except LLMFailure as e:
                log.warning("LLM version links failed, using the rules alone: %s", e.reason)
                tally.version_failures += 1
            with self._lock:
                self.stats.add(tally)
        return out

    def close(self) -> None:
        """Close the HTTP client this extractor built (not one passed in)."""
        with self._lock:
            if not self._owns_client:
                return
            client, self._client = self._client, None
        if client is not None:
            client.close()

    # -- one batch -------------------------------------------------------------------

    def build_messages(self, batch: list[Message]) -> list[dict[str, str]]:
        """The chat messages sent for ``batch``: the instructions, then the numbered window."""
        lines = []
        for i, msg in enumerate(batch):
            when = aware(msg.occurred_at).isoformat() if msg.occurred_at else "unknown time"
            who = speaker_label(msg)
            role = f" ({msg.role})" if msg.role and msg.role != who else ""
            lines.append(f"[{i}] {when} | {who}{role}: {msg.content}")
        user = "Messages:\n" + "\n".join(lines) + "\n\nReturn the JSON object."
        return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]

    def _extract_batch(self, batch: list[Message], tally: LLMStats) -> Extraction:
        deadline = None if self.total_timeout is None else time.monotonic() + self.total_timeout
        try:
            data = self._parsed(self.build_messages(batch), tally, deadline, parse_json_object,
                                REPAIR_PROMPT)
        except ValueError as second:
            raise LLMFailure(f"invalid JSON: {short(str(second))}") from None
        result, tally.dropped_items = to_extraction(data, batch)
        return result

    def _parsed[T](self, chat: list[dict[str, str]], tally: LLMStats, deadline: float | None,
                   parse: Callable[[str | None], T], repair_prompt: str) -> T:
        """The reply to ``chat`` read by ``parse``; a reply it refuses gets one repair
        request (``repair_prompt`` with the error). Raises ``ValueError`` when the repaired
        reply is refused too, ``LLMFailure`` when a request fails."""
        reply = self._complete(chat, tally, deadline)
        try:
            return parse(reply)
        except ValueError as bad:
            tally.repairs += 1
            repair = chat + [
                {"role": "assistant", "content": (reply or "")[:4000]},
                {"role": "user", "content": repair_prompt.format(error=bad)},
            ]
            return parse(self._complete(repair, tally, deadline))

    def _get_client(self) -> openai.OpenAI:
        with self._lock:
            if self._client is None:
                import openai

                self._client = openai.OpenAI(
                    base_url=self._base_url,
                    api_key=self._api_key,
                    timeout=self.timeout,
                    max_retries=0,
                )
            return self._client

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, self.retry_after_max)
        delay = min(self.backoff_max, self.backoff_base * 2.0**attempt)
        return delay * (0.5 + 0.5 * self._rng.random())

    def _complete(
        self, chat: list[dict[str, str]], tally: LLMStats, deadline: float | None
    ) -> str | None:
        import openai

        client = self._get_client()
        kwargs: dict[str, Any] = {"model": self.model, "messages": chat}
        kwargs["temperature"] = self.temperature
        if self.json_mode:
            kwargs["response_format"] = {"type": "json_object"}
        if self.max_tokens is not None:
            kwargs["max_tokens"] = self.max_tokens
        last = "no attempt"
        for attempt in range(self.max_retries + 1):
            if attempt:
                tally.retries += 1
            tally.calls += 1
            retry_after: float | None = None
            try:
                resp = client.chat.completions.create(**kwargs)
            except openai.APIStatusError as e:
                if e.status_code not in RETRY_STATUSES:
                    raise LLMFailure(f"HTTP {e.status_code}: {short(e.message)}") from None
                last, retry_after = f"HTTP {e.status_code}", _retry_after(e.response)
            except openai.APITimeoutError:
                last = "timeout"
            except openai.APIConnectionError as e:
                cause = e.__cause__
                last = f"connection error ({type(cause).__name__})" if cause else "connection error"
            except openai.OpenAIError as e:
                raise LLMFailure(f"{type(e).__name__}: {short(str(e))}") from None
            except ValueError as e:  # the body was not JSON (a proxy's HTML page...)
                raise LLMFailure(f"invalid response body: {short(str(e))}") from None
            except Exception as e:  # a client bug must not break ingestion
                raise LLMFailure(f"unexpected {type(e).__name__}: {short(str(e))}") from None
            else:
                if resp.usage is not None:
                    tally.prompt_tokens += resp.usage.prompt_tokens or 0
                    tally.completion_tokens += resp.usage.completion_tokens or 0
                if not resp.choices:
                    raise LLMFailure("reply has no choices")
                message = resp.choices[0].message
                refusal = getattr(message, "refusal", None)
                if refusal:
                    raise LLMFailure(f"model refused: {short(refusal)}")
                content: str | None = message.content
                return content
            if attempt == self.max_retries:
                break
            delay = self._backoff(attempt, retry_after)
            if deadline is not None and time.monotonic() + delay > deadline:
                raise LLMFailure(f"{last}; gave up after {attempt} retries (time budget)")
            self._sleep(delay)
        raise LLMFailure(f"{last} after {self.max_retries} retries")
