"""Crash safety: SIGKILL a gunicorn worker in the middle of load; nothing acknowledged is lost.

A real `gambit serve --workers 2` (SQLite, then PostgreSQL) takes load from client threads that
create tournament matches of gambitz, join them and play legal commands, recording every 2xx
(the match, the versions the command wrote and their chain values). Mid-load one worker is
killed with SIGKILL (no graceful shutdown: requests in flight die with it); gunicorn respawns
it and the load goes on and is served again. Then the whole server is stopped and started
afresh on the same store, and through the restarted server:

- every command that got a 2xx is in the store, at the versions it was acknowledged with and
  with the same chain values;
- every match's versions run 1..N without a gap and its summary says N (nothing half-written
  is visible: a command's records are all there or none is), and its view is served;
- every match's export (as the organizer, so every commitment is opened) verifies with the
  independent verifier, including the signed trailer;
- the cross-match index catches up: `GET /matches` lists every acknowledged match and
  `/readyz` reports `projection_lag` 0.
"""

from __future__ import annotations

import http.client
import os
import random
import shutil
import signal
import subprocess
import threading
import time
import urllib.request
from dataclasses import dataclass, field

import pytest

from tests.e2e.conftest import call, start_server
from tests.stores import BACKENDS, database_url_for, partitioned_urls_for, wanted_partitions
from tests.support.api import going_on
from tests.support.independent_verifier import verify_export
from tests.support.processes import is_lead_process

pytestmark = pytest.mark.slow

CLIENTS = 4
# The load is counted in acknowledged commands, not seconds, so a slow machine only takes longer:
# the kill comes after this many, and the load ends after as many more past the respawn.
ACKS_BEFORE_KILL = 40
ACKS_AFTER_RESPAWN = 40
# Generous bounds on waiting for a condition (they end a hung run, they time nothing).
BOOT_TIMEOUT = 60.0
LOAD_TIMEOUT = 300.0
RESPAWN_TIMEOUT = 30.0
CATCH_UP_TIMEOUT = 30.0
# How often a poll of /proc or the server looks again, and how long a client rests after a dead
# connection: neither decides anything, a slow machine only looks fewer times.
POLL_PAUSE = 0.05
RETRY_PAUSE = 0.05
# What a client may meet while a worker dies: refused or reset connections, truncated bodies.
TRANSPORT_ERRORS = (OSError, http.client.HTTPException, ValueError)


def worker_pids(master: int) -> set[int]:
    """The gunicorn workers: the master's child processes but its leader process (read from /proc, no dependency)."""
    pids = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                stat = handle.read()
        except OSError:
            continue
        # The command name is in parentheses and may hold spaces: the ppid follows the last ')'.
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[1]) == master and fields[0] != "Z" and not is_lead_process(int(entry)):
            pids.add(int(entry))
    return pids


