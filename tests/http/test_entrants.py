"""Tournament entrants: registered by the organizer with an invite shown once, paired to seats when a match is
created, joining with their invite; their names public, their contacts the organizer's, their invites nobody's."""

from __future__ import annotations

import io
import json
import secrets
import zipfile

import pytest

from tests.support.api import auth
from tests.support.entrants import NORTH, SOUTH, join, new_desk, play_entrants, resign


@pytest.fixture
def desk(client):
    """A tournament as its organizer holds it."""
    return new_desk(client)


def _version(client, match_id: str) -> int:
    return client.get(f"/matches/{match_id}").get_json()["version"]


def _unzipped(response) -> str:
    """Every member of a zip response, as text, one after the other."""
    with zipfile.ZipFile(io.BytesIO(response.get_data())) as archive:
        return "".join(archive.read(name).decode("utf-8") for name in archive.namelist())


def _every_match_record(client, match_id: str, headers: dict | None = None) -> str:
    """Every way a match's records reach anyone: summary, events, replay, export (as the given caller)."""
    base = f"/matches/{match_id}"
    return "".join(
        client.get(base + suffix, headers=headers or {}).get_data(as_text=True)
        for suffix in ("", "/events?limit=500", "/replay", "/export", "/view")
    )


# ----- the whole flow -------------------------------------------------------------------------


def test_an_entrant_registered_paired_and_joined_by_invite_plays_and_stands_by_its_id(client, desk):
    ann = desk.register("Ann", contact="ann@example.org")
    bob = desk.register("Bob")
    assert (ann["entrant_id"], bob["entrant_id"]) == ("e1", "e2")
    assert ann["contact"] == "ann@example.org" and bob["contact"] is None
    match = desk.match({SOUTH: "e1", NORTH: "e2"})
    assert [(s["seat"], s["entrant_id"], s["joined"]) for s in match["seats"]] == [
        (SOUTH, "e1", False),
        (NORTH, "e2", False),
    ]
    first = join(client, match["match_id"], invite=ann["invite"])
    second = join(client, match["match_id"], invite=bob["invite"])
    assert (first["seat"], second["seat"]) == (SOUTH, NORTH), "an invite takes its entrant's paired seat"
    summary = client.get(f"/matches/{match['match_id']}").get_json()
    assert [(s["name"], s["entrant_id"]) for s in summary["seats"]] == [("Ann", "e1"), ("Bob", "e2")]
    entry = client.get(f"/tournaments/{desk.tournament_id}/entry", headers=auth(ann["invite"])).get_json()
    assert entry["entrant"] == {"entrant_id": "e1", "name": "Ann"} and entry["tournament_name"] == "Winter Cup"
    assert entry["matches"] == [
        {"match_id": match["match_id"], "ruleset": "gambit-board", "seat": SOUTH, "status": "active", "joined": True}
    ]
    resign(client, match["match_id"], second["token"])
    rows = {row["entrant_id"]: row for row in desk.standings()}
    assert rows["e1"]["name"] == "Ann" and (rows["e1"]["rank"], rows["e1"]["points"], rows["e1"]["wins"]) == (1, 1, 1)
    assert (rows["e2"]["rank"], rows["e2"]["points"], rows["e2"]["losses"]) == (2, 0, 1)


def test_the_entrant_list_shows_each_entrants_seats_a_page_at_a_time(client, desk):
    ann, bob, cid = desk.register("Ann"), desk.register("Bob"), desk.register("Cid")
    match = desk.match({NORTH: "e2"})
    join(client, match["match_id"], invite=bob["invite"])
    join(client, match["match_id"], invite=cid["invite"])
    first = client.get(f"/tournaments/{desk.tournament_id}/entrants?limit=2").get_json()
    assert [e["entrant_id"] for e in first["entrants"]] == ["e1", "e2"] and first["next_after"] == 2
    assert first["entrants"][0]["seats"] == [] and ann["entrant_id"] == "e1"
    assert first["entrants"][1]["seats"] == [{"match_id": match["match_id"], "seat": NORTH, "joined": True}]
    rest = client.get(f"/tournaments/{desk.tournament_id}/entrants?after=2").get_json()
    assert rest["entrants"][0]["seats"] == [{"match_id": match["match_id"], "seat": SOUTH, "joined": True}]
    assert rest["next_after"] is None
    one = client.get(f"/tournaments/{desk.tournament_id}/entrants/e3").get_json()
    assert one["name"] == "Cid" and one["seats"][0]["seat"] == SOUTH


