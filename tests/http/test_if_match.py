"""`If-Match` on commands follows RFC 9110 §13.1.1, read by werkzeug's ETag parser.

`*` matches any current match, a list matches when any of its tags is the current version, a
list of other versions is 412 `version_mismatch` and a header that names no version is 412
`precondition_failed`; a refused command records nothing. One documented deviation: a weak tag
(`W/"5"`) counts as its version (see `service.context.etag_version`).
"""

from __future__ import annotations

import pytest

from service.context import etag_version
from service.problems import Problem
from tests.support.api import auth, create_match, join_all


@pytest.fixture
def started(client):
    """A 2-seat gambitz match with both seats joined: (match_id, tokens)."""
    match = create_match(client, "gambitz", {"players": 2})
    return match["match_id"], join_all(client, match)


def _play(client, match_id: str, tokens: dict, if_match: str, **headers: str):
    """Post the acting seat's first legal command under `If-Match`; returns (response, version before)."""
    summary = client.get(f"/matches/{match_id}").get_json()
    seat = summary["to_act"][0]
    legal = client.get(f"/matches/{match_id}/legal-commands", headers=auth(tokens[seat])).get_json()
    response = client.post(
        f"/matches/{match_id}/commands",
        json=legal["commands"][0],
        headers={**auth(tokens[seat]), "If-Match": if_match, **headers},
    )
    return response, summary["version"]


def _version(client, match_id: str) -> int:
    return client.get(f"/matches/{match_id}").get_json()["version"]


def test_a_star_matches_any_current_version_and_the_command_is_taken(client, started):
    mid, tokens = started
    response, before = _play(client, mid, tokens, "*")
    assert response.status_code == 201, response.get_json()
    assert response.get_json()["version"] > before


def test_a_list_holding_the_current_version_lets_the_command_through(client, started):
    mid, tokens = started
    current = _version(client, mid)
    response, before = _play(client, mid, tokens, f'"{current - 1}", "{current}", "{current + 7}"')
    assert response.status_code == 201, response.get_json()
    assert response.get_json()["version"] > before


def test_a_list_without_the_current_version_is_412_and_changes_nothing(client, started):
    mid, tokens = started
    current = _version(client, mid)
    response, _ = _play(client, mid, tokens, f'"{current - 1}", "{current + 1}"')
    assert response.status_code == 412 and response.mimetype == "application/problem+json"
    problem = response.get_json()
    assert problem["code"] == "version_mismatch" and problem["current_version"] == current
    assert _version(client, mid) == current


def test_the_current_version_quoted_or_bare_is_taken_and_a_stale_one_is_412(client, started):
    mid, tokens = started
    stale = _version(client, mid) - 1
    refused, _ = _play(client, mid, tokens, f'"{stale}"')
    assert refused.status_code == 412 and refused.get_json()["code"] == "version_mismatch"
    quoted, _ = _play(client, mid, tokens, f'"{_version(client, mid)}"')
    assert quoted.status_code == 201
    bare, _ = _play(client, mid, tokens, str(_version(client, mid)))
    assert bare.status_code == 201


def test_a_weak_tag_of_the_current_version_is_taken_as_that_version(client, started):
    # Deviation from RFC 9110's strong comparison, kept so clients behind a proxy that weakened
    # the ETag it relayed keep working: the tag still names the version the write expects.
    mid, tokens = started
    response, before = _play(client, mid, tokens, f'W/"{_version(client, mid)}"')
    assert response.status_code == 201
    stale, _ = _play(client, mid, tokens, f'W/"{before}"')
    assert stale.status_code == 412 and stale.get_json()["code"] == "version_mismatch"


@pytest.mark.parametrize("header", ['"abc"', "yesterday", "", '"05"', 'W/"-3"', '"1.0", "x"'])
def test_a_header_naming_no_version_is_412_precondition_failed_and_changes_nothing(client, started, header):
    mid, tokens = started
    current = _version(client, mid)
    response, _ = _play(client, mid, tokens, header)
    assert response.status_code == 412 and response.get_json()["code"] == "precondition_failed"
    assert _version(client, mid) == current


def test_a_retry_under_the_same_idempotency_key_gets_its_first_answer_despite_a_now_stale_list(client, started):
    mid, tokens = started
    current = _version(client, mid)
    seat = client.get(f"/matches/{mid}").get_json()["to_act"][0]
    body = client.get(f"/matches/{mid}/legal-commands", headers=auth(tokens[seat])).get_json()["commands"][0]
    headers = {**auth(tokens[seat]), "If-Match": f'"{current}", "{current + 50}"', "Idempotency-Key": "once"}
    first = client.post(f"/matches/{mid}/commands", json=body, headers=headers)
    assert first.status_code == 201 and _version(client, mid) > current
    again = client.post(f"/matches/{mid}/commands", json=body, headers=headers)  # now stale
    assert again.status_code == 201 and again.get_json() == first.get_json()


@pytest.mark.parametrize(
    ("header", "current", "expected"),
    [
        ("*", 5, None),
        ('"5"', 5, 5),
        ('"4", "5", "6"', 5, 5),
        ('W/"5"', 5, 5),
        ('"3", "4"', 5, 4),
        ('"3", "x"', 5, 3),
    ],
)
def test_if_match_resolves_to_the_version_a_write_may_happen_at(app, header, current, expected):
    with app.test_request_context(headers={"If-Match": header}):
        assert etag_version(current) == expected


def test_without_if_match_a_write_has_no_condition(app):
    with app.test_request_context():
        assert etag_version(5) is None


def test_if_match_naming_no_version_is_refused_before_the_store_is_asked(app):
    with app.test_request_context(headers={"If-Match": '"v5"'}), pytest.raises(Problem) as refused:
        etag_version(5)
    assert refused.value.status == 412 and refused.value.code == "precondition_failed"
