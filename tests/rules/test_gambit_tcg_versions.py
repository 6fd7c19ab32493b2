"""gambit-tcg names records by the versions the match gives them, even after a dispute moved the match on."""

from __future__ import annotations

import random

from domain.choices import random_legal_command
from domain.rulesets import gambit_tcg
from tests.support.harness import start


def test_a_type_call_names_the_right_records_after_a_dispute_was_recorded_in_between():
    calls = 0
    for seed in range(60):
        rng = random.Random(seed)
        game = start(gambit_tcg, None, server_seed=rng.randbytes(32))
        for step in range(600):
            if gambit_tcg.outcome(game.state) is not None:
                break
            if rng.random() < 0.5:
                game.base_version += 1  # a dispute: a match record the ruleset never folds
            seat = rng.choice(sorted(gambit_tcg.to_act(game.state)))
            game.act(seat, random_legal_command(gambit_tcg, game.state, seat, rng))
        by_version = {event.version: event for event in game.events}
        for event in game.events:
            call = event.public.get("bluff_call")
            if call is None:
                continue
            calls += 1
            assert by_version[call["evidence_version"]].kind == "CardSet", call
            assert by_version[call["call_version"]].kind in ("CardPlayed", "TrapActivated"), call
        if calls >= 3:
            return
    raise AssertionError(f"only {calls} type calls in 60 games")
