"""`python -m bench.run [--quick] [--label NAME] [--backends sqlite,postgres]`: run every benchmark, write the report.

Per backend (SQLite file, PostgreSQL schema — each fresh, removed afterwards):
1. throughput: the service (`gambit serve`, deploy/gunicorn.conf.py) and the baseline
   (bench/baseline_app.py, same gunicorn settings) each loaded by bots in a separate process
   (bench/loadgen.py), alternating, `reps` times; the median run is reported. Also the service
   with PYTHONOPTIMIZE=1 (`python -O`) as a deployment option.
2. cost vs match length: one synthetic dragons-gambit match grown to 100, 1,000 and 10,000
   events (bench/longmatch.py); at each length, sequential POST /commands and GET view?at=
   latencies (median of the samples).
3. replay: GET /replay pages over the long match (frames/s); `gambit export` of it as the
   organizer, then `gambit verify` on the file (events/s).
4. scale: matches and events in the store after the load, bytes per event; and the append
   ceiling of the bare library with 1, 2 and 4 writer processes.
Results go to bench/results/<label>.json; bench/report.py turns them into docs/benchmarks.md,
docs/benchmarks.png and the table printed at the end.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import random
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from urllib.parse import urlparse

from bench import report
from bench.ceiling import append_ceiling
from bench.longmatch import LongMatch
from bench.servers import ROOT, serve
from bench.stores import pg_connect, store_bytes, store_url

RESULTS = os.path.join(ROOT, "bench", "results")
LENGTHS = (100, 1000, 10000)

FULL = {"reps": 3, "duration": 10.0, "warmup": 2.0, "bots": 16, "samples": 30, "replay_frames": 10000,
        "ceiling_seconds": 4.0, "ceiling_processes": (1, 2, 4), "optimize_variant": True}
QUICK = {"reps": 1, "duration": 5.0, "warmup": 1.5, "bots": 16, "samples": 10, "replay_frames": 2000,
         "ceiling_seconds": 2.0, "ceiling_processes": (1, 4), "optimize_variant": False}


def log(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# ----- machine ------------------------------------------------------------------------------

def machine() -> dict:
    mem_kb = 0
    with open("/proc/meminfo") as handle:
        for line in handle:
            if line.startswith("MemTotal:"):
                mem_kb = int(line.split()[1])
    cpu = ""
    with open("/proc/cpuinfo") as handle:
        for line in handle:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    try:
        with pg_connect() as conn:
            pg = conn.execute("SHOW server_version").fetchone()[0]
    except Exception as exc:  # reported, not fatal
        pg = f"unavailable ({exc})"
    import eventsourcing
    import gunicorn

    return {"nproc": os.cpu_count(), "cpu": cpu, "memory_gib": round(mem_kb / 1024 / 1024, 1),
            "python": platform.python_version(), "sqlite": sqlite3.sqlite_version, "postgresql": pg,
            "eventsourcing": getattr(eventsourcing, "__version__", "9.5.6"),
            "gunicorn": gunicorn.__version__, "os": platform.platform()}


def loadavg() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


# ----- HTTP helpers ---------------------------------------------------------------------------

class Client:
    """One keep-alive connection for sequential measurements."""

    def __init__(self, base: str) -> None:
        parsed = urlparse(base)
        self.host, self.port = parsed.hostname, parsed.port
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=120)

    def call(self, method: str, path: str, body: dict | None = None, token: str | None = None) -> tuple[int, object, float]:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        for attempt in (1, 2):
            started = time.perf_counter()
            try:
                self.conn.request(method, path, body=None if body is None else json.dumps(body).encode(),
                                  headers=headers)
                response = self.conn.getresponse()
                raw = response.read()
                break
            except (http.client.HTTPException, OSError):
                # gunicorn closed the idle keep-alive connection (keepalive = 5 s): reconnect once.
                self.conn.close()
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=120)
                if attempt == 2:
                    raise
        elapsed = time.perf_counter() - started
        return response.status, json.loads(raw) if raw and raw[:1] in b"{[" else raw, elapsed

    def close(self) -> None:
        self.conn.close()


# ----- 1. throughput ------------------------------------------------------------------------

def loadgen(base: str, kind: str, cfg: dict, seed: int) -> dict:
    out = subprocess.run([sys.executable, "-m", "bench.loadgen", "--base", base, "--kind", kind, "--bots",
                          str(cfg["bots"]), "--duration", str(cfg["duration"]), "--warmup", str(cfg["warmup"]),
                          "--seed", str(seed)], cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def median_run(runs: list[dict]) -> dict:
    """The run with the median command throughput (its latencies go with it), plus every run's figure."""
    ordered = sorted(runs, key=lambda r: r["commands_per_s"])
    chosen = dict(ordered[len(ordered) // 2])
    chosen["runs_commands_per_s"] = [round(r["commands_per_s"], 1) for r in runs]
    chosen["runs_errors"] = [r["errors"] for r in runs]
    chosen["runs_error_bodies"] = [r.get("error_bodies", {}) for r in runs]
    return chosen


def throughput(backend: str, tmp: str, cfg: dict, gambit_url: str) -> dict:
    """Service, baseline (and service under -O) alternately, each on its own running server.

    One server runs at a time: each gunicorn worker holds a pool of store connections, and
    three servers at once exhaust PostgreSQL's max_connections on a shared box.
    """
    variants = [("gambit", False), ("baseline", False)] + ([("gambit", True)] if cfg["optimize_variant"] else [])
    runs: dict[str, list[dict]] = {}
    with store_url(backend, tmp) as base_url:
        baseline_url = base_url.replace("gambit.sqlite3", "baseline.sqlite3")
        for rep in range(cfg["reps"]):
            order = variants if rep % 2 == 0 else list(reversed(variants))
            for kind, optimize in order:
                name = kind + ("-O" if optimize else "")
                url = gambit_url if kind == "gambit" else baseline_url
                with serve(kind, url, os.path.join(tmp, "data" if kind == "gambit" else "data-baseline"),
                           optimize) as base:
                    result = loadgen(base, kind, cfg, seed=rep + 1)
                runs.setdefault(name, []).append(result)
                log(f"{backend} {name} rep {rep + 1}: {result['commands_per_s']:.1f} commands/s, "
                    f"p50 {result['ops']['command']['p50_ms']} ms, errors {result['errors']}")
        out = {name: median_run(rs) for name, rs in runs.items()}
        # Each repetition ran the service and the baseline back to back: its ratio is the
        # robust figure on a shared machine; the headline is their median (report.ratio).
        out["ratio_runs"] = [round(g["commands_per_s"] / b["commands_per_s"], 3)
                             for g, b in zip(runs["gambit"], runs["baseline"])]
        out["ratio"] = report.ratio(out)
        if "gambit-O" in out:
            out["ratio_O"] = report.ratio(out, "gambit-O")
    return out


# ----- 2./3. long matches, replay, verify -----------------------------------------------------

def long_match(base: str, database_url: str, tmp: str, cfg: dict) -> dict:
    """Three matches of 100, 1,000 and 10,000 events, sampled in turn (so a busy moment on the
    shared machine hits every length alike); then replay and verify over the longest."""
    client = Client(base)
    rng = random.Random(3)
    longs = {}
    out: dict = {"lengths": {}}
    try:
        for length in LENGTHS:
            longs[length] = LongMatch(database_url, seed=length)
            grow = longs[length].grow_to(length)
            out["lengths"][str(length)] = {"events": longs[length].version, "grow_s": round(grow, 2),
                                           "snapshot": longs[length].snapshot_bytes()}
        commands: dict[int, list[float]] = {n: [] for n in LENGTHS}
        views: dict[int, list[float]] = {n: [] for n in LENGTHS}
        for _ in range(cfg["samples"]):
            for length, long in longs.items():
                mid = long.match_id
                status, summary, _ = client.call("GET", f"/matches/{mid}")
                seat = rng.choice(summary["to_act"])
                status, legal, _ = client.call("GET", f"/matches/{mid}/legal-commands", token=long.tokens[seat])
                status, body, elapsed = client.call("POST", f"/matches/{mid}/commands", rng.choice(legal["commands"]),
                                                    token=long.tokens[seat])
                assert status == 201, body
                commands[length].append(elapsed)
                at = rng.randint(1, out["lengths"][str(length)]["events"])
                status, body, elapsed = client.call("GET", f"/matches/{mid}/view?at={at}")
                assert status == 200, body
                views[length].append(elapsed)
        for length in LENGTHS:
            c, v = sorted(commands[length]), sorted(views[length])
            out["lengths"][str(length)].update(
                command_p50_ms=round(statistics.median(c) * 1000, 2), command_p95_ms=round(c[int(0.95 * (len(c) - 1))] * 1000, 2),
                view_at_p50_ms=round(statistics.median(v) * 1000, 2), view_at_p95_ms=round(v[int(0.95 * (len(v) - 1))] * 1000, 2))
            log(f"  length {length}: {out['lengths'][str(length)]}")
        first, last = out["lengths"][str(LENGTHS[0])], out["lengths"][str(LENGTHS[-1])]
        out["command_ratio"] = last["command_p50_ms"] / first["command_p50_ms"]
        out["view_ratio"] = last["view_at_p50_ms"] / first["view_at_p50_ms"]
        long = longs[LENGTHS[-1]]
        mid = out["match_id"] = long.match_id
        # Replay: page through /replay (500 frames a page) as a spectator.
        version = long.version
        upto = min(version, cfg["replay_frames"])
        passes = []
        for _ in range(3 if cfg["reps"] > 1 else 1):
            frames, start, started = 0, 1, time.perf_counter()
            while start is not None and start <= upto:
                status, body, _ = client.call("GET", f"/matches/{mid}/replay?from={start}&to={upto}")
                assert status == 200, body
                frames += len(body["frames"])
                start = body["next_from"]
            passes.append(frames / (time.perf_counter() - started))
        out["replay"] = {"frames": upto, "frames_per_s": round(statistics.median(passes), 1),
                         "passes": [round(p, 1) for p in passes]}
        log(f"  replay: {out['replay']}")
        # Export (organizer form, every secret) and verify offline with the CLI.
        export = os.path.join(tmp, "long-export.ndjson")
        env = {**os.environ, "GAMBIT_DATABASE_URL": database_url, "GAMBIT_DATA_DIR": os.path.join(tmp, "data")}
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "service.cli", "export", mid, "--as", "organizer", "-o", export],
                       cwd=ROOT, env=env, check=True, capture_output=True)
        export_s = time.perf_counter() - started
        with open(export) as handle:
            records = sum(1 for _ in handle) - 1
        verify_runs = []
        for _ in range(3 if cfg["reps"] > 1 else 1):
            started = time.perf_counter()
            done = subprocess.run([sys.executable, "-m", "service.cli", "verify", export], cwd=ROOT, env=env,
                                  capture_output=True, text=True)
            verify_runs.append(time.perf_counter() - started)
        out["verify"] = {"records": records, "export_s": round(export_s, 2),
                         "seconds": round(statistics.median(verify_runs), 2),
                         "events_per_s": round(records / statistics.median(verify_runs), 1),
                         "exit_code": done.returncode, "verdict": done.stdout.splitlines()[0] if done.stdout else ""}
        log(f"  verify: {out['verify']}")
    finally:
        client.close()
        for long in longs.values():
            long.close()
    return out


