"""What the proofs cost, each measured against the same thing without it, in one run: `python -m bench.costs`.

- `signed` (issue 32): commands/s when every seat joins with an Ed25519 key and signs every command
  (`Gambit-Signature`; bench/loadgen.py `--signed`) ÷ commands/s when no seat has a key.
- `signed-hot` (issue 32): the same in one process, on the hot path alone: the CPU time of one
  `POST /commands` (bench/profile_hot.py `--json`, Flask test client) with signed seats and without,
  fresh processes in alternating order; commands/s on one core go as its inverse.
- `redecide` (issue 32): `gambit verify` with the `commands` check (every recorded command re-decided)
  ÷ without it (`run_verify(redecide=False)`, which only bench/verify_cost.py passes), per export:
  end to end in a fresh process as a user runs it, and in-process in one process (`--jobs 1`).
- `log` (issue 33): commands/s with the transparency log kept (`GAMBIT_LOG_INTERVAL` 0.5 s, the
  default: the leading worker integrates the new writes and signs a checkpoint) ÷ without
  (`GAMBIT_LOG_INTERVAL=0`: no worker integrates).
- `proofs` (issue 33): inclusion and consistency proofs at 1,000,000 leaves (bench/log_proofs.py).

The throughput pairs run the bench's bot load (bench/loadgen.py, 16 bots playing 2-seat gambitz
matches through the public API) against `gambit serve` under deploy/gunicorn.conf.py, as
bench/run.py does; every run gets a fresh store and server, and a repetition runs the two variants
back to back on the same seed, in alternating order, so a repetition's ratio compares like with
like on a shared machine. Each run records the 1-minute load average before and after it.

Results go to bench/results/costs.json (costs-quick.json with `--quick`); `--write-docs` writes
bench/costs.md, which bench/report.py puts into docs/benchmarks.md, and that section of the page.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time

from bench.servers import ROOT, serve, server_pid
from bench.stores import store_url

RESULTS = os.path.join(ROOT, "bench", "results")
PARTS = ("signed", "signed-hot", "redecide", "log", "proofs")
# The exports the verify cost is taken on: the two games that never end at random play, grown to a
# length, and one whole match of each game that ends by itself.
VERIFY_MATCHES = (("dragons-gambit", 10000), ("gattai-conflict", 10000), ("gambitz", None), ("gambit-tcg", None),
                  ("gambit-board", None))
# Six repetitions: an even number, so each variant runs first as often as second.
FULL = {"reps": 6, "duration": 8.0, "warmup": 2.0, "bots": 16, "verify_matches": VERIFY_MATCHES, "hot_commands": 400,
        "leaves": 1_000_000, "proof_samples": 200}
QUICK = {"reps": 1, "duration": 3.0, "warmup": 1.0, "bots": 8, "hot_commands": 30,
         "verify_matches": (("dragons-gambit", 600), ("gambit-board", None)), "leaves": 5000, "proof_samples": 10}
VARIANTS = {
    "signed": {"with": ({}, True), "without": ({}, False)},
    "log": {"with": ({"GAMBIT_LOG_INTERVAL": "0.5"}, False), "without": ({"GAMBIT_LOG_INTERVAL": "0"}, False)},
}


def log(message: str) -> None:
    """A progress line on stderr."""
    print(f"[costs {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def load1() -> float:
    """The 1-minute load average."""
    return round(os.getloadavg()[0], 2)


def ratio_summary(pairs: list[tuple[float, float]]) -> dict:
    """Each repetition's with ÷ without, and their median."""
    ratios = [round(a / b, 3) if b else None for a, b in pairs]
    known = [r for r in ratios if r is not None]
    return {"ratios": ratios, "ratio": round(statistics.median(known), 3) if known else None}


# ----- commands/s with and without ---------------------------------------------------------------

def loadgen(base: str, cfg: dict, seed: int, signed: bool) -> dict:
    """One window of the bot load (bench/loadgen.py) against a running service, with the CPU the server spent."""
    command = [sys.executable, "-m", "bench.loadgen", "--base", base, "--kind", "gambit", "--bots", str(cfg["bots"]),
               "--duration", str(cfg["duration"]), "--warmup", str(cfg["warmup"]), "--seed", str(seed)]
    pid = server_pid(base)
    if pid is not None:
        command += ["--cpu-of", str(pid)]
    out = subprocess.run(command + (["--signed"] if signed else []), cwd=ROOT, capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout)


