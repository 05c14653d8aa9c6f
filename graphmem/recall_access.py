"""Per-user state recall keeps between calls: access counts waiting to be written in a
batch (no write per read) and the names of who speaks in each memory."""

from __future__ import annotations

import logging
import threading
import time
from collections import defaultdict
from collections.abc import Callable

from graphmem.errors import GraphMemError
from graphmem.store.base import Row, Store

log = logging.getLogger(__name__)


class AccessTracker:
    """Access counts kept in memory and flushed in batches (no write per read).

    A flush that falls due during a recall runs on a background thread, so the reader does
    not wait for the write; ``flush()`` itself is synchronous and first waits for a
    background flush still running (``close`` relies on that).
    """

    def __init__(self, store: Store, every_s: float = 60.0, every_n: int = 100) -> None:
        self._store = store
        self._every_s = every_s
        self._every_n = every_n
        self._pending: dict[tuple[str, str, str], list[int]] = {}  # (user, label, id)
        # batches taken out of ``_pending`` whose write has not finished: still counted by
        # ``pending`` meanwhile, or a read in between would see them in neither place
        self._flushing: list[dict[tuple[str, str, str], list[int]]] = []
        self._count = 0
        self._last = time.monotonic()
        self._lock = threading.Lock()
        self._worker: threading.Thread | None = None

    def touch(self, user_id: str, label: str, ids: list[str], at_ms: int) -> None:
        with self._lock:
            for i in ids:
                entry = self._pending.setdefault((user_id, label, i), [0, at_ms])
                entry[0] += 1
                entry[1] = max(entry[1], at_ms)
            self._count += len(ids)
            due = (self._count >= self._every_n
                   or time.monotonic() - self._last >= self._every_s)
            if due and (self._worker is None or not self._worker.is_alive()):
                self._worker = threading.Thread(target=self._flush_quietly, daemon=True,
                                                name="graphmem-access-flush")
                self._worker.start()

    def pending(self, user_id: str, label: str, ids: list[str]) -> dict[str, tuple[int, int]]:
        """Counts not written yet for these memories: id -> (accesses, last access ms)."""
        out: dict[str, tuple[int, int]] = {}
        with self._lock:
            for batch in [*self._flushing, self._pending]:
                for i in ids:
                    e = batch.get((user_id, label, i))
                    if e is not None:
                        n, at = out.get(i, (0, 0))
                        out[i] = (n + e[0], max(at, e[1]))
        return out

    def _flush_quietly(self) -> None:
        try:
            self._write()
        except GraphMemError as e:  # counts are a ranking hint: losing a batch is fine
            log.warning("access counts not written: %s", e)

    def flush(self) -> None:
        """Write the pending counts now (after any background flush has finished)."""
        worker = self._worker
        if worker is not None and worker is not threading.current_thread():
            worker.join()
        self._write()

    def _write(self) -> None:
        with self._lock:
            pending, self._pending = self._pending, {}
            self._flushing.append(pending)
            self._count = 0
            self._last = time.monotonic()
        try:
            batches: dict[tuple[str, str], list[Row]] = defaultdict(list)
            for (user_id, label, i), (delta, at) in pending.items():
                batches[(user_id, label)].append({"id": i, "delta": delta, "at": at})
            for (user_id, label), rows in batches.items():
                self._store.bump_access(label, user_id, rows)
        finally:
            with self._lock:
                self._flushing = [b for b in self._flushing if b is not pending]


class UserCache[T]:
    """Something read per user (their speakers, what their memory is made of), read once
    per ``ttl_s`` instead of once per recall.

    The service drops a user's entry when it writes their episodes; the time limit bounds
    what another replica's writes can leave stale (a missed name only costs a ranking bonus).
    With ``stale_ok``, an expired entry is still answered while one background thread reads
    it again: for a read that costs as much as a count of the user's nodes (~120 ms at 100k
    relations) and changes slowly, a user recalling less often than every ``ttl_s`` would
    otherwise pay it on almost every recall. Only a user's first read waits for it.
    """

    def __init__(self, load: Callable[[str], T], ttl_s: float = 30.0,
                 max_users: int = 4096, stale_ok: bool = False) -> None:
        self._load = load
        self._ttl = ttl_s
        self._max = max_users
        self._stale_ok = stale_ok
        self._lock = threading.Lock()
        self._entries: dict[str, tuple[float, T]] = {}
        self._refreshing: set[str] = set()

    def get(self, user_id: str) -> T:
        now = time.monotonic()
        with self._lock:
            hit = self._entries.get(user_id)
            if hit is not None and now - hit[0] < self._ttl:
                return hit[1]
            if hit is not None and self._stale_ok:
                if user_id not in self._refreshing:
                    self._refreshing.add(user_id)
                    threading.Thread(target=self._refresh, args=(user_id,), daemon=True,
                                     name="graphmem-user-cache").start()
                return hit[1]
        value = self._load(user_id)
        self._put(user_id, now, value)
        return value

    def _refresh(self, user_id: str) -> None:
        try:
            value = self._load(user_id)
        except Exception:  # noqa: BLE001 - a closed store, say: the next read tries again
            log.debug("reading a user's cached entry again failed", exc_info=True)
            self.drop(user_id)
        else:
            self._put(user_id, time.monotonic(), value)
        finally:
            with self._lock:
                self._refreshing.discard(user_id)

    def _put(self, user_id: str, at: float, value: T) -> None:
        with self._lock:
            if len(self._entries) >= self._max:
                self._entries.clear()
            self._entries[user_id] = (at, value)

    def drop(self, user_id: str) -> None:
        with self._lock:
            self._entries.pop(user_id, None)


#: each user's speakers (names), for the question's names
SpeakerCache = UserCache
