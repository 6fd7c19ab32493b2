"""Appends per second and per WAL flush, and follower lag, by append path and layout: `python -m bench.appends`.

Issue 34. Writers (processes × threads, one pooled connection per thread) append one event per call
through the service's PostgreSQL recorder (`domain/pg_append.py`) to aggregates of their own, so
nothing conflicts and what limits the total is how the server serializes appends. Variants:

- `today`: the append as it was before issue 34 — `LOCK TABLE`, `NOTIFY`, insert, in one function;
- `new`: `LOCK TABLE` and insert in one function, then the wake (`pg_notify`, its own transaction,
  `synchronous_commit = off`) as a second statement;
- `silent` (optional): `new` without the wake, to size what the wake costs (followers then only poll).

Layouts: `one` (one events table), `schemas` (four schemas on the same server, writers spread evenly),
and with `--second-url` `servers` (one table on each of two servers) against `one` on the first.
Trials are interleaved: each repetition runs every (variant, layout) once, in an order rotated per
repetition, each on fresh schemas (dropped afterwards). For each trial: appends/s over the window,
and from `pg_stat_wal` of each server the WAL flushes (`wal_sync`, fdatasync calls) and writes
(`wal_write`) in the window: appends per flush = appends ÷ Δwal_sync (server-wide counters, so other
sessions' writes in the window count against us: the figure is a lower bound). One follower per
trial (a process following the first table, as the read-model runner does: woken by the wakes
when the variant sends them, polling every 0.25 s otherwise) reports its lag: for every record,
the time from its append's acknowledgement to the follower reading it; p50 / p99 / max.
The 1-minute load average (`uptime`) is printed before and after every trial.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import threading
import time
import uuid
from contextlib import ExitStack
from typing import Any

from bench.stores import POSTGRES_URL, pg_connect, pg_schema

READY_SECONDS = 120.0
FOLLOWER_POLL_SECONDS = 0.25
EVENTS_PER_AGGREGATE = 60
# The variants other than the service's own recorder (`new`).
VARIANT_RECORDERS = {"today": "bench.append_today:TodayRecorder", "silent": "bench.append_today:SilentRecorder"}


def _env(url: str, variant: str) -> dict:
    from domain.store import storage_env

    env = storage_env(url)
    env["CREATE_TABLE"] = "false"
    if variant in VARIANT_RECORDERS:
        env["APPLICATION_RECORDER_TOPIC"] = VARIANT_RECORDERS[variant]
    return env


def open_recorder(url: str, variant: str) -> Any:
    """The application recorder of the service's events table (`gambit_events`) at `url`, as the variant appends."""
    from eventsourcing.persistence import InfrastructureFactory
    from eventsourcing.utils import Environment

    factory = InfrastructureFactory.construct(Environment("gambit", _env(url, variant)))
    return factory.application_recorder()


