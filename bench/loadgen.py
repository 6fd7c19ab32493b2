"""The load generator: bots playing many matches at once over HTTP, in its own process.

`python -m bench.loadgen --base URL --kind gambit|baseline|human --bots N --duration S [--warmup W]`
prints one JSON object. Each bot is a thread with one keep-alive connection (stdlib
http.client) that plays one match after another:

- gambit: create a 2-seat gambitz match, join both seats, then for each turn GET
  legal-commands as the seat to act and POST one of them (a random choice, never resign or
  concede while anything else is legal) — what a client that plays only through the API does.
  A finished match is replaced by a new one.
- baseline: create an aggregate, then per "turn" GET it and POST one event to it (the same
  two requests a turn costs), 60 turns per aggregate (about a gambitz match), then a new one.
  The same load drives the baseline with snapshots (bench/baseline_app.py, BENCH_BASELINE_SNAPSHOTS).
- human: `--bots` matches (200 for the p99 target) played at human pace. First every bot
  creates its 2-seat gambitz match and joins both seats, all at once; only when every match
  is set up does the clock start (the set-up time is reported as `setup_s`). Then each bot
  waits a random moment (so the matches do not move in step), and for every turn thinks for
  a random `--think` time (uniform, default 1.5-4.5 s), reads legal-commands as the seat to act
  and posts one of them: a seat's own commands come ~6 s apart (3-9 s: its think time and its
  opponent's), so 200 matches send ~67 commands/s. A finished match is replaced by a new one.
  After `--warmup` seconds of play the window of `--duration` seconds begins.

With `--signed` (gambit only) each seat registers an Ed25519 key when it joins and signs every
command it posts (`Gambit-Signature` over the match id, the version legal-commands answered with and
the body, as a client does: tests/support/seat_keys.py), so the service checks and records each signature.

Only requests that finish inside the measurement window (after the warm-up) are counted. With
`--cpu-of PID` the CPU time (user + system) the process and its children (a gunicorn master and
its workers) spent inside the window is reported too (`server_cpu_s`, `commands_per_cpu_s`):
unlike commands/s it hardly moves with what else keeps a shared machine busy.
"""

from __future__ import annotations

import argparse
import base64
import http.client
import json
import os
import random
import threading
import time
from urllib.parse import urlparse

BASELINE_TURNS = 60
ENDERS = ("resign", "concede")
SIGNATURE_HEADER = "Gambit-Signature"


class SeatSigner:
    """A seat's Ed25519 key: its public key as a join sends it, and its signature of a command."""

    def __init__(self) -> None:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        self._key = Ed25519PrivateKey.generate()
        raw = self._key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        self.public_key = {"alg": "ed25519", "key": base64.b64encode(raw).decode()}

    def sign(self, match_id: str, version: int, body: dict) -> str:
        """The Gambit-Signature of a command body decided on `version` of a match."""
        from domain.seat_keys import signed_message

        return base64.b64encode(self._key.sign(signed_message(match_id, version, body))).decode()


