"""The match config of Gambitz: seat count, opening seat and scoring table; the seats; no join options."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from domain.config_fields import INTEGER, OBJECT, STRING, DeclaredConfig, Domain, declared, setting
from domain.ruleset import no_join_options

from .cards import DEFAULT_SCORING

MIN_SEATS, MAX_SEATS = 2, 8
# Ten times the largest printed value either way: room for house tables, and a score (at most
# 60 cards of it) stays a small number.
MIN_POINTS, MAX_POINTS = -100, 100


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


def seat_names(config: Config) -> list[str]:
    """The seats p1..pN."""
    return [f"p{n}" for n in range(1, config.players + 1)]


SCORING_SCHEMA = {
    "type": "object",
    "description": "rank group -> points for the Nth card on its stack and per card left in hand",
    "properties": {
        group: {
            "type": "object",
            "properties": {key: {"type": "integer", "minimum": MIN_POINTS, "maximum": MAX_POINTS} for key in row},
            "additionalProperties": False,
        }
        for group, row in DEFAULT_SCORING.items()
    },
    "additionalProperties": False,
}


@dataclass(frozen=True)
class Config(DeclaredConfig):
    """Match config: seat count, opening seat and the scoring table.

    `scoring` maps a rank group (number, king, queen, bishop, knight, castle) to points for the
    Nth card on its stack ("1".."4"; the Queen only "4") and "hand", the signed score change per
    card of that group left in hand at the end. Groups or keys left out keep their defaults.
    """

    players: int = setting(2, Domain(INTEGER, MIN_SEATS, MAX_SEATS, doc="the number of seats"))
    first_seat: str = setting(
        "p1",
        Domain(
            STRING,
            choices=tuple(f"p{n}" for n in range(1, MAX_SEATS + 1)),
            within=seat_names,
            within_doc="one of `p1`…`pN` (N = `players`)",
            doc="the seat that plays first",
        ),
    )
    scoring: dict[str, dict[str, int]] = field(
        default_factory=lambda: copy.deepcopy(DEFAULT_SCORING),
        metadata=declared(
            Domain(
                OBJECT,
                schema=SCORING_SCHEMA,
                type_doc='object: rank group → {`"1"`…`"4"`, `"hand"` → integer}',
                default_doc="the rules page's table",
                doc=f'every value {MIN_POINTS} to {MAX_POINTS}; groups `number`, `king`, `queen` (only `"4"`, '
                '`"hand"`), `bishop`, `knight`, `castle`; groups or keys left out keep their defaults',
            )
        ),
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "scoring", complete_scoring(self.scoring))


def join_options(config: Config, seat: str, raw: dict) -> dict:
    """Gambitz takes no join options: every seat plays the one shared deck."""
    return no_join_options(raw)
