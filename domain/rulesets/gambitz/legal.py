"""What each seat may do now: the listed commands (every move once), no choices, who is waited for.

Every move is listed as its one body (see PlayCard: a card's own stack and an empty return are
dropped). A Knight's returns are listed in both orders, because the order is part of the move:
the cards go under the deck in that order, so it decides which one a short deck hands straight
back and who draws each later. There are never more than a few dozen moves, so nothing is left
to `legal_choices`.
"""

from __future__ import annotations

from domain.choices import Choice
from domain.ruleset import Command, passes

from .cards import STACK_RANKS, rank_of
from .commands import PassTurn, PlayCard, RedrawHand, Resign
from .rules import check_may_pass, check_may_redraw, check_may_resign, check_move
from .shapes import GambitzState
from .table import knight_returns, placement_problem, queen_moves


def to_act(state: GambitzState) -> list[str]:
    """The seat whose turn it is (nobody before the deal or after the end)."""
    turn = state["turn"]
    return [turn] if state["phase"] == "play" and turn is not None else []


def may_act(state: GambitzState) -> list[str]:
    """Nobody: every Gambitz action (powers included) is taken on the seat's own turn."""
    return []


def resigners(state: GambitzState) -> list[str]:
    """The seats that may give up now: the seat on turn (it could act), while the game runs."""
    return [seat for seat in state["seats"] if passes(check_may_resign, state, seat)]


def _candidate_plays(state: GambitzState, seat: str) -> list[PlayCard]:
    """Every play worth asking decide's checks about: each card of the hand on each stack it names, with each power."""
    plays: list[PlayCard] = []
    for card in state["hands"][seat]:
        rank = rank_of(card)
        if rank == "queen":
            plays += [PlayCard(card, stack=stack) for stack in STACK_RANKS]
            continue
        plays.append(PlayCard(card))
        if rank == "bishop":
            plays += [PlayCard(card, move_queen_from=src, move_queen_to=dst) for src, dst in queen_moves(state)]
        elif rank == "knight":
            plays += [PlayCard(card, knight_return=combo) for combo in knight_returns(state, seat, card)]
    return plays


def legal_commands(state: GambitzState, seat: str) -> list[Command]:
    """Every command decide accepts now, once each: the forced redraw, else every play (powers included), else
    pass; and resign, which the seat on turn may always send."""
    if seat not in to_act(state):
        return []
    return [*_moves(state, seat), *([Resign()] if passes(check_may_resign, state, seat) else [])]


def _moves(state: GambitzState, seat: str) -> list[Command]:
    """The seat's moves of the game itself: the forced redraw, else every play, else pass."""
    # The checks make the three exclusive: a due redraw refuses every play and the pass (both
    # begin with `check_not_stuck`, which refuses exactly when the redraw is allowed), and a pass
    # is refused while any card can be played.
    if passes(check_may_redraw, state, seat):
        return [RedrawHand()]
    # So `check_not_stuck` passes, and a play passes `check_play` exactly when it passes the rest
    # of it (`check_move`). A play whose card cannot go on its stack now would fail that one's
    # `check_placement`, so it is left out before the checks are asked (most Queen plays are).
    commands: list[Command] = [
        play
        for play in _candidate_plays(state, seat)
        if placement_problem(state, rank_of(play.card), play.stack or rank_of(play.card)) is None
        and passes(check_move, state, seat, play)
    ]
    if passes(check_may_pass, state, seat):
        commands.append(PassTurn())
    return commands


def legal_choices(state: GambitzState, seat: str) -> list[Choice]:
    """None: every legal Gambitz command is listed by legal_commands (at most a few dozen)."""
    return []
