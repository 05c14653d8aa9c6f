"""Reading a model's extraction reply: find the JSON, validate items one by one, canonicalise.

The conventions (predicates, categories, exclusivity, subjects) are the rule engine's, so a
batch read by the model and one read by ``rules.RuleExtractor`` land in the same slots.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator

from graphmem.extract import Message
from graphmem.model import ExtractedEntity, ExtractedRelation, Extraction, aware

#: Categories of the predicates with a fixed meaning (same conventions as the rule engine).
PREDICATE_CATEGORY = {
    "name_is": "identity", "lives_in": "identity", "works_at": "work", "has_role": "work",
    "uses": "tool", "plans_to": "plan", "learning": "learning", "goal": "goal",
    "failed_because": "lesson", "requires": "lesson",
}
#: Predicates whose subject has one object at a time (identity and work).
EXCLUSIVE_PREDICATES = frozenset({"name_is", "lives_in", "works_at", "has_role"})
#: Predicates that state a taste; exclusive only within a "preference:<domain>" slot.
PREFERENCE_PREDICATES = frozenset({"prefers", "likes", "dislikes"})

_FIRST_PERSON = frozenset({"i", "me", "my", "myself", "mine", "我", "我的", "本人"})
# Plans and goals point at the future: their dates are not when they became true.
_UNDATED = frozenset({"plans_to", "goal"})


class _LLMEntity(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    name: str = Field(min_length=1)
    type: str = "thing"
    aliases: list[str] = Field(default_factory=list)
    message_index: int = 0

    @field_validator("type", "aliases", mode="before")
    @classmethod
    def _null(cls, v: Any, info: ValidationInfo) -> Any:
        return v if v else ("thing" if info.field_name == "type" else [])


class _LLMRelation(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    subject: str = Field(min_length=1)
    predicate: str = Field(min_length=1)
    object: str = Field(min_length=1)
    category: str | None = None
    exclusive: bool | None = None
    confidence: float = 0.8
    valid_from: datetime | None = None
    stop: bool = False
    statement: str | None = None
    message_index: int = 0

    @field_validator("valid_from", mode="before")
    @classmethod
    def _blank_date(cls, v: Any) -> Any:
        if isinstance(v, str) and v.strip().lower() in ("", "null", "none", "unknown", "now"):
            return None
        return v

    @field_validator("stop", "exclusive", mode="before")
    @classmethod
    def _null_bool(cls, v: Any) -> Any:
        return False if v is None else v


_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)\n?[ \t]*```", re.DOTALL)


def short(text: object, limit: int = 160) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def parse_json_object(text: str | None) -> dict[str, Any]:
    """The JSON object in a model reply, tolerating code fences and prose around it.

    Raises ``ValueError`` with a short reason.
    """
    if text is None or not text.strip():
        raise ValueError("empty reply")
    s = text.strip()
    fenced = _FENCE.search(s)
    if fenced:
        s = fenced.group(1).strip()
    try:
        obj = json.loads(s)
    except json.JSONDecodeError as e:
        start, end = s.find("{"), s.rfind("}")
        if not 0 <= start < end:
            raise ValueError(f"{e.msg} at line {e.lineno} column {e.colno}") from None
        try:
            obj = json.loads(s[start : end + 1])
        except json.JSONDecodeError as e2:
            raise ValueError(f"{e2.msg} at line {e2.lineno} column {e2.colno}") from None
    if not isinstance(obj, dict):
        raise ValueError(f"top level is {type(obj).__name__}, not an object")
    if "entities" not in obj and "relations" not in obj:
        raise ValueError("no 'entities' or 'relations' key")
    return obj


def _snake(text: str) -> str:
    return re.sub(r"[^\w]+", "_", text.strip().casefold()).strip("_")


def speaker_label(message: Message) -> str:
    """Who a message's first-person statements are about: its speaker, else its role."""
    if message.speaker:
        return message.speaker
    return "user" if message.role == "user" else (message.role or "user")


