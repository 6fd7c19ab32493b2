"""Ruleset `gambit-board`: the bluffing board game (seed 004, rules page rules/gambit-board.md).

Two seats on a 6×6 board move pieces whose powers are secret; every claimed power may be called
as a bluff. Modules: board.py (geometry), powers.py (powers and assignments), flow.py (turns,
losses, winning), bluffs.py (rulings), state.py (`evolve`), rules.py (`decide`,
`legal_commands`), view.py (`view`), commands.py (the command types).
"""

from __future__ import annotations

from dataclasses import dataclass

from domain.ruleset import ConfigError, Event, chance_event, config_to_dict

from .commands import (COMMANDS, Accept, AssignPowers, CallBluff, ChooseLoss, ClaimKamikaze, ClaimMoat, Detect,
                       MovePiece, Reassign, Resign)
from .flow import SEATS
from .bluffs import readjudicate
from .powers import DIE_SIDES, catalogue
from .rules import (board_public, decide, derived_public, derived_secret, first_seat_public, legal_choices,
                    legal_commands, to_act)
from .state import evolve
from .state import initial_state as _initial_state
from .view import view

RULESET_ID = "gambit-board"
_CHOICES = {
    "power_mode": ("select", "roll"),
    "loss_choice": ("loser", "winner"),
    "first_seat": ("south", "north", "random"),
    "board": ("standard", "bridges"),
}


@dataclass(frozen=True)
class Config:
    """A gambit-board match config; the variants `player_powers`, 4 players and longboard are refused."""

    power_mode: str = "select"
    loss_choice: str = "loser"
    first_seat: str = "south"
    board: str = "standard"
    player_powers: bool = False
    players: int = 2

    def validate(self) -> None:
        """Raise ConfigError for a value this ruleset cannot play."""
        for name, allowed in _CHOICES.items():
            value = getattr(self, name)
            if value not in allowed:
                raise ConfigError(name, f"must be one of {list(allowed)}, not {value!r}")
        if self.player_powers:
            raise ConfigError("player_powers", "the Player Powers variant is not supported")
        if self.players != 2:
            raise ConfigError("players", "must be 2 (range 2 to 2): only two players are supported")


def seat_names(config: Config) -> list[str]:
    """The seats, in order: south, north."""
    return list(SEATS)


def initial_state(config: Config, seats: list[str]) -> dict:
    """Pieces on their home rows, before setup."""
    return _initial_state(config_to_dict(config), seats)


def setup(config: Config, seats: list[str], chance) -> list[Event]:
    """Draw the first seat if random, roll each seat's secret power dice in roll mode, open assignment."""
    events = []
    first = config.first_seat
    if first == "random":
        drawn = chance.draw("first-seat", len(SEATS))
        public = first_seat_public(drawn.result)
        first = public["first_seat"]
        events.append(chance_event("FirstSeatDrawn", drawn, public))
    if config.power_mode == "roll":
        for seat in SEATS:
            events += _roll_powers(seat, chance)
    events.append(Event("BoardSetUp", board_public(config_to_dict(config), first)))
    return events


def _roll_powers(seat: str, chance) -> list[Event]:
    """Two movement and two action dice, secret to the seat; a rolled double moat re-rolls all four."""
    events = []
    attempt = 1
    while True:
        action = []
        for kind in ("movement", "action"):
            for index in range(2):
                drawn = chance.roll(f"powers/{seat}/{attempt}/{kind}-{index + 1}", DIE_SIDES)
                events.append(chance_event("PowerDieRolled", drawn, {"seat": seat, "die": kind, "index": index,
                                                                     "attempt": attempt}, hidden_from_all_but=(seat,)))
                if kind == "action":
                    action.append(drawn.result)
        if action != [1, 1]:
            return events
        attempt += 1


def outcome(state: dict) -> dict | None:
    """None while running; then winners, reason, pieces lost and far-row counts."""
    result = state["result"]
    if result is None:
        return None
    out = dict(result)
    out["winners"] = list(result["winners"])
    out["lost"] = {s: len(state["lost"][s]) for s in SEATS}
    return out


__all__ = [
    "RULESET_ID", "Config", "COMMANDS", "seat_names", "initial_state", "setup", "decide", "evolve",
    "catalogue", "legal_choices", "legal_commands", "to_act", "outcome", "view", "readjudicate", "derived_public", "derived_secret",
    "AssignPowers", "MovePiece", "Detect", "Accept", "CallBluff", "ClaimMoat", "ClaimKamikaze", "ChooseLoss",
    "Reassign", "Resign",
]
