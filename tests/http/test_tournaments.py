"""Tournaments: organizer keys, full visibility with an access trail, disputes and rulings, receipts."""

from __future__ import annotations

import random

import pytest

from service.receipt_signatures import verify_receipt
from tests.support.api import auth, join_all, play_to_end

DRAGONS = {"players": 3, "target_score": 30}


@pytest.fixture
def tournament(client):
    """A tournament: (id, organizer key)."""
    response = client.post("/tournaments", json={"name": "Autumn Open"})
    assert response.status_code == 201
    body = response.get_json()
    ORGANIZER_KEYS[body["tournament_id"]] = body["organizer_key"]
    return body["tournament_id"], body["organizer_key"]


# Only the organizer adds matches to a tournament; the helpers below act as that organizer.
ORGANIZER_KEYS: dict[str, str] = {}


def _match(client, tournament_id: str, ruleset: str = "dragons-gambit", config: dict | None = None) -> dict:
    response = client.post("/matches", json={"ruleset": ruleset, "config": config or DRAGONS,
                                             "tournament_id": tournament_id},
                           headers=auth(ORGANIZER_KEYS[tournament_id]))
    assert response.status_code == 201
    return response.get_json()


def _finished_with_call(client, tournament_id: str, seed: int = 3) -> tuple[str, dict, dict]:
    match = _match(client, tournament_id)
    tokens = join_all(client, match)
    play_to_end(client, match["match_id"], tokens, random.Random(seed))
    audit = client.get(f"/matches/{match['match_id']}/audit/bluffs").get_json()
    assert audit["calls"], "a dragons-gambit match always ends rounds with a Final Gambit call"
    return match["match_id"], tokens, audit["calls"][0]


def test_the_organizer_key_is_shown_once_and_only_its_hash_is_kept(client, app, tournament):
    tournament_id, key = tournament
    public = client.get(f"/tournaments/{tournament_id}").get_json()
    assert key not in str(public)
    stored = app.extensions["gambit"].matches.tournaments.tournament(tournament_id)
    assert key not in str(vars(stored))


def test_a_match_belongs_to_its_tournament_and_appears_in_it(client, tournament):
    tournament_id, _ = tournament
    match = _match(client, tournament_id)
    assert match["tournament_id"] == tournament_id
    listed = client.get(f"/tournaments/{tournament_id}").get_json()
    assert [m["match_id"] for m in listed["matches"]] == [match["match_id"]]
    assert client.get(f"/matches?tournament_id={tournament_id}").get_json()["matches"][0]["match_id"] == match["match_id"]


def test_the_organizer_sees_every_secret_of_a_running_match_and_the_read_is_logged(client, app, tournament):
    tournament_id, key = tournament
    match = _match(client, tournament_id)
    join_all(client, match)
    mid = match["match_id"]
    as_organizer = client.get(f"/matches/{mid}/view", headers=auth(key)).get_json()
    assert as_organizer["viewer"] == "organizer"
    assert as_organizer["state"]["draw_pile"], "organizers see the draw pile order"
    events = client.get(f"/matches/{mid}/events", headers=auth(key)).get_json()["events"]
    assert all("secret" in e for e in events if e["commitment"] is not None)
    spectator = client.get(f"/matches/{mid}/view").get_json()
    assert "draw_pile" not in spectator["state"] or not spectator["state"]["draw_pile"]
    log = client.get(f"/tournaments/{tournament_id}/access-log", headers=auth(key)).get_json()["entries"]
    assert [(e["match_id"], e["resource"]) for e in log] == [(mid, "view"), (mid, "events")]
    assert all(e["organizer"].startswith("organizer:") and key not in e["organizer"] for e in log)


def test_reads_by_seats_spectators_and_after_the_end_are_not_in_the_access_trail(client, tournament):
    tournament_id, key = tournament
    mid, tokens, _ = _finished_with_call(client, tournament_id)
    client.get(f"/matches/{mid}/view", headers=auth(tokens["p1"]))
    client.get(f"/matches/{mid}/view")
    client.get(f"/matches/{mid}/export", headers=auth(key))
    assert client.get(f"/tournaments/{tournament_id}/access-log", headers=auth(key)).get_json()["entries"] == []


def test_the_access_trail_and_dispute_queue_are_for_the_organizer_only(client, tournament):
    tournament_id, _ = tournament
    for path in ("access-log", "disputes"):
        assert client.get(f"/tournaments/{tournament_id}/{path}").status_code == 401
        assert client.get(f"/tournaments/{tournament_id}/{path}", headers=auth("wrong")).status_code == 403


def test_an_organizer_key_of_another_tournament_sees_nothing_secret(client, tournament):
    tournament_id, _ = tournament
    other_key = client.post("/tournaments", json={"name": "Other"}).get_json()["organizer_key"]
    match = _match(client, tournament_id)
    join_all(client, match)
    response = client.get(f"/matches/{match['match_id']}/view", headers=auth(other_key))
    assert response.status_code == 401


