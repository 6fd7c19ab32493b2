"""The Throwdown of gattai-conflict: Initiative, draws and swaps, each Drive, stages, Assists, Payloads."""

from __future__ import annotations

import pytest

from domain.ruleset import RuleViolation, Viewer
from domain.rulesets import gattai_conflict as gc
from domain.rulesets.gattai_conflict.team import trigger
from domain.rulesets.gattai_conflict.throwdown import PAYLOAD_LIMIT
from tests.rules.test_gattai_conflict_support import QUIET, kinds, pile_cards, rig, td, throwdown
from tests.support.harness import start


def refused(game, seat, command) -> str:
    """The rule id a refused command names (it must be refused)."""
    with pytest.raises(RuleViolation) as err:
        game.act(seat, command)
    return err.value.rule


def drives(game, seat) -> list:
    """The Drives among a seat's legal commands."""
    return [c for c in gc.legal_commands(game.state, seat)
            if c.type in ("counter", "block", "escalate", "rumble", "concede")]


# ----- Initiative -------------------------------------------------------------------------------

def test_initiative_is_sealed_simultaneously_and_revealed_together():
    game = start(gc, {"mode": "throwdown", "pilots": {"p1": QUIET}})
    rig(game, {"p1": ["P.5H", "P.2C", "P.3C"], "coach": ["C.4H"]})
    assert sorted(gc.to_act(game.state)) == ["coach", "p1"]
    [sealed] = game.act("p1", gc.SealInitiative("P.5H"))
    assert sealed.secret == {"card": "P.5H", "source": "hand"} and sealed.audience == ("p1",)
    assert "P.5H" not in str(gc.view(game.state, Viewer("seat", "coach")))
    assert gc.to_act(game.state) == ["coach"]
    assert kinds(game.act("coach", gc.SealInitiative("C.4H"))) == ["InitiativeSealed"]
    # Either commander may reveal: the match waits for the Coach, the pilot commander may reveal instead.
    assert game.state["phase"] == "reveal" and gc.to_act(game.state) == ["coach"]
    assert "p1" in gc.may_act(game.state) and gc.RevealInitiative() in gc.legal_commands(game.state, "p1")
    assert "C.4H" not in str(gc.view(game.state, Viewer("seat", "p1")))
    events = game.act("p1", gc.RevealInitiative())
    assert kinds(events)[:3] == ["InitiativeRevealed", "InitiativeRevealed", "InitiativeResolved"]
    for reveal, claimant in zip(events[:2], ["p1", "coach"]):
        call = reveal.public["bluff_call"]
        assert call["kind"] == "initiative" and call["claimant"] == claimant and call["caller"] == "p1"
        assert call["verdict"] == "true" and call["source"] == "hand"
        assert reveal.opens == (call["claim_version"],) and call["call_version"] == reveal.version
    assert events[2].public["winner"] == "pilots" and pile_cards(game) == ["P.5H"]
    assert td(game)["turn"] == "coach" and "C.4H" in game.state["decks"]["coach"]["trash"]


def test_only_commanders_seal_initiative_and_only_once():
    game = start(gc, {"mode": "throwdown", "pilots": {"p1": QUIET, "p2": QUIET}})
    rig(game, {"p1": ["P.5H", "P.2C", "P.3C"], "coach": ["C.4H", "C.5H"]})
    assert refused(game, "p2", gc.SealInitiative(game.state["hands"]["p2"][0])) == "not_your_turn"
    game.act("coach", gc.SealInitiative("C.4H"))
    assert refused(game, "coach", gc.SealInitiative("C.5H")) == "not_your_turn"
    assert refused(game, "coach", gc.RevealInitiative()) == "not_now"
    assert refused(game, "p1", gc.SealInitiative("P.AS")) == "card_not_in_hand"


def test_the_configured_commander_plays_initiative_and_drives():
    game = start(gc, {"mode": "throwdown", "pilots": {"p1": QUIET, "p2": QUIET}, "commander": "p2"})
    rig(game, {"p2": ["P.5H", "P.9C", "P.3C"], "coach": ["C.6H", "C.7D"]})
    assert sorted(gc.to_act(game.state)) == ["coach", "p2"]
    assert refused(game, "p1", gc.SealInitiative(game.state["hands"]["p1"][0])) == "not_your_turn"
    game.act("p2", gc.SealInitiative("P.5H"))
    game.act("coach", gc.SealInitiative("C.6H"))
    game.act("coach", gc.RevealInitiative())
    game.act("coach", gc.AnswerQuestion(True))
    game.act("p1", gc.GiveCards(()))
    assert gc.to_act(game.state) == ["p2"]
    game.act("p2", gc.Counter("P.9C"))
    assert pile_cards(game) == ["C.6H", "P.9C"]


