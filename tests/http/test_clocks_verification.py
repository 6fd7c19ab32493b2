"""`gambit verify` recomputes every clock: honest timed exports verify, tampered ones fail (docs/clocks.md).

The tampering is a dealer's who holds the service key: the records are edited, re-chained and
re-signed, so only the clock check can tell.
"""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from domain.clock import MAX_ADDED_SECONDS
from domain.records import chain_link, genesis
from tests.support.api import auth
from tests.support.clocks import checks, fake_time_source, first_legal, fischer, timed_match, tournament, verify_text

GAMBITZ = {"players": 2}


@pytest.fixture
def now():
    """The fake time every record and deadline check of the test reads."""
    with fake_time_source() as fake:
        yield fake


@pytest.fixture
def timed(client, now):
    """A tournament's gambitz match: two moves, a pause with added time, a resume, then p1 runs out of time."""
    tid, organizer = tournament(client)
    match_id, tokens = timed_match(client, "gambitz", fischer(60, 5), tid, organizer, config=GAMBITZ)
    for seat in ("p1", "p2"):
        now.advance(10)
        played = client.post(
            f"/matches/{match_id}/commands",
            json=first_legal(client, match_id, tokens[seat]),
            headers=auth(tokens[seat]),
        )
        assert played.status_code == 201, played.get_json()
    for wait, path, body in (
        (5, "pause", {"note": "a power cut"}),
        (100, "add-time", {"seat": "p1", "seconds": 30, "note": "for the trouble"}),
        (100, "resume", {"note": "power is back"}),
    ):
        now.advance(wait)
        adjusted = client.post(f"/matches/{match_id}/clock/{path}", json=body, headers=auth(organizer))
        assert adjusted.status_code == 201, adjusted.get_json()
    now.advance(200)
    assert client.get(f"/matches/{match_id}").get_json()["status"] == "finished"
    key = client.get("/.well-known/gambit-signing-key").get_json()["public_key"]
    return {"match_id": match_id, "organizer": organizer, "tokens": tokens, "key": key}


def _export(client, timed, headers: dict | None = None) -> list[dict]:
    text = client.get(f"/matches/{timed['match_id']}/export", headers=headers or {}).get_data(as_text=True)
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _text(lines: list[dict]) -> str:
    return "".join(json.dumps(line) + "\n" for line in lines)


def _rechain_and_resign(app, lines: list[dict]) -> list[dict]:
    """What a dealer holding the key can do after editing records: a new chain, a new signed trailer."""
    header, records = lines[0], lines[1:-1]
    previous = genesis(header["match_id"])
    for record in records:
        record["chain"] = chain_link(
            previous, record["version"], record["kind"], record["timestamp"], record["public"], record["commitment"]
        )
        previous = record["chain"]
    receipt = app.extensions["gambit"].signer.receipt(header["match_id"], records[-1]["version"], previous)
    return [header, *records, {"trailer": "gambit-receipt/1", **receipt}]


def _first(records: list[dict], kind: str) -> dict:
    return next(r for r in records if r["kind"] == kind)


def test_an_honest_timed_match_verifies_with_its_clock_recomputed(client, timed, tmp_path):
    for headers in (auth(timed["organizer"]), {}):
        code, report = verify_text(tmp_path, _text(_export(client, timed, headers)), timed["key"])
        assert code == 0, report
        status, detail = checks(report)["clock"]
        assert status == "pass"
        assert "1 expiries" in detail and "3 adjustments" in detail


def test_a_running_timed_match_verifies_for_the_organizer_and_skips_the_clock_for_a_spectator(client, now, tmp_path):
    tid, organizer = tournament(client)
    match_id, tokens = timed_match(client, "gambitz", fischer(60, 5), tid, organizer, config=GAMBITZ)
    now.advance(30)
    client.post(
        f"/matches/{match_id}/commands", json=first_legal(client, match_id, tokens["p1"]), headers=auth(tokens["p1"])
    )
    key = client.get("/.well-known/gambit-signing-key").get_json()["public_key"]
    organizer_text = client.get(f"/matches/{match_id}/export", headers=auth(organizer)).get_data(as_text=True)
    code, report = verify_text(tmp_path, organizer_text, key, "organizer")
    assert code == 0 and checks(report)["clock"][0] == "pass"
    code, report = verify_text(tmp_path, client.get(f"/matches/{match_id}/export").get_data(as_text=True), key)
    assert code == 0 and checks(report)["clock"][0] == "skip"


def test_an_untimed_export_has_no_clock_check(client, tmp_path):
    created = client.post("/matches", json={"ruleset": "gambitz", "config": GAMBITZ}).get_json()
    key = client.get("/.well-known/gambit-signing-key").get_json()["public_key"]
    code, report = verify_text(
        tmp_path, client.get(f"/matches/{created['match_id']}/export").get_data(as_text=True), key
    )
    assert code == 0 and "clock" not in checks(report)


