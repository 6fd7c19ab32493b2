"""A newly registered game is checked by every suite that plays all the games: none lists them by hand.

The playouts behind the leak hunt and both fuzzers, the replay of `derived_public`, the hidden
information checks and the browser's boards, viewer and play pages take their games from the
ruleset registry. Here a
toy ruleset id is registered (in this test only) and a fresh copy of each of those test modules is
loaded: each must play the toy too, with its default config, in every test that plays every game.
Per-game data (a config, a mid-game position) stays keyed by ruleset id, naming only registered
games.
"""

from __future__ import annotations

import importlib.util
import pathlib
import sys
import types

import pytest

from domain import rulesets

ROOT = pathlib.Path(__file__).resolve().parents[2]
TOY = "toy-game"

# The modules whose every-game tests must reach a newly registered game, and the data each keys by game.
EVERY_GAME = {
    "tests/hardening/play.py": ("CONFIGS",),
    "tests/hardening/test_leak_hunt.py": (),
    "tests/hardening/test_rules_fuzzing.py": (),
    "tests/hardening/test_api_fuzzing.py": (),
    "tests/rules/test_derived_public.py": ("CASES", "BOUND", "SOMETIMES", "FREE", "MUST_SEE"),
    "tests/http/test_hidden_information.py": ("CONFIGS",),
    "tests/browser/conftest.py": ("CONFIGS",),
    "tests/browser/test_boards.py": ("CONFIGS", "MID_GAME"),
    "tests/browser/test_watch.py": (),
    "tests/browser/test_play.py": ("GAMES",),
}


def _fresh(path: str, monkeypatch) -> types.ModuleType:
    """A new copy of the module at `path`, executed now (the copy pytest collected is left as it is)."""
    name = "fresh_" + path.removesuffix(".py").replace("/", "_")
    spec = importlib.util.spec_from_file_location(name, ROOT / path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, module)
    spec.loader.exec_module(module)
    return module


def _games_of_every_game_tests(module: types.ModuleType, registered: set[str]) -> list[tuple[str, list]]:
    """(test name, the games it runs with) of each test parametrized over every registered game."""
    found = []
    for name, test in vars(module).items():
        if not name.startswith("test_"):
            continue
        for mark in getattr(test, "pytestmark", []):
            if mark.name == "parametrize" and mark.args[0] in ("ruleset", "ruleset_id"):
                games = list(mark.args[1])
                if registered <= set(games) - {TOY}:
                    found.append((name, games))
    return found


@pytest.fixture
def toy_registered(monkeypatch) -> set[str]:
    """The registry with a toy game added; the five real games' ids."""
    registered = set(rulesets.available())
    toy = types.ModuleType("toy_game")
    toy.RULESET_ID = TOY  # type: ignore[attr-defined]
    monkeypatch.setattr(rulesets, "RULESETS", {**rulesets.RULESETS, TOY: toy})
    # The suites below import the playout helpers by name: they see the copy loaded with the toy.
    monkeypatch.setitem(sys.modules, "tests.hardening.play", _fresh("tests/hardening/play.py", monkeypatch))
    return registered


def test_the_playouts_behind_the_leak_hunt_and_both_fuzzers_play_a_new_game_with_its_defaults(toy_registered):
    play = sys.modules["tests.hardening.play"]
    assert TOY in play.RULESETS
    assert play.config_for(TOY) == {}
    assert play.join_options(TOY, ["p1", "p2"], None) is None


@pytest.mark.parametrize("path", [p for p in EVERY_GAME if not p.endswith(("/play.py", "/conftest.py"))])
def test_every_test_that_plays_every_game_plays_a_newly_registered_one(toy_registered, monkeypatch, path):
    module = _fresh(path, monkeypatch)
    every_game = _games_of_every_game_tests(module, toy_registered)
    if path == "tests/hardening/test_api_fuzzing.py":
        # Its world (a match of every game in every state) is built from the playouts' list at run time.
        assert TOY in module.RULESETS
        return
    assert every_game, f"{path} has no test over every game"
    for name, games in every_game:
        assert TOY in games, f"{path}::{name} skips a newly registered game"


def test_the_toy_is_replayed_with_its_defaults_by_derived_public(toy_registered, monkeypatch):
    module = _fresh("tests/rules/test_derived_public.py", monkeypatch)
    assert module.cases(TOY) == [({}, 0, None, None)]


@pytest.mark.parametrize("path", [p for p, data in EVERY_GAME.items() if data])
def test_per_game_data_names_only_registered_games(monkeypatch, path):
    module = _fresh(path, monkeypatch)
    for table in EVERY_GAME[path]:
        stale = set(getattr(module, table)) - set(rulesets.available())
        assert not stale, f"{path}: {table} names games that are not registered: {stale}"
