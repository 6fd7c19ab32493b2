"""Reading the table: where a card may go now, the Queen moves and Knight returns a play allows, a stuck hand.

These are the facts decide's checks (rules.py) and the event parts (events.py) both read; they
only look at the state, never change it, and never raise.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from .cards import HAND_SIZE, STACK_LIMIT, STACK_RANKS, rank_of

if TYPE_CHECKING:
    from .shapes import GambitzState


def placement_problem(state: GambitzState, rank: str, stack: str) -> tuple[str, str] | None:
    """Why a card of `rank` cannot go on `stack` now (rule id, detail), or None if it can."""
    pile = state["stacks"][stack]
    if rank == "queen" and stack == "castle":
        return "queen_on_castle", "the Castle stack can never be locked"
    if pile["queen"] is not None:
        return "stack_locked", f"the {stack} stack is locked by {pile['queen']}"
    if len(pile["cards"]) >= STACK_LIMIT:
        return "stack_full", f"the {stack} stack already holds {STACK_LIMIT} cards"
    if rank == "queen" and len(pile["cards"]) != STACK_LIMIT - 1:
        return (
            "queen_needs_three",
            f"a Queen goes only on a stack of exactly 3 cards; {stack} holds {len(pile['cards'])}",
        )
    return None


def is_playable(state: GambitzState, card: str) -> bool:
    """Whether a card could be played now (anywhere it may go)."""
    rank = rank_of(card)
    if rank == "queen":
        return any(placement_problem(state, "queen", stack) is None for stack in STACK_RANKS)
    return placement_problem(state, rank, rank) is None


def is_stuck(state: GambitzState, seat: str) -> bool:
    """Whether the seat holds a stuck hand: three unplayable cards, three Queens or two and a locked card."""
    hand = state["hands"][seat]
    if len(hand) != HAND_SIZE or any(is_playable(state, card) for card in hand):
        return False
    others = [card for card in hand if rank_of(card) != "queen"]
    return not others or (len(others) == 1 and state["stacks"][rank_of(others[0])]["queen"] is not None)


def must_redraw(state: GambitzState, seat: str) -> bool:
    """Whether the seat to act is stuck with Queens (and a locked card) and must redraw first."""
    return not state["redrew"] and bool(state["deck"]) and is_stuck(state, seat)


def lies_face_up(state: GambitzState, seat: str) -> bool:
    """Whether the seat's whole hand is one it showed and kept (it lies face up for everyone)."""
    hand = sorted(state["hands"][seat])
    return any(
        entry["seat"] == seat and entry.get("kept") and sorted(entry["cards"]) == hand for entry in state["shown"]
    )


def must_show(state: GambitzState, seat: str) -> bool:
    """Whether the seat's pass shows its stuck hand: the deck is empty, so it shows it once and keeps it."""
    # With an empty deck the hand cannot be redrawn; it is shown the first time the seat passes
    # with it. It can never change while it stays stuck (nothing is drawn, nothing played), so a
    # later pass has nothing new to show; once a card of it is played the hand is never 3 again.
    return not state["deck"] and is_stuck(state, seat) and not lies_face_up(state, seat)


def next_position(state: GambitzState, rank: str) -> int:
    """The position (1-4) a card of `rank` would take on its stack; a Queen is always the 4th."""
    return STACK_LIMIT if rank == "queen" else len(state["stacks"][rank]["cards"]) + 1


def queen_moves(state: GambitzState) -> list[tuple[str, str]]:
    """The (from, to) Queen moves a Bishop played now onto its stack would allow."""

    def natural(stack: str) -> int:
        return len(state["stacks"][stack]["cards"]) + (1 if stack == "bishop" else 0)

    locked = [stack for stack in STACK_RANKS if state["stacks"][stack]["queen"] is not None]
    open_three = [
        stack
        for stack in STACK_RANKS
        if stack != "castle" and state["stacks"][stack]["queen"] is None and natural(stack) == STACK_LIMIT - 1
    ]
    return [(src, dst) for src in locked for dst in open_three]


def knight_returns(state: GambitzState, seat: str, knight: str) -> list[tuple[str, ...]]:
    """Every ordered choice of one or both of the other cards held when playing this Knight."""
    others = [card for card in state["hands"][seat] if card != knight]
    return [combo for size in (1, 2) for combo in itertools.permutations(others, size)]
