"""Shared helpers of the hardening tests: configs per ruleset, random legal play, fast endings.

Matches are set up over HTTP (so tokens exist) and may be driven fast through the domain
(`MatchService.act`, the same call the commands resource makes); every check reads through HTTP.
"""

from __future__ import annotations

import random

from domain import rulesets
from domain.choices import Choice
from tests.support.api import auth, legal_options

# Small but real configs: three seats where the game allows it, so a seat's secrets have
# more than one outsider; gambit-tcg decks are chosen per seat at join time. Only the games whose
# playout differs from their defaults are named: every registered game is played (RULESETS), a
# game not named here with its default config, so a new game cannot escape the leak hunt or the
# fuzzers by being left out of a list.
CONFIGS = {
    "gambitz": {"players": 3},
    "dragons-gambit": {"players": 3},
}
RULESETS = rulesets.available()
# Commands that end a match at once; random play uses them only rarely so matches run long.
ENDERS = ("resign", "concede")


def config_for(ruleset: str) -> dict:
    """The config the playouts create a match of `ruleset` with (its defaults unless CONFIGS names it)."""
    return CONFIGS.get(ruleset, {})


def join_options(ruleset: str, seats: list[str], rng: random.Random) -> dict | None:
    """Per-seat join options (gambit-tcg: a preconstructed deck each)."""
    if ruleset != "gambit-tcg":
        return None
    return {seat: {"deck": rng.choice(["dawn", "dusk"])} for seat in seats}


def new_match(client, ruleset: str, rng: random.Random, tournament_id: str | None = None,
              organizer_key: str | None = None) -> tuple[str, dict]:
    """Create a match of the ruleset (in a tournament: as its organizer) and join every seat over HTTP;
    returns (match id, seat → token)."""
    body = {"ruleset": ruleset, "config": config_for(ruleset)}
    if tournament_id is not None:
        body["tournament_id"] = tournament_id
    response = client.post("/matches", json=body, headers=auth(organizer_key) if organizer_key else {})
    assert response.status_code == 201, response.get_json()
    match = response.get_json()
    seats = [s["seat"] for s in match["seats"]]
    options = join_options(ruleset, seats, rng) or {}
    tokens = {}
    for seat in seats:
        join = {"name": f"player-{seat}", "seat": seat, "client_seed": rng.randbytes(8).hex()}
        if seat in options:
            join["options"] = options[seat]
        joined = client.post(f"/matches/{match['match_id']}/seats", json=join)
        assert joined.status_code == 201, joined.get_json()
        tokens[seat] = joined.get_json()["token"]
    return match["match_id"], tokens


def pick(rng: random.Random, options: list, enders_rate: float = 0.02):
    """A random option, keeping match-ending commands rare (bodies, Command objects or Choices;
    a Choice gives a random member)."""
    def kind(option) -> str:
        return option["type"] if isinstance(option, dict) else option.type

    regular = [o for o in options if kind(o) not in ENDERS]
    picked = rng.choice(regular if regular and rng.random() >= enders_rate else options)
    return picked.random_command(rng) if isinstance(picked, Choice) else picked


def advance(matches, match_id: str, rng: random.Random, steps: int, enders_rate: float = 0.02) -> int:
    """Play up to `steps` random legal commands through the domain (a resign or concede at `enders_rate` of the
    steps); returns how many were played."""
    played = 0
    for _ in range(steps):
        match = matches.match(match_id)
        if match.status != "active":
            break
        seat = rng.choice(sorted(match.to_act()))
        options = match.ruleset.legal_commands(match.state, seat) + match.ruleset.legal_choices(match.state, seat)
        assert options, f"{seat} is to act but has no legal command"
        matches.act(match_id, seat, pick(rng, options, enders_rate))
        played += 1
    return played


def finish(matches, match_id: str, rng: random.Random, tokens: dict, client, max_steps: int = 20_000) -> None:
    """Play to the end through the domain; a match that will not end is resigned or conceded over HTTP."""
    advance(matches, match_id, rng, max_steps)
    match = matches.match(match_id)
    if match.status == "active":
        for seat in match.to_act():
            for body in client.get(f"/matches/{match_id}/legal-commands", headers=auth(tokens[seat])).get_json()["commands"]:
                if body["type"] in ENDERS:
                    assert client.post(f"/matches/{match_id}/commands", json=body, headers=auth(tokens[seat])).status_code == 201
                    return
    assert matches.match(match_id).status == "finished"


def legal_http_move(client, match_id: str, tokens: dict, rng: random.Random) -> dict | None:
    """One random legal command over HTTP by a seat to act; returns the 201 body (None when nobody acts)."""
    summary = client.get(f"/matches/{match_id}").get_json()
    if summary["status"] != "active" or not summary["to_act"]:
        return None
    seat = rng.choice(sorted(summary["to_act"]))
    body = pick(rng, legal_options(client, match_id, tokens[seat], rng))
    response = client.post(f"/matches/{match_id}/commands", json=body, headers=auth(tokens[seat]))
    assert response.status_code == 201, (seat, body, response.get_json())
    return response.get_json()
