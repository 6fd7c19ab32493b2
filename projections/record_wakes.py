"""How a follower of a store's notification log learns that it may have new records: a wake, or its poll.

Appends send no NOTIFY inside their transaction (domain/pg_append.py): each sends a wake on its
log's channel once it has committed. A follower reads the log from its own position whenever it
is woken or its poll interval passes, whichever comes first. The log is gap-free (appends keep the
table lock), so reading from a position never passes over a record; the wake only decides how
soon. A wake lost (the writer killed between its commit and its wake, the listening connection
dropped) delays the follower by one poll interval; nothing is lost or read twice.

On SQLite (one process writes, nobody to tell) and with listening off, the bell only polls.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import Any

from domain.pg_append import OneTripApplicationRecorder

log = logging.getLogger("gambit.followers")

# How long the listening thread waits for a wake before it looks whether it should stop.
LISTEN_SLICE_SECONDS = 0.25
# How long it waits after a lost connection before it listens again.
RECONNECT_SECONDS = 1.0


def can_wake(recorder: object) -> bool:
    """Whether a store's appends send a wake after they commit (ours on PostgreSQL; SQLite's cannot)."""
    return isinstance(recorder, OneTripApplicationRecorder)


class Doorbell:
    """Rings when a store's log may have new records (on a wake, when listening), or when a poll interval passes."""

    def __init__(self, recorders: Any, *, listen: bool = True) -> None:
        """A bell for the logs of `recorders` (one recorder, or one per partition); it listens for the wakes of
        those that send them when `listen` (one connection each), and is `listening` when every one of them does."""
        followed = list(recorders) if isinstance(recorders, Sequence) else [recorders]
        self._rung = threading.Event()
        self._stopped = threading.Event()
        self.listening = listen and bool(followed) and all(can_wake(recorder) for recorder in followed)
        self._threads: list[threading.Thread] = []
        if self.listening:
            for recorder in followed:
                thread = threading.Thread(target=self._listen, args=(recorder,), name="gambit-doorbell", daemon=True)
                thread.start()
                self._threads.append(thread)

    def wait(self, timeout: float) -> bool:
        """Sleep until rung or `timeout` seconds pass; True when rung (and ready to be rung again)."""
        rung = self._rung.wait(timeout)
        self._rung.clear()
        return rung

    def ring(self) -> None:
        """Wake the follower now (a stop, a test)."""
        self._rung.set()

    def close(self) -> None:
        """Stop listening; a waiting follower wakes."""
        self._stopped.set()
        self._rung.set()
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join(timeout=LISTEN_SLICE_SECONDS * 8)

    def _listen(self, recorder: Any) -> None:
        import psycopg
        from psycopg import sql

        pool = recorder.datastore.pool
        settings = {key: value for key, value in pool.kwargs.items() if key != "row_factory"}
        while not self._stopped.is_set():
            try:
                with psycopg.connect(pool.conninfo, autocommit=True, **settings) as conn:
                    conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(recorder.wake_channel)))
                    # Records written before the LISTEN took hold woke nobody: look once.
                    self._rung.set()
                    while not self._stopped.is_set():
                        for _ in conn.notifies(timeout=LISTEN_SLICE_SECONDS, stop_after=1):
                            self._rung.set()
            except Exception as exc:  # noqa: BLE001 - the follower polls meanwhile; listen again shortly
                log.warning("followers: listening for wakes failed (polling meanwhile): %s", exc)
                self._stopped.wait(RECONNECT_SECONDS)
