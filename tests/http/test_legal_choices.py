"""legal-commands serves `choices` (families too large to list) and bodies formed from them are
accepted; `/rulesets/{id}` serves each ruleset's commands and catalogue."""

from __future__ import annotations

import itertools
import random

from domain.choices import admits_body, random_body
from domain.ruleset import RuleViolation
from domain.rulesets.gambit_tcg import AssignBlockers
from tests.support.api import auth, create_match, join_all

# Units only, none with Guard, and cheap spells and items: every position of the scripted game
# below can play a unit, and no Guard narrows the blocks.
NO_GUARD_DECK = ["W1"] * 3 + ["B1"] * 3 + ["B2"] * 3 + ["G1"] * 3 + ["G2"] * 3 + ["N1"] * 3 + ["G3"] * 3 + \
    ["G4"] * 3 + ["N3"] * 3 + ["B3"] * 3


def _legal(client, mid: str, token: str) -> dict:
    response = client.get(f"/matches/{mid}/legal-commands", headers=auth(token))
    assert response.status_code == 200
    return response.get_json()


def _post(client, mid: str, token: str, body: dict, version: int | None = None) -> dict:
    headers = {**auth(token), **({"If-Match": f'"{version}"'} if version is not None else {})}
    response = client.post(f"/matches/{mid}/commands", json=body, headers=headers)
    assert response.status_code == 201, (body, response.get_json())
    return response.get_json()


def test_legal_commands_serve_choices_and_a_body_formed_from_one_is_accepted(client):
    match = create_match(client, "gambit-board", {})
    tokens = join_all(client, match)
    mid = match["match_id"]
    legal = _legal(client, mid, tokens["south"])
    assert set(legal) == {"version", "seat", "commands", "choices"}
    assert [c["type"] for c in legal["commands"]] == ["resign"]
    assert len(legal["choices"]) == 36 and {c["type"] for c in legal["choices"]} == {"assign"}
    body = random_body(legal["choices"][0], random.Random(3))
    assert admits_body(legal["choices"][0], body)
    _post(client, mid, tokens["south"], body, legal["version"])
    # Once assigned, south has nothing left to choose; north still has its assignment to make.
    assert _legal(client, mid, tokens["south"])["choices"] == []
    assert len(_legal(client, mid, tokens["north"])["choices"]) == 36


def test_every_choice_kind_forms_accepted_bodies_over_http(client):
    rng = random.Random(8)
    match = create_match(client, "gattai-conflict", {"mode": "throwdown", "pilots": {"p1": {}, "p2": {}, "p3": {}}})
    tokens = join_all(client, match)
    mid = match["match_id"]
    formed = set()
    wanted = {"give_cards", "return_cards", "record_trigger"}
    for _ in range(400):
        summary = client.get(f"/matches/{mid}").get_json()
        if summary["status"] == "finished" or wanted <= formed:
            break
        seat = rng.choice(sorted(summary["to_act"]))
        legal = _legal(client, mid, tokens[seat])
        bodies = [(None, c) for c in legal["commands"] if c["type"] not in ("concede", "record_trigger", "resign")]
        bodies += [(c["type"], random_body(c, rng)) for c in legal["choices"]]
        kind, body = rng.choice(bodies)
        _post(client, mid, tokens[seat], body, legal["version"])
        if kind is not None:
            formed.add(kind)
    assert wanted <= formed


def _scripted_step(client, mid: str, tokens: dict, rng: random.Random, types: dict) -> str:
    """One command of a game where both seats energize what is no unit and play only units, and p1
    attacks with exactly three units once p2 has five; returns the step the game is then in."""
    summary = client.get(f"/matches/{mid}").get_json()
    if summary["status"] != "active":
        return "over"
    seat = summary["to_act"][0]
    view = client.get(f"/matches/{mid}/view", headers=auth(tokens[seat])).get_json()["state"]
    if view["step"] == "blocks":
        return "blocks"
    legal = _legal(client, mid, tokens[seat])
    if view["step"] == "attack":
        able = legal["choices"][0]["free"]["attackers"]["subset_of"]
        ready = seat == "p1" and len(able) >= 3 and len(view["players"]["p2"]["units"]) == 5
        _post(client, mid, tokens[seat], {"type": "declare_attack", "attackers": able[:3] if ready else []})
        return "attack"
    hand = {c["card"]: types[c["id"]] for c in view["players"][seat].get("hand", [])}
    units = [c for c in legal["choices"] + legal["commands"] if c["type"] == "play_card"
             and hand.get(c.get("fixed", c).get("card")) == "unit" and "sacrifice" not in c.get("fixed", c)]
    energize = [c for c in legal["commands"] if c["type"] == "energize" and hand[c["card"]] != "unit"]
    if units:
        body = random_body(units[0], rng) if "free" in units[0] else units[0]
    elif energize:
        body = energize[0]
    else:
        body = next(c for c in legal["commands"] if c["type"] in ("end_phase", "pass"))
    _post(client, mid, tokens[seat], body)
    return view["step"]


