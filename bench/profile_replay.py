"""In-process cost of replay frames and of loading a match (no HTTP): `python -m bench.profile_replay --json`.

Builds a dragons-gambit match of `--events` events (bench/longmatch.py) in a fresh SQLite store,
then times projections.views.replay over all of it (500 frames a page, as a spectator) and
`MatchService.match` loads at random versions. Prints frames/s and ms per load.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time

from bench.longmatch import LongMatch
from bench.stores import store_url


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=2000)
    parser.add_argument("--loads", type=int, default=200)
    parser.add_argument("--backend", default="sqlite", choices=("sqlite", "postgres"))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    from domain.ruleset import SPECTATOR, Viewer
    from projections.views import replay

    with tempfile.TemporaryDirectory() as tmp, store_url(args.backend, tmp) as url:
        long = LongMatch(url, tmp)
        long.grow_to(args.events)
        app, mid = long.app, long.match_id
        version = long.version
        viewer = Viewer(SPECTATOR, None, False)
        started, frames, first = time.perf_counter(), 0, 1
        while first <= version:
            page = replay(app, mid, viewer, first, version)
            frames += len(page["frames"])
            first = page["next_from"] or version + 1
        replay_s = time.perf_counter() - started
        rng = random.Random(1)
        started = time.perf_counter()
        for _ in range(args.loads):
            app.match(mid, version=rng.randint(1, version))
        load_ms = (time.perf_counter() - started) / args.loads * 1000
        long.close()
    result = {"mean_ms": round(load_ms, 3), "frames_per_s": round(frames / replay_s, 1), "events": version}
    print(json.dumps(result) if args.json else f"{version} events: replay {result['frames_per_s']} frames/s, "
                                                f"load at a random version {result['mean_ms']} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
