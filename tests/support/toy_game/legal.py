"""What each Toy Swap seat may do now: the named checks of decide, asked rather than repeated."""

from __future__ import annotations

from domain.choices import Choice
from domain.ruleset import Command, passes

from .commands import HoldCard, Resign, SwapCard
from .rules import check_seat_may_act
from .shapes import ToyState


def legal_commands(state: ToyState, seat: str) -> list[Command]:
    """Hold, swap or resign, for the seat whose turn it is."""
    if not passes(check_seat_may_act, state, seat):
        return []
    return [HoldCard(), SwapCard(), Resign()]


def legal_choices(state: ToyState, seat: str) -> list[Choice]:
    """None: every command is listed."""
    return []


def to_act(state: ToyState) -> list[str]:
    """The seat whose turn it is (nobody once the game has ended)."""
    return [state["turn"]] if state["phase"] == "play" and state["turn"] is not None else []


def may_act(state: ToyState) -> list[str]:
    """Nobody acts out of turn."""
    return []


def resigners(state: ToyState) -> list[str]:
    """The seat whose turn it is may give up (no seat acts out of turn, so no other)."""
    return to_act(state)
