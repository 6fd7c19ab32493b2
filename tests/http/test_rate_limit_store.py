"""The embedded rate-limit store counts as the library's does, without a timer thread per request."""

from __future__ import annotations

import threading
import time

from limits.storage import MemoryStorage

from service import ratelimit
from service.ratelimit import SweptMemoryStorage, limit_storage


def test_the_memory_address_gets_the_swept_store_and_others_the_librarys():
    assert type(limit_storage("memory://")) is SweptMemoryStorage
    assert not isinstance(limit_storage("redis://127.0.0.1:6379"), SweptMemoryStorage)


def test_the_library_still_has_the_private_hooks_the_swept_store_replaces():
    # If an upgrade renames them, the override would silently stop applying (or the sweep fail).
    assert callable(getattr(MemoryStorage, "_MemoryStorage__schedule_expiry", None))
    assert callable(getattr(MemoryStorage, "_MemoryStorage__expire_events", None))


def test_counting_starts_no_timer_thread_per_hit():
    store = SweptMemoryStorage("memory://")
    time.sleep(0.05)  # the constructor's one timer (the library's) has run out
    before = threading.active_count()
    for n in range(200):
        store.incr(f"key-{n % 7}", 60)
    assert threading.active_count() == before
    assert store.get("key-0") == 29


def test_an_expired_count_reads_as_zero_and_is_swept(monkeypatch):
    monkeypatch.setattr(ratelimit, "SWEEP_SECONDS", 0.0)
    store = SweptMemoryStorage("memory://")
    store.incr("short", 0.01)
    store.incr("long", 60)
    time.sleep(0.02)
    assert store.get("short") == 0
    store.incr("short-again", 0.01)  # a hit after SWEEP_SECONDS sweeps the expired keys
    time.sleep(0.02)
    store.incr("long", 60)
    assert "short-again" not in store.storage
    assert store.get("long") == 2
