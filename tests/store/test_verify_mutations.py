"""Property: one mutated field anywhere in an honest, finished export always fails `gambit verify`.

For every ruleset, one finished match (played over HTTP, choosing bluff calls where offered, every
seat signing with an Ed25519 or P-256 key, gambit-tcg's seats joining with deck choices) is exported in the organizer's form, then 200 times a
random field of a random line is changed to a different value, deleted, or given a new sibling, and
the result is verified with the service key (and the seats' keys, as `gambit verify` checks them). Every mutation must give FAILED, and none may raise.

Not mutated: the header's `exported_at` and `viewer` (they say when and for whom the export was
made, not what happened), and the seats inside an `audience` list (the record format keeps
`audience` outside the chain as metadata; whether a record has one is still checked).

Random fields seldom land on the few records that carry seat keys and signatures, so a second test mutates
every field of them, each way: a keyed seat's commands (public and secret bodies, their signatures), the
keys of `SeatJoined`, and a `SeatKeyChanged` (a seat re-keyed by the organizer mid-match). Then again as
the service's key holder, re-committing, re-chaining and re-signing each one: every change to what a seat
signs or is known by (a command's seat, type, version decided on, body and signature; a seat's key) must
still fail. (A command's Idempotency-Key, a re-key's note and a seat's name are the service's and the
organizer's word, which no seat signs: a key holder can change them, see docs/verification.md section 11.)
"""

from __future__ import annotations

import json
import random

import pytest

from domain import rulesets
from domain.rulesets.gambit_tcg.cards import DECKS
from domain.verification import FAILED, verify_export
from domain.verification_split import verify_export_split
from service.app import create_app
from service.receipt_signatures import signed_by
from service.seat_signatures import seat_signature_holds
from service.settings import Settings
from service.signing import Signer
from tests.store.test_verify_tampering import rechain_and_resign, recommit
from tests.support.api import auth
from tests.support.seat_keys import SeatKey, join_keyed, play_signed

MUTATIONS_PER_RULESET = 200
# Every registered ruleset is mutated (a new game gets this test for free, with its defaults);
# these only keep the matches short.
SHORTER = {
    "gambitz": {"players": 3},
    "dragons-gambit": {"players": 3, "target_score": 40},
    "gattai-conflict": {"mode": "gambit"},
}
# Join options are recorded in the joins (a secret for each seat), so they are mutated too.
JOIN_OPTIONS = {"gambit-tcg": {"p1": {"deck_list": DECKS["dawn"][:15] + DECKS["dusk"][:15]}, "p2": {"deck": "dawn"}}}
# The seats' signatures are checked as `gambit verify` checks them.
SEATS = {"check_seat_signature": seat_signature_holds}
UNBOUND = {("header", "exported_at"), ("header", "viewer")}


def _finished_export(tmp_path, ruleset: str, rekey_at: int | None = None) -> tuple[list[dict], str]:
    """A finished, keyed match's organizer export and the service key; with `rekey_at`, the organizer re-keys the
    first seat once the match reaches that version."""
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'store.sqlite3'}", data_dir=str(tmp_path))
    app = create_app(settings)
    client = app.test_client()
    tournament = client.post("/tournaments", json={"name": "t"}).get_json()
    match = client.post("/matches", json={"ruleset": ruleset, "config": SHORTER.get(ruleset, {}),
                                          "tournament_id": tournament["tournament_id"]},
                        headers=auth(tournament["organizer_key"])).get_json()
    # Seats alternate Ed25519 and P-256 keys, so the keys and signatures are mutated too.
    keys = {s["seat"]: SeatKey(("ed25519", "p256")[i % 2]) for i, s in enumerate(match["seats"])}
    tokens = join_keyed(client, match, keys, JOIN_OPTIONS.get(ruleset))
    calls = lambda body: "call" in body["type"] or "challenge" in body["type"]
    if rekey_at is not None:
        play_signed(client, match["match_id"], tokens, keys, random.Random(1), until=rekey_at, prefer=calls)
        seat = match["seats"][0]["seat"]
        keys[seat] = SeatKey("p256")
        rekeyed = client.post(f"/matches/{match['match_id']}/seats/{seat}/key",
                              json={"public_key": keys[seat].sent, "note": "a new phone"},
                              headers=auth(tournament["organizer_key"]))
        assert rekeyed.status_code == 201, rekeyed.get_json()
    play_signed(client, match["match_id"], tokens, keys, random.Random(1), prefer=calls)
    text = client.get(f"/matches/{match['match_id']}/export",
                      headers=auth(tournament["organizer_key"])).get_data(as_text=True)
    key = client.get("/.well-known/gambit-signing-key").get_json()["public_key"]
    app.extensions["gambit"].close()
    return [json.loads(line) for line in text.splitlines()], key