def test_higher_initiative_wins_by_rank_then_suit():
    game = throwdown(["P.9C"], ["C.9D"], init=("P.7C", "C.7S"), to_turns=False)
    assert td(game)["turn"] == "pilots" and pile_cards(game) == ["C.7S"]


def test_identical_initiative_cards_are_trashed_and_both_play_again():
    game = throwdown(["P.9C"], ["C.8D"], init=("P.7H", "C.7H"), to_turns=False)
    assert game.state["phase"] == "initiative" and td(game)["piles"] == []
    assert "P.7H" in game.state["decks"]["pilot"]["trash"] and "C.7H" in game.state["decks"]["coach"]["trash"]
    game.act("p1", gc.SealInitiative("P.9C"))
    game.act("coach", gc.SealInitiative("C.8D"))
    game.act("coach", gc.RevealInitiative())
    assert pile_cards(game) == ["P.9C"]


def test_identical_initiative_with_an_empty_hand_calls_the_throwdown_off():
    game = throwdown(["P.9C"], [], init=("P.7H", "C.7H"), to_turns=False)
    out = gc.outcome(game.state)
    assert out["winners"] == [] and out["reason"] == "called_off"


def test_pilot_initiative_outside_strike_checks_dissonance():
    game = throwdown([], [], init=("P.KH", "C.4H"), tops={"coach": ["C.5D"]}, to_turns=False,
                     pilots={"p1": {**QUIET, "buffers": 0}})
    resolved = [e for e in game.events if e.kind == "InitiativeResolved"][-1]
    assert resolved.public["outside_strike"] and resolved.public["excess"] == 9
    flip = [e for e in game.events if e.kind == "DissonanceFlipped"][-1]
    assert flip.public["dissonance"] == 7 and flip.public["card"] == "C.5D" and flip.public["schism"]
    assert game.state["harmony"] == 3


def test_dissonance_flip_above_the_dissonance_is_safe_and_an_ace_counts_one():
    safe = throwdown([], [], init=("P.6H", "C.2H"), tops={"coach": ["C.3D"]}, to_turns=False)
    assert [e for e in safe.events if e.kind == "DissonanceFlipped"][-1].public["schism"] is False
    assert safe.state["harmony"] == 4
    ace = throwdown([], [], init=("P.6H", "C.2H"), tops={"coach": ["C.AD"]}, to_turns=False,
                    pilots={"p1": {**QUIET, "buffers": 0}})
    flip = [e for e in ace.events if e.kind == "DissonanceFlipped"][-1].public
    assert flip["dissonance"] == 2 and flip["value"] == 1 and flip["schism"] is True
    assert ace.state["harmony"] == 3


def test_dissonance_schism_may_be_prevented_with_a_buffer():
    game = throwdown([], [], init=("P.KH", "C.4H"), tops={"coach": ["C.2D"]}, to_turns=False)
    assert gc.to_act(game.state) == ["p1"]
    assert refused(game, "coach", gc.AnswerQuestion(True)) == "trigger_pending"
    game.act("p1", gc.ResolveTrigger(True))
    assert game.state["harmony"] == 4 and game.state["team"]["p1"]["buffers"] == 0


def test_coach_initiative_outside_strike_gives_the_commander_a_free_card():
    game = throwdown(["P.3C"], [], init=("P.2C", "C.QH"), tops={"pilot": ["P.8D"]}, to_turns=False)
    assert pile_cards(game) == ["C.QH"] and td(game)["turn"] == "pilots"
    assert "P.8D" in game.state["hands"]["p1"]


# ----- draws, swaps, Strike ---------------------------------------------------------------------

@pytest.mark.parametrize("for_team, drawn", [(True, 3), (False, 1)])
def test_commander_draws_synch_for_her_team_and_solo_for_herself(for_team, drawn):
    game = throwdown([], [], pilots={"p1": {**QUIET, "synch": 3, "solo": 1}}, to_turns=False)
    before = len(game.state["hands"]["p1"])
    game.act("coach", gc.AnswerQuestion(for_team))
    assert len(game.state["hands"]["p1"]) == before + drawn and game.state["phase"] == "turns"


