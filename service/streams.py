"""Live followers of matches: one watcher per process wakes the streams whose match changed.

An idle SSE follower must cost neither a request thread nor a query per poll. `gambit serve`
runs gevent workers (deploy/gunicorn.conf.py), so a waiting stream is a parked greenlet; and
streams do not poll the store themselves: one watcher per process follows the store's
notification log — by default one query for the newest notifications every 0.25 s, on either
store; on PostgreSQL optionally woken by the wake each append sends after its commit (LISTEN,
projections/record_wakes.py), which reads the log at once after a write, and polls as well — and wakes
only the followers of the matches that got new records. So a thousand idle followers cost a thousand parked greenlets and
one query per 0.25 s per process.

Caps keep one client from taking a worker's streams: at most `per_client` open streams per
client address and `total` per process; past either, 503 `too_many_streams` with Retry-After.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from typing import Any

from domain.partition_health import RETRY_UNANSWERED_AFTER
from projections.record_wakes import Doorbell
from service.problems import Problem

log = logging.getLogger("gambit.streams")

POLL_SECONDS = 0.25
# How often a watcher woken by the appends' wakes reads the log anyway (a wake lost costs at most this).
WOKEN_POLL_SECONDS = 2.0
# How long closing waits for the watcher: a poll, or the pause after a store hiccup, and a query.
WATCHER_STOP_SECONDS = 10.0
# How long closing waits for woken streams to end (each sends what it has and returns its slot).
STREAMS_STOP_SECONDS = 5.0
RETRY_AFTER_SECONDS = 5


class Follower:
    """One stream's doorbell: rung when its match may have new records."""

    def __init__(self, match_id: str, client: str) -> None:
        self.match_id = match_id
        self.client = client
        self._bell = threading.Event()

    def ring(self) -> None:
        """Wake the stream."""
        self._bell.set()

    def wait(self, timeout: float) -> bool:
        """Sleep until rung or `timeout` seconds pass; True when rung (and ready to be rung again)."""
        rung = self._bell.wait(timeout)
        self._bell.clear()
        return rung


