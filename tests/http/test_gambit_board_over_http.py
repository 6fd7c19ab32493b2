"""Two seats play the bluffing board game over HTTP with bluff calls; a third party re-checks every verdict."""

from __future__ import annotations

import hashlib
import json
import random

from tests.support.api import auth, create_match, join_all, legal_options
from tests.support.independent_verifier import verify_export


def _canonical(value) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _prefer_calls(rng: random.Random, commands: list[dict]) -> dict:
    """A random legal command, leaning toward bluff calls and claimed moves, resigning only when nothing else is left."""
    commands = [c for c in commands if c["type"] != "resign"] or commands
    calls = [c for c in commands if c["type"] == "call_bluff"]
    if calls and rng.random() < 0.5:
        return rng.choice(calls)
    moves = [c for c in commands if c["type"] == "move" and c.get("claims")]
    if moves and rng.random() < 0.4:
        return rng.choice(moves)
    return rng.choice(commands)


def _play(client, mid: str, tokens: dict, rng: random.Random, max_commands: int = 4000) -> None:
    for _ in range(max_commands):
        summary = client.get(f"/matches/{mid}").get_json()
        if summary["status"] == "finished":
            return
        seat = rng.choice(summary["to_act"])
        commands = legal_options(client, mid, tokens[seat], rng)
        response = client.post(f"/matches/{mid}/commands", json=_prefer_calls(rng, commands), headers=auth(tokens[seat]))
        assert response.status_code == 201, response.get_json()
    raise AssertionError("the match did not finish")


MOVEMENT = ("diagonal", "ghost", "sidewinder", "bulldozer")


def _third_party_check(export_text: str) -> int:
    """From the export alone: each ruling's evidence (the claimed power slots' commitments, revealed
    for a true claim, sealed for a false one) re-commits, and says what the verdict says. A Sensei
    claim rests on one slot per power it named, and is true when the source held them all."""
    records = [json.loads(line) for line in export_text.splitlines()[1:] if line.strip()]
    by_version = {r["version"]: r for r in records if "version" in r}
    checked = 0
    for record in records:
        call = record.get("public", {}).get("bluff_call")
        if call is None:
            continue
        key = "opens" if call["verdict"] == "true" else "sealed_evidence"
        opened = record["secret"]["opened" if key == "opens" else key]
        named = call["transfer"]["powers"] if call["subject"] == "sensei" else [call["power"]]
        assert record["public"][key] == [o["version"] for o in opened] and len(opened) == len(named)
        assert opened[0]["version"] == call["evidence_version"]
        held = []
        for item, power in zip(opened, named):
            committed = by_version[item["version"]]["commitment"]
            assert hashlib.sha256(_canonical({"salt": item["salt"], "secret": item["secret"]})).hexdigest() == committed
            slot = item["secret"]
            kind = "movement" if power in MOVEMENT else "action"
            assert (slot["piece"], slot["power_type"]) == (call["piece"], kind)
            held.append(slot["power"] == power)
        assert call["verdict"] == ("true" if all(held) else "false")
        checked += 1
    return checked


def test_two_seats_play_to_the_end_with_bluff_calls_and_every_verdict_rechecks_from_the_export(client):
    rng = random.Random(12)
    match = create_match(client, "gambit-board", {"power_mode": "roll"})
    tokens = join_all(client, match, client_seeds={"south": "0a0b"})
    mid = match["match_id"]
    _play(client, mid, tokens, rng)
    audit = client.get(f"/matches/{mid}/audit/bluffs").get_json()["calls"]
    assert audit, "random play with a preference for calls makes some"
    assert all(entry["verified"] is True for entry in audit)
    assert {entry["verdict"] for entry in audit} <= {"true", "false"}
    export = client.get(f"/matches/{mid}/export").get_data(as_text=True)
    verify_export(export)
    assert _third_party_check(export) == len(audit)
    calls = client.get(f"/bluff-calls?match_id={mid}&limit=200").get_json()["bluff_calls"]
    assert [c["ruling_version"] for c in calls] == [e["ruling_version"] for e in audit]


def test_while_the_match_runs_a_false_claims_evidence_is_sealed_from_players_and_spectators(client):
    rng = random.Random(3)
    match = create_match(client, "gambit-board", {})
    tokens = join_all(client, match)
    mid = match["match_id"]
    for _ in range(600):
        summary = client.get(f"/matches/{mid}").get_json()
        if summary["status"] != "active":
            break
        if client.get(f"/matches/{mid}/audit/bluffs").get_json()["calls"]:
            break
        seat = rng.choice(summary["to_act"])
        commands = legal_options(client, mid, tokens[seat], rng)
        client.post(f"/matches/{mid}/commands", json=_prefer_calls(rng, commands), headers=auth(tokens[seat]))
    if client.get(f"/matches/{mid}").get_json()["status"] != "active":
        return  # the match ended on the very call; the finished case is covered above
    for headers in ({}, auth(tokens["south"]), auth(tokens["north"])):
        entry = client.get(f"/matches/{mid}/audit/bluffs", headers=headers).get_json()["calls"][0]
        assert entry["evidence"] is None
        # A true claim's evidence is revealed to everyone, so anyone can verify it at once; a false
        # claim's would show what the piece really holds, so it stays sealed until the end.
        if entry["verdict"] == "true":
            assert entry["verified"] is True and [o["version"] for o in entry["opened"]] == entry["evidence_versions"]
        else:
            assert entry["verified"] is None and entry["opened"] == []
        assert all(len(c) == 64 for c in entry["commitments"].values())


def test_a_dispute_filed_mid_match_does_not_shift_the_versions_rulings_name(client):
    rng = random.Random(5)
    tournament = client.post("/tournaments", json={"name": "t"}).get_json()
    match = client.post("/matches", json={"ruleset": "gambit-board", "config": {},
                                          "tournament_id": tournament["tournament_id"]},
                        headers=auth(tournament["organizer_key"])).get_json()
    tokens = join_all(client, match)
    mid = match["match_id"]
    disputed = False
    for _ in range(3000):
        summary = client.get(f"/matches/{mid}").get_json()
        if summary["status"] != "active":
            break
        calls = client.get(f"/matches/{mid}/audit/bluffs").get_json()["calls"]
        if calls and not disputed:
            filed = client.post(f"/matches/{mid}/disputes", json={"call_version": calls[0]["call_version"],
                                                                  "reason": "mid-match"}, headers=auth(tokens["north"]))
            assert filed.status_code == 201
            disputed = True
        seat = rng.choice(summary["to_act"])
        commands = legal_options(client, mid, tokens[seat], rng)
        client.post(f"/matches/{mid}/commands", json=_prefer_calls(rng, commands), headers=auth(tokens[seat]))
    audit = client.get(f"/matches/{mid}/audit/bluffs").get_json()["calls"]
    assert disputed and len(audit) > 1
    for entry in audit:
        assert entry["call_version"] == entry["ruling_version"], "a ruling names its own record"