def test_the_coach_draws_the_cards_invested_on_his_threats_at_the_draws_step():
    game = start(gc, {"mode": "throwdown", "pilots": {"p1": QUIET}, "threat_stacks": {"threat": 2}})
    stack = list(game.state["stacks"]["threat"])
    assert len(stack) == 2
    assert gc.view(game.state, Viewer("seat", "p1"))["threat_stacks"]["threat"] == {"count": 2, "cards": None}
    assert gc.view(game.state, Viewer("seat", "coach"))["threat_stacks"]["threat"]["cards"] == stack
    rig(game, {"p1": ["P.5H", "P.2C", "P.3C"], "coach": ["C.4H"]})
    game.act("p1", gc.SealInitiative("P.5H"))
    game.act("coach", gc.SealInitiative("C.4H"))
    game.act("p1", gc.RevealInitiative())
    game.act("coach", gc.AnswerQuestion(False))
    assert sorted(game.state["hands"]["coach"]) == sorted(stack) and game.state["stacks"]["threat"] == []


def test_other_pilots_give_cards_and_the_commander_gives_back_as_many():
    game = throwdown(["P.9C"], [], pilots={"p1": QUIET, "p2": QUIET}, to_turns=False,
                     other_hands={"p2": ["P.2D", "P.3D", "P.4D"]})
    game.act("coach", gc.AnswerQuestion(True))
    assert game.state["phase"] == "swap" and gc.to_act(game.state) == ["p2"]
    [given] = game.act("p2", gc.GiveCards(("P.2D", "P.3D")))
    assert given.audience == ("p2", "p1") and given.secret == {"cards": ["P.2D", "P.3D"]}
    assert gc.to_act(game.state) == ["p1"]
    assert refused(game, "p1", gc.ReturnCards("p2", ("P.9C",))) == "wrong_count"
    game.act("p1", gc.ReturnCards("p2", ("P.9C", "P.3D")))
    assert sorted(game.state["hands"]["p2"]) == ["P.3D", "P.4D", "P.9C"]
    assert game.state["phase"] == "turns"


def test_strike_is_steel_when_the_pilots_started_it_and_flesh_otherwise():
    sheet = {**QUIET, "steel": 1, "flesh": 4}
    started = throwdown([], [], pilots={"p1": sheet}, started_by="pilots")
    brought = throwdown([], [], pilots={"p1": sheet}, started_by="coach")
    assert td(started)["strike_base"]["pilots"] == 1 and td(brought)["strike_base"]["pilots"] == 4


def test_coach_strike_is_the_highest_threat_plus_one_per_other_threat():
    game = throwdown([], [], threats={"kaiju": 3, "drone": 2, "mech": 1})
    assert td(game)["strike_base"]["coach"] == 5


# ----- Drives -----------------------------------------------------------------------------------

def test_counter_must_beat_the_top_of_the_pile():
    game = throwdown([], ["C.5S", "C.7S"])
    assert refused(game, "coach", gc.Counter("C.5S")) == "does_not_beat"
    game.act("coach", gc.Counter("C.7S"))
    assert pile_cards(game) == ["P.5H", "C.7S"] and td(game)["turn"] == "pilots"


def test_only_the_side_on_turn_drives():
    game = throwdown(["P.9C"], ["C.7S"])
    assert refused(game, "p1", gc.Counter("P.9C")) == "not_your_turn"


def test_an_ace_on_top_is_beaten_only_by_a_two():
    game = throwdown([], ["C.KS", "C.2S"], init=("P.AH", "C.KH"))
    assert refused(game, "coach", gc.Counter("C.KS")) == "does_not_beat"
    game.act("coach", gc.Counter("C.2S"))
    assert pile_cards(game)[-1] == "C.2S"


def test_an_ace_cannot_be_played_onto_a_two():
    game = throwdown(["P.AS", "P.3D"], [], init=("P.2H", "C.2S"))
    assert td(game)["turn"] == "pilots"
    assert refused(game, "p1", gc.Counter("P.AS")) == "does_not_beat"
    game.act("p1", gc.Counter("P.3D"))


def test_the_coach_may_never_exceed_his_strike():
    game = throwdown([], ["C.9S", "C.8S"])
    assert gc.Counter("C.9S") not in gc.legal_commands(game.state, "coach")
    assert refused(game, "coach", gc.Counter("C.9S")) == "beyond_strike"
    game.act("coach", gc.Counter("C.8S"))


