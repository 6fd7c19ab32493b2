"""Size changes outside the files the benchmark may touch: mean in-process cost of one
POST /commands (Flask test client, SQLite) as it is, under `python -O`, and with the what-ifs of
bench/profile_hot.py. Each variant runs in a fresh process, `rounds` times interleaved; the
median is kept. Then one profiled pass gives the product's functions by share of a command's
time. `python -m bench.what_if` prints JSON; bench/run.py saves it with the results.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys

from bench.servers import ROOT

VARIANTS = {
    "as is": ([], False),
    "python -O": ([], True),
    "receipts unsigned (sizing the Ed25519 cost only)": (["--what-if", "no-signature"], False),
}


def what_if(commands: int = 150, rounds: int = 3, backend: str = "sqlite") -> dict:
    means: dict[str, list[float]] = {name: [] for name in VARIANTS}
    for _ in range(rounds):
        for name, (flags, optimize) in VARIANTS.items():
            command = [sys.executable] + (["-O"] if optimize else []) + [
                "-m", "bench.profile_hot", "--json", "--backend", backend, "--commands", str(commands)] + flags
            out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
            means[name].append(json.loads(out.stdout.strip().splitlines()[-1])["mean_ms"])
    base = statistics.median(means["as is"])
    # Where a command's time goes: one profiled pass (cProfile inflates small calls: shares are indicative).
    out = subprocess.run([sys.executable, "-m", "bench.profile_hot", "--json-profile", "--backend", backend,
                          "--commands", str(commands * 2)], cwd=ROOT, capture_output=True, text=True, check=True)
    profile = json.loads(out.stdout.strip().splitlines()[-1])
    return {"backend": backend, "commands": commands, "rounds": rounds,
            "variants": {name: {"mean_ms": round(statistics.median(v), 2), "runs": v,
                                "vs_as_is": round(statistics.median(v) / base, 3)} for name, v in means.items()},
            "profile": profile}


if __name__ == "__main__":
    print(json.dumps(what_if(), indent=1))
