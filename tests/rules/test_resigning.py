"""Giving up in gambitz, dragons-gambit and gambit-tcg: a seat resigns when the match waits for it, and
resigning has exactly the consequence running out of time has, recorded as a resignation (the rules
pages' rulings after the third audit). gattai-conflict's own ruling: test_gattai_conflict_resign.py."""

from __future__ import annotations

import random

import pytest

from domain.ruleset import RuleViolation
from domain.rulesets import dragons_gambit as dg
from domain.rulesets import gambit_tcg as tcg
from domain.rulesets import gambitz as gz
from tests.support.harness import Game, start

GAMES = {"gambitz": (gz, {"players": 3}), "dragons-gambit": (dg, {"players": 3}), "gambit-tcg": (tcg, {})}


def refused(game: Game, seat: str, command) -> str:
    """The rule a refused command names (it must be refused)."""
    with pytest.raises(RuleViolation) as err:
        game.act(seat, command)
    return err.value.rule


def played_a_while(ruleset, config: dict, steps: int, seed: str) -> Game:
    """A game after `steps` random moves of the game itself (never a resignation)."""
    rng = random.Random(seed)
    game = start(ruleset, config)
    for _ in range(steps):
        seat = ruleset.to_act(game.state)[0]
        moves = [c for c in ruleset.legal_commands(game.state, seat) if c.type != "resign"]
        moves += [choice.random_command(rng) for choice in ruleset.legal_choices(game.state, seat)]
        game.act(seat, rng.choice(moves))
        if ruleset.outcome(game.state) is not None:
            raise AssertionError("the game ended before the position wanted")
    return game


@pytest.mark.parametrize("game_id", sorted(GAMES))
@pytest.mark.parametrize("steps", [0, 7, 23])
def test_a_seat_that_resigns_loses_as_if_its_time_ran_out(game_id, steps):
    ruleset, config = GAMES[game_id]
    game = played_a_while(ruleset, config, steps, f"{game_id}/{steps}")
    seat = ruleset.to_act(game.state)[0]
    timed_out = start(ruleset, config)
    timed_out.record(list(game.events[len(timed_out.events):]))
    timed_out.record(ruleset.time_out(timed_out.state, seat, timed_out.chance()))
    game.act(seat, ruleset.Resign())
    resigned, out_of_time = ruleset.outcome(game.state), ruleset.outcome(timed_out.state)
    assert resigned["reason"] == "resignation" and out_of_time["reason"] == "time"
    assert {**resigned, "reason": "time"} == out_of_time
    assert seat not in resigned["winners"] and resigned["winners"]
    assert ruleset.to_act(game.state) == [] and game.replayed_state() == game.state


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_only_a_seat_the_match_waits_for_may_resign_for_nobody_acts_unasked(game_id):
    ruleset, config = GAMES[game_id]
    game = played_a_while(ruleset, config, 5, f"{game_id}/waits")
    waiting = ruleset.to_act(game.state)
    assert ruleset.may_act(game.state) == [] and ruleset.resigners(game.state) == waiting
    for seat in game.seats:
        listed = ruleset.Resign() in ruleset.legal_commands(game.state, seat)
        assert listed == (seat in waiting)
        if seat not in waiting:
            assert refused(game, seat, ruleset.Resign()) == "not_your_turn"


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_finished_game_cannot_be_resigned(game_id):
    ruleset, config = GAMES[game_id]
    game = played_a_while(ruleset, config, 3, f"{game_id}/over")
    game.act(ruleset.to_act(game.state)[0], ruleset.Resign())
    for seat in game.seats:
        assert refused(game, seat, ruleset.Resign()) == "game_over"


def test_a_gambitz_resignation_names_the_forfeiting_seat_and_ranks_the_others_by_their_scores():
    game = played_a_while(gz, {"players": 3}, 12, "gambitz/ranked")
    seat = gz.to_act(game.state)[0]
    [event] = game.act(seat, gz.Resign())
    assert event.kind == "SeatResigned" and event.public == {"seat": seat}
    result = gz.outcome(game.state)
    others = [s for s in game.seats if s != seat]
    best = max(result["scores"][s] for s in others)
    assert result["forfeited"] == seat and result["winners"] == [s for s in others if result["scores"][s] == best]


def test_a_gambitz_seat_whose_redraw_is_due_may_still_resign():
    game = start(gz, {"players": 2})
    game.state["hands"]["p1"] = ["queen-blue", "queen-red", "queen-green"]
    assert [c.type for c in gz.legal_commands(game.state, "p1")] == ["redraw", "resign"]
    game.act("p1", gz.Resign())
    assert gz.outcome(game.state)["winners"] == ["p2"]


def test_a_dragons_gambit_seat_still_to_peek_may_resign_and_one_that_has_peeked_may_not():
    game = start(dg, {"players": 3, "initial_peek": "choose"})
    game.act("p2", dg.PeekCards(0, 1))
    assert dg.resigners(game.state) == ["p1", "p3"]
    assert refused(game, "p2", dg.Resign()) == "not_your_turn"
    game.act("p3", dg.Resign())
    result = dg.outcome(game.state)
    assert result["reason"] == "resignation" and result["forfeited"] == "p3"
    assert result["winners"] == ["p1", "p2"] and result["rounds"] == 1  # nobody has scored yet: a shared win


def test_a_gambit_tcg_resignation_is_a_loss_recorded_with_its_reason():
    game = played_a_while(tcg, {}, 9, "tcg/loss")
    seat = tcg.to_act(game.state)[0]
    [event] = game.act(seat, tcg.Resign())
    assert event.kind == "SeatLost" and event.public == {"seats": [seat], "reason": "resignation"}
    result = tcg.outcome(game.state)
    assert result["losers"] == [seat] and result["winners"] == [s for s in game.seats if s != seat]
