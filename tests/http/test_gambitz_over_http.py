"""A whole gambitz match over the REST API, played only through legal-commands."""

from __future__ import annotations

import random

import pytest

from domain.chance import Chance, Drawn
from tests.support.api import auth, create_match, going_on, join_all, legal_options, play_to_end
from tests.support.independent_verifier import verify_export


def test_a_three_seat_match_is_played_to_the_end_and_its_export_verifies(client):
    match = create_match(client, "gambitz", {"players": 3})
    tokens = join_all(client, match, client_seeds={"p1": "00ff", "p3": "abcdef"})
    play_to_end(client, match["match_id"], tokens, random.Random(7))
    summary = client.get(f"/matches/{match['match_id']}").get_json()
    assert summary["status"] == "finished"
    assert summary["outcome"]["winners"]
    export = client.get(f"/matches/{match['match_id']}/export")
    assert export.mimetype == "application/x-ndjson"
    report = verify_export(export.get_data(as_text=True))
    assert report["records"] == summary["version"]
    assert report["chance_rederived"] >= 1
    assert report["commitments_opened"] > 0


def test_the_summary_echoes_the_config_with_defaults_and_commits_to_the_seed(client):
    match = create_match(client, "gambitz", {"players": 4})
    assert match["config"]["players"] == 4
    assert match["config"]["first_seat"] == "p1"
    assert match["status"] == "open"
    assert [s["seat"] for s in match["seats"]] == ["p1", "p2", "p3", "p4"]
    assert len(match["server_seed_commitment"]) == 64
    assert client.get(f"/matches/{match['match_id']}").headers["ETag"] == '"1"'


def test_a_match_is_open_until_every_seat_is_taken_then_active(client):
    match = create_match(client, "gambitz", {"players": 2})
    mid = match["match_id"]
    first = client.post(f"/matches/{mid}/seats", json={"name": "ann"}).get_json()
    assert first["seat"] == "p1" and len(first["token"]) >= 40
    assert client.get(f"/matches/{mid}").get_json()["status"] == "open"
    client.post(f"/matches/{mid}/seats", json={"name": "bob"})
    summary = client.get(f"/matches/{mid}").get_json()
    assert summary["status"] == "active"
    assert summary["to_act"] == ["p1"]


def test_every_listed_legal_command_is_accepted_at_that_version(client, app):
    match = create_match(client, "gambitz", {"players": 2})
    tokens = join_all(client, match)
    mid = match["match_id"]
    listed = client.get(f"/matches/{mid}/legal-commands", headers=auth(tokens["p1"])).get_json()
    version = listed["version"]
    for body in listed["commands"]:
        # Each body is checked against the same version: decide on a fresh load, never saved.
        loaded = app.extensions["gambit"].matches.match(mid)
        from service.bodies import parse_command

        loaded.act("p1", parse_command(loaded.ruleset, body))
        assert loaded.version > version
    assert client.get(f"/matches/{mid}/legal-commands", headers=auth(tokens["p2"])).get_json()["commands"] == []


def test_the_same_idempotency_key_returns_the_same_response(client):
    match = create_match(client, "gambitz", {"players": 2})
    tokens = join_all(client, match)
    mid = match["match_id"]
    body = client.get(f"/matches/{mid}/legal-commands", headers=auth(tokens["p1"])).get_json()["commands"][0]
    headers = {**auth(tokens["p1"]), "Idempotency-Key": "retry-1"}
    first = client.post(f"/matches/{mid}/commands", json=body, headers=headers)
    again = client.post(f"/matches/{mid}/commands", json=body, headers=headers)
    assert first.status_code == again.status_code == 201
    assert first.get_json() == again.get_json()
    assert first.headers["ETag"] == again.headers["ETag"]
    assert client.get(f"/matches/{mid}").get_json()["version"] == first.get_json()["version"]


def test_a_command_with_a_current_if_match_is_taken_and_a_stale_one_gets_412(client):
    match = create_match(client, "gambitz", {"players": 2})
    tokens = join_all(client, match)
    mid = match["match_id"]
    legal = client.get(f"/matches/{mid}/legal-commands", headers=auth(tokens["p1"])).get_json()
    stale = client.post(f"/matches/{mid}/commands", json=legal["commands"][0],
                        headers={**auth(tokens["p1"]), "If-Match": f'"{legal["version"] - 1}"'})
    assert stale.status_code == 412
    assert stale.get_json()["code"] == "version_mismatch"
    fresh = client.post(f"/matches/{mid}/commands", json=legal["commands"][0],
                        headers={**auth(tokens["p1"]), "If-Match": f'"{legal["version"]}"'})
    assert fresh.status_code == 201


