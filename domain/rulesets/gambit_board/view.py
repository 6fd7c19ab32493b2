"""What each viewer sees of a gambit-board match, and the public catalogue of pieces, powers and boards.

Everyone sees the board, stacks, claims, rulings, revealed and lost pieces' powers and which
seats have committed an assignment. A seat also sees its own pieces' powers, its own dice and
reassignment rolls, and what its detects revealed. `sees_all` (organizers, or anyone after the
end) sees every power, die and detect. Held Player Powers are public (they are announced when
earned). Once the match is over nobody is to move: `turn`, `step` and `pending` are null.
`VIEWS` declares the view's shape per viewer: a spectator's (no power, die or detect), a seat's
(its own), and the full view organizers always see and everyone sees once the match has ended.
"""

# No `from __future__ import annotations`: TypedDicts read NotRequired from evaluated annotations.
import copy
from collections.abc import Callable
from typing import Literal, NotRequired, TypedDict

from domain.ruleset import Viewer
from domain.view_types import ViewTypes

from .board import COLUMNS, SIZE, impassable, locate
from .flow import SEATS, far_row_count, match_over, pieces_of
from .payloads import PowerRecord
from .player_powers import holdings
from .powers import ACTION, MOVEMENT, PLAYER_POWERS, faces
from .shapes import BoardConfig, BoardState, Claim, Detection, Pending, Result, Revealed, Ruling


class PieceView(TypedDict):
    """Where a piece stands (None once lost) and whether it is lost or sat on: what everyone sees of it."""

    seat: str
    lost: bool
    square: str | None
    stack_position: int | None
    stack_height: int | None
    sat_on: bool


class OwnPieceView(PieceView):
    """A piece as a seat sees it: its powers when it is the seat's own."""

    powers: NotRequired[PowerRecord]


class FullPieceView(PieceView):
    """A piece with its powers, as organizers (and everyone once the match has ended) see it."""

    powers: PowerRecord


SentBack = TypedDict("SentBack", {"piece": str, "to": str, "effect": Literal["move", "push", "sit"]})


class TurnView(TypedDict):
    """The turn being played: whose, its number, the squares and moves a moat barred, a Juggernaut turn."""

    seat: str
    number: int
    forbidden_squares: list[str]
    sent_back: list[SentBack]
    juggernaut: bool


class StepView(TypedDict):
    """What the match awaits now (a reassignment's die hidden)."""

    kind: Literal["assign", "turn", "respond", "counter", "lose", "reassign", "earn"]
    seats: NotRequired[list[str]]  # assign: the seats still to assign
    seat: NotRequired[str]
    loser: NotRequired[str]
    call_version: NotRequired[int | None]
    type: NotRequired[str]
    piece: NotRequired[str]
    earned_version: NotRequired[int | None]


class RollStepView(StepView):
    """The step as the seat that reassigns (or an organizer) sees it: with the reassignment die."""

    roll: NotRequired[int | None]


class DiceFaces(TypedDict):
    """A seat's rolled power dice read as faces (a power, or `wild`)."""

    movement: list[str]
    action: list[str]


class NoSecrets(TypedDict):
    """Per-seat secrets a spectator is shown: none (always `{}`)."""


class BoardView(TypedDict):
    """What every viewer sees of a gambit-board match."""

    ruleset: Literal["gambit-board"]
    phase: Literal["setup", "assign", "play", "over"]
    config: BoardConfig
    first_seat: str | None
    impassable: list[str]
    board: dict[str, list[str]]
    turn: TurnView | None
    pending: Pending | None
    player_powers: dict[str, list[str]]
    lost: dict[str, list[str]]
    far_row: dict[str, int]
    assigned: dict[str, bool]
    assignment_versions: dict[str, int | None]
    claims: list[Claim]
    rulings: list[Ruling]
    revealed: list[Revealed]
    result: Result | None


class SpectatorView(BoardView):
    """A spectator's view while the match runs: no power, die or detect of either seat."""

    pieces: dict[str, PieceView]
    step: StepView | None
    detections: NoSecrets
    dice: NoSecrets


class SeatView(BoardView):
    """A seat's view while the match runs: its own pieces' powers, dice, reassignment die and detects."""

    pieces: dict[str, OwnPieceView]
    step: RollStepView | None
    detections: dict[str, list[Detection]]
    dice: dict[str, DiceFaces]


class FullView(BoardView):
    """Every power, die and detect: what organizers see, and everyone once the match has ended."""

    pieces: dict[str, FullPieceView]
    step: RollStepView | None
    detections: dict[str, list[Detection]]
    dice: dict[str, DiceFaces]


# Organizers see everything at any time (their viewer `sees_all`), as everyone does once the match ends.
VIEWS = ViewTypes(seat=SeatView, spectator=SpectatorView, organizer=FullView, ended=FullView)


class CataloguePowers(TypedDict):
    """The piece powers by type: a piece holds at most one of each."""

    movement: list[str]
    action: list[str]


class BoardCatalogue(TypedDict):
    """Each seat's pieces and home row, the columns and rows, the powers, each board's impassable squares,
    and the Player Powers."""

    pieces: dict[str, list[str]]
    home_rows: dict[str, int]
    columns: list[str]
    rows: list[int]
    powers: CataloguePowers
    boards: dict[str, list[str]]
    player_powers: list[str]


CATALOGUE = BoardCatalogue


def catalogue() -> BoardCatalogue:
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


def view(state: BoardState, viewer: Viewer) -> dict:
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
        "dice": {s: faces(dice) for s in SEATS if visible(s) and (dice := state["dice"][s]) is not None},
        "result": copy.deepcopy(state["result"]),
    }
    return out


def _step(state: BoardState, visible: Callable[[str], bool]) -> dict | None:
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


def _pending(pending: Pending | None) -> dict | None:
    """The claim awaiting an answer (and the moat/kamikaze counter-claim, if any)."""
    if pending is None:
        return None
    return dict(copy.deepcopy(pending))
