"""The shape of a Gambitz table: the state's TypedDict and its parts (state.py says what each holds).

They live apart from state.py, which folds events (and so imports events.py), so every module of
the game can name the state's type without an import cycle.
"""

# No `from __future__ import annotations`: TypedDicts read NotRequired from evaluated annotations.
from typing import Literal, NotRequired, TypedDict


class Pile(TypedDict):
    """A stack: the cards on it in the order played, and the Queen locking it (None while open)."""

    cards: list[str]
    queen: str | None


class ShownHand(TypedDict):
    """A hand shown to everyone: by a redraw, or kept face up (`kept`, written only then) with an empty deck."""

    seat: str
    cards: list[str]
    kept: NotRequired[bool]


class Received(TypedDict):
    """A deal or draw record that brought cards still in a hand: its version, those cards, whether a Knight sent one back."""

    version: int | None
    pending: list[str]
    tainted: bool


class GambitzState(TypedDict):
    """The whole table: the deck in order, every hand and stack, the scores and whose turn it is."""

    seats: list[str]
    first_seat: str
    scoring: dict[str, dict[str, int]]
    phase: Literal["setup", "play", "over"]
    turn: str | None
    end_reason: str | None
    deck: list[str]
    hands: dict[str, list[str]]
    stacks: dict[str, Pile]
    points: dict[str, int]
    passed: list[str]
    redrew: bool
    shown: list[ShownHand]
    # States snapshotted before `received` was kept lack it (see `_received`).
    received: NotRequired[dict[str, list[Received]]]
    forfeited: NotRequired[str]
