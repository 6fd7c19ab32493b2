"""A game without a renderer of its own is drawn on the viewer's generic board, live and finished.

The toy game (tests/support/toy_game, docs/adding-a-game.md's example) is registered for these
tests only: its watch page draws the view's state as a tree (`data-ruleset="generic"`), shows the
outcome once the match ends, and shows a spectator no card while it runs.
"""

from __future__ import annotations

import random

import pytest

from domain import rulesets
from tests.browser.test_boards import board_text, open_watch, play
from tests.support import toy_game

pytestmark = pytest.mark.browser
TOY = toy_game.RULESET_ID


@pytest.fixture
def toy(monkeypatch):
    """The registry with the toy game added (the live server reads the registry per request)."""
    monkeypatch.setattr(rulesets, "RULESETS", {**rulesets.RULESETS, TOY: toy_game})


def test_a_new_game_is_drawn_on_the_generic_board_and_a_spectator_sees_no_card(toy, page, live_server):
    match_id, _tokens, view = play(live_server, TOY, lambda v: len(v["state"]["acted"]) == 1, seed=3)
    open_watch(page, live_server, match_id, view["version"])
    assert page.get_attribute("#board", "data-ruleset") == "generic"
    text = board_text(page)
    assert "deck_size" in text and "acted" in text
    assert "hands" not in text and "card" not in text.replace("cards", ""), "a spectator saw a card"
    assert not page.recorder.errors, page.recorder.errors


def test_a_finished_new_game_shows_its_outcome_on_the_generic_board(toy, page, live_server):
    match_id, _, view = play(live_server, TOY, None, seed=random.Random(TOY).randrange(100))
    open_watch(page, live_server, match_id)
    banner = page.locator("#board [data-testid=outcome]")
    assert banner.count() == 1
    for winner in view["outcome"]["winners"]:
        assert winner in banner.inner_text()
    assert not page.recorder.errors, page.recorder.errors
