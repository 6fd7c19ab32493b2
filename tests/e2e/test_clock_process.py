"""The clock process from the shell: `gambit clock` and `gambit project` record expiries nobody reads, on both stores.

Matches are created in-process with a time source set in the past (so their deadlines pass on the
real clock the processes read); every check reads the store without touching the match, since a
read of the match itself would record the expiry.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta

import pytest

from service.app import create_app
from service.settings import Settings
from tests.stores import BACKENDS, database_url_for
from tests.support.clocks import fake_time_source, per_decision, timed_match

GAMBITZ = {"players": 2}
PER_DECISION_S = 60


@pytest.fixture(params=BACKENDS)
def store(request, tmp_path):
    """A fresh store of each kind: (environment for the `gambit` command, settings for in-process apps)."""
    url, drop = database_url_for(request.param, tmp_path)
    env = {**os.environ, "GAMBIT_DATA_DIR": str(tmp_path / "data"), "GAMBIT_DATABASE_URL": url}
    yield env, Settings.from_env(env)
    drop()


def _timed_match_started(settings: Settings, started: datetime) -> str:
    """A per-decision gambitz match whose first decision began at `started`; returns its id."""
    with fake_time_source(started):
        app = create_app(settings)
        try:
            match_id, _ = timed_match(app.test_client(), "gambitz", per_decision(PER_DECISION_S), config=GAMBITZ)
        finally:
            app.extensions["gambit"].close()
    return match_id


def _kinds(settings: Settings, match_id: str) -> list[str]:
    """The kinds of the stored records, read without touching the match."""
    app = create_app(settings)
    try:
        return [record.kind for record in app.extensions["gambit"].matches.records(match_id)]
    finally:
        app.extensions["gambit"].close()


def test_gambit_clock_once_records_the_expiries_that_are_due(store):
    env, settings = store
    due = _timed_match_started(settings, datetime.now(UTC) - timedelta(hours=1))
    running = _timed_match_started(settings, datetime.now(UTC))
    done = subprocess.run(
        [sys.executable, "-m", "service.cli", "clock", "--once"],
        check=False,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "in 1 matches" in done.stdout
    assert _kinds(settings, due)[-3:] == ["ClockExpired", "SeatTimedOut", "MatchFinished"]
    assert "ClockExpired" not in _kinds(settings, running)


@pytest.mark.parametrize("command", ["clock", "project"])
def test_a_running_clock_process_wakes_at_the_deadline(store, tmp_path, command):
    env, settings = store
    with open(tmp_path / f"{command}.log", "w") as log:
        _watch_until_expired(log, env, settings, tmp_path, command)


def _watch_until_expired(log, env: dict, settings: Settings, tmp_path, command: str) -> None:
    """Start `gambit <command>`, create a match due in three seconds, wait for the process to expire it."""
    process = subprocess.Popen(
        [sys.executable, "-m", "service.cli", command], env=env, stdout=log, stderr=subprocess.STDOUT, text=True
    )
    try:
        # Its deadline is three seconds from now on the real clock.
        match_id = _timed_match_started(settings, datetime.now(UTC) - timedelta(seconds=PER_DECISION_S - 3))
        deadline = time.monotonic() + 60
        while "ClockExpired" not in _kinds(settings, match_id):
            assert time.monotonic() < deadline, (tmp_path / f"{command}.log").read_text()
            assert process.poll() is None, (tmp_path / f"{command}.log").read_text()
            time.sleep(0.5)
        assert _kinds(settings, match_id)[-3:] == ["ClockExpired", "SeatTimedOut", "MatchFinished"]
    finally:
        process.terminate()
        # It stops at once on SIGTERM, even while it sleeps towards a far deadline.
        process.wait(timeout=10)
