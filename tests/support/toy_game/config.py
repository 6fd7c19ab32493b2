"""The match config of Toy Swap: the seat that acts first; the two seats; no join options."""

from __future__ import annotations

from dataclasses import dataclass

from domain.config_fields import STRING, DeclaredConfig, Domain, setting
from domain.ruleset import no_join_options

SEATS = ("p1", "p2")


def seat_names(config: Config) -> list[str]:
    """The two seats, p1 and p2."""
    return list(SEATS)


@dataclass(frozen=True)
class Config(DeclaredConfig):
    """Match config: which seat acts first."""

    first_seat: str = setting("p1", Domain(STRING, choices=SEATS, doc="the seat that acts first"))


def join_options(config: Config, seat: str, raw: dict) -> dict:
    """Toy Swap takes no join options."""
    return no_join_options(raw)
