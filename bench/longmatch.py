"""Synthetic long matches: drive the domain directly to thousands of legal records.

A 2-seat dragons-gambit match with a target score nobody reaches (`target_score` 10**6) never
ends, so it can be made as long as needed. It is created and joined through the match service (so
the seat tokens are real) and played with random legal commands decided by the Match
aggregate itself (`Match.act`, exactly what the service runs per command) and saved in
batches, with the application's snapshotting as configured.

The match service is built as the service builds it (service/app.py, `build_gambit`): the signing
key of the service's data directory signs a receipt into every saved batch, and snapshots are
sealed with the key derived from it. So the running service treats these matches as its own:
it uses their snapshots and takes commands on them (a match without this service's receipts is
refused with an integrity alert; a snapshot with another seal is ignored, and the match replayed
from its first record).

Every ruleset can be grown (`LONG_CONFIGS`): random play takes a seat the match waits for (now
and then one that may act at will), and a random listed command or a random member of a listed
choice, leaving out the commands that end a match at once (resign, concede) while there is
anything else. Games that end by themselves (gambitz, gambit-board, gambit-tcg) are played as
a chain of matches, one after the other (`SnapshotGrowth`).
"""

from __future__ import annotations

import json
import random
import time
from typing import Any

from domain.application import MatchService, open_matches
from domain.store import storage_env

RULESET = "dragons-gambit"
CONFIG = {"players": 2, "target_score": 10 ** 6}
SAVE_EVERY = 100
# Commands that end a match at once: random play takes them only when nothing else is legal.
ENDERS = ("resign", "concede")
# Per ruleset, the config (and join options) that make a random match as long as the game allows.
LONG_CONFIGS: dict[str, tuple[dict, dict | None]] = {
    # never ends: nobody reaches the target
    "dragons-gambit": ({"players": 2, "target_score": 10 ** 6}, None),
    # a Throwdown has no end that random play reaches (a Gambit conflict ends in ~20-80 records)
    "gattai-conflict": ({"mode": "throwdown"}, None),
    # ends when the cards run out (~180 records)
    "gambitz": ({"players": 2}, None),
    # ends when a side wins (~20-40 records of random play)
    "gambit-board": ({}, None),
    # the longest turn limit the config takes; random play still ends it in ~150-200 records
    "gambit-tcg": ({"turn_limit": 1000}, {"p1": {"deck": "dawn"}, "p2": {"deck": "dusk"}}),
}


def service_app(database_url: str, data_dir: str) -> MatchService:
    """A match service with the service's signing key and snapshot seal (as service.app.build_gambit makes it)."""
    from service.signing import Signer

    signer = Signer.load(data_dir)
    return open_matches(storage_env(database_url), signer=signer, seal_key=signer.derived_key("snapshot-seal"))


def _kind(option: Any) -> str:
    return option["type"] if isinstance(option, dict) else option.type


def random_command(match: Any, rng: random.Random) -> tuple[str, Any]:
    """A seat and a random legal command for it (see the module docstring); ValueError when none."""
    from domain.choices import Choice

    acting, optional = match.to_act(), match.may_act()
    seats = sorted(optional if optional and rng.random() < 0.2 else acting)
    if not seats:
        raise ValueError("no seat may act")
    seat = rng.choice(seats)
    options = list(match.ruleset.legal_commands(match.state, seat)) + list(match.ruleset.legal_choices(match.state, seat))
    if not options:
        raise ValueError(f"{seat} is to act but has no legal command")
    regular = [o for o in options if _kind(o) not in ENDERS] or options
    picked = rng.choice(regular)
    return seat, picked.random_command(rng) if isinstance(picked, Choice) else picked


