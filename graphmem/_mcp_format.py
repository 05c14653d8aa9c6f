"""What the MCP tools answer: compact text an LLM reads well, and the same facts as
structured output (pydantic models, published as each tool's output schema)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from graphmem.model import Abstraction, Episode, Relation
from graphmem.recall_model import RecallResult
from graphmem.service import EpisodeResult


def day(dt: datetime | None) -> str:
    return dt.date().isoformat() if dt else "now"


def instant(dt: datetime | None) -> str | None:
    return dt.isoformat() if dt else None


# --------------------------------------------------------------------------- structured


class SourceOut(BaseModel):
    id: str
    source_ref: str | None = None
    occurred_at: str | None = None


class RelationOut(BaseModel):
    id: str
    statement: str
    subject: str
    predicate: str
    object: str
    status: str
    valid_from: str | None
    valid_until: str | None = None
    recorded_at: str | None = None
    expired_at: str | None = None
    forgotten_at: str | None = None
    supersedes: list[str] = Field(default_factory=list)
    superseded_by: list[str] = Field(default_factory=list)
    disputes: list[str] = Field(default_factory=list)
    source_refs: list[str] = Field(default_factory=list)
    scope: str | None = None


class RecallHit(BaseModel):
    id: str
    kind: str
    text: str
    score: float
    status: str
    valid_from: str | None = None
    valid_until: str | None = None
    occurred_at: str | None = None
    sources: list[SourceOut] = Field(default_factory=list)


class ConflictOut(BaseModel):
    ids: list[str]
    warning: str


class RecallOut(BaseModel):
    items: list[RecallHit]
    conflicts: list[ConflictOut] = Field(default_factory=list)
    time_window: dict[str, str] | None = None
    cold_start: bool = False


class RememberOut(BaseModel):
    episode_id: str
    duplicate: bool
    relations: list[RelationOut] = Field(default_factory=list)
    redacted: list[str] = Field(default_factory=list)


class RelationsOut(BaseModel):
    relations: list[RelationOut]


class ChangeOut(BaseModel):
    change: str  # added / closed / forgotten
    at: str | None = None  # None: closed at some time in the span
    relation: RelationOut


class ChangesOut(BaseModel):
    since: str
    changes: list[ChangeOut]
    more: bool = False


class AbstractionOut(BaseModel):
    id: str
    conclusion: str
    conditions: list[str] = Field(default_factory=list)
    confidence: float
    version: int
    status: str
    sources: list[str] = Field(default_factory=list)


class AbstractionsOut(BaseModel):
    abstractions: list[AbstractionOut]


class DoneOut(BaseModel):
    id: str
    changed: bool


def relation_out(r: Relation) -> RelationOut:
    return RelationOut(
        id=r.id, statement=r.statement, subject=r.subject, predicate=r.predicate,
        object=r.object, status=r.status.value, valid_from=instant(r.valid_from),
        valid_until=instant(r.valid_until), recorded_at=instant(r.recorded_at),
        expired_at=instant(r.expired_at), forgotten_at=instant(r.forgotten_at),
        supersedes=r.supersedes_ids, superseded_by=r.superseded_by_ids,
        disputes=r.disputes_ids, source_refs=r.source_refs, scope=r.scope)


def abstraction_out(a: Abstraction) -> AbstractionOut:
    return AbstractionOut(id=a.id, conclusion=a.conclusion, conditions=a.conditions,
                          confidence=round(a.confidence, 3), version=a.version,
                          status=a.status.value, sources=a.source_ids)


def recall_out(result: RecallResult) -> RecallOut:
    window = result.temporal_window
    return RecallOut(
        items=[RecallHit(
            id=it.id, kind=it.kind.value.lower(), text=it.text, score=round(it.score, 4),
            status=it.status.value, valid_from=instant(it.valid_from),
            valid_until=instant(it.valid_until), occurred_at=instant(it.occurred_at),
            sources=[SourceOut(id=s.id, source_ref=s.source_ref,
                               occurred_at=instant(s.occurred_at)) for s in it.sources])
            for it in result.items],
        conflicts=[ConflictOut(ids=c.ids, warning=c.warning) for c in result.conflicts],
        time_window=None if window is None else {
            "start": window.start.isoformat(), "end": window.end.isoformat(),
            "phrase": window.phrase},
        cold_start=result.cold_start)


# --------------------------------------------------------------------------- text


def relation_line(r: Relation | RelationOut) -> str:
    if isinstance(r, Relation):
        r = relation_out(r)
    until = (r.valid_until or "")[:10] or "now"
    extra = []
    if r.supersedes:
        extra.append(f"supersedes {', '.join(r.supersedes)}")
    if r.disputes:
        extra.append(f"disputed by {', '.join(r.disputes)}")
    if r.forgotten_at:
        extra.append(f"forgotten {r.forgotten_at[:10]}")
    tail = f"; {'; '.join(extra)}" if extra else ""
    return (f"- {r.id}: {r.statement} [{r.status}] valid {(r.valid_from or '')[:10]}..{until}"
            f"{tail}")


def recall_text(query: str, out: RecallOut) -> str:
    if out.cold_start:
        return "This user has no memories yet."
    if not out.items:
        return f"Nothing recalled for {query!r}."
    lines = [f"{len(out.items)} memories for {query!r}"
             + (f" (time window {out.time_window['start'][:10]}..{out.time_window['end'][:10]}"
                f" from {out.time_window['phrase']!r})" if out.time_window else "") + ":"]
    for n, it in enumerate(out.items, start=1):
        if it.kind == "episode":
            when = f"said {(it.occurred_at or '')[:10]}"
        elif it.valid_from:
            when = f"valid {it.valid_from[:10]}..{(it.valid_until or '')[:10] or 'now'}"
        else:
            when = ""
        refs = ", ".join(s.source_ref or s.id for s in it.sources[:3])
        status = "" if it.status == "ACTIVE" else f" [{it.status}]"
        facts = [when] if when else []
        facts.append(f"score {it.score:.3f}")
        if refs:
            facts.append(f"from {refs}")
        lines.append(f"{n}. [{it.kind} {it.id}] {it.text[:400]}{status} ({'; '.join(facts)})")
    for c in out.conflicts:
        lines.append(f"CONFLICT {' vs '.join(c.ids)}: {c.warning}")
    return "\n".join(lines)


def remember_out(result: EpisodeResult) -> RememberOut:
    return RememberOut(episode_id=result.episode.id, duplicate=result.duplicate,
                       relations=[relation_out(r) for r in result.relations],
                       redacted=result.redacted)


def remember_text(out: RememberOut, episode: Episode) -> str:
    if out.duplicate:
        return f"Already stored as episode {out.episode_id}; nothing new written."
    lines = [f"Stored episode {out.episode_id} (occurred {episode.occurred_at.isoformat()})."]
    if out.redacted:
        lines.append(f"Redacted before storing: {', '.join(out.redacted)}.")
    if out.relations:
        lines.append(f"Learned {len(out.relations)} fact(s):")
        lines.extend(relation_line(r) for r in out.relations)
    else:
        lines.append("No facts extracted; the episode itself is searchable by recall.")
    return "\n".join(lines)


def changes_text(out: ChangesOut) -> str:
    if not out.changes:
        return f"No relation was recorded, closed or forgotten since {out.since}."
    lines = [f"{len(out.changes)} change(s) since {out.since}, newest first"
             + (" (more: narrow with until)" if out.more else "") + ":"]
    for c in out.changes:
        when = c.at[:19] if c.at else "(in span)"
        lines.append(f"{when} {c.change.upper()} {relation_line(c.relation)[2:]}")
    return "\n".join(lines)


def abstractions_text(out: AbstractionsOut, empty: str) -> str:
    if not out.abstractions:
        return empty
    return "\n".join(
        f"- {a.id} v{a.version}: {a.conclusion}"
        + (f" [{'; '.join(a.conditions)}]" if a.conditions else "")
        + f" (confidence {a.confidence:.2f}, {a.status}, {len(a.sources)} sources)"
        for a in out.abstractions)


def episodes_text(episodes: list[Episode], total: int) -> str:
    if not episodes:
        return "No episodes."
    lines = [f"The {len(episodes)} most recent of {total} episodes, oldest first:"]
    for e in episodes:
        who = f"{e.speaker or e.role}: " if (e.speaker or e.role) else ""
        lines.append(f"- {e.id} {e.occurred_at.isoformat()[:19]} {who}{e.content[:300]}")
    return "\n".join(lines)
