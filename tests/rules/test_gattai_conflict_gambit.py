"""The Gambit of gattai-conflict: the sealed Threshold, the pilot's play, the reveal and each outcome."""

from __future__ import annotations

import pytest

from domain.ruleset import RuleViolation
from domain.rulesets import gattai_conflict as gc
from tests.rules.test_gattai_conflict_support import gambit, kinds

THRESHOLD = "C.9S"


def seal(game, card=THRESHOLD):
    """The Coach seals `card` from his hand as the Threshold."""
    return game.act("coach", gc.PlayThreshold("hand", card))


def test_threshold_is_sealed_face_down_from_the_coach_hand():
    game = gambit({"coach": [THRESHOLD], "p1": ["P.10H", "P.3C", "P.4C"]})
    [event] = seal(game)
    assert event.kind == "ThresholdSealed"
    assert event.secret == {"card": THRESHOLD, "source": "hand"} and event.audience == ("coach",)
    assert THRESHOLD not in str(event.public)
    assert game.state["hands"]["coach"] == [] and game.state["phase"] == "play"


def test_threshold_may_be_played_blind_from_the_top_of_the_coach_deck():
    game = gambit({"coach": ["C.2C"], "p1": ["P.10H", "P.3C", "P.4C"]}, tops={"coach": ["C.KD"]})
    [event] = game.act("coach", gc.PlayThreshold("deck"))
    assert event.secret == {"card": "C.KD", "source": "deck"}
    assert game.state["hands"]["coach"] == ["C.2C"]
    assert game.state["decks"]["coach"]["draw"][0] != "C.KD"


def test_blind_threshold_names_no_card():
    game = gambit({"coach": ["C.2C"], "p1": ["P.10H", "P.3C", "P.4C"]})
    with pytest.raises(RuleViolation) as err:
        game.act("coach", gc.PlayThreshold("deck", "C.2C"))
    assert err.value.rule == "blind_play_names_no_card"


def test_threshold_must_come_from_the_coach_hand():
    game = gambit({"coach": ["C.2C"], "p1": ["P.10H", "P.3C", "P.4C"]})
    with pytest.raises(RuleViolation) as err:
        seal(game, "C.AS")
    assert err.value.rule == "card_not_in_hand"
    with pytest.raises(RuleViolation) as err:
        game.act("coach", gc.PlayThreshold("sleeve", "C.2C"))
    assert err.value.rule == "unknown_source"


def test_only_the_coach_seals_the_threshold_and_only_the_gambit_pilot_answers():
    game = gambit({"coach": [THRESHOLD], "p1": ["P.10H", "P.3C", "P.4C"]},
                  pilots={"p1": {}, "p2": {}}, pilot="p2")
    with pytest.raises(RuleViolation) as err:
        game.act("p2", gc.PlayThreshold("hand", THRESHOLD))
    assert err.value.rule == "not_your_turn"
    seal(game)
    assert gc.to_act(game.state) == ["p2"]
    with pytest.raises(RuleViolation) as err:
        game.act("p1", gc.PlayCard("P.10H"))
    assert err.value.rule == "not_your_turn"


def test_pilot_flip_takes_the_top_of_the_pilot_deck():
    game = gambit({"coach": [THRESHOLD], "p1": ["P.2C", "P.3C", "P.4C"]}, tops={"pilot": ["P.QH"]})
    seal(game)
    events = game.act("p1", gc.FlipCard())
    assert events[0].public == {"seat": "p1", "card": "P.QH", "source": "deck"}
    assert game.state["gambit"]["higher"] is True and len(game.state["hands"]["p1"]) == 3


def test_reveal_carries_the_bluff_call_and_opens_the_sealed_record():
    game = gambit({"coach": [THRESHOLD], "p1": ["P.10H", "P.3C", "P.4C"]})
    [_sealed] = seal(game)
    sealed_version = game.events[-1].version
    events = game.act("p1", gc.PlayCard("P.3C"))
    reveal = events[1]
    assert reveal.kind == "ThresholdRevealed" and reveal.opens == (sealed_version,)
    call = reveal.public["bluff_call"]
    assert call == {"claim_version": sealed_version, "claimant": "coach", "caller": "p1",
                    "call_version": reveal.version, "verdict": "true", "kind": "threshold", "card": THRESHOLD,
                    "source": "hand", "consequences": {"pilot_card": "P.3C", "pilot_higher": False}}


@pytest.mark.parametrize("pilot_card, threshold, higher", [
    ("P.2H", "C.AS", True), ("P.AS", "C.2C", False), ("P.9H", "C.9C", False), ("P.10C", "C.9S", True),
    ("P.AC", "C.KS", True),
])
def test_a_two_always_beats_an_ace_and_equal_rank_is_not_higher(pilot_card, threshold, higher):
    game = gambit({"coach": [threshold], "p1": [pilot_card, "P.3C", "P.4C"]})
    seal(game, threshold)
    game.act("p1", gc.PlayCard(pilot_card))
    assert game.state["gambit"]["higher"] is higher
    assert game.state["phase"] == ("boon" if higher else "choice")


