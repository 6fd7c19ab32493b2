"""The registry of rulesets by id; each game is one module or small package here."""

from __future__ import annotations

import importlib
from types import ModuleType

_MODULES = {
    "gambitz": "domain.rulesets.gambitz",
    "gambit-board": "domain.rulesets.gambit_board",
    "dragons-gambit": "domain.rulesets.dragons_gambit",
    "gambit-tcg": "domain.rulesets.gambit_tcg",
    "gattai-conflict": "domain.rulesets.gattai_conflict",
}


CONTRACT = ("RULESET_ID", "Config", "COMMANDS", "seat_names", "initial_state", "setup", "decide", "evolve",
            "legal_commands", "to_act", "outcome", "view")


def available() -> list[str]:
    """Ruleset ids this build can play (modules that import)."""
    return [ruleset_id for ruleset_id in _MODULES if _loadable(ruleset_id)]


def _loadable(ruleset_id: str) -> bool:
    try:
        module = get(ruleset_id)
    except KeyError:
        return False
    return all(hasattr(module, name) for name in CONTRACT)


def get(ruleset_id: str) -> ModuleType:
    """The ruleset module for an id; KeyError when unknown."""
    path = _MODULES.get(ruleset_id)
    if path is None:
        raise KeyError(ruleset_id)
    try:
        return importlib.import_module(path)
    except ModuleNotFoundError as exc:
        if exc.name == path:
            raise KeyError(ruleset_id) from None
        raise