def test_view_at_any_version_and_replay_frames_agree(client):
    match = create_match(client, "gambitz", {"players": 2})
    tokens = join_all(client, match)
    mid = match["match_id"]
    play_to_end(client, mid, tokens, random.Random(2))
    version = client.get(f"/matches/{mid}").get_json()["version"]
    frames = client.get(f"/matches/{mid}/replay?from=1&to={version}").get_json()["frames"]
    assert [f["version"] for f in frames] == list(range(1, version + 1))
    for at in (1, 3, version // 2, version):
        view = client.get(f"/matches/{mid}/view?at={at}").get_json()
        assert view == frames[at - 1]["view"]
        assert frames[at - 1]["event"]["version"] == at


def test_the_match_list_filters_by_status_and_ruleset_and_pages(client):
    open_ids = [create_match(client, "gambitz", {"players": 2})["match_id"] for _ in range(3)]
    active = create_match(client, "gambitz", {"players": 2})
    join_all(client, active)
    listed = client.get("/matches?status=open&ruleset=gambitz&limit=2").get_json()
    assert [m["match_id"] for m in listed["matches"]] == open_ids[::-1][:2]
    rest = client.get(f"/matches?status=open&limit=2&after={listed['next']}").get_json()
    assert [m["match_id"] for m in rest["matches"]] == [open_ids[0]] and rest["next"] is None
    assert [m["match_id"] for m in client.get("/matches?status=active").get_json()["matches"]] == [active["match_id"]]


def test_events_page_with_after_and_limit(client):
    match = create_match(client, "gambitz", {"players": 2})
    join_all(client, match)
    mid = match["match_id"]
    page = client.get(f"/matches/{mid}/events?after=1&limit=2").get_json()
    assert [r["version"] for r in page["events"]] == [2, 3]
    assert page["next_after"] == 3
    last = client.get(f"/matches/{mid}/events?after=3&limit=500").get_json()
    assert last["next_after"] is None


def test_the_event_stream_sends_records_as_server_sent_events(client):
    match = create_match(client, "gambitz", {"players": 2})
    tokens = join_all(client, match)
    mid = match["match_id"]
    play_to_end(client, mid, tokens, random.Random(5))
    with client.get(f"/matches/{mid}/events?after=0", headers={"Accept": "text/event-stream"}) as stream:
        text = stream.get_data(as_text=True)
    assert stream.mimetype == "text/event-stream"
    assert "id: 1\nevent: record\n" in text
    assert text.rstrip().endswith("event: end\ndata: {}")


def test_the_view_etag_is_the_version_and_only_the_latest_view_answers_304(client):
    match = create_match(client, "gambitz", {"players": 2})
    join_all(client, match)
    mid = match["match_id"]
    latest = client.get(f"/matches/{mid}/view")
    version = latest.get_json()["version"]
    assert latest.headers["ETag"] == f'"{version}"'
    assert client.get(f"/matches/{mid}/view", headers={"If-None-Match": f'"{version}"'}).status_code == 304
    # A past version's view changes when the match ends, so it is always sent in full.
    past = client.get(f"/matches/{mid}/view?at=2", headers={"If-None-Match": '"2"'})
    assert past.status_code == 200 and past.headers["ETag"] == '"2"'


def _in_order(self: Chance, purpose: str, n: int) -> Drawn:
    """A stacked shuffle: the deck stays in catalogue order (Queens first)."""
    return Drawn("permutation", self._purpose(purpose), n, list(range(n)))


@pytest.fixture
def stacked_deck(monkeypatch):
    """Every shuffle of the test leaves the deck in order, so p1 is dealt three Queens."""
    monkeypatch.setattr(Chance, "permutation", _in_order)


def test_every_viewer_s_view_says_when_a_redraw_is_due(client, stacked_deck):
    match = create_match(client, "gambitz", {"players": 2})
    tokens = join_all(client, match)
    mid = match["match_id"]
    viewers = [{}, auth(tokens["p1"]), auth(tokens["p2"])]
    assert all(client.get(f"/matches/{mid}/view", headers=h).get_json()["state"]["redraw_due"] is True for h in viewers)
    assert client.get(f"/matches/{mid}/legal-commands", headers=auth(tokens["p1"])).get_json()["commands"] == \
        [{"type": "redraw"}, {"type": "resign"}]
    redrawn = client.post(f"/matches/{mid}/commands", json={"type": "redraw"}, headers=auth(tokens["p1"]))
    assert redrawn.status_code == 201
    views = [client.get(f"/matches/{mid}/view", headers=h).get_json() for h in viewers]
    assert all(view["state"]["redraw_due"] is False for view in views)
    assert views[0]["state"]["shown_hands"] == [{"seat": "p1", "cards": ["queen-blue", "queen-green", "queen-red"]}]


def test_the_view_shows_running_scores_and_the_final_scores_at_the_end(client):
    match = create_match(client, "gambitz", {"players": 2})
    tokens = join_all(client, match)
    mid = match["match_id"]
    rng = random.Random(16)
    while True:
        view = client.get(f"/matches/{mid}/view").get_json()
        if view["status"] == "finished":
            break
        # While the game runs the running score is what each seat has scored: hands are secret.
        assert view["state"]["scores"] == view["state"]["points"]
        seat = view["to_act"][0]
        body = rng.choice(going_on(legal_options(client, mid, tokens[seat], rng)))
        assert client.post(f"/matches/{mid}/commands", json=body, headers=auth(tokens[seat])).status_code == 201
    final = view["outcome"]
    assert view["state"]["scores"] == final["scores"]
    assert final["scores"] == {seat: final["points"][seat] - final["penalties"][seat] for seat in ("p1", "p2")}
