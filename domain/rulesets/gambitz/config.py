"""The match config of Gambitz: seat count, opening seat and scoring table; the seats; no join options."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from domain.ruleset import ConfigError, no_join_options

from .cards import DEFAULT_SCORING


def complete_scoring(raw: object) -> object:
    """A partial table filled in from the defaults; malformed input is kept for validate()."""
    if not isinstance(raw, dict):
        return raw
    out: dict = {}
    for group, default_row in DEFAULT_SCORING.items():
        row = raw.get(group, {})
        out[group] = {**default_row, **row} if isinstance(row, dict) else row
    out.update({group: row for group, row in raw.items() if group not in DEFAULT_SCORING})
    return out


@dataclass(frozen=True)
class Config:
    """Match config: seat count, opening seat and the scoring table.

    `scoring` maps a rank group (number, king, queen, bishop, knight, castle) to points for the
    Nth card on its stack ("1".."4"; the Queen only "4") and "hand", the signed score change per
    card of that group left in hand at the end. Groups or keys left out keep their defaults.
    """

    players: int = 2
    first_seat: str = "p1"
    scoring: dict[str, dict[str, int]] = field(default_factory=lambda: copy.deepcopy(DEFAULT_SCORING))

    def __post_init__(self) -> None:
        object.__setattr__(self, "scoring", complete_scoring(self.scoring))

    def validate(self) -> None:
        """Raise ConfigError for a seat count, opening seat or scoring table we cannot play."""
        if isinstance(self.players, bool) or not isinstance(self.players, int) or not 2 <= self.players <= 8:
            raise ConfigError("players", "must be an integer from 2 to 8")
        if self.first_seat not in seat_names(self):
            raise ConfigError("first_seat", f"must be one of {', '.join(seat_names(self))}")
        if not isinstance(self.scoring, dict):
            raise ConfigError("scoring", "must be an object of rank groups")
        for group, row in self.scoring.items():
            if group not in DEFAULT_SCORING:
                raise ConfigError("scoring", f"unknown rank group {group!r} (known: {', '.join(DEFAULT_SCORING)})")
            if not isinstance(row, dict):
                raise ConfigError("scoring", f"{group} must be an object")
            for key, value in row.items():
                if key not in DEFAULT_SCORING[group]:
                    raise ConfigError(
                        "scoring", f"unknown key {key!r} for {group} (known: {', '.join(DEFAULT_SCORING[group])})"
                    )
                if isinstance(value, bool) or not isinstance(value, int):
                    raise ConfigError("scoring", f"{group}.{key} must be an integer")
                # Ten times the largest printed value either way: room for house tables, and a
                # score (at most 60 cards of it) stays a small number.
                if not -100 <= value <= 100:
                    raise ConfigError("scoring", f"{group}.{key} must be an integer from -100 to 100")


def seat_names(config: Config) -> list[str]:
    """The seats p1..pN."""
    return [f"p{n}" for n in range(1, config.players + 1)]


def join_options(config: Config, seat: str, raw: dict) -> dict:
    """Gambitz takes no join options: every seat plays the one shared deck."""
    return no_join_options(raw)
