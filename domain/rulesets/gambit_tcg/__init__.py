"""Ruleset `gambit-tcg`: the set-and-bluff trading card game (seed 000, rules page rules/gambit-tcg.md).

Two seats `p1`, `p2` with 30-card decks (the preconstructed `dawn`/`dusk` or a custom list
given at join time) play units, spells, items and field cards, set cards face down and spring
traps in secretly declared windows. Modules: cards.json + cards.py (the card data, validated at
import), effects.py (the effect vocabulary and statics), phases.py (turn flow, trap windows,
state checks), play.py (payment, playing cards), traps.py (set, activate), combat.py,
state.py (`evolve`), rules.py (`decide`, `legal_commands`, `to_act`), view.py, commands.py.

Join options: `{"deck": "dawn"|"dusk"}` or `{"deck_list": [30 card ids]}`; without options p1
plays `dawn` and p2 plays `dusk`. A deck list is secret to its seat (DeckRegistered secret).
"""

from __future__ import annotations

from dataclasses import dataclass

from domain.ruleset import ConfigError, Event, chance_event

from .cards import CARDS, DECKS, OPENING_HAND, SEATS, catalogue, deck_problem
from .commands import (COMMANDS, ActivateTrap, AssignBlockers, DeclareAttack, Energize, EndPhase, Pass, PlayCard,
                       SetCard)
from .effects import readjudicate
from .hidden import deck_secret, derived_public, derived_secret, registered_public, shuffle_public, started_public
from .phases import Script
from .rules import decide, legal_choices, legal_commands, to_act
from .state import evolve
from .state import initial_state as _initial_state
from .view import view

RULESET_ID = "gambit-tcg"
DEFAULT_DECKS = {"p1": "dawn", "p2": "dusk"}


@dataclass(frozen=True)
class Config:
    """A gambit-tcg match config.

    `turn_limit` (house rule, so every game ends even if nobody attacks or draws): after that many
    turns in all, the seat with more life wins; equal life is a draw.
    """

    turn_limit: int = 100

    def validate(self) -> None:
        """Raise ConfigError for a value this ruleset cannot play."""
        if not 2 <= self.turn_limit <= 1000:
            raise ConfigError("turn_limit", "must be an integer from 2 to 1000")


def seat_names(config: Config) -> list[str]:
    """The seats, in turn order: p1 (goes first), p2."""
    return list(SEATS)


def initial_state(config: Config, seats: list[str]) -> dict:
    """Empty zones and full life, before the decks are registered."""
    return _initial_state(config, seats)


def join_options(config: Config, seat: str, raw: dict) -> dict:
    """Validate a seat's deck choice: `{"deck": name}` | `{"deck_list": [...]}` | `{}` (the seat's default)."""
    if not isinstance(raw, dict):
        raise ConfigError("options", "must be an object")
    unknown = sorted(set(raw) - {"deck", "deck_list"})
    if unknown:
        raise ConfigError(unknown[0], "unknown join option (use deck or deck_list)")
    if "deck" in raw and "deck_list" in raw:
        raise ConfigError("deck", "give either deck or deck_list, not both")
    if "deck_list" in raw:
        deck_list = raw["deck_list"]
        if not isinstance(deck_list, list):
            raise ConfigError("deck_list", "must be a list of card ids")
        problem = deck_problem(deck_list, CARDS)
        if problem is not None:
            raise ConfigError("deck_list", problem)
        return {"deck": None, "deck_list": list(deck_list)}
    name = raw.get("deck", DEFAULT_DECKS.get(seat, "dawn"))
    if name not in DECKS:
        raise ConfigError("deck", f"unknown deck {name!r} (preconstructed: {sorted(DECKS)})")
    return {"deck": name, "deck_list": list(DECKS[name])}


def setup(config: Config, seats: list[str], chance, seat_options: dict | None = None) -> list[Event]:
    """Register each deck (secret to its seat), shuffle it (order secret to all), deal 5 and 6 cards."""
    options = {s: (seat_options or {}).get(s) or join_options(config, s, {}) for s in seats}
    start = _initial_state(config, seats)
    if chance.version is not None:
        start["version"] = chance.version - 1  # the versions the match will give these records
    script = Script(start)
    for seat in seats:
        script.emit("DeckRegistered", registered_public(script.state),
                    secret=deck_secret(options[seat]["deck"], options[seat]["deck_list"]), audience=(seat,))
        public = shuffle_public(script.state)
        shuffled = chance_event("DeckShuffled", chance.permutation(f"shuffle/{seat}", public["chance"]["n"]),
                                {"seat": public["seat"]}, hidden_from_all_but=())
        script.emit(shuffled.kind, shuffled.public, shuffled.secret, shuffled.audience)
    for seat in seats:
        script.draw(seat, OPENING_HAND[seat], "opening")
    script.emit("GameStarted", started_public())
    return script.events


def outcome(state: dict) -> dict | None:
    """None while running; then winners, reason (zero_life | deck_out | turn_limit), and life totals."""
    result = state["result"]
    if result is None:
        return None
    out = {k: (list(v) if isinstance(v, list) else v) for k, v in result.items() if k != "life"}
    out["life"] = {s: state["players"][s]["life"] for s in state["seats"]}
    out["turns"] = state["turn"]
    return out


__all__ = [
    "RULESET_ID", "Config", "COMMANDS", "seat_names", "initial_state", "setup", "decide", "evolve",
    "catalogue", "legal_choices", "legal_commands", "to_act", "outcome", "view", "join_options", "derived_public", "derived_secret", "readjudicate",
    "SetCard", "Energize", "PlayCard", "ActivateTrap", "EndPhase", "DeclareAttack", "AssignBlockers", "Pass",
]