def _paths(value, prefix=()):
    """Every (container path, key) of a JSON value, leaves and containers alike."""
    if isinstance(value, dict):
        for key, inner in value.items():
            yield prefix, key
            yield from _paths(inner, prefix + (key,))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield prefix, index
            yield from _paths(inner, prefix + (index,))


def _other(value, rng: random.Random):
    """A different JSON value."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + rng.choice([1, -1, 7])
    if isinstance(value, str):
        return value[:-1] + ("0" if value[-1:] != "0" else "1") if value else "x"
    if value is None:
        return rng.choice([0, "", {}])
    if isinstance(value, list):
        return value[1:] if value else [0]
    return {**value, "mutated": True} if value else {"mutated": True}


def _mutate(lines: list[dict], rng: random.Random) -> tuple[list[dict], str]:
    while True:
        changed = json.loads(json.dumps(lines))
        index = rng.randrange(len(changed))
        line = changed[index]
        where, key = rng.choice(list(_paths(line)))
        if index == 0 and not where and key in {name for _, name in UNBOUND}:
            continue
        if "audience" in where:
            continue
        container = line
        for step in where:
            container = container[step]
        action = rng.choice(["replace", "replace", "delete", "sibling"])
        if key == "audience" and action == "replace" and isinstance(container[key], list):
            continue  # another list of seats: metadata outside the chain (see the module docstring)
        if action == "delete" and isinstance(container, dict):
            del container[key]
        elif action == "sibling" and isinstance(container, dict):
            container[f"{key}_extra"] = 1
        else:
            container[key] = _other(container[key], rng)
        if changed != lines:
            return changed, f"line {index}: {action} {'/'.join(map(str, where + (key,)))}"


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", rulesets.available())
def test_every_single_field_mutation_of_a_finished_export_fails_verification(tmp_path, ruleset):
    lines, key = _finished_export(tmp_path, ruleset)
    honest = verify_export([json.dumps(line) for line in lines], check_signature=signed_by(key), **SEATS)
    assert honest.verdict == "VERIFIED", [c for c in honest.checks if c.status == "fail"]
    rng = random.Random(ruleset)
    escaped, crashed, differing = [], [], []
    for _ in range(MUTATIONS_PER_RULESET):
        mutated, what = _mutate(lines, rng)
        try:
            report = verify_export([json.dumps(line) for line in mutated],
                                   check_signature=signed_by(key), **SEATS)
        except Exception as exc:  # noqa: BLE001 - the property: never a crash
            crashed.append((what, repr(exc)))
            continue
        if report.verdict != FAILED:
            escaped.append(what)
        # Verified in two processes (the record in a forked child while this one replays), word for word the same.
        split = verify_export_split([json.dumps(line) for line in mutated], check_signature=signed_by(key),
                                    **SEATS)
        if split.as_dict() != report.as_dict():
            differing.append(what)
    print(f"\n{ruleset}: {MUTATIONS_PER_RULESET} mutations tried, "
          f"{MUTATIONS_PER_RULESET - len(escaped) - len(crashed)} detected, {len(crashed)} crashed, "
          f"{len(escaped)} undetected")
    assert not crashed, crashed[:5]
    assert not escaped, escaped[:10]
    assert not differing, differing[:10]


def _keyed_records(lines: list[dict]) -> list[int]:
    """Line numbers of the records that carry seat keys and signatures: every SeatJoined and SeatKeyChanged, and
    the first keyed command with a public body and the first with a secret one."""
    chosen = [i for i, line in enumerate(lines) if line.get("kind") in ("SeatJoined", "SeatKeyChanged")]
    for where in ("public", "secret"):
        chosen += [i for i, line in enumerate(lines) if line.get("kind") == "CommandReceived"
                   and "signature" in line.get(where, {})][:1]
    return chosen


def _every_mutation(line: dict) -> list[tuple[tuple, object, str]]:
    """Every (container path, key, action) of a record outside its audience's seats."""
    return [(where, key, action) for where, key in _paths(line) if "audience" not in where
            for action in ("replace", "delete", "sibling")
            if not (key == "audience" and action == "replace")]


