"""What each viewer sees of a Gambitz table (`VIEWS` declares it per viewer), and the public catalogue of the deck.

Everyone sees the stacks, the scores, each hand's size and every shown hand; a seat also sees its
own hand, an organizer every hand and the deck in order, and once the game is over everyone sees
all of it (a seat its own hand besides).
"""

# No `from __future__ import annotations`: TypedDicts read NotRequired from evaluated annotations.

import copy
from typing import Literal, NotRequired, TypedDict

from domain.ruleset import ORGANIZER, Viewer
from domain.view_types import ViewTypes

from .cards import CARDS, DEFAULT_SCORING, HAND_SIZE, STACK_LIMIT, STACK_RANKS, rank_of, suit_of
from .rules import outcome
from .shapes import GambitzState, ShownHand
from .table import must_redraw


class StackView(TypedDict):
    """A stack as everyone sees it: its cards, the Queen locking it, and how many cards it holds with her."""

    cards: list[str]
    queen: str | None
    locked: bool
    size: int


class TableView(TypedDict):
    """What everyone sees (a spectator's view while the game runs): no card in any hand but shown ones."""

    phase: Literal["setup", "play", "over"]
    turn: str | None
    seats: list[str]
    first_seat: str
    deck_size: int
    stacks: dict[str, StackView]
    points: dict[str, int]
    scores: dict[str, int]
    redraw_due: bool
    hand_sizes: dict[str, int]
    passed: list[str]
    redrew: bool
    shown_hands: list[ShownHand]
    scoring: dict[str, dict[str, int]]


class SeatView(TableView):
    """A seat's view while the game runs: the table and its own hand."""

    hand: list[str]


class FullView(TableView):
    """An organizer's view: every hand and the deck in order."""

    hands: dict[str, list[str]]
    deck: list[str]


class EndedView(FullView):
    """Anyone's view once the game is over: everything, and a seat's own hand besides."""

    hand: NotRequired[list[str]]


VIEWS = ViewTypes(seat=SeatView, spectator=TableView, organizer=FullView, ended=EndedView)


def running_scores(state: GambitzState) -> dict[str, int]:
    """Each seat's score so far: its points while playing; once the game is over, points minus penalties."""
    # Penalties hang on the cards left in hand, which are secret while the game runs, so the
    # running score counts only what was scored face up; at the end it is the final score.
    result = outcome(state)
    return dict(result["scores"]) if result is not None else dict(state["points"])


def redraw_due(state: GambitzState) -> bool:
    """Whether the seat on turn must redraw its stuck hand now (its only legal command)."""
    # Public for every viewer: the redraw is forced and nobody else can act before it, and the
    # record it makes shows the hand to everyone anyway.
    return state["phase"] == "play" and state["turn"] is not None and must_redraw(state, state["turn"])


def view(state: GambitzState, viewer: Viewer) -> dict:
    """The table as `viewer` may see it: every hand and the deck order only with sees_all/organizer."""
    out: dict[str, object] = {
        "phase": state["phase"],
        "turn": state["turn"],
        "seats": list(state["seats"]),
        "first_seat": state["first_seat"],
        "deck_size": len(state["deck"]),
        "stacks": {
            rank: {
                "cards": list(pile["cards"]),
                "queen": pile["queen"],
                "locked": pile["queen"] is not None,
                "size": len(pile["cards"]) + (pile["queen"] is not None),
            }
            for rank, pile in state["stacks"].items()
        },
        "points": dict(state["points"]),
        "scores": running_scores(state),
        "redraw_due": redraw_due(state),
        "hand_sizes": {seat: len(cards) for seat, cards in state["hands"].items()},
        "passed": list(state["passed"]),
        "redrew": state["redrew"],
        "shown_hands": copy.deepcopy(state["shown"]),
        "scoring": copy.deepcopy(state["scoring"]),
    }
    if viewer.seat in state["hands"]:
        out["hand"] = list(state["hands"][viewer.seat])
    if viewer.sees_all or viewer.role == ORGANIZER:
        out["hands"] = {seat: list(cards) for seat, cards in state["hands"].items()}
        out["deck"] = list(state["deck"])
    return out


class CatalogueCard(TypedDict):
    """A card of the deck: its id, rank and suit."""

    id: str
    rank: str
    suit: str


class GambitzCatalogue(TypedDict):
    """The public card list, the stacks in order, the hand size, a stack's limit and the default scoring table."""

    cards: list[CatalogueCard]
    stacks: list[str]
    hand_size: int
    stack_limit: int
    scoring: dict[str, dict[str, int]]


CATALOGUE = GambitzCatalogue


def catalogue() -> GambitzCatalogue:
    """The public card list (every card with its rank and suit), the stacks, and the default scoring table."""
    return {
        "cards": [{"id": card, "rank": rank_of(card), "suit": suit_of(card)} for card in CARDS],
        "stacks": list(STACK_RANKS),
        "hand_size": HAND_SIZE,
        "stack_limit": STACK_LIMIT,
        "scoring": copy.deepcopy(DEFAULT_SCORING),
    }
