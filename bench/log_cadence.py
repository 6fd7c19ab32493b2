"""How often the transparency log signs a new checkpoint under load (issue 33): `python -m bench.log_cadence`.

The requirement: `gambit serve` alone integrates new leaves and signs a checkpoint at least every second under load.
Each variant runs `gambit serve` as deployed (deploy/gunicorn.conf.py: gevent, 4 workers) on a fresh PostgreSQL
schema under `bench.loadgen` bots, and samples from outside, `--every` seconds:

- the store: the log's size and position (the row `GET /log/checkpoint` is served from, written in the same
  transaction as the checkpoint) and the newest record stored (its notification id), in one round trip;
- `GET /log/checkpoint` over HTTP (through the loaded server, so its own latency adds to what it shows).

Within the load's measurement window it reports the gaps between successive new checkpoints (p50 / p99 / max, from
the store's samples; the HTTP samples' max beside them), how far the log lags the stored records (records not yet
integrated, p50 / max) and the merge delay (for each sample, the time until the log's position reached the newest
record stored at it: how long an acknowledged write waited to be in a signed checkpoint, p50 / p99 / max), with the
load average before and after. The leader keeps the clocks too: `--timed` matches with a one-second decision clock
are created during the load and left alone, and each expiry's lateness (its record's timestamp minus its deadline,
read from the store afterwards) is shown beside (p50 / max; the target is within a second). Variants: `service` (this tree as deployed), `workers-lead` (this tree with
`GAMBIT_LEAD_PROCESS=off`: the leader's duties in a serving worker, as before the dedicated process) and `before`
(another source tree, `--before-tree`, as deployed there), rotated each repetition.
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from urllib.parse import urlparse

from bench.servers import ROOT, serve, server_pid
from bench.stores import pg_connect, store_url

VARIANTS = {"service": {}, "workers-lead": {"GAMBIT_LEAD_PROCESS": "off"}}


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def _events_table(conn, schema: str) -> str:
    """The event store's table (the one numbering records by notification id) in a PostgreSQL schema."""
    rows = conn.execute(
        "SELECT table_name FROM information_schema.columns WHERE table_schema = %s AND column_name = 'notification_id'",
        (schema,)).fetchall()
    names = sorted(row[0] for row in rows if "snapshot" not in row[0])
    if not names:
        raise RuntimeError(f"no event table in schema {schema}")
    return names[0]


class StoreSampler(threading.Thread):
    """Samples (monotonic time, log size, log position, newest record) from the store every `every` seconds."""

    def __init__(self, url: str, every: float) -> None:
        super().__init__(daemon=True)
        self.url, self.every = url, every
        self.samples: list[tuple[float, int, int, int]] = []
        self.stop = threading.Event()

    def run(self) -> None:
        schema = self.url.split("schema=")[1].split("&")[0]
        conn = pg_connect()
        conn.execute(f'SET search_path TO "{schema}"')
        table = _events_table(conn, schema)
        query = (f"SELECT size, position, (SELECT coalesce(max(notification_id), 0) FROM \"{table}\")"
                 " FROM gambit_log_state WHERE name = 'default'")
        while not self.stop.is_set():
            started = time.monotonic()
            try:
                row = conn.execute(query).fetchone()
                if row is not None:
                    self.samples.append((started, int(row[0]), int(row[1]), int(row[2])))
            except Exception as error:  # noqa: BLE001 - a sample missed is reported by its absence
                print(f"[log_cadence] store sample failed: {error}", file=sys.stderr)
            self.stop.wait(max(0.0, self.every - (time.monotonic() - started)))
        conn.close()


