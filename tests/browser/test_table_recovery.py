"""A seat's page never gets stuck: it catches up by itself after the network drops or the server restarts.

For every game a seat's page is opened while the other seat is to act; the page then loses its
connection (the browser goes offline, or the server is killed and started again on the same port
and store), the other seat moves through the API, and the connection comes back. Without a
reload the page must show the newest version (`data-current-version`), the board of that version,
whose move it is, LIVE again, and the seat's moves; while the connection is down it shows
"reconnecting", no LIVE, no "your move" and no running clock.
"""

from __future__ import annotations

import json
import random

import pytest

from domain import rulesets
from domain.choices import random_body
from tests.browser.conftest import CONFIGS, play_one, screenshot
from tests.support.api import auth, create_match, join_all

pytestmark = pytest.mark.browser

PANEL = "[data-testid=play-panel]"


@pytest.fixture
def seat_page(browser):
    """A page in its own browser context (so the test can take that context offline)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    tab = context.new_page()
    tab.set_default_timeout(30000)
    tab.errors = []
    tab.on("pageerror", lambda exc: tab.errors.append(str(exc)))
    yield tab
    context.close()


def waiting_seat_match(server, ruleset: str, seed: int = 3) -> tuple[str, dict, str, str]:
    """An active match where one seat alone is to act; returns (match id, tokens, waiting seat, acting seat)."""
    match = create_match(server.client, ruleset, CONFIGS.get(ruleset, {}))
    tokens = join_all(server.client, match)
    rng = random.Random(seed)
    for _ in range(60):
        summary = server.client.get(f"/matches/{match['match_id']}").get_json()
        to_act = summary["to_act"]
        if summary["status"] == "active" and len(to_act) == 1 and summary["version"] > len(tokens) + 3:
            waiting = next(seat for seat in tokens if seat not in to_act)
            return match["match_id"], tokens, waiting, to_act[0]
        assert play_one(server, match["match_id"], tokens, rng)
    raise AssertionError("no position with a single seat to act")


def move_as(server, match_id: str, seat: str, token: str, rng: random.Random) -> int:
    """The acting seat plays one calm legal command through the API; returns the new version."""
    legal = server.client.get(f"/matches/{match_id}/legal-commands", headers=auth(token)).get_json()
    bodies = legal["commands"] + [random_body(choice, rng) for choice in legal["choices"]]
    calm = [b for b in bodies if b["type"] not in ("resign", "concede", "call_final_gambit")] or bodies
    response = server.client.post(f"/matches/{match_id}/commands", json=rng.choice(calm), headers=auth(token))
    assert response.status_code == 201, response.get_json()
    return response.get_json()["version"]


def open_seat(tab, server, match_id: str, token: str) -> None:
    """Open a seat's page and wait until it is live with its moves read."""
    tab.goto(f"{server.url}/watch/{match_id}#token={token}")
    tab.wait_for_selector("#live[data-state=live]")
    tab.wait_for_selector(f"{PANEL}[data-state=ready], {PANEL}[data-state=waiting]")


def assert_reconnecting(tab) -> None:
    """While the connection is down: "reconnecting" said, no LIVE, no "your move", no running clock."""
    tab.wait_for_selector("[data-testid=connection]:not([hidden])")
    tab.wait_for_selector("#live[data-state=reconnecting]")
    assert "Reconnecting" in tab.locator("[data-testid=connection]").text_content()
    assert "LIVE" not in tab.locator("#live").text_content()
    assert "Your move" not in tab.locator("[data-testid=play-status]").text_content()
    assert not tab.title().startswith("●")
    assert tab.locator("#clock dd[data-counting=true]").count() == 0


def assert_caught_up(tab, server, match_id: str, token: str, seat: str) -> None:
    """The page shows the newest version, its board and view, whose move it is, LIVE, and the seat's moves."""
    summary = server.client.get(f"/matches/{match_id}").get_json()
    latest = summary["version"]
    tab.wait_for_function("v => document.querySelector('[data-current-version]').textContent === String(v)", arg=latest)
    tab.wait_for_selector("#live[data-state=live]")
    tab.wait_for_function(
        "([sel, v]) => { const p = document.querySelector(sel);"
        " return p.dataset.version === String(v) && ['ready', 'waiting'].includes(p.dataset.state); }",
        arg=[PANEL, latest],
    )
    view = server.client.get(f"/matches/{match_id}/view", headers=auth(token)).get_json()
    shown = json.loads(tab.text_content("#view-json"))
    assert shown["version"] == latest and shown["state"] == view["state"], "the board is the newest version's"
    assert tab.locator(f"[data-game-log] > [data-version='{latest}']").count() == 1, "the log has every record"
    legal = server.client.get(f"/matches/{match_id}/legal-commands", headers=auth(token)).get_json()
    mine = seat in summary["to_act"] and bool(legal["commands"] or legal["choices"])
    status = tab.locator("[data-testid=play-status]").text_content()
    assert ("Your move" in status) == (seat in summary["to_act"] and mine), status
    tab.wait_for_function("m => document.title.startsWith('● Your move') === m", arg=mine)
    assert tab.locator("[data-testid=connection]").is_hidden()


