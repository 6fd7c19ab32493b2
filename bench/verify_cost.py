"""Where the time of `gambit verify` goes: `python -m bench.verify_cost EXPORT [--key KEY] [--profile]`.

Run in a fresh process (as `gambit verify` is), it prints one JSON object:
- `import_s`: importing what `gambit verify --key` imports: `service.cli`, then (in its handler)
  `service.verify_cli` and the key's library, then (for the replay) the rulesets;
- `verify_s`: `service.verify_cli.run_verify` on the export, in this process (report to /dev/null), as
  `gambit verify` runs it (in two processes for a long export on a machine with a second core);
- `verify_one_process_s`: the same in this process alone (`--jobs 1`);
- `parse_s`: reading the same file and `json.loads` of each of its lines (the yardstick of the
  verify ratio);
- with `--profile`, `top`: the functions with most own time in a profiled verify in one process (cProfile).
`--parse-only` prints `parse_s` alone. `--once` imports and verifies once, as `gambit verify` does (`--jobs`:
auto, 1 or 2), and prints `import_s`, `verify_s`, `cpu_s` (this process's CPU time for the verification,
without a forked child's) and the exit code: timed from outside, its run is a
`gambit verify`. `--no-redecide` leaves the `commands` check out (`run_verify(redecide=False)`, which no
option of `gambit verify` sets): the verification without re-deciding, to size that check's cost.
The rest of an end-to-end `gambit verify` (timed by bench/run.py) is the interpreter's start.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import time


def parse_lines(path: str) -> tuple[float, int]:
    """Seconds to read the file and json.loads every line; and the number of lines."""
    started = time.perf_counter()
    count = 0
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            json.loads(line)
            count += 1
    return time.perf_counter() - started, count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.verify_cost")
    parser.add_argument("export")
    parser.add_argument("--key", default=None)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--parse-only", action="store_true", help="only `parse_s` (and `lines`)")
    parser.add_argument("--once", action="store_true", help="import and verify once, as `gambit verify` does")
    parser.add_argument("--jobs", default="auto", choices=("auto", "1", "2"), help="with --once: processes")
    parser.add_argument("--no-redecide", action="store_true", help="verify without the `commands` check")
    args = parser.parse_args(argv)
    redecide = not args.no_redecide
    if args.parse_only:
        parse_s, lines = parse_lines(args.export)
        print(json.dumps({"parse_s": round(parse_s, 4), "lines": lines}))
        return 0
    started = time.perf_counter()
    import service.cli  # what `gambit verify` imports first
    from service.verify_cli import run_verify

    if args.key:
        import service.signing  # noqa: F401  (imported by `run_verify` when a key is given)
    import domain.rulesets  # noqa: F401  (imported by the replay)

    import_s = time.perf_counter() - started
    if args.once:
        jobs = None if args.jobs == "auto" else int(args.jobs)
        with open(os.devnull, "w") as sink:
            started, started_cpu = time.perf_counter(), time.process_time()
            code = run_verify(args.export, args.key, False, out=sink, err=sink, jobs=jobs, redecide=redecide)
            verify_s, cpu_s = time.perf_counter() - started, time.process_time() - started_cpu
        print(json.dumps({"import_s": round(import_s, 4), "verify_s": round(verify_s, 4), "cpu_s": round(cpu_s, 4),
                          "exit_code": code}))
        return 0
    with open(os.devnull, "w") as sink:
        started = time.perf_counter()
        code = run_verify(args.export, args.key, False, out=sink, err=sink, jobs=None, redecide=redecide)
        verify_s = time.perf_counter() - started
        started = time.perf_counter()
        run_verify(args.export, args.key, False, out=sink, err=sink, jobs=1, redecide=redecide)
        one_process_s = time.perf_counter() - started
        parse_s, lines = parse_lines(args.export)
        out = {
            "import_s": round(import_s, 4),
            "verify_s": round(verify_s, 4),
            "verify_one_process_s": round(one_process_s, 4),
            "parse_s": round(parse_s, 4),
            "lines": lines,
            "exit_code": code,
        }
        if args.profile:
            import cProfile
            import pstats

            profiler = cProfile.Profile()
            profiler.enable()
            run_verify(args.export, args.key, False, out=sink, err=sink, redecide=redecide)
            profiler.disable()
            stats = pstats.Stats(profiler, stream=io.StringIO())
            total = sum(row[2] for row in stats.stats.values()) or 1.0
            root = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep

            def name(f) -> str:
                path = re.sub(r".*?/lib/python3\.\d+/(site-packages/)?", "", f[0].replace(root, ""))
                return f"{path}:{f[1]}({f[2]})"

            own = sorted(stats.stats.items(), key=lambda kv: -kv[1][2])[:8]
            out["top"] = [{"function": name(f), "own_share": round(r[2] / total, 3), "calls": r[1]} for f, r in own]
            # The service's own functions by cumulative time: which steps of the verification cost.
            mine = [(f, r) for f, r in stats.stats.items() if f[0].startswith(root) and "bench" not in f[0]]
            cumulative = sorted(mine, key=lambda kv: -kv[1][3])[:10]
            out["top_cumulative"] = [
                {"function": name(f), "share": round(r[3] / total, 3), "calls": r[1]} for f, r in cumulative
            ]
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
