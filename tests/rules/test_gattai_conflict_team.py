"""gattai-conflict decks, Omens, the Team's +Triggers and buffers, hands, config and general refusals."""

from __future__ import annotations

import pytest

from domain.ruleset import ConfigError, RuleViolation, config_from_dict, config_to_dict
from domain.rulesets import gattai_conflict as gc
from tests.rules.test_gattai_conflict_support import QUIET, all_cards, gambit, kinds
from tests.support.harness import start

HANDS = {"coach": ["C.9S"], "p1": ["P.4H", "P.3C", "P.5C"]}


def refused(game, seat, command) -> str:
    """The rule id a refused command names (it must be refused)."""
    with pytest.raises(RuleViolation) as err:
        game.act(seat, command)
    return err.value.rule


# ----- decks and Omens --------------------------------------------------------------------------

def test_a_joker_reaching_the_top_of_its_deck_is_set_out_as_an_active_omen():
    game = gambit(HANDS, tops={"pilot": ["P.QH", "P.JK1"]})
    game.act("coach", gc.PlayThreshold("hand", "C.9S"))
    events = game.act("p1", gc.FlipCard())
    assert "OmenRevealed" in kinds(events)
    assert game.state["decks"]["pilot"]["omens"] == [{"card": "P.JK1", "spent": False}]
    assert "P.JK1" not in game.state["decks"]["pilot"]["draw"]


def test_a_pilot_spends_a_pilot_omen_at_any_time_for_full_charges():
    game = gambit(HANDS, tops={"pilot": ["P.QH", "P.JK1"]}, pilots={"p1": QUIET, "p2": QUIET})
    game.act("coach", gc.PlayThreshold("hand", "C.9S"))
    game.act("p1", gc.FlipCard())
    assert "p2" not in gc.to_act(game.state)
    assert gc.SpendOmen("P.JK1", "self_full") in gc.legal_commands(game.state, "p2")
    game.act("p2", gc.SpendOmen("P.JK1", "self_full"))
    assert game.state["team"]["p2"]["charges"] == 3 and game.state["team"]["p1"]["charges"] == 0
    assert refused(game, "p1", gc.SpendOmen("P.JK1", "all_2")) == "omen_spent"


def test_a_pilot_omen_may_instead_give_every_pilot_two_charges():
    game = gambit(HANDS, tops={"pilot": ["P.QH", "P.JK1"]}, pilots={"p1": QUIET, "p2": QUIET})
    game.act("coach", gc.PlayThreshold("hand", "C.9S"))
    game.act("p1", gc.FlipCard())
    game.act("p1", gc.SpendOmen("P.JK1", "all_2"))
    assert [game.state["team"][p]["charges"] for p in ("p1", "p2")] == [2, 2]


def test_when_both_jokers_are_spent_they_return_and_the_deck_is_reshuffled():
    game = gambit(HANDS, tops={"pilot": ["P.QH", "P.JK1", "P.JK2"]})
    game.act("coach", gc.PlayThreshold("hand", "C.9S"))
    game.act("p1", gc.FlipCard())
    assert len(game.state["decks"]["pilot"]["omens"]) == 2
    game.act("p1", gc.SpendOmen("P.JK1", "self_full"))
    events = game.act("p1", gc.SpendOmen("P.JK2", "self_full"))
    shuffled = [e for e in events if e.kind == "DeckShuffled"]
    assert shuffled and shuffled[0].public["reason"] == "omens_returned"
    pilot = game.state["decks"]["pilot"]
    assert not any(o["spent"] for o in pilot["omens"]) and pilot["trash"] == []
    assert sum(c.startswith("P.") for c in all_cards(game.state)) == 54


def test_the_coach_spends_a_coach_omen_for_a_crisis_and_pilots_cannot():
    game = gambit({"coach": ["C.2C"], "p1": HANDS["p1"]}, tops={"coach": ["C.9S", "C.JK2"]})
    game.act("coach", gc.PlayThreshold("deck"))
    assert game.state["decks"]["coach"]["omens"] == [{"card": "C.JK2", "spent": False}]
    assert refused(game, "p1", gc.SpendOmen("C.JK2", "self_full")) == "unknown_omen"
    assert refused(game, "coach", gc.SpendOmen("C.JK2", "self_full")) == "unknown_effect"
    [spent] = game.act("coach", gc.SpendOmen("C.JK2", "crisis"))
    assert spent.public == {"seat": "coach", "deck": "coach", "omen": "C.JK2", "effect": "crisis"}


