"""Seat keys over HTTP, on both stores: a seat may register an Ed25519 or P-256 key when it joins, and from then on
each of its commands needs `Gambit-Signature` over the canonical `{"match_id", "version", "command"}`; a refused
command records nothing; the organizer re-keys a seat that lost its key; a secret body's signature stays with it.
"""

from __future__ import annotations

import base64
import random

import pytest

from tests.support.api import auth, going_on, join_all, legal_options
from tests.support.leaks import endpoint_bodies
from tests.support.seat_keys import SIGNATURE, SeatKey, join_keyed, play_signed, signed_post


@pytest.fixture
def organizer(client) -> dict:
    """A tournament's organizer key and id."""
    return client.post("/tournaments", json={"name": "Signed Cup"}).get_json()


def _match(client, organizer: dict, ruleset: str = "gambitz", config: dict | None = None) -> dict:
    response = client.post("/matches", json={"ruleset": ruleset, "config": config or {"players": 3},
                                             "tournament_id": organizer["tournament_id"]},
                           headers=auth(organizer["organizer_key"]))
    assert response.status_code == 201
    return response.get_json()


def _records(client, match_id: str, headers: dict | None = None) -> list[dict]:
    return client.get(f"/matches/{match_id}/events?after=0&limit=500", headers=headers or {}).get_json()["events"]


def _to_act(client, match_id: str, tokens: dict) -> tuple[str, dict, int]:
    """A seat to act, a legal body of it and the version it would be decided on."""
    summary = client.get(f"/matches/{match_id}").get_json()
    seat = min(summary["to_act"])
    body = legal_options(client, match_id, tokens[seat], random.Random(0))[0]
    return seat, body, summary["version"]


@pytest.mark.parametrize("alg,spki", [("ed25519", False), ("ed25519", True), ("p256", False), ("p256", True)])
def test_a_join_records_its_key_in_canonical_spki_form_under_the_joins_receipt(client, organizer, alg, spki):
    match = _match(client, organizer)
    key = SeatKey(alg, spki=spki)
    joined = client.post(f"/matches/{match['match_id']}/seats", json={"name": "a", "seat": "p1", "public_key": key.sent})
    assert joined.status_code == 201
    record = _records(client, match["match_id"])[-1]
    assert record["kind"] == "SeatJoined" and record["public"]["public_key"] == key.recorded
    assert joined.get_json()["receipt"]["version"] == record["version"]


@pytest.mark.parametrize("public_key", [
    {"alg": "rsa", "key": SeatKey().sent["key"]},
    {"alg": "ed25519", "key": "not base64!"},
    {"alg": "ed25519", "key": base64.b64encode(b"\x01" * 31).decode()},
    {"alg": "p256", "key": SeatKey().sent["key"]},
    {"alg": "ed25519", "key": SeatKey("p256", spki=True).sent["key"]},
    {"alg": "p256", "key": base64.b64encode(b"\x04" + b"\x01" * 64).decode()},
    {"alg": "ed25519"},
    {"alg": "ed25519", "key": SeatKey().sent["key"], "extra": 1},
])
def test_a_join_with_a_bad_public_key_is_refused_and_takes_no_seat(client, organizer, public_key):
    match = _match(client, organizer)
    response = client.post(f"/matches/{match['match_id']}/seats", json={"name": "a", "seat": "p1",
                                                                         "public_key": public_key})
    assert response.status_code == 422 and response.get_json()["code"] == "invalid_public_key"
    assert client.get(f"/matches/{match['match_id']}").get_json()["version"] == match["version"]
    taken = client.post(f"/matches/{match['match_id']}/seats", json={"name": "a", "seat": "p1"})
    assert taken.status_code == 201


@pytest.mark.parametrize("alg", ["ed25519", "p256"])
def test_a_keyed_seats_command_needs_its_signature_and_a_refused_one_records_nothing(client, organizer, alg):
    match = _match(client, organizer)
    match_id = match["match_id"]
    keys = {seat: SeatKey(alg) for seat in ("p1", "p2", "p3")}
    tokens = join_keyed(client, match, keys)
    seat, body, version = _to_act(client, match_id, tokens)
    other = next(s for s in keys if s != seat)
    refusals = {
        "missing": ({}, 401, "signature_required"),
        "not base64": ({SIGNATURE: "%%%"}, 403, "invalid_signature"),
        "too short": ({SIGNATURE: base64.b64encode(b"\x00" * 63).decode()}, 403, "invalid_signature"),
        "another seat's key": ({SIGNATURE: keys[other].sign(match_id, version, body)}, 403, "invalid_signature"),
        "another version": ({SIGNATURE: keys[seat].sign(match_id, version - 1, body)}, 403, "invalid_signature"),
        "another match": ({SIGNATURE: keys[seat].sign("another-match", version, body)}, 403, "invalid_signature"),
        "another body": ({SIGNATURE: keys[seat].sign(match_id, version, {**body, "extra": 1})}, 403,
                         "invalid_signature"),
    }
    for name, (headers, status, code) in refusals.items():
        response = client.post(f"/matches/{match_id}/commands", json=body, headers={**auth(tokens[seat]), **headers})
        assert (response.status_code, response.get_json()["code"]) == (status, code), name
        assert client.get(f"/matches/{match_id}").get_json()["version"] == version, name
    accepted = signed_post(client, match_id, tokens[seat], keys[seat], body, version)
    assert accepted.status_code == 201
    command = accepted.get_json()["events"][0]
    assert command["kind"] == "CommandReceived" and command["public"]["decided_on"] == version


