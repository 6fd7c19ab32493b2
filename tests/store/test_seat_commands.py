"""`gambit seat-commands`: a player's own proof of which recorded moves are its own, on both stores.

A seat's export lists every command the record attributes to it with its signature's standing; an honest keyed
seat's are all signed by it. A move an insider recorded in its name (unsigned, or signed by the insider's key)
shows as not signed and the exit code says so. With the key the player kept, a key the export says the seat
holds, such as the organizer's re-key, proves nothing in the player's name.
"""

from __future__ import annotations

import io
import json
import random

import pytest

from service.cli import main
from service.seat_commands_cli import EXIT_NOT_SIGNED, EXIT_PROVEN, EXIT_UNPROVEN, EXIT_USAGE, run_seat_commands
from tests.store.test_verify_seat_signatures import Signed
from tests.support.api import auth
from tests.support.seat_keys import SeatKey, play_signed

SEAT = "p1"


def _every(alg):
    return lambda n: [alg] * n


def _write(tmp_path, lines: list[dict], name: str = "export.ndjson") -> str:
    path = tmp_path / name
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return str(path)


def _key_file(tmp_path, key: SeatKey, name: str = "my-key.json") -> str:
    """The key as the player kept it: what its join sent."""
    path = tmp_path / name
    path.write_text(json.dumps(key.sent))
    return str(path)


def _listing(path: str, seat: str = SEAT, public_key: str | None = None) -> tuple[int, dict]:
    out = io.StringIO()
    code = run_seat_commands(path, seat, public_key, as_json=True, out=out, err=io.StringIO())
    return code, json.loads(out.getvalue())


def _commands_of(lines: list[dict], seat: str) -> list[int]:
    return [r["version"] for r in lines[1:-1] if r.get("kind") == "CommandReceived" and r["public"]["seat"] == seat]


@pytest.fixture
def signed(settings_for, tmp_path):
    """A finished gambitz match whose seats sign every command (secret bodies: its cards are played unseen)."""
    return Signed(settings_for, tmp_path, "gambitz", _every("ed25519"), seed=5)


def test_an_honest_seat_finds_every_command_in_its_name_signed_by_it(signed, tmp_path, capsys):
    lines = signed.export_lines()
    path = _write(tmp_path, lines)
    code = main(["seat-commands", path, SEAT, "--public-key", _key_file(tmp_path, signed.keys[SEAT])])
    shown = capsys.readouterr().out
    assert code == EXIT_PROVEN, shown
    assert f"SIGNED  all {len(_commands_of(lines, SEAT))} commands attributed to {SEAT}" in shown
    assert "yours" in shown and "FAIL" not in shown
    code, listing = _listing(path)
    assert code == EXIT_PROVEN and listing["ok"]
    assert [c["version"] for c in listing["commands"]] == _commands_of(lines, SEAT)
    assert {c["signature"] for c in listing["commands"]} == {"signed"}


def test_the_json_listing_names_each_command_its_body_and_its_signature(signed, tmp_path):
    lines = signed.export_lines()
    code, listing = _listing(_write(tmp_path, lines), public_key=_key_file(tmp_path, signed.keys[SEAT]))
    assert code == EXIT_PROVEN
    assert set(listing) == {"match_id", "ruleset", "seat", "ok", "keys", "commands", "signed", "not_signed",
                            "unproven"}
    assert (listing["match_id"], listing["ruleset"], listing["seat"]) == (signed.match_id, "gambitz", SEAT)
    assert listing["keys"] == [{"version": listing["keys"][0]["version"], "kind": "SeatJoined",
                                "public_key": signed.keys[SEAT].recorded, "yours": True}]
    by_version = {r["version"]: r for r in lines[1:-1]}
    for command in listing["commands"]:
        assert set(command) == {"version", "decided_on", "type", "idempotency_key", "body", "sealed", "signature",
                                "detail"}
        record = by_version[command["version"]]
        assert command["decided_on"] == command["version"] - 1 == record["public"]["decided_on"]
        assert command["type"] == record["public"]["type"] and command["sealed"] is False
        assert command["body"] == record["public"].get("body", (record.get("secret") or {}).get("body"))
    assert listing["signed"] == len(listing["commands"]) and listing["not_signed"] == listing["unproven"] == []


@pytest.mark.parametrize("forged_with", ["no signature", "the insider's own key"])
def test_a_move_recorded_in_a_seats_name_that_it_never_sent_shows_as_not_signed(settings_for, tmp_path,
                                                                                forged_with):
    played = Signed(settings_for, tmp_path, "dragons-gambit", _every("ed25519"), seed=7, until=12)
    insider = SeatKey("ed25519")
    forged = played.record_unsent_move(
        lambda seat, body, version: None if forged_with == "no signature" else insider.sign(played.match_id,
                                                                                           version, body))
    lines = played.export_lines()
    seat = next(r for r in lines[1:-1] if r["version"] == forged)["public"]["seat"]
    path = _write(tmp_path, lines)
    code, listing = _listing(path, seat)
    assert code == EXIT_NOT_SIGNED and not listing["ok"]
    assert listing["not_signed"] == [forged]
    entry = next(c for c in listing["commands"] if c["version"] == forged)
    assert entry["signature"] == ("missing" if forged_with == "no signature" else "invalid")
    assert all(c["signature"] == "signed" for c in listing["commands"] if c["version"] != forged)
    out = io.StringIO()
    run_seat_commands(path, seat, out=out, err=io.StringIO())
    assert f"NOT SIGNED  1 of {len(listing['commands'])} commands attributed to {seat}: v{forged}" in out.getvalue()