class Bot(threading.Thread):
    """One player-pair driving one match at a time."""

    def __init__(self, base: str, kind: str, seed: int, start_at: float, stop_at: float, end_at: float,
                 signed: bool = False) -> None:
        super().__init__(daemon=True)
        self.signed = signed
        self.signers: dict[str, SeatSigner] = {}
        parsed = urlparse(base)
        self.host, self.port = parsed.hostname, parsed.port
        self.kind = kind
        self.rng = random.Random(seed)
        self.start_at, self.stop_at, self.end_at = start_at, stop_at, end_at
        self.samples: list[tuple[str, int, float]] = []  # (op, status, seconds) inside the window
        self.error_bodies: dict[str, str] = {}  # "op status" -> the first such response body
        self.matches_started = 0
        self.matches_finished = 0
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=60)

    def call(self, op: str, method: str, path: str, body: dict | None = None, token: str | None = None,
             signature: str | None = None) -> tuple[int, dict]:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if signature:
            headers[SIGNATURE_HEADER] = signature
        data = None if body is None else json.dumps(body).encode()
        for attempt in (1, 2):
            started = time.perf_counter()
            try:
                self.conn.request(method, path, body=data, headers=headers)
                response = self.conn.getresponse()
                raw = response.read()
                status = response.status
                break
            except (http.client.HTTPException, OSError):
                # The server closed an idle keep-alive connection: reconnect once.
                self.conn.close()
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
                if attempt == 2:
                    status, raw = 599, b"null"
        ended = time.perf_counter()
        if self.start_at <= started and ended <= self.stop_at:
            self.samples.append((op, status, ended - started))
        if status >= 300 and f"{op} {status}" not in self.error_bodies:
            self.error_bodies[f"{op} {status}"] = raw[:300].decode("utf-8", "replace")
        try:
            return status, json.loads(raw or b"null")
        except ValueError:
            return status, {}

    def run(self) -> None:
        try:
            while time.perf_counter() < self.stop_at:
                if self.kind == "gambit":
                    self.play_gambit()
                else:
                    self.play_baseline()
        finally:
            self.conn.close()

    def play_gambit(self) -> None:
        status, match = self.call("create", "POST", "/matches", {"ruleset": "gambitz", "config": {"players": 2}})
        if status != 201:
            time.sleep(0.1)
            return
        mid = match["match_id"]
        tokens = {}
        self.signers = {seat: SeatSigner() for seat in ("p1", "p2")} if self.signed else {}
        for seat in ("p1", "p2"):
            joining = {"name": f"bot-{seat}", "seat": seat}
            if seat in self.signers:
                joining["public_key"] = self.signers[seat].public_key
            status, joined = self.call("join", "POST", f"/matches/{mid}/seats", joining)
            if status != 201:
                return
            tokens[seat] = joined["token"]
        self.matches_started += 1
        seat = "p1"
        while time.perf_counter() < self.stop_at:
            after = self.play_turn(mid, tokens, seat)
            if after is None:
                self.matches_finished += 1
                return
            seat = after

    def play_turn(self, mid: str, tokens: dict[str, str], seat: str) -> str | None:
        """One turn of a 2-seat gambitz match: the seat to act next, or None once the match has ended."""
        status, legal = self.call("legal", "GET", f"/matches/{mid}/legal-commands", token=tokens[seat])
        commands = legal.get("commands") if status == 200 else None
        if not commands:
            seat = "p2" if seat == "p1" else "p1"
            status, legal = self.call("legal", "GET", f"/matches/{mid}/legal-commands", token=tokens[seat])
            commands = legal.get("commands") if status == 200 else None
            if not commands:
                return None
        # Never resign or concede while anything else is legal (as bench/longmatch.py plays): legal-commands lists
        # resign at every turn, and a bot taking it at random ended most matches within a few commands.
        body = self.rng.choice([c for c in commands if c.get("type") not in ENDERS] or commands)
        signer = self.signers.get(seat)
        signature = signer.sign(mid, legal["version"], body) if signer is not None else None
        status, _ = self.call("command", "POST", f"/matches/{mid}/commands", body, token=tokens[seat],
                              signature=signature)
        # gambitz alternates (a redraw costs one more read)
        return ("p2" if seat == "p1" else "p1") if status == 201 else seat

    def play_baseline(self) -> None:
        status, created = self.call("create", "POST", "/aggregates", {})
        if status != 201:
            time.sleep(0.1)
            return
        aid = created["id"]
        self.matches_started += 1
        for turn in range(BASELINE_TURNS):
            if time.perf_counter() >= self.stop_at:
                return
            self.call("legal", "GET", f"/aggregates/{aid}")
            self.call("command", "POST", f"/aggregates/{aid}/events", {"type": "move", "turn": turn})
        self.matches_finished += 1


class HumanBot(Bot):
    """One 2-seat gambitz match played at human pace (both seats, one connection)."""

    def __init__(self, base: str, seed: int, think: tuple[float, float], go: threading.Event) -> None:
        inf = float("inf")
        super().__init__(base, "human", seed, inf, inf, inf)  # nothing is sampled until the clock starts
        self.think = think
        self.go = go
        self.ready = threading.Event()
        self.match: tuple[str, dict[str, str]] | None = None
        self.seat = "p1"

    def new_match(self) -> tuple[str, dict[str, str]] | None:
        status, match = self.call("create", "POST", "/matches", {"ruleset": "gambitz", "config": {"players": 2}})
        if status != 201:
            return None
        tokens = {}
        for seat in ("p1", "p2"):
            status, joined = self.call("join", "POST", f"/matches/{match['match_id']}/seats",
                                       {"name": f"human-{seat}", "seat": seat})
            if status != 201:
                return None
            tokens[seat] = joined["token"]
        self.matches_started += 1
        self.seat = "p1"
        return match["match_id"], tokens

    def run(self) -> None:
        try:
            for _ in range(3):
                self.match = self.new_match()
                if self.match is not None:
                    break
            self.ready.set()
            self.go.wait()
            time.sleep(self.rng.uniform(0, self.think[1]))  # matches do not move in step
            while time.perf_counter() < self.stop_at:
                if self.match is None:
                    self.match = self.new_match()
                    if self.match is None:
                        time.sleep(0.5)
                    continue
                time.sleep(self.rng.uniform(*self.think))
                if time.perf_counter() >= self.stop_at:
                    break
                self.turn()
        finally:
            self.ready.set()
            self.conn.close()

    def turn(self) -> None:
        mid, tokens = self.match
        seat = self.play_turn(mid, tokens, self.seat)
        if seat is None:
            self.matches_finished += 1
            self.match = None
        else:
            self.seat = seat


class HumanBaselineBot(HumanBot):
    """The baseline at human pace: one aggregate per "match", each turn a think, one read (GET) and one append."""

    def new_match(self) -> tuple[str, dict[str, str]] | None:
        status, created = self.call("create", "POST", "/aggregates", {})
        if status != 201:
            return None
        self.matches_started += 1
        self.turns = 0
        return created["id"], {}

    def turn(self) -> None:
        aid, _ = self.match
        self.call("legal", "GET", f"/aggregates/{aid}")
        self.call("command", "POST", f"/aggregates/{aid}/events", {"type": "move", "turn": self.turns})
        self.turns += 1
        if self.turns >= BASELINE_TURNS:
            self.matches_finished += 1
            self.match = None


