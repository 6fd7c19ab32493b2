"""Who the match waits for, who may act at will, and every command a seat may issue now.

Each listed command passes `rules.check_command`, the gate `decide` goes through.
"""

from __future__ import annotations

from domain.ruleset import Choice, Command, passes

from .cards import GRID_SLOTS, TOKEN_DELTA
from .commands import (
    AddToken,
    BlindSwap,
    CallFinalGambit,
    DiscardDrawnCard,
    DrawCard,
    PeekCards,
    PeekOtherCard,
    PeekOwnCard,
    Resign,
    SkipAbility,
    SwapDrawnCard,
    TakeDiscard,
)
from .rules import check_command, check_may_resign, waiting_for
from .shapes import DragonsState


def to_act(state: DragonsState) -> list[str]:
    """Seats the match waits for: the unpeeked seats in a `choose` peek, else the seat on turn."""
    return waiting_for(state)


def may_act(state: DragonsState) -> list[str]:
    """Nobody: every action of this game is taken by a seat the match waits for."""
    # The rules have no out-of-turn action: abilities belong to the seat on turn, the Final
    # Gambit is a turn's choice, and the simultaneous `choose` peek waits for every seat.
    return []


def resigners(state: DragonsState) -> list[str]:
    """The seats that may give up now: exactly the seats the match waits for (`check_may_resign`)."""
    return [seat for seat in state["seats"] if passes(check_may_resign, state, seat)]


def _candidates(state: DragonsState, seat: str) -> list[Command]:
    slots = range(GRID_SLOTS)
    others = [s for s in state["seats"] if s != seat]
    if state["phase"] == "peek":
        # Either order names the same two slots, and decide takes both.
        return [PeekCards(a, b) for a in slots for b in slots if a != b]
    if state["drawn"] is not None:
        return [SwapDrawnCard(s) for s in slots] + [DiscardDrawnCard()]
    pending = state["pending_ability"]
    if pending is not None:
        face = pending["face"]
        options: list[Command] = []
        if face in TOKEN_DELTA:
            options = [AddToken(t, s) for t in state["seats"] for s in slots]
        elif face == 9:
            options = [PeekOtherCard(t, s) for t in others for s in slots]
        elif face == 10:
            options = [PeekOwnCard(s) for s in slots]
        elif face == 12:
            options = [BlindSwap(s, t, o) for s in slots for t in others for o in slots]
        return options + [SkipAbility()]
    return [DrawCard()] + [TakeDiscard(s) for s in slots] + [CallFinalGambit()]


def _candidates_with_resign(state: DragonsState, seat: str) -> list[Command]:
    """The moves of the game at this point, and resign, which a seat the match waits for may always send."""
    return [*_candidates(state, seat), Resign()]


def legal_commands(state: DragonsState, seat: str) -> list[Command]:
    """Every command `seat` may issue now (complete: at most 82 entries, for a 12 with six seats, and resign)."""
    if seat not in to_act(state):
        return []
    return [command for command in _candidates_with_resign(state, seat) if passes(check_command, state, seat, command)]


def legal_choices(state: DragonsState, seat: str) -> list[Choice]:
    """None: every legal command is listed by legal_commands (at most 82)."""
    return []
