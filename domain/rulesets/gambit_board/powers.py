"""Powers of gambit-board: the two types, dice faces, and checking a seat's secret assignment."""

from __future__ import annotations

from collections import Counter
from itertools import combinations, combinations_with_replacement

from domain.ruleset import RuleViolation

MOVEMENT = ("diagonal", "ghost", "sidewinder", "bulldozer")
ACTION = ("moat", "sitting", "kamikaze", "detective")
ALL_POWERS = MOVEMENT + ACTION
TYPES = ("movement", "action")
# Powers a move itself may rely on; moat and kamikaze are answers, detective is its own turn.
MOVE_CLAIMS = frozenset(MOVEMENT + ("sitting",))
WILD = "wild"
# Where the bounded `assign` listing puts (movement 1, movement 2, action 1, action 2), by
# piece index: apart, combined, on the wings, crossed — enough variety for random play.
PLACEMENTS = ((0, 1, 2, 3), (0, 1, 0, 1), (2, 3, 2, 3), (4, 5, 4, 5), (1, 4, 0, 5), (5, 0, 4, 1),
              (2, 3, 1, 4), (3, 2, 5, 0))


def power_type(power: str) -> str | None:
    """`movement`, `action`, or None for a name that is not a power."""
    if power in MOVEMENT:
        return "movement"
    if power in ACTION:
        return "action"
    return None


def powers_of_type(kind: str) -> tuple[str, ...]:
    """The four powers of one type, in the rules' order (die faces 1–4)."""
    return MOVEMENT if kind == "movement" else ACTION


def die_face(kind: str, roll: int) -> str:
    """The power a d6 gives: 1–4 in the listed order, 5–6 wild."""
    return powers_of_type(kind)[roll - 1] if roll <= 4 else WILD


def no_powers() -> dict:
    """A piece's power record with nothing assigned."""
    return {"movement": None, "action": None}


def held(record: dict) -> list[str]:
    """The powers in a piece's record, movement first."""
    return [p for p in (record["movement"], record["action"]) if p is not None]


def check_assignment(pieces: list[str], requested: dict, mode: str, dice: dict | None) -> dict:
    """The seat's pieces mapped to their power records; RuleViolation when the request breaks a rule.

    `select`: two different movement and two different action powers. `roll`: the rolled faces,
    each wild face replaced by any power of its type.
    """
    out = {p: no_powers() for p in pieces}
    chosen: dict[str, list[str]] = {"movement": [], "action": []}
    for piece, powers in requested.items():
        if piece not in out:
            raise RuleViolation("unknown_piece", f"{piece!r} is not one of your pieces")
        for power in powers:
            kind = power_type(power)
            if kind is None:
                raise RuleViolation("unknown_power", f"{power!r} is not a power")
            if out[piece][kind] is not None:
                raise RuleViolation("invalid_assignment", f"{piece} would hold two {kind} powers")
            out[piece][kind] = power
            chosen[kind].append(power)
    for kind in TYPES:
        if len(chosen[kind]) != 2:
            raise RuleViolation("invalid_assignment", f"assign exactly two {kind} powers")
        if mode == "select" and len(set(chosen[kind])) != 2:
            raise RuleViolation("invalid_assignment", f"the two {kind} powers must differ")
        if mode == "roll" and not fits_dice(chosen[kind], dice[kind]):
            raise RuleViolation("invalid_assignment", f"{kind} powers do not match the dice {dice[kind]}")
    return out


def fits_dice(chosen: list[str], faces: list[str]) -> bool:
    """Whether chosen powers are the rolled faces, wild faces filled freely."""
    missing = Counter(f for f in faces if f != WILD) - Counter(chosen)
    return not missing


def faces(dice: dict) -> dict:
    """Rolled numbers mapped to faces: {"movement": [...], "action": [...]}."""
    return {kind: [die_face(kind, r) for r in dice[kind]] for kind in TYPES}


def type_options(kind: str, mode: str, rolled: list[str] | None) -> list[tuple[str, str]]:
    """The pairs of powers of one type a seat may receive."""
    if mode == "select":
        return list(combinations(powers_of_type(kind), 2))
    fixed = [f for f in rolled if f != WILD]
    extra = combinations_with_replacement(powers_of_type(kind), len(rolled) - len(fixed))
    return sorted({tuple(fixed) + e for e in extra})


def assignment_options(pieces: list[str], mode: str, dice: dict | None, limit: int = 240) -> list[dict]:
    """A bounded, varied subset of valid assignments: every pair of powers on a few placements."""
    rolled = faces(dice) if mode == "roll" else {"movement": None, "action": None}
    pairs = [(m, a) for m in type_options("movement", mode, rolled["movement"])
             for a in type_options("action", mode, rolled["action"])]
    count = max(1, min(len(PLACEMENTS), limit // len(pairs)))
    out = []
    for (m1, m2), (a1, a2) in pairs:
        for im1, im2, ia1, ia2 in PLACEMENTS[:count]:
            chosen: dict[str, list[str]] = {}
            for index, power in ((im1, m1), (im2, m2), (ia1, a1), (ia2, a2)):
                chosen.setdefault(pieces[index], []).append(power)
            out.append({p: tuple(v) for p, v in chosen.items()})
    return out
