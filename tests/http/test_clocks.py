"""Timed matches over HTTP, on both stores, with a fake time source (docs/clocks.md).

Each time control, simultaneous clocks, expiries enforced by any touch, late commands refused,
and the organizer's pause, resume and added time.
"""

from __future__ import annotations

import random

import pytest

from tests.support.api import auth, create_match, join_all, legal_options
from tests.support.clocks import (
    fake_time_source,
    first_legal,
    fischer,
    kinds_after,
    per_decision,
    timed_match,
    tournament,
)

GAMBITZ = {"players": 2}


@pytest.fixture
def now():
    """The fake time every record and deadline check of the test reads."""
    with fake_time_source() as fake:
        yield fake


def _play(client, match_id: str, tokens: dict) -> dict:
    """The seat waited for posts its first legal command; returns the response body."""
    seat = client.get(f"/matches/{match_id}").get_json()["to_act"][0]
    response = client.post(
        f"/matches/{match_id}/commands", json=first_legal(client, match_id, tokens[seat]), headers=auth(tokens[seat])
    )
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def _clock(client, match_id: str) -> dict:
    return client.get(f"/matches/{match_id}/view").get_json()["clock"]


def test_an_untimed_match_has_no_clock_and_never_expires(client, now):
    match = create_match(client, "gambitz", GAMBITZ)
    join_all(client, match)
    now.advance(10 * 24 * 3600)
    view = client.get(f"/matches/{match['match_id']}/view").get_json()
    assert view["clock"] is None and view["status"] == "active"
    assert client.get(f"/matches/{match['match_id']}").get_json()["clock"] is None
    assert "ClockExpired" not in kinds_after(client, match["match_id"], 0)


def test_a_fischer_clock_runs_for_the_seat_waited_for_and_earns_the_increment_when_the_wait_ends(client, now):
    match_id, tokens = timed_match(client, "gambitz", fischer(60, 5), config=GAMBITZ)
    clock = _clock(client, match_id)
    assert clock["time_control"] == fischer(60, 5)
    assert clock["seats"]["p1"] == {"remaining_ms": 60_000, "running": True, "deadline": "2026-11-22T10:01:00+00:00"}
    assert clock["seats"]["p2"]["running"] is False and clock["deadline"] == "2026-11-22T10:01:00+00:00"
    now.advance(10)
    _play(client, match_id, tokens)
    clock = _clock(client, match_id)
    assert clock["seats"]["p1"] == {"remaining_ms": 55_000, "running": False, "deadline": None}  # 60 - 10 + 5
    assert clock["seats"]["p2"]["deadline"] == "2026-11-22T10:01:10+00:00"
    now.advance(30)
    _play(client, match_id, tokens)
    clock = _clock(client, match_id)
    assert clock["seats"]["p2"]["remaining_ms"] == 35_000  # 60 - 30 + 5
    assert clock["seats"]["p1"]["deadline"] == "2026-11-22T10:01:35+00:00"  # 10:00:40 + 55 s


def test_a_per_decision_timer_starts_afresh_at_every_decision(client, now):
    match_id, tokens = timed_match(client, "gambitz", per_decision(30), config=GAMBITZ)
    for _ in range(4):
        now.advance(29)
        _play(client, match_id, tokens)
        clock = _clock(client, match_id)
        running = [seat for seat, c in clock["seats"].items() if c["running"]]
        assert len(running) == 1 and clock["seats"][running[0]]["remaining_ms"] == 30_000
    assert "ClockExpired" not in kinds_after(client, match_id, 0)


def test_a_read_after_the_deadline_records_one_expiry_and_its_consequence_first(client, now):
    match_id, _tokens = timed_match(client, "gambitz", fischer(60), config=GAMBITZ)
    version = client.get(f"/matches/{match_id}").get_json()["version"]
    now.advance(60)
    assert client.get(f"/matches/{match_id}").get_json()["version"] == version  # at the deadline: still on time
    now.advance(0.001)
    summary = client.get(f"/matches/{match_id}").get_json()
    assert summary["status"] == "finished"
    assert summary["outcome"]["forfeited"] == "p1" and summary["outcome"]["winners"] == ["p2"]
    assert kinds_after(client, match_id, version) == ["ClockExpired", "SeatTimedOut", "MatchFinished"]
    expiry = client.get(f"/matches/{match_id}/events?after={version}&limit=1").get_json()["events"][0]
    assert expiry["public"] == {"seat": "p1", "deadline": "2026-11-22T10:01:00+00:00"}
    assert expiry["timestamp"] == now.iso()
    now.advance(3600)
    client.get(f"/matches/{match_id}/view")
    assert kinds_after(client, match_id, version).count("ClockExpired") == 1