def _mutated(lines: list[dict], index: int, where: tuple, key, action: str, rng: random.Random) -> list[dict]:
    changed = json.loads(json.dumps(lines))
    container = changed[index]
    for step in where:
        container = container[step]
    if action == "delete" and isinstance(container, dict):
        del container[key]
    elif action == "sibling" and isinstance(container, dict):
        container[f"{key}_extra"] = 1
    else:
        container[key] = _other(container[key], rng)
    return changed


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", ["gambitz", "gambit-board"])  # both keep some command bodies secret
def test_every_mutation_of_a_seat_key_or_a_signed_command_fails_verification(tmp_path, ruleset):
    lines, key = _finished_export(tmp_path, ruleset, rekey_at=20)
    honest = verify_export([json.dumps(line) for line in lines], check_signature=signed_by(key), **SEATS)
    assert honest.verdict == "VERIFIED", [c for c in honest.checks if c.status == "fail"]
    chosen = _keyed_records(lines)
    kinds = [lines[i]["kind"] for i in chosen]
    assert "SeatKeyChanged" in kinds and kinds.count("CommandReceived") == 2, kinds
    rng = random.Random(ruleset)
    escaped, tried = [], 0
    for index in chosen:
        for where, field, action in _every_mutation(lines[index]):
            mutated = _mutated(lines, index, where, field, action, rng)
            if mutated == lines:
                continue
            tried += 1
            report = verify_export([json.dumps(line) for line in mutated], check_signature=signed_by(key), **SEATS)
            if report.verdict != FAILED:
                escaped.append(f"{lines[index]['kind']} v{lines[index]['version']}: {action} "
                               f"{'/'.join(map(str, where + (field,)))}")
    print(f"\n{ruleset}: {tried} mutations of seat keys and signed commands, {len(escaped)} undetected")
    assert tried > 50 and not escaped, escaped[:10]


# What a seat signs or is known by, where a key holder's change must still fail: (part, field) of each kind.
SIGNED_FIELDS = {
    "CommandReceived": {("public", "seat"), ("public", "type"), ("public", "decided_on"), ("public", "body"),
                        ("public", "signature"), ("secret", "body"), ("secret", "signature")},
    "SeatJoined": {("public", "public_key")},
    "SeatKeyChanged": {("public", "seat"), ("public", "public_key")},
}


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", ["gambitz", "gambit-board"])
def test_a_key_holder_who_changes_what_a_seat_signed_or_its_key_and_resigns_still_fails(tmp_path, ruleset):
    lines, key = _finished_export(tmp_path, ruleset, rekey_at=20)
    signer = Signer.load(str(tmp_path), None)
    rng = random.Random(ruleset)
    escaped, tried = [], 0
    for index in _keyed_records(lines):
        wanted = SIGNED_FIELDS[lines[index]["kind"]]
        for where, field, action in _every_mutation(lines[index]):
            if len(where + (field,)) < 2 or tuple((where + (field,))[:2]) not in wanted:
                continue
            mutated = _mutated(lines, index, where, field, action, rng)
            if mutated == lines:
                continue
            if where[:1] == ("secret",):
                recommit(mutated[index])
            tried += 1
            forged = rechain_and_resign(mutated, signer)
            report = verify_export([json.dumps(line) for line in forged], check_signature=signed_by(key), **SEATS)
            if report.verdict != FAILED:
                escaped.append(f"{lines[index]['kind']} v{lines[index]['version']}: {action} "
                               f"{'/'.join(map(str, where + (field,)))}")
    print(f"\n{ruleset}: {tried} re-signed changes of what seats sign, {len(escaped)} undetected")
    assert tried > 30 and not escaped, escaped[:10]
