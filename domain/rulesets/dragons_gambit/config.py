"""The match config of The Dragon's Gambit, its seats, and its join options (none)."""

from __future__ import annotations

from dataclasses import dataclass

from domain.config_fields import BOOLEAN, INTEGER, STRING, DeclaredConfig, Domain, setting
from domain.ruleset import no_join_options

RULESET_ID = "dragons-gambit"

MIN_SEATS, MAX_SEATS = 2, 6


def seat_names(config: Config) -> list[str]:
    """The seats p1..pN in turn order."""
    return [f"p{i}" for i in range(1, config.players + 1)]


@dataclass(frozen=True)
class Config(DeclaredConfig):
    """The match config: seats, who opens, the initial peek, the caller's penalty, the target."""

    players: int = setting(2, Domain(INTEGER, MIN_SEATS, MAX_SEATS, doc="the number of seats"))
    first_seat: str = setting(
        "p1",
        Domain(
            STRING,
            choices=tuple(f"p{i}" for i in range(1, MAX_SEATS + 1)),
            within=seat_names,
            within_doc="one of `p1`…`pN` (N = `players`)",
            doc="the seat that takes the first turn",
        ),
    )
    initial_peek: str = setting(
        "near",
        Domain(STRING, choices=("near", "choose"), doc="`choose` lets each seat name the 2 slots it looks at"),
    )
    # Generous where the seed is silent: a penalty up to 100 times the default, and a target up
    # to 10**6, which no match reaches (bench/longmatch.py plays such endless matches).
    caller_penalty: int = setting(
        10, Domain(INTEGER, 0, 1000, doc="added to the caller's score when the caller's total is not the lowest")
    )
    target_score: int = setting(
        100, Domain(INTEGER, 1, 1_000_000, doc="the match ends once a seat's match score reaches it")
    )
    memory_aid: bool = setting(True, Domain(BOOLEAN, doc="a seat's view keeps showing the values it has seen"))


def join_options(config: Config, seat: str, raw: dict) -> dict:
    """None: a seat brings nothing to the table, so any join option is refused."""
    return no_join_options(raw)
