"""gambit-tcg through the service: deck choices at join time, a whole match, the bluff audit and export."""

from __future__ import annotations

import random

from domain.rulesets.gambit_tcg.cards import DECKS
from tests.support.api import auth, create_match, join_all, legal_options
from tests.support.independent_verifier import verify_export


def test_config_players_2_is_accepted_and_echoed_in_the_summary(client):
    match = create_match(client, "gambit-tcg", {"players": 2})
    assert match["config"] == {"players": 2, "turn_limit": 100} and len(match["seats"]) == 2
    assert create_match(client, "gambit-tcg")["config"] == {"players": 2, "turn_limit": 100}
    assert client.get(f"/matches/{match['match_id']}").get_json()["config"]["players"] == 2


def test_config_players_other_than_2_is_a_422_naming_the_field(client):
    for players in (1, 3, 6):
        response = client.post("/matches", json={"ruleset": "gambit-tcg", "config": {"players": players}})
        assert response.status_code == 422 and response.mimetype == "application/problem+json"
        body = response.get_json()
        assert body["code"] == "invalid_config" and body["field"] == "players" and "must be 2" in body["detail"]


def test_a_bad_deck_list_at_join_time_is_a_422_naming_the_problem(client):
    match = create_match(client, "gambit-tcg")
    response = client.post(f"/matches/{match['match_id']}/seats",
                           json={"name": "a", "seat": "p1", "options": {"deck_list": ["W1"] * 4 + ["G2"] * 26}})
    assert response.status_code == 422
    body = response.get_json()
    assert "copies" in str(body) and "deck_list" in str(body)


def test_a_match_with_a_custom_deck_is_played_to_the_end_with_audited_reveal_calls(client):
    rng = random.Random(3)
    custom = DECKS["dawn"][:15] + DECKS["dusk"][:15]
    match = create_match(client, "gambit-tcg")
    mid = match["match_id"]
    tokens = join_all(client, match, options={"p1": {"deck_list": custom}, "p2": {"deck": "dawn"}})
    for _ in range(3000):
        summary = client.get(f"/matches/{mid}").get_json()
        if summary["status"] == "finished":
            break
        seat = summary["to_act"][0]
        commands = [c for c in legal_options(client, mid, tokens[seat], rng) if c["type"] != "resign"]
        attacks = [c for c in commands if c["type"] == "declare_attack"]
        calls = [c for c in commands if c.get("declared_type")]
        body = (max(attacks, key=lambda c: len(c.get("attackers", []))) if attacks
                else calls[0] if calls else rng.choice(commands))
        response = client.post(f"/matches/{mid}/commands", json=body, headers=auth(tokens[seat]))
        assert response.status_code == 201, (body, response.get_json())
        if summary["version"] % 13 == 0:
            spectator = client.get(f"/matches/{mid}/view").get_json()
            if spectator["status"] != "active":
                continue  # the command just posted ended the match: everything is public now
            board = spectator["state"]
            for player in board["players"].values():
                assert all("window" not in e and "id" not in e for e in player["set"] if e["face"] == "down")
                assert "hand" not in player
    summary = client.get(f"/matches/{mid}").get_json()
    assert summary["status"] == "finished" and summary["outcome"]["reason"] in ("zero_life", "deck_out", "turn_limit")
    audit = client.get(f"/matches/{mid}/audit/bluffs").get_json()["calls"]
    assert audit, "Truthseeker's type declarations are calls"
    assert all(call["verified"] is True and call["verdict"] in ("true", "false") for call in audit)
    verify_export(client.get(f"/matches/{mid}/export").get_data(as_text=True))


def test_no_endpoint_shows_a_viewer_a_secret_outside_its_audience_while_the_match_runs(client, app):
    from tests.support.leaks import endpoint_bodies, hidden_from
    matches = app.extensions["gambit"].matches
    rng = random.Random(12)
    match = create_match(client, "gambit-tcg")
    mid = match["match_id"]
    tokens = join_all(client, match)
    checked = 0
    for step in range(400):
        current = matches.match(mid)
        if current.status != "active":
            break
        if step % 9 == 0:
            for seat, token in [(None, None), *tokens.items()]:
                hidden = hidden_from(matches, mid, seat)
                for name, text in endpoint_bodies(client, mid, token, current.version).items():
                    checked += 1
                    for version, salt in hidden:
                        assert salt not in text, f"record {version} leaked to {seat or 'spectator'} via {name}"
        seat = current.to_act()[0]
        commands = [c for c in legal_options(client, mid, tokens[seat], rng) if c["type"] != "resign"]
        preferred = [c for c in commands if c.get("declared_type") or c["type"] in ("activate_trap", "set_card")]
        body = rng.choice(preferred if preferred and rng.random() < 0.6 else commands)
        assert client.post(f"/matches/{mid}/commands", json=body, headers=auth(tokens[seat])).status_code == 201
    assert checked > 0