def test_an_empty_deck_reshuffles_its_trash_and_jokers_surface_on_the_way():
    game = gambit(HANDS, deck_only={"coach": ["C.KS"]})
    events = game.act("coach", gc.RecordTrigger("tarry", "the clock"))
    assert kinds(events) == ["TriggerFired", "TriggerResolved", "CardMilled", "OmenRevealed", "OmenRevealed",
                             "DeckShuffled"]
    assert events[-1].public["reason"] == "trash_reshuffled"
    coach = game.state["decks"]["coach"]
    assert coach["trash"] == [] and len(coach["draw"]) == 52 - 1 - len(game.state["hands"]["coach"]) + 1


def test_tarry_sends_crisis_tier_cards_from_the_coach_deck_to_its_trash():
    game = gambit(HANDS, tops={"coach": ["C.2D", "C.3D", "C.4D", "C.5D"]}, crisis_tier=3)
    game.act("p1", gc.RecordTrigger("tarry", "the long way round"))
    assert game.state["decks"]["coach"]["trash"] == ["C.2D", "C.3D", "C.4D"]


# ----- the Team and its triggers ----------------------------------------------------------------

def test_rally_raises_harmony_and_at_violet_charges_every_pilot():
    game = gambit(HANDS, harmony=6, pilots={"p1": QUIET, "p2": QUIET})
    game.act("coach", gc.RecordTrigger("rally", "team"))
    assert game.state["harmony"] == 7
    game.act("coach", gc.RecordTrigger("rally", "team"))
    assert game.state["harmony"] == 7 and [game.state["team"][p]["charges"] for p in ("p1", "p2")] == [1, 1]


def test_schism_lowers_harmony_and_at_red_traumas_every_pilot():
    sheet = {**QUIET, "buffers": 0}
    game = gambit(HANDS, harmony=1, pilots={"p1": sheet, "p2": sheet})
    game.act("coach", gc.RecordTrigger("schism", "p1"))
    assert game.state["harmony"] == 1 and gc.to_act(game.state) == ["p1"]
    assert refused(game, "p1", gc.ResolveTrigger(False, "charm")) == "invalid_answer"
    game.act("p1", gc.ResolveTrigger(False, "steel"))
    assert gc.to_act(game.state) == ["p2"]
    game.act("p2", gc.ResolveTrigger(False, "flesh"))
    assert game.state["team"]["p1"]["steel"] == 1 and game.state["team"]["p2"]["flesh"] == 1
    assert gc.to_act(game.state) == ["coach"]


def test_a_buffer_prevents_one_purge_and_purge_empties_the_charges():
    game = gambit(HANDS, pilots={"p1": {**QUIET, "charges": 2, "buffers": 1}})
    game.act("coach", gc.RecordTrigger("purge", "p1"))
    assert gc.legal_commands(game.state, "p1")[:2] == [gc.ResolveTrigger(True), gc.ResolveTrigger(False)]
    game.act("p1", gc.ResolveTrigger(True))
    assert game.state["team"]["p1"]["charges"] == 2 and game.state["team"]["p1"]["buffers"] == 0
    game.act("coach", gc.RecordTrigger("purge", "p1"))
    assert game.state["team"]["p1"]["charges"] == 0
    assert refused(game, "p1", gc.ResolveTrigger(True)) == "no_trigger_pending"


def test_a_trigger_that_would_change_nothing_does_not_ask_for_a_buffer():
    game = gambit(HANDS, pilots={"p1": {"steel": 0, "flesh": 0, "synch": 0, "solo": 0, "buffers": 1}})
    game.act("coach", gc.RecordTrigger("trauma", "p1"))
    game.act("coach", gc.RecordTrigger("purge", "p1"))
    assert game.state["team"]["p1"]["buffers"] == 1 and game.state["queue"] == []


def test_fortify_restores_one_buffer_and_chargeup_adds_one_charge_up_to_max():
    game = gambit(HANDS, pilots={"p1": {**QUIET, "buffers": 2, "charges_max": 1}})
    game.state["team"]["p1"]["buffers"] = 0
    game.act("coach", gc.RecordTrigger("fortify", "p1"))
    game.act("coach", gc.RecordTrigger("chargeup", "p1"))
    game.act("coach", gc.RecordTrigger("chargeup", "p1"))
    assert game.state["team"]["p1"]["buffers"] == 1 and game.state["team"]["p1"]["charges"] == 1


