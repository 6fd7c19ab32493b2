"""gambit-board: random playouts (both power modes, both loss choices, both boards) checking
invariants after every step, that every listed command is accepted, hidden information in
every view, and that replaying the record rebuilds the state."""

from __future__ import annotations

import copy
import itertools
import json
import random
from collections import Counter

import pytest

from domain.ruleset import Viewer
from domain.rulesets import gambit_board as gb
from domain.rulesets.gambit_board import board as geo
from domain.rulesets.gambit_board.commands import Accept, CallBluff, ClaimKamikaze, ClaimMoat, Detect, MovePiece, Resign
from domain.rulesets.gambit_board.flow import current_step
from domain.rulesets.gambit_board.powers import ACTION, MOVEMENT
from tests.support.harness import random_playout, start

GAMES = 1000
LONG_GAME = 120  # turns; past this the random player resigns
CONFIGS = [dict(zip(("power_mode", "loss_choice", "board", "first_seat"), combo)) for combo in itertools.product(
    ("select", "roll"), ("loser", "winner"), ("standard", "bridges"), ("south", "north", "random"))]
ALL_PIECES = {f"{p}{i}" for p in "SN" for i in range(1, 7)}


def choose(state: dict, seat: str, options: list, rng: random.Random, boldness: float):
    """A random player that calls often enough for games to end by captures or the far row."""
    playable = [c for c in options if not isinstance(c, Resign)]
    step = current_step(state)
    if step == "turn":
        if state["turn"]["number"] > LONG_GAME or not playable:
            return Resign()
        detects = [c for c in playable if isinstance(c, Detect)]
        if detects and rng.random() < 0.1:
            return rng.choice(detects)
        moves = [c for c in playable if isinstance(c, MovePiece)]
        if moves and rng.random() < 0.7:
            ahead = 1 if seat == "south" else -1
            where = geo.locate(state["board"])
            forward = [m for m in moves if (int(m.to[1]) - int(where[m.piece][0][1])) * ahead > 0]
            moves = forward or moves
        return rng.choice(moves or playable)
    if step in ("respond", "counter"):
        calls = [c for c in playable if isinstance(c, CallBluff)]
        counters = [c for c in playable if isinstance(c, (ClaimMoat, ClaimKamikaze))]
        roll = rng.random()
        if calls and roll < boldness:
            return rng.choice(calls)
        if counters and roll < boldness + 0.15:
            return rng.choice(counters)
        return Accept()
    return rng.choice(playable)


def check_invariants(state: dict) -> None:
    """What must hold after every step of any game."""
    where = geo.locate(state["board"])
    lost = set(state["lost"]["south"]) | set(state["lost"]["north"])
    assert set(where) | lost == ALL_PIECES and not set(where) & lost          # 12 pieces accounted for
    assert sum(len(stack) for stack in state["board"].values()) == len(where)  # each piece stands once
    assert all(state["board"].values())                                        # no empty stacks
    blocked = geo.impassable(state["config"]["board"])
    assert not set(state["board"]) & blocked
    for record in state["powers"].values():
        assert record["movement"] in MOVEMENT + (None,) and record["action"] in ACTION + (None,)
    assert all(len(state["lost"][s]) <= 4 for s in ("south", "north"))
    assert (gb.outcome(state) is None) == bool(gb.to_act(state))


def scrambled(state: dict, hidden: list[str]) -> dict:
    """The state with every secret of the hidden seats replaced by something else."""
    other = copy.deepcopy(state)
    for piece, record in other["powers"].items():
        if piece[0] in {s[0].upper() for s in hidden}:
            record["movement"] = "ghost" if record["movement"] != "ghost" else "diagonal"
            record["action"] = "detective" if record["action"] != "detective" else "moat"
    for seat in hidden:
        if other["dice"][seat] is not None:
            other["dice"][seat] = {"attempt": 9, "movement": [6, 6], "action": [5, 5]}
        other["detections"][seat] = [{"target": "X", "powers": {}, "version": -1}]
        for step in [other["step"]] + other["queue"]:
            if step and step.get("seat") == seat and "roll" in step:
                step["roll"] = 3 if step["roll"] != 3 else 4
    return other


def check_hidden_information(state: dict) -> None:
    """No view outside a secret's audience changes when that secret changes (noninterference)."""
    for viewer, hidden in ((Viewer("seat", "south"), ["north"]), (Viewer("seat", "north"), ["south"]),
                           (Viewer("spectator"), ["south", "north"])):
        seen = gb.view(state, viewer)
        assert gb.view(scrambled(state, hidden), viewer) == seen
        for entry in seen["pieces"].values():
            assert ("powers" in entry) == (entry["seat"] not in hidden)


def check_all_listed_commands(game) -> None:
    """Every listed command is accepted by decide, and deciding never changes the state."""
    before = json.dumps(game.state, sort_keys=True)
    for seat in gb.to_act(game.state):
        for command in gb.legal_commands(game.state, seat):
            gb.decide(game.state, seat, command, game.chance())
    assert json.dumps(game.state, sort_keys=True) == before


def play(config: dict, rng: random.Random, *, deep: bool):
    """One complete game; `deep` adds the costly checks after every step."""
    game = start(gb, config, server_seed=rng.randbytes(32))
    boldness = rng.uniform(0.1, 0.45)
    steps = 0
    while gb.outcome(game.state) is None:
        seat = rng.choice(gb.to_act(game.state))
        # Listed commands, and a random member of each choice (the assignments).
        options = gb.legal_commands(game.state, seat)
        options += [choice.random_command(rng) for choice in gb.legal_choices(game.state, seat)]
        assert options and Resign() in options
        game.record(gb.decide(game.state, seat, choose(game.state, seat, options, rng, boldness), game.chance()))
        check_invariants(game.state)
        if deep:
            assert json.loads(json.dumps(game.state)) == game.state
            check_all_listed_commands(game)
            check_hidden_information(game.state)
        steps += 1
        assert steps < 2000
    assert game.replayed_state() == game.state
    final = gb.view(game.state, Viewer("spectator", None, sees_all=True))
    assert all("powers" in entry for entry in final["pieces"].values())
    return game


@pytest.mark.slow
def test_random_playouts_keep_every_invariant_and_replay_to_the_same_state():
    rng = random.Random(20261122)
    reasons: Counter = Counter()
    for i in range(GAMES):
        game = play(CONFIGS[i % len(CONFIGS)], rng, deep=i % 100 == 0)
        reasons[gb.outcome(game.state)["reason"]] += 1
    print(f"\ngambit-board endings over {GAMES} games: {dict(reasons)}")
    assert reasons["captures"] + reasons["far_row"] >= 0.95 * GAMES and reasons["far_row"] > 0


def test_uniform_random_playouts_through_the_harness_keep_every_invariant():
    """The harness's own driver (uniform choice, decide-never-mutates check) on every config."""
    rng = random.Random(7)
    for config in CONFIGS:
        game = random_playout(gb, config, rng, check=lambda g: check_invariants(g.state))
        assert game.replayed_state() == game.state
