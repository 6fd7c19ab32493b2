"""The match config of gambit-board, its seats, and the join options (none)."""

from __future__ import annotations

from dataclasses import dataclass

from domain.config_fields import BOOLEAN, INTEGER, STRING, DeclaredConfig, Domain, setting
from domain.ruleset import no_join_options

from .flow import SEATS


@dataclass(frozen=True)
class Config(DeclaredConfig):
    """A gambit-board match config (`player_powers` turns that variant on); 4 players and longboard are refused."""

    power_mode: str = setting(
        "select", Domain(STRING, choices=("select", "roll"), doc="how each seat's hidden powers are assigned")
    )
    loss_choice: str = setting(
        "loser", Domain(STRING, choices=("loser", "winner"), doc="which seat picks the piece a seat loses")
    )
    first_seat: str = setting(
        "south",
        Domain(
            STRING,
            choices=("south", "north", "random"),
            doc="the seat that moves first (`random` is drawn from the match's committed seed)",
        ),
    )
    board: str = setting(
        "standard",
        Domain(STRING, choices=("standard", "bridges"), doc="`bridges` makes eight middle squares impassable"),
    )
    player_powers: bool = setting(
        False,
        Domain(
            BOOLEAN,
            doc="`true` plays the Player Powers variant (Sensei, Magician, Juggernaut, Witch Doctor, "
            "earned on reaching the far row)",
        ),
    )
    players: int = setting(2, Domain(INTEGER, 2, 2, why="only two players are supported (four are not)"))


def seat_names(config: Config) -> list[str]:
    """The seats, in order: south, north."""
    return list(SEATS)


def join_options(config: Config, seat: str, raw: dict) -> dict:
    """Seats choose nothing on joining (powers are assigned in play): any option is refused."""
    return no_join_options(raw)
