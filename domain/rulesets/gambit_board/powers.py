"""Powers of gambit-board: the two types, dice faces, and the assignments a seat may make."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from itertools import combinations, combinations_with_replacement
from typing import Any

from domain.choices import Choice, pair_part, pairs, sequence_of
from domain.ruleset import RuleViolation

from .commands import AssignPowers

MOVEMENT = ("diagonal", "ghost", "sidewinder", "bulldozer")
ACTION = ("moat", "sitting", "kamikaze", "detective")
ALL_POWERS = MOVEMENT + ACTION
TYPES = ("movement", "action")
# Powers a move itself may rely on; moat and kamikaze are answers, detective is its own turn.
MOVE_CLAIMS = frozenset(MOVEMENT + ("sitting",))
WILD = "wild"
DIE_SIDES = 6  # power dice and the reassignment die are six-sided
# Indexed for a power known to be one (a recorded claim); `power_type` tests any name.
POWER_TYPES = {**dict.fromkeys(MOVEMENT, "movement"), **dict.fromkeys(ACTION, "action")}
# The Player Powers variant: die faces 1-4 in this order, 5-6 wild (the seat chooses).
PLAYER_POWERS = ("sensei", "magician", "juggernaut", "witch_doctor")
# A Sensei transfer is called as one claim under this name (the source must hold every named power).
SENSEI = "sensei"


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


def player_power_face(roll: int) -> str | None:
    """The Player Power a d6 gives: 1 Sensei, 2 Magician, 3 Juggernaut, 4 Witch Doctor; None when wild (5–6)."""
    return PLAYER_POWERS[roll - 1] if roll <= 4 else None


def no_powers() -> dict:
    """A piece's power record with nothing assigned."""
    return {"movement": None, "action": None}


def next_power_die(dice: Mapping[str, Any], seats: Iterable[str]) -> dict | None:
    """Which power die roll-mode setup rolls next, by the dice rolled so far; None once every seat is done."""
    # Seat by seat in order: movement 1, movement 2, action 1, action 2 (0 = not rolled yet); a
    # double moat (two action 1s) re-rolls all four as the next attempt.
    for seat in seats:
        rolled = dice[seat]
        if rolled is None:
            return {"seat": seat, "die": "movement", "index": 0, "attempt": 1}
        for kind in TYPES:
            for index in range(2):
                if rolled[kind][index] == 0:
                    return {"seat": seat, "die": kind, "index": index, "attempt": rolled["attempt"]}
        if rolled["action"] == [1, 1]:
            return {"seat": seat, "die": "movement", "index": 0, "attempt": rolled["attempt"] + 1}
    return None


def held(record: dict) -> list[str]:
    """The powers in a piece's record, movement first."""
    return [p for p in (record["movement"], record["action"]) if p is not None]


def fits_dice(chosen: list[str], faces: list[str]) -> bool:
    """Whether chosen powers are the rolled faces, wild faces filled freely."""
    missing = Counter(f for f in faces if f != WILD) - Counter(chosen)
    return not missing


def faces(dice: Mapping[str, Any]) -> dict:
    """Rolled numbers mapped to faces: {"movement": [...], "action": [...]}."""
    return {kind: [die_face(kind, r) for r in dice[kind]] for kind in TYPES}


def type_options(kind: str, mode: str, rolled: list[str] | None) -> list[tuple[str, ...]]:
    """The pairs of powers of one type a seat may receive."""
    if mode == "select" or rolled is None:
        return list(combinations(powers_of_type(kind), 2))
    fixed = [f for f in rolled if f != WILD]
    extra = combinations_with_replacement(powers_of_type(kind), len(rolled) - len(fixed))
    return sorted({tuple(fixed) + e for e in extra})


def assignment_choices(pieces: list[str], mode: str, dice: Mapping[str, Any] | None) -> list[Choice]:
    """Every valid assignment, as one choice per pair of movement and pair of action powers.

    Each power of a pair goes to a different piece (a piece may hold one power of each type), so
    a choice pairs each pair with a sequence of two pieces; a piece given nothing may be left
    out or listed with no powers, and a piece's powers may come in either order.
    """
    rolled: dict[str, list[str] | None] = {"movement": None, "action": None}
    if mode == "roll" and dice is not None:
        rolled = {**faces(dice)}
    out = []
    for movement_pair in type_options("movement", mode, rolled["movement"]):
        for action_pair in type_options("action", mode, rolled["action"]):
            parts = [pair_part(sequence_of(pieces, 2, 2), powers) for powers in (movement_pair, action_pair)]
            out.append(Choice(AssignPowers, {}, {"powers": pairs(parts, lists=True, empty_keys=pieces)}))
    return out


def check_named_powers(powers: tuple[str, ...], verb: str) -> None:
    """Powers a seat names (`verb`: claimed, named): each real, none twice, at most one of each type."""
    for power in powers:
        if power_type(power) is None:
            raise RuleViolation("unknown_power", f"{power!r} is not a power")
    if len(set(powers)) != len(powers):
        raise RuleViolation("duplicate_claim", f"a power is {verb} twice")
    for kind in TYPES:
        if sum(1 for p in powers if power_type(p) == kind) > 1:
            raise RuleViolation("too_many_claims", f"at most one {kind} power may be {verb} at once")
