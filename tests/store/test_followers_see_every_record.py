"""Followers of the notification log see every record once, in order, while many writers append at once.

Appends send no NOTIFY in their transaction (domain/pg_append.py): a follower reads from its
position when woken after a commit or when its poll passes. These tests write from many threads
while a follower reads, on both stores, and with every wake lost.
"""

from __future__ import annotations

import threading
import time

import pytest

from domain.application import open_matches
from domain.store import storage_env
from projections.record_wakes import Doorbell
from tests.stores import postgres_schema_url

WRITERS = 8
MATCHES_PER_WRITER = 12


def _follow(recorder, stop: threading.Event, seen: list[int], listen: bool) -> None:
    """What a follower does: read the log from its position on every ring or poll until stopped."""
    bell = Doorbell(recorder, listen=listen)
    position = 0
    try:
        while True:
            stopping = stop.is_set()
            fresh = recorder.select_notifications(position, 100, inclusive_of_start=False)
            seen.extend(n.id for n in fresh)
            if fresh:
                position = fresh[-1].id
            elif stopping:
                return
            else:
                bell.wait(0.05 if not bell.listening else 5.0)
    finally:
        bell.close()


def _write_concurrently(app) -> list[str]:
    """Matches created and joined by several threads at once; their ids."""
    created: list[str] = []
    lock = threading.Lock()

    def writer() -> None:
        for _ in range(MATCHES_PER_WRITER):
            match = app.create_match("gambitz", {"players": 2})
            app.join(match.match_id, "ann")
            with lock:
                created.append(match.match_id)

    threads = [threading.Thread(target=writer) for _ in range(WRITERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return created


def _run(database_url: str, listen: bool, lose_wakes: bool = False):
    app = open_matches(storage_env(database_url))
    recorder = app.store.recorder
    if lose_wakes:
        recorder.wake_function = "pg_backend_pid"  # every wake lost: the follower finds the records on its poll
    seen: list[int] = []
    stop = threading.Event()
    follower = threading.Thread(target=_follow, args=(recorder, stop, seen, listen))
    follower.start()
    try:
        created = _write_concurrently(app)
        head = recorder.max_notification_id()
        deadline = time.monotonic() + 60  # only ends a hung run; no timing is asserted
        while (not seen or seen[-1] < head) and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        stop.set()
        follower.join(timeout=30)
    stored = [n.id for n in recorder.select_notifications(0, 100_000, inclusive_of_start=False)]
    app.close()
    return created, stored, seen


@pytest.mark.parametrize("listen", [True, False], ids=["woken", "polling"])
def test_a_follower_sees_every_record_of_many_writers_once_and_in_order(database_url, listen):
    created, stored, seen = _run(database_url, listen)
    assert len(created) == WRITERS * MATCHES_PER_WRITER
    assert len(stored) >= 2 * len(created)  # a creation and a join each
    assert seen == stored, "the follower saw every stored record once, in notification order"
    assert stored == list(range(stored[0], stored[0] + len(stored))), "the log has no gaps"


@pytest.fixture
def postgres_database_url():
    """A fresh PostgreSQL store (the one whose appends send wakes)."""
    url, drop = postgres_schema_url()
    yield url
    drop()


@pytest.mark.postgres
def test_a_follower_sees_every_record_when_every_wake_is_lost(postgres_database_url):
    _, stored, seen = _run(postgres_database_url, listen=True, lose_wakes=True)
    assert seen == stored
