"""gattai-conflict through the service: sealed plays audited with verified commitments, nothing leaked."""

from __future__ import annotations

import random
import re

from tests.support.api import auth, create_match, join_all, legal_options
from tests.support.independent_verifier import verify_export

CARD_ID = re.compile(r"[PC]\.(?:10|[2-9JQKA])[SHDC]")


def _play(client, config: dict, rng: random.Random) -> tuple[str, dict]:
    match = create_match(client, "gattai-conflict", config)
    mid = match["match_id"]
    tokens = join_all(client, match)
    for _ in range(400):
        summary = client.get(f"/matches/{mid}").get_json()
        if summary["status"] == "finished":
            return mid, tokens
        seat = rng.choice(sorted(summary["to_act"]))
        commands = legal_options(client, mid, tokens[seat], rng)
        main = [c for c in commands if c["type"] not in ("record_trigger", "spend_omen", "concede", "resign")]
        body = rng.choice(main or commands)
        response = client.post(f"/matches/{mid}/commands", json=body, headers=auth(tokens[seat]))
        assert response.status_code == 201, (body, response.get_json())
    raise AssertionError("the conflict did not finish")


def test_every_sealed_play_is_audited_as_a_verified_bluff_call(client):
    rng = random.Random(7)
    for config in ({"mode": "gambit"}, {"mode": "throwdown", "pilots": {"p1": {}, "p2": {}}}):
        mid, _tokens = _play(client, config, rng)
        calls = client.get(f"/matches/{mid}/audit/bluffs").get_json()["calls"]
        kinds = {c["kind"] for c in calls}
        assert kinds == ({"threshold"} if config["mode"] == "gambit" else {"initiative"})
        assert all(c["verified"] is True and c["verdict"] == "true" for c in calls)
        verify_export(client.get(f"/matches/{mid}/export").get_data(as_text=True))


def test_a_sealed_threshold_reaches_only_the_coach_while_the_match_runs(client):
    match = create_match(client, "gattai-conflict", {"mode": "gambit"})
    mid = match["match_id"]
    tokens = join_all(client, match)
    hand = client.get(f"/matches/{mid}/view", headers=auth(tokens["coach"])).get_json()["state"]["hands"]["coach"]
    card = hand["cards"][0]
    body = {"type": "play_threshold", "source": "hand", "card": card}
    assert client.post(f"/matches/{mid}/commands", json=body, headers=auth(tokens["coach"])).status_code == 201
    for headers in ({}, auth(tokens["p1"])):
        for path in ("view", "events?limit=500", "audit/bluffs", "replay?from=1"):
            text = client.get(f"/matches/{mid}/{path}", headers=headers).get_data(as_text=True)
            assert card not in text, path
    assert card in client.get(f"/matches/{mid}/view", headers=auth(tokens["coach"])).get_data(as_text=True)


def _entries(client, mid: str, headers: dict) -> list[dict]:
    return client.get(f"/matches/{mid}/audit/bluffs", headers=headers).get_json()["calls"]


def _sealed_versions(client, mid: str, token: str) -> list[int]:
    events = client.get(f"/matches/{mid}/events?limit=500", headers=auth(token)).get_json()["events"]
    return [e["version"] for e in events if e["public"].get("sealed_play")]


def test_a_sealed_threshold_is_audited_as_sealed_until_its_reveal_completes_the_entry(client):
    match = create_match(client, "gattai-conflict", {"mode": "gambit"})
    mid = match["match_id"]
    tokens = join_all(client, match)
    card = client.get(f"/matches/{mid}/view", headers=auth(tokens["coach"])).get_json()["state"]["hands"]["coach"][
        "cards"][0]
    body = {"type": "play_threshold", "source": "hand", "card": card}
    assert client.post(f"/matches/{mid}/commands", json=body, headers=auth(tokens["coach"])).status_code == 201
    (sealed,) = _sealed_versions(client, mid, tokens["coach"])
    for headers in ({}, auth(tokens["p1"])):
        (entry,) = _entries(client, mid, headers)
        # In the audit from the moment it is sealed: who sealed it and its commitment, nothing more.
        assert entry["sealed"] is True and entry["kind"] == "threshold" and entry["claimant"] == "coach"
        assert entry["claim_version"] == entry["sealed_version"] == sealed and entry["evidence_versions"] == [sealed]
        assert entry["commitments"][str(sealed)] is not None and entry["verdict"] is None
        assert entry["ruling_version"] is None and entry["verified"] is None and entry["opened"] == []
        assert card not in str(entry)
    (mine,) = _entries(client, mid, auth(tokens["coach"]))
    assert mine["sealed"] is True and mine["opened"][0]["secret"]["card"] == card
    hand = client.get(f"/matches/{mid}/view", headers=auth(tokens["p1"])).get_json()["state"]["hands"]["p1"]["cards"]
    played = client.post(f"/matches/{mid}/commands", json={"type": "play_card", "card": hand[0]},
                         headers=auth(tokens["p1"]))
    assert played.status_code == 201
    for headers in ({}, auth(tokens["p1"]), auth(tokens["coach"])):
        (entry,) = _entries(client, mid, headers)
        # The reveal completes the same entry, and every viewer can check it at once.
        assert entry["sealed"] is False and entry["claim_version"] == sealed and entry["card"] == card
        assert entry["revealed_version"] == entry["ruling_version"] == entry["call_version"]
        assert entry["verdict"] == "true" and entry["verified"] is True
        assert entry["opened"][0]["version"] == sealed and entry["opened"][0]["secret"]["card"] == card


def test_both_sealed_initiative_cards_are_audited_before_their_reveal(client, app):
    rng = random.Random(4)
    match = create_match(client, "gattai-conflict", {"mode": "throwdown", "pilots": {"p1": {}, "p2": {}}})
    mid = match["match_id"]
    tokens = join_all(client, match)
    for _ in range(200):
        summary = client.get(f"/matches/{mid}").get_json()
        seat = min(summary["to_act"])
        commands = legal_options(client, mid, tokens[seat], rng)
        if any(c["type"] == "reveal_initiative" for c in commands):
            break
        seal = [c for c in commands if c["type"] == "seal_initiative"]
        main = [c for c in commands if c["type"] not in ("record_trigger", "spend_omen", "concede", "resign")]
        body = rng.choice(seal or main or commands)
        assert client.post(f"/matches/{mid}/commands", json=body, headers=auth(tokens[seat])).status_code == 201
    else:
        raise AssertionError("no Initiative to reveal")
    sealed = _sealed_versions(client, mid, tokens["coach"])
    assert len(sealed) == 2
    entries = _entries(client, mid, {})
    assert [(e["kind"], e["sealed"], e["claim_version"]) for e in entries] == [("initiative", True, v) for v in sealed]
    assert all(e["verified"] is None and e["opened"] == [] for e in entries)
    body = {"type": "reveal_initiative"}
    assert client.post(f"/matches/{mid}/commands", json=body, headers=auth(tokens[seat])).status_code == 201
    entries = _entries(client, mid, {})
    assert [(e["kind"], e["sealed"], e["claim_version"]) for e in entries] == [("initiative", False, v) for v in sealed]
    assert all(e["verified"] is True and e["verdict"] == "true" for e in entries)