def test_an_unpaired_entrant_takes_any_open_unpaired_seat_and_its_join_record_names_it(client, desk):
    ann = desk.register("Ann")
    match = desk.match()
    joined = join(client, match["match_id"], invite=ann["invite"], seat=NORTH, name="Annie")
    assert joined["seat"] == NORTH
    events = client.get(f"/matches/{match['match_id']}/events").get_json()["events"]
    assert events[-1]["kind"] == "SeatJoined"
    assert events[-1]["public"] == {"seat": NORTH, "name": "Annie", "client_seed": "", "entrant_id": "e1"}


def test_a_join_without_an_invite_records_no_entrant(client, desk):
    match = desk.match()
    join(client, match["match_id"], name="walk-in")
    events = client.get(f"/matches/{match['match_id']}/events").get_json()["events"]
    assert "entrant_id" not in events[-1]["public"]
    assert client.get(f"/matches/{match['match_id']}").get_json()["seats"][0]["entrant_id"] is None


def test_the_pairing_is_in_the_public_creation_record(client, desk):
    desk.register("Ann")
    match = desk.match({NORTH: "e1"})
    created = client.get(f"/matches/{match['match_id']}/events").get_json()["events"][0]
    assert created["kind"] == "MatchCreated" and created["public"]["entrants"] == {NORTH: "e1"}


def test_an_entrants_default_name_is_cut_to_a_seat_names_length(client, desk):
    long = desk.register("L" * 100)
    joined = join(client, desk.match()["match_id"], invite=long["invite"])
    seat = client.get(f"/matches/{joined['match_id']}").get_json()["seats"][0]
    assert seat["name"] == "L" * 64 and seat["entrant_id"] == "e1"


# ----- registering and invites: who may, and what is refused -----------------------------------


@pytest.mark.parametrize(
    "body, field",
    [({}, "name"), ({"name": ""}, "name"), ({"name": "x" * 101}, "name"), ({"name": "A", "contact": "c" * 201}, "contact"),
     ({"name": 5}, "name"), ({"name": "A", "team": "red"}, "team")],
)
def test_an_entrant_needs_a_name_of_1_to_100_characters_and_a_contact_of_at_most_200(client, desk, body, field):
    response = client.post(f"/tournaments/{desk.tournament_id}/entrants", json=body, headers=desk.organizer)
    assert response.status_code == 422 and field in response.get_json()["errors"]
    assert client.get(f"/tournaments/{desk.tournament_id}/entrants").get_json()["entrants"] == []


def test_only_the_organizer_registers_entrants_and_reissues_invites(client, desk):
    other = new_desk(client, "Elsewhere")
    path = f"/tournaments/{desk.tournament_id}/entrants"
    assert client.post(path, json={"name": "Ann"}).get_json()["code"] == "credentials_required"
    assert client.post(path, json={"name": "Ann"}, headers=other.organizer).get_json()["code"] == "not_organizer"
    desk.register("Ann")
    assert client.post(f"{path}/e1/invite").status_code == 401
    assert client.post(f"{path}/e1/invite", headers=other.organizer).status_code == 403
    assert client.get(path).get_json()["entrants"][0]["entrant_id"] == "e1", "nothing else was registered"


