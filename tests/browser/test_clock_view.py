"""The viewer shows a timed match's clocks (service/static/clock.js) and counts the running one down live."""

from __future__ import annotations

import pytest

from tests.browser.conftest import screenshot
from tests.support.api import auth

pytestmark = pytest.mark.browser

FISCHER = {"kind": "fischer", "initial_s": 600, "increment_s": 5}


def _timed_match(server) -> tuple[str, dict]:
    match = server.client.post(
        "/matches", json={"ruleset": "gambitz", "config": {"players": 2, "time_control": FISCHER}}
    ).get_json()
    tokens = {}
    for seat in ("p1", "p2"):
        tokens[seat] = server.client.post(
            f"/matches/{match['match_id']}/seats", json={"name": seat, "seat": seat}
        ).get_json()["token"]
    return match["match_id"], tokens


def _remaining(page, seat: str) -> int:
    return int(page.get_attribute(f"#clock dd[data-seat='{seat}']", "data-remaining-ms"))


def test_the_viewer_shows_each_seats_clock_and_counts_the_running_one_down(page, live_server):
    match_id, tokens = _timed_match(live_server)
    page.goto(f"{live_server.url}/watch/{match_id}")
    page.wait_for_selector("#watch[data-state=ready]")
    page.wait_for_selector("#clock dd[data-seat='p1'][data-running='true']")
    assert page.get_attribute("#clock dd[data-seat='p2']", "data-running") == "false"
    assert _remaining(page, "p2") == 600_000
    first = _remaining(page, "p1")
    assert 590_000 < first <= 600_000
    for _ in range(40):  # the page's CSP forbids evaluated predicates: poll what it shows
        if _remaining(page, "p1") < first - 500:
            break
        page.wait_for_timeout(100)
    assert _remaining(page, "p1") < first - 500, "the running clock does not count down"
    assert "Fischer 10:00 + 5 s" in page.locator("#clock").text_content()
    legal = live_server.client.get(f"/matches/{match_id}/legal-commands", headers=auth(tokens["p1"])).get_json()
    played = live_server.client.post(
        f"/matches/{match_id}/commands", json=legal["commands"][0], headers=auth(tokens["p1"])
    )
    assert played.status_code == 201
    page.wait_for_selector("#clock dd[data-seat='p2'][data-running='true']")
    assert page.get_attribute("#clock dd[data-seat='p1']", "data-running") == "false"
    screenshot(page, "gambitz-clock")
    assert not page.recorder.errors, page.recorder.errors


def test_an_untimed_match_shows_no_clock(page, live_server):
    match = live_server.client.post("/matches", json={"ruleset": "gambitz", "config": {}}).get_json()
    page.goto(f"{live_server.url}/watch/{match['match_id']}")
    page.wait_for_selector("#watch[data-state=ready]")
    assert page.locator("#clock").is_hidden()
    assert not page.recorder.errors, page.recorder.errors
