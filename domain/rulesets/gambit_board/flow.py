"""Seats, pieces and the flow of play in gambit-board: turns, the step awaited, losses, the winning conditions.

Shared by `evolve` (state.py), the checks of `decide` (rules.py) and the verifier hooks
(events.py); nothing here decides (`check_own_piece` is the one check all others share), and nothing
here ends the match by itself: `winner` only reads the state, and decide records the end
(`MatchWon`) that `finish` applies.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, cast

from domain.ruleset import RuleViolation, check_game_running, check_seat_in_match, check_seat_to_act

from .board import locate, neighbours, remove_piece, row_of, undo_move
from .commands import (
    Accept,
    AssignPowers,
    CallBluff,
    ChooseLoss,
    ChoosePlayerPower,
    ClaimKamikaze,
    ClaimMoat,
    DeclineJuggernaut,
    Detect,
    MovePiece,
    Reassign,
    UseMagician,
    UseSensei,
    UseWitchDoctor,
)
from .powers import held

if TYPE_CHECKING:
    from .payloads import Plan
    from .shapes import BoardState, Counter, Pending, Step, Turn

# Which step each command answers. A move or detect sent at another step is refused with what the
# game is busy with; any other command sent out of its step is refused with what is missing.
STEP_OF = {
    AssignPowers: "assign",
    MovePiece: "turn",
    Detect: "turn",
    Accept: "respond",
    CallBluff: "respond",
    ClaimMoat: "respond",
    ClaimKamikaze: "respond",
    ChooseLoss: "lose",
    Reassign: "reassign",
    ChoosePlayerPower: "earn",
    UseSensei: "turn",
    UseMagician: "turn",
    DeclineJuggernaut: "turn",
    UseWitchDoctor: "respond",
}
BUSY: dict[str | None, str] = {
    "assign": "assignment_pending",
    "respond": "response_pending",
    "counter": "response_pending",
    "lose": "loss_choice_pending",
    "reassign": "reassignment_pending",
    "earn": "player_power_choice_pending",
}
MISSING = {
    "assign": "assignment_closed",
    "respond": "no_response_pending",
    "lose": "no_loss_pending",
    "reassign": "no_reassignment_pending",
    "earn": "no_player_power_pending",
}


SEATS = ("south", "north")
PREFIX = {"south": "S", "north": "N"}
HOME_ROW = {"south": 1, "north": 6}
CAPTURES_TO_WIN = 4
FAR_ROW_TO_WIN = 3
# The records of `state["claims"]` that take a seat's whole turn (a Witch Doctor swap is an answer).
TURN_KINDS = ("move", "detect", "sensei", "magician")


def turn_of(state: BoardState) -> Turn:
    """The turn being played (read only where the step machine has one: in play, before the end)."""
    return cast("Turn", state["turn"])


def step_of(state: BoardState) -> Step:
    """The step awaited (read only where a command or record answers one)."""
    return cast("Step", state["step"])


def pending_of(state: BoardState) -> Pending:
    """The claim awaiting an answer (read only where a command or record answers one)."""
    return cast("Pending", state["pending"])


def pending_plan(state: BoardState) -> Plan:
    """The pending move's plan (read only where the claim awaiting an answer is a move)."""
    return cast("Plan", pending_of(state)["plan"])


def pending_counter(state: BoardState) -> Counter:
    """The moat or kamikaze claimed against the pending claim (read only where one awaits an answer)."""
    return cast("Counter", pending_of(state)["counter"])


def opponent(seat: str) -> str:
    """The other seat."""
    return "north" if seat == "south" else "south"


def pieces_of(seat: str) -> list[str]:
    """A seat's six piece ids, S1..S6 or N1..N6."""
    return [f"{PREFIX[seat]}{i}" for i in range(1, 7)]


def seat_of(piece: str) -> str:
    """The seat owning a (valid) piece id."""
    return "south" if piece[0] == "S" else "north"