class HttpSampler(threading.Thread):
    """Samples (monotonic time at the request, checkpoint size) from `GET /log/checkpoint` every `every` seconds."""

    def __init__(self, base: str, every: float) -> None:
        super().__init__(daemon=True)
        parsed = urlparse(base)
        self.host, self.port, self.every = parsed.hostname, parsed.port, every
        self.samples: list[tuple[float, int]] = []
        self.stop = threading.Event()

    def run(self) -> None:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=10)
        while not self.stop.is_set():
            started = time.monotonic()
            try:
                conn.request("GET", "/log/checkpoint")
                response = conn.getresponse()
                body = response.read().decode()
                if response.status == 200:
                    self.samples.append((started, int(body.split("\n")[1])))
            except Exception:  # noqa: BLE001 - reconnect and go on
                conn.close()
                conn = http.client.HTTPConnection(self.host, self.port, timeout=10)
            self.stop.wait(max(0.0, self.every - (time.monotonic() - started)))
        conn.close()


class TimedMatches(threading.Thread):
    """After `delay` seconds, creates `count` matches with a one-second decision clock and joins both seats, one after
    another; nobody touches them again, so each expiry is the leader's clock keeper's to record."""

    def __init__(self, base: str, count: int, delay: float) -> None:
        super().__init__(daemon=True)
        parsed = urlparse(base)
        self.host, self.port, self.count, self.delay = parsed.hostname, parsed.port, count, delay
        self.match_ids: list[str] = []
        self.last_joined = 0.0

    def _post(self, conn: http.client.HTTPConnection, path: str, body: dict) -> dict:
        conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
        response = conn.getresponse()
        answer = json.loads(response.read())
        if response.status != 201:
            raise RuntimeError(f"{path}: {response.status} {answer}")
        return answer

    def run(self) -> None:
        time.sleep(self.delay)
        conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
        config = {"players": 2, "time_control": {"kind": "per_decision", "per_decision_s": 1}}
        for _ in range(self.count):
            match_id = self._post(conn, "/matches", {"ruleset": "gambitz", "config": config})["match_id"]
            for name in ("ann", "bob"):
                self._post(conn, f"/matches/{match_id}/seats", {"name": name})
            self.match_ids.append(match_id)
            self.last_joined = time.monotonic()
        conn.close()


def _clock_lateness(url: str, data_dir: str, match_ids: list[str]) -> list[float]:
    """Seconds from each timed match's deadline to its recorded expiry (read from the store, not through the server)."""
    from bench.clock_lateness import _lateness
    from service.app import build_gambit
    from service.settings import Settings

    gambit = build_gambit(Settings(database_url=url, data_dir=data_dir))
    try:
        return _lateness(gambit, match_ids)
    finally:
        gambit.close()


def _changes(samples: list[tuple[float, int]], start: float, end: float) -> list[float]:
    """The times at which a sample first showed a new size, within [start, end] (the first change before counts)."""
    times, last = [], None
    for at, size in samples:
        if last is not None and size != last and at <= end:
            times.append(at)
        last = size
    before = [t for t in times if t < start]
    return ([before[-1]] if before else []) + [t for t in times if t >= start]


def _gaps(times: list[float]) -> list[float]:
    return [b - a for a, b in itertools.pairwise(times)]


def _merge_delays(samples: list[tuple[float, int, int, int]], start: float, end: float) -> list[float]:
    """For each sample in the window: seconds until the log's position reached the newest record stored then."""
    delays = []
    for i, (at, _size, _position, head) in enumerate(samples):
        if not start <= at <= end:
            continue
        for later_at, _s, later_position, _h in samples[i:]:
            if later_position >= head:
                delays.append(later_at - at)
                break
    return delays