def test_a_seat_files_a_dispute_and_the_organizer_rules_it_with_an_amended_outcome(client, tournament):
    tournament_id, key = tournament
    mid, tokens, call = _finished_with_call(client, tournament_id)
    filed = client.post(f"/matches/{mid}/disputes", json={"call_version": call["call_version"], "reason": "miscount"},
                        headers=auth(tokens["p2"]))
    assert filed.status_code == 201
    assert filed.get_json()["events"][0]["kind"] == "DisputeFiled"
    queue = client.get(f"/tournaments/{tournament_id}/disputes", headers=auth(key)).get_json()["disputes"]
    assert [(d["match_id"], d["status"], d["filed_by"]) for d in queue] == [(mid, "open", "p2")]
    amended = {"winners": ["p2"], "reason": "dispute 1 upheld"}
    ruled = client.post(f"/matches/{mid}/disputes/1/ruling",
                        json={"decision": "upheld", "note": "recount", "amended_outcome": amended}, headers=auth(key))
    assert ruled.status_code == 201
    assert [e["kind"] for e in ruled.get_json()["events"]] == ["DisputeRuled", "OutcomeAmended"]
    summary = client.get(f"/matches/{mid}").get_json()
    assert summary["outcome"] == amended
    kinds = [e["kind"] for e in client.get(f"/matches/{mid}/events?limit=500").get_json()["events"]]
    assert kinds.index("MatchFinished") < kinds.index("DisputeFiled") < kinds.index("OutcomeAmended")
    entry = client.get(f"/matches/{mid}/audit/bluffs").get_json()["calls"][0]
    assert [d["kind"] for d in entry["disputes"]] == ["DisputeFiled", "DisputeRuled"]


def test_only_the_organizer_rules_and_a_dispute_is_ruled_once(client, tournament):
    tournament_id, key = tournament
    mid, tokens, call = _finished_with_call(client, tournament_id)
    client.post(f"/matches/{mid}/disputes", json={"call_version": call["call_version"], "reason": "x"},
                headers=auth(tokens["p1"]))
    assert client.post(f"/matches/{mid}/disputes/1/ruling", json={"decision": "upheld"},
                       headers=auth(tokens["p1"])).status_code == 403
    assert client.post(f"/matches/{mid}/disputes/1/ruling", json={"decision": "overturned"},
                       headers=auth(key)).status_code == 201
    again = client.post(f"/matches/{mid}/disputes/1/ruling", json={"decision": "upheld"}, headers=auth(key))
    assert again.status_code == 422 and again.get_json()["rule"] == "dispute_already_ruled"


def test_a_dispute_must_name_a_bluff_call_and_needs_credentials(client, tournament):
    tournament_id, key = tournament
    mid, _tokens, _ = _finished_with_call(client, tournament_id)
    bad = client.post(f"/matches/{mid}/disputes", json={"call_version": 2, "reason": "x"}, headers=auth(key))
    assert bad.status_code == 422 and bad.get_json()["rule"] == "unknown_call"
    assert client.post(f"/matches/{mid}/disputes", json={"call_version": 2, "reason": "x"}).status_code == 401


def test_a_finished_match_carries_a_signed_receipt_matching_its_export_trailer(client, tournament):
    tournament_id, _ = tournament
    mid, _, _ = _finished_with_call(client, tournament_id)
    key = client.get("/.well-known/gambit-signing-key").get_json()
    receipt = client.get(f"/matches/{mid}").get_json()["receipt"]
    lines = client.get(f"/matches/{mid}/export").get_data(as_text=True).splitlines()
    import json

    trailer = json.loads(lines[-1])
    assert {k: trailer[k] for k in ("version", "head", "signature")} == {k: receipt[k] for k in ("version", "head", "signature")}
    assert verify_receipt(key["public_key"], receipt)
    assert not verify_receipt(key["public_key"], {**receipt, "version": receipt["version"] - 1})


def test_standings_count_wins_by_player_name(client, tournament):
    tournament_id, _ = tournament
    _finished_with_call(client, tournament_id, seed=4)
    standings = client.get(f"/tournaments/{tournament_id}").get_json()["standings"]
    assert sum(row["played"] for row in standings) == 3
    assert sum(row["wins"] for row in standings) >= 1


def test_a_dispute_may_name_the_call_by_its_ruling_record(client, tournament):
    tournament_id, _ = tournament
    mid, tokens, call = _finished_with_call(client, tournament_id)
    assert call["ruling_version"] != call["call_version"], "a Final Gambit is ruled at the round's end"
    filed = client.post(f"/matches/{mid}/disputes", json={"call_version": call["ruling_version"], "reason": "x"},
                        headers=auth(tokens["p3"]))
    assert filed.status_code == 201
    assert filed.get_json()["events"][0]["public"]["ruling_version"] == call["ruling_version"]


def test_only_the_organizer_adds_matches_to_a_tournament(client, tournament):
    tournament_id, key = tournament
    body = {"ruleset": "gambitz", "config": {}, "tournament_id": tournament_id}
    assert client.post("/matches", json=body).status_code == 401
    other = client.post("/tournaments", json={"name": "Elsewhere"}).get_json()["organizer_key"]
    refused = client.post("/matches", json=body, headers=auth(other))
    assert refused.status_code == 403 and refused.get_json()["code"] == "not_organizer"
    assert client.post("/matches", json=body, headers=auth("made-up")).status_code == 403
    assert client.get(f"/matches?tournament_id={tournament_id}").get_json()["matches"] == []
    assert client.post("/matches", json=body, headers=auth(key)).status_code == 201
    assert len(client.get(f"/matches?tournament_id={tournament_id}").get_json()["matches"]) == 1