def _three_against_five(client, rng: random.Random) -> tuple[str, dict]:
    """A gambit-tcg match (decks without Guard) played over HTTP until p2 must block three attackers with five units."""
    types = {card["id"]: card["type"] for card in client.get("/rulesets/gambit-tcg").get_json()["catalogue"]["cards"]}
    for _ in range(6):  # a deck may run out first: start again
        match = create_match(client, "gambit-tcg", {})
        tokens = join_all(client, match, options={s: {"deck_list": NO_GUARD_DECK} for s in ("p1", "p2")})
        for _ in range(1500):
            step = _scripted_step(client, match["match_id"], tokens, rng, types)
            if step in ("blocks", "over"):
                break
        if step == "blocks":
            return match["match_id"], tokens
    raise AssertionError("the scripted games never reached a 3-against-5 combat")


def test_a_three_against_five_combat_offers_every_full_block(client, app):
    rng = random.Random(35)
    mid, tokens = _three_against_five(client, rng)
    legal = _legal(client, mid, tokens["p2"])
    match = app.extensions["gambit"].matches.match(mid)
    attackers = match.state["combat"]["attackers"]
    units = [u["card"] for u in match.state["players"]["p2"]["units"]]
    assert (len(attackers), len(units)) == (3, 5) and legal["commands"] == [
        {"type": "assign_blockers", "blocks": {}}, {"type": "resign"}]
    every_block = [dict(zip(chosen, targets)) for size in range(4) for chosen in itertools.combinations(units, size)
                   for targets in itertools.permutations(attackers, size)]
    assert len(every_block) == 136 and sum(len(b) == 3 for b in every_block) == 60
    for blocks in every_block:
        body = {"type": "assign_blockers", "blocks": blocks}
        offered = body in legal["commands"] or any(admits_body(c, body) for c in legal["choices"])
        try:
            match.ruleset.decide(match.state, "p2", AssignBlockers(blocks))
            accepted = True
        except RuleViolation:
            accepted = False
        assert offered and accepted, blocks
    # One choice per set of three blockers, each with the 3! orders of the attackers; a member posts.
    full_choices = [c for c in legal["choices"] if len(c["free"]["blocks"]["pairs"][0]["keys"]) == 3]
    assert len(full_choices) == 10
    _post(client, mid, tokens["p2"], random_body(full_choices[0], rng), legal["version"])


def test_a_ruleset_resource_serves_commands_fields_and_the_tcg_catalogue(client):
    tcg = client.get("/rulesets/gambit-tcg")
    assert tcg.status_code == 200
    body = tcg.get_json()
    assert body["ruleset"] == "gambit-tcg" and body["default_config"] == {"players": 2, "turn_limit": 100}
    cards = {card["id"]: card for card in body["catalogue"]["cards"]}
    assert len(cards) == 24
    assert cards["W1"] == {"id": "W1", "name": "Lantern Acolyte", "color": "White", "type": "unit", "cost": 1,
                           "might": 1, "endurance": 2, "keywords": ["reveal"],
                           "text": "When played: Reveal one set card."}
    assert cards["N4"]["type"] == "trap" and cards["G6"]["field_kind"] == "spell"
    assert cards["N4"]["windows"] == ["spell_activated"] and cards["W4"]["windows"] == ["attack_declared"]
    assert sum(body["catalogue"]["decks"]["dawn"].values()) == 30
    commands = {c["type"]: c for c in body["commands"]}
    assert set(commands) == {"set_card", "energize", "play_card", "activate_trap", "end_phase", "declare_attack",
                             "assign_blockers", "pass", "resign"}
    fields = {f["name"]: f for f in commands["play_card"]["fields"]}
    assert fields["card"] == {"name": "card", "type": "string", "required": True, "nullable": False}
    assert fields["energy"] == {"name": "energy", "type": "array<string>", "required": False, "nullable": False,
                                "default": []}
    assert fields["target"]["nullable"] and fields["target"]["default"] is None
    assert commands["assign_blockers"]["fields"][0]["type"] == "object<string>"
    assert commands["play_card"]["schema"]["required"] == ["type", "card"]
    board = client.get("/rulesets/gambit-board").get_json()
    assign = next(c for c in board["commands"] if c["type"] == "assign")
    assert assign["fields"][0]["type"] == "object<array<string>>"
    assert board["catalogue"]["powers"]["movement"] == ["diagonal", "ghost", "sidewinder", "bulldozer"]
    for ruleset in [r["ruleset"] for r in client.get("/rulesets").get_json()["rulesets"]]:
        assert client.get(f"/rulesets/{ruleset}").get_json()["catalogue"] is not None


def test_an_unknown_ruleset_is_a_404_problem(client):
    response = client.get("/rulesets/chess")
    assert response.status_code == 404 and response.mimetype == "application/problem+json"
    problem = response.get_json()
    assert problem["code"] == "ruleset_not_found" and "gambit-tcg" in problem["rulesets"]
