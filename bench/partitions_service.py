"""Service commands/s with matches in four partitions ÷ in one: `python -m bench.partitions_service`.

Issue 34's check that partitioning costs no throughput: `gambit serve` as deployed (gevent workers, bench/servers.py)
on PostgreSQL, the benchmark's own bots (bench/loadgen.py: per turn one `GET /legal-commands` and one
`POST /commands`, 16 bots), first with one store, then with four partitions — two schemas on each of two servers
(`--second-url`; without it, four schemas of the one) — alternating, the order reversed every repetition, every
store fresh. Prints each run's commands/s, the load average before and after, and the median ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from contextlib import ExitStack

from bench.appends import _load
from bench.run import loadgen
from bench.servers import serve
from bench.stores import POSTGRES_URL, pg_schema


def one_run(partitions: int, second_url: str | None, cfg: dict, seed: int) -> dict:
    """Commands/s of one server on fresh stores: `partitions` = 1 (one store) or more."""
    servers = [POSTGRES_URL, *([second_url] if second_url else [])]
    with ExitStack() as stack, tempfile.TemporaryDirectory() as tmp:
        urls = [stack.enter_context(pg_schema("bench", servers[n * len(servers) // partitions]))[0]
                for n in range(partitions)]
        if partitions > 1:
            os.environ["GAMBIT_PARTITION_URLS"] = ",".join(urls)
        else:
            os.environ.pop("GAMBIT_PARTITION_URLS", None)
        before = _load()
        try:
            with serve("gambit", urls[0], os.path.join(tmp, "data")) as base:
                result = loadgen(base, "gambit", cfg, seed=seed)
        finally:
            os.environ.pop("GAMBIT_PARTITION_URLS", None)
        return {"partitions": partitions, "commands_per_s": result["commands_per_s"], "errors": result["errors"],
                "load_before": before, "load_after": _load()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--bots", type=int, default=16)
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--second-url", default=os.environ.get("GAMBIT_BENCH_SECOND_POSTGRES_URL"))
    args = parser.parse_args(argv)
    cfg = {"bots": args.bots, "duration": args.duration, "warmup": args.warmup}
    runs = []
    for rep in range(args.repeat):
        for partitions in ((1, 4) if rep % 2 == 0 else (4, 1)):
            run = one_run(partitions, args.second_url, cfg, seed=rep + 1)
            print(json.dumps(run), flush=True)
            runs.append(run)
    ratios = []
    for rep in range(args.repeat):
        pair = {r["partitions"]: r["commands_per_s"] for r in runs[2 * rep: 2 * rep + 2]}
        ratios.append(pair[4] / pair[1])
    print(f"commands/s four partitions ÷ one, per repetition: {', '.join(f'{r:.2f}' for r in ratios)}; "
          f"median {statistics.median(ratios):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