def test_a_pilot_counter_beyond_strike_flips_for_dissonance():
    game = throwdown(["P.KD"], ["C.6S"], tops={"coach": ["C.5C"]}, pilots={"p1": {**QUIET, "buffers": 0}})
    game.act("coach", gc.Counter("C.6S"))
    events = game.act("p1", gc.Counter("P.KD"))
    assert events[0].public["dissonance"] == 5
    assert [e.public["schism"] for e in events if e.kind == "DissonanceFlipped"] == [True]
    assert game.state["harmony"] == 3 and "C.5C" in game.state["decks"]["coach"]["trash"]


def test_block_discards_both_and_the_previous_card_wins_again():
    game = throwdown(["P.6S", "P.6H"], ["C.6S"])
    game.act("coach", gc.Counter("C.6S"))
    assert refused(game, "p1", gc.Block("P.6H")) == "does_not_block"
    game.act("p1", gc.Block("P.6S"))
    assert pile_cards(game) == ["P.5H"] and td(game)["turn"] == "coach"
    assert "P.6S" in game.state["decks"]["pilot"]["trash"] and "C.6S" in game.state["decks"]["coach"]["trash"]


def test_the_initiative_card_cannot_be_blocked():
    game = throwdown([], ["C.5S"])
    assert refused(game, "coach", gc.Block("C.5S")) == "unblockable"


def test_escalate_scores_the_stage_for_the_opponent_and_starts_a_new_pile():
    game = throwdown([], ["C.6D"])
    game.act("coach", gc.Escalate("C.6D"))
    assert td(game)["stage"] == 2 and td(game)["scores"] == {"pilots": 1, "coach": 0}
    assert pile_cards(game) == ["C.6D"] and len(td(game)["piles"]) == 2


def test_block_against_an_escalate_undoes_the_escalation():
    game = throwdown(["P.6S"], ["C.6D"])
    game.act("coach", gc.Escalate("C.6D"))
    game.act("p1", gc.Block("P.6S"))
    assert td(game)["stage"] == 1 and td(game)["scores"] == {"pilots": 0, "coach": 0}
    assert pile_cards(game) == ["P.5H"] and len(td(game)["piles"]) == 1 and td(game)["turn"] == "coach"


def test_no_escalate_in_stage_3_rumble_only_there_and_no_escalate_in_stage_7():
    game = throwdown(["P.7D", "P.9D", "P.JD", "P.KD"], ["C.6D", "C.8D", "C.10D", "C.QD", "C.AD"])
    assert refused(game, "coach", gc.Rumble("C.6D")) == "rumble_only_in_stage_3"
    game.act("coach", gc.Escalate("C.6D"))
    game.act("p1", gc.Escalate("P.7D"))
    assert td(game)["stage"] == 3
    assert refused(game, "coach", gc.Escalate("C.8D")) == "cannot_escalate"
    game.act("coach", gc.Rumble("C.8D"))
    for seat, card in [("p1", "P.9D"), ("coach", "C.10D"), ("p1", "P.JD")]:
        game.act(seat, gc.Escalate(card))
    assert td(game)["stage"] == 7
    assert refused(game, "coach", gc.Escalate("C.QD")) == "cannot_escalate"
    assert td(game)["scores"] == {"pilots": 1 + 3 + 5, "coach": 2 + 4 + 6}


def test_rumble_discards_every_pile_and_its_card_cannot_be_blocked():
    game = throwdown(["P.7D", "P.8S"], ["C.6D", "C.8D"])
    game.act("coach", gc.Escalate("C.6D"))
    game.act("p1", gc.Escalate("P.7D"))
    game.act("coach", gc.Rumble("C.8D"))
    assert td(game)["stage"] == 4 and pile_cards(game) == ["C.8D"] and len(td(game)["piles"]) == 1
    assert {"P.5H", "P.7D"} <= set(game.state["decks"]["pilot"]["trash"])
    assert td(game)["scores"] == {"pilots": 1 + 3, "coach": 2}
    assert refused(game, "p1", gc.Block("P.8S")) == "unblockable"


