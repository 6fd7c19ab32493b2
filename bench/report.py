"""Turn bench/results/<label>.json into docs/benchmarks.md, docs/benchmarks.png and a printed table.

`python -m bench.report [results.json]` rewrites the report from saved results without
re-measuring. When bench/results/before.json exists (the run before the optimizations), the
report puts it beside the current run; bench/optimizations.md (what was changed and why) is
included verbatim.
"""

from __future__ import annotations

import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs")
RESULTS = os.path.join(ROOT, "bench", "results")
NAMES = {"sqlite": "SQLite", "postgres": "PostgreSQL"}
THROUGHPUT_TARGET = 0.8
LENGTH_TARGET = 1.5


def _f(value, digits: int = 1) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    return f"{value:,}"


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def ratio(throughput: dict, variant: str = "gambit") -> float:
    """Service / baseline: the median over repetitions of each repetition's ratio (the service and
    the baseline of one repetition ran back to back, so a busy spell on the shared box hits both)."""
    mine = throughput[variant]["runs_commands_per_s"]
    base = throughput["baseline"]["runs_commands_per_s"]
    return _median([m / b for m, b in zip(mine, base) if b])


def verdict(ok: bool) -> str:
    return "MET" if ok else "NOT MET"


def rows(results: dict) -> list[list[str]]:
    """The main table: one row per measurement, one column per backend."""
    backends = list(results["backends"])
    out = [["measurement"] + [NAMES.get(b, b) for b in backends]]

    def add(label: str, fn) -> None:
        cells = []
        for b in backends:
            try:
                cells.append(fn(results["backends"][b]))
            except (KeyError, TypeError, ZeroDivisionError):
                cells.append("–")
        out.append([label] + cells)

    add("service: commands/s (bots, median run)", lambda r: _f(r["throughput"]["gambit"]["commands_per_s"]))
    add("service: command latency p50 / p95 / p99 ms", lambda r: " / ".join(
        _f(r["throughput"]["gambit"]["ops"]["command"][k]) for k in ("p50_ms", "p95_ms", "p99_ms")))
    add("service: legal-commands p50 / p95 ms", lambda r: " / ".join(
        _f(r["throughput"]["gambit"]["ops"]["legal"][k]) for k in ("p50_ms", "p95_ms")))
    add("service: errors (non-2xx)", lambda r: str(r["throughput"]["gambit"]["errors"]))
    add("baseline: appends/s (same load shape)", lambda r: _f(r["throughput"]["baseline"]["commands_per_s"]))
    add("baseline: append latency p50 / p95 / p99 ms", lambda r: " / ".join(
        _f(r["throughput"]["baseline"]["ops"]["command"][k]) for k in ("p50_ms", "p95_ms", "p99_ms")))
    add(f"**ratio service / baseline** (median of repetitions; target ≥ {THROUGHPUT_TARGET})", lambda r: (
        f"**{ratio(r['throughput']):.2f}** {verdict(ratio(r['throughput']) >= THROUGHPUT_TARGET)}"))
    add("ratio per repetition", lambda r: ", ".join(f"{x:.2f}" for x in r["throughput"]["ratio_runs"]))
    add("service with `python -O`: commands/s (ratio)", lambda r: (
        f"{_f(r['throughput']['gambit-O']['commands_per_s'])} ({ratio(r['throughput'], 'gambit-O'):.2f})"))
    for length in ("100", "1000", "10000"):
        add(f"match of {int(length):,} events: command p50 ms", lambda r, l=length: _f(r["long"]["lengths"][l]["command_p50_ms"]))
    add(f"**command latency 10,000 / 100** (target ≤ {LENGTH_TARGET})", lambda r: (
        f"**{r['long']['command_ratio']:.2f}** {verdict(r['long']['command_ratio'] <= LENGTH_TARGET)}"))
    for length in ("100", "1000", "10000"):
        add(f"match of {int(length):,} events: view?at= p50 ms", lambda r, l=length: _f(r["long"]["lengths"][l]["view_at_p50_ms"]))
    add(f"**view?at= latency 10,000 / 100** (target ≤ {LENGTH_TARGET})", lambda r: (
        f"**{r['long']['view_ratio']:.2f}** {verdict(r['long']['view_ratio'] <= LENGTH_TARGET)}"))
    add("replay: frames/s (/replay, spectator)", lambda r: f"{_f(r['long']['replay']['frames_per_s'])} over {r['long']['replay']['frames']:,} frames")
    add("gambit verify: events/s (organizer export)", lambda r: f"{_f(r['long']['verify']['events_per_s'])} over {r['long']['verify']['records']:,} records")
    add("scale: concurrent matches under load", lambda r: str(r["scale"]["concurrent_matches"]))
    add("scale: matches / events in the store after the load", lambda r: f"{r['scale']['matches']:,} / {r['scale']['events']:,}")
    add("scale: store bytes per event", lambda r: _f(r["scale_after_long"]["bytes_per_event"], 0))
    add("append ceiling, bare library, events/s by writer processes", lambda r: ", ".join(
        f"{p}: {_f(v, 0)}" for p, v in r["append_ceiling"].items()))
    return out


