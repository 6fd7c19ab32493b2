"""SQLite files in WAL mode, switched once, even by processes and threads that open a file together.

SQLite answers a journal-mode switch that meets another connection's lock with "database is
locked" at once: its busy handler does not wait for that switch. Gunicorn boots its workers
together, and each opens the event store; the library's connections switch a file that is not
in WAL yet, so on a fresh file all but one could fail and a worker failed to boot. WAL is a
property of the file: switched once here, with retries, every later connection finds it set.
"""

from __future__ import annotations

import sqlite3
import time

# How long a first connection keeps trying to switch a new file to WAL.
WAL_SWITCH_SECONDS = 30
_RETRY_SECONDS = 0.01


def switch_to_wal(conn: sqlite3.Connection, seconds: float = WAL_SWITCH_SECONDS) -> None:
    """Put the connection's file in WAL mode (it stays so), retrying while another connection holds it."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(_RETRY_SECONDS)


def ensure_wal(database: str, seconds: float = WAL_SWITCH_SECONDS) -> None:
    """Switch an SQLite database file (a path or a `file:` URI, as the event store names it) to WAL."""
    conn = sqlite3.connect(database, uri=True, timeout=seconds, isolation_level=None)
    try:
        switch_to_wal(conn, seconds)
    finally:
        conn.close()
