"""``graphmem ingest``: episodes from a JSON array or JSONL file, in batches, with progress."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphmem.errors import GraphMemError, InvalidInputError
from graphmem.ingest import prepare
from graphmem.inputs import EpisodeIn, MessageIn
from graphmem.settings import Settings

_KEYS = {  # accepted spellings -> EpisodeIn field
    "content": "content", "text": "content", "messages": "messages",
    "occurredAt": "occurred_at", "occurred_at": "occurred_at", "timestamp": "occurred_at",
    "sessionId": "session_id", "session_id": "session_id", "source": "source",
    "sourceRef": "source_ref", "source_ref": "source_ref", "kind": "kind", "role": "role",
    "speaker": "speaker", "scope": "scope",
}

_MUTATION = """mutation($inputs: [EpisodeInput!]!) {
  addEpisodes(inputs: $inputs) { duplicate relations { id } entities { id } } }"""


@dataclass(slots=True)
class Item:
    where: str  # "line 12" / "item 3"
    episode: EpisodeIn | None = None
    error: str | None = None


@dataclass(slots=True)
class Tally:
    total: int = 0
    stored: int = 0
    duplicates: int = 0
    relations: int = 0
    entities: int = 0
    bad: list[str] = field(default_factory=list)


def read_items(path: Path, user: str, session: str | None,
               scope: str | None = None) -> Iterator[Item]:
    text = sys.stdin.read() if str(path) == "-" else path.read_text(encoding="utf-8")
    if text.lstrip().startswith("["):
        try:
            records = json.loads(text)
        except ValueError as e:
            yield Item(f"line {getattr(e, 'lineno', '?')}", error=f"not a JSON array: {e}")
            return
        for i, rec in enumerate(records, start=1):
            yield _item(f"item {i}", rec, user, session, scope)
        return
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("//"):
            continue
        try:
            rec = json.loads(line)
        except ValueError as e:
            yield Item(f"line {n}", error=f"not JSON ({getattr(e, 'msg', e)})")
            continue
        yield _item(f"line {n}", rec, user, session, scope)


def _item(where: str, rec: Any, user: str, session: str | None,
          scope: str | None = None) -> Item:
    if not isinstance(rec, dict):
        return Item(where, error="an episode must be a JSON object")
    values: dict[str, Any] = {}
    for key, value in rec.items():
        target = _KEYS.get(key)
        if target is not None and value is not None:
            values[target] = value
    if "messages" in values:
        msgs = values["messages"]
        if not isinstance(msgs, list) or not all(isinstance(m, dict) for m in msgs):
            return Item(where, error="messages: must be a list of {role, content} objects")
        values["messages"] = [MessageIn(role=str(m.get("role") or "user"),
                                        content=m.get("content"),
                                        name=m.get("name") or m.get("speaker"))
                              for m in msgs]
    if session and "session_id" not in values:
        values["session_id"] = session
    if scope and "scope" not in values:
        values["scope"] = scope
    if "occurred_at" not in values:
        return Item(where, error="occurredAt: is required")
    try:
        return Item(where, EpisodeIn(user_id=user, **values))
    except TypeError as e:
        return Item(where, error=str(e))


class _Progress:
    def __init__(self, total: int) -> None:
        self.total = total
        self.started = time.monotonic()
        self.tty = sys.stderr.isatty()

    def show(self, t: Tally, final: bool = False) -> None:
        done = t.stored + t.duplicates
        rate = done / max(time.monotonic() - self.started, 1e-6)
        line = (f"ingest: {done}/{self.total} episodes, {t.relations} relations, "
                f"{len(t.bad)} bad, {rate:.1f}/s")
        if self.tty:
            end = "\n" if final else ""
            print(f"\r{line}", end=end, file=sys.stderr, flush=True)
        elif not final:
            print(line, file=sys.stderr, flush=True)


def ingest(args: argparse.Namespace, settings: Settings) -> int:
    items = list(read_items(args.file, args.user, args.session, args.scope))
    tally = Tally(total=len(items))
    good: list[Item] = []
    for it in items:
        if it.error is None and it.episode is not None:
            try:
                prepare(it.episode, settings)
            except InvalidInputError as e:
                it.error = f"{e.field}: {e.message}"
        if it.error is not None:
            tally.bad.append(f"{it.where}: {it.error}")
            print(f"ingest: {it.where}: {it.error}", file=sys.stderr)
        else:
            good.append(it)
    size = max(1, min(args.batch_size, settings.max_batch))
    progress = _Progress(len(good))
    started = time.monotonic()
    with contextlib.ExitStack() as stack:
        if args.url:
            run = _RemoteSender(args.url, args.api_key, settings).send
        else:
            from graphmem.cli import open_service

            run = _LocalSender(stack.enter_context(open_service(settings))).send
        for i in range(0, len(good), size):
            _send_batch(run, good[i:i + size], tally)
            progress.show(tally)
    progress.show(tally, final=True)
    took = time.monotonic() - started
    print(f"ingested {tally.stored} new episodes ({tally.duplicates} already stored), "
          f"{tally.relations} relations, {tally.entities} entities from {tally.total} items "
          f"in {took:.1f}s; {len(tally.bad)} bad", file=sys.stderr)
    return 1 if tally.bad else 0


def _send_batch(run: Any, batch: list[Item], tally: Tally) -> None:
    try:
        results = run([it.episode for it in batch])
    except InvalidInputError:
        if len(batch) == 1:
            raise
        for it in batch:  # find the culprit: one by one
            try:
                _send_batch(run, [it], tally)
            except (InvalidInputError, GraphMemError) as e:
                tally.bad.append(f"{it.where}: {e}")
                print(f"ingest: {it.where}: {e}", file=sys.stderr)
        return
    for duplicate, n_rel, n_ent in results:
        if duplicate:
            tally.duplicates += 1
        else:
            tally.stored += 1
        tally.relations += n_rel
        tally.entities += n_ent


class _LocalSender:
    def __init__(self, service: Any) -> None:
        self.service = service

    def send(self, episodes: list[EpisodeIn]) -> list[tuple[bool, int, int]]:
        return [(r.duplicate, len(r.relations), len(r.entities))
                for r in self.service.add_episodes(episodes)]


class _RemoteSender:
    def __init__(self, url: str, api_key: str | None, settings: Settings) -> None:
        self.url = url
        self.api_key = api_key
        self.settings = settings

    def send(self, episodes: list[EpisodeIn]) -> list[tuple[bool, int, int]]:
        from graphmem.cli import graphql_request

        inputs = []
        for ep in episodes:
            p = prepare(ep, self.settings)
            inputs.append({
                "userId": p.user_id, "sessionId": ep.session_id,
                "occurredAt": p.occurred_at.isoformat(), "content": ep.content,
                "messages": [{"role": m.role, "content": m.content, "name": m.name}
                             for m in ep.messages] if ep.messages else None,
                "source": ep.source, "sourceRef": ep.source_ref, "kind": ep.kind,
                "role": ep.role, "speaker": ep.speaker, "scope": ep.scope})
        data = graphql_request(self.url, _MUTATION, {"inputs": inputs}, self.api_key)
        return [(r["duplicate"], len(r["relations"]), len(r["entities"]))
                for r in data["addEpisodes"]]
