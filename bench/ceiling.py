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

# How long every writer may take to start (spawn, import, connect) before the measurement is
# called off: under load a writer took longer than the 2 s the old fixed start gave it, and then
# appended nothing in its window, a silent "0 events/s".
READY_TIMEOUT_SECONDS = 300.0


def _writer(database_url: str, seconds: float, ready, start, queue) -> None:
    os.environ["BENCH_DATABASE_URL"] = database_url
    from bench.baseline_app import Counter, open_store

    store = open_store(database_url, snapshots=False)
    ready.put(os.getpid())
    if not start.wait(READY_TIMEOUT_SECONDS + 60):
        store.close()
        return
    appended = 0
    stop_at = time.monotonic() + seconds
    counter = None
    while time.monotonic() < stop_at:
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
    """Events appended per second by `processes` writers together, once every one of them is ready.

    Raises RuntimeError when a writer fails or does not start in time, or when one appended
    nothing: a measurement that failed is never reported as a rate.
    """
    create_tables(database_url)
    ctx = multiprocessing.get_context("spawn")
    ready, start, queue = ctx.Queue(), ctx.Event(), ctx.Queue()
    workers = [ctx.Process(target=_writer, args=(database_url, seconds, ready, start, queue)) for _ in range(processes)]
    for worker in workers:
        worker.start()
    try:
        _collect(workers, ready, time.monotonic() + READY_TIMEOUT_SECONDS, "start")
        start.set()  # every writer has imported and connected: they all append in the same window
        results = _collect(workers, queue, time.monotonic() + seconds + 120, "finish")
    except BaseException:
        for worker in workers:
            worker.terminate()
        raise
    for worker in workers:
        worker.join(timeout=30)
    if min(results) == 0:
        raise RuntimeError(f"append ceiling: a writer appended nothing in {seconds} s (appended: {results})")
    return sum(results) / seconds


def _collect(workers: list, queue, deadline: float, what: str) -> list[int]:
    """One message from each writer, failing as soon as a writer dies (it never reports) or the deadline passes."""
    import queue as queues

    got: list[int] = []
    while len(got) < len(workers):
        try:
            got.append(queue.get(timeout=1.0))
        except queues.Empty:
            dead = [w.exitcode for w in workers if w.exitcode not in (None, 0)]
            if dead or time.monotonic() > deadline:
                raise RuntimeError(
                    f"append ceiling: {len(workers) - len(got)} writer process(es) did not {what} "
                    f"(exit codes of failed ones: {dead})"
                ) from None
    return got
