"""What each viewer sees of a gambit-board match, and the public catalogue of pieces, powers and boards.

Everyone sees the board, stacks, claims, rulings, revealed and lost pieces' powers and which
seats have committed an assignment. A seat also sees its own pieces' powers, its own dice and
reassignment rolls, and what its detects revealed. `sees_all` (organizers, or anyone after the
end) sees every power, die and detect. Held Player Powers are public (they are announced when
earned). Once the match is over nobody is to move: `turn`, `step` and `pending` are null.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from domain.ruleset import Viewer

from .board import COLUMNS, SIZE, impassable, locate
from .flow import SEATS, far_row_count, match_over, pieces_of
from .player_powers import holdings
from .powers import ACTION, MOVEMENT, PLAYER_POWERS, faces


def catalogue() -> dict:
    """The public pieces and powers: each seat's pieces and home row, the powers by type, the boards."""
    return {
        "pieces": {seat: pieces_of(seat) for seat in SEATS},
        "home_rows": {"south": 1, "north": SIZE},
        "columns": list(COLUMNS),
        "rows": list(range(1, SIZE + 1)),
        "powers": {"movement": list(MOVEMENT), "action": list(ACTION)},
        "boards": {name: sorted(impassable(name)) for name in ("standard", "bridges")},
        "player_powers": list(PLAYER_POWERS),
    }


def view(state: dict, viewer: Viewer) -> dict:
    """The board as `viewer` may see it (fresh objects, never references into the state)."""
    me = viewer.seat if viewer.role == "seat" else None
    over = match_over(state)

    def visible(seat: str) -> bool:
        return viewer.sees_all or seat == me

    board = state["board"]
    where = locate(board)
    pieces = {}
    for seat in SEATS:
        for piece in pieces_of(seat):
            square, index = where.get(piece, (None, None))
            entry = {
                "seat": seat,
                "lost": piece in state["lost"][seat],
                "square": square,
                "stack_position": index,
                "stack_height": len(board[square]) if square else None,
                "sat_on": square is not None and index < len(board[square]) - 1,
            }
            if visible(seat):
                entry["powers"] = dict(state["powers"][piece])
            pieces[piece] = entry
    out = {
        "ruleset": "gambit-board",
        "phase": state["phase"],
        "config": dict(state["config"]),
        "first_seat": state["first_seat"],
        "impassable": sorted(impassable(state["config"]["board"])),
        "board": {sq: list(stack) for sq, stack in sorted(board.items())},
        "pieces": pieces,
        "turn": None
        if state["turn"] is None or over
        else {
            "seat": state["turn"]["seat"],
            "number": state["turn"]["number"],
            "forbidden_squares": list(state["turn"]["forbidden"]),
            "sent_back": [{"piece": p, "to": to, "effect": e} for p, to, e in state["turn"].get("rejected", [])],
            "juggernaut": bool(state["turn"].get("juggernaut")),
        },
        "step": None if over else _step(state, visible),
        "pending": None if over else _pending(state["pending"]),
        "player_powers": {s: holdings(state, s) for s in SEATS},
        "lost": {s: list(state["lost"][s]) for s in SEATS},
        "far_row": {s: far_row_count(state, s) for s in SEATS},
        "assigned": {s: state["assignment_version"][s] is not None for s in SEATS},
        "assignment_versions": dict(state["assignment_version"]),
        "claims": copy.deepcopy(state["claims"]),
        "rulings": copy.deepcopy(state["rulings"]),
        "revealed": copy.deepcopy(state["revealed"]),
        "detections": {s: copy.deepcopy(state["detections"][s]) for s in SEATS if visible(s)},
        "dice": {s: faces(state["dice"][s]) for s in SEATS if visible(s) and state["dice"][s] is not None},
        "result": copy.deepcopy(state["result"]),
    }
    return out


def _step(state: dict, visible: Callable[[str], bool]) -> dict | None:
    """The step awaited now; a reassignment die shows only to its seat."""
    if state["phase"] == "assign":
        return {"kind": "assign", "seats": [s for s in SEATS if state["assignment_version"][s] is None]}
    step = state["step"]
    if step is None:
        return None
    out = {k: v for k, v in step.items() if k != "roll"}
    if step["kind"] == "reassign" and visible(step["seat"]):
        out["roll"] = step["roll"]
    return out


def _pending(pending: dict | None) -> dict | None:
    """The claim awaiting an answer (and the moat/kamikaze counter-claim, if any)."""
    if pending is None:
        return None
    return copy.deepcopy(pending)