def test_triggers_are_fired_only_by_their_seats_at_fitting_targets():
    game = gambit(HANDS)
    assert refused(game, "p1", gc.RecordTrigger("purge", "p1")) == "not_your_trigger"
    assert refused(game, "coach", gc.RecordTrigger("favor", "the guild")) == "not_your_trigger"
    assert refused(game, "coach", gc.RecordTrigger("meteor", "p1")) == "unknown_trigger"
    assert refused(game, "coach", gc.RecordTrigger("purge", "p9")) == "invalid_target"
    assert refused(game, "p1", gc.RecordTrigger("trauma", "p1")) == "invalid_target"
    [fired, resolved] = game.act("p1", gc.RecordTrigger("favor", "the guild"))
    assert fired.public["fired"]["target"] == "the guild" and resolved.kind == "TriggerResolved"


# ----- hands ------------------------------------------------------------------------------------

@pytest.mark.parametrize("harmony, size", [(1, 3), (3, 4), (4, 4), (6, 5), (7, 6)])
def test_hands_are_dealt_to_max_by_harmony_and_the_coach_holds_one_per_pilot(harmony, size):
    game = start(gc, {"harmony": harmony, "pilots": {"p1": {}, "p2": {}, "p3": {}}})
    assert [len(game.state["hands"][p]) for p in ("p1", "p2", "p3")] == [size] * 3
    assert len(game.state["hands"]["coach"]) == 3


def test_after_the_conflict_every_seat_draws_or_discards_to_max():
    game = gambit({"coach": ["C.9S"], "p1": ["P.KH", "P.2C", "P.3C", "P.4C", "P.5C", "P.6C"]})
    game.act("coach", gc.PlayThreshold("hand", "C.9S"))
    game.act("p1", gc.PlayCard("P.KH"))
    game.act("p1", gc.PickBoon("fortify"))
    assert game.state["phase"] == "cleanup" and gc.to_act(game.state) == ["p1"]
    assert len(game.state["hands"]["coach"]) == 1
    assert refused(game, "p1", gc.DiscardToMax(("P.2C", "P.3C"))) == "wrong_count"
    assert refused(game, "coach", gc.DiscardToMax(())) == "not_your_turn"
    game.act("p1", gc.DiscardToMax(("P.2C",)))
    assert len(game.state["hands"]["p1"]) == 4 and gc.outcome(game.state) is not None
    assert gc.to_act(game.state) == [] and gc.legal_commands(game.state, "p1") == []


# ----- who must act and who may ---------------------------------------------------------------

def test_seats_that_may_act_at_will_are_in_may_act_and_never_in_to_act():
    game = gambit(HANDS, tops={"pilot": ["P.QH", "P.JK1"]}, pilots={"p1": QUIET, "p2": QUIET})
    # Waiting for the Threshold: the pilots may fire the story's triggers meanwhile.
    assert gc.to_act(game.state) == ["coach"] and gc.may_act(game.state) == ["p1", "p2"]
    game.act("coach", gc.PlayThreshold("hand", "C.9S"))
    game.act("p1", gc.FlipCard())
    # p2 holds no turn but may spend the Pilot Omen; she is never waited for.
    assert gc.to_act(game.state) == ["p1"] and "p2" in gc.may_act(game.state)
    assert gc.SpendOmen("P.JK1", "self_full") in gc.legal_commands(game.state, "p2")


def test_a_seat_with_nothing_to_do_is_neither_waited_for_nor_free_to_act():
    sheet = {**QUIET, "buffers": 0}
    game = gambit(HANDS, pilots={"p1": sheet, "p2": sheet}, harmony=1)
    game.act("coach", gc.RecordTrigger("schism", "p1"))
    # A trigger waits for p1's answer: no story trigger may be fired meanwhile, and no one holds an Omen.
    assert gc.to_act(game.state) == ["p1"] and gc.may_act(game.state) == []
    assert gc.legal_commands(game.state, "coach") == [] and gc.legal_choices(game.state, "p2") == []


def test_once_the_match_is_over_nobody_must_or_may_act():
    game = gambit({"coach": ["C.9S"], "p1": ["P.KH", "P.2C", "P.3C"]})
    game.act("coach", gc.PlayThreshold("hand", "C.9S"))
    game.act("p1", gc.PlayCard("P.KH"))
    game.act("p1", gc.PickBoon("fortify"))
    assert gc.outcome(game.state) is not None
    assert gc.to_act(game.state) == [] and gc.may_act(game.state) == []


# ----- config and general refusals --------------------------------------------------------------

def test_defaults_are_a_gambit_between_the_coach_and_one_pilot():
    config = config_from_dict(gc.Config, {})
    assert config.mode == "gambit" and gc.seat_names(config) == ["coach", "p1"]


