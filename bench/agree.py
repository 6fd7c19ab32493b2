"""The service against the baseline as an independent harness measures them (issue 34, "two measurements"):
`python -m bench.agree`.

Both halves run what a deployment runs: `gambit serve` under deploy/gunicorn.conf.py (gevent workers, the
leading worker's background work — the transparency log's sequencer and checkpoints, the clock keeper, the
scrub — as configured by default) and `bench.baseline_app` under the same settings. Per repetition, every
variant gets a fresh store and server, in an order rotated each repetition:

- throughput: `--bots` bots (32 by default) at full speed, each turn one `GET /legal-commands` (baseline:
  one load) and one `POST /commands` (baseline: one append); commands/s of each service variant ÷ the
  baseline's of the same repetition;
- human pace: `--matches` (200) matches, each turn a 1.5–4.5 s think, one read and one command (the baseline:
  one load and one append per turn, bench/loadgen.py `human-baseline`); p99 ÷ p50 of the command latency,
  and that figure ÷ the baseline's own of the same repetition.

A variant is a name and the environment it adds to the service (`--variants`, see VARIANTS), so a cost can
be located by switching one piece of background work off; the variant `before` serves another source tree
(`--before-tree`), to measure a change in the same run. Results: bench/results/agree[-label].json; each
measurement records the 1-minute load average before and after it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from bench.servers import ROOT, serve, server_pid
from bench.stores import store_url

RESULTS = os.path.join(ROOT, "bench", "results")
VARIANTS: dict[str, dict[str, str]] = {
    "service": {},  # as deployed: every default
    "no-log": {"GAMBIT_LOG_INTERVAL": "0"},
    "no-clocks": {"GAMBIT_SERVE_KEEPS_CLOCKS": "off"},
    "no-scrub": {"GAMBIT_SCRUB_RATE": "0"},
    "no-background": {"GAMBIT_LOG_INTERVAL": "0", "GAMBIT_SERVE_KEEPS_CLOCKS": "off", "GAMBIT_SCRUB_RATE": "0"},
}


def log(message: str) -> None:
    """A progress line on stderr, with the load average."""
    print(f"[agree {time.strftime('%H:%M:%S')} load {load1()}] {message}", file=sys.stderr, flush=True)


def load1() -> float:
    """The 1-minute load average."""
    return round(os.getloadavg()[0], 2)


def loadgen(base: str, kind: str, bots: int, duration: float, warmup: float, seed: int) -> dict:
    """One window of bench/loadgen.py against a running server, with the server's CPU when it is `gambit serve`."""
    command = [sys.executable, "-m", "bench.loadgen", "--base", base, "--kind", kind, "--bots", str(bots),
               "--duration", str(duration), "--warmup", str(warmup), "--seed", str(seed)]
    pid = server_pid(base)
    if pid is not None:
        command += ["--cpu-of", str(pid)]
    out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def one(backend: str, name: str, mode: str, cfg: dict, seed: int) -> dict:
    """One variant, one mode ("throughput" or "human"), on a fresh store and server."""
    kind = "baseline" if name == "baseline" else "gambit"
    env = VARIANTS.get(name, {})
    before = load1()
    with tempfile.TemporaryDirectory(prefix="agree-") as tmp, store_url(backend, tmp) as url:
        if kind == "baseline":
            url = url.replace("gambit.sqlite3", "baseline.sqlite3")
        root = cfg["before_tree"] if name == "before" else None
        with serve(kind, url, os.path.join(tmp, "data"), extra_env=env, root=root) as base:
            if mode == "throughput":
                result = loadgen(base, kind, cfg["bots"], cfg["duration"], cfg["warmup"], seed)
            else:
                result = loadgen(base, "human" if kind == "gambit" else "human-baseline", cfg["matches"],
                                 cfg["human_duration"], cfg["human_warmup"], seed)
    result["load"] = [before, load1()]
    command = result["ops"]["command"]
    result["p99_over_p50"] = round(command["p99_ms"] / command["p50_ms"], 2) if command["p50_ms"] else None
    return result


def summary(runs: dict[str, list[dict]], mode: str) -> dict:
    """Each service variant against the baseline of the same repetition."""
    out: dict = {}
    for name, results in runs.items():
        if name == "baseline":
            continue
        pairs = list(zip(results, runs["baseline"], strict=False))
        if mode == "throughput":
            ratios = [round(a["commands_per_s"] / b["commands_per_s"], 3) for a, b in pairs if b["commands_per_s"]]
        else:
            ratios = [round(a["p99_over_p50"] / b["p99_over_p50"], 3) for a, b in pairs
                      if a["p99_over_p50"] and b["p99_over_p50"]]
        out[name] = {"ratios": ratios, "median": statistics.median(ratios) if ratios else None}
        # Commands per CPU-second of the server (master and workers, PostgreSQL's own CPU left out): what the
        # machine's other load moves far less than commands/s.
        per_cpu = [round(a["commands_per_cpu_s"] / b["commands_per_cpu_s"], 3) for a, b in pairs
                   if a.get("commands_per_cpu_s") and b.get("commands_per_cpu_s")]
        out[name]["per_cpu_ratios"] = per_cpu
        out[name]["per_cpu_median"] = statistics.median(per_cpu) if per_cpu else None
    return out


