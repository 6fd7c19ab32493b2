"""One leader among every process serving a store: who keeps the clocks, scrubs the chains and keeps the log.

Every `gambit serve` worker (on every host) and the server's dedicated leader process (`gambit
lead`, which the master starts and restarts) contend; exactly one holds the leadership at a
time, and when its process dies the leadership frees at once and another takes it within
`RETRY_SECONDS`. The workers defer to a dedicated leader process: while one holds its own lock
(`LEAD_PROCESS`, held for its whole life), they do not contend, and a worker that leads steps
down within `CHECK_SECONDS`; a worker's duties share its loop with its requests, and under load
they fell seconds behind (docs/benchmarks.md, "The transparency log (issue 33)"). Nothing needs a lease to expire, because the lock is the operating
system's or the database's and dies with its holder:

- **PostgreSQL**: a session-level advisory lock (`pg_try_advisory_lock`) held on a connection of
  its own, keyed by the schema the store lives in (two deployments in one database do not share
  a leader). The lock lives as long as the session: a killed process, a dropped connection or a
  restarted server ends it, and TCP keepalives on the session (both ways) end it within about
  ten seconds when a host vanishes without closing it. The holder checks its connection every
  few seconds and steps down when it no longer answers.
- **SQLite**: an exclusive `flock` on a file beside the database (`<database>.leader`). A SQLite
  store is served from one host (its file is not shared over a network), and the kernel frees
  the lock when the holding process exits, however it exits. A lease row in the database would
  need heartbeats (writes, contending with the matches' own for SQLite's one write lock) and a
  takeover delay as long as the lease.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import threading
from collections.abc import Callable
from typing import Any

from projections.sqlstore import pg_connection_kwargs

log = logging.getLogger("gambit.leader")

# The advisory lock's first key (the second is the schema's hash): apart from the store's own locks.
LEADER_LOCK_CLASS = 7316506
# The roles a lock is taken for: the leadership itself, and the dedicated leader process's presence.
LEADER, LEAD_PROCESS = "leader", "lead-process"
_LOCK_CLASSES = {LEADER: LEADER_LOCK_CLASS, LEAD_PROCESS: LEADER_LOCK_CLASS + 1}
# How often a contender tries again, and how often the leader checks it still leads.
RETRY_SECONDS = 1.0
CHECK_SECONDS = 2.0

# TCP keepalives of the leader's session: idle seconds, seconds between probes, probes lost.
KEEPALIVE_IDLE, KEEPALIVE_INTERVAL, KEEPALIVE_COUNT = 5, 2, 3
_SERVER_KEEPALIVES = (
    f"-c tcp_keepalives_idle={KEEPALIVE_IDLE} -c tcp_keepalives_interval={KEEPALIVE_INTERVAL} "
    f"-c tcp_keepalives_count={KEEPALIVE_COUNT}"
)

Duty = Callable[[threading.Event], None]


class Leadership:
    """The right to lead the processes serving one store: taken, checked and given back.

    `role` LEAD_PROCESS is another lock of the same kind: the one a dedicated leader process holds while it lives."""

    def __init__(self, database_url: str, role: str = LEADER) -> None:
        self.database_url = database_url
        self.role = role
        self._lock_class = _LOCK_CLASSES[role]
        self.sqlite = database_url.startswith("sqlite:///")
        self._file: Any = None
        self._conn: Any = None
        self._lock = threading.Lock()

    @property
    def lock_file(self) -> str:
        """The file a SQLite store's leader locks (beside the database file; `.lead-process` for that role)."""
        return self.database_url[len("sqlite:///") :] + "." + self.role

    def try_acquire(self) -> bool:
        """Take the leadership if nobody holds it; True when this object holds it now."""
        with self._lock:
            if self._file is not None or self._conn is not None:
                return True
            return self._acquire_file() if self.sqlite else self._acquire_advisory_lock()

    def _acquire_file(self) -> bool:
        path = self.lock_file
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        handle = open(path, "a+")  # noqa: SIM115 - held open for as long as the leadership lasts
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            return False
        self._file = handle
        return True

    def _acquire_advisory_lock(self) -> bool:
        try:
            conn = _pg_connect(self.database_url)
        except Exception:
            log.warning("leader: the store does not answer; trying again", exc_info=True)
            return False
        try:
            row = conn.execute(
                "SELECT pg_try_advisory_lock(%s, hashtext(current_schema()))", (self._lock_class,)
            ).fetchone()
        except Exception:  # noqa: BLE001 - as above
            conn.close()
            return False
        if not row or not row[0]:
            conn.close()
            return False
        self._conn = conn
        return True

    def holds(self) -> bool:
        """Whether the leadership is still this object's (on PostgreSQL: its session still answers)."""
        with self._lock:
            if self._file is not None:
                return True
            if self._conn is None:
                return False
            try:
                self._conn.execute("SELECT 1").fetchone()
                return True
            except Exception:  # noqa: BLE001 - any failure of the session means its lock is gone
                with contextlib.suppress(Exception):
                    self._conn.close()
                self._conn = None
                return False

    def held_elsewhere(self) -> bool:
        """Whether another process holds this lock now: tried, and given back at once when nobody did."""
        with self._lock:
            if self._file is not None or self._conn is not None:
                return False
        if self.try_acquire():
            self.release()
            return False
        return True

    def release(self) -> None:
        """Give the leadership back (closing the file or the session frees the lock)."""
        with self._lock:
            if self._file is not None:
                with contextlib.suppress(OSError):
                    fcntl.flock(self._file.fileno(), fcntl.LOCK_UN)
                self._file.close()
                self._file = None
            if self._conn is not None:
                # Unlocked before the close: the server ends a closed session (and frees its locks) only
                # after the client has gone, so another contender asking at once could still be refused.
                with contextlib.suppress(Exception):
                    self._conn.execute(
                        "SELECT pg_advisory_unlock(%s, hashtext(current_schema()))", (self._lock_class,)
                    ).fetchone()
                with contextlib.suppress(Exception):
                    self._conn.close()
                self._conn = None