def markdown_table(table: list[list[str]]) -> str:
    lines = ["| " + " | ".join(table[0]) + " |", "|" + "---|" * len(table[0])]
    lines += ["| " + " | ".join(row) + " |" for row in table[1:]]
    return "\n".join(lines)


def table(results: dict) -> str:
    """The table as printed by `make bench`."""
    head = (f"Gambit Match Service benchmarks ({results['label']}, {results['started_utc']}, "
            f"load average {results['load_start'][0]} -> {results['load_end'][0]} on {results['machine']['nproc']} cores)")
    return head + "\n\n" + markdown_table(rows(results)).replace("**", "") + "\n"


def before_after(before: dict, after: dict) -> str:
    """Before/after rows for the figures the optimizations aimed at."""
    lines = ["| figure | backend | before | after | change |", "|---|---|---|---|---|"]
    picks = [("service commands/s", lambda r: r["throughput"]["gambit"]["commands_per_s"]),
             ("baseline appends/s (same run)", lambda r: r["throughput"]["baseline"]["commands_per_s"]),
             ("ratio service / baseline", lambda r: ratio(r["throughput"])),
             ("command p50 ms under load", lambda r: r["throughput"]["gambit"]["ops"]["command"]["p50_ms"]),
             ("command p50 ms, 100 events", lambda r: r["long"]["lengths"]["100"]["command_p50_ms"]),
             ("command p50 ms, 10,000 events", lambda r: r["long"]["lengths"]["10000"]["command_p50_ms"]),
             ("view?at= p50 ms, 10,000 events", lambda r: r["long"]["lengths"]["10000"]["view_at_p50_ms"]),
             ("replay frames/s", lambda r: r["long"]["replay"]["frames_per_s"]),
             ("verify events/s", lambda r: r["long"]["verify"]["events_per_s"])]
    for backend in after["backends"]:
        for label, fn in picks:
            try:
                b, a = fn(before["backends"][backend]), fn(after["backends"][backend])
            except (KeyError, TypeError):
                continue
            change = f"{(a / b - 1) * 100:+.0f}%" if b else "–"
            lines.append(f"| {label} | {NAMES.get(backend, backend)} | {_f(float(b), 2)} | {_f(float(a), 2)} | {change} |")
    return "\n".join(lines)