def log_size(database_url: str) -> int:
    """Leaves the store's transparency log holds now."""
    from projections.sqlstore import SqlStore
    from projections.tlog_log import TransparencyLog

    store = SqlStore(database_url)
    try:
        return TransparencyLog(store, None, lambda: "bench").state()[0]
    finally:
        store.close()


def caught_up(database_url: str, leaves: int, limit_s: float = 120.0) -> tuple[int, float]:
    """Once the load has stopped: the log's leaves when its sequencer has taken in every write (its size the same
    three polls in a row, 0.5 s apart), and the seconds until the poll that first saw that size; so a sequencer
    that fell behind shows."""
    started = time.perf_counter()
    same, reached = 0, 0.0
    while same < 2 and time.perf_counter() - started < limit_s:
        time.sleep(0.5)
        now = log_size(database_url)
        if now == leaves:
            same += 1
        else:
            same, reached = 0, time.perf_counter() - started
        leaves = now
    return leaves, round(reached, 1)


def one_run(backend: str, cfg: dict, seed: int, env: dict, signed: bool) -> dict:
    """One variant's window on a fresh store and server: commands/s, latencies, errors, load and the log's size."""
    with (tempfile.TemporaryDirectory(prefix=f"gambit-costs-{backend}-") as tmp, store_url(backend, tmp) as url,
          serve("gambit", url, os.path.join(tmp, "data"), extra_env=env) as base):
        before = load1()
        result = loadgen(base, cfg, seed, signed)
        after = load1()
        leaves = log_size(url)
        settled, catch_up_s = caught_up(url, leaves) if env.get("GAMBIT_LOG_INTERVAL", "0.5") != "0" else (leaves, 0.0)
    command = result["ops"]["command"]
    return {"commands_per_s": round(result["commands_per_s"], 1), "server_cpu_s": result.get("server_cpu_s"),
            "commands_per_cpu_s": result.get("commands_per_cpu_s"), "p50_ms": command["p50_ms"],
            "p99_ms": command["p99_ms"], "errors": result["errors"], "error_bodies": result.get("error_bodies", {}),
            "load": [before, after], "log_leaves_after": leaves, "log_leaves_settled": settled,
            "log_catch_up_s": catch_up_s}


def paired_throughput(part: str, backend: str, cfg: dict) -> dict:
    """`reps` repetitions of the part's two variants back to back, order alternating; the ratio with ÷ without."""
    variants = VARIANTS[part]
    runs: dict[str, list[dict]] = {name: [] for name in variants}
    out: dict = {"backend": backend, "env": {name: env for name, (env, _) in variants.items()}, "load": [load1()]}
    for rep in range(cfg["reps"]):
        order = list(variants) if rep % 2 == 0 else list(reversed(variants))
        for name in order:
            env, signed = variants[name]
            runs[name].append(one_run(backend, cfg, rep + 1, env, signed))
            run = runs[name][-1]
            log(f"  {part} {backend} rep {rep + 1} {name}: {run['commands_per_s']} commands/s, "
                f"{run['commands_per_cpu_s']} per server CPU-second, errors {run['errors']}, "
                f"log leaves {run['log_leaves_after']}, load {run['load']}")
    out["load"].append(load1())
    out["runs"] = runs
    pairs = list(zip(runs["with"], runs["without"], strict=True))
    out.update(ratio_summary([(a["commands_per_s"], b["commands_per_s"]) for a, b in pairs]))
    out["per_cpu"] = ratio_summary([(a["commands_per_cpu_s"], b["commands_per_cpu_s"]) for a, b in pairs
                                    if a["commands_per_cpu_s"] and b["commands_per_cpu_s"]])
    return out


