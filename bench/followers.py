"""Idle SSE followers against command latency and health checks: `python -m bench.followers`.

For each store: `gambit serve` as deployed (gevent workers); 4 bots play `gambitz` through the
public API for a window while /healthz is sampled every 100 ms — first with no followers, then
with N idle SSE followers open (spread over running matches nobody plays, all from 127.0.0.1, so
the per-client stream cap is lifted for the run). Reported: command p50/p99 in both phases, their
ratio, /healthz p99 and worst, and how many followers were still connected at the end.
Targets (issue 17): p99 with followers ≤ 2× p99 without; /healthz < 100 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from urllib.parse import urlparse

from bench.loadgen import percentile
from bench.servers import ROOT, serve
from bench.stores import store_url

MATCHES = 50


def _post(base: str, path: str, body: dict) -> dict:
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def _running_matches(base: str, count: int) -> list[str]:
    ids = []
    for _ in range(count):
        match = _post(base, "/matches", {"ruleset": "gambitz"})
        for seat in ("p1", "p2"):
            _post(base, f"/matches/{match['match_id']}/seats", {"name": seat, "seat": seat})
        ids.append(match["match_id"])
    return ids


def _open_followers(base: str, match_ids: list[str], count: int) -> list[socket.socket]:
    url = urlparse(base)
    followers = []
    for i in range(count):
        sock = socket.create_connection((url.hostname, url.port), timeout=30)
        path = f"/matches/{match_ids[i % len(match_ids)]}/events?after=1000000"
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n".encode())
        followers.append(sock)
    for sock in followers:
        sock.settimeout(30)
        head = sock.recv(4096)
        if b"200 OK" not in head:
            raise RuntimeError(f"a follower was refused: {head[:200]!r}")
    return followers


def _still_open(followers: list[socket.socket]) -> int:
    alive = 0
    for sock in followers:
        sock.setblocking(False)
        try:
            alive += sock.recv(65536) != b""
        except BlockingIOError:
            alive += 1
        except OSError:
            pass
    return alive


class HealthProbe(threading.Thread):
    """Samples GET /healthz every 100 ms on a fresh connection (as a load balancer would)."""

    def __init__(self, base: str) -> None:
        super().__init__(daemon=True)
        self.base = base
        self.samples: list[float] = []
        self.failures = 0
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            started = time.perf_counter()
            try:
                with urllib.request.urlopen(self.base + "/healthz", timeout=5) as response:
                    response.read()
                self.samples.append(time.perf_counter() - started)
            except OSError:
                self.failures += 1
            self.stop.wait(0.1)


def _phase(base: str, bots: int, duration: float) -> dict:
    probe = HealthProbe(base)
    probe.start()
    out = subprocess.run([sys.executable, "-m", "bench.loadgen", "--base", base, "--kind", "gambit",
                          "--bots", str(bots), "--duration", str(duration), "--warmup", "2"],
                         cwd=ROOT, capture_output=True, text=True, check=True)
    probe.stop.set()
    probe.join()
    load = json.loads(out.stdout.strip().splitlines()[-1])
    command = load["ops"]["command"]
    return {"commands_per_s": round(load["commands_per_s"], 1), "command_p50_ms": command["p50_ms"],
            "command_p99_ms": command["p99_ms"], "errors": load["errors"],
            "healthz_p99_ms": round(1000 * (percentile(probe.samples, 99) or 0), 1),
            "healthz_max_ms": round(1000 * max(probe.samples, default=0), 1), "healthz_failures": probe.failures}


def measure(target: str, followers: int, bots: int, duration: float) -> dict:
    """Both phases on a fresh store of one backend (`postgres:listen` watches with LISTEN/NOTIFY)."""
    backend, _, watch = target.partition(":")
    os.environ["GAMBIT_STREAM_WATCH"] = watch or "poll"
    with (
        tempfile.TemporaryDirectory() as tmp,
        store_url(backend, tmp) as url,
        serve("gambit", url, os.path.join(tmp, "data")) as base,
    ):
        without = _phase(base, bots, duration)
        match_ids = _running_matches(base, MATCHES)
        opened = time.monotonic()
        sockets = _open_followers(base, match_ids, followers)
        try:
            with_followers = _phase(base, bots, duration)
            with_followers["followers_open_at_end"] = _still_open(sockets)
            with_followers["followers_opened_in_s"] = round(time.monotonic() - opened, 1)
        finally:
            for sock in sockets:
                sock.close()
    ratio = (with_followers["command_p99_ms"] or 0) / (without["command_p99_ms"] or 1)
    return {"backend": f"{backend} ({watch or 'poll'})", "followers": followers, "bots": bots, "without": without,
            "with": with_followers, "p99_ratio": round(ratio, 2)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--followers", type=int, default=1000)
    parser.add_argument("--bots", type=int, default=4)
    parser.add_argument("--duration", type=float, default=10)
    parser.add_argument("--backends", default="sqlite,postgres,postgres:listen")
    parser.add_argument("--write-docs", action="store_true", help="rewrite docs/benchmarks-followers.md")
    args = parser.parse_args(argv)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 4 * args.followers + 256)), hard))
    # Every follower comes from 127.0.0.1: the per-client cap is for real clients, not this run.
    os.environ["GAMBIT_MAX_STREAMS_PER_CLIENT"] = "0"
    load_before = os.getloadavg()
    results = [measure(b, args.followers, args.bots, args.duration) for b in args.backends.split(",")]
    load_after = os.getloadavg()
    os.makedirs(os.path.join(ROOT, "bench", "results"), exist_ok=True)
    with open(os.path.join(ROOT, "bench", "results", "followers.json"), "w") as handle:
        json.dump({"results": results, "load_before": load_before, "load_after": load_after}, handle, indent=2)
    table = _table(results)
    print("\n".join(table))
    if args.write_docs:
        _write_page(args, table, load_before, load_after)
    return 0


def _table(results: list[dict]) -> list[str]:
    rows = [("| store | followers | commands/s (0 → N) | command p99 ms (0 → N) | p99 ratio (target ≤ 2) | "
             "/healthz p99 / worst ms with N (target < 100) | followers open at the end |"),
            "|---|---|---|---|---|---|---|"]
    for r in results:
        a, b = r["without"], r["with"]
        rows.append(f"| {r['backend']} | {r['followers']} | {a['commands_per_s']} → {b['commands_per_s']} | "
                    f"{a['command_p99_ms']} → {b['command_p99_ms']} | {r['p99_ratio']} | "
                    f"{b['healthz_p99_ms']} / {b['healthz_max_ms']} | {b['followers_open_at_end']} |")
    return rows


def _write_page(args: argparse.Namespace, table: list[str], load_before: tuple, load_after: tuple) -> None:
    """docs/benchmarks-followers.md from this run."""
    page = [
        "# Idle SSE followers: what a thousand cost",
        "",
        (f"`make bench-followers` (`python -m bench.followers --followers {args.followers} --bots {args.bots} "
         f"--duration {args.duration:g}`), {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, on this 2-core "
         f"machine; load average {load_before[0]:.2f} before and {load_after[0]:.2f} after the run (other work "
         "shares the machine: compare the two phases of one run, not runs)."),
        "",
        *table,
        "",
        "Each store runs `gambit serve` as deployed (gevent workers). First 4 bots play `gambitz` through",
        "the public API while `/healthz` is sampled every 100 ms on fresh connections; then the followers",
        "open (idle streams on 50 running matches nobody plays, all from 127.0.0.1, so the per-client cap",
        "is lifted for the run) and the same load runs again. An idle follower is a parked greenlet that",
        "queries nothing: one watcher per process (one poll of the notification log every 0.25 s",
        "on either store by default, or LISTEN/NOTIFY on PostgreSQL with `GAMBIT_STREAM_WATCH=listen`)",
        "wakes only the followers of matches that got new records (`service/streams.py`). Under write",
        "load `listen` costs more: every write makes every worker read the notification log.",
        "",
    ]
    with open(os.path.join(ROOT, "docs", "benchmarks-followers.md"), "w") as handle:
        handle.write("\n".join(page))


if __name__ == "__main__":
    raise SystemExit(main())