def _tampered(app, client, timed, tmp_path, edit) -> tuple[int, dict]:
    lines = _export(client, timed, auth(timed["organizer"]))
    edit(lines[1:-1])
    return verify_text(tmp_path, _text(_rechain_and_resign(app, lines)), timed["key"], "tampered")


def test_a_command_accepted_after_its_deadline_fails_the_clock_check(app, client, timed, tmp_path):
    def late(records):
        # p1's first move, restamped 2 minutes later than it was taken (its deadline was 60 s after its turn began).
        played = _first(records, "CardPlayed")
        for record in records[played["version"] - 1 : played["version"] + 3]:
            record["timestamp"] = record["timestamp"].replace("10:00:10", "10:02:10")

    code, report = _tampered(app, client, timed, tmp_path, late)
    assert code == 1
    status, detail = checks(report)["clock"]
    assert status == "fail" and "after p1's deadline" in detail and "accepted after a running deadline" in detail


def test_a_clock_expired_before_its_deadline_fails_the_clock_check(app, client, timed, tmp_path):
    def early(records):
        expired = _first(records, "ClockExpired")
        expired["timestamp"] = expired["public"]["deadline"]  # at the deadline is still on time

    code, report = _tampered(app, client, timed, tmp_path, early)
    status, detail = checks(report)["clock"]
    assert code == 1 and status == "fail" and "before p1's deadline" in detail


def test_a_clock_expired_naming_another_deadline_fails_the_clock_check(app, client, timed, tmp_path):
    def moved(records):
        _first(records, "ClockExpired")["public"]["deadline"] = "2026-11-22T10:00:30+00:00"

    code, report = _tampered(app, client, timed, tmp_path, moved)
    status, detail = checks(report)["clock"]
    assert code == 1 and status == "fail" and "names the deadline" in detail


def test_an_adjustment_that_is_not_the_organizers_fails_the_clock_check(app, client, timed, tmp_path):
    def by_a_seat(records):
        _first(records, "TimeAdded")["public"]["by"] = "p1"

    code, report = _tampered(app, client, timed, tmp_path, by_a_seat)
    status, detail = checks(report)["clock"]
    assert code == 1 and status == "fail" and "not an organizer's record" in detail


def test_a_consequence_other_than_the_rulesets_fails_the_clock_check(app, client, timed, tmp_path):
    def other_seat(records):
        _first(records, "SeatTimedOut")["public"]["seat"] = "p2"

    code, report = _tampered(app, client, timed, tmp_path, other_seat)
    status, detail = checks(report)["clock"]
    assert code == 1 and status == "fail" and "not the consequence the rules give" in detail


def test_a_clock_record_in_an_untimed_match_fails_the_clock_check(app, client, tmp_path):
    tid, organizer = tournament(client)
    created = client.post(
        "/matches", json={"ruleset": "gambitz", "config": GAMBITZ, "tournament_id": tid}, headers=auth(organizer)
    ).get_json()
    key = client.get("/.well-known/gambit-signing-key").get_json()["public_key"]
    text = client.get(f"/matches/{created['match_id']}/export", headers=auth(organizer)).get_data(as_text=True)
    lines = [json.loads(line) for line in text.splitlines()]
    forged = {
        "version": 2,
        "kind": "ClockPaused",
        "timestamp": lines[1]["timestamp"],
        "public": {"by": "organizer", "note": "forged"},
        "commitment": None,
        "audience": None,
        "chain": "",
    }
    lines = _rechain_and_resign(app, [dict(lines[0], version=2), lines[1], forged, lines[-1]])
    code, report = verify_text(tmp_path, _text(lines), key)
    status, detail = checks(report)["clock"]
    assert code == 1 and status == "fail" and "without a clock" in detail


# --- records the service could never write (issue 28 item 6) ------------------------------------


@pytest.mark.parametrize("seconds", [0, -30, MAX_ADDED_SECONDS + 1, 30.0, True, "30", None])
def test_a_time_added_out_of_the_bound_the_service_keeps_fails_the_clock_check(app, client, timed, tmp_path, seconds):
    def out_of_bounds(records):
        _first(records, "TimeAdded")["public"]["seconds"] = seconds

    code, report = _tampered(app, client, timed, tmp_path, out_of_bounds)
    status, detail = checks(report)["clock"]
    assert code == 1 and status == "fail" and "a TimeAdded of" in detail and str(MAX_ADDED_SECONDS) in detail


def test_the_most_time_the_service_adds_at_once_is_within_the_bound(app, client, timed, tmp_path):
    def the_bound(records):
        _first(records, "TimeAdded")["public"]["seconds"] = MAX_ADDED_SECONDS

    _code, report = _tampered(app, client, timed, tmp_path, the_bound)
    # A week more for p1: its ClockExpired then names the wrong deadline, which is the only finding.
    assert "but p1's clock gives 2026-11-29" in checks(report)["clock"][1], report