def test_an_unknown_tournament_or_entrant_is_404(client, desk):
    unknown = "00000000-0000-0000-0000-000000000000"
    assert client.post(f"/tournaments/{unknown}/entrants", json={"name": "A"}).status_code == 404
    assert client.get(f"/tournaments/{unknown}/entrants").get_json()["code"] == "tournament_not_found"
    assert client.get(f"/tournaments/{unknown}/entry").status_code == 404
    refused = client.post(f"/tournaments/{desk.tournament_id}/entrants/e9/invite", headers=desk.organizer)
    assert refused.status_code == 404 and refused.get_json()["code"] == "entrant_not_found"
    assert client.get(f"/tournaments/{desk.tournament_id}/entrants/e9").get_json()["code"] == "entrant_not_found"


def test_a_reissued_invite_replaces_the_one_before(client, desk):
    ann = desk.register("Ann")
    again = client.post(f"/tournaments/{desk.tournament_id}/entrants/e1/invite", headers=desk.organizer)
    assert again.status_code == 201 and again.headers["Cache-Control"] == "no-store"
    fresh = again.get_json()
    assert fresh["entrant_id"] == "e1" and fresh["invite"] != ann["invite"]
    entry = f"/tournaments/{desk.tournament_id}/entry"
    assert client.get(entry, headers=auth(ann["invite"])).status_code == 401
    match = desk.match({SOUTH: "e1"})
    stale = client.post(f"/matches/{match['match_id']}/seats", json={"invite": ann["invite"]})
    assert stale.status_code == 403 and stale.get_json()["code"] == "invalid_invite"
    assert client.get(entry, headers=auth(fresh["invite"])).get_json()["entrant"]["entrant_id"] == "e1"
    assert join(client, match["match_id"], invite=fresh["invite"])["seat"] == SOUTH


# ----- the pairing at match creation --------------------------------------------------------------


@pytest.mark.parametrize(
    "pairing, detail",
    [({SOUTH: "e9"}, "entrant 'e9'"), ({"east": "e1"}, "seat 'east'"), ({SOUTH: "e1", NORTH: "e1"}, "two seats"),
     ({SOUTH: 1}, None)],
)
def test_a_pairing_names_entrants_of_the_tournament_on_seats_of_the_match_each_once(client, desk, pairing, detail):
    desk.register("Ann")
    body = {"ruleset": "gambit-board", "tournament_id": desk.tournament_id, "entrants": pairing}
    response = client.post("/matches", json=body, headers=desk.organizer)
    assert response.status_code == 422 and response.get_json()["code"] == "invalid_body"
    assert detail is None or detail in response.get_json()["detail"]
    assert client.get(f"/matches?tournament_id={desk.tournament_id}").get_json()["matches"] == []


def test_a_match_of_no_tournament_pairs_no_entrant(client, desk):
    desk.register("Ann")
    response = client.post("/matches", json={"ruleset": "gambit-board", "entrants": {SOUTH: "e1"}})
    assert response.status_code == 422 and response.get_json()["code"] == "invalid_body"


# ----- joining: the rules of invites and reserved seats --------------------------------------------


def _refused(client, match_id: str, body: dict) -> dict:
    before = _version(client, match_id)
    response = client.post(f"/matches/{match_id}/seats", json=body)
    assert _version(client, match_id) == before, "a refused join records nothing"
    return {"status": response.status_code, **response.get_json()}


def test_a_paired_seat_refuses_a_join_without_an_invite(client, desk):
    desk.register("Ann")
    match = desk.match({SOUTH: "e1"})
    refused = _refused(client, match["match_id"], {"name": "mallory", "seat": SOUTH})
    assert (refused["status"], refused["code"]) == (403, "seat_reserved")
    assert join(client, match["match_id"], name="walk-in")["seat"] == NORTH, "the open unpaired seat is taken"


