"""How long the leading worker's background work holds its loop (issue 34, "two measurements"): `python -m
bench.background_turns`.

Under gevent workers the log's sequencer and the clock keeper are greenlets of a serving worker: while one decodes
and checks a batch of records, no request of that worker runs. This measures, in one gevent-patched process on
PostgreSQL, a ticker greenlet's lateness (how long it waited past its 1 ms sleep: a request arriving then waits as
long) while the sequencer integrates, and the clock keeper follows, `--records` records written through the
service beforehand — with the duties folding in turns (as shipped, projections/turns.py) and without (each batch in
one go), alternating, each variant on a fresh store. CPU time moves far less with the machine's other load than wall
time, so the process's CPU time per pass is shown beside it.
"""

from __future__ import annotations

from gevent import monkey

monkey.patch_all()

import argparse
import json
import os
import random
import statistics
import tempfile
import time

import gevent


def _grow(client, commands: int) -> None:
    """Bot play through the test client: matches of gambitz until `commands` commands are stored."""
    from bench.loadgen import ENDERS

    rng = random.Random(1)
    done = 0
    while done < commands:
        mid = client.post("/matches", json={"ruleset": "gambitz", "config": {}}).get_json()["match_id"]
        tokens = {s: client.post(f"/matches/{mid}/seats", json={"name": s, "seat": s}).get_json()["token"]
                  for s in ("p1", "p2")}
        seat = "p1"
        for _ in range(12):  # short matches: many matches new to each batch, as under a load
            answer = client.get(f"/matches/{mid}/legal-commands", headers={"Authorization": f"Bearer {tokens[seat]}"})
            listed = answer.get_json()["commands"]
            if not listed:
                seat = "p2" if seat == "p1" else "p1"
                continue
            body = rng.choice([c for c in listed if c["type"] not in ENDERS] or listed)
            client.post(f"/matches/{mid}/commands", json=body, headers={"Authorization": f"Bearer {tokens[seat]}"})
            done += 1
            seat = "p2" if seat == "p1" else "p1"


def one(turns_on: bool, records: int) -> dict:
    """One variant on a fresh store: the ticker's lateness while the sequencer, then the clock keeper, catch up."""
    from bench.stores import store_url
    from projections import turns
    from projections.clocks import ClockKeeper
    from service.app import create_app
    from service.keeper import build_sequencer
    from service.settings import Settings

    shipped = turns.give_way
    if not turns_on:
        turns.give_way = lambda: None
    try:
        with tempfile.TemporaryDirectory() as tmp, store_url("postgres", tmp) as url:
            app = create_app(Settings(database_url=url, data_dir=tmp))
            _grow(app.test_client(), records)
            gambit = app.extensions["gambit"]
            late: list[float] = []
            running = [True]

            def tick() -> None:
                while running[0]:
                    started = time.perf_counter()
                    gevent.sleep(0.001)
                    late.append(time.perf_counter() - started - 0.001)

            ticker = gevent.spawn(tick)
            gevent.sleep(0.05)
            cpu, wall = time.process_time(), time.perf_counter()
            added = gevent.spawn(build_sequencer(gambit).integrate).get()
            followed = gevent.spawn(ClockKeeper(gambit.matches.clocks, gambit.index.store).catch_up).get()
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            running[0] = False
            ticker.join()
            gambit.close()
    finally:
        turns.give_way = shipped
    ordered = sorted(late)
    return {"turns": turns_on, "leaves": added, "records_followed": followed, "cpu_s": round(cpu, 3),
            "wall_s": round(wall, 3), "ticks": len(ordered),
            "late_p50_ms": round(ordered[len(ordered) // 2] * 1000, 2),
            "late_p99_ms": round(ordered[int(0.99 * (len(ordered) - 1))] * 1000, 2),
            "late_max_ms": round(ordered[-1] * 1000, 2), "load": round(os.getloadavg()[0], 2)}


def main(argv: list[str] | None = None) -> int:
    """Alternate the two variants and print each run and the medians."""
    parser = argparse.ArgumentParser(prog="python -m bench.background_turns")
    parser.add_argument("--records", type=int, default=600, help="commands stored before the duties catch up")
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args(argv)
    runs: dict[bool, list[dict]] = {True: [], False: []}
    for rep in range(args.reps):
        for turns_on in ((True, False) if rep % 2 == 0 else (False, True)):
            result = one(turns_on, args.records)
            runs[turns_on].append(result)
            print(json.dumps(result), flush=True)
    for turns_on, results in runs.items():
        print(f"turns {'on ' if turns_on else 'off'}: longest hold of the loop (ms, median of runs) "
              f"{statistics.median(r['late_max_ms'] for r in results)}, ticker p99 lateness "
              f"{statistics.median(r['late_p99_ms'] for r in results)} ms, CPU s "
              f"{statistics.median(r['cpu_s'] for r in results)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