def check_own_piece(state: BoardState, seat: str, piece: str) -> None:
    """The piece exists, belongs to `seat` and is still on the board (the one check every other shares)."""
    if not isinstance(piece, str) or piece not in state["powers"]:
        raise RuleViolation("unknown_piece", f"{piece!r} is not a piece")
    if seat_of(piece) != seat:
        raise RuleViolation("not_your_piece", f"{piece} belongs to {seat_of(piece)}")
    if piece in state["lost"][seat]:
        raise RuleViolation("piece_lost", f"{piece} has been lost")


def check_opposing_piece(state: BoardState, seat: str, target: str) -> None:
    """The target exists, belongs to the other seat and is still on the board (detect, Magician)."""
    if not isinstance(target, str) or target not in state["powers"]:
        raise RuleViolation("unknown_piece", f"{target!r} is not a piece")
    if seat_of(target) == seat:
        raise RuleViolation("not_opposing_piece", f"{target} is your own piece")
    if target in state["lost"][seat_of(target)]:
        raise RuleViolation("piece_lost", f"{target} has been lost")


def on_board(state: BoardState, seat: str) -> list[str]:
    """A seat's pieces not yet lost."""
    return [p for p in pieces_of(seat) if p not in state["lost"][seat]]


def current_step(state: BoardState) -> str | None:
    """The kind of step now awaited (`assign` while powers are being placed)."""
    if state["phase"] == "assign":
        return "assign"
    return state["step"]["kind"] if state["step"] is not None else None


def match_over(state: BoardState) -> bool:
    """Whether the match has ended (won or resigned)."""
    return state["result"] is not None


def waiting_for(state: BoardState) -> list[str]:
    """The seats the current step waits for: both while assigning, else the step's seat; nobody once over."""
    if match_over(state):
        return []
    if state["phase"] == "assign":
        return [s for s in SEATS if state["assignment_version"][s] is None]
    step = state["step"]
    return [step["seat"]] if step is not None else []


def far_row_pieces(state: BoardState, seat: str) -> list[str]:
    """The seat's pieces standing on the opponent's home row (sat on or not), in id order."""
    row = HOME_ROW[opponent(seat)]
    return sorted(p for sq, stack in state["board"].items() if row_of(sq) == row for p in stack if p[0] == PREFIX[seat])


def start_turn(state: BoardState, seat: str, number: int, juggernaut: bool = False) -> None:
    """`seat` is to move; no moat zone or move is forbidden yet; who stands on a far row now is noted.

    A Juggernaut turn (Player Powers) is one more move answering a far-row win.
    """
    state["turn"] = {
        "seat": seat,
        "number": number,
        "forbidden": [],
        "rejected": [],
        "juggernaut": juggernaut,
        "far_row_start": {s: far_row_pieces(state, s) for s in SEATS},
    }
    state["step"] = {"kind": "turn", "seat": seat}
    state["pending"] = None


def end_turn(state: BoardState) -> None:
    """The window closed: the turn passes, and (Player Powers) each piece newly on its far row owes an earning."""
    state["pending"] = None
    turn = turn_of(state)
    if state["config"].get("player_powers"):
        # Which pieces stood there when the turn began (a turn recorded before this was kept: none).
        start = turn.get("far_row_start") or {}
        state["earnings_owed"] = [[s, p] for s in SEATS for p in far_row_pieces(state, s) if p not in start.get(s, [])]
    start_turn(state, opponent(turn["seat"]), turn["number"] + 1)


def advance(state: BoardState) -> None:
    """Move on to the next step a ruling owes."""
    if state["phase"] == "over" or not state["queue"]:
        return
    nxt = state["queue"].pop(0)
    if nxt["kind"] == "end_turn":
        end_turn(state)
    elif nxt["kind"] == "retry":
        state["pending"] = None
        state["step"] = {"kind": "turn", "seat": turn_of(state)["seat"]}
    else:
        state["step"] = nxt


def far_row_count(state: BoardState, seat: str) -> int:
    """How many of the seat's unsat pieces stand on the opponent's home row."""
    row = HOME_ROW[opponent(seat)]
    return sum(1 for sq, stack in state["board"].items() if row_of(sq) == row and stack[-1][0] == PREFIX[seat])


