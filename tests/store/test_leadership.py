"""One leader among the processes serving a store (it keeps the clocks and scrubs), on SQLite and PostgreSQL."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections import Counter

import pytest

from projections.leadership import LEAD_PROCESS, Leadership, lead_while
from tests.stores import postgres_schema_url

# A process that takes the leadership, says so, and holds it until it is killed.
_HOLDER = """
import sys, time
from projections.leadership import Leadership
leadership = Leadership(sys.argv[1], *sys.argv[2:])
assert leadership.try_acquire()
print("leading", flush=True)
time.sleep(600)
"""


def test_only_one_contender_leads_and_another_takes_over_when_it_gives_the_leadership_back(database_url):
    first, second = Leadership(database_url), Leadership(database_url)
    try:
        assert first.try_acquire()
        assert not second.try_acquire(), "two leaders at once"
        assert first.holds()
        first.release()
        assert second.try_acquire()
        assert not first.try_acquire()
    finally:
        first.release()
        second.release()


def test_the_leadership_frees_when_the_leading_process_is_killed(database_url):
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, database_url], stdout=subprocess.PIPE, text=True)
    contender = Leadership(database_url)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "leading"
        assert not contender.try_acquire(), "a second leader beside a live one"
        holder.kill()  # SIGKILL: no clean-up runs in the holder
        holder.wait(timeout=30)
        deadline = time.monotonic() + 30  # a generous bound: the lock frees when the session ends
        while not contender.try_acquire():
            assert time.monotonic() < deadline, "the leadership stayed with a dead process"
            time.sleep(0.1)
    finally:
        contender.release()
        if holder.poll() is None:
            holder.kill()
            holder.wait(timeout=30)


@pytest.mark.postgres
def test_stores_in_other_postgresql_schemas_have_leaders_of_their_own():
    first_url, drop_first = postgres_schema_url()
    second_url, drop_second = postgres_schema_url()
    first, second = Leadership(first_url), Leadership(second_url)
    try:
        assert first.try_acquire()
        assert second.try_acquire(), "one deployment's leader blocked another's"
    finally:
        first.release()
        second.release()
        drop_first()
        drop_second()


class _Duty:
    """A duty that counts how many run at once, and which contender ran it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.running = 0
        self.most_at_once = 0
        self.ran_by: list[str] = []

    def for_contender(self, name: str):
        def duty(ended: threading.Event) -> None:
            with self.lock:
                self.running += 1
                self.most_at_once = max(self.most_at_once, self.running)
                self.ran_by.append(name)
            ended.wait()
            with self.lock:
                self.running -= 1

        return duty


class _CountedContender(Leadership):
    """A contender that counts the attempts it lost, so a test can wait for the others to have tried."""

    def __init__(self, database_url: str, name: str, refused: Counter, lock: threading.Lock) -> None:
        super().__init__(database_url)
        self.name, self.refused, self.lock = name, refused, lock

    def try_acquire(self) -> bool:
        """Try to lead; a refusal is counted."""
        won = super().try_acquire()
        if not won:
            with self.lock:
                self.refused[self.name] += 1
        return won


def _wait_for(condition, what: str) -> None:
    deadline = time.monotonic() + 30
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def test_contenders_run_the_duties_in_one_leader_and_another_takes_over_when_it_stops(database_url):
    duty = _Duty()
    refused: Counter = Counter()
    refused_lock = threading.Lock()
    stops = {name: threading.Event() for name in ("a", "b", "c")}
    threads = {
        name: threading.Thread(
            target=lead_while,
            args=(_CountedContender(database_url, name, refused, refused_lock), stop, [duty.for_contender(name)]),
            kwargs={"retry_seconds": 0.05, "check_seconds": 0.05},
            daemon=True,
        )
        for name, stop in stops.items()
    }
    for thread in threads.values():
        thread.start()
    try:
        _wait_for(lambda: len(duty.ran_by) == 1, "no contender took the lead")
        leader = duty.ran_by[0]
        others = [name for name in stops if name != leader]
        with refused_lock:
            before = {name: refused[name] for name in others}
        # The others keep trying while it leads: each is refused a few times more, and none leads.
        _wait_for(lambda: all(refused[name] >= before[name] + 3 for name in others), "the others stopped trying")
        assert len(duty.ran_by) == 1 and duty.running == 1
        stops[leader].set()
        threads[leader].join(timeout=30)
        _wait_for(lambda: len(duty.ran_by) == 2 and duty.running == 1, "nobody took over from a leader that stopped")
        assert duty.ran_by[1] != leader
        assert duty.most_at_once == 1, "two leaders ran their duties at once"
    finally:
        for stop in stops.values():
            stop.set()
        for thread in threads.values():
            thread.join(timeout=30)


def test_the_lead_process_lock_is_apart_from_the_leadership_and_frees_when_its_process_is_killed(database_url):
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, database_url, LEAD_PROCESS], stdout=subprocess.PIPE, text=True
    )
    worker = Leadership(database_url, role=LEAD_PROCESS)
    leadership = Leadership(database_url)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "leading"
        assert worker.held_elsewhere(), "a live leader process went unseen"
        assert leadership.try_acquire(), "the leader process's lock took the leadership itself"
        holder.kill()
        holder.wait(timeout=30)
        _wait_for(lambda: not worker.held_elsewhere(), "the leader process's lock stayed with a dead process")
        assert worker.try_acquire(), "looking at the lock kept it"
    finally:
        worker.release()
        leadership.release()
        if holder.poll() is None:
            holder.kill()
            holder.wait(timeout=30)


def test_a_leader_that_is_told_to_defer_steps_down_and_contends_again_only_when_it_no_longer_is(database_url):
    duty = _Duty()
    deferring = threading.Event()
    stop = threading.Event()
    contender = threading.Thread(
        target=lead_while,
        args=(Leadership(database_url), stop, [duty.for_contender("worker")]),
        kwargs={"retry_seconds": 0.05, "check_seconds": 0.05, "defer": deferring.is_set},
        daemon=True,
    )
    contender.start()
    other = Leadership(database_url)
    try:
        _wait_for(lambda: duty.running == 1, "the contender did not lead")
        deferring.set()  # a leader process appears
        _wait_for(lambda: duty.running == 0, "the leader did not step down for the leader process")
        _wait_for(other.try_acquire, "the leadership was not given back")
        other.release()
        time.sleep(0.3)  # several retries: a deferring contender takes nothing
        assert duty.running == 0 and len(duty.ran_by) == 1
        deferring.clear()  # the leader process died
        _wait_for(lambda: duty.running == 1, "the contender did not take over once nobody was deferred to")
        assert duty.most_at_once == 1
    finally:
        stop.set()
        contender.join(timeout=30)
        other.release()
