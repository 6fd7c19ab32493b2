"""`gambit serve` alone keeps the clocks: a timed match nobody touches times out at its deadline, on both stores.

The server's leader process (`gambit lead`, started by its master) leads (projections/leadership.py)
and records the expiry within a second of the deadline; a follower connected before it hears it
live. When the leader is killed, a worker takes over, and the master starts a new leader process,
which takes the lead back. Nothing here reads the match itself after the last join (a read
would record the expiry): the records are read from the store directly.
"""

from __future__ import annotations

import json
import os
import re
import signal
import threading
import time
import urllib.request
from datetime import datetime

import pytest

from service.app import create_app
from service.settings import Settings
from tests.e2e.conftest import call, start_server
from tests.stores import BACKENDS, database_url_for
from tests.support.processes import is_lead_process

PER_DECISION_S = 2
# Generous outer bounds for a loaded machine; the expiry's own timestamp is what must be on time.
WAIT_SECONDS = 60


@pytest.fixture(params=BACKENDS)
def two_workers(request, tmp_path):
    """`gambit serve --workers 2` on a fresh store of each kind: (base URL, process, settings to read the store)."""
    yield from _two_workers(request.param, tmp_path, {})


@pytest.fixture(params=BACKENDS)
def two_workers_alone(request, tmp_path):
    """As `two_workers`, with no leader process (`GAMBIT_LEAD_PROCESS=off`): one of the workers leads."""
    yield from _two_workers(request.param, tmp_path, {"GAMBIT_LEAD_PROCESS": "off"})


def _two_workers(backend: str, tmp_path, extra_env: dict):
    url, drop = database_url_for(backend, tmp_path)
    if backend == "sqlite":
        url = f"sqlite:///{tmp_path / 'data' / 'gambit.sqlite3'}"
    base, process = start_server(tmp_path, None if backend == "sqlite" else url, workers=2, extra_env=extra_env)
    yield base, process, Settings(database_url=url, data_dir=str(tmp_path / "data"))
    process.terminate()
    try:
        process.wait(timeout=30)
    finally:
        drop()


def _timed_match(base: str) -> str:
    """A per-decision gambitz match for two with both seats joined (its first deadline is running)."""
    config = {"players": 2, "time_control": {"kind": "per_decision", "per_decision_s": PER_DECISION_S}}
    status, match = call(base, "POST", "/matches", {"ruleset": "gambitz", "config": config})
    assert status == 201, match
    for name in ("ann", "bob"):
        status, joined = call(base, "POST", f"/matches/{match['match_id']}/seats", {"name": name})
        assert status == 201, joined
    return match["match_id"]


class _Follower:
    """An SSE follower of a match, reading record kinds in a thread."""

    def __init__(self, base: str, match_id: str) -> None:
        request = urllib.request.Request(f"{base}/matches/{match_id}/events", headers={"Accept": "text/event-stream"})
        self.response = urllib.request.urlopen(request, timeout=WAIT_SECONDS)
        self.kinds: list[str] = []
        self.heard_expiry = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for raw in self.response:
                line = raw.decode()
                if line.startswith("data: "):
                    kind = json.loads(line[len("data: ") :]).get("kind")
                    if kind:
                        self.kinds.append(kind)
                    if kind == "ClockExpired":
                        self.heard_expiry.set()
        except (OSError, ValueError, AttributeError):
            # close() from the test's thread ends the read: http.client then finds its socket
            # gone (AttributeError on the dropped file, ValueError on a closed one), not an OSError.
            return

    def close(self) -> None:
        self.response.close()


def _records(settings: Settings, match_id: str) -> list:
    """The stored records, read without touching the match (a read of the match would record the expiry)."""
    app = create_app(settings)
    try:
        return app.extensions["gambit"].matches.records(match_id)
    finally:
        app.extensions["gambit"].close()


def _wait_for_expiry(settings: Settings, match_id: str, process, log_path) -> list:
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        records = _records(settings, match_id)
        if any(record.kind == "ClockExpired" for record in records):
            return records
        assert process.poll() is None, log_path.read_text()
        assert time.monotonic() < deadline, "nobody recorded the expiry:\n" + log_path.read_text()[-4000:]
        time.sleep(0.25)