class LongMatch:
    """One ever-growing match in a store."""

    def __init__(self, database_url: str, data_dir: str, seed: int = 7, ruleset: str = RULESET,
                 config: dict | None = None, options: dict | None = None, app: MatchService | None = None) -> None:
        self._own_app = app is None
        self.app = app if app is not None else service_app(database_url, data_dir)
        self.rng = random.Random(seed)
        match = self.app.create_match(ruleset, CONFIG if config is None and ruleset == RULESET else config or {})
        self.match_id = match.match_id
        self.tokens: dict[str, str] = {}
        for seat in match.seat_order:
            chosen, token, _ = self.app.join(self.match_id, f"long-{seat}", seat,
                                             options=(options or {}).get(seat))
            self.tokens[chosen] = token
        self._match = None

    @property
    def version(self) -> int:
        return self.app.match(self.match_id).version

    @property
    def status(self) -> str:
        return self.app.match(self.match_id).status

    def grow_to(self, events: int, deadline: float | None = None) -> float:
        """Append random legal commands until the match holds at least `events` records (or has
        ended, or the `time.perf_counter()` deadline has passed); returns seconds."""
        started = time.perf_counter()
        match = self.app.match(self.match_id)
        unsaved = 0
        while match.version < events and match.status == "active":
            if deadline is not None and unsaved == 0 and time.perf_counter() > deadline:
                break
            seat, command = random_command(match, self.rng)
            before = match.version
            match.act(seat, command, None, evidence=lambda v, mid=match.id: self.app.store.evidence(mid, v))
            unsaved += match.version - before
            if unsaved >= SAVE_EVERY:
                self._save(match)
                unsaved = 0
        if unsaved:
            self._save(match)
        return time.perf_counter() - started

    def _save(self, match: Any) -> None:
        self.app.store.acknowledge(match)  # the receipt the service signs into every write
        self.app.store.save(match)

    def snapshot_bytes(self) -> dict:
        """Size of what a snapshot holds now (what every load decodes), in total and per attribute."""
        return snapshot_figures(self.app, self.app.match(self.match_id))

    def close(self) -> None:
        if self._own_app:
            self.app.close()


def encoded_snapshot_bytes(app: MatchService, match: Any) -> int:
    """Bytes of the snapshot the store would write for the match as it is now: the library's
    `Snapshot.take` through the application's mapper (the seal, ~70 bytes, aside)."""
    snapshot = type(match).Snapshot.take(match)
    return len(app.store.mapper.to_stored_event(snapshot).state)


def stored_snapshot_bytes(app: MatchService, match: Any, version: int) -> int | None:
    """Bytes of the snapshot the store holds at exactly `version` (seal included), or None."""
    snapshots = app.store.snapshots
    recorder = getattr(snapshots.recorder, "_recorder", snapshots.recorder) if snapshots else None
    if recorder is None:
        return None
    rows = recorder.select_events(match.id, gt=version - 1, lte=version)
    return len(bytes(rows[0].state)) if rows else None


def snapshot_figures(app: MatchService, match: Any) -> dict:
    """The encoded snapshot's size, the stored snapshot at the latest multiple of the interval,
    and the largest attributes (and parts of `state`)."""
    from domain.match import SNAPSHOT_INTERVAL

    sizes = {key: len(json.dumps(value, default=str)) for key, value in vars(match).items() if not key.startswith("_")}
    top = dict(sorted(sizes.items(), key=lambda kv: -kv[1])[:3])
    state = match.state if isinstance(match.state, dict) else {}
    top_state = dict(sorted(((k, len(json.dumps(v, default=str))) for k, v in state.items()),
                            key=lambda kv: -kv[1])[:2])
    at = match.version - match.version % SNAPSHOT_INTERVAL
    return {"version": match.version, "encoded_bytes": encoded_snapshot_bytes(app, match),
            "stored_version": at if at else None, "stored_bytes": stored_snapshot_bytes(app, match, at) if at else None,
            "aggregate_json_bytes": sum(sizes.values()), "largest": top, "largest_in_state": top_state}


def snapshot_growth(database_url: str, data_dir: str, ruleset: str, seed: int, marks: tuple[int, ...],
                    app: MatchService | None = None) -> dict:
    """Play `ruleset` at random (LONG_CONFIGS) until `marks[-1]` records are written, as one match
    or, for a game that ends first, a chain of matches one after the other; at each mark (records
    written in all), the size of the snapshot of the match in play (`snapshot_figures`)."""
    config, options = LONG_CONFIGS[ruleset]
    owned = app is None
    app = app if app is not None else service_app(database_url, data_dir)
    rng = random.Random(f"{ruleset}/{seed}")
    started = time.perf_counter()
    done = 0
    lengths: list[int] = []
    at_marks: dict[str, dict] = {}
    largest = 0
    try:
        pending = list(marks)
        while pending:
            long = LongMatch(database_url, data_dir, seed=rng.randrange(1 << 30), ruleset=ruleset, config=config,
                             options=options, app=app)
            while pending:
                long.grow_to(pending[0] - done)
                match = app.match(long.match_id)
                largest = max(largest, encoded_snapshot_bytes(app, match))
                if done + match.version >= pending[0]:
                    at_marks[str(pending.pop(0))] = {**snapshot_figures(app, match), "match": len(lengths) + 1}
                if match.status != "active":
                    break
            lengths.append(app.match(long.match_id).version)
            done += lengths[-1]
    finally:
        if owned:
            app.close()
    return {"ruleset": ruleset, "config": config, "seed": seed, "marks": at_marks, "matches": len(lengths),
            "longest_match": max(lengths), "records": done, "largest_encoded_bytes": largest,
            "seconds": round(time.perf_counter() - started, 1)}