def captured_enough(state: BoardState, seat: str) -> bool:
    """Whether the seat's opponent has lost four pieces."""
    return len(state["lost"][opponent(seat)]) >= CAPTURES_TO_WIN


def winning_reason(state: BoardState, seat: str) -> str | None:
    """`far_row` or `captures` when the seat has met a winning condition."""
    if far_row_count(state, seat) >= FAR_ROW_TO_WIN:
        return "far_row"
    if captured_enough(state, seat):
        return "captures"
    return None


def last_mover(state: BoardState) -> str | None:
    """The seat whose turn was played last: the one that made the newest move or detect."""
    # Read from the claims, not the turn: when a move closes the turn, the turn has passed to the
    # other seat before the win is declared.
    for claim in reversed(state["claims"]):
        if claim["kind"] in TURN_KINDS:
            return claim["seat"]
    return state["turn"]["seat"] if state["turn"] is not None else None


def winner(state: BoardState) -> tuple[str, str] | None:
    """(seat, reason) of the seat that has won, or None; both at once → the seat that just moved wins."""
    reasons = {s: r for s in SEATS if (r := winning_reason(state, s)) is not None}
    if not reasons:
        return None
    mover = last_mover(state)
    seat = mover if mover in reasons else next(iter(reasons))
    return seat, reasons[seat]


def finish(state: BoardState, winner_seat: str, reason: Literal["far_row", "captures", "resignation"]) -> None:
    """Record the result; nobody acts any more."""
    state["result"] = {"winners": [winner_seat], "reason": reason}
    state["phase"] = "over"
    state["step"] = None
    state["queue"] = []


def lose_piece(state: BoardState, piece: str, reason: Literal["kamikaze", "lost"], version: int | None) -> None:
    """Remove a piece (its stack drops by one), count it lost and reveal its powers."""
    remove_piece(state["board"], piece)
    state["lost"][seat_of(piece)].append(piece)
    state["revealed"].append(
        {"piece": piece, "powers": held(state["powers"][piece]), "reason": reason, "version": version}
    )


def effect_of(plan: Mapping[str, Any]) -> str:
    """What a planned move does: `push`, `sit` or a plain `move` (one effect per move)."""
    return "push" if plan["push"] is not None else "sit" if plan["sat_on"] is not None else "move"


def send_back(state: BoardState) -> None:
    """A moat stood: take the move back, forbid the moat piece's zone and that very move for the rest of the turn."""
    plan = pending_plan(state)
    undo_move(state["board"], plan)
    moat_square = locate(state["board"])[pending_counter(state)["piece"]][0]
    forbidden = turn_of(state)["forbidden"]
    forbidden.extend(sq for sq in neighbours(moat_square) if sq not in forbidden)
    # A pushed moat piece returns to the mover's destination, outside its own zone: the identical
    # push must be barred by itself, or the turn could repeat it forever.
    turn_of(state).setdefault("rejected", []).append([plan["piece"], plan["to"], effect_of(plan)])


def require_step(state: BoardState, seat: str, command: Any) -> None:
    """Check that `seat` is to act and that the command answers the current step."""
    check_game_running(match_over(state))
    check_seat_in_match(list(SEATS), seat)
    wanted = STEP_OF[type(command)]
    step = current_step(state)
    waiting = waiting_for(state)
    if wanted == "assign" and step == "assign" and seat not in waiting:
        raise RuleViolation("already_assigned", "your powers are already assigned")
    check_seat_to_act(seat, waiting)
    if step == "counter" and isinstance(command, (Accept, CallBluff)):
        return
    if step == "counter" and isinstance(command, (ClaimMoat, ClaimKamikaze, UseWitchDoctor)):
        raise RuleViolation("counter_response_only", "answer the moat or kamikaze claim with accept or call_bluff")
    if step != wanted:
        rule = MISSING[wanted] if wanted != "turn" else BUSY[step]
        raise RuleViolation(rule, f"the game awaits a {step} step, not {command.type}")
