"""The shape of a Toy Swap table: the state's TypedDict, below events.py and state.py, which both read it."""

from __future__ import annotations

from typing import Literal, TypedDict


class ToyState(TypedDict):
    """The table: the deck top first, each seat's card and the record that gave it, who acted, how it ended."""

    seats: list[str]
    phase: Literal["deal", "play", "over"]
    turn: str | None
    deck: list[int]
    hands: dict[str, int]
    dealt_at: dict[str, int]
    acted: list[str]
    shown: bool
    end_reason: str | None
    forfeited: str | None
