"""Stored receipts read back by version: each write's receipt, exactly as its response carried it, by the version
its last record has; none for a version no write ended at, or one a held-back spectator may not see yet."""

from __future__ import annotations

import json
import random

from tests.support.api import auth, create_match, going_on, join_all, legal_options
from tests.support.verify_process import verify_in_a_fresh_process

DELAY = 3


def _write_receipts(client, match_id: str, tokens: dict, commands: int) -> list[dict]:
    """Play some commands; the receipt of each write's response."""
    rng, receipts = random.Random(5), []
    for _ in range(commands):
        summary = client.get(f"/matches/{match_id}", headers=auth(next(iter(tokens.values())))).get_json()
        if summary["status"] != "active":
            break
        seat = min(summary["to_act"])
        body = rng.choice(going_on(legal_options(client, match_id, tokens[seat], rng)))
        response = client.post(f"/matches/{match_id}/commands", json=body, headers=auth(tokens[seat]))
        assert response.status_code == 201
        receipts.append(response.get_json()["receipt"])
    return receipts


def test_each_writes_receipt_is_served_by_its_last_version_as_the_write_answered_it(client):
    match = create_match(client, "gambitz", {"players": 2})
    tokens = join_all(client, match)
    for receipt in _write_receipts(client, match["match_id"], tokens, 6):
        response = client.get(f"/matches/{match['match_id']}/receipts/{receipt['version']}")
        assert response.status_code == 200 and response.get_json() == receipt


def test_a_version_no_write_ended_at_has_no_receipt(client):
    match = create_match(client, "gambitz", {"players": 2})
    join_all(client, match)  # the last join deals: one write of several records
    summary = client.get(f"/matches/{match['match_id']}").get_json()
    receipted = {v for v in range(1, summary["version"] + 1)
                 if client.get(f"/matches/{match['match_id']}/receipts/{v}").status_code == 200}
    assert 1 in receipted and summary["version"] in receipted and len(receipted) < summary["version"]
    for version in ({2, 3} - receipted) | {0, summary["version"] + 1, "x", "-1", "9" * 30}:
        response = client.get(f"/matches/{match['match_id']}/receipts/{version}")
        assert response.status_code == 404 and response.get_json()["code"] == "no_receipt", version
    unknown = client.get("/matches/00000000-0000-0000-0000-000000000000/receipts/1")
    assert unknown.status_code == 404 and unknown.get_json()["code"] == "match_not_found"


def test_a_held_back_spectator_gets_no_receipt_past_the_version_it_may_see(client):
    created = client.post("/matches", json={"ruleset": "gambitz", "config": {"players": 2, "spectator_delay": DELAY}})
    match = created.get_json()
    tokens = join_all(client, match)
    newest = _write_receipts(client, match["match_id"], tokens, 4)[-1]
    path = f"/matches/{match['match_id']}/receipts/{newest['version']}"
    assert client.get(path).get_json()["code"] == "no_receipt"
    assert client.get(path, headers=auth(tokens["p1"])).get_json() == newest, "a seat is never held back"
    shown = client.get(f"/matches/{match['match_id']}").get_json()["delay"]["as_of"]
    assert client.get(f"/matches/{match['match_id']}/receipts/{shown}").status_code == 200
    assert client.get(path, headers=auth("forged")).status_code == 401


def test_a_served_receipt_is_checked_by_gambit_verify_against_the_export(client, tmp_path):
    match = create_match(client, "gambitz", {"players": 2})
    tokens = join_all(client, match)
    receipt = _write_receipts(client, match["match_id"], tokens, 3)[1]
    served = client.get(f"/matches/{match['match_id']}/receipts/{receipt['version']}").get_json()
    (tmp_path / "receipt.json").write_text(json.dumps(served), encoding="utf-8")
    (tmp_path / "key.json").write_text(client.get("/.well-known/gambit-signing-key").get_data(as_text=True))
    export = tmp_path / "match.ndjson"
    export.write_text(client.get(f"/matches/{match['match_id']}/export").get_data(as_text=True), encoding="utf-8")
    ran = verify_in_a_fresh_process(export, key=str(tmp_path / "key.json"), receipts=[str(tmp_path / "receipt.json")])
    assert ran["code"] == 0 and ran["report"]["verdict"] == "VERIFIED"
    checks = ran["report"]["reports"][0]["checks"]
    kept = next(check for check in checks if check["check"] == "kept receipts")
    assert kept["status"] == "pass", kept