@pytest.mark.parametrize("ruleset", rulesets.available())
def test_a_seat_page_that_went_offline_catches_up_by_itself_once_back(seat_page, live_server, ruleset):
    tab = seat_page
    match_id, tokens, waiting, acting = waiting_seat_match(live_server, ruleset)
    open_seat(tab, live_server, match_id, tokens[waiting])
    assert "Your move" not in tab.locator("[data-testid=play-status]").text_content()

    tab.context.set_offline(True)
    assert_reconnecting(tab)
    move_as(live_server, match_id, acting, tokens[acting], random.Random(ruleset))
    tab.context.set_offline(False)

    assert_caught_up(tab, live_server, match_id, tokens[waiting], waiting)
    screenshot(tab, f"recovered-offline-{ruleset}")
    assert not tab.errors, tab.errors


@pytest.mark.parametrize("ruleset", rulesets.available())
def test_a_seat_page_recovers_when_the_server_is_killed_and_restarted(seat_page, live_server, ruleset):
    tab = seat_page
    match_id, tokens, waiting, acting = waiting_seat_match(live_server, ruleset, seed=4)
    open_seat(tab, live_server, match_id, tokens[waiting])

    live_server.stop()
    assert_reconnecting(tab)
    live_server.start()
    move_as(live_server, match_id, acting, tokens[acting], random.Random(ruleset))

    assert_caught_up(tab, live_server, match_id, tokens[waiting], waiting)
    assert not tab.errors, tab.errors


def test_a_spectator_scrubbed_back_does_not_see_live(seat_page, live_server):
    tab = seat_page
    match_id, tokens, _, acting = waiting_seat_match(live_server, "gambit-board")
    tab.goto(f"{live_server.url}/watch/{match_id}")
    tab.wait_for_selector("#live[data-state=live]")
    assert "LIVE" in tab.locator("#live").text_content()
    tab.keyboard.press("Home")
    tab.wait_for_function("() => document.querySelector('[data-current-version]').textContent === '1'")
    tab.wait_for_selector("#live[data-state=behind]")
    assert "LIVE" not in tab.locator("#live").text_content()
    version = move_as(live_server, match_id, acting, tokens[acting], random.Random(1))
    tab.wait_for_function("v => document.querySelector('#watch').dataset.latest === String(v)", arg=version)
    assert tab.locator("[data-current-version]").text_content() == "1", "a scrubbed-back page stays where it was"
    assert "LIVE" not in tab.locator("#live").text_content()
    tab.keyboard.press("End")
    tab.wait_for_function(
        "v => document.querySelector('[data-current-version]').textContent === String(v)", arg=version
    )
    tab.wait_for_selector("#live[data-state=live]")


def test_a_timed_page_offline_runs_no_clock_and_runs_the_right_one_once_back(seat_page, live_server):
    tab = seat_page
    client = live_server.client
    fischer = {"kind": "fischer", "initial_s": 600, "increment_s": 5}
    match = client.post(
        "/matches", json={"ruleset": "gambitz", "config": {"players": 2, "time_control": fischer}}
    ).get_json()
    tokens = join_all(client, match)
    match_id = match["match_id"]
    open_seat(tab, live_server, match_id, tokens["p2"])
    tab.wait_for_selector("#clock dd[data-seat='p1'][data-counting=true]")

    tab.context.set_offline(True)
    assert_reconnecting(tab)
    move_as(live_server, match_id, "p1", tokens["p1"], random.Random(2))
    tab.context.set_offline(False)

    assert_caught_up(tab, live_server, match_id, tokens["p2"], "p2")
    tab.wait_for_selector("#clock dd[data-seat='p2'][data-counting=true]")
    assert tab.locator("#clock dd[data-seat='p1'][data-counting=true]").count() == 0