@pytest.mark.parametrize(
    "edit, finding",
    [
        (lambda records: _first(records, "TimeAdded")["public"].update(seat="p9"), "not a seat of the match"),
        (lambda records: _first(records, "TimeAdded")["public"].update(note="x" * 2001), "note"),
        (lambda records: _first(records, "ClockResumed").update(kind="ClockPaused"), "paused already"),
        (lambda records: _first(records, "ClockPaused").update(kind="ClockResumed"), "not paused"),
        (lambda records: _first(records, "ClockPaused")["public"].update(dispute=1), "not one filed"),
    ],
    ids=["time-for-no-seat", "long-note", "pause-while-paused", "resume-while-running", "unfiled-dispute"],
)
def test_a_clock_adjustment_the_service_refuses_fails_the_clock_check(app, client, timed, tmp_path, edit, finding):
    code, report = _tampered(app, client, timed, tmp_path, edit)
    status, detail = checks(report)["clock"]
    assert code == 1 and status == "fail" and finding in detail, detail


def test_record_times_that_go_backwards_fail_the_timestamps_check(app, client, timed, tmp_path):
    def backwards(records):
        paused = _first(records, "ClockPaused")
        paused["timestamp"] = records[0]["timestamp"]

    code, report = _tampered(app, client, timed, tmp_path, backwards)
    status, detail = checks(report)["timestamps"]
    assert code == 1 and status == "fail" and "before the record before it" in detail


def test_a_host_whose_clock_is_behind_never_stamps_a_record_before_the_last(client, now, tmp_path):
    tid, organizer = tournament(client)
    match_id, tokens = timed_match(client, "gambitz", fischer(60, 5), tid, organizer, config=GAMBITZ)
    now.advance(10)
    first = client.post(
        f"/matches/{match_id}/commands", json=first_legal(client, match_id, tokens["p1"]), headers=auth(tokens["p1"])
    )
    assert first.status_code == 201
    now.advance(-8)  # the next write lands on a host whose clock is 8 s behind the first one's
    second = client.post(
        f"/matches/{match_id}/commands", json=first_legal(client, match_id, tokens["p2"]), headers=auth(tokens["p2"])
    )
    assert second.status_code == 201, second.get_json()
    records = _export(client, {"match_id": match_id}, auth(organizer))[1:-1]
    times = [datetime.fromisoformat(r["timestamp"]) for r in records]
    assert times == sorted(times)
    assert times[-1] == datetime.fromisoformat(first.get_json()["events"][-1]["timestamp"])
    key = client.get("/.well-known/gambit-signing-key").get_json()["public_key"]
    text = client.get(f"/matches/{match_id}/export", headers=auth(organizer)).get_data(as_text=True)
    code, report = verify_text(tmp_path, text, key)
    assert code == 0 and checks(report)["timestamps"][0] == "pass" and checks(report)["clock"][0] == "pass", report
    # p2's clock ran from the first move's time: 8 s behind it is no time spent, never time gained.
    clock = client.get(f"/matches/{match_id}/clock").get_json()["clock"]
    assert clock["seats"]["p2"]["remaining_ms"] == 65_000, clock


@pytest.mark.parametrize(
    "edit, finding",
    [
        (lambda records: _first(records, "SeatJoined")["public"].update(client_seed="AB"), "client seed"),
        (lambda records: _first(records, "SeatJoined")["public"].update(client_seed="ab" * 65), "client seed"),
        (lambda records: _first(records, "SeatJoined")["public"].update(name=""), "name"),
        (lambda records: _first(records, "SeatJoined")["public"].update(name="n" * 65), "name"),
    ],
    ids=["upper-case-seed", "long-seed", "empty-name", "long-name"],
)
def test_a_join_the_service_refuses_fails_the_bounds_check(app, client, timed, tmp_path, edit, finding):
    code, report = _tampered(app, client, timed, tmp_path, edit)
    status, detail = checks(report)["bounds"]
    assert code == 1 and status == "fail" and finding in detail, detail


@pytest.mark.parametrize(
    "options",
    [
        {"time_control": {"kind": "fischer", "initial_s": 0, "increment_s": 5}},
        {"time_control": {"kind": "fischer", "initial_s": 60, "increment_s": 5, "bonus": 1}},
        {"spectator_delay": -1},
        {"spectator_delay": 2.0},
    ],
    ids=["no-initial-time", "unknown-field", "negative-delay", "float-delay"],
)
def test_match_options_the_service_refuses_fail_the_bounds_check(app, client, tmp_path, options):
    created = client.post("/matches", json={"ruleset": "gambitz", "config": GAMBITZ}).get_json()
    text = client.get(f"/matches/{created['match_id']}/export").get_data(as_text=True)
    lines = [json.loads(line) for line in text.splitlines()]
    config = {**lines[0]["config"], **options}
    lines[0]["config"] = lines[1]["public"]["config"] = config
    key = client.get("/.well-known/gambit-signing-key").get_json()["public_key"]
    code, report = verify_text(tmp_path, _text(_rechain_and_resign(app, lines)), key)
    status, detail = checks(report)["bounds"]
    assert code == 1 and status == "fail" and "match options" in detail, detail