def test_a_command_at_its_deadline_is_taken(client, now):
    match_id, tokens = timed_match(client, "gambitz", fischer(60), config=GAMBITZ)
    now.advance(60)
    written = _play(client, match_id, tokens)
    assert written["events"][0]["timestamp"] == now.iso()


def test_a_late_command_is_refused_with_clock_expired_and_only_the_expiry_is_recorded(client, now):
    match_id, tokens = timed_match(client, "gambitz", fischer(60), config=GAMBITZ)
    version = client.get(f"/matches/{match_id}").get_json()["version"]
    body = first_legal(client, match_id, tokens["p1"])
    now.advance(61)
    response = client.post(f"/matches/{match_id}/commands", json=body, headers=auth(tokens["p1"]))
    assert response.status_code == 409
    assert response.mimetype == "application/problem+json"
    problem = response.get_json()
    assert problem["code"] == "clock_expired"
    assert problem["seat"] == "p1" and problem["deadline"] == "2026-11-22T10:01:00+00:00"
    assert kinds_after(client, match_id, version) == ["ClockExpired", "SeatTimedOut", "MatchFinished"]


def test_simultaneous_clocks_each_run_until_their_own_seat_answers(client, now):
    # Both gambit-board seats assign their powers at once: each clock runs on its own.
    match_id, tokens = timed_match(client, "gambit-board", fischer(60, 2))
    clock = _clock(client, match_id)
    assert [c["running"] for c in clock["seats"].values()] == [True, True]
    now.advance(20)
    seat, other = list(clock["seats"])
    body = next(b for b in legal_options(client, match_id, tokens[seat], random.Random(1)) if b["type"] != "resign")
    response = client.post(f"/matches/{match_id}/commands", json=body, headers=auth(tokens[seat]))
    assert response.status_code == 201, response.get_json()
    clock = _clock(client, match_id)
    assert clock["seats"][seat] == {"remaining_ms": 42_000, "running": False, "deadline": None}  # 60 - 20 + 2
    assert clock["seats"][other] == {"remaining_ms": 40_000, "running": True, "deadline": "2026-11-22T10:01:00+00:00"}


def test_simultaneous_clocks_run_together_and_the_first_to_run_out_resigns(client, now):
    match_id, _ = timed_match(client, "gambit-board", fischer(60))
    version = client.get(f"/matches/{match_id}").get_json()["version"]
    now.advance(61)
    summary = client.get(f"/matches/{match_id}").get_json()
    # Both deadlines passed at once: the first seat in seat order expires first, and its resignation ends the match.
    assert summary["status"] == "finished" and summary["outcome"]["reason"] == "resignation"
    assert kinds_after(client, match_id, version) == ["ClockExpired", "Resigned", "MatchFinished"]


def test_the_organizer_pauses_resumes_and_adds_time_each_a_record_with_a_note(client, now):
    tid, organizer = tournament(client)
    match_id, tokens = timed_match(client, "gambitz", fischer(60), tid, organizer, config=GAMBITZ)
    now.advance(20)
    paused = client.post(f"/matches/{match_id}/clock/pause", json={"note": "a power cut"}, headers=auth(organizer))
    assert paused.status_code == 201, paused.get_json()
    assert paused.get_json()["events"][0]["public"] == {"by": "organizer", "note": "a power cut"}
    assert _clock(client, match_id)["paused"] is True
    now.advance(3600)
    assert _clock(client, match_id)["seats"]["p1"] == {"remaining_ms": 40_000, "running": False, "deadline": None}
    added = client.post(
        f"/matches/{match_id}/clock/add-time",
        json={"seat": "p1", "seconds": 15, "note": "for the trouble"},
        headers=auth(organizer),
    )
    assert added.status_code == 201 and added.get_json()["events"][0]["kind"] == "TimeAdded"
    resumed = client.post(f"/matches/{match_id}/clock/resume", json={"note": "power is back"}, headers=auth(organizer))
    assert resumed.status_code == 201
    clock = _clock(client, match_id)
    assert clock["paused"] is False and clock["seats"]["p1"]["remaining_ms"] == 55_000
    now.advance(55)
    _play(client, match_id, tokens)
    assert "ClockExpired" not in kinds_after(client, match_id, 0)


def test_a_pause_may_name_the_dispute_that_prompted_it(client, now):
    tid, organizer = tournament(client)
    match_id, _tokens = timed_match(client, "gambitz", fischer(60), tid, organizer, config=GAMBITZ)
    unknown = client.post(f"/matches/{match_id}/clock/pause", json={"note": "n", "dispute": 7}, headers=auth(organizer))
    assert unknown.status_code == 422 and unknown.get_json()["code"] == "dispute_rejected"
    assert "ClockPaused" not in kinds_after(client, match_id, 0)