@pytest.mark.parametrize("raw, field", [
    ({"mode": "duel"}, "mode"), ({"pilots": {}}, "pilots"), ({"pilots": {"p2": {}}}, "pilots"),
    ({"pilots": {"p1": {"charm": 1}}}, "pilots"), ({"pilots": {"p1": {"steel": 11}}}, "pilots"),
    ({"pilots": {"p1": {"charges": 4}}}, "pilots"), ({"harmony": 8}, "harmony"), ({"threats": {}}, "threats"),
    ({"threats": {"kaiju": 0}}, "threats"), ({"started_by": "fate"}, "started_by"), ({"commander": "p2"}, "commander"),
    ({"pilot": "p3"}, "pilot"), ({"crisis_tier": 0}, "crisis_tier"), ({"threat_stacks": {"moth": 1}}, "threat_stacks"),
    ({"threat_stacks": {"threat": 9}}, "threat_stacks"),
    ({"pilots": {f"p{i}": {} for i in range(1, 6)}}, "pilots"),
    ({"threats": []}, "threats"), ({"threats": "kaiju"}, "threats"), ({"threats": [3]}, "threats"),
    ({"threats": [{"name": "kaiju", "rating": 0}]}, "threats"),
    ({"threats": [{"name": "kaiju", "rating": "3"}]}, "threats"),
    ({"threats": [{"name": "kaiju", "rating": True}]}, "threats"), ({"threats": [{"rating": 3}]}, "threats"),
    ({"threats": [{"name": "", "rating": 3}]}, "threats"), ({"threats": [{"name": "x" * 41}]}, "threats"),
    ({"threats": [{"name": "kaiju", "rating": 3, "power": 2}]}, "threats"),
    ({"threats": [{"name": "kaiju"}, {"name": "kaiju", "rating": 2}]}, "threats"),
    ({"threats": [{"name": f"t{i}"} for i in range(7)]}, "threats"),
    ({"threats": [{"name": "kaiju"}], "threat_stacks": {"threat": 1}}, "threat_stacks"),
])
def test_config_outside_the_rules_is_refused(raw, field):
    with pytest.raises(ConfigError) as err:
        config_from_dict(gc.Config, raw)
    assert err.value.field == field


DEFAULT_SHEET = {"steel": 2, "flesh": 2, "synch": 2, "solo": 2, "charges_max": 3, "buffers": 1, "charges": 0}


def test_threats_take_the_pages_list_form_and_a_missing_rating_is_3():
    config = config_from_dict(gc.Config, {"mode": "throwdown", "threats": [{"name": "kaiju", "rating": 5},
                                                                          {"name": "drone"}]})
    assert config_to_dict(config)["threats"] == [{"name": "kaiju", "rating": 5}, {"name": "drone", "rating": 3}]
    game = start(gc, config_to_dict(config))
    assert game.state["threats"] == {"kaiju": 5, "drone": 3}
    assert game.state["throwdown"]["strike_base"]["coach"] == 6


def test_the_echoed_config_fills_in_every_sheet_and_lists_the_threats():
    echoed = config_to_dict(config_from_dict(gc.Config, {"pilots": {"p1": {"steel": 4}, "p2": {}}}))
    assert echoed["pilots"] == {"p1": {**DEFAULT_SHEET, "steel": 4}, "p2": DEFAULT_SHEET}
    assert echoed["threats"] == [{"name": "threat", "rating": 3}]
    assert config_to_dict(gc.Config())["pilots"] == {"p1": DEFAULT_SHEET}
    # The echo is a config in its own right, and echoes itself.
    assert config_to_dict(config_from_dict(gc.Config, echoed)) == echoed


def test_the_earlier_map_form_of_threats_is_still_taken_and_echoed_as_the_list():
    echoed = config_to_dict(config_from_dict(gc.Config, {"threats": {"kaiju": 3, "drone": 2}}))
    assert echoed["threats"] == [{"name": "kaiju", "rating": 3}, {"name": "drone", "rating": 2}]


def test_unknown_seats_commands_out_of_phase_and_a_finished_match_are_refused():
    game = gambit(HANDS)
    assert refused(game, "p7", gc.FlipCard()) == "unknown_seat"
    assert refused(game, "coach", gc.Counter("C.9S")) == "not_now"
    assert refused(game, "p1", gc.FlipCard()) == "not_now"
    game.act("coach", gc.PlayThreshold("hand", "C.9S"))
    game.act("p1", gc.PlayCard("P.4H"))
    game.act("p1", gc.ChooseOutcome("no_but"))
    game.act("p1", gc.PickBoon("fortify"))
    assert gc.outcome(game.state) is not None
    assert refused(game, "coach", gc.RecordTrigger("wave", "sea")) == "match_over"
