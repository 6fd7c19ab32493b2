"""Profile the command hot path in-process (Flask test client, one store), with cProfile.

`python -m bench.profile_hot [--backend sqlite|postgres] [--commands N] [--top K] [--what-if W]`
prints the mean cost of one POST /matches/{id}/commands and the functions that take most of it.
Only the POSTs are profiled; the bots' legal-commands reads are not.

`--no-profile` times without cProfile (its overhead distorts small functions). `--what-if`
sizes a change by patching this process only (never the product):
  no-signature  receipts carry a constant signature and every receipt verifies, to size the
                Ed25519 signing and checking per command (not a proposal to drop them; the
                service refuses a match without receipts, so they cannot simply be left out).
Run it under `python -O` to see the effect of the asserts that remain.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import random
import tempfile
import time

from bench.stores import store_url


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", default="sqlite", choices=("sqlite", "postgres"))
    parser.add_argument("--commands", type=int, default=600)
    parser.add_argument("--top", type=int, default=35)
    parser.add_argument("--sort", default="cumulative")
    parser.add_argument("--no-profile", action="store_true")
    parser.add_argument("--json", action="store_true", help="print only {\"mean_ms\": ...} (implies --no-profile)")
    parser.add_argument("--json-profile", action="store_true",
                        help="print {\"mean_ms\" (profiled), \"top_cumulative\": the product's functions by share}")
    parser.add_argument("--what-if", action="append", default=[], choices=("no-signature",))
    args = parser.parse_args(argv)
    if args.json:
        args.no_profile = True
    if args.json_profile:
        args.no_profile = False
    from service.app import create_app
    from service.settings import Settings

    _what_if(args.what_if)

    with tempfile.TemporaryDirectory() as tmp, store_url(args.backend, tmp) as url:
        app = create_app(Settings(database_url=url, data_dir=tmp))
        client = app.test_client()
        rng = random.Random(1)
        profiler = cProfile.Profile()
        spent = 0.0
        done = 0
        while done < args.commands:
            match = client.post("/matches", json={"ruleset": "gambitz", "config": {}}).get_json()
            mid = match["match_id"]
            tokens = {s: client.post(f"/matches/{mid}/seats", json={"name": s, "seat": s}).get_json()["token"]
                      for s in ("p1", "p2")}
            seat = "p1"
            while done < args.commands:
                legal = client.get(f"/matches/{mid}/legal-commands",
                                   headers={"Authorization": f"Bearer {tokens[seat]}"}).get_json()["commands"]
                if not legal:
                    other = "p2" if seat == "p1" else "p1"
                    legal = client.get(f"/matches/{mid}/legal-commands",
                                       headers={"Authorization": f"Bearer {tokens[other]}"}).get_json()["commands"]
                    if not legal:
                        break  # finished
                    seat = other
                body = rng.choice(legal)
                started = time.perf_counter()
                if not args.no_profile:
                    profiler.enable()
                response = client.post(f"/matches/{mid}/commands", json=body,
                                       headers={"Authorization": f"Bearer {tokens[seat]}"})
                if not args.no_profile:
                    profiler.disable()
                spent += time.perf_counter() - started
                assert response.status_code == 201, response.get_json()
                done += 1
        app.extensions["gambit"].close()
    import json
    import sys

    if args.json_profile:
        print(json.dumps({"mean_ms": round(spent / done * 1000, 3), "commands": done,
                          "top_cumulative": product_shares(profiler, spent)}))
        return 0
    if args.json:
        print(json.dumps({"mean_ms": round(spent / done * 1000, 3), "commands": done}))
        return 0
    mode = "profiled" if not args.no_profile else "not profiled"
    print(f"{args.backend}: {done} commands, mean {spent / done * 1000:.2f} ms per POST ({mode}; "
          f"python -O: {bool(sys.flags.optimize)}; what-if: {','.join(args.what_if) or 'none'})")
    if args.no_profile:
        return 0
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats(args.sort).print_stats(args.top)
    print(out.getvalue())
    return 0


def product_shares(profiler: cProfile.Profile, spent: float, top: int = 14) -> list[dict]:
    """The product's own functions (domain/, service/, projections/) and the library's save and load,
    by cumulative time as a share of the POSTs' time."""
    import os
    import re

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    stats = pstats.Stats(profiler, stream=io.StringIO()).stats
    picked = []
    for f, row in stats.items():
        path = f[0].replace(root, "")
        mine = path.startswith(("domain/", "service/", "projections/"))
        library = "eventsourcing/application.py" in path and f[2] in ("save", "get")
        if mine or library:
            picked.append((re.sub(r".*?/site-packages/", "", path) + f":{f[1]}({f[2]})", row[1], row[3]))
    picked.sort(key=lambda p: -p[2])
    return [{"function": name, "calls": calls, "share": round(cum / spent, 3)} for name, calls, cum in picked[:top]]


def _what_if(changes: list[str]) -> None:
    """Patch this process to size a change (see the module docstring)."""
    if "no-signature" in changes:
        from service.signing import Signer

        def receipt(self, match_id: str, version: int, head: str) -> dict:
            return {"match_id": match_id, "version": version, "head": head, "key_id": self.key_id,
                    "signature": "what-if"}

        Signer.receipt = receipt
        Signer.verify = lambda self, receipt: True

if __name__ == "__main__":
    raise SystemExit(main())
