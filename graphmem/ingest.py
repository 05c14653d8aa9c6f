"""Episode intake: validate, normalise timestamps and roles, guard secrets, derive the id.

Nothing here writes; ``MemoryService.add_episodes`` turns prepared episodes into one plan.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from graphmem.errors import InvalidInputError
from graphmem.extract import Message
from graphmem.guard import FieldGuard, GuardPolicy
from graphmem.inputs import (
    EpisodeIn,
    MessageIn,
    check_chars,
    check_id,
    check_instant,
    check_text,
)
from graphmem.model import make_id, to_ms
from graphmem.settings import Settings
from graphmem.timeparse import parse_timestamp

MAX_MESSAGES = 200
KINDS = ("message", "conversation", "event", "document")

# Roles as agent frameworks spell them, mapped onto a small set.
_ROLES = {"human": "user", "user": "user", "customer": "user", "assistant": "assistant",
          "ai": "assistant", "bot": "assistant", "model": "assistant", "agent": "assistant",
          "system": "system", "tool": "tool", "function": "tool"}


@dataclass(slots=True)
class PreparedEpisode:
    id: str
    user_id: str
    session_id: str
    occurred_at: datetime
    content: str
    kind: str
    role: str | None
    speaker: str | None
    source: str | None
    source_ref: str | None
    messages: list[Message]
    redacted: list[str] = field(default_factory=list)
    #: sent as ``content`` with no ``speaker`` (a leading "Name: " label may name one)
    from_content: bool = False
    #: what the episode is embedded from ("" : its content); ``content`` stays as sent
    index_text: str = ""
    #: where a speaker not sent came from: "label" ("Name: text"), "user" (the user's name)
    speaker_from: str | None = None
    #: the project or workspace it belongs to (None: the user level)
    scope: str | None = None

    @property
    def indexed(self) -> str:
        return self.index_text or self.content


def normalize_role(role: str | None) -> str:
    if not role:
        return "user"
    key = role.strip().casefold()
    return _ROLES.get(key, key[:40])


def prepare(data: EpisodeIn, settings: Settings, prefix: str = "") -> PreparedEpisode:
    """Validate and normalise one episode input; errors name the field (with ``prefix``)."""
    try:
        return _prepare(data, settings)
    except InvalidInputError as e:
        raise InvalidInputError(prefix + e.field, e.message) from None


def _prepare(data: EpisodeIn, s: Settings) -> PreparedEpisode:
    user_id = check_id(data.user_id, "userId") or ""
    session_id = check_id(data.session_id, "sessionId", required=False) or "default"
    scope = check_id(data.scope, "scope", required=False)
    source = check_text(data.source, "source", 200, required=False)
    source_ref = check_id(data.source_ref, "sourceRef", required=False)
    if data.occurred_at is None:
        raise InvalidInputError("occurredAt", "is required")
    if isinstance(data.occurred_at, datetime):
        occurred_at = check_instant(data.occurred_at, "occurredAt") or data.occurred_at
    else:
        occurred_at = parse_timestamp(data.occurred_at, field="occurredAt")
    role = _chars(data.role, "role")
    kind = _chars(data.kind, "kind")
    speaker = _chars(data.speaker, "speaker")
    if (data.content is None) == (not data.messages):
        raise InvalidInputError("content", "give either content or messages (exactly one)")
    # Every stored text is guarded; the ids before they are hashed into the episode id, so
    # a resend is still the same episode.
    guard = FieldGuard(GuardPolicy.from_settings(s))
    session_id = guard(session_id, "sessionId") or "default"
    scope = guard(scope, "scope")
    source = guard(source, "source")
    source_ref = guard(source_ref, "sourceRef")
    role = guard(role, "role")
    redacted = guard.kinds
    messages: list[Message] = []
    if data.messages:
        if len(data.messages) > MAX_MESSAGES:
            raise InvalidInputError("messages", f"at most {MAX_MESSAGES} messages per episode")
        for i, m in enumerate(data.messages):
            messages.append(_message(m, i, s, occurred_at, guard))
        kind = kind or ("message" if len(messages) == 1 else "conversation")
    else:
        text = guard(check_text(data.content, "content", s.max_content_chars) or "",
                     "content") or ""
        speaker = guard(check_text(speaker, "speaker", s.max_name_chars, required=False),
                        "speaker")
        messages.append(Message(text, normalize_role(role), speaker, occurred_at))
        kind = kind or "message"
    if kind not in KINDS:
        raise InvalidInputError("kind", f"must be one of {', '.join(KINDS)}")
    if len(messages) == 1:
        content = messages[0].content
        role, speaker = messages[0].role, messages[0].speaker
    else:
        content = "\n".join(f"{m.speaker or m.role}: {m.content}" for m in messages)
        role, speaker = None, None
    if len(content) > s.max_content_chars:
        raise InvalidInputError("messages", f"together at most {s.max_content_chars} characters")
    # The exact text: a resend is the same episode, an edit of one letter is another.
    # (a scope is part of the id only when given: unscoped ids stay what they were)
    episode_id = make_id("epi", user_id, session_id, to_ms(occurred_at), source_ref or "",
                         content, *([f"scope:{scope}"] if scope else []))
    return PreparedEpisode(id=episode_id, user_id=user_id, session_id=session_id, scope=scope,
                           occurred_at=occurred_at, content=content, kind=kind, role=role,
                           speaker=speaker, source=source, source_ref=source_ref,
                           messages=messages, redacted=redacted,
                           from_content=data.content is not None and not speaker)


def _chars(value: str | None, field_name: str) -> str | None:
    """A short optional field checked for characters no store may hold (empty is unset)."""
    return check_chars(value, field_name) if isinstance(value, str) else value


def _message(m: MessageIn, i: int, s: Settings, occurred_at: datetime,
             guard: FieldGuard) -> Message:
    field_name = f"messages[{i}]"
    text = check_text(m.content, f"{field_name}.content", s.max_content_chars) or ""
    name = guard(check_text(m.name, f"{field_name}.name", s.max_name_chars, required=False),
                 f"{field_name}.name")
    role = guard(_chars(m.role, f"{field_name}.role"), f"{field_name}.role")
    content = guard(text, f"{field_name}.content") or ""
    return Message(content, normalize_role(role), name, occurred_at)
