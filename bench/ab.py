"""A/B of the command hot path between two source trees (e.g. before and after a change).

`python -m bench.ab TREE_A TREE_B [--rounds N] [--commands N] [--backend sqlite|postgres]`
runs bench/profile_hot.py (`--json`, no profiler) from each tree in turn, in fresh processes,
N rounds interleaved A, B, A, B…, and prints the median mean-cost of one POST /commands for
each. In-process and interleaved, it is far less sensitive to a shared machine's load than the
HTTP throughput runs, so it is how the optimizations' before/after is measured.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys


def run(tree: str, backend: str, commands: int, what: str = "command") -> dict:
    env = {**os.environ, "PYTHONPATH": tree}
    if what == "command":
        command = ["-m", "bench.profile_hot", "--json", "--backend", backend, "--commands", str(commands)]
    else:
        command = ["-m", "bench.profile_replay", "--json", "--backend", backend]
    # The driver scripts are taken from this tree, the product code from the tree under test.
    env["PYTHONPATH"] = tree
    out = subprocess.run([sys.executable] + command, cwd=tree, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--commands", type=int, default=200)
    parser.add_argument("--backend", default="sqlite", choices=("sqlite", "postgres"))
    parser.add_argument("--what", default="command", choices=("command", "replay"),
                        help="command: ms per POST /commands; replay: replay frames/s and ms per match load")
    args = parser.parse_args(argv)
    runs: dict[str, list[dict]] = {args.a: [], args.b: []}
    for _ in range(args.rounds):
        for tree in (args.a, args.b):
            runs[tree].append(run(tree, args.backend, args.commands, args.what))
    out: dict = {"backend": args.backend, "what": args.what, "rounds": args.rounds}
    for label, tree in (("a", args.a), ("b", args.b)):
        out[label] = {"tree": tree}
        for key in runs[tree][0]:
            out[label][key] = statistics.median(r[key] for r in runs[tree])
    for key in runs[args.a][0]:
        if out["a"][key]:
            out[f"b_vs_a_{key}"] = round(out["b"][key] / out["a"][key], 3)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
