"""Who acts in gambit-board and with what: `to_act`, `may_act`, `legal_commands`, `legal_choices`.

The match waits for the seat of the current step (both seats while assigning). Any seat may
resign at any time, and that is the only action a seat the match is not waiting for has, so
`may_act` is every other seat while the match runs. Listed commands pass decide's own checks;
Sensei transfers, like assignments, are offered as choices.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from domain.choices import Choice, one_of, subset_of, union_of
from domain.ruleset import Command, passes

from .board import impassable, locate, neighbours, reachable
from .commands import (
    Accept,
    CallBluff,
    ChooseLoss,
    ChoosePlayerPower,
    ClaimKamikaze,
    ClaimMoat,
    DeclineJuggernaut,
    Detect,
    MovePiece,
    Reassign,
    Resign,
    UseMagician,
    UseSensei,
    UseWitchDoctor,
)
from .flow import (
    SEATS,
    current_step,
    match_over,
    on_board,
    opponent,
    pending_counter,
    pending_of,
    pieces_of,
    step_of,
    turn_of,
    waiting_for,
)
from .player_powers import check_magician, check_player_power, check_whole_turn, check_witch_doctor
from .powers import ACTION, MOVEMENT, PLAYER_POWERS, SENSEI, assignment_choices
from .rules import check_detect, check_kamikaze_claim, check_loss, check_moat_claim, check_reassign, reassign_choices
from .shapes import BoardState


def to_act(state: BoardState) -> list[str]:
    """The seats the match is waiting for: both while assigning, else the seat of the current step."""
    return waiting_for(state)


def may_act(state: BoardState) -> list[str]:
    """Seats the match is not waiting for that may act now: while it runs, every other seat may resign."""
    if match_over(state):
        return []
    waiting = waiting_for(state)
    return [seat for seat in SEATS if seat not in waiting]


def resigners(state: BoardState) -> list[str]:
    """The seats that may give up now: both, at any time while the match runs."""
    return [] if match_over(state) else list(SEATS)


def legal_commands(state: BoardState, seat: str) -> list[Command]:
    """Every whole command `seat` may send now, and `resign`, which a seat may send at any time.

    Assignments are too many to list (thousands in select mode): legal_choices describes them.
    """
    if match_over(state) or seat not in SEATS:
        return []
    out = list(_LISTERS[current_step(state)](state, seat)) if seat in waiting_for(state) else []
    out.append(Resign())
    return out


def legal_choices(state: BoardState, seat: str) -> list[Choice]:
    """The `assign` families of a seat still placing its powers (powers.assignment_choices), and Sensei transfers."""
    if match_over(state) or seat not in waiting_for(state):
        return []
    if current_step(state) == "assign":
        return assignment_choices(pieces_of(seat), state["config"]["power_mode"], state["dice"][seat])
    if (
        current_step(state) == "turn"
        and passes(check_player_power, state, seat, SENSEI)
        and passes(check_whole_turn, state)
    ):
        return _sensei_choices(on_board(state, seat))
    return []


def _sensei_choices(pieces: list[str]) -> list[Choice]:
    """Per source piece: any other piece as target, and one movement power with or without one action power,
    or one action power alone (a piece holds at most one of each type; the order named is free)."""
    out = []
    for source in pieces:
        targets = one_of([p for p in pieces if p != source])
        for powers in (
            union_of([subset_of(MOVEMENT, 1, 1), subset_of(ACTION, 0, 1)]),
            union_of([subset_of(ACTION, 1, 1)]),
        ):
            out.append(Choice(UseSensei, {"source": source}, {"target": targets, "powers": powers}))
    return out


def _list_assign(state: BoardState, seat: str) -> list[Command]:
    # Assignments are families too large to list: legal_choices offers them.
    return []


def _list_turn(state: BoardState, seat: str) -> list[Command]:
    board = state["board"]
    blocked = impassable(state["config"]["board"])
    forbidden = turn_of(state)["forbidden"]
    rejected = turn_of(state).get("rejected", [])
    where = locate(board)
    out: list[Command] = []
    whole_turns = passes(check_whole_turn, state)
    for piece in on_board(state, seat):
        square, index = where[piece]
        if index == len(board[square]) - 1:
            for movement in (None,) + MOVEMENT:
                claims = (movement,) if movement else ()
                for to, needs_sitting in sorted(reachable(board, blocked, square, movement).items()):
                    # One effect per move: onto a piece a bulldozer pushes, anything else sits.
                    effect = "move" if to not in board else "push" if movement == "bulldozer" else "sit"
                    if to not in forbidden and [piece, to, effect] not in rejected:
                        if not needs_sitting:
                            out.append(_move_command(piece, to, claims))
                        # Claims may come in either order; both spellings are the same move.
                        out.append(_move_command(piece, to, claims + ("sitting",)))
                        if claims:
                            out.append(_move_command(piece, to, ("sitting",) + claims))
        if not whole_turns:
            continue
        around = neighbours(square)
        out += [
            Detect(piece=piece, target=target)
            for target in on_board(state, opponent(seat))
            if where[target][0] in around and passes(check_detect, state, seat, piece, target)
        ]
        out += [
            UseMagician(piece=piece, target=target)
            for target in on_board(state, opponent(seat))
            if passes(check_magician, state, seat, piece, target)
        ]
    if not whole_turns:
        out.append(DeclineJuggernaut())
    return out


@cache
def _move_command(piece: str, to: str, claims: tuple[str, ...]) -> MovePiece:
    """Commands are immutable, so the listing reuses one object per distinct move (it runs every turn)."""
    return MovePiece(piece=piece, to=to, claims=claims)


def _list_respond(state: BoardState, seat: str) -> list[Command]:
    pending = pending_of(state)
    out: list[Command] = [Accept()] + [CallBluff(claim=c) for c in pending["claims"]]
    mine = on_board(state, seat)
    out += [ClaimMoat(piece=p) for p in mine if passes(check_moat_claim, state, seat, p)]
    out += [ClaimKamikaze(piece=p) for p in mine if passes(check_kamikaze_claim, state, seat, p)]
    out += [UseWitchDoctor(piece=p) for p in mine if passes(check_witch_doctor, state, seat, p)]
    return out


def _list_counter(state: BoardState, seat: str) -> list[Command]:
    return [Accept(), CallBluff(claim=pending_counter(state)["kind"])]


def _list_lose(state: BoardState, seat: str) -> list[Command]:
    return [ChooseLoss(piece=p) for p in pieces_of(step_of(state)["loser"]) if passes(check_loss, state, p)]


def _list_reassign(state: BoardState, seat: str) -> list[Command]:
    return [
        Reassign(power=power, piece=p)
        for power in reassign_choices(state)
        for p in pieces_of(seat)
        if passes(check_reassign, state, seat, power, p)
    ]


def _list_earn(state: BoardState, seat: str) -> list[Command]:
    return [ChoosePlayerPower(power=power) for power in PLAYER_POWERS]


_LISTERS: dict[str | None, Callable[[BoardState, str], list[Command]]] = {
    "assign": _list_assign,
    "turn": _list_turn,
    "respond": _list_respond,
    "counter": _list_counter,
    "lose": _list_lose,
    "reassign": _list_reassign,
    "earn": _list_earn,
}
