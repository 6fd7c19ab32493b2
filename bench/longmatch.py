"""Synthetic long matches: drive the domain directly to thousands of legal events.

A 2-seat dragons-gambit match with a target score nobody reaches (`target_score` 10**6) never
ends, so it can be made as long as needed. It is created and joined through the MatchApp (so
the seat tokens are real) and played with random legal commands decided by the Match
aggregate itself (`Match.act`, exactly what the service runs per command) and saved in
batches, with the application's snapshotting as configured.
"""

from __future__ import annotations

import random
import time

from domain.application import MatchApp, storage_env

RULESET = "dragons-gambit"
CONFIG = {"players": 2, "target_score": 10 ** 6}
SAVE_EVERY = 100


class LongMatch:
    """One ever-growing match in a store."""

    def __init__(self, database_url: str, seed: int = 7) -> None:
        self.app = MatchApp(env=storage_env(database_url))
        self.rng = random.Random(seed)
        match = self.app.create_match(RULESET, CONFIG)
        self.match_id = match.match_id
        self.tokens: dict[str, str] = {}
        for seat in ("p1", "p2"):
            chosen, token, _ = self.app.join(self.match_id, f"long-{seat}", seat)
            self.tokens[chosen] = token

    @property
    def version(self) -> int:
        return self.app.match(self.match_id).version

    def grow_to(self, events: int) -> float:
        """Append random legal commands until the match holds at least `events` records; returns seconds."""
        started = time.perf_counter()
        match = self.app.match(self.match_id)
        unsaved = 0
        while match.version < events:
            seat = self.rng.choice(sorted(match.to_act()))
            commands = match.ruleset.legal_commands(match.state, seat)
            before = match.version
            match.act(seat, self.rng.choice(commands), None,
                      evidence=lambda v, mid=match.id: self.app._evidence(mid, v))
            unsaved += match.version - before
            if unsaved >= SAVE_EVERY:
                self.app.save(match)
                unsaved = 0
        self.app.save(match)
        return time.perf_counter() - started

    def snapshot_bytes(self) -> dict:
        """Size of the latest snapshot's state (what every load decodes), in total and per attribute."""
        import json

        match = self.app.match(self.match_id)
        stored = list(self.app.snapshots.get(match.id, desc=True, limit=1)) if self.app.snapshots else []
        sizes = {key: len(json.dumps(value, default=str)) for key, value in vars(match).items()
                 if not key.startswith("_")}
        top = dict(sorted(sizes.items(), key=lambda kv: -kv[1])[:3])
        state = match.state if isinstance(match.state, dict) else {}
        top_state = dict(sorted(((k, len(json.dumps(v, default=str))) for k, v in state.items()),
                                key=lambda kv: -kv[1])[:2])
        return {"snapshot_version": stored[0].originator_version if stored else None,
                "aggregate_json_bytes": sum(sizes.values()), "largest": top, "largest_in_state": top_state}

    def close(self) -> None:
        self.app.close()