def test_a_signature_is_over_the_if_match_version_and_a_retry_answers_as_before(client, organizer):
    match = _match(client, organizer)
    match_id = match["match_id"]
    keys = {seat: SeatKey("p256") for seat in ("p1", "p2", "p3")}
    tokens = join_keyed(client, match, keys)
    seat, body, version = _to_act(client, match_id, tokens)
    headers = {**auth(tokens[seat]), "If-Match": f'"{version}"', "Idempotency-Key": "move-1",
               SIGNATURE: keys[seat].sign(match_id, version, body)}
    first = client.post(f"/matches/{match_id}/commands", json=body, headers=headers)
    again = client.post(f"/matches/{match_id}/commands", json=body, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.get_json() == first.get_json()
    stale = client.post(f"/matches/{match_id}/commands", json=body, headers={**headers, "Idempotency-Key": "move-2"})
    assert stale.status_code == 412


def test_an_unkeyed_seat_plays_unsigned_and_its_signature_is_refused(client, organizer):
    match = _match(client, organizer)
    match_id = match["match_id"]
    tokens = join_all(client, match)
    seat, body, version = _to_act(client, match_id, tokens)
    signed = signed_post(client, match_id, tokens[seat], SeatKey(), body, version)
    assert signed.status_code == 403 and signed.get_json()["code"] == "invalid_signature"
    assert signed_post(client, match_id, tokens[seat], None, body, version).status_code == 201


def test_the_organizer_re_keys_a_seat_and_only_the_new_key_signs_from_then_on(client, organizer):
    match = _match(client, organizer)
    match_id = match["match_id"]
    keys = {seat: SeatKey() for seat in ("p1", "p2", "p3")}
    tokens = join_keyed(client, match, keys)
    seat, body, _ = _to_act(client, match_id, tokens)
    fresh = SeatKey("p256")
    path = f"/matches/{match_id}/seats/{seat}/key"
    assert client.post(path, json={"public_key": fresh.sent}).status_code == 401
    assert client.post(path, json={"public_key": fresh.sent}, headers=auth(tokens[seat])).status_code == 403
    unknown = client.post(f"/matches/{match_id}/seats/p9/key", json={"public_key": fresh.sent},
                          headers=auth(organizer["organizer_key"]))
    assert unknown.status_code == 404
    bad = client.post(path, json={"public_key": {"alg": "p256", "key": "AAAA"}},
                      headers=auth(organizer["organizer_key"]))
    assert bad.status_code == 422 and bad.get_json()["code"] == "invalid_public_key"
    rekeyed = client.post(path, json={"public_key": fresh.sent, "note": "new phone"},
                          headers=auth(organizer["organizer_key"]))
    assert rekeyed.status_code == 201
    record = rekeyed.get_json()["events"][-1]
    assert record["kind"] == "SeatKeyChanged"
    assert record["public"] == {"seat": seat, "public_key": fresh.recorded, "by": "organizer", "note": "new phone"}
    version = rekeyed.get_json()["version"]
    assert signed_post(client, match_id, tokens[seat], keys[seat], body, version).status_code == 403
    assert signed_post(client, match_id, tokens[seat], fresh, body, version).status_code == 201
    export = client.get(f"/matches/{match_id}/export").get_data(as_text=True)
    assert '"SeatKeyChanged"' in export


def test_a_finished_matchs_seat_cannot_be_re_keyed(client, organizer):
    match = _match(client, organizer)
    keys = {seat: SeatKey() for seat in ("p1", "p2", "p3")}
    tokens = join_keyed(client, match, keys)
    play_signed(client, match["match_id"], tokens, keys, random.Random(4))
    response = client.post(f"/matches/{match['match_id']}/seats/p1/key", json={"public_key": SeatKey().sent},
                           headers=auth(organizer["organizer_key"]))
    assert response.status_code == 409 and response.get_json()["code"] == "rekey_refused"


def test_a_secret_commands_signature_reaches_only_its_seat_while_the_match_runs(client, organizer):
    match = _match(client, organizer)
    match_id = match["match_id"]
    keys = {seat: SeatKey() for seat in ("p1", "p2", "p3")}
    tokens = join_keyed(client, match, keys)
    rng = random.Random(2)
    sent: list[tuple[str, str]] = []  # (seat, signature) of each secret command
    while len(sent) < 3:
        summary = client.get(f"/matches/{match_id}").get_json()
        assert summary["status"] == "active"
        seat = rng.choice(sorted(summary["to_act"]))
        body = rng.choice(going_on(legal_options(client, match_id, tokens[seat], rng)))
        response = signed_post(client, match_id, tokens[seat], keys[seat], body, summary["version"])
        assert response.status_code == 201
        command = response.get_json()["events"][0]
        if body["type"] == "play":
            assert "signature" not in command["public"] and command["secret"]["signature"]
            sent.append((seat, command["secret"]["signature"]))
    version = client.get(f"/matches/{match_id}").get_json()["version"]
    for viewer in (None, *tokens):
        bodies = endpoint_bodies(client, match_id, tokens.get(viewer), version)
        for seat, signature in sent:
            if viewer == seat:
                continue
            leaked = [name for name, text in bodies.items() if signature in text]
            assert not leaked, f"{seat}'s signature reaches {viewer or 'a spectator'} via {leaked}"
