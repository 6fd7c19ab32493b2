"""How late the clock keeper records an expiry: `python -m bench.clock_lateness [--matches N] [--backend B]`.

The target (docs/clocks.md): an untouched timed match's `ClockExpired` is recorded after its
deadline, never before, and within a second of it. The end-to-end test of `gambit serve`
(tests/e2e/test_keeper.py) checks that it is recorded exactly once and never early; how late is
a time target, so it is measured here, over many matches and on a real clock, not asserted by a
test: N matches with a one-second decision clock are created and joined in a burst, the keeper
(`projections.clocks.keep_clocks`, as `gambit serve`'s leader runs it) records their expiries,
and each expiry's lateness (its record's timestamp minus the deadline it names) is reported with
the machine's load. Prints one JSON object per store.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import threading
import time
from datetime import datetime

from bench.stores import store_url
from projections.clocks import ClockKeeper, keep_clocks
from service.app import build_gambit
from service.settings import Settings

TIMED = {"time_control": {"kind": "per_decision", "per_decision_s": 1}}


def _lateness(gambit, match_ids: list[str]) -> list[float]:
    """Seconds from each match's deadline to its recorded expiry (one per match that has one)."""
    late = []
    for match_id in match_ids:
        for record in gambit.matches.records(match_id):
            if record.kind == "ClockExpired":
                deadline = datetime.fromisoformat(record.public["deadline"])
                late.append((record.timestamp - deadline).total_seconds())
    return late


def measure(backend: str, matches: int, give_up_s: float = 60.0) -> dict:
    """Create `matches` timed gambitz matches, let the keeper expire them, and summarise the lateness."""
    with tempfile.TemporaryDirectory() as directory, store_url(backend, directory) as url:
        gambit = build_gambit(Settings(database_url=url, data_dir=directory))
        stop = threading.Event()
        keeper = ClockKeeper(gambit.matches.clocks, gambit.index.store)
        thread = threading.Thread(target=keep_clocks, args=(keeper, stop), daemon=True)
        thread.start()
        try:
            ids = []
            for _ in range(matches):
                match = gambit.matches.create_match("gambitz", TIMED)
                for seat in ("p1", "p2"):
                    gambit.matches.join(match.match_id, f"player-{seat}", seat)
                ids.append(match.match_id)
            give_up = time.monotonic() + give_up_s
            late = _lateness(gambit, ids)
            while len(late) < matches and time.monotonic() < give_up:
                time.sleep(0.5)
                late = _lateness(gambit, ids)
        finally:
            stop.set()
            thread.join(timeout=5)
            gambit.close()
    late.sort()
    return {
        "backend": backend,
        "matches": matches,
        "expired": len(late),
        "early": sum(1 for s in late if s < 0),
        "p50_s": round(statistics.median(late), 3) if late else None,
        "p95_s": round(late[int(0.95 * (len(late) - 1))], 3) if late else None,
        "max_s": round(late[-1], 3) if late else None,
        "within_1s": sum(1 for s in late if 0 <= s <= 1.0),
        "load": os.getloadavg()[0],
    }


def main(argv: list[str] | None = None) -> int:
    """Measure on each store asked for and print the figures; exit 1 if an expiry came early or not at all."""
    parser = argparse.ArgumentParser(prog="python -m bench.clock_lateness")
    parser.add_argument("--matches", type=int, default=50)
    parser.add_argument("--backend", choices=("sqlite", "postgres", "both"), default="both")
    args = parser.parse_args(argv)
    backends = ("sqlite", "postgres") if args.backend == "both" else (args.backend,)
    failed = False
    for backend in backends:
        result = measure(backend, args.matches)
        print(json.dumps(result), flush=True)
        failed = failed or result["early"] > 0 or result["expired"] < args.matches
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
