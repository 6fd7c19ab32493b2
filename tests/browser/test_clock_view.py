"""The viewer shows a timed match's clocks (service/static/clock.js) and counts the running one down live."""

from __future__ import annotations

import re
from datetime import timedelta
from email.utils import format_datetime

import pytest

from tests.browser.conftest import screenshot
from tests.support.api import auth
from tests.support.clocks import START, fake_time_source

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


def _server_date_is(page, instant) -> None:
    """Serve the clock resource to the page with `instant` as its Date (the page takes the server's time from it)."""
    def dated(route) -> None:
        response = route.fetch()
        route.fulfill(response=response, headers={**response.headers, "date": format_datetime(instant, usegmt=True)})

    page.route(re.compile(r"/matches/[^/?#]+/clock$"), dated)


def test_the_viewer_shows_each_seats_clock_and_counts_the_running_one_down(page, live_server):
    # No wall clock: the server's time stands at START, the page's clock is Playwright's and moves
    # only when the test runs it, and the Date the page measures the server's time by is START.
    with fake_time_source(START):
        match_id, tokens = _timed_match(live_server)
        _server_date_is(page, START)
        page.clock.install(time=START - timedelta(hours=1))  # before START: pausing there is a jump forward
        page.clock.pause_at(START)
        page.goto(f"{live_server.url}/watch/{match_id}")
        page.wait_for_selector("#watch[data-state=ready]")
        page.wait_for_selector("#clock dd[data-seat='p1'][data-running='true']")
        assert page.get_attribute("#clock dd[data-seat='p2']", "data-running") == "false"
        assert _remaining(page, "p2") == 600_000
        # The Date header has whole seconds: the page takes the server to be half a second on.
        assert _remaining(page, "p1") in (600_000, 599_500)
        page.clock.run_for(2_000)
        # Two seconds less than the page's reckoning of the server's time (START, or half a second
        # on), which a display capped at what the server reported may not have shown.
        assert _remaining(page, "p1") in (598_000, 597_500), "the running clock does not count down"
        assert "Fischer 10:00 + 5 s" in page.locator("#clock").text_content()
        legal = live_server.client.get(f"/matches/{match_id}/legal-commands", headers=auth(tokens["p1"])).get_json()
        played = live_server.client.post(
            f"/matches/{match_id}/commands", json=legal["commands"][0], headers=auth(tokens["p1"])
        )
        assert played.status_code == 201
        # The record arrives over the stream; the page shows it after a short timer of its own.
        page.wait_for_selector(f"#watch[data-latest='{played.get_json()['version']}']")
        page.clock.run_for(1_000)
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
