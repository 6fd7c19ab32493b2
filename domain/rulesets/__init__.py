"""The registry of rulesets by id; each game is one module or small package here."""

from __future__ import annotations

import importlib
from types import ModuleType

_MODULES = {
    "gambitz": "domain.rulesets.gambitz",
    "gambit-board": "domain.rulesets.gambit_board",
    "dragons-gambit": "domain.rulesets.dragons_gambit",
}


def available() -> list[str]:
    """Ruleset ids this build can play (modules that import)."""
    ids = []
    for ruleset_id in _MODULES:
        try:
            get(ruleset_id)
        except KeyError:
            continue
        ids.append(ruleset_id)
    return ids


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
