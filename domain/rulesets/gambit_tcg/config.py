"""The match config of gambit-tcg, its seats, and the deck each seat chooses on joining."""

from __future__ import annotations

from dataclasses import dataclass

from domain.config_fields import INTEGER, DeclaredConfig, Domain, setting
from domain.ruleset import ConfigError

from .cards import CARDS, DECKS, SEATS, deck_problem

DEFAULT_DECKS = {"p1": "dawn", "p2": "dusk"}


@dataclass(frozen=True)
class Config(DeclaredConfig):
    """A gambit-tcg match config.

    `players`: the number of seats (every card game takes `config.players`); the format is 1v1,
    so 2 is the only value (rules page, "Config").
    `turn_limit` (house rule, so every game ends even if nobody attacks or draws): after that many
    turns in all, the seat with more life wins; equal life is a draw.
    """

    players: int = setting(
        len(SEATS),
        Domain(
            INTEGER,
            len(SEATS),
            len(SEATS),
            why="gambit-tcg is played 1v1 by seats p1 and p2",
        ),
    )
    turn_limit: int = setting(
        100,
        Domain(
            INTEGER,
            2,
            1000,
            doc="after that many turns in all, the seat with more life wins; equal life is a draw",
        ),
    )


def seat_names(config: Config) -> list[str]:
    """The seats, in turn order: p1 (goes first), p2."""
    return list(SEATS)


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
