"""The scrub: every match's whole chain re-checked from its first record, at a rate an operator sets.

A request loads a match from its newest sealed snapshot, or brings the copy a worker keeps in
memory up to date; either way it checks only the records after that point. An edit to an older
record (by someone who can write to the database and drops the append-only triggers) would go
unseen until the match is replayed from the start. The scrub replays every match from its first
record, so every chain link, commitment and receipt is checked again; a mismatch raises the
integrity alert (projections/integrity.py), which fails readiness and makes every worker refuse
writes to the match (`MatchStore.write_problem`).

It walks the store's notification log, so it finds every match the store holds (a read model
could be edited to hide one), and keeps its place in `gambit_scrub_progress`: a new leader, or a
recycled worker, goes on where the last one stopped.

A partition that does not answer is no tampering: the scrub of its matches stops (PartitionUnavailable) with its
place saved after the last match it checked, raising no alert, and goes on from there once the partition is back.
It asks through the process's `PartitionHealth`, so while the partition is taken as down it fails at once instead
of waiting out the event-store library's retries.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from domain.errors import PartitionUnavailable
from domain.match import MATCH_CREATED, match_record, project_match
from domain.partition_health import PartitionHealth, reaching
from domain.store import MatchStore, parse_match_id
from projections.integrity import IntegrityAlerts
from projections.sqlstore import SqlStore

log = logging.getLogger("gambit.scrub")

NAME = "whole_chains"
# Notifications read per query while looking for the next matches.
PAGE = 500
# A progress line in the log every this many matches.
LOG_EVERY = 1000
# The place is saved every this many matches (a new leader checks at most these again).
SAVE_EVERY = 20

_SCHEMA = """CREATE TABLE IF NOT EXISTS gambit_scrub_progress (
    name TEXT PRIMARY KEY, position BIGINT NOT NULL, pass_started DOUBLE PRECISION NOT NULL)"""


def whole_chain_problem(app: MatchStore, match_id: str) -> str | None:
    """Why a match's records, replayed from the first (no snapshot, no kept copy), are not what this service wrote."""
    records = app.repository.event_store.get(parse_match_id(match_id))
    match = project_match(None, records)
    if match is None:
        return "the match has no records"
    return app.integrity_problem(match)


@dataclass
class ScrubReport:
    """One pass (or part of one): how many matches were checked and which failed."""

    checked: int = 0
    problems: dict[str, str] = field(default_factory=dict)
    # Partition → why it was not scrubbed to the end (it did not answer): its matches after that were not checked.
    unavailable: dict[int, str] = field(default_factory=dict)


