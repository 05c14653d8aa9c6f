"""Webhooks: each user's memory events (``graphmem._events``) POSTed to one URL, in order,
retried until the receiver takes them (at least once; twice only after a crash between an
answer and the write of its cursor).

``MemoryService.apply`` calls ``notify(user)`` after every write; one daemon thread reads
that user's events after the last one delivered and POSTs up to 100 at a time, HMAC-signed.
2xx delivers; a network error, 408, 429 or 5xx is retried with jittered exponential backoff
and nothing later is sent meanwhile; any other answer dead-letters the batch (a warning)
and the user's next events go on. Per-user cursors live in ``<data_dir>/webhooks.json``
(tmp + ``os.replace``), so a restart resumes. A user without an entry starts at the time
the dispatcher started: turning webhooks on replays no history. Each read starts
``lookback`` before the last delivered event and skips what was sent, since an event's time
is taken when its write is planned and a write can commit after a later-stamped one.
Reads hold the service's write lock, so within one process a read never sees part of a
write (whose events share one time and would otherwise be sent out of order).
Event texts are user memories: only ids, counts and status codes are logged.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import logging
import os
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

import httpx

from graphmem._events import MAX_EVENTS, MemoryEvent
from graphmem._events import events as read_events
from graphmem.model import from_ms, to_ms
from graphmem.settings import Settings
from graphmem.store.base import Store

log = logging.getLogger("graphmem.webhooks")

#: events in one POST
BATCH = 100
STATE_FILE = "webhooks.json"
Outcome = Literal["delivered", "retry", "dead"]


@dataclass(slots=True)
class _UserState:
    since: int  # epoch ms: events before it are not this dispatcher's to send
    cursor: str | None = None  # the greatest event delivered (or dead-lettered)
    recent: set[str] = field(default_factory=set)  # cursors delivered within the lookback

    @property
    def last(self) -> int | None:
        return None if self.cursor is None else _at(self.cursor)


@dataclass(slots=True)
class WebhookStats:
    posts: int = 0
    delivered: int = 0  # events
    retries: int = 0  # failed attempts that will be tried again
    dead_lettered: int = 0  # events
    failing: set[str] = field(default_factory=set)  # users whose last attempt failed


class WebhookDispatcher:
    """Pushes users' memory events to ``settings.webhook_url`` from one daemon thread."""

    def __init__(self, settings: Settings, store: Store, clock: Callable[[], datetime],
                 read_lock: contextlib.AbstractContextManager[Any] | None = None) -> None:
        """``read_lock``: held while events are read, so a read never sees part of a write
        of this process (the service's write lock; the events of one write share a time,
        and a read that saw only some of them would send the rest after later ones)."""
        self._store = store
        self._read_lock = read_lock if read_lock is not None else contextlib.nullcontext()
        self._url = settings.webhook_url
        self._secret = settings.webhook_secret.get_secret_value().encode("utf-8")
        self._timeout = settings.webhook_timeout_s
        self._max_attempts = settings.webhook_max_attempts
        self._base = settings.webhook_backoff_s
        self._cap = settings.webhook_backoff_max_s
        self._lookback = int(settings.webhook_lookback_s * 1000)
        self._path = Path(settings.data_dir) / STATE_FILE
        self._started = to_ms(clock()) or 0  # events from here on are sent (no replay)
        self._cond = threading.Condition()
        self._due: dict[str, float] = {}  # user -> monotonic time of the next attempt
        self._failures: dict[str, int] = {}
        self._retrying: dict[str, list[MemoryEvent]] = {}  # the batch a retry sends again
        self._state: dict[str, _UserState] = {}  # owned by the thread once it runs
        self._thread: threading.Thread | None = None
        self._closed = False
        self.stats = WebhookStats()

    # ------------------------------------------------------------------ control

    def start(self) -> None:
        """Start the thread (it then resumes every user with an entry in the state file)."""
        with self._cond:
            self._start_locked()

    def notify(self, user_id: str) -> None:
        """The user's memory changed: deliver its new events soon. Never blocks on I/O."""
        with self._cond:
            if self._closed:
                return
            if self._failures.get(user_id, 0) >= self._max_attempts:
                self._failures[user_id] = 0  # parked: a new write is worth a new round
                self._due[user_id] = time.monotonic()
            else:  # a user in backoff keeps its delay
                self._due.setdefault(user_id, time.monotonic())
            self._start_locked()
            self._cond.notify_all()

    def close(self, timeout: float = 2.0) -> None:
        """Stop the thread; a POST in flight is waited for at most ``timeout`` seconds.

        Users notified but never read yet get their entry written, so a restart sends
        what they wrote; everything else is already in the state file."""
        with self._cond:
            if self._closed:
                return
            self._closed = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join(timeout)
            if thread.is_alive():
                log.warning("webhook thread still busy after %.1f s; left to finish", timeout)
                return
        with self._cond:
            unseen = [u for u in self._due if u not in self._state]
        if unseen:
            for user_id in unseen:
                self._state[user_id] = _UserState(self._started)
            self._save()

    def _start_locked(self) -> None:
        if self._thread is None and not self._closed:
            self._thread = threading.Thread(target=self._run, name="graphmem-webhooks",
                                            daemon=True)
            self._thread.start()

    # ------------------------------------------------------------------ the thread

    def _run(self) -> None:
        self._load()
        with httpx.Client(timeout=self._timeout, follow_redirects=False) as client:
            while (user_id := self._next_user()) is not None:
                try:
                    self._deliver(client, user_id)
                except Exception:  # a store error: the same events are tried again later
                    log.exception("webhook delivery for user %s failed", user_id)
                    self._retry_later(user_id, None)

    def _next_user(self) -> str | None:
        """The user whose attempt is due first, waiting for one; None once closed."""
        with self._cond:
            while not self._closed:
                now = time.monotonic()
                if self._due:
                    user_id = min(self._due, key=self._due.__getitem__)
                    wait = self._due[user_id] - now
                    if wait <= 0:
                        del self._due[user_id]
                        return user_id
                    self._cond.wait(wait)
                else:
                    self._cond.wait()
            return None

    def _deliver(self, client: httpx.Client, user_id: str) -> None:
        entry = self._state.get(user_id)
        if entry is None:  # first sight: written before anything is sent
            entry = self._state[user_id] = _UserState(self._started)
            self._save()
        retry = self._retrying.pop(user_id, None)
        batch, more = (retry, True) if retry else self._pending(user_id, entry)
        if not batch:
            with self._cond:
                self._failures.pop(user_id, None)
                self.stats.failing.discard(user_id)
            return
        outcome, retry_after = self._post(client, user_id, batch)
        if outcome == "retry":  # the same batch again: same body, same delivery id
            self._retrying[user_id] = batch
            self._retry_later(user_id, retry_after)
            return
        if outcome == "dead":
            self.stats.dead_lettered += len(batch)
            log.warning("webhook: %d event(s) of user %s dead-lettered", len(batch), user_id)
        else:
            self.stats.delivered += len(batch)
        self._advance(entry, batch)
        self._save()
        with self._cond:
            self._failures.pop(user_id, None)
            self.stats.failing.discard(user_id)
            if more:
                self._due[user_id] = time.monotonic()

    def _pending(self, user_id: str, entry: _UserState) -> tuple[list[MemoryEvent], bool]:
        """Up to ``BATCH`` events not delivered yet, oldest first; True when more follow."""
        since = entry.since if entry.last is None else max(entry.since,
                                                           entry.last - self._lookback)
        out: list[MemoryEvent] = []
        after: str | None = None
        while True:
            with self._read_lock:
                page = read_events(self._store, user_id, since=from_ms(since), after=after,
                                   limit=MAX_EVENTS)
            out.extend(ev for ev in page.items if ev.cursor not in entry.recent)
            if len(out) >= BATCH or page.next_cursor is None:
                return out[:BATCH], len(out) > BATCH or page.next_cursor is not None
            after = page.next_cursor

    def _advance(self, entry: _UserState, batch: list[MemoryEvent]) -> None:
        cursors = [ev.cursor for ev in batch]
        top = max([c for c in (entry.cursor, *cursors) if c is not None], key=_key)
        floor = _at(top) - self._lookback
        entry.cursor = top
        entry.recent = {c for c in (*entry.recent, *cursors) if _at(c) >= floor}

    def _post(self, client: httpx.Client, user_id: str, batch: list[MemoryEvent],
              ) -> tuple[Outcome, float | None]:
        body = json.dumps({"userId": user_id, "events": [_event_json(ev) for ev in batch]},
                          ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        headers = {"Content-Type": "application/json", "User-Agent": "graphmem-webhooks",
                   # the same batch has the same id on every attempt: receivers can dedupe
                   "X-Graphmem-Delivery": hashlib.sha256(
                       f"{user_id}\n{batch[0].cursor}\n{batch[-1].cursor}".encode()
                   ).hexdigest()[:32]}
        if self._secret:
            digest = hmac.new(self._secret, body, hashlib.sha256).hexdigest()
            headers["X-Graphmem-Signature"] = f"sha256={digest}"
        self.stats.posts += 1
        try:
            resp = client.post(self._url, content=body, headers=headers)
        except httpx.HTTPError as e:
            log.info("webhook POST for user %s failed: %s", user_id, type(e).__name__)
            return "retry", None
        code = resp.status_code
        if 200 <= code < 300:
            return "delivered", None
        if code in (408, 429) or code >= 500:
            log.info("webhook POST for user %s answered %d; will retry", user_id, code)
            return "retry", _retry_after(resp.headers.get("Retry-After"))
        log.warning("webhook POST for user %s answered %d", user_id, code)
        return "dead", None

    def _retry_later(self, user_id: str, retry_after: float | None) -> None:
        with self._cond:
            failures = self._failures[user_id] = self._failures.get(user_id, 0) + 1
            self.stats.retries += 1
            self.stats.failing.add(user_id)
            if failures >= self._max_attempts:
                delay = self._cap  # parked until the user's next write or the cap
                log.warning("webhook: user %s failed %d times in a row; events kept, "
                            "next attempt in %.0f s or on the next write", user_id,
                            failures, delay)
            else:
                step = min(self._cap, self._base * 2 ** (failures - 1))
                delay = step / 2 + random.uniform(0.0, step / 2)
            if retry_after is not None:
                delay = max(delay, min(retry_after, self._cap))
            self._due[user_id] = time.monotonic() + delay

    # ------------------------------------------------------------------ the state file

    def _load(self) -> None:
        try:
            raw = json.loads(self._path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return
        except (OSError, ValueError):
            log.exception("webhook state %s unreadable; starting from now", self._path)
            return
        users = raw.get("users") if isinstance(raw, dict) else None
        for user_id, entry in (users or {}).items():
            with contextlib.suppress(TypeError, ValueError, KeyError):
                cursor = entry.get("cursor")
                self._state[str(user_id)] = _UserState(
                    int(entry["since"]), None if cursor is None else str(cursor),
                    {str(c) for c in entry.get("recent") or [] if _at(str(c)) >= 0})
        with self._cond:  # anything left undelivered when the last process stopped
            now = time.monotonic()
            for user_id in self._state:
                self._due.setdefault(user_id, now)

    def _save(self) -> None:
        data = {"version": 1, "users": {
            u: {"since": s.since, "cursor": s.cursor, "recent": sorted(s.recent, key=_key)}
            for u, s in self._state.items()}}
        self._path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self._path.with_name(f".{self._path.name}.{os.getpid()}.tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(data, f, ensure_ascii=False, separators=(",", ":"))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self._path)


def _event_json(ev: MemoryEvent) -> dict[str, Any]:
    return {"at": ev.at.isoformat(), "kind": ev.kind, "memoryId": ev.memory_id,
            "memoryKind": ev.memory_kind.value, "text": ev.text, "relatedId": ev.related_id,
            "detail": ev.detail, "cursor": ev.cursor}


def _key(cursor: str) -> tuple[int, str, str, str]:
    at, kind, memory, related = json.loads(cursor)
    return int(at), str(kind), str(memory), str(related)


def _at(cursor: str) -> int:
    return _key(cursor)[0]


def _retry_after(value: str | None) -> float | None:
    try:
        return None if value is None else max(0.0, float(value))
    except ValueError:
        return None  # an HTTP date: the backoff decides