def chart(results: dict, path: str, before: dict | None = None) -> None:
    """Four panels: throughput vs baseline, latency vs match length, append ceiling, before/after."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    backends = list(results["backends"])
    fig, axes = plt.subplots(2, 2, figsize=(12, 8.5))
    ax = axes[0][0]
    width = 0.25
    for i, (name, key) in enumerate((("service", "gambit"), ("service -O", "gambit-O"), ("baseline", "baseline"))):
        values = [results["backends"][b]["throughput"].get(key, {}).get("commands_per_s", 0) for b in backends]
        ax.bar([x + (i - 1) * width for x in range(len(backends))], values, width, label=name)
    ax.set_xticks(range(len(backends)), [NAMES.get(b, b) for b in backends])
    ax.set_ylabel("commands (appends) per second")
    ax.set_title("1. Throughput under bot load (median run)")
    ax.legend()
    ax = axes[0][1]
    for b in backends:
        lengths = results["backends"][b]["long"]["lengths"]
        xs = [lengths[k]["events"] for k in lengths]
        ax.plot(xs, [lengths[k]["command_p50_ms"] for k in lengths], marker="o", label=f"{NAMES.get(b, b)} command")
        ax.plot(xs, [lengths[k]["view_at_p50_ms"] for k in lengths], marker="s", linestyle="--",
                label=f"{NAMES.get(b, b)} view?at=")
    ax.set_xscale("log")
    ax.set_xlabel("events in the match")
    ax.set_ylabel("p50 latency, ms (sequential)")
    ax.set_title("2. Cost versus match length")
    ax.axhline(0, color="none")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8)
    ax = axes[1][0]
    for b in backends:
        ceiling = results["backends"][b]["append_ceiling"]
        ax.plot([int(p) for p in ceiling], list(ceiling.values()), marker="o", label=NAMES.get(b, b))
        ax.set_xticks([int(p) for p in ceiling])
    ax.set_xlabel("writer processes (bare library)")
    ax.set_ylabel("events appended per second")
    ax.set_title("4. Append ceiling")
    ax.set_ylim(bottom=0)
    ax.legend()
    ax = axes[1][1]
    if before is not None:
        labels, before_v, after_v = [], [], []
        for b in backends:
            if b in before["backends"]:
                labels.append(NAMES.get(b, b))
                before_v.append(ratio(before["backends"][b]["throughput"]))
                after_v.append(ratio(results["backends"][b]["throughput"]))
        ax.bar([x - 0.2 for x in range(len(labels))], before_v, 0.4, label="before")
        ax.bar([x + 0.2 for x in range(len(labels))], after_v, 0.4, label="after")
        ax.axhline(THROUGHPUT_TARGET, color="grey", linestyle=":", label=f"target {THROUGHPUT_TARGET}")
        ax.set_xticks(range(len(labels)), labels)
        ax.set_ylabel("service / baseline throughput (median of repetitions)")
        ax.set_title("Before / after: HTTP throughput ratio (noisy; A/B in the report)")
        ax.legend()
    else:
        ax.set_axis_off()
    fig.suptitle(f"Gambit Match Service — {results['started_utc']} — {results['machine']['nproc']} cores, "
                 f"load {results['load_start'][0]}→{results['load_end'][0]}")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def _load(name: str) -> dict | None:
    path = os.path.join(RESULTS, f"{name}.json")
    if not os.path.exists(path):
        return None
    with open(path) as handle:
        return json.load(handle)


def write(results: dict) -> None:
    """docs/benchmarks.md and docs/benchmarks.png from one run's results."""
    os.makedirs(DOCS, exist_ok=True)
    before = _load("before") if results["label"] != "before" else None
    chart(results, os.path.join(DOCS, "benchmarks.png"), before)
    m = results["machine"]
    targets = []
    for b, r in results["backends"].items():
        t, l = r["throughput"], r["long"]
        targets.append(f"- {NAMES.get(b, b)}: throughput ratio service / baseline **{ratio(t):.2f}** "
                       f"(target ≥ {THROUGHPUT_TARGET}): **{verdict(ratio(t) >= THROUGHPUT_TARGET)}** "
                       f"(per repetition: {', '.join(f'{x:.2f}' for x in t['ratio_runs'])})"
                       + (f"; with `python -O` {ratio(t, 'gambit-O'):.2f}" if "gambit-O" in t else "") + ".")
        targets.append(f"- {NAMES.get(b, b)}: command latency at 10,000 events / at 100 events = "
                       f"**{l['command_ratio']:.2f}** (target ≤ {LENGTH_TARGET}): **{verdict(l['command_ratio'] <= LENGTH_TARGET)}**; "
                       f"`view?at=` **{l['view_ratio']:.2f}**: **{verdict(l['view_ratio'] <= LENGTH_TARGET)}**.")
    method_path = os.path.join(ROOT, "bench", "method.md")
    notes_path = os.path.join(ROOT, "bench", "optimizations.md")
    method = open(method_path).read().strip() if os.path.exists(method_path) else ""
    notes = open(notes_path).read().strip() if os.path.exists(notes_path) else ""
    parts = [
        "# Benchmarks",
        "",
        "<!-- Generated by `make bench` (python -m bench.run) from bench/results/*.json; edit bench/method.md,"
        " bench/optimizations.md or bench/report.py instead. -->",
        "",
        f"Run `{results['label']}` started {results['started_utc']}, took {results['elapsed_s']:.0f} s"
        + (" (`--quick`: one short repetition — indicative only)" if results["quick"] else "") + ".",
        "",
        "## Targets",
        "",
        *targets,
        "",
        "## Results",
        "",
        markdown_table(rows(results)),
        "",
        "![benchmarks](benchmarks.png)",
        "",
        "## Machine",
        "",
        f"- {m['nproc']} cores ({m['cpu']}), {m['memory_gib']} GiB memory, {m['os']}",
        f"- Python {m['python']}, SQLite {m['sqlite']}, PostgreSQL {m['postgresql']} (local, same machine), "
        f"eventsourcing {m['eventsourcing']}, gunicorn {m['gunicorn']}",
        f"- load average (1/5/15 min) at start {results['load_start']}, at end {results['load_end']}: "
        "the machine is shared with other sessions, so absolute figures move between runs; the ratios "
        "(service vs baseline measured alternately in the same run) move much less.",
        "",
    ]
    if method:
        parts += [method, ""]
    if "what_if" in results:
        w = results["what_if"]
        parts += ["## What the remaining costs are worth (in-process what-ifs)", "",
                  f"Mean cost of one `POST /commands` in one process (Flask test client, {NAMES.get(w['backend'], w['backend'])}, "
                  f"{w['commands']} commands of bot play, median of {w['rounds']} interleaved rounds, each variant in a fresh "
                  "process; `bench/what_if.py`). The variants patch only the benchmark's own process, to size "
                  "changes in files this benchmark does not own. With two rounds these are indicative (each "
                  "round's figures are in the JSON); the interleaved A/B figures further down are steadier:", "",
                  "| variant | ms per command | vs as is |", "|---|---|---|"]
        for name, v in w["variants"].items():
            parts.append(f"| {name} | {v['mean_ms']:.2f} | {v['vs_as_is']:.2f} |")
        parts.append("")
    snap_rows = []
    for b, r in results["backends"].items():
        for length, figures in r.get("long", {}).get("lengths", {}).items():
            snap = figures.get("snapshot")
            if snap:
                largest = ", ".join(f"`{k}` {v:,}" for k, v in snap["largest"].items())
                in_state = ", ".join(f"`state.{k}` {v:,}" for k, v in snap["largest_in_state"].items())
                snap_rows.append(f"| {NAMES.get(b, b)} | {figures['events']:,} | {snap['aggregate_json_bytes']:,} | "
                                 f"{largest}; {in_state} | {figures['command_p50_ms']} | {figures['view_at_p50_ms']} |")
    if snap_rows:
        parts += ["## What a long match costs: the snapshot every load decodes", "",
                  "Each load reads the latest snapshot (every 50 versions) and folds the events after it, so "
                  "the fold is bounded; what grows is the snapshot itself (JSON bytes of the match's attributes):", "",
                  "| store | events | snapshot JSON bytes | largest parts (bytes) | command p50 ms | view?at= p50 ms |",
                  "|---|---|---|---|---|---|", *snap_rows, ""]
    limits_path = os.path.join(ROOT, "bench", "limits.md")
    if os.path.exists(limits_path):
        parts += [open(limits_path).read().strip(), ""]
    if notes or before is not None:
        parts += ["## Optimizations: before and after", ""]
        if notes:
            parts += [notes, ""]
        if before is not None:
            parts += ["### Before and after, over HTTP (the whole benchmark, twice)", "",
                      f"`make bench` run on a copy of the tree with the three files above as they were (`before`, "
                      f"{before['started_utc']}, load {before['load_start'][0]}→{before['load_end'][0]}), then on the "
                      f"tree with the changes (this run). Absolute figures move with the shared machine's load; "
                      f"the in-process A/B above is the steadier measure (`gambit verify` runs none of the changed "
                      f"code, so its change is the noise).", "", before_after(before, results), ""]
    with open(os.path.join(DOCS, "benchmarks.md"), "w") as handle:
        handle.write("\n".join(parts))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    path = argv[0] if argv else os.path.join(RESULTS, "full.json")
    with open(path) as handle:
        results = json.load(handle)
    write(results)
    print(table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
