"""What an attacker tries against tournaments and the organizer's trail, and what the service answers.

Malformed amendments never reach the standings; cursors at the spec's maximum answer, never 500;
a write response holds exactly the records the write made; every organizer delivery of a running
match's secrets (each streamed batch included) is in the access trail; per-caller answers are
never cached for another caller.
"""

from __future__ import annotations

import random

import pytest

from domain.application import MatchService
from tests.support.api import auth, join_all, legal_options, play_to_end

DRAGONS = {"players": 3, "target_score": 30}
MAX_CURSOR = 2**63 - 1


@pytest.fixture
def tournament(client):
    """A tournament: (id, organizer key)."""
    body = client.post("/tournaments", json={"name": "Spring Open"}).get_json()
    return body["tournament_id"], body["organizer_key"]


def _match(client, tournament_id: str, key: str) -> dict:
    response = client.post("/matches", json={"ruleset": "dragons-gambit", "config": DRAGONS,
                                             "tournament_id": tournament_id}, headers=auth(key))
    assert response.status_code == 201
    return response.get_json()


def _finished_with_call(client, tournament_id: str, key: str) -> tuple[str, dict, int]:
    match = _match(client, tournament_id, key)
    tokens = join_all(client, match)
    play_to_end(client, match["match_id"], tokens, random.Random(3))
    calls = client.get(f"/matches/{match['match_id']}/audit/bluffs").get_json()["calls"]
    return match["match_id"], tokens, calls[0]["call_version"]


@pytest.mark.parametrize("amended, status, code", [
    ({"winners": 5}, 422, "invalid_body"),
    ({"winners": [5]}, 422, "invalid_body"),
    ({"reason": "no winners named"}, 422, "invalid_body"),
    ({"winners": ["mallory"]}, 422, "dispute_rejected"),
    ({"winners": ["p1", "p1"]}, 422, "dispute_rejected"),
])
def test_an_amended_outcome_must_name_seats_of_the_match(client, tournament, amended, status, code):
    tournament_id, key = tournament
    mid, tokens, call_version = _finished_with_call(client, tournament_id, key)
    client.post(f"/matches/{mid}/disputes", json={"call_version": call_version, "reason": "x"},
                headers=auth(tokens["p2"]))
    before = client.get(f"/matches/{mid}").get_json()["version"]
    response = client.post(f"/matches/{mid}/disputes/1/ruling", json={"decision": "upheld", "amended_outcome": amended},
                           headers=auth(key))
    assert (response.status_code, response.get_json()["code"]) == (status, code)
    assert client.get(f"/matches/{mid}").get_json()["version"] == before, "a refused ruling records nothing"
    assert client.get(f"/tournaments/{tournament_id}").status_code == 200


def test_an_access_log_cursor_at_the_specs_maximum_answers_an_empty_page(client, tournament):
    tournament_id, key = tournament
    match = _match(client, tournament_id, key)
    join_all(client, match)
    client.get(f"/matches/{match['match_id']}/view", headers=auth(key))
    response = client.get(f"/tournaments/{tournament_id}/access-log?after={MAX_CURSOR}", headers=auth(key))
    assert response.status_code == 200
    assert response.get_json()["entries"] == []
    assert client.get(f"/matches/{match['match_id']}/events?after={MAX_CURSOR}").get_json()["events"] == []


def test_a_dispute_response_holds_only_the_records_its_write_made(client, app, tournament, monkeypatch):
    tournament_id, key = tournament
    mid, tokens, call_version = _finished_with_call(client, tournament_id, key)
    original = MatchService.file_dispute

    def racing(self, match_id, call, reason, filed_by, **options):
        # Another seat's dispute lands between the route's read and this write.
        original(self, match_id, call, "first in", "p1")
        return original(self, match_id, call, reason, filed_by, **options)

    monkeypatch.setattr(MatchService, "file_dispute", racing)
    filed = client.post(f"/matches/{mid}/disputes", json={"call_version": call_version, "reason": "mine"},
                        headers=auth(tokens["p2"])).get_json()
    assert [(e["kind"], e["public"]["filed_by"]) for e in filed["events"]] == [("DisputeFiled", "p2")]
    assert filed["events"][0]["version"] == filed["version"]


def _frames(response, wanted: int) -> list[str]:
    """Read SSE frames from a streaming test response until `wanted` record frames arrived."""
    seen: list[str] = []
    buffer = ""
    for chunk in response.response:
        buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buffer:
            frame, buffer = buffer.split("\n\n", 1)
            seen.append(frame)
        if sum(1 for f in seen if "event: record" in f) >= wanted:
            return seen
    return seen


def test_every_batch_an_organizer_streams_from_a_running_match_is_in_the_access_trail(client, tournament):
    tournament_id, key = tournament
    match = _match(client, tournament_id, key)
    tokens = join_all(client, match)
    mid = match["match_id"]
    version = client.get(f"/matches/{mid}").get_json()["version"]
    stream = client.get(f"/matches/{mid}/events", headers={**auth(key), "Accept": "text/event-stream"},
                        buffered=False)
    try:
        _frames(stream, version)
        trail = client.get(f"/tournaments/{tournament_id}/access-log", headers=auth(key)).get_json()["entries"]
        assert [e["resource"] for e in trail] == ["events", "events-stream"]
        seat = client.get(f"/matches/{mid}").get_json()["to_act"][0]
        body = legal_options(client, mid, tokens[seat], random.Random(1))[0]
        assert client.post(f"/matches/{mid}/commands", json=body, headers=auth(tokens[seat])).status_code == 201
        later = _frames(stream, 1)
        assert any("event: record" in f for f in later)
    finally:
        stream.close()
    trail = client.get(f"/tournaments/{tournament_id}/access-log", headers=auth(key)).get_json()["entries"]
    assert [e["resource"] for e in trail] == ["events", "events-stream", "events-stream"]
    assert trail[-1]["match_version"] > trail[-2]["match_version"]