class Scrub:
    """Re-checks whole chains, match after match, raising the integrity alert for every mismatch."""

    def __init__(
        self,
        app: MatchStore,
        store: SqlStore,
        alerts: IntegrityAlerts,
        on_checked: Callable[[str, str | None], None] | None = None,
        on_pass: Callable[[int], None] | None = None,
        partition: int = 0,
        health: PartitionHealth | None = None,
    ) -> None:
        """The scrub of the matches in `app`, one partition's store (its place kept under its own name); `health`,
        the process's, passes over the partition while it is taken as down."""
        self.app = app
        self.store = store
        self.partition = partition
        self.health = health
        self.name = NAME if partition == 0 else f"{NAME}@{partition}"
        self.alerts = alerts
        self.on_checked = on_checked
        self.on_pass = on_pass
        with store.schema_transaction() as cur:
            cur.execute(_SCHEMA)

    def check(self, match_id: str) -> str | None:
        """Re-check one match's whole chain; a mismatch raises (or keeps) its integrity alert. PartitionUnavailable
        when the partition does not answer: the match was not checked, which is no mismatch."""
        try:
            with reaching(self.partition, self.health):
                problem = whole_chain_problem(self.app, match_id)
        except PartitionUnavailable:
            raise
        except Exception as exc:
            log.exception("scrub: match %s could not be replayed", match_id)
            problem = f"its records could not be replayed ({type(exc).__name__})"
        if problem is not None:
            self.alerts.raise_alert(match_id, problem, recheck=True)
        if self.on_checked is not None:
            self.on_checked(match_id, problem)
        return problem

    def matches_after(self, position: int) -> Iterator[tuple[str, int]]:
        """Every match created after a notification position, with the position of its first record."""
        recorder = self.app.recorder
        while True:
            with reaching(self.partition, self.health):
                notifications = recorder.select_notifications(position + 1, PAGE)
            for notification in notifications:
                position = notification.id
                if notification.originator_version != 1:
                    continue
                event = self.app.mapper.to_domain_event(notification)
                record = match_record(event)
                if record is not None and record.kind == MATCH_CREATED:  # not a tournament's first record
                    yield str(event.originator_id), position
            if len(notifications) < PAGE:
                return

    def run_pass(self, stop: threading.Event | None = None, rate: float = 0.0) -> ScrubReport:
        """Check every match once from the start, at most `rate` a second (0: as fast as it goes); a partition that
        does not answer ends the pass there, named in the report's `unavailable`."""
        report = ScrubReport()
        try:
            for match_id, _ in self.matches_after(0):
                if stop is not None and stop.is_set():
                    break
                self._check_into(report, match_id)
                _pace(stop, rate)
        except PartitionUnavailable as exc:
            report.unavailable[self.partition] = str(exc)
        return report

    def keep_scrubbing(self, stop: threading.Event, rate: float, interval: float) -> None:
        """Scrub pass after pass until `stop`: `rate` matches a second, a pass beginning `interval` s after the last began."""
        while not stop.is_set():
            position, started = self._progress()
            if position == 0:
                wait = started + interval - time.time()
                if wait > 0:
                    stop.wait(wait)
                    continue
                started = time.time()
                self._save(0, started)
                log.info("scrub: a pass over every match begins")
            report = ScrubReport()
            finished = True
            done = position  # the position of the last match checked
            try:
                for match_id, at in self.matches_after(position):
                    if stop.is_set():
                        finished = False
                        break
                    self._check_into(report, match_id)
                    done = at
                    if report.checked % SAVE_EVERY == 0:
                        self._save(at, started)
                    if report.checked % LOG_EVERY == 0:
                        log.info("scrub: %d matches checked in this pass (log position %d)", report.checked, at)
                    _pace(stop, rate)
            except PartitionUnavailable:
                # The place after the last match checked: on the partition's return none is checked twice in a pass.
                if done != position:
                    self._save(done, started)
                raise
            if finished and not stop.is_set():
                self._save(0, started)
                log.info(
                    "scrub: pass done: %d matches checked, %d failing their checks",
                    report.checked,
                    len(report.problems),
                )
                if self.on_pass is not None:
                    self.on_pass(report.checked)

    def _check_into(self, report: ScrubReport, match_id: str) -> None:
        problem = self.check(match_id)
        report.checked += 1
        if problem is not None:
            report.problems[match_id] = problem

    def _progress(self) -> tuple[int, float]:
        """Where the current pass stands (0: between passes) and when it (or the last) began (0: never)."""
        rows = self.store.query("SELECT position, pass_started FROM gambit_scrub_progress WHERE name = ?", (self.name,))
        return (int(rows[0][0]), float(rows[0][1])) if rows else (0, 0.0)

    def _save(self, position: int, started: float) -> None:
        with self.store.transaction() as cur:
            cur.execute("DELETE FROM gambit_scrub_progress WHERE name = ?", (self.name,))
            cur.execute(
                "INSERT INTO gambit_scrub_progress (name, position, pass_started) VALUES (?, ?, ?)",
                (self.name, position, started),
            )


def _pace(stop: threading.Event | None, rate: float) -> None:
    """Wait one match's share of a second at `rate` (always yield: other greenlets of the worker run)."""
    pause = 1.0 / rate if rate > 0 else 0.0
    if stop is not None:
        stop.wait(pause)
    else:
        time.sleep(pause)