def test_with_the_players_own_key_a_re_key_signs_nothing_in_its_name(settings_for, tmp_path):
    played = Signed(settings_for, tmp_path, "gambitz", _every("ed25519"), seed=10, until=14)
    mine, theirs = played.keys[SEAT], SeatKey("p256")
    rekeyed = played.client.post(f"/matches/{played.match_id}/seats/{SEAT}/key", headers=auth(played.organizer),
                                 json={"public_key": theirs.sent, "note": "says it lost its phone"})
    assert rekeyed.status_code == 201
    after = rekeyed.get_json()["version"]
    played.keys[SEAT] = theirs  # whoever holds the new key plays the seat from now on
    play_signed(played.client, played.match_id, played.tokens, played.keys, random.Random(10))
    path = _write(tmp_path, played.export_lines())
    # By the export's own account, every command carries the signature of the key in force ...
    code, listing = _listing(path)
    assert code == EXIT_PROVEN, listing
    # ... but the player's own key signed none of those after the re-key.
    code, listing = _listing(path, public_key=_key_file(tmp_path, mine))
    assert code == EXIT_NOT_SIGNED
    later = [c for c in listing["commands"] if c["version"] > after]
    assert later and {c["signature"] for c in later} == {"other key"}
    assert {c["signature"] for c in listing["commands"] if c["version"] < after} == {"signed"}
    assert [k["yours"] for k in listing["keys"]] == [True, False]


def test_a_key_the_export_says_the_seat_registered_is_not_the_players_own(signed, tmp_path):
    path = _write(tmp_path, signed.export_lines())
    code, listing = _listing(path, public_key=_key_file(tmp_path, SeatKey("ed25519")))
    assert code == EXIT_NOT_SIGNED
    assert [k["yours"] for k in listing["keys"]] == [False]
    assert {c["signature"] for c in listing["commands"]} == {"other key"}
    out = io.StringIO()
    run_seat_commands(path, SEAT, _key_file(tmp_path, SeatKey("ed25519")), out=out, err=io.StringIO())
    assert "NOT the key you gave" in out.getvalue()


def test_an_unkeyed_seats_commands_are_unproven_and_fail_against_a_key_it_says_it_had(settings_for, tmp_path):
    played = Signed(settings_for, tmp_path, "gambitz", lambda n: [None] * n, seed=6)
    path = _write(tmp_path, played.export_lines())
    code, listing = _listing(path)
    assert code == EXIT_UNPROVEN and listing["ok"] and listing["keys"][0]["public_key"] is None
    assert {c["signature"] for c in listing["commands"]} == {"unsigned"}
    assert listing["unproven"] == [c["version"] for c in listing["commands"]]
    code, listing = _listing(path, public_key=_key_file(tmp_path, SeatKey("ed25519")))
    assert code == EXIT_NOT_SIGNED and listing["not_signed"] == [c["version"] for c in listing["commands"]]


def test_another_seats_export_of_a_running_match_shows_its_secret_bodies_sealed(settings_for, tmp_path):
    played = Signed(settings_for, tmp_path, "gambitz", _every("ed25519"), seed=4, until=20)
    other = next(seat for seat in played.tokens if seat != SEAT)
    text = played.client.get(f"/matches/{played.match_id}/export", headers=auth(played.tokens[other]))
    path = _write(tmp_path, [json.loads(line) for line in text.get_data(as_text=True).splitlines() if line.strip()])
    code, listing = _listing(path)
    sealed = [c for c in listing["commands"] if c["sealed"]]
    assert sealed and all(c["signature"] == "sealed" and c["body"] is None for c in sealed)
    assert code == EXIT_UNPROVEN
    code, _ = _listing(path, other)
    assert code == EXIT_PROVEN, "a seat sees its own secret bodies"


@pytest.mark.parametrize("problem", ["no export", "a seat the match lacks", "a key file that is no key",
                                     "not an export"])
def test_a_usage_problem_is_one_line_and_exit_code_2(signed, tmp_path, problem):
    path, seat, key = _write(tmp_path, signed.export_lines()), SEAT, None
    if problem == "no export":
        path = str(tmp_path / "missing.ndjson")
    elif problem == "a seat the match lacks":
        seat = "p9"
    elif problem == "a key file that is no key":
        key = str(tmp_path / "key.json")
        (tmp_path / "key.json").write_text(json.dumps({"alg": "rsa", "key": "AAAA"}))
    else:
        (tmp_path / "export.ndjson").write_text("[1, 2]\n")
    err = io.StringIO()
    assert run_seat_commands(path, seat, key, out=io.StringIO(), err=err) == EXIT_USAGE
    assert err.getvalue().count("\n") == 1 and err.getvalue().startswith("gambit seat-commands: ")
