"""The costs section of docs/benchmarks.md, from bench/results/costs.json (bench/costs.py).

`write` keeps it in bench/costs.md, which bench/report.py puts into the page on every `make bench`,
and replaces the section in docs/benchmarks.md as it stands (between its markers; before *Machine*
the first time), so a costs run needs no full benchmark run to be published.
"""

from __future__ import annotations

import os
import statistics

from bench.servers import ROOT

START, END = "<!-- costs: start -->", "<!-- costs: end -->"
NAMES = {"sqlite": "SQLite", "postgres": "PostgreSQL"}
LOG_GOAL = 0.95


def _load(values: list[float]) -> str:
    return " / ".join(f"{v:.2f}" for v in values)


def _each(values: list) -> str:
    return ", ".join("–" if v is None else f"{v:.2f}" for v in values)


def _run_line(run: dict, repeated: bool = True) -> str:
    reps = f"{run['reps']} repetitions; " if repeated else ""
    return (f"Command: `{run['command']}`, started {run['started_utc']}; {reps}load average "
            f"(1 / 5 / 15 min, as `uptime` shows it) {_load(run['uptime_before'])} before, "
            f"{_load(run['uptime_after'])} after.")


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


CPU_NOTE = (
    "Commands per server CPU-second: the commands counted in the window ÷ the CPU time (user + system) the "
    "`gambit serve` master and its workers spent in it (from /proc, sampled by the load generator at the "
    "window's start and end). It moves far less with the machine's other load than commands/s does; on "
    "PostgreSQL it leaves out the database server's own CPU."
)


def _throughput_table(run: dict, goal: float | None, with_log: bool) -> list[str]:
    head = ("| store | commands/s with ÷ without | commands/s with (each) | commands/s without (each) | commands per "
            "server CPU-second, with ÷ without (each) | command p50 / p99 ms, with; without (median run) | errors with; "
            "without | load per repetition |")
    rows = [head + (" log leaves when the load stopped, with (of all its writes, in how many seconds after, where it was behind); without |" if with_log else ""),
            "|---" * (9 if with_log else 8) + "|"]
    for backend, figures in run["backends"].items():
        runs = figures["runs"]
        ratio = figures["ratio"]
        verdict = "" if goal is None or ratio is None else (" MET" if ratio >= goal else " NOT MET")
        cells = [
            NAMES.get(backend, backend),
            f"**{ratio:.2f}**{verdict} (n={len(figures['ratios'])}: {_each(figures['ratios'])})",
            _rates(runs["with"]),
            _rates(runs["without"]),
            _per_cpu(figures),
            "; ".join(_latency(runs[name]) for name in ("with", "without")),
            "; ".join(", ".join(str(r["errors"]) for r in runs[name]) for name in ("with", "without")),
            ", ".join(f"{a['load'][0]:.1f}→{b['load'][1]:.1f}" for a, b in zip(runs["with"], runs["without"], strict=True)),
        ]
        if with_log:
            cells.append(", ".join(_leaves(r) for r in runs["with"]) + "; "
                         + ", ".join(f"{r['log_leaves_after']:,}" for r in runs["without"]))
        rows.append("| " + " | ".join(cells) + " |")
    return rows


def _per_cpu(figures: dict) -> str:
    per_cpu = figures.get("per_cpu") or {}
    if per_cpu.get("ratio") is None:
        return "not measured"
    return f"**{per_cpu['ratio']:.2f}** ({_each(per_cpu['ratios'])})"


def _rates(runs: list[dict]) -> str:
    rates = [r["commands_per_s"] for r in runs]
    return f"{_median(rates):.0f} ({', '.join(f'{v:.0f}' for v in rates)})"


def _leaves(run: dict) -> str:
    settled = run.get("log_leaves_settled")
    if settled is None or settled == run["log_leaves_after"]:
        return f"{run['log_leaves_after']:,}"
    return f"{run['log_leaves_after']:,} of {settled:,} (in {run['log_catch_up_s']:.1f} s)"