@pytest.mark.parametrize("harmony, dissonance", [(4, 0), (1, 3)])
def test_from_the_rumble_on_the_pilots_strike_is_the_harmony(harmony, dissonance):
    game = throwdown(["P.7D", "P.QD"], ["C.6D", "C.8D"], harmony=harmony, init=("P.6H", "C.4H"),
                     tops={"coach": ["C.KC"]})
    game.act("coach", gc.Escalate("C.6D"))
    game.act("p1", gc.Counter("P.7D"))
    game.act("coach", gc.Escalate("C.8D"))
    events = game.act("p1", gc.Rumble("P.QD"))
    assert events[0].public["strike"] == harmony and events[0].public["dissonance"] == dissonance


def test_concede_scores_the_stage_for_the_opponent_and_ends_the_throwdown():
    game = throwdown([], [])
    game.act("coach", gc.Concede())
    out = gc.outcome(game.state)
    assert out["winners"] == ["p1"] and out["scores"] == {"pilots": 1, "coach": 0} and out["conceded_by"] == "coach"
    assert td(game)["piles"] == [] and "P.5H" in game.state["decks"]["pilot"]["trash"]


def test_a_tie_goes_to_the_side_that_did_not_concede():
    game = throwdown(["P.7D"], ["C.6D", "C.8D"])
    game.act("coach", gc.Escalate("C.6D"))
    game.act("p1", gc.Counter("P.7D"))
    game.act("coach", gc.Escalate("C.8D"))
    game.act("p1", gc.Concede())
    out = gc.outcome(game.state)
    assert out["scores"] == {"pilots": 3, "coach": 3} and out["winners"] == ["coach"]


def test_a_side_that_cannot_counter_block_or_escalate_must_concede():
    game = throwdown(["P.7D"], ["C.6D", "C.KS"])
    game.act("coach", gc.Escalate("C.6D"))
    game.act("p1", gc.Escalate("P.7D"))
    assert drives(game, "coach") == [gc.Concede()]


# ----- Assists and Payloads ---------------------------------------------------------------------

def test_an_assist_spends_a_charge_and_a_card_for_one_more_strike_this_turn():
    game = throwdown(["P.9S"], ["C.6S"], pilots={"p1": QUIET, "p2": {**QUIET, "charges": 1}},
                     other_hands={"p2": ["P.2D", "P.3D", "P.4D"]}, tops={"coach": ["C.2C"]})
    game.act("coach", gc.Counter("C.6S"))
    assert gc.to_act(game.state) == ["p1"] and "p2" in gc.may_act(game.state)
    game.act("p2", gc.Assist("P.2D"))
    assert game.state["team"]["p2"]["charges"] == 0 and td(game)["bonus"] == 1
    assert refused(game, "p2", gc.Assist("P.3D")) == "cannot_assist"
    events = game.act("p1", gc.Counter("P.9S"))
    assert events[0].public["strike"] == 3 and events[0].public["dissonance"] == 0
    assert td(game)["bonus"] == 0


def test_an_assist_is_optional_so_the_assisting_pilot_is_in_may_act_not_to_act():
    game = throwdown(["P.9S"], ["C.6S"], pilots={"p1": QUIET, "p2": {**QUIET, "charges": 1}},
                     other_hands={"p2": ["P.2D", "P.3D"]})
    game.act("coach", gc.Counter("C.6S"))
    # The match waits for the commander's Drive only: it goes on whether or not p2 assists.
    assert gc.to_act(game.state) == ["p1"] and "p2" in gc.may_act(game.state)
    assert "p2" not in gc.to_act(game.state) and "p1" not in gc.may_act(game.state)
    assert gc.Assist("P.2D") in gc.legal_commands(game.state, "p2")
    game.act("p2", gc.Assist("P.2D"))
    assert gc.to_act(game.state) == ["p1"]
    assert not [c for c in gc.legal_commands(game.state, "p2") if c.type == "assist"]
    game.act("p1", gc.Counter("P.9S"))
    assert gc.to_act(game.state) == ["coach"] and "p2" not in gc.to_act(game.state)


