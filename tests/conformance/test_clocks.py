"""Clocks in every ruleset of the registry: a seat out of time suffers what its game rules (docs/clocks.md).

A game lacking `time_out` fails here: it must decide a consequence on the state as it stands,
without changing that state, and the consequence must end the seat's wait or move the game on.
Over HTTP, a timed match whose seats stop answering ends in recorded expiries and consequences,
and its export verifies with every clock recomputed, on both stores.
"""

from __future__ import annotations

import json
import random

import pytest

from domain import rulesets
from domain.ruleset import Event
from tests.hardening.play import ENDERS, join_options
from tests.support.api import auth, legal_options
from tests.support.clocks import checks, fake_time_source, per_decision, timed_match, tournament, verify_text
from tests.support.harness import random_playout

RULESET_IDS = rulesets.available()
# Seats that never answer again: the clocks alone must bring the match to its end within this many touches.
MAX_TOUCHES = 400


@pytest.fixture
def now():
    """The fake time every record and deadline check of the test reads."""
    with fake_time_source() as fake:
        yield fake


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_a_seat_out_of_time_gets_a_consequence_decided_on_the_state_as_it_stands(ruleset_id):
    ruleset = rulesets.get(ruleset_id)
    rng = random.Random(f"time-out/{ruleset_id}")
    seats = list(ruleset.seat_names(ruleset.Config()))
    checked = 0

    def check(game) -> None:
        nonlocal checked
        if ruleset.outcome(game.state) is not None:
            return
        for seat in ruleset.to_act(game.state):
            before = json.dumps(game.state, sort_keys=True)
            events = ruleset.time_out(game.state, seat, game.chance())
            assert json.dumps(game.state, sort_keys=True) == before, "time_out changed the state"
            assert events, f"{ruleset_id}: nothing happens to {seat} when its time runs out"
            after = json.loads(before)
            for offset, event in enumerate(events):
                stored = json.loads(json.dumps({"public": event.public, "secret": event.secret}))
                after = ruleset.evolve(
                    after,
                    Event(
                        event.kind, stored["public"], stored["secret"], event.audience, (), game.next_version + offset
                    ),
                )
            moved_on = seat not in ruleset.to_act(after) or ruleset.outcome(after) is not None or after != game.state
            assert moved_on, f"{ruleset_id}: {seat}'s time-out leaves the game where it was"
            checked += 1

    random_playout(ruleset, None, rng, check=check, seat_options=join_options(ruleset_id, seats, rng))
    assert checked > 0


def _touch_until_finished(client, match_id: str, now) -> int:
    """Let time pass and read the match until its clocks have ended it; returns how many reads it took."""
    for touches in range(1, MAX_TOUCHES + 1):
        now.advance(31)
        if client.get(f"/matches/{match_id}").get_json()["status"] == "finished":
            return touches
    raise AssertionError(f"the match did not end after {MAX_TOUCHES} expiries")


@pytest.mark.slow
@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_a_timed_match_whose_seats_stop_answering_ends_in_recorded_verifiable_consequences(
    client, now, tmp_path, ruleset_id
):
    tid, organizer = tournament(client)
    ruleset = rulesets.get(ruleset_id)
    rng = random.Random(f"timed/{ruleset_id}")
    seats = list(ruleset.seat_names(ruleset.Config()))
    match_id, tokens = timed_match(
        client, ruleset_id, per_decision(30), tid, organizer, options=join_options(ruleset_id, seats, rng)
    )
    for _ in range(2):  # a couple of decisions in time first
        summary = client.get(f"/matches/{match_id}").get_json()
        if summary["status"] != "active":
            break
        now.advance(29)
        seat = rng.choice(sorted(summary["to_act"]))
        body = rng.choice([b for b in legal_options(client, match_id, tokens[seat], rng) if b["type"] not in ENDERS])
        assert client.post(f"/matches/{match_id}/commands", json=body, headers=auth(tokens[seat])).status_code == 201
    summary = client.get(f"/matches/{match_id}").get_json()
    assert summary["status"] == "active", "the match ended before its clocks could"
    version = summary["version"]
    _touch_until_finished(client, match_id, now)
    events = client.get(f"/matches/{match_id}/events?after={version}&limit=500").get_json()["events"]
    assert events[0]["kind"] == "ClockExpired" and events[-1]["kind"] == "MatchFinished"
    assert len(events) > 2, "a ClockExpired without a consequence"
    key = client.get("/.well-known/gambit-signing-key").get_json()["public_key"]
    for headers in (auth(organizer), {}):
        text = client.get(f"/matches/{match_id}/export", headers=headers).get_data(as_text=True)
        code, report = verify_text(tmp_path, text, key)
        assert code == 0, report
        assert checks(report)["clock"][0] == "pass"
