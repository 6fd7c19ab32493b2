"""Profile the command hot path in-process (Flask test client, one store), with cProfile.

`python -m bench.profile_hot [--backend sqlite|postgres] [--commands N] [--top K] [--what-if W]`
prints the mean cost of one POST /matches/{id}/commands and the functions that take most of it.
Only the POSTs are profiled; the bots' legal-commands reads are not.

`--no-profile` times without cProfile (its overhead distorts small functions). `--what-if`
sizes a change by patching this process only (never the product):
  no-signature  receipts carry a constant signature and every receipt verifies, to size the
                Ed25519 signing and checking per command (not a proposal to drop them; the
                service refuses a match without receipts, so they cannot simply be left out).
Run it under `python -O` to see the effect of the asserts that remain. `--signed`: both seats join with an
Ed25519 key and sign every command (signed outside the timed part, as a client does), so each POST checks and
records a signature. `--json` also gives `cpu_ms`, the process's CPU time per POST (time.process_time), which
another process keeping the cores busy hardly moves.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import random
import tempfile
import time

from bench.loadgen import ENDERS, SIGNATURE_HEADER, SeatSigner
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
    parser.add_argument("--signed", action="store_true", help="seats join with a key and sign every command")
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
        spent = cpu = 0.0
        done = 0
        while done < args.commands:
            match = client.post("/matches", json={"ruleset": "gambitz", "config": {}}).get_json()
            mid = match["match_id"]
            signers = {s: SeatSigner() for s in ("p1", "p2")} if args.signed else {}
            tokens = {s: client.post(f"/matches/{mid}/seats", json=_joining(s, signers)).get_json()["token"]
                      for s in ("p1", "p2")}
            seat = "p1"
            while done < args.commands:
                answer = client.get(f"/matches/{mid}/legal-commands",
                                    headers={"Authorization": f"Bearer {tokens[seat]}"}).get_json()
                if not answer["commands"]:
                    other = "p2" if seat == "p1" else "p1"
                    answer = client.get(f"/matches/{mid}/legal-commands",
                                        headers={"Authorization": f"Bearer {tokens[other]}"}).get_json()
                    if not answer["commands"]:
                        break  # finished
                    seat = other
                # Never resign or concede while anything else is legal (bench/loadgen.py): the match goes on.
                body = rng.choice([c for c in answer["commands"] if c["type"] not in ENDERS] or answer["commands"])
                headers = {"Authorization": f"Bearer {tokens[seat]}"}
                if seat in signers:
                    headers[SIGNATURE_HEADER] = signers[seat].sign(mid, answer["version"], body)
                started, started_cpu = time.perf_counter(), time.process_time()
                if not args.no_profile:
                    profiler.enable()
                response = client.post(f"/matches/{mid}/commands", json=body, headers=headers)
                if not args.no_profile:
                    profiler.disable()
                spent += time.perf_counter() - started
                cpu += time.process_time() - started_cpu
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
        print(json.dumps({"mean_ms": round(spent / done * 1000, 3), "cpu_ms": round(cpu / done * 1000, 3),
                          "commands": done}))
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


def _joining(seat: str, signers: dict) -> dict:
    """A join's body, with the seat's public key when it signs."""
    body: dict = {"name": seat, "seat": seat}
    if seat in signers:
        body["public_key"] = signers[seat].public_key
    return body


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
