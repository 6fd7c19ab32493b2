"""A Coach and three pilots over HTTP: a Throwdown through a Rumble, and a Gambit of each outcome,
played only with legal-commands; every sealed play verifies in the audit."""

from __future__ import annotations

import random

from tests.support.api import auth, create_match, join_all, legal_options
from tests.support.independent_verifier import verify_export

THREE_PILOTS = {"p1": {}, "p2": {}, "p3": {}}
DRIVE_PREFERENCE = ("rumble", "escalate", "block", "counter")


def _play(client, config: dict, choose, seed: int, max_commands: int = 3000) -> tuple[str, list[str]]:
    """Play a match to its end over HTTP; `choose(rng, commands)` picks among the legal bodies."""
    rng = random.Random(seed)
    match = create_match(client, "gattai-conflict", config)
    tokens = join_all(client, match)
    mid = match["match_id"]
    for _ in range(max_commands):
        summary = client.get(f"/matches/{mid}").get_json()
        if summary["status"] == "finished":
            kinds = [e["kind"] for e in client.get(f"/matches/{mid}/events?limit=500").get_json()["events"]]
            return mid, kinds
        seat = rng.choice(summary["to_act"])
        commands = [c for c in legal_options(client, mid, tokens[seat], rng) if c["type"] != "resign"]
        response = client.post(f"/matches/{mid}/commands", json=choose(rng, commands), headers=auth(tokens[seat]))
        assert response.status_code == 201, response.get_json()
    raise AssertionError("the conflict did not end")


def _toward_a_rumble(rng: random.Random, commands: list[dict]) -> dict:
    """Escalate whenever possible and never concede while anything else is legal."""
    for kind in DRIVE_PREFERENCE:
        preferred = [c for c in commands if c["type"] == kind]
        if preferred:
            return rng.choice(preferred)
    others = [c for c in commands if c["type"] not in ("concede", "spend_omen", "record_trigger")]
    return rng.choice(others or commands)


def _audit_verifies(client, mid: str) -> list[dict]:
    calls = client.get(f"/matches/{mid}/audit/bluffs").get_json()["calls"]
    assert calls and all(call["verified"] is True for call in calls)
    verify_export(client.get(f"/matches/{mid}/export").get_data(as_text=True))
    return calls


def test_a_coach_and_three_pilots_run_a_throwdown_through_a_rumble_to_its_outcome(client):
    for seed in range(30):
        mid, kinds = _play(client, {"mode": "throwdown", "pilots": THREE_PILOTS}, _toward_a_rumble, seed)
        if "Rumbled" in kinds:
            break
    else:
        raise AssertionError("no Throwdown reached a Rumble in 30 conflicts")
    assert "ThrowdownEnded" in kinds
    summary = client.get(f"/matches/{mid}").get_json()
    assert [s["seat"] for s in summary["seats"]] == ["coach", "p1", "p2", "p3"]
    assert summary["outcome"]["winners"]
    calls = _audit_verifies(client, mid)
    assert {call["kind"] for call in calls} == {"initiative"}


def test_a_gambit_of_each_outcome_is_played_and_its_threshold_verifies(client):
    seen: dict[str, str] = {}
    for seed in range(60):
        wanted = [o for o in ("yes_but", "no_but", "no_and") if o not in seen]

        def choose(rng, commands, wanted=wanted):
            outcomes = [c for c in commands if c["type"] == "choose_outcome" and c["outcome"] in wanted]
            return outcomes[0] if outcomes else _toward_a_rumble(rng, commands)

        mid, _kinds = _play(client, {"mode": "gambit", "pilots": THREE_PILOTS}, choose, seed)
        outcome = client.get(f"/matches/{mid}/events?limit=500").get_json()["events"]
        resolved = next(e for e in outcome if e["kind"] == "GambitResolved")["public"]["outcome"]
        if resolved not in seen:
            seen[resolved] = mid
            assert {call["kind"] for call in _audit_verifies(client, mid)} == {"threshold"}
        if len(seen) == 4:
            break
    assert set(seen) == {"yes_and", "yes_but", "no_but", "no_and"}