def hot_path(backend: str, cfg: dict) -> dict:
    """`reps` rounds of bench/profile_hot.py with signed seats and without, each in a fresh process, order
    alternating: CPU ms per POST /commands, and the ratio of the commands/s it allows (without ÷ with)."""
    runs: dict[str, list[dict]] = {"with": [], "without": []}
    out: dict = {"backend": backend, "commands": cfg["hot_commands"], "load": [load1()]}
    for rep in range(cfg["reps"]):
        for name in ("with", "without") if rep % 2 == 0 else ("without", "with"):
            command = [sys.executable, "-m", "bench.profile_hot", "--json", "--backend", backend, "--commands",
                       str(cfg["hot_commands"])] + (["--signed"] if name == "with" else [])
            done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
            runs[name].append(json.loads(done.stdout.strip().splitlines()[-1]))
        log(f"  signed-hot {backend} rep {rep + 1}: cpu ms with {runs['with'][-1]['cpu_ms']}, "
            f"without {runs['without'][-1]['cpu_ms']}")
    out["load"].append(load1())
    out["runs"] = runs
    for name, measured in runs.items():
        out[f"{name}_cpu_ms"] = round(statistics.median(r["cpu_ms"] for r in measured), 3)
        out[f"{name}_wall_ms"] = round(statistics.median(r["mean_ms"] for r in measured), 3)
    out.update(ratio_summary([(b["cpu_ms"], a["cpu_ms"]) for a, b in zip(runs["with"], runs["without"], strict=True)]))
    return out


# ----- gambit verify with and without re-deciding ---------------------------------------------------

def grow_exports(tmp: str, matches: tuple) -> tuple[list[dict], str]:
    """Each match of `matches` grown through the domain (bench/longmatch.py) and exported as the organizer;
    the exports and the service's public key file."""
    from bench.longmatch import LONG_CONFIGS, LongMatch, service_app
    from service.signing import Signer

    url, data_dir = f"sqlite:///{os.path.join(tmp, 'gambit.sqlite3')}", os.path.join(tmp, "data")
    os.makedirs(data_dir, exist_ok=True)
    app = service_app(url, data_dir)
    env = {**os.environ, "GAMBIT_DATABASE_URL": url, "GAMBIT_DATA_DIR": data_dir}
    exports = []
    try:
        for number, (ruleset, length) in enumerate(matches):
            config, options = LONG_CONFIGS[ruleset]
            long = LongMatch(url, data_dir, seed=11 + number, ruleset=ruleset, config=config, options=options, app=app)
            long.grow_to(length or 100_000)
            path = os.path.join(tmp, f"{ruleset}.ndjson")
            subprocess.run([sys.executable, "-m", "service.cli", "export", long.match_id, "--as", "organizer", "-o",
                            path], cwd=ROOT, env=env, check=True, capture_output=True)
            with open(path) as handle:
                records = sum(1 for _ in handle) - 1
            exports.append({"ruleset": ruleset, "path": path, "records": records, "bytes": os.path.getsize(path),
                            "status": long.status})
    finally:
        app.close()
    key_path = os.path.join(tmp, "service-public-key.txt")
    with open(key_path, "w") as handle:
        handle.write(Signer.load(data_dir).public_key_b64)
    return exports, key_path


def timed_verify(path: str, key_path: str, redecide: bool, jobs: str) -> dict:
    """One fresh process verifying an export as `gambit verify` does: its seconds end to end and in-process."""
    command = [sys.executable, "-m", "bench.verify_cost", path, "--key", key_path, "--once", "--jobs", jobs]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command + ([] if redecide else ["--no-redecide"]), cwd=ROOT, capture_output=True, text=True,
                          check=True)
    end_to_end = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    inside = json.loads(done.stdout.strip().splitlines()[-1])
    return {"end_to_end_s": round(end_to_end, 4), "end_to_end_cpu_s": round(cpu, 4), "verify_s": inside["verify_s"],
            "cpu_s": inside["cpu_s"], "exit_code": inside["exit_code"]}