def test_a_match_whose_open_seats_are_all_paired_refuses_a_join_without_an_invite(client, desk):
    desk.register("Ann"), desk.register("Bob")
    match = desk.match({SOUTH: "e1", NORTH: "e2"})
    assert _refused(client, match["match_id"], {"name": "mallory"})["code"] == "seat_reserved"


def test_a_paired_seat_refuses_another_entrants_invite(client, desk):
    desk.register("Ann")
    bob = desk.register("Bob")
    match = desk.match({SOUTH: "e1"})
    refused = _refused(client, match["match_id"], {"invite": bob["invite"], "seat": SOUTH})
    assert (refused["status"], refused["code"]) == (403, "seat_reserved")


def test_a_paired_entrant_naming_another_seat_is_refused(client, desk):
    ann = desk.register("Ann")
    match = desk.match({SOUTH: "e1"})
    refused = _refused(client, match["match_id"], {"invite": ann["invite"], "seat": NORTH})
    assert (refused["status"], refused["code"], refused["seat"]) == (422, "invalid_body", SOUTH)


def test_an_invite_must_be_a_current_invite_of_the_matchs_tournament(client, desk):
    other = new_desk(client, "Elsewhere")
    stranger = other.register("Eve")
    desk.register("Ann")
    match = desk.match()
    for invite in (stranger["invite"], secrets.token_urlsafe(32), other.key, desk.key):
        refused = _refused(client, match["match_id"], {"invite": invite})
        assert (refused["status"], refused["code"]) == (403, "invalid_invite")
    lone = client.post("/matches", json={"ruleset": "gambit-board"}).get_json()
    assert _refused(client, lone["match_id"], {"invite": stranger["invite"]})["code"] == "invalid_invite"


def test_an_entrant_holds_one_seat_of_a_match(client, desk):
    ann = desk.register("Ann")
    match = desk.match()
    join(client, match["match_id"], invite=ann["invite"])
    refused = _refused(client, match["match_id"], {"invite": ann["invite"]})
    assert (refused["status"], refused["code"]) == (409, "seat_unavailable")


def test_a_join_names_its_player_unless_an_invite_does(client, desk):
    match = desk.match()
    refused = _refused(client, match["match_id"], {"seat": SOUTH})
    assert (refused["status"], refused["code"]) == (422, "invalid_body") and "name" in refused["errors"]


# ----- leaks: invites reach nobody, contacts only the organizer --------------------------------------


def test_an_invite_appears_only_in_the_response_that_made_it(client, app, desk):
    ann = desk.register("Ann", contact="ann@example.org")
    reissued = client.post(f"/tournaments/{desk.tournament_id}/entrants/e1/invite", headers=desk.organizer).get_json()
    bob = desk.register("Bob")
    invites = (ann["invite"], reissued["invite"], bob["invite"])
    match_id = play_entrants(desk, {**ann, "invite": reissued["invite"]}, bob)
    tid = desk.tournament_id
    seen = [
        client.get(f"/tournaments/{tid}/entrants", headers=desk.organizer).get_data(as_text=True),
        client.get(f"/tournaments/{tid}/entrants/e1", headers=desk.organizer).get_data(as_text=True),
        client.get(f"/tournaments/{tid}/entry", headers=auth(bob["invite"])).get_data(as_text=True),
        client.get(f"/tournaments/{tid}", headers=desk.organizer).get_data(as_text=True),
        client.get(f"/tournaments/{tid}/standings.csv").get_data(as_text=True),
        client.get(f"/tournaments/{tid}/access-log", headers=desk.organizer).get_data(as_text=True),
        _unzipped(client.get(f"/tournaments/{tid}/export", headers=desk.organizer)),
        _unzipped(client.get(f"/tournaments/{tid}/export")),
        _every_match_record(client, match_id, desk.organizer),
        _every_match_record(client, match_id),
    ]
    for text in seen:
        assert not any(invite in text for invite in invites)
    stored_records = app.extensions["gambit"].matches.records(match_id)
    assert not any(invite in repr(vars(record)) for record in stored_records for invite in invites)
    tournament = app.extensions["gambit"].matches.tournaments.tournament(tid)
    assert not any(invite in json.dumps(tournament.entrants) for invite in invites), "only hashes are kept"


