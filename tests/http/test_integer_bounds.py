"""Every integer a client sends — in a header, a query, a path or a JSON body — is bounded before it is parsed.

Python refuses to turn more than 4,300 digits into an int with an error of its own; a value that
long must be answered as the client's mistake (a 4xx problem with a stable code), never a 500.
"""

from __future__ import annotations

import json

import pytest

from tests.support.api import auth, join_all

HUGE = "9" * 5000
GAMBITZ = {"players": 2}


@pytest.fixture
def world(client):
    """A tournament's running gambitz match: the ids, the organizer key and the seats' tokens."""
    tournament = client.post("/tournaments", json={"name": "Bounds Cup"}).get_json()
    key = tournament["organizer_key"]
    created = client.post(
        "/matches",
        json={"ruleset": "gambitz", "config": GAMBITZ, "tournament_id": tournament["tournament_id"]},
        headers=auth(key),
    )
    assert created.status_code == 201, created.get_json()
    match = created.get_json()
    tokens = join_all(client, match)
    return {"mid": match["match_id"], "tid": tournament["tournament_id"], "key": key, "tokens": tokens}


def _acting_seats_command(client, world) -> tuple[dict, dict]:
    """The first legal command of the seat to act, and that seat's Authorization header."""
    seat = client.get(f"/matches/{world['mid']}").get_json()["to_act"][0]
    headers = auth(world["tokens"][seat])
    return client.get(f"/matches/{world['mid']}/legal-commands", headers=headers).get_json()["commands"][0], headers


QUERIES = [
    "/matches?after",
    "/matches?limit",
    "/bluff-calls?after",
    "/bluff-calls?limit",
    "/matches/{mid}/events?after",
    "/matches/{mid}/events?limit",
    "/matches/{mid}/disputes?after",
    "/matches/{mid}/disputes?limit",
    "/matches/{mid}/view?at",
    "/matches/{mid}/replay?from",
    "/matches/{mid}/replay?to",
    "/tournaments/{tid}?after",
    "/tournaments/{tid}?limit",
    "/tournaments/{tid}/disputes?after",
    "/tournaments/{tid}/disputes?limit",
    "/tournaments/{tid}/access-log?after",
    "/tournaments/{tid}/access-log?limit",
]


@pytest.mark.parametrize("query", QUERIES)
def test_a_query_integer_of_five_thousand_digits_is_400_invalid_parameter(client, world, query):
    response = client.get(f"{query.format(**world)}={HUGE}", headers=auth(world["key"]))
    _problem(response, 400, "invalid_parameter")


@pytest.mark.parametrize("spelling", ["²", "١٢", "1_000", " 7", "+3"])
def test_a_query_integer_is_ascii_digits_only(client, world, spelling):
    _problem(client.get(f"/matches/{world['mid']}/events", query_string={"after": spelling}), 400, "invalid_parameter")


@pytest.mark.parametrize("tag", [f'"{HUGE}"', f'W/"{HUGE}"', HUGE, f'"{2**63}"'])
def test_an_if_match_version_of_more_digits_than_any_version_is_412_and_changes_nothing(client, world, tag):
    body, headers = _acting_seats_command(client, world)
    before = client.get(f"/matches/{world['mid']}").get_json()["version"]
    response = client.post(f"/matches/{world['mid']}/commands", json=body, headers={**headers, "If-Match": tag})
    _problem(response, 412, "precondition_failed")
    assert client.get(f"/matches/{world['mid']}").get_json()["version"] == before


def test_a_huge_tag_beside_the_current_version_in_if_match_lets_the_command_through(client, world):
    body, headers = _acting_seats_command(client, world)
    current = client.get(f"/matches/{world['mid']}").get_json()["version"]
    tags = f'"{HUGE}", "{current}"'
    response = client.post(f"/matches/{world['mid']}/commands", json=body, headers={**headers, "If-Match": tags})
    assert response.status_code == 201, response.get_json()


@pytest.mark.parametrize("last_event_id", [HUGE, "²", "-1"])
def test_a_last_event_id_that_is_no_position_is_ignored_and_the_stream_starts_at_after(client, world, last_event_id):
    response = client.get(
        f"/matches/{world['mid']}/events",
        headers={"Accept": "text/event-stream", "Last-Event-ID": last_event_id},
    )
    try:
        assert response.status_code == 200
        assert response.mimetype == "text/event-stream"
    finally:
        response.close()


def test_a_dispute_number_of_five_thousand_digits_in_the_path_is_404(client, world):
    response = client.post(
        f"/matches/{world['mid']}/disputes/{HUGE}/ruling",
        json={"decision": "upheld", "note": "n"},
        headers=auth(world["key"]),
    )
    _problem(response, 404, "not_found")


@pytest.mark.parametrize(
    "path", ["/matches/{huge}", "/matches/{huge}/events", "/tournaments/{huge}", "/rulesets/{huge}", "/watch/{huge}"]
)
def test_an_id_of_five_thousand_digits_in_the_path_is_404(client, path):
    response = client.get(path.format(huge=HUGE))
    assert response.status_code == 404, response.get_data(as_text=True)[:300]


BODIES = [
    ("/matches", {"ruleset": "gambitz", "config": {"players": "HUGE"}}),
    ("/matches/{mid}/disputes", {"call_version": "HUGE", "reason": "r"}),
    ("/matches/{mid}/clock/pause", {"dispute": "HUGE"}),
    ("/matches/{mid}/clock/add-time", {"seat": "p1", "seconds": "HUGE"}),
    ("/matches/{mid}/commands", {"type": "pass", "expected_version": "HUGE"}),
]


@pytest.mark.parametrize(("path", "body"), BODIES, ids=[path for path, _ in BODIES])
def test_a_json_integer_of_five_thousand_digits_is_422_invalid_json_value(client, world, path, body):
    text = _json_with_huge_integer(body)
    seat = world["tokens"]["p1"] if path.endswith("/commands") else world["key"]
    response = client.post(path.format(**world), data=text, content_type="application/json", headers=auth(seat))
    _problem(response, 422, "invalid_json_value")


def _json_with_huge_integer(body: dict) -> str:
    """The body as JSON text, its "HUGE" placeholder written as a bare 5,000-digit number."""
    return json.dumps(body).replace('"HUGE"', HUGE)


def _problem(response, status: int, code: str) -> None:
    assert response.status_code == status, response.get_data(as_text=True)[:300]
    assert response.mimetype == "application/problem+json"
    assert response.get_json()["code"] == code