def _pg_connect(database_url: str) -> Any:
    """A connection of its own (never from a pool: the lock belongs to its session)."""
    import psycopg  # only when PostgreSQL is configured

    return psycopg.connect(
        # The server frees the lock when the session ends; keepalives (both ways) make a vanished
        # host's session end within about ten seconds rather than at the system's TCP timeout.
        **pg_connection_kwargs(database_url, options=_SERVER_KEEPALIVES),
        keepalives=1,
        keepalives_idle=KEEPALIVE_IDLE,
        keepalives_interval=KEEPALIVE_INTERVAL,
        keepalives_count=KEEPALIVE_COUNT,
    )


def lead_while(
    leadership: Leadership,
    stop: threading.Event,
    duties: list[Duty],
    retry_seconds: float = RETRY_SECONDS,
    check_seconds: float = CHECK_SECONDS,
    on_change: Callable[[bool], None] | None = None,
    defer: Callable[[], bool] | None = None,
) -> None:
    """Contend until `stop`: while leading, run every duty (each until the event it is given is set).

    A duty is handed an event set when the leadership ends (lost, or `stop`); the leadership is
    given back only once every duty has returned, so two leaders never run at once. While `defer()`
    says so (a preferred contender is there), this one does not contend, and steps down if it leads.
    """
    while not stop.is_set():
        if defer is not None and defer():
            stop.wait(retry_seconds)
            continue
        if not leadership.try_acquire():
            stop.wait(retry_seconds)
            continue
        log.info("leader: this process (pid %s) now keeps the clocks and scrubs the chains", os.getpid())
        if on_change is not None:
            on_change(True)
        ended = threading.Event()
        running = [threading.Thread(target=duty, args=(ended,), daemon=True, name="gambit-leader") for duty in duties]
        for thread in running:
            thread.start()
        try:
            while not stop.is_set() and leadership.holds() and not (defer is not None and defer()):
                stop.wait(check_seconds)
        finally:
            ended.set()
            for thread in running:
                thread.join()
            leadership.release()
            if on_change is not None:
                on_change(False)
            log.info("leader: this process (pid %s) no longer leads", os.getpid())