def test_an_entrants_contact_is_shown_only_to_the_organizer(client, desk):
    ann = desk.register("Ann", contact="ann@example.org")
    match_id = play_entrants(desk, ann, desk.register("Bob", contact="bob@example.org"))
    path = f"/tournaments/{desk.tournament_id}/entrants"
    public = client.get(path).get_json()["entrants"]
    assert all("contact" not in e for e in public)
    organizer = client.get(path, headers=desk.organizer).get_json()["entrants"]
    assert [e["contact"] for e in organizer] == ["ann@example.org", "bob@example.org"]
    for token in (ann["invite"], new_desk(client, "Elsewhere").key):
        refused = client.get(path, headers=auth(token))
        assert refused.status_code == 403 and refused.get_json()["code"] == "not_organizer"
    for text in (
        client.get(f"{path}/e1").get_data(as_text=True),
        client.get(f"/tournaments/{desk.tournament_id}/entry", headers=auth(ann["invite"])).get_data(as_text=True),
        client.get(f"/tournaments/{desk.tournament_id}").get_data(as_text=True),
        _unzipped(client.get(f"/tournaments/{desk.tournament_id}/export", headers=desk.organizer)),
        _every_match_record(client, match_id, desk.organizer),
    ):
        assert "example.org" not in text


def test_the_entry_view_needs_the_entrants_own_invite(client, desk):
    desk.register("Ann")
    path = f"/tournaments/{desk.tournament_id}/entry"
    assert client.get(path).get_json()["code"] == "credentials_required"
    for token in (desk.key, "made-up", new_desk(client, "Elsewhere").register("Eve")["invite"]):
        refused = client.get(path, headers=auth(token))
        assert refused.status_code == 401 and refused.get_json()["code"] == "invalid_credentials"


def test_the_creation_responses_that_carry_an_invite_are_not_stored_by_caches(client, desk):
    response = client.post(f"/tournaments/{desk.tournament_id}/entrants", json={"name": "A"}, headers=desk.organizer)
    assert response.headers["Cache-Control"] == "no-store"
    assert response.headers["Location"] == f"/tournaments/{desk.tournament_id}/entrants/e1"


# ----- the tournament's own records stay in order around the entrants' ------------------------------


def test_the_access_log_pages_over_organizer_reads_with_entrants_registered_between_them(client, desk):
    match = desk.match()
    join(client, match["match_id"], name="a"), join(client, match["match_id"], name="b")
    client.get(f"/matches/{match['match_id']}/view", headers=desk.organizer)
    desk.register("Ann")
    client.get(f"/matches/{match['match_id']}/events", headers=desk.organizer)
    desk.register("Bob")
    log = f"/tournaments/{desk.tournament_id}/access-log"
    first = client.get(f"{log}?limit=1", headers=desk.organizer).get_json()
    assert [e["resource"] for e in first["entries"]] == ["view"] and first["next_after"] is not None
    rest = client.get(f"{log}?after={first['next_after']}", headers=desk.organizer).get_json()
    assert [e["resource"] for e in rest["entries"]] == ["events"] and rest["next_after"] is None


def test_entrants_outlive_the_tournaments_snapshots(client, app, settings, desk):
    from service.app import create_app

    for number in range(55):  # past a snapshot (every 50 versions)
        desk.register(f"player {number}")
    fresh = create_app(settings)
    try:
        listed = fresh.test_client().get(f"/tournaments/{desk.tournament_id}/entrants?limit=500").get_json()
    finally:
        fresh.extensions["gambit"].close()
    assert [e["entrant_id"] for e in listed["entrants"]] == [f"e{n}" for n in range(1, 56)]