@dataclass
class Ledger:
    """Everything the clients were told succeeded; the test waits on `changed` for what it needs."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    matches: dict = field(default_factory=dict)       # match id → {"tokens", "created_version"}
    acks: list = field(default_factory=list)          # (match id, [(version, kind, chain)]) in order
    failures: int = 0
    server_errors: list = field(default_factory=list)
    changed: threading.Condition = field(init=False)

    def __post_init__(self) -> None:
        self.changed = threading.Condition(self.lock)

    def note_failure(self, what: str) -> None:
        """A request that got no usable answer (expected only around the kill)."""
        with self.lock:
            self.failures += 1

    def acknowledge(self, match_id: str, events: list) -> None:
        """A command the server acknowledged with these records."""
        with self.changed:
            self.acks.append((match_id, events))
            self.changed.notify_all()

    def note_server_error(self, what) -> None:
        """A 5xx answer (the test fails on any)."""
        with self.changed:
            self.server_errors.append(what)
            self.changed.notify_all()

    def wait_until(self, condition, timeout: float, what: str) -> None:
        """Wake on every acknowledgement until `condition()` holds, or there is a 5xx; fail if neither
        comes within the (generous) bound."""
        with self.changed:
            if not self.changed.wait_for(lambda: condition() or bool(self.server_errors), timeout):
                pytest.fail(f"{what} did not happen within {timeout:.0f} s")


def _client(base: str, tournament_id: str, organizer: str, ledger: Ledger, stop: threading.Event, seed: int) -> None:
    rng = random.Random(seed)
    current: tuple[str, dict] | None = None
    while not stop.is_set():
        try:
            if current is None:
                status, match = call(base, "POST", "/matches", {"ruleset": "gambitz", "config": {"players": 2},
                                                                  "tournament_id": tournament_id},
                                     token=organizer, timeout=10)
                if status != 201:
                    ledger.note_failure(f"create {status}")
                    if status >= 500:
                        ledger.note_server_error(("create", status, match))
                    continue
                tokens = {}
                for name in ("ann", "bob"):
                    status, joined = call(base, "POST", f"/matches/{match['match_id']}/seats", {"name": name}, timeout=10)
                    if status != 201:
                        raise ConnectionError(f"join answered {status}")
                    tokens[joined["seat"]] = joined["token"]
                with ledger.lock:
                    ledger.matches[match["match_id"]] = {"tokens": tokens}
                current = (match["match_id"], tokens)
                continue
            match_id, tokens = current
            status, summary = call(base, "GET", f"/matches/{match_id}", timeout=10)
            if status != 200:
                raise ConnectionError(f"summary answered {status}")
            if summary["status"] != "active":
                current = None
                continue
            seat = rng.choice(summary["to_act"])
            status, legal = call(base, "GET", f"/matches/{match_id}/legal-commands", token=tokens[seat], timeout=10)
            if status != 200:
                raise ConnectionError(f"legal-commands answered {status}")
            body = rng.choice(going_on(legal["commands"]))
            status, result = call(base, "POST", f"/matches/{match_id}/commands", body, tokens[seat],
                                  headers={"If-Match": f'"{legal["version"]}"'}, timeout=10)
            if status == 201:
                ledger.acknowledge(match_id, [(e["version"], e["kind"], e["chain"]) for e in result["events"]])
            elif status >= 500:
                ledger.note_server_error((body, status, result))
            # 409/412: another client of this match won a race (none here) or a retry raced: go on.
        except TRANSPORT_ERRORS as exc:
            ledger.note_failure(repr(exc))
            # A breath before retrying a dead connection (the respawn is what it waits for, and
            # nothing counts these): it ends at once when the load stops.
            stop.wait(RETRY_PAUSE)


def _poll(condition, timeout: float, what: str, detail=lambda: "") -> None:
    """Poll `condition()` (state outside this process: /proc, the server) until it holds; fail naming
    `what`, and `detail()`, if it has not within the (generous) bound."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"{what} did not happen within {timeout:.0f} s: {detail()}")
        time.sleep(POLL_PAUSE)


def _get(base: str, path: str, token: str | None = None) -> str:
    request = urllib.request.Request(base + path)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=60) as response:
        return response.read().decode()


def _log_errors(process) -> str:
    """The server log's error lines (a worker that failed to boot, the master shutting down …)."""
    lines = process.log_path.read_text(errors="replace").splitlines()
    return "\n".join(line for line in lines if "[ERROR]" in line or line.startswith(("psycopg", "sqlite3", "DETAIL")))[-3000:]


def _stop(process) -> None:
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


@pytest.fixture(params=BACKENDS)
def store(request, tmp_path, monkeypatch):
    """The store of the server; on PostgreSQL with GAMBIT_TEST_PARTITIONS=N, its matches spread over N partitions
    (the server is told them by GAMBIT_PARTITION_URLS, as a deployment is)."""
    url, drop = database_url_for(request.param, tmp_path)
    drop_partitions = None
    if request.param == "postgres" and wanted_partitions() > 1:
        _, urls, drop_partitions = partitioned_urls_for("postgres", tmp_path, wanted_partitions(), shared=url)
        monkeypatch.setenv("GAMBIT_PARTITION_URLS", ",".join(urls))
    yield request.param, url
    if drop_partitions is not None:
        drop_partitions()
    drop()


