"""The registry of rulesets by id: a plain mapping, checked against the one contract by a type checker.

Each game is a module or small package here that implements `domain.ruleset.Ruleset` in full;
`tests/test_ruleset_contract_types.py` runs mypy over this file, so a game that lacks a member
(or has one of the wrong shape) fails a test, and tests/conformance/ plays every entry.
"""

from __future__ import annotations

from domain.ruleset import Ruleset
from domain.rulesets import dragons_gambit, gambit_board, gambit_tcg, gambitz, gattai_conflict

RULESETS: dict[str, Ruleset] = {
    gambitz.RULESET_ID: gambitz,
    gambit_board.RULESET_ID: gambit_board,
    dragons_gambit.RULESET_ID: dragons_gambit,
    gambit_tcg.RULESET_ID: gambit_tcg,
    gattai_conflict.RULESET_ID: gattai_conflict,
}


def available() -> list[str]:
    """Ruleset ids this service plays, in the registry's order."""
    return list(RULESETS)


def get(ruleset_id: str) -> Ruleset:
    """The ruleset for an id; KeyError when unknown."""
    return RULESETS[ruleset_id]
