"""gattai-conflict through the service: sealed plays audited with verified commitments, nothing leaked."""

from __future__ import annotations

import random
import re

from tests.support.api import auth, create_match, join_all
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
        commands = client.get(f"/matches/{mid}/legal-commands", headers=auth(tokens[seat])).get_json()["commands"]
        main = [c for c in commands if c["type"] not in ("record_trigger", "spend_omen", "concede")]
        body = rng.choice(main or commands)
        response = client.post(f"/matches/{mid}/commands", json=body, headers=auth(tokens[seat]))
        assert response.status_code == 201, (body, response.get_json())
    raise AssertionError("the conflict did not finish")


def test_every_sealed_play_is_audited_as_a_verified_bluff_call(client):
    rng = random.Random(7)
    for config in ({"mode": "gambit"}, {"mode": "throwdown", "pilots": {"p1": {}, "p2": {}}}):
        mid, tokens = _play(client, config, rng)
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
