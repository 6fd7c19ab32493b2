"""Giving up in gattai-conflict: the Coach or the pilots' commander resigns the match for its side when it
could act; the other side wins, and a Throwdown's pending Payloads apply as on a Concede."""

from __future__ import annotations

import pytest

from domain.ruleset import RuleViolation
from domain.rulesets import gattai_conflict as gc
from tests.rules.test_gattai_conflict_support import QUIET, gambit, kinds, td, throwdown


def refused(game, seat, command) -> str:
    """The rule id a refused command names (it must be refused)."""
    with pytest.raises(RuleViolation) as err:
        game.act(seat, command)
    return err.value.rule


def resolved(events) -> list[str]:
    """The triggers resolved by a list of events, in order."""
    return [e.public["trigger"] for e in events if e.kind == "TriggerResolved"]


def test_a_side_that_resigns_a_throwdown_loses_the_match_and_its_pending_payloads_apply_as_on_a_concede():
    def fought():
        game = throwdown([], [], pilots={"p1": {**QUIET, "charges": 2, "buffers": 0}})
        game.act("coach", gc.RecordTrigger("purge", "p1"))
        return game

    conceded, resigned = fought(), fought()
    conceding = conceded.act("coach", gc.Concede())
    resigning = resigned.act("coach", gc.Resign())
    assert resolved(resigning) == resolved(conceding) == ["purge"]
    assert resigned.state["team"] == conceded.state["team"] and resigned.state["team"]["p1"]["charges"] == 0
    out = gc.outcome(resigned.state)
    assert out["winners"] == ["p1"] and out["reason"] == "resignation"
    assert out["resigned_by"] == "coach" and out["resigned"] == "coach"
    [record] = [e for e in resigning if e.kind == "SeatResigned"]
    assert record.public["payload_order"] == ["coach", "pilots"]
    assert record.public["payloads"]["coach"][0]["trigger"] == "purge"
    assert td(resigned)["piles"] == []


def test_the_pilots_commander_resigns_for_the_pilots_on_the_coachs_turn():
    game = throwdown([], [], pilots={"p1": {**QUIET, "buffers": 0}, "p2": {**QUIET, "buffers": 0}})
    assert "p1" in gc.may_act(game.state) and "p1" in gc.resigners(game.state)
    events = game.act("p1", gc.Resign())
    assert kinds(events)[0] == "SeatResigned"
    out = gc.outcome(game.state)
    assert out["winners"] == ["coach"] and out["resigned_by"] == "pilots" and out["resigned"] == "p1"


def test_a_payload_trigger_aimed_at_a_pilot_with_a_buffer_still_waits_for_her_answer_after_a_resignation():
    game = throwdown([], [], pilots={"p1": {**QUIET, "charges": 2, "buffers": 1}})
    game.act("coach", gc.RecordTrigger("purge", "p1"))
    game.act("coach", gc.Resign())
    assert gc.to_act(game.state) == ["p1"] and gc.outcome(game.state) is None
    assert refused(game, "p1", gc.Resign()) == "already_resigned"
    assert gc.resigners(game.state) == []
    game.act("p1", gc.ResolveTrigger(True))
    assert game.state["team"]["p1"]["charges"] == 2
    assert gc.outcome(game.state)["reason"] == "resignation" and gc.outcome(game.state)["winners"] == ["p1"]


def test_another_pilot_cannot_resign_for_the_pilots():
    game = throwdown([], [], pilots={"p1": dict(QUIET), "p2": {**QUIET, "charges": 1}})
    assert "p2" in gc.may_act(game.state) and gc.Resign() not in gc.legal_commands(game.state, "p2")
    assert refused(game, "p2", gc.Resign()) == "cannot_resign"


def test_a_seat_that_could_do_nothing_now_is_refused_a_resignation():
    # The Coach conceded; the purge in his Payload waits for p1's answer, and he has no Omen to spend.
    game = throwdown([], [], pilots={"p1": {**QUIET, "charges": 2, "buffers": 1}})
    game.act("coach", gc.RecordTrigger("purge", "p1"))
    game.act("coach", gc.Concede())
    assert gc.to_act(game.state) == ["p1"] and "coach" not in gc.may_act(game.state)
    assert refused(game, "coach", gc.Resign()) == "not_your_turn"
    # p1 is waited for: she may resign, and the pilots lose the match the Coach had conceded.
    game.act("p1", gc.Resign())
    game.act("p1", gc.ResolveTrigger(False))
    out = gc.outcome(game.state)
    assert out["winners"] == ["coach"] and out["reason"] == "resignation" and out["resigned_by"] == "pilots"


def test_the_pilot_facing_a_gambit_resigns_for_the_pilots_and_the_gambit_records_no_result_of_its_own():
    game = gambit({"p1": ["P.5H"], "coach": ["C.9S"]})
    game.act("coach", gc.PlayThreshold("hand", "C.9S"))
    assert gc.to_act(game.state) == ["p1"]
    events = game.act("p1", gc.Resign())
    assert "GambitResolved" not in kinds(events) and kinds(events)[0] == "SeatResigned"
    assert game.state["phase"] in ("cleanup", "over")
    while gc.outcome(game.state) is None:  # the cleanup: seats over their max hand discard
        seat = gc.to_act(game.state)[0]
        due = game.state["discards_due"][seat]
        game.act(seat, gc.DiscardToMax(tuple(game.state["hands"][seat][:due])))
    out = gc.outcome(game.state)
    assert out["winners"] == ["coach"] and out["reason"] == "resignation" and out["mode"] == "gambit"
    assert game.state["sealed"][0]["reveal_version"] is None  # the Threshold stays sealed


def test_the_coach_may_resign_a_gambit_while_the_pilot_is_to_play():
    game = gambit({"p1": ["P.5H"], "coach": ["C.9S"]})
    game.act("coach", gc.PlayThreshold("hand", "C.9S"))
    assert "coach" in gc.may_act(game.state) and gc.resigners(game.state) == ["coach", "p1"]
    game.act("coach", gc.Resign())
    while gc.outcome(game.state) is None:
        seat = gc.to_act(game.state)[0]
        due = game.state["discards_due"][seat]
        game.act(seat, gc.DiscardToMax(tuple(game.state["hands"][seat][:due])))
    assert gc.outcome(game.state)["winners"] == ["p1"]


def test_a_finished_conflict_cannot_be_resigned():
    game = throwdown([], [])
    game.act("coach", gc.Concede())
    assert gc.outcome(game.state) is not None
    for seat in game.seats:
        assert refused(game, seat, gc.Resign()) == "match_over"
