"""Giving up, for every ruleset in the registry: a seat that may give up can always resign, and only then.

Every game has a `resign` command. Who may send it is the game's ruling (its rules page): the
four card games let every seat that could act give up, gambit-board any seat at any time,
gattai-conflict the Coach and the pilots' commander. The game names them in `resigners`, and
this kit holds every game to the contract around it (domain/ruleset.py, "Giving up"): at every
position of random playouts before the end,

- each seat that may give up is in `to_act` or `may_act`, and has `resign` among its legal
  commands; no other seat has it, and `decide` refuses it for every other seat with a rule;
- posting it ends the match (at once, or once what is already under way has resolved) with reason
  `resignation`, and the resigning seat is not among the winners;

and once the match is over nobody may resign.
"""

from __future__ import annotations

import dataclasses
import json
import random

import pytest

from domain import rulesets
from domain.ruleset import RuleViolation
from tests.hardening.play import join_options
from tests.support.harness import ENDERS, Game, random_playout

RULESET_IDS = rulesets.available()
# Positions per playout at which a resignation is posted and the match played on to its end.
RESIGNATIONS_PER_PLAYOUT = 4


def _resign_of(ruleset):
    """The game's Resign command class (every game declares one, with type `resign`)."""
    found = [cls for cls in ruleset.COMMANDS if cls.type == "resign"]
    assert len(found) == 1, f"{ruleset.RULESET_ID} declares {len(found)} commands of type resign"
    return found[0]


def _options(ruleset_id: str, seed: int) -> dict | None:
    ruleset = rulesets.get(ruleset_id)
    return join_options(ruleset_id, list(ruleset.seat_names(ruleset.Config())), random.Random(seed))


def _refusal(game: Game, seat: str, command) -> str | None:
    """The rule `decide` refuses the command with, or None when it accepts it (the state stays untouched)."""
    before = json.dumps(game.state, sort_keys=True)
    try:
        game.ruleset.decide(game.state, seat, command, game.chance())
    except RuleViolation as refused:
        return refused.rule
    finally:
        assert json.dumps(game.state, sort_keys=True) == before, "deciding a resignation changed the state"
    return None


def _fork(game: Game) -> Game:
    """An independent copy of a game in play, to resign in without touching the original."""
    return dataclasses.replace(game, state=json.loads(json.dumps(game.state)), events=list(game.events))


def _play_to_the_end(game: Game, rng: random.Random) -> dict:
    """Random legal play (never another ender) until the match has its outcome."""
    ruleset = game.ruleset
    for _ in range(3000):
        result = ruleset.outcome(game.state)
        if result is not None:
            return result
        seat = rng.choice(sorted(ruleset.to_act(game.state)))
        options = [c for c in ruleset.legal_commands(game.state, seat) if c.type not in ENDERS]
        choices = ruleset.legal_choices(game.state, seat)
        picked = rng.choice(options + choices)
        game.act(seat, picked.random_command(rng) if picked in choices else picked)
    raise AssertionError("the match did not end after a resignation")


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_a_seat_that_may_give_up_always_has_resign_listed_and_no_other_seat_has(ruleset_id):
    ruleset = rulesets.get(ruleset_id)
    resign = _resign_of(ruleset)
    positions = offered = 0

    def check(game: Game) -> None:
        nonlocal positions, offered
        if ruleset.outcome(game.state) is not None:
            assert ruleset.resigners(game.state) == [], "nobody gives up a finished match"
            return
        positions += 1
        acting = set(ruleset.to_act(game.state)) | set(ruleset.may_act(game.state))
        resigners = ruleset.resigners(game.state)
        assert set(resigners) <= acting, f"{sorted(set(resigners) - acting)} may resign but could not act"
        for seat in game.seats:
            listed = [c for c in ruleset.legal_commands(game.state, seat) if c.type == "resign"]
            refused = _refusal(game, seat, resign())
            if seat in resigners:
                assert listed == [resign()], f"{seat} may give up but has {listed} listed"
                assert refused is None, f"{seat} may give up but resigning is refused ({refused})"
                offered += 1
            else:
                assert listed == [], f"{seat} may not give up but has resign listed"
                assert refused, f"{seat} may not give up but resigning is accepted"

    for seed in range(2):
        random_playout(ruleset, None, random.Random(f"give-up/{ruleset_id}/{seed}"), check=check,
                       seat_options=_options(ruleset_id, seed))
    assert positions > 0 and offered > 0


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_a_seat_that_could_not_act_is_refused_a_resignation(ruleset_id):
    ruleset = rulesets.get(ruleset_id)
    resign = _resign_of(ruleset)
    refusals = 0

    def check(game: Game) -> None:
        nonlocal refusals
        if ruleset.outcome(game.state) is not None:
            return
        acting = set(ruleset.to_act(game.state)) | set(ruleset.may_act(game.state))
        for seat in [s for s in game.seats if s not in acting] + ["nobody"]:
            rule = _refusal(game, seat, resign())
            assert rule, f"{seat} could not act but its resignation is accepted"
            refusals += 1

    for seed in range(2):
        random_playout(ruleset, None, random.Random(f"give-up-refused/{ruleset_id}/{seed}"), check=check,
                       seat_options=_options(ruleset_id, seed))
    assert refusals > 0


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_a_resignation_ends_the_match_as_a_resignation_the_resigning_seat_not_among_the_winners(ruleset_id):
    ruleset = rulesets.get(ruleset_id)
    rng = random.Random(f"resigned/{ruleset_id}")
    ended = 0
    for seed in range(2):
        game = random_playout(ruleset, None, random.Random(f"resigned/{ruleset_id}/{seed}"),
                              seat_options=_options(ruleset_id, seed), enders_rate=0)
        # Replay the game, resigning at a few positions spread over it.
        steps = len(game.events)
        picked = set(rng.sample(range(steps), min(RESIGNATIONS_PER_PLAYOUT, steps)))
        replay = dataclasses.replace(game, state=ruleset.initial_state(game.config, list(game.seats)), events=[])
        for index, event in enumerate(game.events):
            replay.record([event])
            if index not in picked or ruleset.outcome(replay.state) is not None:
                continue
            resigners = ruleset.resigners(replay.state)
            if not resigners:
                continue
            seat = rng.choice(resigners)
            fork = _fork(replay)
            fork.act(seat, _resign_of(ruleset)())
            assert ruleset.resigners(fork.state) == [], "a match already resigned is resigned again"
            result = _play_to_the_end(fork, rng)
            assert result["reason"] == "resignation", f"{seat} resigned but the match ended by {result['reason']}"
            assert seat not in result["winners"], f"{seat} resigned but is among the winners {result['winners']}"
            assert result["winners"], "a resignation leaves somebody to win"
            assert fork.replayed_state() == fork.state
            ended += 1
    assert ended > 0


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_nobody_may_resign_once_the_match_is_over(ruleset_id):
    ruleset = rulesets.get(ruleset_id)
    for seed in range(2):
        game = random_playout(ruleset, None, random.Random(f"over/{ruleset_id}/{seed}"),
                              seat_options=_options(ruleset_id, seed), enders_rate=0.2 * seed)
        assert ruleset.outcome(game.state) is not None
        assert ruleset.resigners(game.state) == []
        for seat in game.seats:
            assert not [c for c in ruleset.legal_commands(game.state, seat) if c.type == "resign"]
            assert _refusal(game, seat, _resign_of(ruleset)()), f"{seat} resigned a finished match"