def cpu_seconds(root: int) -> float:
    """User + system CPU seconds of a process and its direct children so far (Linux /proc)."""
    pids = [root]
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == root:
                pids.append(int(entry))
    ticks = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / os.sysconf("SC_CLK_TCK")


def cpu_in_window(root: int, start_at: float, stop_at: float) -> float:
    """CPU seconds a process tree spends between two `time.perf_counter()` moments (sampled at each)."""
    time.sleep(max(0.0, start_at - time.perf_counter()))
    before = cpu_seconds(root)
    time.sleep(max(0.0, stop_at - time.perf_counter()))
    return cpu_seconds(root) - before


def percentile(values: list[float], q: float) -> float | None:
    """The q-th percentile (nearest rank) of the values, or None."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


def summarize(samples: list[tuple[str, int, float]], window: float) -> dict:
    """Throughput, latency percentiles (ms) and errors per operation."""
    ok = {"create": 201, "join": 201, "legal": 200, "command": 201}
    out: dict = {"window_s": window, "requests": len(samples), "requests_per_s": len(samples) / window, "ops": {}}
    errors = 0
    for op in ("command", "legal", "create", "join"):
        mine = [s for s in samples if s[0] == op]
        good = [s[2] for s in mine if s[1] == ok[op]]
        bad: dict[str, int] = {}
        for _, status, _ in mine:
            if status != ok[op]:
                bad[str(status)] = bad.get(str(status), 0) + 1
        errors += sum(bad.values())
        out["ops"][op] = {"count": len(good), "per_s": len(good) / window,
                          "p50_ms": _ms(percentile(good, 50)), "p95_ms": _ms(percentile(good, 95)),
                          "p99_ms": _ms(percentile(good, 99)), "errors": bad}
    out["errors"] = errors
    out["commands_per_s"] = out["ops"]["command"]["per_s"]
    return out


def _ms(value: float | None) -> float | None:
    return None if value is None else round(value * 1000, 2)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--kind", choices=("gambit", "baseline", "human", "human-baseline"), required=True)
    parser.add_argument("--bots", type=int, default=16, help="bots (human: matches played at once)")
    parser.add_argument("--duration", type=float, default=15)
    parser.add_argument("--warmup", type=float, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--think", default="1.5,4.5", help="human: think time per turn, uniform in MIN,MAX seconds")
    parser.add_argument("--cpu-of", type=int, default=None,
                        help="a server's pid: report the CPU it and its children spend in the window")
    parser.add_argument("--signed", action="store_true",
                        help="gambit: every seat joins with an Ed25519 key and signs each command")
    args = parser.parse_args(argv)
    extra: dict = {}
    if args.kind in ("human", "human-baseline"):
        think = tuple(float(x) for x in args.think.split(","))
        go = threading.Event()
        human = HumanBot if args.kind == "human" else HumanBaselineBot
        bots = [human(args.base, args.seed * 1000 + i, think, go) for i in range(args.bots)]
        started = time.perf_counter()
        for bot in bots:
            bot.start()
        for bot in bots:
            bot.ready.wait(timeout=300)
        setup_s = time.perf_counter() - started
        now = time.perf_counter()
        start_at, stop_at = now + args.warmup, now + args.warmup + args.duration
        for bot in bots:
            bot.start_at, bot.stop_at, bot.end_at = start_at, stop_at, stop_at + 30
        go.set()
        extra = {"setup_s": round(setup_s, 2), "think_s": list(think),
                 "set_up": sum(1 for bot in bots if bot.matches_started)}
    else:
        now = time.perf_counter()
        start_at, stop_at = now + args.warmup, now + args.warmup + args.duration
        bots = [Bot(args.base, args.kind, args.seed * 1000 + i, start_at, stop_at, stop_at + 30, args.signed)
                for i in range(args.bots)]
        for bot in bots:
            bot.start()
    server_cpu_s = None if args.cpu_of is None else cpu_in_window(args.cpu_of, start_at, stop_at)
    for bot in bots:
        bot.join(timeout=max(1.0, stop_at + 90 - time.perf_counter()))
    samples = [s for bot in bots for s in bot.samples]
    result = summarize(samples, args.duration)
    error_bodies: dict[str, str] = {}
    for bot in bots:
        for key, body in bot.error_bodies.items():
            error_bodies.setdefault(key, body)
    if server_cpu_s is not None:
        result["server_cpu_s"] = round(server_cpu_s, 3)
        result["commands_per_cpu_s"] = round(result["ops"]["command"]["count"] / server_cpu_s, 1) if server_cpu_s else None
    result.update(kind=args.kind, bots=args.bots, signed=args.signed, error_bodies=error_bodies, matches_started=sum(b.matches_started for b in bots),
                  matches_finished=sum(b.matches_finished for b in bots), **extra)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
