"""`python -m bench.run [--quick] [--label NAME] [--backends sqlite,postgres]`: run every benchmark, write the report.

Per backend (SQLite file, PostgreSQL schema — each fresh, removed afterwards):
1. throughput: the service (`gambit serve`, deploy/gunicorn.conf.py) and two baselines
   (bench/baseline_app.py, same gunicorn settings: the bare library, and the library
   snapshotting every 50 versions as the service does) each loaded by bots in a separate process
   (bench/loadgen.py), alternating, `reps` times; each repetition's ratios, and their median.
2. p99 at human pace: 200 gambitz matches played at human pace (bench/loadgen.py `human`), the
   matches set up before the clock starts; p99 / p50 of POST /commands per repetition.
3. cost vs match length: dragons-gambit matches grown to 100, 1,000 and 10,000 records
   (bench/longmatch.py); sequential POST /commands and GET view?at= in turn over the three, in
   `reps` rounds; each round's 10,000 / 100 ratio of medians, and their median.
4. replay and verify: GET /replay pages over the long match (frames/s); `gambit export` as the
   organizer at 1,000, 10,000 and (full mode) 100,000 records, then `gambit verify` of each file
   against `json.loads` of its lines (bench/verify_cost.py splits where the time goes).
5. snapshot size: every ruleset grown at random through the domain to 10,000 records (as one
   match, or a chain of matches for the games that end first); the snapshot at 100 and at
   10,000 records.
6. scale: matches and events in the store after the load, bytes per event; and the append
   ceiling of the bare library with 1, 2 and 4 writer processes.
Every target's measurement records the load average (os.getloadavg) before and after it.
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
from typing import Self
from urllib.parse import urlparse

from bench import report
from bench.ceiling import append_ceiling
from bench.longmatch import LONG_CONFIGS, LongMatch, service_app, snapshot_growth
from bench.servers import ROOT, serve
from bench.stores import pg_connect, store_bytes, store_url

RESULTS = os.path.join(ROOT, "bench", "results")
LENGTHS = (100, 1000, 10000)

# Five repetitions: on this shared machine the bare baseline alone moved 225-381 appends/s within
# one run, and a median of three was decided by one noisy pair.
FULL = {"reps": 5, "duration": 10.0, "warmup": 2.0, "bots": 16, "samples": 20, "replay_frames": 10000,
        "human_matches": 200, "human_think": (1.5, 4.5), "human_duration": 30.0, "human_warmup": 6.0,
        "verify_long": 100000, "verify_long_budget_s": 180.0, "snapshot_marks": (100, 10000),
        "ceiling_seconds": 4.0, "ceiling_processes": (1, 2, 4), "optimize_variant": False}
QUICK = {"reps": 1, "duration": 5.0, "warmup": 1.5, "bots": 16, "samples": 10, "replay_frames": 2000,
         "human_matches": 200, "human_think": (1.5, 4.5), "human_duration": 12.0, "human_warmup": 6.0,
         "verify_long": None, "verify_long_budget_s": 0.0, "snapshot_marks": (100, 2000),
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
    except Exception as exc:  # noqa: BLE001 - reported, not fatal
        pg = f"unavailable ({exc})"
    import eventsourcing
    import gunicorn

    from bench.servers import gunicorn_settings

    return {"nproc": os.cpu_count(), "cpu": cpu, "memory_gib": round(mem_kb / 1024 / 1024, 1),
            "python": platform.python_version(), "sqlite": sqlite3.sqlite_version, "postgresql": pg,
            "eventsourcing": getattr(eventsourcing, "__version__", "9.5.6"),
            "gunicorn": gunicorn.__version__, "gunicorn_settings": gunicorn_settings(), "os": platform.platform()}


def loadavg() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


class Measured:
    """`with Measured(out):` records the 1-minute load average before and after, and the seconds taken."""

    def __init__(self, out: dict) -> None:
        self.out = out

    def __enter__(self) -> dict:
        self.started = time.perf_counter()
        self.out["load"] = [loadavg()[0]]
        return self.out

    def __exit__(self, *exc) -> None:
        self.out["load"].append(loadavg()[0])
        self.out["seconds"] = round(time.perf_counter() - self.started, 1)


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


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

def loadgen(base: str, kind: str, cfg: dict, seed: int, **extra) -> dict:
    command = [sys.executable, "-m", "bench.loadgen", "--base", base, "--kind", kind, "--bots", str(cfg["bots"]),
               "--duration", str(cfg["duration"]), "--warmup", str(cfg["warmup"]), "--seed", str(seed)]
    for key, value in extra.items():
        command += [f"--{key}", str(value)]
    out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
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
    """The service and both baselines (and, if asked, the service under -O) alternately, each on its
    own running server; each repetition runs them back to back, so its ratios are the robust figure.

    One server runs at a time: each gunicorn worker holds a pool of store connections, and
    several servers at once exhaust PostgreSQL's max_connections on a shared box.
    """
    variants = [("gambit", False), ("baseline", False), ("baseline-snap", False)]
    if cfg["optimize_variant"]:
        variants.append(("gambit", True))
    runs: dict[str, list[dict]] = {}
    out: dict = {}
    with Measured(out), store_url(backend, tmp) as base_url:
        urls = {"gambit": gambit_url, "baseline": base_url.replace("gambit.sqlite3", "baseline.sqlite3"),
                "baseline-snap": base_url.replace("gambit.sqlite3", "baselinesnap.sqlite3")}
        for rep in range(cfg["reps"]):
            order = variants if rep % 2 == 0 else list(reversed(variants))
            for kind, optimize in order:
                name = kind + ("-O" if optimize else "")
                with serve(kind, urls[kind], os.path.join(tmp, "data" if kind == "gambit" else f"data-{kind}"),
                           optimize) as base:
                    result = loadgen(base, "gambit" if kind == "gambit" else "baseline", cfg, seed=rep + 1)
                runs.setdefault(name, []).append(result)
                log(f"{backend} {name} rep {rep + 1}: {result['commands_per_s']:.1f} commands/s, "
                    f"p50 {result['ops']['command']['p50_ms']} ms, errors {result['errors']}")
        out.update({name: median_run(rs) for name, rs in runs.items()})
        # The headline ratios are the medians of the repetitions' ratios (report.ratio).
        out["ratio_runs"] = [round(g["commands_per_s"] / b["commands_per_s"], 3)
                             for g, b in zip(runs["gambit"], runs["baseline"])]
        out["ratio_snap_runs"] = [round(g["commands_per_s"] / b["commands_per_s"], 3)
                                  for g, b in zip(runs["gambit"], runs["baseline-snap"])]
        out["ratio"] = report.ratio(out)
        out["ratio_snap"] = report.ratio(out, against="baseline-snap")
        if "gambit-O" in out:
            out["ratio_O"] = report.ratio(out, "gambit-O")
    return out


# ----- 2. p99 at human pace -------------------------------------------------------------------

class PgActivity:
    """Samples pg_stat_activity for this run's schema every 0.25 s (in a thread): sessions waiting
    on a lock, idle in a transaction, active; and the statements most often waited on."""

    def __init__(self, schema: str) -> None:
        import threading

        self.schema = schema
        self.samples: list[tuple[int, int, int]] = []
        self.waiting: dict[str, int] = {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        try:
            with pg_connect() as conn:
                while not self.stop.wait(0.25):
                    rows = conn.execute(
                        "SELECT state, wait_event_type, left(regexp_replace(query, '\\s+', ' ', 'g'), 90) "
                        "FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() "
                        "AND query LIKE %s", (f"%{self.schema}%",)).fetchall()
                    lock = sum(1 for r in rows if r[1] == "Lock")
                    idle_tx = sum(1 for r in rows if r[0] and r[0].startswith("idle in transaction"))
                    active = sum(1 for r in rows if r[0] == "active")
                    self.samples.append((lock, idle_tx, active))
                    for r in rows:
                        if r[1] == "Lock":
                            key = r[2].replace(f'"{self.schema}".', "").replace(f"{self.schema}.", "")
                            self.waiting[key] = self.waiting.get(key, 0) + 1
        except Exception as exc:  # noqa: BLE001 - a diagnostic: never fails the run
            log(f"  pg_stat_activity sampler stopped: {exc}")

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join(timeout=5)

    def summary(self) -> dict:
        if not self.samples:
            return {}
        n = len(self.samples)
        return {"samples": n,
                "waiting_on_lock_mean": round(sum(s[0] for s in self.samples) / n, 2),
                "waiting_on_lock_max": max(s[0] for s in self.samples),
                "idle_in_transaction_mean": round(sum(s[1] for s in self.samples) / n, 2),
                "idle_in_transaction_max": max(s[1] for s in self.samples),
                "active_mean": round(sum(s[2] for s in self.samples) / n, 2),
                "waited_statements": dict(sorted(self.waiting.items(), key=lambda kv: -kv[1])[:3])}


def human_pace(backend: str, url: str, tmp: str, cfg: dict) -> dict:
    """200 matches at human pace; p99 / p50 of command latency per repetition (one server for all)."""
    out: dict = {"matches": cfg["human_matches"], "think_s": list(cfg["human_think"]),
                 "duration_s": cfg["human_duration"], "warmup_s": cfg["human_warmup"], "runs": []}
    schema = url.split("schema=")[1].split("&")[0] if backend == "postgres" else None
    with Measured(out), serve("gambit", url, os.path.join(tmp, "data")) as base:
        for rep in range(cfg["reps"]):
            shape = {**cfg, "bots": cfg["human_matches"], "duration": cfg["human_duration"],
                     "warmup": cfg["human_warmup"]}
            think = ",".join(str(x) for x in cfg["human_think"])
            if schema:
                with PgActivity(schema) as activity:
                    result = loadgen(base, "human", shape, seed=100 + rep, think=think)
                result["pg_activity"] = activity.summary()
            else:
                result = loadgen(base, "human", shape, seed=100 + rep, think=think)
            command = result["ops"]["command"]
            result["p99_over_p50"] = round(command["p99_ms"] / command["p50_ms"], 2) if command["p50_ms"] else None
            out["runs"].append(result)
            log(f"{backend} human pace rep {rep + 1}: {command['count']} commands "
                f"({command['per_s']:.0f}/s), p50 {command['p50_ms']} ms, p99 {command['p99_ms']} ms, "
                f"p99/p50 {result['p99_over_p50']}, set-up {result.get('setup_s')} s, errors {result['errors']}"
                + (f", pg {result['pg_activity']}" if result.get("pg_activity") else ""))
    out["ratio_runs"] = [r["p99_over_p50"] for r in out["runs"]]
    out["ratio"] = median([r for r in out["ratio_runs"] if r is not None])
    return out


# ----- 3./4. long matches, replay, verify -----------------------------------------------------

def _pctl(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[int(q * (len(ordered) - 1))]


def long_match(base: str, database_url: str, tmp: str, cfg: dict) -> dict:
    """Three matches of 100, 1,000 and 10,000 records, sampled in turn (so a busy moment on the
    shared machine hits every length alike), in `reps` rounds; then replay over the longest, and
    export + verify at each length (and, in full mode, of the longest grown to 100,000)."""
    client = Client(base)
    rng = random.Random(3)
    data_dir = os.path.join(tmp, "data")
    app = service_app(database_url, data_dir)
    longs: dict[int, LongMatch] = {}
    out: dict = {"lengths": {}, "rounds": []}
    try:
        for length in LENGTHS:
            longs[length] = LongMatch(database_url, data_dir, seed=length, app=app)
            grow = longs[length].grow_to(length)
            out["lengths"][str(length)] = {"events": longs[length].version, "grow_s": round(grow, 2),
                                           "snapshot": longs[length].snapshot_bytes()}
        commands: dict[int, list[float]] = {n: [] for n in LENGTHS}
        views: dict[int, list[float]] = {n: [] for n in LENGTHS}
        with Measured(out):
            for _ in range(cfg["reps"]):
                mine: dict[int, tuple[list[float], list[float]]] = {n: ([], []) for n in LENGTHS}
                for _ in range(cfg["samples"]):
                    for length, long in longs.items():
                        mid = long.match_id
                        status, summary, _ = client.call("GET", f"/matches/{mid}")
                        seat = rng.choice(summary["to_act"])  # type: ignore[index]
                        status, legal, _ = client.call("GET", f"/matches/{mid}/legal-commands", token=long.tokens[seat])
                        status, body, elapsed = client.call("POST", f"/matches/{mid}/commands",
                                                            rng.choice([c for c in legal["commands"] if c["type"] != "resign"] or legal["commands"]),
                                                            token=long.tokens[seat])
                        assert status == 201, body
                        mine[length][0].append(elapsed)
                        at = rng.randint(1, out["lengths"][str(length)]["events"])
                        status, body, elapsed = client.call("GET", f"/matches/{mid}/view?at={at}")
                        assert status == 200, body
                        mine[length][1].append(elapsed)
                low, high = mine[LENGTHS[0]], mine[LENGTHS[-1]]
                out["rounds"].append({"command_ratio": round(median(high[0]) / median(low[0]), 3),
                                      "view_ratio": round(median(high[1]) / median(low[1]), 3)})
                for length in LENGTHS:
                    commands[length] += mine[length][0]
                    views[length] += mine[length][1]
        for length in LENGTHS:
            c, v = commands[length], views[length]
            out["lengths"][str(length)].update(
                command_p50_ms=round(median(c) * 1000, 2), command_p95_ms=round(_pctl(c, 0.95) * 1000, 2),
                view_at_p50_ms=round(median(v) * 1000, 2), view_at_p95_ms=round(_pctl(v, 0.95) * 1000, 2))
            log(f"  length {length}: {out['lengths'][str(length)]}")
        out["command_ratio_runs"] = [r["command_ratio"] for r in out["rounds"]]
        out["view_ratio_runs"] = [r["view_ratio"] for r in out["rounds"]]
        out["command_ratio"] = median(out["command_ratio_runs"])
        out["view_ratio"] = median(out["view_ratio_runs"])
        log(f"  10,000 / 100 per round: command {out['command_ratio_runs']}, view?at= {out['view_ratio_runs']}")
        long = longs[LENGTHS[-1]]
        mid = out["match_id"] = long.match_id
        # Replay: page through /replay (500 frames a page) as a spectator.
        upto = min(long.version, cfg["replay_frames"])
        passes = []
        for _ in range(cfg["reps"]):
            frames, start, started = 0, 1, time.perf_counter()
            while start is not None and start <= upto:
                status, body, _ = client.call("GET", f"/matches/{mid}/replay?from={start}&to={upto}")
                assert status == 200, body
                frames += len(body["frames"])
                start = body["next_from"]
            passes.append(frames / (time.perf_counter() - started))
        out["replay"] = {"frames": upto, "frames_per_s": round(median(passes), 1),
                         "passes": [round(p, 1) for p in passes]}
        log(f"  replay: {out['replay']}")
    finally:
        client.close()
    try:
        out["verify"] = verify_lengths(database_url, tmp, cfg, longs, app)
    finally:
        app.close()
    return out


def verify_lengths(database_url: str, tmp: str, cfg: dict, longs: dict[int, LongMatch], app) -> dict:
    """`gambit export` (organizer) of the 1,000- and 10,000-record matches — and in full mode of the
    longest grown on to 100,000 records (within a time budget) — and the verify ratio of each."""
    from service.signing import Signer

    data_dir = os.path.join(tmp, "data")
    key_path = os.path.join(tmp, "service-public-key.txt")
    with open(key_path, "w") as handle:
        handle.write(Signer.load(data_dir).public_key_b64)
    env = {**os.environ, "GAMBIT_DATABASE_URL": database_url, "GAMBIT_DATA_DIR": data_dir}
    out: dict = {"lengths": {}}
    with Measured(out):
        for length in LENGTHS[1:]:
            out["lengths"][str(length)] = verify_one(longs[length].match_id, f"export-{length}", tmp, env, key_path, cfg,
                                                     profile=length == LENGTHS[-1])
        if cfg["verify_long"]:
            long = longs[LENGTHS[-1]]
            budget = cfg["verify_long_budget_s"]
            started = time.perf_counter()
            grow = long.grow_to(cfg["verify_long"], deadline=started + budget)
            reached = long.version
            out["long_target"] = cfg["verify_long"]
            out["long_grow_s"] = round(grow, 1)
            out["long_reached"] = reached
            out["long_stopped"] = reached < cfg["verify_long"]
            log(f"  grown to {reached:,} records in {grow:.0f} s" + (
                f" (stopped: the {budget:.0f} s budget ran out)" if out["long_stopped"] else ""))
            figures = verify_one(long.match_id, f"export-{cfg['verify_long']}", tmp, env, key_path, cfg)
            out["long_total_s"] = round(time.perf_counter() - started, 1)
            out["lengths"][str(cfg["verify_long"])] = figures
    return out


def verify_one(match_id: str, name: str, tmp: str, env: dict, key_path: str, cfg: dict, profile: bool = False) -> dict:
    """Export one match; then, `reps` times: `gambit verify --key` end to end (a fresh process, as a
    user runs it) and the split of bench/verify_cost.py (import, verify in-process, json.loads)."""
    export = os.path.join(tmp, f"{name}.ndjson")
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "service.cli", "export", match_id, "--as", "organizer", "-o", export],
                   cwd=ROOT, env=env, check=True, capture_output=True)
    export_s = time.perf_counter() - started
    with open(export) as handle:
        lines = sum(1 for _ in handle)
    runs, split = [], {}
    for rep in range(cfg["reps"]):
        started = time.perf_counter()
        # Not check=True: the exit code is recorded with the verdict below.
        done = subprocess.run([sys.executable, "-m", "service.cli", "verify", "--key", key_path, export], cwd=ROOT,
                              env=env, capture_output=True, text=True, check=False)
        end_to_end = time.perf_counter() - started
        # The split (import, in-process verify) once; json.loads of the lines every repetition.
        flags = (["--profile"] if profile else []) if rep == 0 else ["--parse-only"]
        measured = subprocess.run([sys.executable, "-m", "bench.verify_cost", export, "--key", key_path] + flags,
                                  cwd=ROOT, env=env, capture_output=True, text=True, check=True)
        parts = json.loads(measured.stdout.strip().splitlines()[-1])
        if rep == 0:
            split = parts
        runs.append({"verify_s": round(end_to_end, 4), "parse_s": parts["parse_s"],
                     "ratio": round(end_to_end / parts["parse_s"], 2)})
    out = {"records": lines - 1, "bytes": os.path.getsize(export), "export_s": round(export_s, 2), "runs": runs,
           "exit_code": done.returncode, "verdict": done.stdout.splitlines()[0].split()[0] if done.stdout else "",
           "ratio_runs": [r["ratio"] for r in runs], "ratio": median([r["ratio"] for r in runs]),
           "import_s": split["import_s"], "verify_in_process_s": split["verify_s"],
           "verify_one_process_s": split.get("verify_one_process_s")}
    for key in ("verify_s", "parse_s"):
        out[key] = round(median([r[key] for r in runs]), 4)
    out["ratio_in_process"] = round(split["verify_s"] / out["parse_s"], 2)
    out["events_per_s"] = round(out["records"] / out["verify_s"], 1)
    if "top" in split:
        out["profile_top"] = split["top"]
        out["top_cumulative"] = split.get("top_cumulative", [])
    log(f"  verify {out['records']:,} records: {out['verdict']} (exit {out['exit_code']}), {out['verify_s']} s end to end "
        f"(import {out['import_s']} s, in-process {out['verify_in_process_s']} s), json.loads {out['parse_s']} s, "
        f"ratio {out['ratio_runs']}")
    return out


# ----- 5. snapshot size per ruleset -------------------------------------------------------------

def snapshot_sizes(database_url: str, tmp: str, cfg: dict) -> dict:
    """Every ruleset grown to the last mark `reps` times (different seeds); the encoded snapshot at each mark."""
    marks = tuple(cfg["snapshot_marks"])
    out: dict = {"marks": list(marks), "rulesets": {}}
    app = service_app(database_url, os.path.join(tmp, "data"))
    try:
        with Measured(out):
            for ruleset in LONG_CONFIGS:
                runs = [snapshot_growth(database_url, os.path.join(tmp, "data"), ruleset, seed, marks, app=app)
                        for seed in range(1, cfg["reps"] + 1)]
                low, high = str(marks[0]), str(marks[-1])
                ratios = [round(r["marks"][high]["encoded_bytes"] / r["marks"][low]["encoded_bytes"], 3) for r in runs]
                out["rulesets"][ruleset] = {
                    "runs": runs, "ratio_runs": ratios, "ratio": median(ratios),
                    "low_bytes": median([r["marks"][low]["encoded_bytes"] for r in runs]),
                    "high_bytes": median([r["marks"][high]["encoded_bytes"] for r in runs]),
                    "matches": median([r["matches"] for r in runs]),
                    "longest_match": max(r["longest_match"] for r in runs),
                    "largest_bytes": max(r["largest_encoded_bytes"] for r in runs)}
                log(f"  snapshot {ruleset}: {out['rulesets'][ruleset]['low_bytes']:,.0f} -> "
                    f"{out['rulesets'][ruleset]['high_bytes']:,.0f} bytes, ratio {ratios}, "
                    f"{sum(r['seconds'] for r in runs):.0f} s")
    finally:
        app.close()
    return out


# ----- 6. scale -------------------------------------------------------------------------------

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


def measured_ceiling(url: str, processes: int, seconds: float) -> float | None:
    """The append ceiling with `processes` writers, or None (with a WARNING line) when the measurement failed."""
    try:
        ceiling = round(append_ceiling(url, processes, seconds), 1)
    except RuntimeError as exc:
        log(f"  WARNING: append ceiling with {processes} writer(s) not measured: {exc}")
        return None
    log(f"  append ceiling, {processes} writer(s): {ceiling} events/s")
    return ceiling


def run_backend(backend: str, cfg: dict) -> dict:
    log(f"== {backend}")
    with tempfile.TemporaryDirectory(prefix=f"gambit-bench-{backend}-") as tmp, store_url(backend, tmp) as url:
        result: dict = {}
        result["throughput"] = throughput(backend, tmp, cfg, url)
        result["scale"] = store_counts(backend, url)
        result["scale"]["concurrent_matches"] = cfg["bots"]
        log(f"  scale: {result['scale']}")
        result["human"] = human_pace(backend, url, tmp, cfg)
        with serve("gambit", url, os.path.join(tmp, "data")) as base:
            result["long"] = long_match(base, url, tmp, cfg)
        result["verify"] = result["long"].pop("verify")
        result["scale_after_long"] = store_counts(backend, url)
        log("  snapshot size per ruleset")
        result["snapshots"] = snapshot_sizes(url, tmp, cfg)
        ceilings = {}
        with store_url(backend, tmp) as ceiling_url:
            ceiling_url = ceiling_url.replace("gambit.sqlite3", "ceiling.sqlite3")
            for processes in cfg["ceiling_processes"]:
                ceilings[str(processes)] = measured_ceiling(ceiling_url, processes, cfg["ceiling_seconds"])
        result["append_ceiling"] = ceilings
        return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.run")
    parser.add_argument("--quick", action="store_true",
                        help="one short repetition of everything; prints the table (verdicts 'indicative'), "
                             "leaves docs/ alone")
    parser.add_argument("--label", default=None, help="results name (default: quick or full)")
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--no-report", action="store_true", help="write only bench/results/<label>.json")
    parser.add_argument("--optimize-variant", action="store_true",
                        help="also measure the service under python -O in the throughput runs")
    args = parser.parse_args(argv)
    # A SIGTERM unwinds like an exception, so every server this run started is stopped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    cfg = dict(QUICK if args.quick else FULL)
    cfg["optimize_variant"] = cfg["optimize_variant"] or args.optimize_variant
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
