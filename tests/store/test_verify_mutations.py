"""Property: one mutated field anywhere in an honest, finished export always fails `gambit verify`.

For every ruleset, one finished match (played over HTTP, choosing bluff calls where offered, every
seat signing with an Ed25519 or P-256 key) is exported in the organizer's form, then 200 times a
random field of a random line is changed to a different value, deleted, or given a new sibling, and
the result is verified with the service key (and the seats' keys, as `gambit verify` checks them). Every mutation must give FAILED, and none may raise.

Not mutated: the header's `exported_at` and `viewer` (they say when and for whom the export was
made, not what happened), and the seats inside an `audience` list (the record format keeps
`audience` outside the chain as metadata; whether a record has one is still checked).
"""

from __future__ import annotations

import json
import random

import pytest

from domain import rulesets
from domain.verification import FAILED, verify_export
from domain.verification_split import verify_export_split
from service.app import create_app
from service.receipt_signatures import signed_by
from service.seat_signatures import seat_signature_holds
from service.settings import Settings
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
# The seats' signatures are checked as `gambit verify` checks them.
SEATS = {"check_seat_signature": seat_signature_holds}
UNBOUND = {("header", "exported_at"), ("header", "viewer")}


def _finished_export(tmp_path, ruleset: str) -> tuple[list[dict], str]:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'store.sqlite3'}", data_dir=str(tmp_path))
    app = create_app(settings)
    client = app.test_client()
    tournament = client.post("/tournaments", json={"name": "t"}).get_json()
    match = client.post("/matches", json={"ruleset": ruleset, "config": SHORTER.get(ruleset, {}),
                                          "tournament_id": tournament["tournament_id"]},
                        headers=auth(tournament["organizer_key"])).get_json()
    # Seats alternate Ed25519 and P-256 keys, so the keys and signatures are mutated too.
    keys = {s["seat"]: SeatKey(("ed25519", "p256")[i % 2]) for i, s in enumerate(match["seats"])}
    play_signed(client, match["match_id"], join_keyed(client, match, keys), keys, random.Random(1),
                prefer=lambda body: "call" in body["type"] or "challenge" in body["type"])
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
