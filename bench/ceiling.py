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
    from bench.baseline_app import Counter, Store
    from domain.application import storage_env

    store = Store(env=storage_env(database_url))
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


def append_ceiling(database_url: str, processes: int, seconds: float) -> float:
    """Events appended per second by `processes` writers together."""
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    start_at = time.time() + 2.0  # let every writer import and connect first
    workers = [ctx.Process(target=_writer, args=(database_url, seconds, start_at, queue)) for _ in range(processes)]
    for worker in workers:
        worker.start()
    total = sum(queue.get(timeout=seconds + 120) for _ in workers)
    for worker in workers:
        worker.join(timeout=30)
    return total / seconds
