"""gambit-board's Player Powers variant over HTTP: the config is taken, its commands are listed and
accepted as bodies, a Sensei claim is a bluff call the audit verifies, and a third party re-checks
every verdict from the export alone."""

from __future__ import annotations

import random

from domain.choices import command_from_body
from domain.rulesets import gambit_board as gb
from tests.http.test_gambit_board_over_http import _third_party_check
from tests.rules.test_gambit_board_playouts import choose
from tests.support.api import auth, create_match, join_all, legal_options
from tests.support.independent_verifier import verify_export

PP = {"player_powers": True}
BY_TYPE = {cls.type: cls for cls in gb.COMMANDS}
USES = ("use_sensei", "use_magician", "use_witch_doctor", "choose_player_power")


def _post(client, match_id: str, token: str, body: dict) -> dict:
    response = client.post(f"/matches/{match_id}/commands", json=body, headers=auth(token))
    assert response.status_code == 201, (body, response.get_json())
    return response.get_json()


def _pick(view: dict, seat: str, bodies: list[dict], rng: random.Random) -> dict:
    """Call every Sensei, use Player Powers half the time, else play as the rule tests' random player does."""
    calls = [b for b in bodies if b["type"] == "call_bluff" and b["claim"] == "sensei"]
    uses = [b for b in bodies if b["type"] in USES]
    if calls:
        return calls[0]
    if view["phase"] == "assign" or (uses and rng.random() < 0.5):
        return rng.choice(uses or bodies)
    if view["turn"]["number"] > 150:
        return {"type": "resign"}
    commands = [command_from_body(BY_TYPE[b["type"]], b) for b in bodies if b["type"] != "use_sensei"]
    return choose(view, seat, commands, rng, 0.1).body()


def _play(client, match_id: str, tokens: dict, rng: random.Random) -> None:
    for _ in range(4000):
        summary = client.get(f"/matches/{match_id}").get_json()
        if summary["status"] == "finished":
            return
        seat = rng.choice(summary["to_act"])
        view = client.get(f"/matches/{match_id}/view", headers=auth(tokens[seat])).get_json()["state"]
        bodies = legal_options(client, match_id, tokens[seat], rng)
        _post(client, match_id, tokens[seat], _pick(view, seat, bodies, rng))
    raise AssertionError("the match did not finish")


def test_a_player_powers_match_plays_to_the_end_and_every_verdict_sensei_calls_included_verifies(client):
    for seed in range(12):
        rng = random.Random(f"pp-http/{seed}")
        match = create_match(client, "gambit-board", {**PP, "power_mode": rng.choice(["select", "roll"])})
        assert match["config"]["player_powers"] is True
        tokens = join_all(client, match)
        mid = match["match_id"]
        _play(client, mid, tokens, rng)
        audit = client.get(f"/matches/{mid}/audit/bluffs").get_json()["calls"]
        if not any(entry["subject"] == "sensei" for entry in audit):
            continue
        assert all(entry["verified"] is True for entry in audit), audit
        export = client.get(f"/matches/{mid}/export").get_data(as_text=True)
        verify_export(export)
        assert _third_party_check(export) == len(audit)
        final = client.get(f"/matches/{mid}/view").get_json()
        assert final["to_act"] == [] and final["state"]["turn"] is None and final["state"]["step"] is None
        return
    raise AssertionError("no match with a Sensei call")


def test_a_seat_earns_a_player_power_and_its_legal_commands_offer_the_sensei_as_choices(client):
    match = create_match(client, "gambit-board", PP)
    tokens = join_all(client, match)
    mid = match["match_id"]
    _post(client, mid, tokens["south"], {"type": "assign", "powers": {"S1": ["diagonal", "sitting"],
                                                                      "S2": ["bulldozer", "moat"]}})
    _post(client, mid, tokens["north"], {"type": "assign", "powers": {"N1": ["ghost", "kamikaze"],
                                                                      "N2": ["sidewinder", "detective"]}})
    for move in ("S1>a3", "N2>b4", "S1>a5", "N1>b6", "S1>a6"):
        piece, to = move.split(">")
        seat = "south" if piece[0] == "S" else "north"
        step = client.get(f"/matches/{mid}/view").get_json()["state"]["step"]
        if step["kind"] == "respond":
            _post(client, mid, tokens[step["seat"]], {"type": "accept"})
        _post(client, mid, tokens[seat], {"type": "move", "piece": piece, "to": to})
    written = _post(client, mid, tokens["north"], {"type": "accept"})
    earned = written["events"][-1]
    assert earned["kind"] == "PlayerPowerEarned" and earned["public"]["power"] is None
    legal = client.get(f"/matches/{mid}/legal-commands", headers=auth(tokens["south"])).get_json()
    assert {c["power"] for c in legal["commands"] if c["type"] == "choose_player_power"} == \
        {"sensei", "magician", "juggernaut", "witch_doctor"}
    _post(client, mid, tokens["south"], {"type": "choose_player_power", "power": "sensei"})
    spectator = client.get(f"/matches/{mid}/view").get_json()["state"]
    assert spectator["player_powers"] == {"south": ["sensei"], "north": []}
    _post(client, mid, tokens["north"], {"type": "move", "piece": "N6", "to": "f5"})
    legal = client.get(f"/matches/{mid}/legal-commands", headers=auth(tokens["south"])).get_json()
    sensei = [c for c in legal["choices"] if c["type"] == "use_sensei"]
    assert {c["fixed"]["source"] for c in sensei} == {"S1", "S2", "S3", "S4", "S5", "S6"}
    body = {"type": "use_sensei", "source": "S2", "target": "S3", "powers": ["moat", "bulldozer"]}
    _post(client, mid, tokens["south"], body)
    [ruling] = [e for e in _post(client, mid, tokens["north"], {"type": "call_bluff", "claim": "sensei"})["events"]
                if e["kind"] == "BluffRuled"]
    assert ruling["public"]["bluff_call"]["verdict"] == "true"
    [entry] = client.get(f"/matches/{mid}/audit/bluffs").get_json()["calls"]
    # A true Sensei shows only what it named: its slots are revealed to everyone and verified at once.
    assert entry["subject"] == "sensei" and entry["verified"] is True and len(entry["opened"]) == 2
    _post(client, mid, tokens["north"], {"type": "choose_loss", "piece": "N6"})
    refused = client.post(f"/matches/{mid}/commands", json={"type": "use_sensei", "source": "N2", "target": "N3",
                                                            "powers": ["moat"]}, headers=auth(tokens["north"]))
    assert refused.status_code == 422 and refused.get_json()["rule"] == "player_power_not_held"
