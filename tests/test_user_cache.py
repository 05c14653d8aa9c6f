"""The per-user cache recall reads speakers and a memory's make-up through: a fresh entry is
answered without a read; an expired one is read again, in the background when a stale
answer may serve meanwhile, and only one such read runs per user at a time."""

from __future__ import annotations

import threading
import time

from graphmem.recall_access import UserCache


class Source:
    def __init__(self) -> None:
        self.value = "a"
        self.reads = 0
        self.gate = threading.Event()
        self.gate.set()
        self.fail = False

    def __call__(self, user: str) -> str:
        self.gate.wait(5)
        self.reads += 1
        if self.fail:
            raise RuntimeError("store closed")
        return f"{user}:{self.value}"


def _until(check, timeout: float = 5.0) -> bool:  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.01)
    return False


def test_a_fresh_entry_is_not_read_again() -> None:
    src = Source()
    cache = UserCache(src, ttl_s=60)
    assert cache.get("u") == cache.get("u") == "u:a"
    assert src.reads == 1


def test_an_expired_entry_is_read_again_before_answering_by_default() -> None:
    src = Source()
    cache = UserCache(src, ttl_s=0.0)
    cache.get("u")
    src.value = "b"
    assert cache.get("u") == "u:b"
    assert src.reads == 2


def test_with_stale_ok_the_old_answer_serves_while_one_read_runs() -> None:
    src = Source()
    cache = UserCache(src, ttl_s=0.05, stale_ok=True)
    assert cache.get("u") == "u:a"  # the first read waits for its answer
    src.value, src.gate = "b", threading.Event()  # the next read blocks until released
    time.sleep(0.06)
    started = time.monotonic()
    answers = [cache.get("u") for _ in range(5)]
    assert answers == ["u:a"] * 5  # stale, at once, not waiting on the blocked read
    assert time.monotonic() - started < 1.0
    src.gate.set()
    assert _until(lambda: cache.get("u") == "u:b")
    assert src.reads == 2  # one background read, not one per call


def test_a_failed_background_read_drops_the_entry() -> None:
    src = Source()
    cache = UserCache(src, ttl_s=0.05, stale_ok=True)
    cache.get("u")
    src.fail = True
    time.sleep(0.06)
    assert cache.get("u") == "u:a"  # stale while the read fails in the background
    assert _until(lambda: src.reads == 2)
    src.fail = False
    assert _until(lambda: cache.get("u") == "u:a" and src.reads == 3)
