"""The rulings added after the first audit, for the Throwdown of gattai-conflict: Strike from stage 4
on, the Strike the view shows, Escalate and Rumble cards that need not beat the old top."""

from __future__ import annotations

import collections
import random

import pytest

from domain.ruleset import RuleViolation, Viewer, copy_state
from domain.rulesets import gattai_conflict as gc
from tests.rules.test_gattai_conflict_playout import play, random_config
from tests.rules.test_gattai_conflict_support import QUIET, pile_cards, td, throwdown
from tests.support.harness import start

SPECTATOR = Viewer("spectator")
JUDGED = {"counter": "strikes", "escalate": "escalation_strikes", "rumble": "escalation_strikes"}


def refused(game, seat, command) -> str:
    """The rule id a refused command names (it must be refused)."""
    with pytest.raises(RuleViolation) as err:
        game.act(seat, command)
    return err.value.rule


def shown(game) -> dict:
    """The Throwdown part of a spectator's view."""
    return gc.view(game.state, SPECTATOR)["throwdown"]


# ----- the view shows the Strike the next card is judged against ----------------------------------

def test_the_view_shows_the_strikes_from_the_initiative_on():
    game = start(gc, {"mode": "throwdown", "pilots": {"p1": {**QUIET, "steel": 3}},
                      "threats": [{"name": "kaiju", "rating": 4}, {"name": "drone", "rating": 1}]})
    assert shown(game)["strikes"] == {"pilots": 3, "coach": 5}
    assert shown(game)["escalation_strikes"] == {"pilots": 3, "coach": 5}


def test_in_stage_3_the_view_shows_the_harmony_a_rumble_card_is_judged_against():
    game = throwdown(["P.7D", "P.KD"], ["C.6D", "C.8D"], harmony=6)
    game.act("coach", gc.Escalate("C.6D"))
    game.act("p1", gc.Escalate("P.7D"))
    assert td(game)["stage"] == 3
    # A Counter in stage 3 still faces her Steel; a Rumble card opens stage 4 and faces the Harmony.
    assert shown(game)["strikes"] == {"pilots": 2, "coach": 3}
    assert shown(game)["escalation_strikes"] == {"pilots": 6, "coach": 3}
    game.act("coach", gc.Rumble("C.8D"))
    assert shown(game)["strikes"]["pilots"] == 6 == game.state["harmony"]
    [countered, *_] = game.act("p1", gc.Counter("P.KD"))
    assert countered.public["strike"] == 6 and countered.public["dissonance"] == 0


def test_from_stage_4_on_the_shown_strike_follows_the_harmony():
    # Her Counter beyond the Harmony is Dissonance; the Schism it flips lowers the Harmony, and with
    # it the Strike the next pilot card faces.
    game = throwdown(["P.7D", "P.KD", "P.4S"], ["C.6D", "C.8D", "C.3S"], harmony=2, tops={"coach": ["C.2C"]},
                     pilots={"p1": {**QUIET, "buffers": 0}})
    game.act("coach", gc.Escalate("C.6D"))
    game.act("p1", gc.Escalate("P.7D"))
    game.act("coach", gc.Rumble("C.8D"))
    assert shown(game)["strikes"]["pilots"] == 2
    [countered, *_] = game.act("p1", gc.Counter("P.KD"))
    assert countered.public["strike"] == 2 and countered.public["dissonance"] == 3
    assert game.state["harmony"] == 1 and shown(game)["strikes"]["pilots"] == 1


def test_an_assist_shows_in_the_strike_of_the_turn():
    game = throwdown(["P.9S"], ["C.6S"], pilots={"p1": QUIET, "p2": {**QUIET, "charges": 1}},
                     other_hands={"p2": ["P.2D", "P.3D"]})
    game.act("coach", gc.Counter("C.6S"))
    game.act("p2", gc.Assist("P.2D"))
    assert shown(game)["strikes"]["pilots"] == 3 and shown(game)["escalation_strikes"]["pilots"] == 3
    game.act("p1", gc.Counter("P.9S"))
    assert shown(game)["strikes"]["pilots"] == 2


