"""A dispute may pause a timed match's clocks, and its ruling resume them, each in the same write:
only the organizer says so, and a refused request records nothing."""

from __future__ import annotations

import random

import pytest

from tests.support.api import auth, legal_options
from tests.support.clocks import fake_time_source, fischer, kinds_after, timed_match, tournament


@pytest.fixture
def now():
    """The fake time every record and deadline check of the test reads."""
    with fake_time_source() as fake:
        yield fake


def _ruled_call(client, match_id: str, tokens: dict) -> int:
    """Play gambit-board (time standing still) until a bluff call is ruled; returns the ruling's version."""
    rng = random.Random(3)
    for _ in range(300):
        seat = client.get(f"/matches/{match_id}", headers=auth(tokens["south"])).get_json()["to_act"][0]
        options = legal_options(client, match_id, tokens[seat], rng)
        calls = [o for o in options if o["type"] == "call_bluff"]
        body = rng.choice(calls or [o for o in options if o["type"] != "resign"])
        written = client.post(f"/matches/{match_id}/commands", json=body, headers=auth(tokens[seat])).get_json()
        ruling = next((e["version"] for e in written["events"] if "bluff_call" in e["public"]), None)
        if ruling is not None:
            return ruling
    raise AssertionError("no bluff call was ruled")


def test_the_organizer_files_a_dispute_that_pauses_the_clock_and_rules_it_resuming_the_clock(client, now):
    tid, organizer = tournament(client)
    match_id, tokens = timed_match(client, "gambit-board", fischer(600, 5), tid, organizer)
    ruling = _ruled_call(client, match_id, tokens)
    filed = client.post(
        f"/matches/{match_id}/disputes",
        json={"call_version": ruling, "reason": "recount", "pause_clock": True},
        headers=auth(organizer),
    )
    assert filed.status_code == 201, filed.get_json()
    events = filed.get_json()["events"]
    assert [e["kind"] for e in events] == ["DisputeFiled", "ClockPaused"]
    assert events[1]["public"]["dispute"] == events[0]["public"]["dispute"]
    waiting = client.get(f"/matches/{match_id}/view").get_json()["clock"]
    now.advance(3600)
    clock = client.get(f"/matches/{match_id}/view").get_json()["clock"]
    assert clock["paused"] is True and clock["seats"] == waiting["seats"]
    ruled = client.post(
        f"/matches/{match_id}/disputes/1/ruling",
        json={"decision": "upheld", "note": "the verdict stands", "resume_clock": True},
        headers=auth(organizer),
    )
    assert ruled.status_code == 201, ruled.get_json()
    assert [e["kind"] for e in ruled.get_json()["events"]] == ["DisputeRuled", "ClockResumed"]
    assert client.get(f"/matches/{match_id}/view").get_json()["clock"]["paused"] is False


def test_a_seat_may_not_pause_the_clock_with_its_dispute_and_nothing_is_recorded(client, now):
    tid, organizer = tournament(client)
    match_id, tokens = timed_match(client, "gambit-board", fischer(600), tid, organizer)
    ruling = _ruled_call(client, match_id, tokens)
    before = client.get(f"/matches/{match_id}").get_json()["version"]
    refused = client.post(
        f"/matches/{match_id}/disputes",
        json={"call_version": ruling, "reason": "recount", "pause_clock": True},
        headers=auth(tokens["north"]),
    )
    assert refused.status_code == 403 and refused.get_json()["code"] == "not_organizer"
    assert kinds_after(client, match_id, before) == []


def test_resuming_a_clock_that_is_not_paused_refuses_the_whole_ruling(client, now):
    tid, organizer = tournament(client)
    match_id, tokens = timed_match(client, "gambit-board", fischer(600), tid, organizer)
    ruling = _ruled_call(client, match_id, tokens)
    filed = client.post(
        f"/matches/{match_id}/disputes",
        json={"call_version": ruling, "reason": "recount"},
        headers=auth(tokens["north"]),
    )
    assert filed.status_code == 201
    before = client.get(f"/matches/{match_id}").get_json()["version"]
    refused = client.post(
        f"/matches/{match_id}/disputes/1/ruling",
        json={"decision": "upheld", "resume_clock": True},
        headers=auth(organizer),
    )
    assert refused.status_code == 409 and refused.get_json()["code"] == "clock_adjustment_refused"
    assert kinds_after(client, match_id, before) == []