def test_scripted_gambit_yes_and_gives_the_pilot_her_boon():
    game = gambit({"coach": [THRESHOLD], "p1": ["P.KH", "P.3C", "P.4C"]})
    seal(game)
    game.act("p1", gc.PlayCard("P.KH"))
    with pytest.raises(RuleViolation) as err:
        game.act("p1", gc.ChooseOutcome("no_and"))
    assert err.value.rule == "not_now"
    game.act("p1", gc.PickBoon("chargeup"))
    assert game.state["team"]["p1"]["charges"] == 1
    out = gc.outcome(game.state)
    assert out["winners"] == ["p1"] and out["gambit_outcome"] == "yes_and"
    assert {"P.KH", THRESHOLD} <= set(game.state["decks"]["pilot"]["trash"] + game.state["decks"]["coach"]["trash"])


def test_scripted_gambit_yes_but_takes_the_coach_complication():
    game = gambit({"coach": [THRESHOLD], "p1": ["P.4H", "P.3C", "P.5C"]},
                  pilots={"p1": {"charges": 2, "buffers": 0}})
    seal(game)
    game.act("p1", gc.PlayCard("P.4H"))
    game.act("p1", gc.ChooseOutcome("yes_but"))
    assert gc.to_act(game.state) == ["coach"]
    game.act("coach", gc.NameComplication("purge"))
    assert game.state["team"]["p1"]["charges"] == 0
    out = gc.outcome(game.state)
    assert out["winners"] == ["p1"] and out["gambit_outcome"] == "yes_but"


def test_scripted_gambit_no_but_gives_a_boon_and_the_coach_wins():
    game = gambit({"coach": [THRESHOLD], "p1": ["P.4H", "P.3C", "P.5C"]}, pilots={"p1": {"buffers": 2}})
    game.state["team"]["p1"]["buffers"] = 0
    seal(game)
    game.act("p1", gc.PlayCard("P.4H"))
    game.act("p1", gc.ChooseOutcome("no_but"))
    assert gc.to_act(game.state) == ["p1"]
    game.act("p1", gc.PickBoon("fortify"))
    assert game.state["team"]["p1"]["buffers"] == 1
    assert gc.outcome(game.state)["winners"] == ["coach"]


def test_scripted_gambit_no_and_charges_the_pilot_and_takes_the_complication():
    game = gambit({"coach": [THRESHOLD], "p1": ["P.4H", "P.3C", "P.5C"]}, pilots={"p1": {"buffers": 0}})
    seal(game)
    game.act("p1", gc.PlayCard("P.4H"))
    game.act("p1", gc.ChooseOutcome("no_and"))
    assert game.state["team"]["p1"]["charges"] == 1
    game.act("coach", gc.NameComplication("schism"))
    assert game.state["harmony"] == 3
    out = gc.outcome(game.state)
    assert out["winners"] == ["coach"] and out["gambit_outcome"] == "no_and"


def test_yes_and_is_not_a_choice_and_complications_are_purge_or_schism():
    game = gambit({"coach": [THRESHOLD], "p1": ["P.4H", "P.3C", "P.5C"]})
    seal(game)
    game.act("p1", gc.PlayCard("P.4H"))
    with pytest.raises(RuleViolation) as err:
        game.act("p1", gc.ChooseOutcome("yes_and"))
    assert err.value.rule == "unknown_outcome"
    game.act("p1", gc.ChooseOutcome("yes_but"))
    with pytest.raises(RuleViolation) as err:
        game.act("coach", gc.NameComplication("trauma"))
    assert err.value.rule == "unknown_trigger"


def test_specialty_doubles_the_outcome_effect():
    game = gambit({"coach": [THRESHOLD], "p1": ["P.KH", "P.3C", "P.4C"]}, specialty=True)
    seal(game)
    game.act("p1", gc.PlayCard("P.KH"))
    events = game.act("p1", gc.PickBoon("chargeup"))
    assert kinds(events).count("TriggerFired") == 2
    assert game.state["team"]["p1"]["charges"] == 2


def test_specialty_no_and_doubles_the_complication_and_records_a_lesson():
    game = gambit({"coach": [THRESHOLD], "p1": ["P.4H", "P.3C", "P.5C"]}, specialty=True, pilots={"p1": {"buffers": 0}})
    seal(game)
    game.act("p1", gc.PlayCard("P.4H"))
    [chosen, *_] = game.act("p1", gc.ChooseOutcome("no_and"))
    assert chosen.public["lesson"] is True
    assert game.state["team"]["p1"]["charges"] == 1
    game.act("coach", gc.NameComplication("schism"))
    assert game.state["harmony"] == 2


def test_pilot_may_spend_a_buffer_to_prevent_the_complication():
    game = gambit({"coach": [THRESHOLD], "p1": ["P.4H", "P.3C", "P.5C"]})
    seal(game)
    game.act("p1", gc.PlayCard("P.4H"))
    game.act("p1", gc.ChooseOutcome("yes_but"))
    game.act("coach", gc.NameComplication("schism"))
    assert gc.to_act(game.state) == ["p1"] and gc.outcome(game.state) is None
    with pytest.raises(RuleViolation) as err:
        game.act("coach", gc.RecordTrigger("wave", "table"))
    assert err.value.rule == "trigger_pending"
    game.act("p1", gc.ResolveTrigger(True))
    assert game.state["harmony"] == 4 and game.state["team"]["p1"]["buffers"] == 0
    assert gc.outcome(game.state) is not None