def redecide_cost(cfg: dict) -> dict:
    """Per export, `reps` repetitions of verifying it with and without re-deciding, back to back in alternating
    order: end to end (`--jobs auto`, as `gambit verify` runs) and in one process (`--jobs 1`)."""
    out: dict = {"load": [load1()], "exports": []}
    with tempfile.TemporaryDirectory(prefix="gambit-costs-verify-") as tmp:
        exports, key_path = grow_exports(tmp, cfg["verify_matches"])
        out["load_after_growing"] = load1()
        for export in exports:
            runs: dict[str, list[dict]] = {"with": [], "without": [], "with_one": [], "without_one": []}
            for rep in range(cfg["reps"]):
                order = (True, False) if rep % 2 == 0 else (False, True)
                for redecide in order:
                    name = "with" if redecide else "without"
                    runs[name].append(timed_verify(export["path"], key_path, redecide, "auto"))
                    runs[f"{name}_one"].append(timed_verify(export["path"], key_path, redecide, "1"))
            figures = {key: value for key, value in export.items() if key != "path"}
            figures["runs"] = runs
            figures["exit_codes"] = sorted({r["exit_code"] for r in runs["with"]})
            whole = list(zip(runs["with"], runs["without"], strict=True))
            alone = list(zip(runs["with_one"], runs["without_one"], strict=True))
            figures["end_to_end"] = ratio_summary([(a["end_to_end_s"], b["end_to_end_s"]) for a, b in whole])
            figures["end_to_end_cpu"] = ratio_summary([(a["end_to_end_cpu_s"], b["end_to_end_cpu_s"]) for a, b in whole])
            figures["one_process"] = ratio_summary([(a["verify_s"], b["verify_s"]) for a, b in alone])
            figures["one_process_cpu"] = ratio_summary([(a["cpu_s"], b["cpu_s"]) for a, b in alone])
            for name, timed in runs.items():
                keys = ("end_to_end_s", "end_to_end_cpu_s") if name in ("with", "without") else ("verify_s", "cpu_s")
                figures[f"{name}_s"] = round(statistics.median(r[keys[0]] for r in timed), 4)
                figures[f"{name}_cpu_s"] = round(statistics.median(r[keys[1]] for r in timed), 4)
            out["exports"].append(figures)
            log(f"  verify {export['ruleset']} ({export['records']:,} records): CPU end to end "
                f"{figures['end_to_end_cpu']['ratios']}, CPU in one process {figures['one_process_cpu']['ratios']}, "
                f"exit {figures['exit_codes']}")
    out["load"].append(load1())
    return out


# ----- the run ----------------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    """Measure the parts asked for and save (and, with --write-docs, publish) their figures."""
    parser = argparse.ArgumentParser(prog="python -m bench.costs")
    parser.add_argument("--quick", action="store_true", help="one short repetition of each, for a smoke test")
    parser.add_argument("--only", default=",".join(PARTS), help=f"comma-separated parts of {', '.join(PARTS)}")
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--reps", type=int, default=None, help="repetitions (default 5; 1 with --quick)")
    parser.add_argument("--write-docs", action="store_true", help="write bench/costs.md and its docs/benchmarks.md part")
    parser.add_argument("--label", default=None, help="results name (default: costs, or costs-quick)")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # unwinds, so every server started is stopped
    cfg = dict(QUICK if args.quick else FULL)
    if args.reps:
        cfg["reps"] = args.reps
    parts = [p for p in args.only.split(",") if p]
    unknown = set(parts) - set(PARTS)
    if unknown:
        parser.error(f"unknown parts: {', '.join(sorted(unknown))}")
    backends = [b for b in args.backends.split(",") if b]
    label = args.label or ("costs-quick" if args.quick else "costs")
    path = os.path.join(RESULTS, f"{label}.json")
    results: dict = {}
    if os.path.exists(path):
        with open(path) as handle:
            results = json.load(handle)  # a run of some parts keeps the others' last figures
    command = "python -m bench.costs" + ("".join(f" {a}" for a in (argv if argv is not None else sys.argv[1:])))
    started = time.time()
    results.update(label=label, quick=args.quick)
    results.setdefault("parts", {})
    for part in parts:
        log(f"== {part}")
        run = {"command": command, "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               "uptime_before": [round(x, 2) for x in os.getloadavg()], "reps": cfg["reps"]}
        if part in VARIANTS:
            run["config"] = {k: cfg[k] for k in ("duration", "warmup", "bots")}
            run["backends"] = {b: paired_throughput(part, b, cfg) for b in backends}
        elif part == "signed-hot":
            run["backends"] = {b: hot_path(b, cfg) for b in backends}
        elif part == "redecide":
            run.update(redecide_cost(cfg))
        else:
            from bench.log_proofs import proof_costs

            run["backends"] = {b: proof_costs(b, cfg["leaves"], cfg["proof_samples"]) for b in backends}
        run["uptime_after"] = [round(x, 2) for x in os.getloadavg()]
        run["elapsed_s"] = round(time.time() - started, 1)
        results["parts"][part] = run
        os.makedirs(RESULTS, exist_ok=True)
        with open(path, "w") as handle:
            json.dump(results, handle, indent=1)
    log(f"results in {os.path.relpath(path, ROOT)}")
    from bench import costs_report

    print(costs_report.section(results))
    if args.write_docs:
        costs_report.write(results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