# ----- 4. scale -------------------------------------------------------------------------------

def store_counts(backend: str, url: str) -> dict:
    if backend == "sqlite":
        conn = sqlite3.connect(url[len("sqlite:///"):])
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        events_table = next(t for t in tables if t.endswith("_events") and "snapshot" not in t)
        events = conn.execute(f"SELECT count(*) FROM {events_table}").fetchone()[0]
        matches = conn.execute(f"SELECT count(*) FROM {events_table} WHERE topic = 'gambit:Match.Created'").fetchone()[0]
        conn.close()
    else:
        schema = url.split("schema=")[1].split("&")[0]
        with pg_connect() as conn:
            events = conn.execute(f'SELECT count(*) FROM "{schema}".gambit_events').fetchone()[0]
            matches = conn.execute(f"SELECT count(*) FROM \"{schema}\".gambit_events WHERE topic = 'gambit:Match.Created'").fetchone()[0]
    size = store_bytes(backend, url)
    return {"matches": matches, "events": events, "store_bytes": size,
            "bytes_per_event": round(size / events, 1) if events else None}


def run_backend(backend: str, cfg: dict) -> dict:
    log(f"== {backend}")
    with tempfile.TemporaryDirectory(prefix=f"gambit-bench-{backend}-") as tmp, store_url(backend, tmp) as url:
        result: dict = {}
        result["throughput"] = throughput(backend, tmp, cfg, url)
        result["scale"] = store_counts(backend, url)
        result["scale"]["concurrent_matches"] = cfg["bots"]
        log(f"  scale: {result['scale']}")
        with serve("gambit", url, os.path.join(tmp, "data")) as base:
            result["long"] = long_match(base, url, tmp, cfg)
        result["scale_after_long"] = store_counts(backend, url)
        ceilings = {}
        with store_url(backend, tmp) as ceiling_url:
            ceiling_url = ceiling_url.replace("gambit.sqlite3", "ceiling.sqlite3")
            for processes in cfg["ceiling_processes"]:
                ceilings[str(processes)] = round(append_ceiling(ceiling_url, processes, cfg["ceiling_seconds"]), 1)
                log(f"  append ceiling, {processes} writer(s): {ceilings[str(processes)]} events/s")
        result["append_ceiling"] = ceilings
        return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.run")
    parser.add_argument("--quick", action="store_true",
                        help="one short repetition of everything (< 2 minutes); prints the table, leaves docs/ alone")
    parser.add_argument("--label", default=None, help="results name (default: quick or full)")
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--no-report", action="store_true", help="write only bench/results/<label>.json")
    args = parser.parse_args(argv)
    # A SIGTERM unwinds like an exception, so every server this run started is stopped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    cfg = dict(QUICK if args.quick else FULL)
    label = args.label or ("quick" if args.quick else "full")
    started = time.time()
    results = {"label": label, "quick": args.quick, "config": {k: list(v) if isinstance(v, tuple) else v
                                                                for k, v in cfg.items()},
               "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "machine": machine(),
               "load_start": loadavg(), "backends": {}}
    for backend in args.backends.split(","):
        results["backends"][backend] = run_backend(backend, cfg)
    if not args.quick:
        from bench.what_if import what_if

        log("what-if: in-process cost of one command under proposed changes (SQLite)")
        results["what_if"] = what_if()
        log(f"  {json.dumps(results['what_if']['variants'])}")
    results["load_end"] = loadavg()
    results["elapsed_s"] = round(time.time() - started, 1)
    os.makedirs(RESULTS, exist_ok=True)
    path = os.path.join(RESULTS, f"{label}.json")
    with open(path, "w") as handle:
        json.dump(results, handle, indent=1)
    log(f"results in {os.path.relpath(path, ROOT)} ({results['elapsed_s']} s)")
    if not args.no_report and not args.quick:
        report.write(results)  # a --quick run prints its table but leaves docs/ to the full run
    print(report.table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