def _writer(urls: list[str], variant: str, threads: int, seconds: float, ready, start, results) -> None:
    from eventsourcing.persistence import StoredEvent

    # Thread i appends to table i mod n: each table's pool has a connection for each of its threads.
    pool = -(-threads // len(urls))
    recorders = [open_recorder(f"{url}&pool_size={pool}&max_overflow=0", variant) for url in urls]
    ready.put(os.getpid())
    if not start.wait(READY_SECONDS + 60):
        return
    stop_at = time.monotonic() + seconds
    counts = [0] * threads
    acked: list[list[tuple[int, float]]] = [[] for _ in range(threads)]

    def append(slot: int) -> None:
        recorder = recorders[slot % len(recorders)]
        followed = slot % len(recorders) == 0
        aggregate, version = uuid.uuid4(), 0
        while time.monotonic() < stop_at:
            if version >= EVENTS_PER_AGGREGATE:
                aggregate, version = uuid.uuid4(), 0
            version += 1
            ids = recorder.insert_events([StoredEvent(aggregate, version, "bench:Appended", b"{}")])
            if followed:
                acked[slot].append((ids[-1], time.time()))
            counts[slot] += 1

    workers = [threading.Thread(target=append, args=(slot,)) for slot in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    results.put({"appended": sum(counts), "acked": [pair for slot in acked for pair in slot]})


def _follower(url: str, listen: bool, ready, start, stop, results) -> None:
    from projections.record_wakes import Doorbell

    recorder = open_recorder(url, "new")
    bell = Doorbell(recorder, listen=listen)
    position = recorder.max_notification_id() or 0
    seen: dict[int, float] = {}
    ready.put(os.getpid())
    start.wait(READY_SECONDS + 60)
    while True:
        stopping = stop.is_set()
        fresh = recorder.select_notifications(position, 500, inclusive_of_start=False)
        now = time.time()
        for notification in fresh:
            seen[notification.id] = now
        if fresh:
            position = fresh[-1].id
        elif stopping:
            break
        if len(fresh) < 500 and not stopping:
            bell.wait(2.0 if bell.listening else FOLLOWER_POLL_SECONDS)
    bell.close()
    results.put(seen)


def _wal(url: str) -> tuple[int, int, int]:
    """(wal_write, wal_sync, xact_commit of every database) of the server at `url`."""
    with pg_connect(url) as conn:
        write, sync = conn.execute("SELECT wal_write, wal_sync FROM pg_stat_wal").fetchone()
        commits = conn.execute("SELECT sum(xact_commit) FROM pg_stat_database").fetchone()[0]
    return int(write), int(sync), int(commits)


def _load() -> str:
    return subprocess.run(["uptime"], check=False, capture_output=True, text=True).stdout.strip().split("load average:")[-1].strip()


def trial(urls: list[str], servers: list[str], variant: str, writers: int, processes: int, seconds: float) -> dict:
    """One measurement: `writers` threads over `processes` processes appending to the tables at `urls`."""
    for url in urls:  # the tables and functions, once, before the writers start
        recorder = open_recorder(url, variant)
        recorder.create_table()
        recorder.datastore.close()
    ctx = multiprocessing.get_context("spawn")
    ready, start, stop, results, followed = ctx.Queue(), ctx.Event(), ctx.Event(), ctx.Queue(), ctx.Queue()
    per_process = [writers // processes + (1 if i < writers % processes else 0) for i in range(processes)]
    # Each process writes to every table, its threads spread over them evenly (thread i → table i mod n).
    procs = [ctx.Process(target=_writer, args=(urls, variant, n, seconds, ready, start, results)) for n in per_process]
    follower = ctx.Process(target=_follower, args=(urls[0], variant == "new", ready, start, stop, followed))
    for proc in [*procs, follower]:
        proc.start()
    try:
        for _ in range(len(procs) + 1):
            ready.get(timeout=READY_SECONDS)
        load_before = _load()
        wal_before = [_wal(server) for server in servers]
        began = time.monotonic()
        start.set()
        outcomes = [results.get(timeout=seconds + 120) for _ in procs]
        elapsed = time.monotonic() - began
        wal_after = [_wal(server) for server in servers]
        stop.set()
        seen = followed.get(timeout=120)
    finally:
        # A writer that failed (no connection, say) never reports: end them all rather than leave them holding connections.
        for proc in [*procs, follower]:
            proc.join(timeout=30)
            if proc.is_alive():
                proc.terminate()
    appended = sum(o["appended"] for o in outcomes)
    syncs = sum(a[1] - b[1] for a, b in zip(wal_after, wal_before, strict=True))
    writes = sum(a[0] - b[0] for a, b in zip(wal_after, wal_before, strict=True))
    commits = sum(a[2] - b[2] for a, b in zip(wal_after, wal_before, strict=True))
    acked = [pair for o in outcomes for pair in o["acked"]]
    lags = sorted(max(0.0, seen[i] - t) * 1000 for i, t in acked if i in seen)
    missing = sum(1 for i, _ in acked if i not in seen)
    return {
        "variant": variant,
        "tables": len(urls),
        "servers": len(servers),
        "appends_per_s": appended / seconds,
        "appended": appended,
        "window_s": round(elapsed, 2),
        "wal_sync": syncs,
        "wal_write": writes,
        "commits": commits,
        "appends_per_flush": appended / syncs if syncs else None,
        "lag_ms": {
            "p50": _pct(lags, 0.50),
            "p99": _pct(lags, 0.99),
            "max": round(lags[-1], 1) if lags else None,
            "records": len(lags),
            "missing": missing,
        },
        "load_before": load_before,
        "load_after": _load(),
    }


def _pct(values: list[float], q: float) -> float | None:
    return round(values[min(len(values) - 1, int(q * len(values)))], 1) if values else None


def layouts(second_url: str | None) -> dict[str, tuple[list[str], int]]:
    """Layout name → (server URLs, tables per server)."""
    found = {"one": ([POSTGRES_URL], 1), "schemas": ([POSTGRES_URL], 4)}
    if second_url:
        found["servers"] = ([POSTGRES_URL, second_url], 1)
    return found


def run(args: argparse.Namespace) -> list[dict]:
    """Every (variant, layout) once per repetition, in an order rotated per repetition."""
    chosen = layouts(args.second_url)
    pairs = [(v, name) for name in args.layouts.split(",") for v in args.variants.split(",")]
    out = []
    for rep in range(args.repeat):
        shift = rep % len(pairs)
        for variant, name in pairs[shift:] + pairs[:shift]:
            servers, per_server = chosen[name]
            with ExitStack() as stack:
                urls = [stack.enter_context(pg_schema("bench", server))[0] for server in servers
                        for _ in range(per_server)]
                result = trial(urls, servers, variant, args.writers, args.processes, args.seconds)
            result.update(layout=name, repetition=rep + 1)
            out.append(result)
            print(json.dumps(result), flush=True)
    return out


def summary(results: list[dict]) -> list[str]:
    """Markdown rows: medians per (layout, variant), and the ratios the issue asks for."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for r in results:
        groups.setdefault((r["layout"], r["variant"]), []).append(r)
    rows = ["| layout | append path | appends/s (per repetition) | appends per WAL flush | follower lag p50 / p99 / max ms | load before → after |",
            "|---|---|---|---|---|---|"]
    medians: dict[tuple[str, str], float] = {}
    for (layout, variant), rs in groups.items():
        rates = [r["appends_per_s"] for r in rs]
        medians[(layout, variant)] = statistics.median(rates)
        flushes = [r["appends_per_flush"] for r in rs if r["appends_per_flush"]]
        lag = max(rs, key=lambda r: r["lag_ms"]["p99"] or 0)["lag_ms"]
        rows.append(
            f"| {layout} | {variant} | **{medians[(layout, variant)]:,.0f}** ({', '.join(f'{x:,.0f}' for x in rates)}) "
            f"| {statistics.median(flushes):.2f} ({', '.join(f'{x:.2f}' for x in flushes)}) "
            f"| {lag['p50']} / {lag['p99']} / {lag['max']} (worst repetition; missing {lag['missing']}) "
            f"| {'; '.join(r['load_before'].split(',')[0] + ' → ' + r['load_after'].split(',')[0] for r in rs)} |"
        )
    ratios = []
    for num, den, what in [
        (("schemas", "new"), ("one", "today"), "four schemas, new append ÷ one table, today's append"),
        (("one", "new"), ("one", "today"), "one table, new append ÷ today's"),
        (("schemas", "new"), ("schemas", "today"), "four schemas, new append ÷ today's"),
        (("servers", "new"), ("one", "new"), "two servers ÷ one, new append"),
        (("servers", "today"), ("one", "today"), "two servers ÷ one, today's append"),
    ]:
        if num in medians and den in medians:
            ratios.append(f"- {what}: **{medians[num] / medians[den]:.2f}×**")
    return rows + [""] + ratios


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writers", type=int, default=40)
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--variants", default="today,new")
    parser.add_argument("--layouts", default="one,schemas")
    parser.add_argument("--second-url", default=os.environ.get("GAMBIT_BENCH_SECOND_POSTGRES_URL"))
    parser.add_argument("--json", help="write every trial's result to this file")
    args = parser.parse_args(argv)
    if "servers" in args.layouts and not args.second_url:
        parser.error("the `servers` layout needs --second-url (a second PostgreSQL server)")
    print(f"load before: {_load()}", flush=True)
    results = run(args)
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(results, handle, indent=1)
    print("\n".join(summary(results)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
