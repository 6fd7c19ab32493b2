"""Seats, pieces and the flow of play in gambit-board: turns, steps owed, losses, winning.

Shared by `evolve` (state.py) and the bluff rulings (bluffs.py); nothing here validates.
"""

from __future__ import annotations

from . import board as geo
from .powers import held

SEATS = ("south", "north")
PREFIX = {"south": "S", "north": "N"}
HOME_ROW = {"south": 1, "north": 6}
CAPTURES_TO_WIN = 4
FAR_ROW_TO_WIN = 3


def opponent(seat: str) -> str:
    """The other seat."""
    return "north" if seat == "south" else "south"


def pieces_of(seat: str) -> list[str]:
    """A seat's six piece ids, S1..S6 or N1..N6."""
    return [f"{PREFIX[seat]}{i}" for i in range(1, 7)]


def seat_of(piece: str) -> str:
    """The seat owning a (valid) piece id."""
    return "south" if piece[0] == "S" else "north"


def on_board(state: dict, seat: str) -> list[str]:
    """A seat's pieces not yet lost."""
    return [p for p in pieces_of(seat) if p not in state["lost"][seat]]


def start_turn(state: dict, seat: str, number: int) -> None:
    """`seat` is to move; no moat zone is forbidden yet."""
    state["turn"] = {"seat": seat, "number": number, "forbidden": []}
    state["step"] = {"kind": "turn", "seat": seat}
    state["pending"] = None


def end_turn(state: dict) -> None:
    """The window closed: check for a winner, else the turn passes."""
    state["pending"] = None
    if not check_winner(state):
        start_turn(state, opponent(state["turn"]["seat"]), state["turn"]["number"] + 1)


def advance(state: dict) -> None:
    """Move on to the next step a ruling owes."""
    if state["phase"] == "over" or not state["queue"]:
        return
    nxt = state["queue"].pop(0)
    if nxt["kind"] == "end_turn":
        end_turn(state)
    elif nxt["kind"] == "retry":
        state["pending"] = None
        state["step"] = {"kind": "turn", "seat": state["turn"]["seat"]}
    else:
        state["step"] = nxt


def far_row_count(state: dict, seat: str) -> int:
    """How many of the seat's unsat pieces stand on the opponent's home row."""
    row = HOME_ROW[opponent(seat)]
    return sum(1 for sq, stack in state["board"].items() if geo.row_of(sq) == row and stack[-1][0] == PREFIX[seat])


def winning_reason(state: dict, seat: str) -> str | None:
    """`far_row` or `captures` when the seat has met a winning condition."""
    if far_row_count(state, seat) >= FAR_ROW_TO_WIN:
        return "far_row"
    if len(state["lost"][opponent(seat)]) >= CAPTURES_TO_WIN:
        return "captures"
    return None


def check_winner(state: dict) -> bool:
    """End the game if a seat has won; both at once → the seat whose turn it is wins."""
    reasons = {s: r for s in SEATS if (r := winning_reason(state, s)) is not None}
    if not reasons:
        return False
    mover = state["turn"]["seat"]
    winner = mover if mover in reasons else next(iter(reasons))
    finish(state, winner, reasons[winner])
    return True


def finish(state: dict, winner: str, reason: str) -> None:
    """Record the result; nobody acts any more."""
    state["result"] = {"winners": [winner], "reason": reason}
    state["phase"] = "over"
    state["step"] = None
    state["queue"] = []


def lose_piece(state: dict, piece: str, reason: str, version: int) -> None:
    """Remove a piece (its stack drops by one), count it lost and reveal its powers."""
    geo.remove_piece(state["board"], piece)
    state["lost"][seat_of(piece)].append(piece)
    state["revealed"].append({"piece": piece, "powers": held(state["powers"][piece]), "reason": reason, "version": version})


def send_back(state: dict) -> None:
    """A moat stood: take the move back and forbid the moat piece's zone for the rest of the turn."""
    pending = state["pending"]
    geo.undo_move(state["board"], pending["plan"])
    moat_square = geo.locate(state["board"])[pending["counter"]["piece"]][0]
    forbidden = state["turn"]["forbidden"]
    forbidden.extend(sq for sq in geo.neighbours(moat_square) if sq not in forbidden)
