"""The registry of rulesets by id: a plain mapping, checked against the one contract by a type checker.

Each game is a module or small package here that implements `domain.ruleset.Ruleset` in full;
`tests/test_ruleset_contract_types.py` runs mypy over this file, so a game that lacks a member
(or has one of the wrong shape) fails a test, and tests/conformance/ plays every entry.

A game's package is imported the first time it is asked for: `gambit verify` of one match
loads that match's game alone, not the other four.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from domain.ruleset import Ruleset


def _gambitz() -> Ruleset[Any, Any]:
    from domain.rulesets import gambitz

    return gambitz


def _gambit_board() -> Ruleset[Any, Any]:
    from domain.rulesets import gambit_board

    return gambit_board


def _dragons_gambit() -> Ruleset[Any, Any]:
    from domain.rulesets import dragons_gambit

    return dragons_gambit


def _gambit_tcg() -> Ruleset[Any, Any]:
    from domain.rulesets import gambit_tcg

    return gambit_tcg


def _gattai_conflict() -> Ruleset[Any, Any]:
    from domain.rulesets import gattai_conflict

    return gattai_conflict


class _Registry(Mapping[str, Ruleset[Any, Any]]):
    """Ruleset ids to their games, each imported on first use (the ids are checked against the
    games' own `RULESET_ID` by tests/test_ruleset_contract_types.py)."""

    def __init__(self, loaders: dict[str, Callable[[], Ruleset[Any, Any]]]) -> None:
        self._loaders = loaders
        self._loaded: dict[str, Ruleset[Any, Any]] = {}

    def __getitem__(self, ruleset_id: str) -> Ruleset[Any, Any]:
        found = self._loaded.get(ruleset_id)
        if found is None:
            found = self._loaded[ruleset_id] = self._loaders[ruleset_id]()
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self._loaders)

    def __len__(self) -> int:
        return len(self._loaders)


RULESETS: Mapping[str, Ruleset[Any, Any]] = _Registry(
    {
        "gambitz": _gambitz,
        "gambit-board": _gambit_board,
        "dragons-gambit": _dragons_gambit,
        "gambit-tcg": _gambit_tcg,
        "gattai-conflict": _gattai_conflict,
    }
)


def available() -> list[str]:
    """Ruleset ids this service plays, in the registry's order."""
    return list(RULESETS)


def get(ruleset_id: str) -> Ruleset[Any, Any]:
    """The ruleset for an id; KeyError when unknown."""
    return RULESETS[ruleset_id]