def describe(name: str, result: dict, mode: str) -> str:
    """One line of a run's figures."""
    command = result["ops"]["command"]
    legal = result["ops"]["legal"]
    return (f"{mode} {name}: {result['commands_per_s']:.1f} commands/s, command p50 {command['p50_ms']} "
            f"p99 {command['p99_ms']} ms (p99/p50 {result['p99_over_p50']}), read p50 {legal['p50_ms']} "
            f"p99 {legal['p99_ms']} ms, errors {result['errors']}, server CPU {result.get('server_cpu_s')} s "
            f"({result.get('commands_per_cpu_s')} commands per CPU-s), "
            f"load {result['load'][0]}→{result['load'][1]}")


def save(out: dict, label: str | None) -> None:
    """Write the run to bench/results/agree[-label].json."""
    os.makedirs(RESULTS, exist_ok=True)
    path = os.path.join(RESULTS, f"agree{'-' + label if label else ''}.json")
    with open(path, "w") as handle:
        json.dump(out, handle, indent=1)
    log(f"saved {path}")


def markdown(out: dict) -> str:
    """The run as a table: per mode and variant, each repetition's figure and load, and the ratio to the baseline."""
    lines = [("| mode | variant | commands/s (each) | command p50 / p99 ms (each) | p99 ÷ p50 (each) | "
              "commands per server CPU-s (each) | ÷ baseline, median (each) | load before→after (each) |"),
             "|---|---|---|---|---|---|---|---|"]
    for mode in ("throughput", "human"):
        if mode not in out:
            continue
        runs, ratios = out[mode]["runs"], out[mode]["ratios"]
        for name, results in runs.items():
            def each(key: str, results: list[dict] = results) -> str:
                return ", ".join(str(round(r[key], 1)) if r.get(key) is not None else "–" for r in results)

            latencies = "; ".join(f"{r['ops']['command']['p50_ms']} / {r['ops']['command']['p99_ms']}" for r in results)
            loads = ", ".join(f"{r['load'][0]}→{r['load'][1]}" for r in results)
            if name == "baseline":
                against = "–"
            elif mode == "throughput":
                mine = ratios[name]
                against = (f"commands/s **{mine['median']:.2f}** ({', '.join(f'{x:.2f}' for x in mine['ratios'])}); "
                           f"per CPU-s {mine['per_cpu_median']:.2f} ({', '.join(f'{x:.2f}' for x in mine['per_cpu_ratios'])})")
            else:
                mine = ratios[name]
                against = f"p99 ÷ p50 **{mine['median']:.2f}** ({', '.join(f'{x:.2f}' for x in mine['ratios'])})"
            label = "32 bots" if mode == "throughput" else "200 matches, human pace"
            lines.append(f"| {label} | {name} | {each('commands_per_s')} | {latencies} | {each('p99_over_p50')} | "
                         f"{each('commands_per_cpu_s')} | {against} | {loads} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the repetitions and print and save the ratios."""
    parser = argparse.ArgumentParser(prog="python -m bench.agree")
    parser.add_argument("--backend", default="postgres", choices=("postgres", "sqlite"))
    parser.add_argument("--variants", default="service", help=f"service variants, of {', '.join(VARIANTS)}")
    parser.add_argument("--modes", default="throughput,human")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--bots", type=int, default=32)
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--human-duration", type=float, default=20.0)
    parser.add_argument("--human-warmup", type=float, default=6.0)
    parser.add_argument("--label", default=None)
    parser.add_argument("--before-tree", default=None,
                        help="the variant `before` serves this source tree (e.g. `git archive <commit>` unpacked)")
    parser.add_argument("--render", default=None, help="print the table of a saved run (bench/results/agree*.json)")
    args = parser.parse_args(argv)
    if args.render:
        with open(args.render) as handle:
            print(markdown(json.load(handle)))
        return 0
    cfg = vars(args)
    names = [n for n in args.variants.split(",") if n] + ["baseline"]
    out: dict = {"command": " ".join(["python -m bench.agree", *(argv or sys.argv[1:])]),
                 "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "config": cfg,
                 "load_before": list(os.getloadavg())}
    for mode in args.modes.split(","):
        runs: dict[str, list[dict]] = {name: [] for name in names}
        for rep in range(args.reps):
            shift = rep % len(names)
            for name in names[shift:] + names[:shift]:
                result = one(args.backend, name, mode, cfg, seed=rep + 1)
                runs[name].append(result)
                log(f"rep {rep + 1} " + describe(name, result, mode))
        out[mode] = {"runs": runs, "ratios": summary(runs, mode)}
        log(f"{mode}: {json.dumps(out[mode]['ratios'])}")
        out["load_after"] = list(os.getloadavg())
        save(out, args.label)  # after each mode: a later failure keeps what was measured
    print(markdown(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
