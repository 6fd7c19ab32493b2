"""Bad input gets a precise problem+json 4xx, never a 500, and changes nothing."""

from __future__ import annotations

import pytest

from tests.support.api import auth, create_match, join_all

UNKNOWN = "00000000-0000-0000-0000-000000000000"


def _problem(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["code"] == code and body["status"] == status
    assert {"type", "title", "detail"} <= set(body)
    return body


@pytest.fixture
def started(client):
    """A 2-seat gambitz match with both seats joined: (match_id, tokens)."""
    match = create_match(client, "gambitz", {"players": 2})
    return match["match_id"], join_all(client, match)


def test_unknown_ruleset_is_422(client):
    _problem(client.post("/matches", json={"ruleset": "chess"}), 422, "unknown_ruleset")


def test_unknown_config_key_is_422_and_names_the_key(client):
    body = _problem(client.post("/matches", json={"ruleset": "gambitz", "config": {"colour": "red"}}), 422, "invalid_config")
    assert body["field"] == "colour"


def test_config_value_of_the_wrong_type_or_range_is_422(client):
    _problem(client.post("/matches", json={"ruleset": "gambitz", "config": {"players": "3"}}), 422, "invalid_config")
    _problem(client.post("/matches", json={"ruleset": "gambitz", "config": {"players": 9}}), 422, "invalid_config")


def test_unknown_body_field_is_422(client):
    _problem(client.post("/matches", json={"ruleset": "gambitz", "colour": 1}), 422, "invalid_body")


def test_malformed_json_is_400(client):
    _problem(client.post("/matches", data="{", content_type="application/json"), 400, "invalid_json")


def test_a_body_that_is_not_json_is_415(client):
    _problem(client.post("/matches", data="ruleset=gambitz", content_type="application/x-www-form-urlencoded"), 415,
             "unsupported_media_type")


def test_a_body_over_the_limit_is_413(client):
    _problem(client.post("/matches", data="[" + " " * 70_000 + "]", content_type="application/json"), 413,
             "body_too_large")


def test_deeply_nested_json_is_400(client):
    _problem(client.post("/matches", data="[" * 5000 + "]" * 5000, content_type="application/json"), 400, "json_too_deep")


def test_unknown_match_is_404_whatever_the_id_looks_like(client):
    _problem(client.get(f"/matches/{UNKNOWN}"), 404, "match_not_found")
    _problem(client.get("/matches/not-a-uuid/view"), 404, "match_not_found")


def test_commands_need_a_seat_token(client, started):
    mid, _ = started
    _problem(client.post(f"/matches/{mid}/commands", json={"type": "pass"}), 401, "credentials_required")
    _problem(client.post(f"/matches/{mid}/commands", json={"type": "pass"}, headers=auth("forged")), 401,
             "invalid_credentials")
    _problem(client.get(f"/matches/{mid}/view", headers={"Authorization": "Basic abc"}), 401, "invalid_credentials")


def test_a_token_of_another_match_is_not_valid_here(client, started):
    mid, _ = started
    other = create_match(client, "gambitz", {"players": 2})
    other_tokens = join_all(client, other)
    _problem(client.get(f"/matches/{mid}/legal-commands", headers=auth(other_tokens["p1"])), 401, "invalid_credentials")


def test_illegal_command_is_422_with_a_stable_rule_and_changes_nothing(client, started):
    mid, tokens = started
    before = client.get(f"/matches/{mid}").get_json()
    body = _problem(client.post(f"/matches/{mid}/commands", json={"type": "pass"}, headers=auth(tokens["p2"])), 422,
                    "illegal_command")
    assert body["rule"] == "not_your_turn"
    assert client.get(f"/matches/{mid}").get_json() == before


@pytest.mark.parametrize("body, code", [
    ({"type": "fly"}, "unknown_command"),
    ({"kind": "play"}, "unknown_command"),
    ({"type": "play", "card": 7}, "invalid_body"),
    ({"type": "play", "card": "7-red", "extra": True}, "invalid_body"),
    ({"type": "play"}, "invalid_body"),
])
def test_malformed_command_bodies_are_422(client, started, body, code):
    mid, tokens = started
    _problem(client.post(f"/matches/{mid}/commands", json=body, headers=auth(tokens["p1"])), 422, code)


def test_a_command_body_that_is_not_an_object_is_422(client, started):
    mid, tokens = started
    _problem(client.post(f"/matches/{mid}/commands", json=["play"], headers=auth(tokens["p1"])), 422, "invalid_body")


def test_joining_a_taken_seat_is_409_and_a_missing_seat_is_409(client):
    match = create_match(client, "gambitz", {"players": 2})
    mid = match["match_id"]
    client.post(f"/matches/{mid}/seats", json={"name": "ann", "seat": "p1"})
    _problem(client.post(f"/matches/{mid}/seats", json={"name": "bob", "seat": "p1"}), 409, "seat_unavailable")
    _problem(client.post(f"/matches/{mid}/seats", json={"name": "bob", "seat": "p7"}), 409, "seat_unavailable")


@pytest.mark.parametrize("body", [{"name": ""}, {"name": "x" * 65}, {"name": "a", "client_seed": "xyz"},
                                  {"name": 5}, {}])
def test_bad_join_bodies_are_422(client, body):
    match = create_match(client, "gambitz", {"players": 2})
    _problem(client.post(f"/matches/{match['match_id']}/seats", json=body), 422, "invalid_body")


def test_commands_before_the_match_starts_are_illegal(client):
    match = create_match(client, "gambitz", {"players": 2})
    joined = client.post(f"/matches/{match['match_id']}/seats", json={"name": "ann"}).get_json()
    body = _problem(client.post(f"/matches/{match['match_id']}/commands", json={"type": "pass"},
                                headers=auth(joined["token"])), 422, "illegal_command")
    assert body["rule"] == "match_not_active"


@pytest.mark.parametrize("query", ["at=0", "at=999", "at=x"])
def test_out_of_range_view_versions_are_400(client, started, query):
    mid, _ = started
    _problem(client.get(f"/matches/{mid}/view?{query}"), 400, "invalid_parameter")


@pytest.mark.parametrize("query", ["limit=0", "limit=100000", "status=lost", "after=-1", "status=", "limit=",
                                   "after=9223372036854775808"])
def test_bad_list_parameters_are_400(client, query):
    _problem(client.get(f"/matches?{query}"), 400, "invalid_parameter")


def test_malformed_if_match_is_412(client, started):
    mid, tokens = started
    _problem(client.post(f"/matches/{mid}/commands", json={"type": "pass"},
                         headers={**auth(tokens["p1"]), "If-Match": "yesterday"}), 412, "precondition_failed")


def test_unknown_routes_and_methods_are_problems_too(client):
    _problem(client.get("/nowhere"), 404, "not_found")
    _problem(client.delete("/matches"), 405, "method_not_allowed")


def test_a_tournament_that_does_not_exist_cannot_own_a_match(client):
    _problem(client.post("/matches", json={"ruleset": "gambitz", "tournament_id": "t-1"}), 422, "unknown_tournament")
