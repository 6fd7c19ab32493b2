"""The match config of The Dragon's Gambit, its seats, and its join options (none)."""

from __future__ import annotations

from dataclasses import dataclass

from domain.ruleset import ConfigError, no_join_options

RULESET_ID = "dragons-gambit"

MIN_SEATS, MAX_SEATS = 2, 6


@dataclass(frozen=True)
class Config:
    """The match config: seats, who opens, the initial peek, the caller's penalty, the target."""

    players: int = 2
    first_seat: str = "p1"
    initial_peek: str = "near"
    caller_penalty: int = 10
    target_score: int = 100
    memory_aid: bool = True

    def validate(self) -> None:
        """Raise ConfigError for a config the game cannot be played with."""
        if not MIN_SEATS <= self.players <= MAX_SEATS:
            raise ConfigError("players", f"must be an integer from {MIN_SEATS} to {MAX_SEATS}")
        if self.first_seat not in seat_names(self):
            raise ConfigError("first_seat", f"must be one of {', '.join(seat_names(self))}")
        if self.initial_peek not in ("near", "choose"):
            raise ConfigError("initial_peek", "must be 'near' or 'choose'")
        # Generous where the seed is silent: a penalty up to 100 times the default, and a
        # target up to 10**6, which no match reaches (bench/longmatch.py plays such endless matches).
        if not 0 <= self.caller_penalty <= 1000:
            raise ConfigError("caller_penalty", "must be an integer from 0 to 1000")
        if not 1 <= self.target_score <= 1_000_000:
            raise ConfigError("target_score", "must be an integer from 1 to 1000000")


def seat_names(config: Config) -> list[str]:
    """The seats p1..pN in turn order."""
    return [f"p{i}" for i in range(1, config.players + 1)]


def join_options(config: Config, seat: str, raw: dict) -> dict:
    """None: a seat brings nothing to the table, so any join option is refused."""
    return no_join_options(raw)