def _latency(runs: list[dict]) -> str:
    chosen = sorted(runs, key=lambda r: r["commands_per_s"])[len(runs) // 2]
    return f"{chosen['p50_ms']} / {chosen['p99_ms']}"


def _signed(run: dict) -> list[str]:
    return [
        "### Signed seats (issue 32)", "",
        (f"Commands/s of the bot load ({run['config']['bots']} bots, 2-seat gambitz, `GET /legal-commands` then `POST /commands`, as in "
         "*Method* 1) when every seat joins with an Ed25519 key and signs each command (`Gambit-Signature` over the "
         "match id, the version legal-commands answered and the body; the bots sign in the load generator, on "
         "the same 2 cores), ÷ the same load with no seat keyed. Each run: a fresh store and `gambit serve`, "
         f"{run['config']['warmup']:.0f} s warm-up, {run['config']['duration']:.0f} s counted; a repetition runs the "
         "two back to back on the same seed, the order alternating. " + CPU_NOTE), "",
        _run_line(run), "",
        *_throughput_table(run, None, False), "",
    ]


def _signed_hot(run: dict) -> list[str]:
    rows = [("| store | commands/s the CPU allows, with ÷ without (each) | CPU ms per POST with / without | wall ms "
             "per POST with / without |"), "|---|---|---|---|"]
    for backend, f in run["backends"].items():
        rows.append(f"| {NAMES.get(backend, backend)} | **{f['ratio']:.2f}** ({_each(f['ratios'])}) | "
                    f"{f['with_cpu_ms']:.2f} / {f['without_cpu_ms']:.2f} | {f['with_wall_ms']:.2f} / "
                    f"{f['without_wall_ms']:.2f} |")
    commands = next(iter(run["backends"].values()))["commands"]
    return [
        ("The same cost on the hot path alone, in one process (`bench/profile_hot.py --json [--signed]`, Flask test "
         f"client, one store, {commands} commands of bot play per process, signed outside the timed part): the "
         "process's CPU time per `POST /commands` (`time.process_time`, which other processes on the cores hardly "
         "move), with signed seats and without, fresh processes in alternating order; the ratio is CPU without ÷ "
         "CPU with, the commands/s one core allows. It leaves out the reads, creations and joins the bot load also "
         "makes."), "",
        _run_line(run), "",
        *rows, "",
    ]


def _ratio_cell(figures: dict | None) -> str:
    if not figures or figures.get("ratio") is None:
        return "not measured"
    return f"**{figures['ratio']:.2f}** ({_each(figures['ratios'])})"


def _redecide(run: dict) -> list[str]:
    rows = [("| export (organizer's, all secrets visible) | records | bytes | CPU s end to end, with / without | "
             "CPU ratio end to end (each) | CPU s in one process, with / without | CPU ratio in one process (each) | "
             "wall ratio end to end; in one process (each) | exit code with |"), "|---|---|---|---|---|---|---|---|---|"]
    for e in run["exports"]:
        status = "" if e["status"] == "active" else f", {e['status']}"
        rows.append(
            f"| {e['ruleset']}{status} | {e['records']:,} | {e['bytes']:,} | "
            f"{e.get('with_cpu_s', float('nan')):.3f} / {e.get('without_cpu_s', float('nan')):.3f} | "
            f"{_ratio_cell(e.get('end_to_end_cpu'))} | "
            f"{e.get('with_one_cpu_s', float('nan')):.3f} / {e.get('without_one_cpu_s', float('nan')):.3f} | "
            f"{_ratio_cell(e.get('one_process_cpu'))} | "
            f"{e['end_to_end']['ratio']:.2f} ({_each(e['end_to_end']['ratios'])}); {e['one_process']['ratio']:.2f} "
            f"({_each(e['one_process']['ratios'])}) | {', '.join(str(c) for c in e['exit_codes'])} |")
    return [
        "### Re-deciding every command in `gambit verify` (issue 32)", "",
        ("`gambit verify --key` of one export with the `commands` check (every recorded command decided again by "
         "the rules on the replayed state) ÷ the same verification without it: `bench/verify_cost.py --once` in a "
         "fresh process, `--no-redecide` passing `run_verify(redecide=False)`, which no option of `gambit verify` "
         "sets. End to end: the whole process as a user runs `gambit verify` (two processes from 2,000 lines), its "
         "CPU time (user + system, the forked child's included: `getrusage` of the finished process) and its wall "
         "time; in one process (`--jobs 1`): the verification alone, in-process (`time.process_time`, and wall). "
         "CPU time is the figure to read on a busy machine: wall time there mostly measures waiting for a core. "
         "The matches are grown through the domain with random legal commands (bench/longmatch.py) in one SQLite "
         "store; the games that end by themselves are played to their end. Each repetition verifies each export "
         "with and without, back to back, the order alternating."), "",
        _run_line(run) + f" Load after growing the matches: {run['load_after_growing']:.2f}.", "",
        *rows, "",
    ]


def _log(run: dict) -> list[str]:
    return [
        "### The transparency log (issue 33)", "",
        ("Commands/s of the same bot load with the log kept as deployed (`GAMBIT_LOG_INTERVAL=0.5`, the default: "
         "the leader integrates the writes stored since its last pass, one leaf per acknowledged write, "
         "and signs a checkpoint) ÷ with nobody integrating (`GAMBIT_LOG_INTERVAL=0`). Receipts name the log "
         "either way (receipt v2); the last column shows the leaves the log held when each run's load stopped, "
         "and, where its sequencer was behind, how many writes it then took in and how long that took: work the "
         "log still had to do after the window, which the window's commands/s did not pay for. "
         f"Goal: ≥ {LOG_GOAL}, for commands/s. " + CPU_NOTE), "",
        _run_line(run), "",
        *_throughput_table(run, LOG_GOAL, True), "",
    ]


# What changed in the sequencer after the figures above (issue 34's "two measurements").
LOG_SINCE = (" Under load that was still slow: `executemany` waits for a reply per row, each in a turn of the worker's loop, and the sequencer loaded every match new to a batch inside its transaction; it now writes multi-row `INSERT`s and loads before the transaction (*The service against the baseline, as an independent harness measures it*, below). Measured again since with `bench/agree.py` (same section): with the log ÷ without 1.24 at 32 bots, load 7–9.")


# The checkpoint's cadence under load (bench/log_cadence.py), measured apart from bench.costs and kept here so a
# regenerated section keeps it.
LOG_CADENCE = "#### Checkpoint cadence under load\n\nRequirement: `gambit serve` alone integrates new leaves and signs a checkpoint at least every second under load. `bench/log_cadence.py` runs `gambit serve` as deployed (gunicorn, gevent, 4 workers; PostgreSQL, a fresh schema per run) under 32 bots (`bench.loadgen`) and samples from outside, every 0.1 s, the log's row in the store (the one `GET /log/checkpoint` serves, written in the checkpoint's own transaction) with the newest stored record, and every 0.2 s `GET /log/checkpoint` itself. Over the load's 15-s window: the gaps between successive new checkpoints, the records stored but not yet in the log, and the merge delay (from a sample to the first sample whose log position reached the newest record stored at the first). The leader keeps the clocks too: 20 matches with a one-second decision clock are created during the load and left alone, and each expiry's lateness (its timestamp minus its deadline) is read from the store after the load (target: within a second). Variants in one run, rotated: `service` (the leader's duties in `gambit lead`, the process `gambit serve`'s master starts; the log's passes every 0.5 s start to start), `workers-lead` (the same tree with `GAMBIT_LEAD_PROCESS=off`: a worker leads, its duties greenlets of its gevent loop, each pass followed by a 0.5-s pause) and `before` (the tree before, commit 6c65167: the same as `workers-lead`).\n\nCommand: `PYTHONPATH=$PWD .venv/bin/python -m bench.log_cadence --variants service,workers-lead,before --before-tree /tmp/lc-before --duration 15 --reps 3` (`/tmp/lc-before`: `git archive 6c65167`), started 2026-11-28T08:40:31Z; load average (1 min) 7.1–9.2.\n\n| variant | repetition | load before→after | commands/s (per server CPU-s) | new checkpoints in 15 s | gap p50 / p99 / max, s | gap max over HTTP, s | records not yet in the log p50 / max | merge delay p50 / p99 / max, s | clock expiry lateness p50 / max, s (recorded of 20) |\n|---|---|---|---|---|---|---|---|---|---|\n| service | 1 | 8.22→8.51 | 136.9 (147.0) | 31 | **0.51 / 0.72 / 0.72** | 0.94 | 225 / 459 | 0.41 / 0.82 / 0.82 | 0.12 / 0.28 (20) |\n| service | 2 | 8.75→9.08 | 145.1 (146.7) | 31 | **0.51 / 0.70 / 0.70** | 0.75 | 229 / 600 | 0.41 / 0.72 / 0.80 | 0.06 / 0.22 (20) |\n| service | 3 | 7.68→7.69 | 144.5 (144.4) | 30 | **0.51 / 0.94 / 0.94** | 0.82 | 239 / 570 | 0.42 / 0.94 / 1.04 | 0.18 / 0.34 (20) |\n| workers-lead | 1 | 7.91→8.14 | 139.7 (157.5) | 5 | 4.76 / 5.08 / 5.08 | 4.97 | 3,804 / 5,730 | 6.17 / 10.22 / 10.32 | 10.92 / 12.48 (20) |\n| workers-lead | 2 | 7.07→9.05 | 158.4 (155.0) | 6 | 3.24 / 4.49 / 4.49 | 4.64 | 2,974 / 4,996 | 4.36 / 7.53 / 7.63 | 9.04 / 12.24 (20) |\n| workers-lead | 3 | 7.31→7.5 | 126.4 (146.6) | 5 | 4.38 / 4.65 / 4.65 | 4.62 | 2,440 / 4,276 | 4.65 / 8.22 / 8.32 | 7.06 / 12.24 (20) |\n| before | 1 | 7.11→7.51 | 164.1 (162.0) | 6 | 2.55 / 4.16 / 4.16 | 3.94 | 2,583 / 4,157 | 3.66 / 5.61 / 5.71 | 6.42 / 12.08 (20) |\n| before | 2 | 8.73→9.16 | 168.1 (160.8) | 6 | 2.55 / 4.89 / 4.89 | 4.66 | 2,787 / 5,268 | 3.87 / 7.74 / 7.84 | 8.16 / 12.26 (20) |\n| before | 3 | 8.52→8.08 | 160.0 (158.0) | 10 | 1.53 / 2.33 / 2.33 | 2.04 | 1,198 / 2,247 | 1.72 / 3.55 / 3.65 | 4.32 / 6.59 (20) |\n\n**Met:** with the leader process, a new checkpoint every 0.51 s (p50), 0.94 s at most, and every expiry recorded 0.06–0.18 s after its deadline (p50; 0.34 s at most); with a worker leading, as before, checkpoints came 1.5–4.8 s apart (p50; up to 5.1 s), the log fell 1,200–3,800 records behind, and expiries came 4–11 s late (p50; up to 12.5 s). Earlier runs of the same command: at load 3.1–4.8 (08:20:17Z, 3 repetitions) `service` gaps p50 0.50 s, max 0.61 s in each, `before` p50 1.00, 2.82 and 1.71 s; at load 7.0–10.4 (08:14:22Z, 2 repetitions) `service` max 0.80 and 0.71 s, `before` 5.54 and 6.00 s; at load 7.0–9.3 (08:33:40Z, 3 repetitions) `service` max 0.71, 1.02 and 0.71 s — the one gap over a second in 12 runs of the leader process (the samples are 0.1 s apart). Before the passes were paced start to start (08:08:43Z, load 5.2–9.7), the leader process's gaps were 0.72 s p50, 0.94 and 1.03 s max: a pass's own time under load, ~0.2 s, was added to the interval. **Commands/s:** `service` ÷ `before` 0.88 here (median 144.5 against 164.1; per server CPU-second — master, workers and the leader process — 146.7 against 160.8, 0.91), 0.96 at load 3–5 (255 against 266); not a like-for-like cost: a leading worker leaves the log's and the clocks' work for after the window (thousands of records behind, expiries seconds late, growing with the load's length), where the leader process does it inside the window, on the same two cores.\n"


def _log_before_fix(run: dict) -> list[str]:
    return [
        ("The sequencer used to send one `INSERT` a leaf (projections/tlog_log.py `_append`): on PostgreSQL a round "
         "trip a leaf, between which the leading worker's requests ran under gevent. It now sends one statement per "
         "table for each batch (`executemany`), which in one process cut a leaf's cost on PostgreSQL from 0.54 to "
         "0.36 ms of CPU and from 9.0 to 1.7 ms of wall time (on SQLite 0.37 to 0.32 and 4.0 to 0.9)." + LOG_SINCE +
         " The same measurement before that change:"), "",
        _run_line(run), "",
        *_throughput_table(run, LOG_GOAL, True), "",
    ]


def _proofs(run: dict) -> list[str]:
    rows = [("| store | leaves | built in, s (leaves/s) | proof | hashes min / median / max | bytes min / median / max "
             "| build ms median / p95 | check ms median / p95 |"), "|---|---|---|---|---|---|---|---|"]
    for backend, f in run["backends"].items():
        for kind, label in (("inclusion", "inclusion (tlog-proof text, checkpoint included)"),
                            ("consistency", "consistency (raw hashes)")):
            p = f[kind]
            rows.append(
                f"| {NAMES.get(backend, backend)} | {f['leaves']:,} | {f['build_s']:.0f} ({f['build_leaves_per_s']:,}) | "
                f"{label} | {p['hashes']['min']} / {p['hashes']['median']:g} / {p['hashes']['max']} | "
                f"{p['bytes']['min']:,} / {p['bytes']['median']:,.0f} / {p['bytes']['max']:,} | "
                f"{p['build']['median_ms']:.2f} / {p['build']['p95_ms']:.2f} | "
                f"{p['verify']['median_ms']:.3f} / {p['verify']['p95_ms']:.3f} |")
    samples = next(iter(run["backends"].values()))["samples"]
    again = [f"{NAMES.get(b, b)} was measured again on its own after the sequencer's inserts were batched (the other rows were built with one `INSERT` a leaf): "
             + _run_line(f["run"], repeated=False) for b, f in run["backends"].items() if "run" in f]
    return [
        "### Log proofs at 1,000,000 leaves (issue 33)", "",
        ("The tree is built in the store, as the service builds it: a fresh store's log tables filled by the "
         "sequencer's own append (every leaf and each tile-level subtree hash it completes, in transactions of "
         "2,000 leaves), then one signed checkpoint; the leaves are synthetic writes, 50 per match. An inclusion "
         "proof is `TransparencyLog.proof` (what the log-proof path and an export's trailer serve: the hashes read "
         "from the store afresh, as per request) rendered as a tlog-proof, checked as `gambit verify` checks a "
         "receipt's (service/verify_log.py: parse, the checkpoint's signature, the root). A consistency proof is "
         "from a random older size to the checkpoint's, checked with `domain.tlog.consistent`. "
         f"{samples} of each (random leaves and sizes, the first and last included)."), "",
        _run_line(run, repeated=False), *[line for text in again for line in ("", text)], "",
        *rows, "",
    ]


def section(results: dict) -> str:
    """The section's markdown, from the parts measured so far."""
    parts = results.get("parts", {})
    lines = [
        "## Costs of the proofs (issues 32 and 33)", "",
        ("<!-- Generated by `make bench-costs` (python -m bench.costs --write-docs) into bench/costs.md; "
         "edit bench/costs_report.py instead. -->"), "",
        ("Each figure is a ratio of the same measurement with and without the proof, both variants measured in "
         "the same run, interleaved (a repetition runs the two back to back, the order alternating): the machine "
         "is shared and its load moves absolute figures far more than these ratios (load averages as shown)."
         + (" **A `--quick` run: one short repetition, indicative only.**" if results.get("quick") else "")), "",
    ]
    for name, render in (("signed", _signed), ("signed-hot", _signed_hot), ("redecide", _redecide), ("log", _log),
                         ("log-before-fix", _log_before_fix), ("proofs", _proofs)):
        if name in parts:
            lines += render(parts[name])
        if name == "log-before-fix" and "log" in parts:
            lines += LOG_CADENCE.split("\n")
    return "\n".join(lines).rstrip() + "\n"


def spliced(page: str, text: str) -> str:
    """The page with its costs section replaced (or, the first time, put before *Machine*, else at the end)."""
    block = f"{START}\n{text.rstrip()}\n{END}"
    if START in page and END in page:
        before, rest = page.split(START, 1)
        return before + block + rest.split(END, 1)[1]
    marker = "\n## Machine\n"
    if marker in page:
        before, after = page.split(marker, 1)
        return f"{before}\n{block}\n{marker}{after}"
    return page.rstrip() + "\n\n" + block + "\n"


def write(results: dict) -> None:
    """bench/costs.md, and its section of docs/benchmarks.md."""
    text = section(results)
    with open(os.path.join(ROOT, "bench", "costs.md"), "w") as handle:
        handle.write(text)
    page_path = os.path.join(ROOT, "docs", "benchmarks.md")
    with open(page_path) as handle:
        page = handle.read()
    with open(page_path, "w") as handle:
        handle.write(spliced(page, text))
