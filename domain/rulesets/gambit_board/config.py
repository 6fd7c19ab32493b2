"""The match config of gambit-board, its seats, and the join options (none)."""

from __future__ import annotations

from dataclasses import dataclass

from domain.ruleset import ConfigError, no_join_options

from .flow import SEATS

_CHOICES = {
    "power_mode": ("select", "roll"),
    "loss_choice": ("loser", "winner"),
    "first_seat": ("south", "north", "random"),
    "board": ("standard", "bridges"),
}


@dataclass(frozen=True)
class Config:
    """A gambit-board match config (`player_powers` turns that variant on); 4 players and longboard are refused."""

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
        if self.players != 2:
            raise ConfigError("players", "must be 2 (range 2 to 2): only two players are supported")


def seat_names(config: Config) -> list[str]:
    """The seats, in order: south, north."""
    return list(SEATS)


def join_options(config: Config, seat: str, raw: dict) -> dict:
    """Seats choose nothing on joining (powers are assigned in play): any option is refused."""
    return no_join_options(raw)
