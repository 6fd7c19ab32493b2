"""The append ceiling: how many events/s the bare library stores with several writer processes.

Each process is a bare eventsourcing Application (the baseline's) appending one event per save
to aggregates of its own (a new aggregate every 60 events), so nothing conflicts: what limits
the total is the store's serialization of appends (PostgreSQL's table lock on insert, SQLite's
single writer).
"""

from __future__ import annotations

import multiprocessing
import os
import time


def _writer(database_url: str, seconds: float, start_at: float, queue) -> None:
    os.environ["BENCH_DATABASE_URL"] = database_url
    from bench.baseline_app import Counter, open_store

    store = open_store(database_url, snapshots=False)
    appended = 0
    while time.time() < start_at:
        time.sleep(0.005)
    stop_at = start_at + seconds
    counter = None
    while time.time() < stop_at:
        if counter is None or counter.count >= 60:
            counter = Counter()
            store.save(counter)
        counter.append({"n": appended})
        store.save(counter)
        appended += 1
    store.close()
    queue.put(appended)


def create_tables(database_url: str) -> None:
    """Create the store's tables once, before the writers start.

    Writers that create the same tables at once on a fresh PostgreSQL schema failed ("tuple
    concurrently updated": the library's CREATE statements, and its CREATE OR REPLACE FUNCTION
    that runs on every start, are not safe against themselves). The tables are created here
    first, and each writer opens the store with `open_store`, which creates nothing outside a
    PostgreSQL advisory lock.
    """
    from bench.baseline_app import open_store

    open_store(database_url, snapshots=False).close()


def append_ceiling(database_url: str, processes: int, seconds: float) -> float:
    """Events appended per second by `processes` writers together."""
    create_tables(database_url)
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    start_at = time.time() + 2.0  # let every writer import and connect first
    workers = [ctx.Process(target=_writer, args=(database_url, seconds, start_at, queue)) for _ in range(processes)]
    for worker in workers:
        worker.start()
    import queue as queues

    results: list[int] = []
    deadline = time.time() + seconds + 120
    while len(results) < len(workers):
        try:
            results.append(queue.get(timeout=1.0))
        except queues.Empty:
            # A writer that died (a store error) never reports: fail now, not after the deadline.
            dead = [w.exitcode for w in workers if w.exitcode not in (None, 0)]
            if dead or time.time() > deadline:
                for worker in workers:
                    worker.terminate()
                raise RuntimeError(f"append ceiling: writer processes failed (exit codes {dead})") from None
    for worker in workers:
        worker.join(timeout=30)
    return sum(results) / seconds