@pytest.mark.parametrize("resource", ["events", "view", "export", "replay?from=1&to=2", "audit/bluffs",
                                      "legal-commands"])
def test_per_caller_answers_are_never_stored_by_a_shared_cache(client, resource):
    match = client.post("/matches", json={"ruleset": "gambitz"}).get_json()
    tokens = join_all(client, match)
    response = client.get(f"/matches/{match['match_id']}/{resource}", headers=auth(tokens["p1"]))
    assert response.status_code == 200, response.get_json()
    assert "no-store" in response.headers["Cache-Control"]
    assert "Authorization" in response.headers.get("Vary", "")


def test_one_filer_files_at_most_twenty_disputes_in_a_match_and_lists_are_paged(client, tournament):
    tournament_id, key = tournament
    mid, tokens, call_version = _finished_with_call(client, tournament_id, key)
    codes = [client.post(f"/matches/{mid}/disputes", json={"call_version": call_version, "reason": f"spam {i}"},
                         headers=auth(tokens["p2"])).status_code for i in range(20)]
    assert codes == [201] * 20
    refused = client.post(f"/matches/{mid}/disputes", json={"call_version": call_version, "reason": "one more"},
                          headers=auth(tokens["p2"]))
    assert (refused.status_code, refused.get_json()["rule"]) == (422, "dispute_limit_reached")
    other = client.post(f"/matches/{mid}/disputes", json={"call_version": call_version, "reason": "mine"},
                        headers=auth(tokens["p1"]))
    assert other.status_code == 201, "the cap is per filer: another seat may still dispute"
    first = client.get(f"/matches/{mid}/disputes?limit=8").get_json()
    assert [d["dispute"] for d in first["disputes"]] == list(range(1, 9)) and first["next_after"] == 8
    last = client.get(f"/matches/{mid}/disputes?after=16&limit=8").get_json()
    assert [d["dispute"] for d in last["disputes"]] == list(range(17, 22)) and last["next_after"] is None
    queue = client.get(f"/tournaments/{tournament_id}/disputes?limit=15", headers=auth(key)).get_json()
    rest = client.get(f"/tournaments/{tournament_id}/disputes?after={queue['next_after']}&limit=15",
                      headers=auth(key)).get_json()
    assert len(queue["disputes"]) == 15 and len(rest["disputes"]) == 6 and rest["next_after"] is None


def test_streams_past_a_clients_cap_get_503_with_retry_after_and_a_closed_one_frees_its_slot(tmp_path):
    from service.app import create_app
    from service.settings import Settings

    app = create_app(Settings(database_url=f"sqlite:///{tmp_path / 's.sqlite3'}", data_dir=str(tmp_path),
                              max_streams_per_client=2, max_streams=3))
    client = app.test_client()
    match = client.post("/matches", json={"ruleset": "gambitz"}).get_json()
    join_all(client, match)
    path = f"/matches/{match['match_id']}/events"
    sse = {"Accept": "text/event-stream"}

    def follow(address: str):
        return client.get(path, headers=sse, buffered=False, environ_base={"REMOTE_ADDR": address})

    # (Flask's test client needs streamed responses closed newest first.)
    first, second = follow("10.0.0.1"), follow("10.0.0.1")
    assert (first.status_code, second.status_code) == (200, 200)
    refused = follow("10.0.0.1")
    assert refused.status_code == 503 and refused.get_json()["code"] == "too_many_streams"
    assert int(refused.headers["Retry-After"]) >= 1
    second.close()
    again = follow("10.0.0.1")
    assert again.status_code == 200, "a closed stream gives its slot back"
    third = follow("10.0.0.2")
    assert third.status_code == 200, "another client has its own budget"
    assert follow("10.0.0.3").status_code == 503, "the process holds at most max_streams"
    for response in (third, again, first):
        response.close()
    app.extensions["gambit"].close()


def test_a_tournament_lists_its_matches_a_page_at_a_time_with_standings_over_all(client, tournament):
    tournament_id, key = tournament
    created = [_match(client, tournament_id, key)["match_id"] for _ in range(5)]
    first = client.get(f"/tournaments/{tournament_id}?limit=2").get_json()
    assert [m["match_id"] for m in first["matches"]] == created[:2] and first["next_after"] == 2
    last = client.get(f"/tournaments/{tournament_id}?after=4&limit=2").get_json()
    assert [m["match_id"] for m in last["matches"]] == created[4:] and last["next_after"] is None
    assert client.get(f"/tournaments/{tournament_id}?after={MAX_CURSOR}").get_json()["matches"] == []


@pytest.mark.parametrize("path", ["/matches?after={max}", "/bluff-calls?after={max}", "/matches/{mid}/events?after={max}",
                                  "/matches/{mid}/disputes?after={max}", "/tournaments/{tid}/disputes?after={max}",
                                  "/tournaments/{tid}/access-log?after={max}", "/tournaments/{tid}?after={max}"])
def test_every_cursor_at_the_specs_maximum_answers_a_page_never_a_500(client, tournament, path):
    tournament_id, key = tournament
    match = _match(client, tournament_id, key)
    join_all(client, match)
    response = client.get(path.format(max=MAX_CURSOR, mid=match["match_id"], tid=tournament_id), headers=auth(key))
    assert response.status_code == 200, response.get_json()