def test_either_commander_may_reveal_the_initiative_but_the_match_waits_for_the_coach():
    game = start(gc, {"mode": "throwdown", "pilots": {"p1": QUIET, "p2": QUIET}})
    rig(game, {"p1": ["P.5H", "P.2C", "P.3C"], "coach": ["C.4H", "C.5H"]})
    game.act("coach", gc.SealInitiative("C.4H"))
    game.act("p1", gc.SealInitiative("P.5H"))
    assert gc.to_act(game.state) == ["coach"] and "p1" in gc.may_act(game.state)
    assert gc.RevealInitiative() in gc.legal_commands(game.state, "coach")
    assert gc.RevealInitiative() in gc.legal_commands(game.state, "p1")
    assert gc.RevealInitiative() not in gc.legal_commands(game.state, "p2")
    assert refused(game, "p2", gc.RevealInitiative()) == "not_your_turn"
    events = game.act("coach", gc.RevealInitiative())
    assert [e.public["bluff_call"]["caller"] for e in events[:2]] == ["coach", "coach"]
    assert game.state["phase"] == "question" and gc.to_act(game.state) == ["coach"]


def test_an_assist_needs_a_charge():
    game = throwdown(["P.9S"], ["C.6S"], pilots={"p1": QUIET, "p2": QUIET}, other_hands={"p2": ["P.2D"]})
    game.act("coach", gc.Counter("C.6S"))
    assert refused(game, "p2", gc.Assist("P.2D")) == "cannot_assist"


def test_a_threat_assist_discards_a_face_card_for_a_wave_or_an_ace_for_a_storm():
    game = throwdown([], ["C.QS", "C.AS", "C.3S"], threats={"kaiju": 3, "drone": 1})
    assert refused(game, "coach", gc.ThreatAssist("kaiju", "C.3S")) == "not_face_or_ace"
    assert refused(game, "coach", gc.ThreatAssist("moth", "C.QS")) == "unknown_threat"
    events = game.act("coach", gc.ThreatAssist("kaiju", "C.QS"))
    assert events[0].public["kind"] == "wave"
    assert [e.public["trigger"] for e in events if e.kind == "TriggerResolved"] == ["wave"]
    assert refused(game, "coach", gc.ThreatAssist("kaiju", "C.AS")) == "threat_already_assisted"
    assert game.act("coach", gc.ThreatAssist("drone", "C.AS"))[0].public["kind"] == "storm"


def test_damage_waits_in_the_payloads_and_applies_at_the_end_the_losers_first():
    game = throwdown([], [], pilots={"p1": {**QUIET, "charges": 2, "buffers": 0}})
    game.act("coach", gc.RecordTrigger("purge", "p1"))
    assert td(game)["payloads"]["coach"][0]["trigger"] == "purge" and game.state["team"]["p1"]["charges"] == 2
    events = game.act("coach", gc.Concede())
    resolved = [e.public["trigger"] for e in events if e.kind == "TriggerResolved"]
    assert resolved == ["purge"] and game.state["team"]["p1"]["charges"] == 0


def test_a_full_payload_takes_no_more_triggers_fired_at_will_and_legal_moves_stop_offering_them():
    game = throwdown([], [], pilots={"p1": {**QUIET, "buffers": 0}}, threats={"kaiju": 3})
    for index in range(PAYLOAD_LIMIT):
        game.act("coach", gc.RecordTrigger("ruin", f"harbor-{index}"))
    assert len(td(game)["payloads"]["coach"]) == PAYLOAD_LIMIT
    assert refused(game, "coach", gc.RecordTrigger("purge", "p1")) == "payload_full"
    assert refused(game, "coach", gc.RecordTrigger("ruin", "harbor")) == "payload_full"
    offered = {c.trigger for c in gc.legal_commands(game.state, "coach") if isinstance(c, gc.RecordTrigger)}
    assert not offered & {"purge", "schism", "trauma", "ruin", "disfavor"}
    # A trigger with no damage side still fires at once, and the other side's Payload is not full.
    game.act("coach", gc.RecordTrigger("wave", "harbor"))
    game.act("p1", gc.RecordTrigger("trauma", "kaiju"))
    assert len(td(game)["payloads"]["pilots"]) == 1