def test_a_worker_killed_mid_load_loses_no_acknowledged_command(store, tmp_path, monkeypatch):
    backend, url = store
    # This is about crashes, not throttling: four clients on one address would otherwise meet
    # the default per-address limit (its own tests cover 429 and Retry-After).
    monkeypatch.setenv("GAMBIT_RATE_LIMIT_PER_ADDRESS", "0")
    monkeypatch.setenv("GAMBIT_RATE_LIMIT_PER_TOKEN", "0")
    monkeypatch.setenv("GAMBIT_MATCH_CREATION_LIMIT", "0")
    database_url = None if backend == "sqlite" else url
    base, process = start_server(tmp_path, database_url, workers=2)
    ledger = Ledger()
    stop = threading.Event()
    try:
        status, tournament = call(base, "POST", "/tournaments", {"name": "Crash Cup"})
        assert status == 201
        tournament_id, organizer = tournament["tournament_id"], tournament["organizer_key"]
        # Both workers forked (or the master gave up on one that failed to boot).
        _poll(lambda: process.poll() is not None or len(worker_pids(process.pid)) == 2, BOOT_TIMEOUT,
              "two workers running")
        before = worker_pids(process.pid)
        assert process.poll() is None and len(before) == 2, \
            f"the server did not start 2 workers ({before}):\n{_log_errors(process)}"
        clients = [threading.Thread(target=_client, args=(base, tournament_id, organizer, ledger, stop, n), daemon=True)
                   for n in range(CLIENTS)]
        for thread in clients:
            thread.start()
        ledger.wait_until(lambda: len(ledger.acks) >= ACKS_BEFORE_KILL, LOAD_TIMEOUT,
                          f"{ACKS_BEFORE_KILL} acknowledged commands before the kill")
        assert not ledger.server_errors, f"5xx under load: {ledger.server_errors[:3]}"
        current = worker_pids(process.pid)
        assert current == before, f"workers changed before the kill ({before} → {current}):\n{_log_errors(process)}"
        victim = random.Random(backend).choice(sorted(current))
        os.kill(victim, signal.SIGKILL)

        def replaced() -> bool:
            now = worker_pids(process.pid)
            return victim not in now and len(now) == 2

        _poll(replaced, RESPAWN_TIMEOUT, f"gunicorn replacing worker {victim}",
              lambda: f"{worker_pids(process.pid)}\n{_log_errors(process)}")
        # Acknowledgements are counted from here, in the order the clients got them (no clock).
        with ledger.lock:
            acks_at_respawn = len(ledger.acks)
        ledger.wait_until(lambda: len(ledger.acks) - acks_at_respawn >= ACKS_AFTER_RESPAWN, LOAD_TIMEOUT,
                          f"{ACKS_AFTER_RESPAWN} acknowledged commands after the respawn")
        stop.set()
        for thread in clients:
            thread.join(timeout=30)
        assert not ledger.server_errors, f"5xx under load: {ledger.server_errors[:3]}"
        after_respawn = ledger.acks[acks_at_respawn:]
        assert after_respawn, "the service took no command after the worker was replaced"
    finally:
        stop.set()
        _stop(process)
    shutil.copy(tmp_path / "serve.log", tmp_path / "serve-before-restart.log")

    # A fresh server on the same store: everything acknowledged is there, and consistent.
    base, process = start_server(tmp_path, database_url, workers=2)
    try:
        stored_records = 0
        for match_id in ledger.matches:
            status, summary = call(base, "GET", f"/matches/{match_id}")
            assert status == 200, f"acknowledged match {match_id} is gone: {summary}"
            records, after = [], 0
            while True:
                status, page = call(base, "GET", f"/matches/{match_id}/events?after={after}&limit=500")
                assert status == 200
                records += page["events"]
                if page["next_after"] is None:
                    break
                after = page["next_after"]
            versions = [r["version"] for r in records]
            assert versions == list(range(1, len(versions) + 1)), f"{match_id}: versions are not contiguous"
            assert summary["version"] == len(versions), f"{match_id}: summary at {summary['version']}, log at {len(versions)}"
            assert call(base, "GET", f"/matches/{match_id}/view")[0] == 200
            stored = {r["version"]: (r["version"], r["kind"], r["chain"]) for r in records}
            for acked_match, events in ledger.acks:
                if acked_match == match_id:
                    for event in events:
                        assert stored.get(event[0]) == event, f"{match_id}: acknowledged record {event} is not stored"
            report = verify_export(_get(base, f"/matches/{match_id}/export", token=organizer))
            assert report["records"] == len(versions) and report.get("trailer")
            stored_records += len(versions)
        acknowledged = {a[0] for a in ledger.acks} | set(ledger.matches)
        listed, cursor = set(), None
        while True:
            query = f"/matches?tournament_id={tournament_id}&limit=200" + (f"&after={cursor}" if cursor else "")
            status, page = call(base, "GET", query)
            assert status == 200
            listed |= {m["match_id"] for m in page["matches"]}
            cursor = page["next"]
            if cursor is None:
                break
        assert acknowledged <= listed, f"the index misses {sorted(acknowledged - listed)[:5]}"
        readiness: list = []

        def caught_up() -> bool:
            readiness[:] = [call(base, "GET", "/readyz")]
            [(status, ready)] = readiness
            if status == 200 and ready["projection_lag"] == 0:
                return True
            call(base, "GET", "/matches?limit=1")
            return False

        _poll(caught_up, CATCH_UP_TIMEOUT, "the index catching up", lambda: readiness)
        print(f"\n{backend}: {len(ledger.acks)} acknowledged commands ({len(after_respawn)} after the respawn), "
              f"{ledger.failures} failed requests around the kill, {len(ledger.matches)} matches, "
              f"{stored_records} records verified")
    finally:
        _stop(process)