def one_run(name: str, env: dict, root: str | None, args: argparse.Namespace, seed: int) -> dict:
    """One variant on a fresh store and server: the checkpoint's cadence and the log's lag under the bot load."""
    with (tempfile.TemporaryDirectory(prefix="gambit-cadence-") as tmp, store_url("postgres", tmp) as url,
          serve("gambit", url, os.path.join(tmp, "data"), extra_env=env, root=root) as base):
        store, http_ = StoreSampler(url, args.every), HttpSampler(base, args.every * 2)
        timed = TimedMatches(base, args.timed, args.warmup + 2.0)
        store.start()
        http_.start()
        timed.start()
        command = [sys.executable, "-m", "bench.loadgen", "--base", base, "--kind", "gambit", "--bots", str(args.bots),
                   "--duration", str(args.duration), "--warmup", str(args.warmup), "--seed", str(seed)]
        pid = server_pid(base)
        if pid is not None:
            command += ["--cpu-of", str(pid)]
        load_before = round(os.getloadavg()[0], 2)
        started = time.monotonic()
        out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
        ended = time.monotonic()
        load_after = round(os.getloadavg()[0], 2)
        time.sleep(1.0)
        store.stop.set()
        http_.stop.set()
        store.join()
        http_.join()
        timed.join(timeout=60)
        # Every deadline has passed by more than the target's second when the store is read: an expiry missing then
        # is one the keeper was over a second late for (the slowest creations may come after the load's end).
        time.sleep(max(0.0, timed.last_joined + 1.0 + 1.5 - time.monotonic()))
        late = _clock_lateness(url, os.path.join(tmp, "data"), timed.match_ids)
    result = json.loads(out.stdout)
    # The window as the load generator counts it: after the warm-up, `duration` long, ending when it stopped.
    end = ended
    start = max(started + args.warmup, end - args.duration)
    checkpoints = _changes([(at, size) for at, size, _p, _h in store.samples], start, end)
    gaps = _gaps(checkpoints)
    http_gaps = _gaps(_changes(http_.samples, start, end))
    window = [s for s in store.samples if start <= s[0] <= end]
    behind = [head - position for _at, _size, position, head in window]
    delays = _merge_delays(store.samples, start, end)
    return {
        "variant": name, "commands_per_s": round(result["commands_per_s"], 1),
        "commands_per_cpu_s": result.get("commands_per_cpu_s"), "errors": result["errors"],
        "load": [load_before, load_after], "window_s": round(end - start, 1), "store_samples": len(window),
        "checkpoints": len(checkpoints),
        "gap_s": {"p50": round(_pct(gaps, 0.5), 2), "p99": round(_pct(gaps, 0.99), 2),
                  "max": round(max(gaps, default=float("nan")), 2)},
        "http_gap_max_s": round(max(http_gaps, default=float("nan")), 2), "http_samples": len(http_.samples),
        "records_behind": {"p50": statistics.median(behind) if behind else None, "max": max(behind, default=None)},
        "merge_delay_s": {"p50": round(_pct(delays, 0.5), 2), "p99": round(_pct(delays, 0.99), 2),
                          "max": round(max(delays, default=float("nan")), 2)},
        "log_size_end": store.samples[-1][1] if store.samples else None,
        "timed_matches": len(timed.match_ids), "expiries_recorded": len(late),
        "expiry_lateness_s": {"p50": round(_pct(late, 0.5), 2), "max": round(max(late, default=float("nan")), 2)},
    }


def main() -> None:
    """Run the variants, rotated, and print one JSON object per run and a summary."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variants", default="service", help="comma-separated: service, workers-lead, before")
    parser.add_argument("--before-tree", default=None, help="the source tree the `before` variant serves")
    parser.add_argument("--bots", type=int, default=32)
    parser.add_argument("--duration", type=float, default=15)
    parser.add_argument("--warmup", type=float, default=3)
    parser.add_argument("--every", type=float, default=0.1, help="seconds between the store's samples")
    parser.add_argument("--reps", type=int, default=1)
    parser.add_argument("--timed", type=int, default=20,
                        help="matches with a 1-s decision clock created during the load, whose expiries' lateness is shown")
    args = parser.parse_args()
    names = [v.strip() for v in args.variants.split(",") if v.strip()]
    print(f"# started {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}, load {os.getloadavg()}", flush=True)
    for rep in range(args.reps):
        order = names[rep % len(names):] + names[:rep % len(names)]
        for name in order:
            if name == "before":
                if not args.before_tree:
                    parser.error("the before variant needs --before-tree")
                env, root = {}, args.before_tree
            else:
                env, root = VARIANTS[name], None
            print(json.dumps(one_run(name, env, root, args, seed=rep + 1)), flush=True)
    print(f"# ended {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}, load {os.getloadavg()}", flush=True)


if __name__ == "__main__":
    main()
