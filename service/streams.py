"""Live followers of matches: one watcher per process wakes the streams whose match changed.

An idle SSE follower must cost neither a request thread nor a query per poll. `gambit serve`
runs gevent workers (deploy/gunicorn.conf.py), so a waiting stream is a parked greenlet; and
streams do not poll the store themselves: one watcher per process follows the store's
notification log — by default one query for the newest notifications every 0.25 s, on either
store; on PostgreSQL optionally LISTEN/NOTIFY through the event-sourcing library's subscription,
which wakes at once but reads the log after every write — and wakes only the followers of the
matches that got new records. So a thousand idle followers cost a thousand parked greenlets and
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

from service.problems import Problem

log = logging.getLogger("gambit.streams")

POLL_SECONDS = 0.25
# How long closing waits for the watcher: a poll, or the pause after a store hiccup, and a query.
WATCHER_STOP_SECONDS = 10.0
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

    def __init__(self, recorder: Any, *, total: int, per_client: int, listen: bool) -> None:
        self._recorder = recorder
        self.total = total
        self.per_client = per_client
        self._listen = listen
        self._lock = threading.Lock()
        self._followers: dict[str, set[Follower]] = {}
        self._clients: Counter[str] = Counter()
        self._open = 0
        self._watcher: threading.Thread | None = None
        self._subscription: Any = None
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

    @property
    def stopped(self) -> bool:
        """Whether the process is shutting down (streams end at their next wake)."""
        return self._stopped

    def close(self) -> None:
        """Stop the watcher and wake every stream so it ends (graceful shutdown, tests)."""
        self._stopped = True
        if self._subscription is not None:
            self._subscription.stop()
        self._ring_everyone()
        # The store closes next: a watcher still inside a query on a closed SQLite connection
        # crashes the whole process, so it must have stopped first.
        watcher = self._watcher
        if watcher is not None and watcher is not threading.current_thread():
            watcher.join(timeout=WATCHER_STOP_SECONDS)

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
                if self._listen:
                    self._watch_notifications()
                else:
                    self._poll_notifications()
            except Exception as exc:  # noqa: BLE001 - the watcher must outlive a store hiccup
                log.warning("stream watcher restarting after: %s", exc)
                self._ring_everyone()
                time.sleep(1.0)

    def _poll_notifications(self) -> None:
        position = self._recorder.max_notification_id() or 0
        # Records written before the watcher knew its position reach nobody's bell: look once.
        self._ring_everyone()
        while not self._stopped:
            fresh = self._recorder.select_notifications(position, 500, inclusive_of_start=False)
            if fresh:
                position = fresh[-1].id
                self._ring({str(n.originator_id) for n in fresh})
            if len(fresh) < 500:
                time.sleep(POLL_SECONDS)

    def _watch_notifications(self) -> None:
        position = self._recorder.max_notification_id() or 0
        with self._recorder.subscribe(gt=position) as subscription:
            self._subscription = subscription
            self._ring_everyone()
            for notification in subscription:
                if self._stopped:
                    return
                self._ring({str(notification.originator_id)})


def _full(detail: str) -> Problem:
    return Problem(
        503,
        "too_many_streams",
        f"{detail}; retry in {RETRY_AFTER_SECONDS} s",
        "Too many streams",
        retry_after=RETRY_AFTER_SECONDS,
    )
