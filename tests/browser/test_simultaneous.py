"""Simultaneous phases without "choose again": a seat whose move lost the race to another seat's hidden
act is not asked again; the page sends the same move for the new version by itself.

Every game with a phase where more than one seat is to act is played here: gambit-board's power
assignment, dragons-gambit's initial peek (`initial_peek: choose`) and gattai-conflict's sealed
Initiative (throwdown). Both seats' pages offer their moves at one version; the first seat's
command is held on its way to the server until the second seat's has been recorded, so it
arrives with a stale If-Match (412) every time — the same instant, made certain. The service
keeps its contract (412); the page re-reads, sees nothing it can see has changed, and sends the
move again with a fresh Idempotency-Key. A move whose table did change is still refused and the
seat is asked again, with what changed.
"""

from __future__ import annotations

import random
import re

import pytest

from domain.choices import random_body
from tests.browser.conftest import pages_in_own_contexts
from tests.browser.test_play import assign_by_clicks, move_by_board
from tests.support.api import auth, create_match, join_all

pytestmark = pytest.mark.browser

PANEL = "[data-testid=play-panel]"
# The games with a phase where two seats act at once, the config that has it, and each seat's move there.
SIMULTANEOUS = {
    "gambit-board": ({}, "assign"),
    "dragons-gambit": ({"players": 2, "initial_peek": "choose"}, "peek"),
    "gattai-conflict": ({"mode": "throwdown"}, "seal_initiative"),
}


@pytest.fixture
def tabs(browser):
    """Two pages in separate browser contexts, one per seat."""
    with pages_in_own_contexts(browser, 2, 20000) as pages:
        yield pages


def panel(tab) -> dict:
    """The play panel's data attributes."""
    return tab.eval_on_selector(PANEL, "p => ({...p.dataset})")


def open_seat(tab, server, match_id: str, token: str) -> None:
    """Open a seat's page and wait for its moves."""
    tab.goto(f"{server.url}/watch/{match_id}#token={token}")
    tab.wait_for_selector(f"{PANEL}[data-state=ready]")


def submit(tab, kind: str) -> None:
    """Play the first offered move of a type: its button, its choice form as preset, or powers given out by clicks."""
    assign = tab.locator(f"{PANEL} [data-testid=legal-choice][data-picker=assign]")
    if kind == "assign" and assign.count():
        assign_by_clicks(tab, assign.first, random.Random(kind))
        return
    button = tab.locator(f"{PANEL} [data-testid=legal-command][data-type='{kind}']")
    if button.count():
        details = button.first.locator("xpath=ancestor::details[1]")
        if details.count() and not details.evaluate("d => d.open"):
            details.locator("summary").click()
        button.first.click()
        return
    tab.locator(f"{PANEL} [data-testid=legal-choice][data-type='{kind}'] button[type=submit]").first.click()


def hold_first_command(tab) -> list:
    """Hold the page's first POST of a command on its way out (the test lets it go); later ones pass."""
    held: list = []

    def route(request_route) -> None:
        if request_route.request.method == "POST" and not held:
            held.append(request_route)
            return
        request_route.continue_()

    tab.route(re.compile(r".*/matches/[^/]+/commands$"), route)
    return held


def commands_sent(tab) -> list[dict]:
    """Every command POST the page makes: its If-Match and Idempotency-Key."""
    sent: list[dict] = []
    tab.on(
        "request",
        lambda r: (
            sent.append({"if_match": r.headers.get("if-match"), "key": r.headers.get("idempotency-key")})
            if r.method == "POST" and r.url.endswith("/commands")
            else None
        ),
    )
    return sent


