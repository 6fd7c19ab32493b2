"""Board geometry of gambit-board: squares, stacks, move shapes, pushes, sits and their undoing.

The board is `{square: [piece, ...]}` listing only occupied squares, each stack bottom to top;
the top piece is the only one of its stack that may move. Geometry is checked "as if" the
claimed powers were held: `plan_move` never looks at the real powers.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from functools import cache
from typing import Any, cast

from domain.ruleset import RuleViolation

from .payloads import Plan

COLUMNS = "abcdef"
SIZE = 6
SQUARES = tuple(f"{c}{r}" for r in range(1, SIZE + 1) for c in COLUMNS)
BRIDGES = frozenset({"a3", "c3", "d3", "f3", "a4", "c4", "d4", "f4"})
ORTHOGONAL = ((1, 0), (-1, 0), (0, 1), (0, -1))
DIAGONAL = ((1, 1), (1, -1), (-1, 1), (-1, -1))
MOVE_POWERS = ("diagonal", "ghost", "sidewinder", "bulldozer")


def impassable(board_name: str) -> frozenset:
    """The squares no piece may enter or pass on this board."""
    return BRIDGES if board_name == "bridges" else frozenset()


_COORDS = {sq: (COLUMNS.index(sq[0]), int(sq[1]) - 1) for sq in SQUARES}


def parse(square: object) -> tuple[int, int] | None:
    """(column, row) counted from 0, or None when the name is not a square of the board."""
    return _COORDS.get(square) if isinstance(square, str) else None


def name(x: int, y: int) -> str | None:
    """The square at (column, row), or None off the board."""
    if 0 <= x < SIZE and 0 <= y < SIZE:
        return f"{COLUMNS[x]}{y + 1}"
    return None


@cache
def neighbours(square: str) -> tuple[str, ...]:
    """The (up to) 8 squares around a square."""
    x, y = _COORDS[square]
    out = []
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            if (dx or dy) and (sq := name(x + dx, y + dy)) is not None:
                out.append(sq)
    return tuple(out)


def locate(board: dict) -> dict:
    """Each piece on the board mapped to (square, position in its stack from the bottom)."""
    return {piece: (sq, i) for sq, stack in board.items() for i, piece in enumerate(stack)}


def row_of(square: str) -> int:
    """The row number (1–6) of a square."""
    return int(square[1])


@cache
def candidates(frm: str, movement: str | None) -> tuple:
    """Every (vector, path) a piece with this movement power could take: 1 or 2 steps.

    The path lists the squares entered, destination last. Sidewinders wrap horizontally.
    """
    out = []
    x, y = _COORDS[frm]
    vectors = ORTHOGONAL + (DIAGONAL if movement == "diagonal" else ())
    wrap = movement == "sidewinder"
    for dx, dy in vectors:
        path: list[str] = []
        cx, cy = x, y
        for _ in range(2):
            cx, cy = cx + dx, cy + dy
            if wrap and dy == 0:
                cx %= SIZE
            sq = name(cx, cy)
            if sq is None:
                break
            path.append(sq)
            out.append(((dx, dy), tuple(path)))
    return tuple(out)


def judge(
    board: dict, blocked: frozenset, vector: tuple, path: tuple, movement: str | None, sitting: bool
) -> tuple[str | None, dict | None]:
    """Why this path is illegal (a rule id) or None, and the push it makes (bulldozer only)."""
    dest = path[-1]
    if dest in blocked:
        return "impassable_square", None
    for sq in path[:-1]:
        # Impassable squares stop even a ghost; pieces stop everything but a ghost.
        if sq in blocked or (sq in board and movement != "ghost"):
            return "path_blocked", None
    if dest not in board:
        return None, None
    if movement == "bulldozer":
        # One effect per move: a bulldozer claim onto a piece is a push, never a sit.
        if len(path) != 1:
            return ("bulldozer_means_push" if sitting else "square_occupied"), None
        x, y = _COORDS[dest]
        beyond = name(x + vector[0], y + vector[1])
        if beyond is None or beyond in blocked or beyond in board:
            return "push_blocked", None
        return None, {"from": dest, "to": beyond, "pieces": list(board[dest])}
    if not sitting:
        return "square_occupied", None
    return None, None


def split_claims(claims: Collection[str]) -> tuple[str | None, bool]:
    """The claimed movement power (or None) and whether `sitting` is claimed."""
    movement = next((c for c in claims if c in MOVE_POWERS), None)
    return movement, "sitting" in claims


def plan_move(board: dict, blocked: frozenset, piece: str, frm: str, to: str, claims: Collection[str]) -> dict:
    """The move as it would happen with the claimed powers; RuleViolation when it cannot."""
    if parse(to) is None:
        raise RuleViolation("off_board", f"{to!r} is not a square of the board")
    movement, sitting = split_claims(claims)
    first_error = None
    for vector, path in candidates(frm, movement):
        if path[-1] != to:
            continue
        error, push = judge(board, blocked, vector, path, movement, sitting)
        if error is None:
            return make_plan(board, piece, frm, to, claims, push)
        first_error = first_error or error
    if first_error is None:
        raise RuleViolation("illegal_geometry", f"{piece} cannot reach {to} from {frm} with claims {list(claims)}")
    raise RuleViolation(first_error, f"{piece} cannot move {frm}→{to}: {first_error.replace('_', ' ')}")


def make_plan(board: dict, piece: str, frm: str, to: str, claims: Iterable[str], push: dict | None) -> dict:
    """The JSON record of a legal move: enough to apply and to undo it."""
    sat_on = board[to][-1] if (to in board and push is None) else None
    return {"piece": piece, "from": frm, "to": to, "claims": list(claims), "push": push, "sat_on": sat_on}


def copy_plan(plan: Plan) -> Plan:
    """An independent copy of a move record."""
    push = plan["push"]
    copied = {
        **plan,
        "claims": list(plan["claims"]),
        "push": None if push is None else {**push, "pieces": list(push["pieces"])},
    }
    return cast(Plan, copied)


def reachable(board: dict, blocked: frozenset, frm: str, movement: str | None) -> dict[str, bool]:
    """Every legal destination with this movement claim, mapped to whether it also needs `sitting`."""
    out: dict[str, bool] = {}
    for vector, path in candidates(frm, movement):
        if judge(board, blocked, vector, path, movement, True)[0] is None:
            needs_sitting = judge(board, blocked, vector, path, movement, False)[0] is not None
            out[path[-1]] = out.get(path[-1], True) and needs_sitting
    return out


def shape(frm: str, to: str) -> dict:
    """How a move from `frm` to `to` was made: diagonally, wrapping an edge, and the square it passed (if any)."""
    (fx, fy), (tx, ty) = _COORDS[frm], _COORDS[to]
    # A wrapping sidewinder moves at most 2 columns, so a horizontal distance over 2 went round the edge.
    wrapped = fy == ty and abs(tx - fx) > 2
    passed = None
    if not wrapped and max(abs(tx - fx), abs(ty - fy)) == 2:
        passed = name((fx + tx) // 2, (fy + ty) // 2)
    elif wrapped and abs(tx - fx) == SIZE - 2:
        passed = name((fx + (1 if tx < fx else -1)) % SIZE, fy)
    return {"diagonal": fx != tx and fy != ty, "wrapped": wrapped, "passed": passed}


def apply_move(board: dict, plan: Mapping[str, Any]) -> None:
    """Make a planned move on the board."""
    _pop(board, plan["from"])
    push = plan["push"]
    if push is not None:
        board[push["to"]] = board.pop(push["from"])
    board.setdefault(plan["to"], []).append(plan["piece"])


def undo_move(board: dict, plan: Mapping[str, Any]) -> None:
    """Take a move back: the mover returns on top of its old square, a pushed stack returns."""
    _pop(board, plan["to"])
    push = plan["push"]
    if push is not None:
        board[push["from"]] = board.pop(push["to"])
    board.setdefault(plan["from"], []).append(plan["piece"])


def remove_piece(board: dict, piece: str) -> str | None:
    """Take one piece out of its stack (the pieces above drop by one); its square, or None."""
    for sq, stack in board.items():
        if piece in stack:
            stack.remove(piece)
            if not stack:
                del board[sq]
            return sq
    return None


def _pop(board: dict, square: str) -> None:
    board[square].pop()
    if not board[square]:
        del board[square]
