"""A pure in-memory driver for ruleset tests: setup, decide, evolve, replay — no store, no web.

Every event goes through a JSON round trip before it is folded, as it would through the event
store, so a ruleset that relies on tuples or int keys fails here first.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from types import ModuleType

from domain.chance import Chance
from domain.choices import random_legal_command
from domain.ruleset import Command, Event, RuleViolation, Viewer, config_from_dict

SEED = bytes(range(32))
# Commands that end a match at once: random play takes them only now and then, so playouts reach the
# game's own ends (every game offers `resign` at most moves).
ENDERS = ("resign", "concede")


def _stored(event: Event, version: int) -> Event:
    """The event as it comes back from the store: JSON types only, version set."""
    data = json.loads(json.dumps({"kind": event.kind, "public": event.public, "secret": event.secret,
                                  "audience": event.audience}))
    audience = None if data["audience"] is None else tuple(data["audience"])
    return Event(data["kind"], data["public"], data["secret"], audience, tuple(event.opens), version,
                 tuple(event.evidence))


@dataclass
class Game:
    """One game of a ruleset driven directly through its public functions."""

    ruleset: ModuleType
    config: object
    seats: list[str]
    state: dict
    server_seed: bytes = SEED
    match_id: str = "test-match"
    client_seeds: list[str] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    # The match's own records (creation, joins) come first; ruleset events start after them.
    base_version: int = 0

    def chance(self) -> Chance:
        """The chance source scoped to the next version, as the match gives it."""
        return Chance(self.server_seed, self.match_id, self.client_seeds or [""] * len(self.seats),
                      scope=f"v{self.next_version}", version=self.next_version)

    @property
    def next_version(self) -> int:
        """The version the next recorded event will get."""
        return self.base_version + len(self.events) + 1

    def record(self, events: list[Event]) -> list[Event]:
        """Fold decided events into the state, as the match aggregate does."""
        stored = []
        for event in events:
            ev = _stored(event, self.next_version)
            self.events.append(ev)
            self.state = self.ruleset.evolve(self.state, ev)
            stored.append(ev)
        return stored

    def act(self, seat: str, command: Command) -> list[Event]:
        """Decide and record one command; RuleViolation propagates and changes nothing."""
        before = json.dumps(self.state, sort_keys=True)
        try:
            events = self.ruleset.decide(self.state, seat, command, self.chance())
        except RuleViolation:
            assert json.dumps(self.state, sort_keys=True) == before, "decide mutated the state"
            raise
        assert json.dumps(self.state, sort_keys=True) == before, "decide mutated the state"
        return self.record(events)

    def replayed_state(self) -> dict:
        """The state rebuilt from scratch by folding the recorded events."""
        state = self.ruleset.initial_state(self.config, list(self.seats))
        for ev in self.events:
            state = self.ruleset.evolve(state, ev)
        return state

    def view(self, viewer: Viewer) -> dict:
        """The ruleset's view for a viewer."""
        return self.ruleset.view(self.state, viewer)


def start(ruleset: ModuleType, config: dict | None = None, *, server_seed: bytes = SEED, base_version: int = 0,
          seat_options: dict | None = None) -> Game:
    """Create a game with every seat joined and setup done (join options validated as the match does)."""
    cfg = config_from_dict(ruleset.Config, config)
    seats = ruleset.seat_names(cfg)
    game = Game(ruleset, cfg, seats, ruleset.initial_state(cfg, list(seats)), server_seed, base_version=base_version)
    options = {seat: ruleset.join_options(cfg, seat, (seat_options or {}).get(seat, {})) for seat in seats}
    game.record(ruleset.setup(cfg, list(seats), game.chance(), json.loads(json.dumps(options))))
    # The state a snapshot stores must survive JSON unchanged.
    assert json.loads(json.dumps(game.state)) == game.state
    return game


def random_playout(ruleset: ModuleType, config: dict | None, rng: random.Random, *, max_steps: int = 5000,
                   server_seed: bytes | None = None, check=None, seat_options: dict | None = None,
                   enders_rate: float = 0.02) -> Game:
    """Play random legal commands (listed, or formed from a choice) until the game has an outcome;
    `check(game)` runs after each step. A command that ends the match at once (ENDERS) is taken only at
    `enders_rate` of the steps (or when nothing else is left)."""
    seed = server_seed if server_seed is not None else rng.randbytes(32)
    game = start(ruleset, config, server_seed=seed, seat_options=seat_options)
    for _ in range(max_steps):
        if ruleset.outcome(game.state) is not None:
            return game
        acting = ruleset.to_act(game.state)
        assert acting, "no seat to act but no outcome"
        optional = ruleset.may_act(game.state)
        # Now and then a seat takes an optional action (an assist, a call), so playouts reach them.
        seat = rng.choice(sorted(optional if optional and rng.random() < 0.2 else acting))
        prefer = None if rng.random() < enders_rate else (lambda kind: kind not in ENDERS)
        command = random_legal_command(ruleset, game.state, seat, rng, prefer)
        assert command is not None, f"{seat} is to act but has no legal command"
        game.act(seat, command)
        if check is not None:
            check(game)
    raise AssertionError(f"no outcome after {max_steps} steps")
