"""Clocks outside a request: the public clock of a view, and the clock process (docs/clocks.md).

Deadlines hold whenever anything touches a match (`MatchService.match` records the expiries due
first), but nobody has to be watching: the clock keeper (in the leading worker of `gambit serve`,
see projections/leadership.py; or `gambit clock`, and a thread of `gambit project`) keeps one row per running timed match — its earliest deadline — by following
the store's notification log, and wakes at the earliest deadline across matches (or on a new
record: the wake appends send after their commit on PostgreSQL, polling on SQLite) to touch the matches that are due. Many
processes may run it: the store's optimistic lock lets exactly one write each expiry.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from domain import clock
from domain.clock_service import ClockService
from domain.match import MATCH_CREATED, Match, match_record
from domain.match_options import options_of
from projections.record_wakes import Doorbell
from projections.sqlstore import Cursor, SqlStore
from projections.turns import in_turns

log = logging.getLogger("gambit.clock")

NAME = "clock_deadlines"
BATCH = 500
# Matches asked about in one query when telling which of a batch's matches are timed (under every store's limit of parameters).
TRACKED_CHUNK = 400
# How long the process sleeps at most when nothing is due while it hears the appends' wakes: a wake lost
# (its writer killed after the commit) delays a new deadline's noting by at most this.
IDLE_SECONDS = 2.0
# How soon the process tries again when a due expiry could not be written.
RETRY_SECONDS = 0.1

_SCHEMA = [
    """CREATE TABLE IF NOT EXISTS gambit_clock_tracking (name TEXT PRIMARY KEY, position BIGINT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS gambit_clock_deadlines (match_id TEXT PRIMARY KEY, deadline BIGINT)""",
    """CREATE INDEX IF NOT EXISTS gambit_clock_deadlines_deadline ON gambit_clock_deadlines (deadline)""",
]


def tracking_name(partition: int) -> str:
    """The keeper's tracking row for a partition's log: partition 0 keeps the name it had before partitions."""
    return NAME if partition == 0 else f"{NAME}@{partition}"


def match_clock(match: Match) -> dict | None:
    """The public clock of a match as of its version (its last record's instant); None when untimed."""
    return clock.clock_view(match.clock, clock.micros(match.modified_on))


class ClockKeeper:
    """The earliest running deadline of every timed match, and the expiries it records when they pass."""

    def __init__(self, clocks: ClockService, store: SqlStore) -> None:
        self.clocks = clocks
        self.app = clocks.store  # the match store whose records it follows
        self.store = store
        self._lock = threading.Lock()
        with self.store.schema_transaction() as cur:
            for statement in _SCHEMA:
                cur.execute(statement)

    def position(self, partition: int = 0) -> int:
        """The last notification id followed in a partition's log (0 before any)."""
        rows = self.store.query(
            "SELECT position FROM gambit_clock_tracking WHERE name = ?", (tracking_name(partition),)
        )
        return int(rows[0][0]) if rows else 0

    def catch_up(self) -> int:
        """Follow new records of every partition: every timed match they touch gets its deadline anew; returns how
        many were read. With several partitions one that fails is logged and passed over (its place is kept)."""
        processed = 0
        partitions = self.app.partitions
        with self._lock:
            health = self.app.health
            for number, partition in enumerate(partitions):
                if health is not None and health.unanswered(number):
                    continue  # it did not answer lately: the others go on without waiting for it again
                try:
                    processed += self._catch_up_partition(number, partition)
                except Exception as exc:
                    if len(partitions) == 1:
                        raise
                    log.exception("clock: partition %d could not be followed; the others go on", number)
                    if health is not None:
                        health.failed(number, exc)
        return processed

    def _catch_up_partition(self, number: int, partition: Any) -> int:
        """Follow one partition's new records.

        The slow part (reading the log, loading the matches) comes before the short transaction
        that writes the rows, never inside it: under gevent workers a greenlet that held SQLite's
        write lock across a switch would stall every other greenlet of its worker that asks for
        it (SQLite waits for a lock without yielding).
        """
        name = tracking_name(number)
        processed = 0
        while True:
            position = self.position(number)
            notifications = partition.recorder.select_notifications(position + 1, BATCH)
            if not notifications:
                return processed
            created, notes = self._read([partition.mapper.to_domain_event(n) for n in in_turns(notifications)])
            last = notifications[-1].id
            with self.store.transaction(lock_table="gambit_clock_tracking") as cur:
                cur.execute("SELECT position FROM gambit_clock_tracking WHERE name = ?", (name,))
                row = cur.fetchone()
                if (int(row[0]) if row else 0) != position:
                    continue  # another process followed these records meanwhile: read on from where it got
                self._write(cur, created, notes)
                if row is None:
                    cur.execute("INSERT INTO gambit_clock_tracking (name, position) VALUES (?, ?)", (name, last))
                else:
                    cur.execute("UPDATE gambit_clock_tracking SET position = ? WHERE name = ?", (last, name))
            processed += len(notifications)
            if len(notifications) < BATCH:
                return processed

    def _read(self, events: list[Any]) -> tuple[list[str], dict[str, tuple[bool, int | None]]]:
        """The timed matches these records create, and (finished, deadline) of every timed match they touch."""
        created: list[str] = []
        touched: list[str] = []
        for stored in events:
            event = match_record(stored)
            if event is None:
                continue  # a tournament's own events
            match_id = str(event.originator_id)
            if event.kind == MATCH_CREATED and options_of(event.public.get("config", {})).time_control.timed:
                created.append(match_id)
            if match_id not in touched:
                touched.append(match_id)
        notes: dict[str, tuple[bool, int | None]] = {}
        tracked = set(created) | self._tracked([match_id for match_id in touched if match_id not in created])
        for match_id in touched:
            if match_id in tracked:
                notes[match_id] = self._deadline_of(self.app.load(match_id))
        return created, notes

    def _tracked(self, match_ids: list[str]) -> set[str]:
        """Which of these matches have a deadline row (timed matches the keeper follows).

        One query per `TRACKED_CHUNK` matches, not one per match: the keeper runs in a serving worker, and under
        load each round trip waited its turn behind that worker's requests, so a batch touching a few dozen
        matches took seconds and the clocks fell behind."""
        found: set[str] = set()
        for start in range(0, len(match_ids), TRACKED_CHUNK):
            chunk = match_ids[start : start + TRACKED_CHUNK]
            marks = ", ".join("?" for _ in chunk)
            rows = self.store.query(
                f"SELECT match_id FROM gambit_clock_deadlines WHERE match_id IN ({marks})", tuple(chunk)
            )
            found.update(row[0] for row in rows)
        return found

    @staticmethod
    def _deadline_of(match: Match) -> tuple[bool, int | None]:
        """Whether a match is finished, and its earliest running deadline (none while paused or not running)."""
        if match.status == "finished":
            return True, None
        return False, clock.earliest_deadline(match.clock) if match.status == "active" else None

    @staticmethod
    def _write(cur: Cursor, created: list[str], notes: dict[str, tuple[bool, int | None]]) -> None:
        """Keep each noted match's deadline; a finished match leaves."""
        for match_id in created:
            cur.execute("DELETE FROM gambit_clock_deadlines WHERE match_id = ?", (match_id,))
            cur.execute("INSERT INTO gambit_clock_deadlines (match_id, deadline) VALUES (?, NULL)", (match_id,))
        for match_id, (finished, deadline) in notes.items():
            if finished:
                cur.execute("DELETE FROM gambit_clock_deadlines WHERE match_id = ?", (match_id,))
            else:
                cur.execute("UPDATE gambit_clock_deadlines SET deadline = ? WHERE match_id = ?", (deadline, match_id))

    def _park(self, match_id: str) -> None:
        """Stop waking for a match whose expiry cannot be written (its records fail their integrity
        checks, so no write extends it): its next record, if any, notes its deadline again."""
        log.error(
            "clock: match %s is past a deadline but takes no write (integrity alert); not waking for it", match_id
        )
        with self.store.transaction(lock_table="gambit_clock_tracking") as cur:
            cur.execute("UPDATE gambit_clock_deadlines SET deadline = NULL WHERE match_id = ?", (match_id,))

    def due(self, at: int) -> list[str]:
        """Matches with a deadline passed at `at` (µs), earliest first."""
        rows = self.store.query(
            "SELECT match_id FROM gambit_clock_deadlines WHERE deadline IS NOT NULL AND deadline < ? ORDER BY deadline",
            (at,),
        )
        return [row[0] for row in rows]

    def next_deadline(self) -> int | None:
        """The earliest running deadline across matches (µs), or None."""
        rows = self.store.query("SELECT MIN(deadline) FROM gambit_clock_deadlines WHERE deadline IS NOT NULL")
        return int(rows[0][0]) if rows and rows[0][0] is not None else None

    def tick(self) -> list[str]:
        """Catch up, then touch every match whose deadline has passed (recording its expiries); returns their ids."""
        self.catch_up()
        now = clock.fresh_now()
        at = clock.micros(now)
        touched = []
        for match_id in self.due(at):
            try:
                match = self.clocks.expire_due(match_id)
            except Exception:
                log.exception("clock: could not record the expiries of match %s", match_id)
                continue
            if match.overdue(now):
                self._park(match_id)
                continue
            touched.append(match_id)
        if touched:
            self.catch_up()
        return touched


def keep_clocks(
    keeper: ClockKeeper,
    stop: threading.Event,
    poll_seconds: float = 0.5,
    on_expired: Callable[[list[str]], None] | None = None,
    listen: bool = True,
) -> None:
    """Record expiries as their deadlines pass until `stop` is set, sleeping until the earliest deadline.

    On PostgreSQL a new record's wake (sent after its append commits) wakes it at once unless `listen`
    is False; on SQLite (or without listening) it looks for new records every `poll_seconds`.
    """
    bell = Doorbell([partition.recorder for partition in keeper.app.partitions], listen=listen)

    def wake_on_stop() -> None:
        # A stop (SIGTERM) must not wait out the idle sleep: an orchestrator allows a few seconds.
        stop.wait()
        bell.ring()

    threading.Thread(target=wake_on_stop, daemon=True, name="gambit-clock-stop").start()
    try:
        while not stop.is_set():
            try:
                touched = keeper.tick()
            except Exception:
                log.exception("clock: a tick failed")
                touched = []
            if touched and on_expired is not None:
                on_expired(touched)
            timeout = IDLE_SECONDS if bell.listening else poll_seconds
            deadline = keeper.next_deadline()
            if deadline is not None:
                # Due strictly after the deadline: wake a millisecond past it.
                until = (deadline - clock.micros(clock.fresh_now())) / clock.SECOND + 0.001
                # A deadline still passed right after a tick could not be written (a failing store):
                # try again shortly rather than at once, in a loop.
                timeout = max(RETRY_SECONDS, min(timeout, until)) if until <= 0 else min(timeout, until)
            bell.wait(timeout)
    finally:
        bell.close()
