"""HTTP helpers for tests: create and join matches, and play them through legal-commands only
(listed bodies and bodies formed from its choices)."""

from __future__ import annotations

import random

from domain.choices import random_body


def auth(token: str) -> dict:
    """The Authorization header of a seat token."""
    return {"Authorization": f"Bearer {token}"}


def create_match(client, ruleset: str, config: dict | None = None) -> dict:
    """POST /matches; returns the summary."""
    response = client.post("/matches", json={"ruleset": ruleset, "config": config or {}})
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def join_all(client, match: dict, client_seeds: dict | None = None, options: dict | None = None) -> dict:
    """Join every seat of a match (with per-seat join options, if given); returns seat → token."""
    tokens = {}
    for seat in [s["seat"] for s in match["seats"]]:
        body = {"name": f"player-{seat}", "seat": seat}
        if client_seeds and seat in client_seeds:
            body["client_seed"] = client_seeds[seat]
        if options and seat in options:
            body["options"] = options[seat]
        response = client.post(f"/matches/{match['match_id']}/seats", json=body)
        assert response.status_code == 201, response.get_json()
        tokens[seat] = response.get_json()["token"]
    return tokens


def legal_options(client, match_id: str, token: str, rng: random.Random) -> list[dict]:
    """The bodies a seat may post now: every listed one, and one formed at random from each choice."""
    legal = client.get(f"/matches/{match_id}/legal-commands", headers=auth(token)).get_json()
    return legal["commands"] + [random_body(choice, rng) for choice in legal["choices"]]


def going_on(bodies: list[dict]) -> list[dict]:
    """The bodies that keep the match going (no resign or concede, offered at nearly every move), or all of
    them when nothing else is listed: random play that takes these reaches the game's own end."""
    return [b for b in bodies if b["type"] not in ("resign", "concede")] or bodies


def play_to_end(client, match_id: str, tokens: dict, rng: random.Random, max_commands: int = 5000,
                prefer=None) -> list[dict]:
    """Play random legal commands over HTTP until the match finishes; returns every response body.

    Giving up (`resign`, offered at nearly every move) is taken only when nothing else is listed, so
    the match reaches the game's own end.
    """
    responses = []
    for _ in range(max_commands):
        summary = client.get(f"/matches/{match_id}").get_json()
        if summary["status"] == "finished":
            return responses
        seat = rng.choice(sorted(summary["to_act"]))
        options = legal_options(client, match_id, tokens[seat], rng)
        assert options, f"{seat} is to act but has no legal command"
        if prefer is not None:
            preferred = [c for c in options if prefer(c)]
            options = preferred or options
        options = [c for c in options if c["type"] != "resign"] or options
        body = rng.choice(options)
        response = client.post(f"/matches/{match_id}/commands", json=body, headers=auth(tokens[seat]))
        assert response.status_code == 201, (body, response.get_json())
        responses.append(response.get_json())
    raise AssertionError("the match did not finish")


def play_until_a_bluff_call(
    client, match_id: str, tokens: dict, rng: random.Random, viewer: str | None = None, tries: int = 300
) -> int:
    """Play legal commands, calling a bluff whenever one may be called, until a call is ruled while the match runs;
    the ruling's version. `viewer`: the token the match's summary is read with (a delayed match shows seats more)."""
    for _ in range(tries):
        summary = client.get(f"/matches/{match_id}", headers=auth(viewer) if viewer else {}).get_json()
        assert summary["status"] == "active", "the seed plays a call while the match runs"
        seat = rng.choice(summary["to_act"])
        options = legal_options(client, match_id, tokens[seat], rng)
        calls = [o for o in options if o["type"] == "call_bluff"]
        body = rng.choice(calls or [o for o in options if o["type"] != "resign"])
        written = client.post(f"/matches/{match_id}/commands", json=body, headers=auth(tokens[seat])).get_json()
        ruling = next((e["version"] for e in written["events"] if "bluff_call" in e["public"]), None)
        if ruling is not None:
            return ruling
    raise AssertionError(f"no bluff call in {tries} commands")
