"""Giving up over HTTP: `resign` is offered in legal-commands, ends the match as a resignation, and the
record verifies with `gambit verify` (organizer's and spectator's exports, on every store)."""

from __future__ import annotations

import io
import random

import pytest

from service.verify_cli import EXIT_VERIFIED, run_verify
from tests.support.api import auth, join_all, legal_options

GAMES = {
    "gambitz": {"players": 3},
    "dragons-gambit": {"players": 2},
    "gambit-tcg": {},
    "gattai-conflict": {"mode": "throwdown", "pilots": {"p1": {}, "p2": {}}},
}


def _played_a_while(client, ruleset: str, steps: int, rng: random.Random) -> tuple[str, dict]:
    """A tournament's match after a few random moves of the game itself over HTTP; returns its id and the
    tokens (the seats', and the organizer's under `organizer`)."""
    tournament = client.post("/tournaments", json={"name": "Resignation Cup"}).get_json()
    organizer = tournament["organizer_key"]
    created = client.post("/matches", headers=auth(organizer), json={
        "ruleset": ruleset, "config": GAMES[ruleset], "tournament_id": tournament["tournament_id"]})
    assert created.status_code == 201, created.get_json()
    match = created.get_json()
    tokens = join_all(client, match)
    match_id = match["match_id"]
    for _ in range(steps):
        seat = rng.choice(sorted(client.get(f"/matches/{match_id}").get_json()["to_act"]))
        body = rng.choice([b for b in legal_options(client, match_id, tokens[seat], rng) if b["type"] != "resign"])
        assert client.post(f"/matches/{match_id}/commands", json=body, headers=auth(tokens[seat])).status_code == 201
    return match_id, {**tokens, "organizer": organizer}


def _verified(tmp_path, text: str, key: str, name: str) -> str:
    """`gambit verify` of an export; its report (the exit code must say verified)."""
    path = tmp_path / f"{name}.ndjson"
    path.write_text(text)
    out = io.StringIO()
    code = run_verify(str(path), key, as_json=False, out=out, err=io.StringIO())
    assert code == EXIT_VERIFIED, out.getvalue()
    return out.getvalue()


@pytest.mark.parametrize("ruleset", sorted(GAMES))
def test_a_resignation_posted_over_http_ends_the_match_and_its_record_verifies(client, tmp_path, ruleset):
    rng = random.Random(f"resign-over-http/{ruleset}")
    match_id, tokens = _played_a_while(client, ruleset, 4, rng)
    summary = client.get(f"/matches/{match_id}").get_json()
    seat = min(summary["to_act"])
    listed = client.get(f"/matches/{match_id}/legal-commands", headers=auth(tokens[seat])).get_json()["commands"]
    assert {"type": "resign"} in listed
    posted = client.post(f"/matches/{match_id}/commands", json={"type": "resign"}, headers=auth(tokens[seat]))
    assert posted.status_code == 201, posted.get_json()
    # A gattai-conflict resignation still lets pending Payloads and the cleanup run: play those out.
    for _ in range(50):
        summary = client.get(f"/matches/{match_id}").get_json()
        if summary["status"] == "finished":
            break
        acting = min(summary["to_act"])
        body = rng.choice(legal_options(client, match_id, tokens[acting], rng))
        assert client.post(f"/matches/{match_id}/commands", json=body, headers=auth(tokens[acting])).status_code == 201
    assert summary["status"] == "finished"
    assert summary["outcome"]["reason"] == "resignation" and seat not in summary["outcome"]["winners"]
    key = client.get("/.well-known/gambit-signing-key").get_json()["public_key"]
    for viewer, headers in (("organizer", auth(tokens["organizer"])), ("spectator", {})):
        text = client.get(f"/matches/{match_id}/export", headers=headers).get_data(as_text=True)
        assert _verified(tmp_path, text, key, viewer).startswith("VERIFIED")


@pytest.mark.parametrize("ruleset", sorted(GAMES))
def test_a_seat_that_could_not_act_is_refused_a_resignation_as_a_problem_and_nothing_changes(client, ruleset):
    match_id, tokens = _played_a_while(client, ruleset, 2, random.Random(f"refused/{ruleset}"))
    summary = client.get(f"/matches/{match_id}").get_json()
    seats = [s for s in tokens if s != "organizer"]
    idle = [s for s in seats if s not in summary["to_act"] and s not in summary.get("may_act", [])]
    if ruleset == "gattai-conflict":
        idle = ["p2"]  # a pilot who is not the commander never resigns for the pilots
    refused = client.post(f"/matches/{match_id}/commands", json={"type": "resign"}, headers=auth(tokens[idle[0]]))
    assert refused.status_code == 422 and refused.mimetype == "application/problem+json"
    assert refused.get_json()["rule"] in ("not_your_turn", "cannot_resign")
    assert client.get(f"/matches/{match_id}").get_json()["version"] == summary["version"]