def _assert_expired_on_time(records: list) -> None:
    expiries = [record for record in records if record.kind == "ClockExpired"]
    assert len(expiries) == 1, [record.kind for record in records]
    late_by = (expiries[0].timestamp - datetime.fromisoformat(expiries[0].public["deadline"])).total_seconds()
    # Never before the deadline; how soon after it is a time target, measured by bench/clock_lateness.py.
    assert late_by > 0, f"the expiry was written {-late_by:.3f} s before the deadline"
    assert [record.kind for record in records][-3:] == ["ClockExpired", "SeatTimedOut", "MatchFinished"]


def _leader_pids(log_text: str) -> list[int]:
    return [int(pid) for pid in re.findall(r"leader: this process \(pid (\d+)\) now keeps the clocks", log_text)]



def _leaders_once(process, count: int, deadline: float) -> list[int]:
    """The pids that took the lead, in order, once the server's log names at least `count` (failing at `deadline`)."""
    while len(_leader_pids(process.log_path.read_text())) < count:
        assert time.monotonic() < deadline, process.log_path.read_text()
        time.sleep(0.2)
    return _leader_pids(process.log_path.read_text())


def _leaders(base: str) -> float:
    text = urllib.request.urlopen(f"{base}/metrics", timeout=WAIT_SECONDS).read().decode()
    return sum(float(line.split()[-1]) for line in text.splitlines() if line.startswith("gambit_leader "))


def test_a_timed_match_nobody_touches_times_out_under_gambit_serve_alone(two_workers):
    base, process, settings = two_workers
    deadline = time.monotonic() + WAIT_SECONDS
    while _leaders(base) != 1.0:  # one worker of the two leads
        assert time.monotonic() < deadline, process.log_path.read_text()
        time.sleep(0.2)
    match_id = _timed_match(base)
    follower = _Follower(base, match_id)
    try:
        _assert_expired_on_time(_wait_for_expiry(settings, match_id, process, process.log_path))
        assert follower.heard_expiry.wait(WAIT_SECONDS), follower.kinds
    finally:
        follower.close()
    leaders = _leader_pids(process.log_path.read_text())
    assert len(leaders) == 1, "more than one process took the lead"
    assert is_lead_process(leaders[0]), "a worker led beside the server's leader process"


def test_a_worker_leads_when_the_leader_process_is_killed_until_a_new_leader_process_takes_the_lead_back(
    two_workers,
):
    base, process, settings = two_workers
    deadline = time.monotonic() + WAIT_SECONDS
    first = _leaders_once(process, 1, deadline)[0]
    assert is_lead_process(first)
    os.kill(first, signal.SIGKILL)  # no clean-up: its locks free with the process
    _, worker, restarted = _leaders_once(process, 3, deadline)[:3]
    assert not is_lead_process(worker), "nobody stood in while the leader process was down"
    assert restarted != first and is_lead_process(restarted), "the master did not start a new leader process"
    assert "no longer leads" in process.log_path.read_text(), "the standing-in worker did not step down"
    match_id = _timed_match(base)
    _assert_expired_on_time(_wait_for_expiry(settings, match_id, process, process.log_path))
    assert _leaders(base) == 1.0


def test_without_a_leader_process_another_worker_keeps_the_clocks_when_the_leading_one_is_killed(two_workers_alone):
    base, process, settings = two_workers_alone
    deadline = time.monotonic() + WAIT_SECONDS
    first = _leaders_once(process, 1, deadline)[0]
    os.kill(first, signal.SIGKILL)  # no clean-up: the lock frees with the process
    assert _leaders_once(process, 2, deadline)[1] != first
    assert "gambit lead:" not in process.log_path.read_text(), "a leader process ran though it was turned off"
    match_id = _timed_match(base)
    _assert_expired_on_time(_wait_for_expiry(settings, match_id, process, process.log_path))
