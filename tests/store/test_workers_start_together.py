"""Workers that boot at once on a fresh SQLite event store all start (gunicorn forks them together).

SQLite answers a switch to WAL that meets another connection's lock with "database is locked" at
once, without waiting: a worker that lost that race failed to boot, and gunicorn then stopped the
whole server ("Worker failed to boot").
"""

from __future__ import annotations

import multiprocessing
import sqlite3

from domain.application import open_matches
from domain.store import storage_env

WORKERS = 8
FRESH_FILES = 30


def _boot(url: str, start: multiprocessing.synchronize.Barrier, failures: multiprocessing.Queue) -> None:
    start.wait(timeout=30)
    try:
        open_matches(env=storage_env(url)).close()
    except Exception as exc:  # noqa: BLE001 - the test reports whatever a worker met
        failures.put(repr(exc))


def test_workers_booting_together_on_a_fresh_sqlite_store_all_start(tmp_path):
    context = multiprocessing.get_context("fork")
    for attempt in range(FRESH_FILES):
        path = tmp_path / f"gambit-{attempt}.sqlite3"
        url = f"sqlite:///{path}"
        start = context.Barrier(WORKERS)
        failures = context.Queue()
        workers = [context.Process(target=_boot, args=(url, start, failures)) for _ in range(WORKERS)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(timeout=60)
        met = []
        while not failures.empty():
            met.append(failures.get())
        assert met == [], f"every worker of a fresh store boots (attempt {attempt})"
        assert [worker.exitcode for worker in workers] == [0] * WORKERS
        with sqlite3.connect(path) as conn:
            assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