def test_only_the_organizer_adjusts_a_clock_and_a_refused_adjustment_changes_nothing(client, now):
    tid, organizer = tournament(client)
    match_id, tokens = timed_match(client, "gambitz", fischer(60), tid, organizer, config=GAMBITZ)
    version = client.get(f"/matches/{match_id}").get_json()["version"]
    path = f"/matches/{match_id}/clock/pause"
    assert client.post(path, json={"note": "x"}).get_json()["code"] == "credentials_required"
    assert client.post(path, json={"note": "x"}, headers=auth(tokens["p1"])).status_code == 403
    assert client.post(path, json={"note": "x"}, headers=auth("not-a-key")).status_code == 403
    resume = client.post(f"/matches/{match_id}/clock/resume", json={}, headers=auth(organizer))
    assert resume.status_code == 409 and resume.get_json()["rule"] == "clock_not_paused"
    for body, field in (({"seat": "p9", "seconds": 5}, "unknown_seat"), ({"seat": "p1", "seconds": 0}, "seconds")):
        refused = client.post(f"/matches/{match_id}/clock/add-time", json=body, headers=auth(organizer))
        assert refused.status_code == 422, refused.get_json()
        assert refused.mimetype == "application/problem+json"
        assert field in str(refused.get_json())
    assert client.get(f"/matches/{match_id}").get_json()["version"] == version


def test_adjusting_a_match_without_a_clock_or_an_organizer_is_refused(client, now):
    tid, organizer = tournament(client)
    untimed = client.post(
        "/matches", json={"ruleset": "gambitz", "config": GAMBITZ, "tournament_id": tid}, headers=auth(organizer)
    ).get_json()
    refused = client.post(f"/matches/{untimed['match_id']}/clock/pause", json={}, headers=auth(organizer))
    assert refused.status_code == 422 and refused.get_json()["code"] == "untimed_match"
    match_id, tokens = timed_match(client, "gambitz", fischer(60), config=GAMBITZ)
    alone = client.post(f"/matches/{match_id}/clock/pause", json={}, headers=auth(tokens["p1"]))
    assert alone.status_code == 403 and alone.get_json()["code"] == "not_organizer"


def test_the_view_at_a_version_shows_the_clock_as_of_that_version(client, now):
    match_id, tokens = timed_match(client, "gambitz", fischer(60, 5), config=GAMBITZ)
    started = client.get(f"/matches/{match_id}").get_json()["version"]
    now.advance(10)
    _play(client, match_id, tokens)
    then = client.get(f"/matches/{match_id}/view?at={started}").get_json()["clock"]
    assert then["as_of"] == "2026-11-22T10:00:00+00:00" and then["seats"]["p1"]["remaining_ms"] == 60_000
    later = client.get(f"/matches/{match_id}/view").get_json()["clock"]
    assert later["seats"]["p1"]["remaining_ms"] == 55_000
    frames = client.get(f"/matches/{match_id}/replay?from={started}").get_json()["frames"]
    assert frames[0]["view"]["clock"] == then and frames[-1]["view"]["clock"] == later


def test_the_clock_resource_is_public_and_the_same_for_every_caller(client, now):
    tid, organizer = tournament(client)
    match_id, tokens = timed_match(client, "gambitz", fischer(60), tid, organizer, config=GAMBITZ)
    bodies = [
        client.get(f"/matches/{match_id}/clock", headers=headers).get_json()
        for headers in ({}, auth(tokens["p1"]), auth(tokens["p2"]), auth(organizer))
    ]
    assert all(body == bodies[0] for body in bodies)
    assert bodies[0]["clock"] == _clock(client, match_id)
    assert client.get("/matches/no-such-match/clock").status_code == 404


def test_a_late_command_is_refused_even_when_the_seat_is_waited_for_again_after_its_time_out(client, now):
    # In gattai-conflict a seat out of time has its awaited decision taken for it and may be waited for
    # again at once: the command it sent for the decision it missed must not count as the next one.
    match_id, tokens = timed_match(client, "gattai-conflict", per_decision(30), config={"mode": "throwdown"})
    summary = client.get(f"/matches/{match_id}").get_json()
    seat = summary["to_act"][0]
    body = first_legal(client, match_id, tokens[seat])
    now.advance(31)
    expired = client.get(f"/matches/{match_id}").get_json()  # a read records the expiries first
    assert expired["status"] == "active" and kinds_after(client, match_id, summary["version"])[0] == "ClockExpired"
    late = client.post(f"/matches/{match_id}/commands", json=body, headers=auth(tokens[seat]))
    assert late.status_code == 409 and late.get_json()["code"] == "clock_expired", late.get_json()
    assert client.get(f"/matches/{match_id}").get_json()["version"] == expired["version"]
