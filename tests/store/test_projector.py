"""The cross-match read models follow the store (LISTEN/NOTIFY on PostgreSQL, polling on SQLite),
resume where they stopped, and rebuild to the same rows."""

from __future__ import annotations

import threading
import time

import pytest

from projections.runner import follow, rebuild
from service.app import build_gambit
from service.settings import Settings


@pytest.fixture
def gambit(database_url, tmp_path):
    """The process objects on a fresh store."""
    objects = build_gambit(Settings(database_url=database_url, data_dir=str(tmp_path)))
    yield objects
    objects.close()


def _wait_until(predicate, seconds: float = 15.0) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.05)


def _rows(gambit) -> list[tuple]:
    return gambit.index.store.query("SELECT match_id, status, seats_joined, version FROM gambit_match_index ORDER BY seq")


def test_the_projector_follows_new_records_and_stops_cleanly(gambit):
    stop = threading.Event()
    runner = threading.Thread(target=follow, args=(gambit.index, stop), kwargs={"poll_seconds": 0.05})
    runner.start()
    try:
        match = gambit.matches.create_match("gambitz", {"players": 2})
        gambit.matches.join(match.match_id, "ann")
        head = gambit.matches.store.recorder.max_notification_id()
        _wait_until(lambda: gambit.index.position() >= head)
        assert _rows(gambit) == [(match.match_id, "open", 1, 2)]
    finally:
        stop.set()
        runner.join(timeout=15)
    assert not runner.is_alive()


def test_the_projector_resumes_from_its_position_after_a_restart(gambit):
    first = gambit.matches.create_match("gambitz", {"players": 2})
    gambit.index.catch_up()
    position = gambit.index.position()
    second = gambit.matches.create_match("gambitz", {"players": 2})
    gambit.matches.join(second.match_id, "bob")
    assert gambit.index.catch_up() == 2, "only the records after the tracked position are folded"
    assert gambit.index.position() > position
    assert [r[0] for r in _rows(gambit)] == [first.match_id, second.match_id]


def test_a_rebuild_from_scratch_gives_the_same_rows(gambit):
    for _ in range(3):
        match = gambit.matches.create_match("gambitz", {"players": 2})
        gambit.matches.join(match.match_id, "ann")
        gambit.matches.join(match.match_id, "bob")
    gambit.index.catch_up()
    before = _rows(gambit)
    assert rebuild(gambit.index, "cross-match-index") > 0
    assert _rows(gambit) == before
    assert {r[1] for r in before} == {"active"}