class StreamHub:
    """The followers of one process, its caps, and the watcher that wakes them."""

    def __init__(self, recorders: Any, *, total: int, per_client: int, listen: bool) -> None:
        """A hub following the logs of `recorders` (one recorder, or one per partition)."""
        self._recorders = list(recorders) if isinstance(recorders, list | tuple) else [recorders]
        self.total = total
        self.per_client = per_client
        self._listen = listen
        self._lock = threading.Lock()
        self._all_released = threading.Condition(self._lock)
        self._followers: dict[str, set[Follower]] = {}
        self._clients: Counter[str] = Counter()
        self._open = 0
        self._watcher: threading.Thread | None = None
        self._bell: Doorbell | None = None
        self._stopped = False

    @property
    def open_streams(self) -> int:
        """How many streams this process holds now."""
        return self._open

    def reserve(self, match_id: str, client: str) -> Follower:
        """Take a stream slot for `client` following `match_id`; 503 `too_many_streams` past the caps.

        Every reserved slot must be given back with `release`, once the response is closed.
        """
        follower = Follower(match_id, client)
        with self._lock:
            if self.total and self._open >= self.total:
                raise _full(f"this server holds its {self.total} streams")
            if self.per_client and self._clients[client] >= self.per_client:
                raise _full(f"a client may hold {self.per_client} streams at once")
            self._open += 1
            self._clients[client] += 1
            self._followers.setdefault(match_id, set()).add(follower)
            self._start_watcher()
        return follower

    def release(self, follower: Follower) -> None:
        """Give a stream slot back (idempotent)."""
        with self._lock:
            followers = self._followers.get(follower.match_id)
            if followers is None or follower not in followers:
                return
            followers.discard(follower)
            if not followers:
                del self._followers[follower.match_id]
            self._open -= 1
            self._clients[follower.client] -= 1
            if not self._clients[follower.client]:
                del self._clients[follower.client]
            if not self._open:
                self._all_released.notify_all()

    @property
    def stopped(self) -> bool:
        """Whether the process is shutting down (streams end at their next wake)."""
        return self._stopped

    def close(self) -> None:
        """Stop the watcher and wake every stream so it ends (graceful shutdown, tests)."""
        self._stopped = True
        if self._bell is not None:
            self._bell.close()
        self._ring_everyone()
        # The store closes next: a watcher still inside a query on a closed SQLite connection
        # crashes the whole process, so it must have stopped first.
        watcher = self._watcher
        if watcher is not None and watcher is not threading.current_thread():
            watcher.join(timeout=WATCHER_STOP_SECONDS)
        # For the same reason the woken streams must have ended: each reads the store once more before it does.
        with self._all_released:
            self._all_released.wait_for(lambda: not self._open, timeout=STREAMS_STOP_SECONDS)

    # ----- the watcher ------------------------------------------------------------------------
    def _start_watcher(self) -> None:
        if self._watcher is None or not self._watcher.is_alive():
            self._watcher = threading.Thread(target=self._watch, name="gambit-stream-watcher", daemon=True)
            self._watcher.start()

    def _ring(self, match_ids: set[str]) -> None:
        with self._lock:
            for match_id in match_ids:
                for follower in self._followers.get(match_id, ()):
                    follower.ring()

    def _ring_everyone(self) -> None:
        """Every stream looks for itself once (a watcher starting or recovering may have missed records)."""
        with self._lock:
            for followers in self._followers.values():
                for follower in followers:
                    follower.ring()

    def _watch(self) -> None:
        while not self._stopped:
            try:
                self._poll_notifications()
            except Exception as exc:  # noqa: BLE001 - the watcher must outlive a store hiccup
                log.warning("stream watcher restarting after: %s", exc)
                self._ring_everyone()
                time.sleep(1.0)

    def _poll_notifications(self) -> None:
        if self._listen and self._bell is None:
            self._bell = Doorbell(self._recorders)
        bell = self._bell
        positions: list[int | None] = [None] * len(self._recorders)
        # A partition that did not answer is passed over for a while: asking it waits out the library's retries,
        # and the other partitions' followers would wait with it.
        unanswered_until: dict[int, float] = {}
        while not self._stopped:
            full = False
            unknown = [number for number, position in enumerate(positions) if position is None]
            for number, recorder in enumerate(self._recorders):
                if time.monotonic() < unanswered_until.get(number, 0.0):
                    continue
                try:
                    full = self._look(number, recorder, positions) or full
                except Exception as exc:  # one partition down must not stop the others' streams
                    if len(self._recorders) == 1:
                        raise
                    log.warning("stream watcher: partition %d does not answer (looking again shortly): %s", number, exc)
                    positions[number] = None
                    unanswered_until[number] = time.monotonic() + RETRY_UNANSWERED_AFTER
            if any(positions[number] is not None for number in unknown):
                # Records written before the watcher knew a log's position reach nobody's bell: look once.
                self._ring_everyone()
            if not full:
                if bell is None:
                    time.sleep(POLL_SECONDS)
                else:
                    bell.wait(WOKEN_POLL_SECONDS)

    def _look(self, number: int, recorder: Any, positions: list[int | None]) -> bool:
        """Ring the followers of matches with new records in one log; True when more may be waiting at once."""
        position = positions[number]
        if position is None:
            positions[number] = recorder.max_notification_id() or 0
            return False
        fresh = recorder.select_notifications(position, 500, inclusive_of_start=False)
        if fresh:
            positions[number] = fresh[-1].id
            self._ring({str(n.originator_id) for n in fresh})
        return len(fresh) == 500


def _full(detail: str) -> Problem:
    return Problem(
        503,
        "too_many_streams",
        f"{detail}; retry in {RETRY_AFTER_SECONDS} s",
        "Too many streams",
        retry_after=RETRY_AFTER_SECONDS,
    )