def test_a_payload_keeps_only_what_sets_each_trigger_apart_and_shows_and_delivers_the_whole_record():
    game = throwdown(["P.9C"], ["C.6S"], pilots={"p1": {**QUIET, "buffers": 0}, "p2": QUIET}, threats={"kaiju": 3})
    game.act("coach", gc.RecordTrigger("ruin", "harbor"))
    game.act("p2", gc.RecordTrigger("trauma", "kaiju"))
    game.act("p1", gc.RecordTrigger("trauma", "kaiju"))
    # State every command loads: the fields every trigger fired at will shares are left out, and
    # the firing seat when it is the side's commander.
    assert td(game)["payloads"] == {
        "coach": [{"trigger": "ruin", "target": "harbor"}],
        "pilots": [{"trigger": "trauma", "target": "kaiju", "by": "p2"}, {"trigger": "trauma", "target": "kaiju"}],
    }
    fired = {
        "coach": [trigger("ruin", "harbor", "coach", "story")],
        "pilots": [trigger("trauma", "kaiju", "p2", "story"), trigger("trauma", "kaiju", "p1", "story")],
    }
    assert gc.view(game.state, Viewer("seat", "p1"))["throwdown"]["payloads"] == fired
    events = game.act("coach", gc.Concede())
    ended = next(e for e in events if e.kind == "ThrowdownEnded").public
    assert ended["payloads"] == fired
    resolved = [(e.public["trigger"], e.public["target"], e.public["by"], e.public["source"])
                for e in events if e.kind == "TriggerResolved"]
    assert resolved == [
        ("ruin", "harbor", "coach", "story"),
        ("trauma", "kaiju", "p2", "story"),
        ("trauma", "kaiju", "p1", "story"),
    ]
    assert game.state["threats"]["kaiju"] == 1


def test_a_payload_entry_kept_whole_by_an_earlier_snapshot_still_resolves_as_fired():
    game = throwdown(["P.9C"], ["C.6S"], pilots={"p1": {**QUIET, "charges": 2, "buffers": 0}})
    whole = trigger("purge", "p1", "coach", "story")
    td(game)["payloads"]["coach"].append(dict(whole))
    assert gc.view(game.state, Viewer("seat", "p1"))["throwdown"]["payloads"]["coach"] == [whole]
    events = game.act("coach", gc.Concede())
    assert next(e for e in events if e.kind == "ThrowdownEnded").public["payloads"]["coach"] == [whole]
    assert [e.public["trigger"] for e in events if e.kind == "TriggerResolved"] == ["purge"]
    assert game.state["team"]["p1"]["charges"] == 0


def test_the_losers_payload_resolves_before_the_winners():
    game = throwdown(["P.9C"], ["C.6S"], pilots={"p1": {**QUIET, "buffers": 0}}, threats={"kaiju": 3})
    game.act("coach", gc.RecordTrigger("ruin", "harbor"))
    game.act("coach", gc.Counter("C.6S"))
    game.act("p1", gc.RecordTrigger("trauma", "kaiju"))
    assert td(game)["payloads"]["pilots"][0]["target"] == "kaiju"
    events = game.act("p1", gc.Concede())
    order = [(e.public["by"], e.public["trigger"]) for e in events if e.kind == "TriggerResolved"]
    assert order == [("p1", "trauma"), ("coach", "ruin")]
    assert game.state["threats"]["kaiju"] == 2


def test_when_the_coach_loses_his_payload_resolves_first():
    game = throwdown(["P.9C"], ["C.6S"], pilots={"p1": {**QUIET, "buffers": 0}}, threats={"kaiju": 3})
    game.act("p1", gc.RecordTrigger("trauma", "kaiju"))
    game.act("coach", gc.RecordTrigger("ruin", "harbor"))
    events = game.act("coach", gc.Concede())
    ended = next(e for e in events if e.kind == "ThrowdownEnded").public
    assert ended["winner"] == "pilots" and ended["payload_order"] == ["coach", "pilots"]
    order = [(e.public["by"], e.public["trigger"]) for e in events if e.kind == "TriggerResolved"]
    assert order == [("coach", "ruin"), ("p1", "trauma")]


def test_a_called_off_throwdown_resolves_the_coachs_payload_first():
    game = start(gc, {"mode": "throwdown", "pilots": {"p1": QUIET}, "threats": [{"name": "kaiju", "rating": 3}]})
    rig(game, {"p1": ["P.7H"], "coach": ["C.7H"]})
    game.act("p1", gc.RecordTrigger("trauma", "kaiju"))
    game.act("coach", gc.RecordTrigger("ruin", "harbor"))
    game.act("p1", gc.SealInitiative("P.7H"))
    game.act("coach", gc.SealInitiative("C.7H"))
    events = game.act("coach", gc.RevealInitiative())
    assert gc.outcome(game.state)["reason"] == "called_off"
    order = [(e.public["by"], e.public["trigger"]) for e in events if e.kind == "TriggerResolved"]
    assert order == [("coach", "ruin"), ("p1", "trauma")]