def _simultaneous_not_exclusive(relations: list[ExtractedRelation]) -> None:
    """Several objects of one preference/tool slot in one message hold at once, as the rule
    engine reads "I use Python and Rust": not exclusive, so neither supersedes the other."""
    slots: dict[tuple[int, str, str, str], set[str]] = {}
    for r in relations:
        if r.exclusive and not r.stop and r.category.startswith(("preference:", "tool:")):
            key = (r.message_index, r.subject.casefold(), r.predicate, r.category)
            slots.setdefault(key, set()).add(r.object.casefold())
    shared = {key for key, objects in slots.items() if len(objects) > 1}
    for r in relations:
        if (r.message_index, r.subject.casefold(), r.predicate, r.category) in shared:
            r.exclusive = False


def to_extraction(data: dict[str, Any], batch: list[Message]) -> tuple[Extraction, int]:
    """The validated, canonical extraction of one batch's reply, and how many items it dropped.

    Items are validated one by one: a bad one is dropped (and counted), the rest are kept.
    """
    dropped = 0
    out = Extraction(engine="llm")
    seen_entities: set[str] = set()
    raw_entities = data.get("entities") or []
    raw_relations = data.get("relations") or []
    if not isinstance(raw_entities, list):
        dropped += 1
        raw_entities = []
    if not isinstance(raw_relations, list):
        dropped += 1
        raw_relations = []
    for item in raw_entities:
        try:
            ent = _LLMEntity.model_validate(item)
        except ValidationError:
            dropped += 1
            continue
        if not 0 <= ent.message_index < len(batch):
            dropped += 1
            continue
        aliases = [a.strip() for a in ent.aliases if a.strip() and a.strip() != ent.name]
        if ent.name.casefold() in seen_entities:
            continue
        seen_entities.add(ent.name.casefold())
        out.entities.append(
            ExtractedEntity(
                name=ent.name,
                type=_snake(ent.type) or "thing",
                aliases=aliases,
                message_index=ent.message_index,
            )
        )
    seen: dict[tuple[int, str, str, str, bool], int] = {}
    for item in raw_relations:
        try:
            rel = _LLMRelation.model_validate(item)
        except ValidationError:
            dropped += 1
            continue
        canon = _canonical(rel, batch)
        if canon is None:
            dropped += 1
            continue
        key = (canon.message_index, canon.subject.casefold(), canon.predicate,
               canon.object.casefold(), canon.stop)
        if key in seen:  # the same statement twice in one message: keep the surer
            j = seen[key]
            if canon.confidence > out.relations[j].confidence:
                out.relations[j] = canon
            continue
        seen[key] = len(out.relations)
        out.relations.append(canon)
    _simultaneous_not_exclusive(out.relations)
    return out, dropped


def _canonical(rel: _LLMRelation, batch: list[Message]) -> ExtractedRelation | None:
    if not 0 <= rel.message_index < len(batch):
        return None
    predicate = _snake(rel.predicate)
    if not predicate:
        return None
    subject, message = rel.subject, batch[rel.message_index]
    if subject.casefold() in _FIRST_PERSON:
        if not message.speaker and message.role != "user":
            return None  # an unnamed assistant talking about itself: not memory
        subject = speaker_label(message)
    kind, _, domain = (rel.category or "").strip().partition(":")
    kind, domain = _snake(kind), _snake(domain)
    exclusive = bool(rel.exclusive)
    if predicate in PREDICATE_CATEGORY:
        category = PREDICATE_CATEGORY[predicate]
        if predicate == "uses" and kind == "tool" and domain:
            category = f"tool:{domain}"  # a single-choice tool slot (editor, database...)
        exclusive = predicate in EXCLUSIVE_PREDICATES or category.startswith("tool:")
    elif kind == "preference" or predicate in PREFERENCE_PREDICATES:
        # A domain is a single-choice slot: liking Vue there is preferring it, so a
        # later "I now prefer React" supersedes it (the rule engine's convention).
        category = f"preference:{domain}" if domain else "preference"
        if domain and predicate == "likes":
            predicate = "prefers"
        exclusive = bool(domain) and predicate != "dislikes"
    else:
        category = f"{kind}:{domain}" if kind and domain else (kind or "fact")
    return ExtractedRelation(
        subject=subject,
        predicate=predicate,
        object=rel.object,
        category=category,
        exclusive=exclusive,
        confidence=min(1.0, max(0.0, rel.confidence)),
        valid_from=None if rel.valid_from is None or predicate in _UNDATED
        else aware(rel.valid_from),
        stop=rel.stop,
        statement=rel.statement or None,
        message_index=rel.message_index,
    )