@pytest.mark.parametrize("ruleset", sorted(SIMULTANEOUS))
def test_two_seats_acting_at_the_same_instant_are_both_recorded_without_choosing_again(tabs, live_server, ruleset):
    config, kind = SIMULTANEOUS[ruleset]
    client = live_server.client
    match = create_match(client, ruleset, config)
    tokens = join_all(client, match)
    match_id = match["match_id"]
    summary = client.get(f"/matches/{match_id}").get_json()
    first_seat, second_seat = summary["to_act"][:2]
    first, second = tabs
    open_seat(first, live_server, match_id, tokens[first_seat])
    open_seat(second, live_server, match_id, tokens[second_seat])
    offered_at = summary["version"]
    assert panel(first)["version"] == panel(second)["version"] == str(offered_at)

    held = hold_first_command(first)
    sent = commands_sent(first)
    submit(first, kind)
    first.wait_for_function("() => document.querySelector('[data-testid=play-panel]').dataset.state === 'posting'")
    submit(second, kind)
    second.wait_for_function("() => document.querySelector('[data-testid=play-panel]').dataset.last === 'ok'")
    assert held, "the first seat's move was held until the second seat's was recorded"
    held[0].continue_()

    first.wait_for_function(
        "() => { const p = document.querySelector('[data-testid=play-panel]').dataset; return p.last === 'ok'; }"
    )
    state = panel(first)
    assert state["resent"] == "1", state
    assert state["posted"] == "1", "the seat saw one outcome: its move recorded"
    assert first.locator("[data-testid=play-problem]").is_hidden(), first.locator(
        "[data-testid=play-problem]"
    ).text_content()
    assert sent[0]["if_match"] == f'"{offered_at}"'
    assert len(sent) == 2 and sent[1]["if_match"] != sent[0]["if_match"], sent
    assert sent[0]["key"] != sent[1]["key"], "a new request for the new version has its own Idempotency-Key"

    records = client.get(f"/matches/{match_id}/events?after={offered_at}&limit=500").get_json()["events"]
    actors = [r["public"].get("seat") for r in records]
    assert second_seat in actors and first_seat in actors, [(r["kind"], r["public"].get("seat")) for r in records]
    assert actors.index(second_seat) < actors.index(first_seat), "the second seat's move was recorded first"
    assert not first.errors and not second.errors, first.errors + second.errors


def test_a_stale_move_after_a_change_the_seat_can_see_is_refused_and_the_change_shown(tabs, live_server):
    client = live_server.client
    match = create_match(client, "gambit-board", {})
    tokens = join_all(client, match)
    match_id = match["match_id"]
    for seat in ("south", "north"):
        legal = client.get(f"/matches/{match_id}/legal-commands", headers=auth(tokens[seat])).get_json()
        body = random_body(legal["choices"][0], random.Random(seat))
        assert client.post(f"/matches/{match_id}/commands", json=body, headers=auth(tokens[seat])).status_code == 201
    tab = tabs[0]
    # The page hears nothing live (its stream is held unanswered), so it cannot know south moved elsewhere.
    tab.route(re.compile(r".*/events\?after=\d+$"), lambda route: None)
    open_seat(tab, live_server, match_id, tokens["south"])
    offered_at = int(panel(tab)["version"])
    # The same seat moves from another device: a change this page's seat can see (its own piece moved).
    legal = client.get(f"/matches/{match_id}/legal-commands", headers=auth(tokens["south"])).get_json()
    moves = [c for c in legal["commands"] if c["type"] == "move" and not c.get("claims")]
    moved = client.post(f"/matches/{match_id}/commands", json=moves[0], headers=auth(tokens["south"]))
    assert moved.status_code == 201

    before = int(panel(tab).get("posted") or 0)
    move_by_board(tab, random.Random(offered_at))
    tab.wait_for_function(
        "n => Number(document.querySelector('[data-testid=play-panel]').dataset.posted || 0) > n", arg=before
    )
    assert panel(tab)["last"] == "version_mismatch"
    words = tab.locator("[data-testid=play-problem]").text_content()
    assert f"moved on past version {offered_at}" in words and "choose again" in words, words
    assert "code: version_mismatch" in words
    assert f"moved {moves[0]['piece']} " in words and f"→{moves[0]['to']}" in words, "the change is shown in words"
    assert "resent" not in panel(tab)