def test_no_strike_is_shown_once_the_throwdown_has_ended_nor_for_an_escalation_from_stage_7():
    game = throwdown(["P.7D", "P.9D", "P.JD"], ["C.6D", "C.8D", "C.10D"])
    for seat, drive in [("coach", gc.Escalate("C.6D")), ("p1", gc.Escalate("P.7D")), ("coach", gc.Rumble("C.8D")),
                        ("p1", gc.Escalate("P.9D")), ("coach", gc.Escalate("C.10D")), ("p1", gc.Escalate("P.JD"))]:
        game.act(seat, drive)
    assert td(game)["stage"] == 7
    assert shown(game)["strikes"] == {"pilots": 4, "coach": 3} and shown(game)["escalation_strikes"] is None
    game.act("coach", gc.Concede())
    assert gc.view(game.state, SPECTATOR)["throwdown"]["strikes"] is None


def check_shown_strikes(game, seen: collections.Counter) -> None:
    """Every Initiative, Counter, Escalate and Rumble the driver may play now is judged against the Strike shown."""
    state = game.state
    if state["throwdown"] is None or gc.to_act(state) == [] or state["queue"]:
        return
    view = gc.view(state, SPECTATOR)["throwdown"]
    if state["phase"] == "reveal":
        events = gc.decide(copy_state(state), "coach", gc.RevealInitiative(), game.chance())
        resolved = next(e.public for e in events if e.kind == "InitiativeResolved")
        if resolved["winner"] is not None:
            assert resolved["strike"] == view["strikes"][resolved["winner"]]
            seen["initiative"] += 1
        return
    if state["phase"] != "turns":
        return
    [driver] = gc.to_act(state)
    for command in gc.legal_commands(state, driver):
        if command.type in JUDGED:
            [drive, *_] = gc.decide(copy_state(state), driver, command, game.chance())
            side = drive.public["side"]
            assert drive.public["strike"] == view[JUDGED[command.type]][side], (command, view)
            stage = state["throwdown"]["stage"]
            seen[f"{command.type}/stage-{'4+' if stage >= 4 else stage}"] += 1


def test_every_card_is_judged_against_the_strike_the_view_showed():
    rng = random.Random("gattai/strikes")
    seen: collections.Counter = collections.Counter()
    for match in range(40):
        play(rng, random_config(rng, "throwdown", 1 + match % 4), lambda game: check_shown_strikes(game, seen))
    for key in ("initiative", "counter/stage-1", "counter/stage-4+", "escalate/stage-1", "rumble/stage-3",
                "escalate/stage-4+"):
        assert seen[key], (key, seen)


# ----- Escalate and Rumble cards ------------------------------------------------------------------

def test_escalate_and_rumble_cards_need_not_beat_the_old_top():
    game = throwdown(["P.3D", "P.2H"], ["C.2D", "C.2S"])
    assert gc.Escalate("C.2D") in gc.legal_commands(game.state, "coach")
    game.act("coach", gc.Escalate("C.2D"))
    game.act("p1", gc.Escalate("P.3D"))
    assert gc.Rumble("C.2S") in gc.legal_commands(game.state, "coach")
    game.act("coach", gc.Rumble("C.2S"))
    # An equal rank of a lower suit opens the next stage, with no Dissonance.
    [escalated] = [e for e in game.act("p1", gc.Escalate("P.2H")) if e.kind == "Escalated"]
    assert escalated.public["over"] == "C.2S" and escalated.public["dissonance"] == 0
    assert td(game)["stage"] == 5 and pile_cards(game) == ["P.2H"]


def test_an_escalate_card_may_even_go_onto_an_ace():
    game = throwdown([], ["C.3S"], init=("P.AH", "C.KH"))
    assert gc.Counter("C.3S") not in gc.legal_commands(game.state, "coach")
    game.act("coach", gc.Escalate("C.3S"))
    assert td(game)["stage"] == 2 and pile_cards(game) == ["C.3S"]


def test_the_coach_escalates_only_within_his_strike_of_the_old_top():
    game = throwdown([], ["C.9S", "C.8S"])
    assert gc.Escalate("C.9S") not in gc.legal_commands(game.state, "coach")
    assert refused(game, "coach", gc.Escalate("C.9S")) == "beyond_strike"
    game.act("coach", gc.Escalate("C.8S"))
    assert td(game)["stage"] == 2


def test_the_coachs_rumble_card_stays_within_his_strike_of_the_old_top():
    game = throwdown(["P.7D"], ["C.6D", "C.JS", "C.10S"])
    game.act("coach", gc.Escalate("C.6D"))
    game.act("p1", gc.Escalate("P.7D"))
    assert refused(game, "coach", gc.Rumble("C.JS")) == "beyond_strike"
    assert [c for c in gc.legal_commands(game.state, "coach") if c.type == "rumble"] == [gc.Rumble("C.10S")]
