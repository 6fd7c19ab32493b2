"""The game log, the last-move mark and the signals of the players' table, in Chromium.

Every game gets a log (`[data-game-log]`, one line per record carrying `data-version`) in plain
words for its viewer: two seats and a spectator each read their own, hidden parts hidden. A click
on a line moves the timeline there; the last move is marked on the board; the seat to act sees
"● Your move" in the tab title and a changed favicon; moves are announced through an aria-live
region; a low clock is marked; a giving-up command is a Resign button that asks first.
"""

from __future__ import annotations

import random
import re
from datetime import timedelta
from email.utils import format_datetime

import pytest

from domain import rulesets
from tests.browser.conftest import active_match, pages_in_own_contexts, play_one, screenshot
from tests.support.api import auth, join_all
from tests.support.clocks import START, fake_time_source

pytestmark = pytest.mark.browser

LOG_LINES = "[data-game-log] > [data-version]"


@pytest.fixture
def tabs(browser):
    """Three pages in separate browser contexts: two seats and a spectator."""
    with pages_in_own_contexts(browser, 3, 20000) as pages:
        yield pages


def open_page(tab, server, match_id: str, token: str | None = None) -> None:
    """Open the match page (as a seat with a token) and wait until it shows the newest version."""
    tab.goto(f"{server.url}/watch/{match_id}" + (f"#token={token}" if token else ""))
    tab.wait_for_selector("#watch[data-state=ready]")
    tab.wait_for_function(
        "() => document.querySelector('[data-current-version]').textContent === document.querySelector('#watch').dataset.latest"
    )


def log_lines(tab) -> dict[int, str]:
    """The log as version → sentence."""
    lines = tab.eval_on_selector_all(
        LOG_LINES, "ls => ls.map(l => [Number(l.dataset.version), l.querySelector('.log-text').textContent])"
    )
    return {version: text for version, text in lines}


def strings(value, keys: bool = True) -> set[str]:
    """Every string inside a JSON value (object keys too, unless `keys` is false)."""
    if isinstance(value, dict):
        return (set(value) if keys else set()) | {s for v in value.values() for s in strings(v, keys)}
    if isinstance(value, list):
        return {s for v in value for s in strings(v, keys)}
    return {value} if isinstance(value, str) else set()


def card_names(catalogue) -> dict[str, str]:
    """Card id → the name the log gives it (catalogue name, rank and suit)."""
    names: dict[str, str] = {}
    signs = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}

    def walk(node) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item)
        elif isinstance(node, dict):
            if isinstance(node.get("id"), str):
                if node.get("name"):
                    names[node["id"]] = node["name"]
                elif "rank" in node:
                    suit = node.get("suit")
                    names[node["id"]] = f"{node['rank']}{signs[suit]}" if suit in signs else f"{suit} {node['rank']}"
            for value in node.values():
                walk(value)

    walk(catalogue)
    return names


@pytest.mark.parametrize("ruleset", rulesets.available())
def test_every_game_has_a_log_in_plain_words_for_each_viewer_with_hidden_parts_hidden(tabs, live_server, ruleset):
    match_id, tokens, _ = active_match(live_server, ruleset, moves=12, seed=11)
    seats = sorted(tokens)[:2]
    first, second, spectator = tabs
    open_page(first, live_server, match_id, tokens[seats[0]])
    open_page(second, live_server, match_id, tokens[seats[1]])
    open_page(spectator, live_server, match_id)
    latest = live_server.client.get(f"/matches/{match_id}").get_json()["version"]
    names = card_names(live_server.client.get(f"/rulesets/{ruleset}").get_json().get("catalogue"))

    logs = {}
    for tab, viewer in ((first, seats[0]), (second, seats[1]), (spectator, None)):
        lines = log_lines(tab)
        assert sorted(lines) == list(range(1, latest + 1)), "one line per record"
        for version, text in lines.items():
            assert text.strip() and "undefined" not in text and "[object" not in text and "null" not in text, (
                version,
                text,
            )
        logs[viewer] = lines
    assert "joined as" in logs[None][2]

    # A record's secret reaches its audience only (and everyone once a reveal opens it): a viewer
    # whose own form of the record holds no secret reads none of it in the log.
    forms = {
        viewer: {
            r["version"]: r
            for r in live_server.client.get(
                f"/matches/{match_id}/events?limit=500", headers=auth(tokens[viewer]) if viewer else {}
            ).get_json()["events"]
        }
        for viewer in logs
    }
    hidden_checked = 0
    for seat in seats:
        for version, record in forms[seat].items():
            if "secret" not in record or not record.get("commitment"):
                continue
            public = strings(record["public"])
            # Field names are not secrets; the values are (card ids, and the names the log would give them).
            secret = {s for s in strings(record["secret"], keys=False) if len(s) > 1 and s not in public}
            said = {names[s] for s in secret if s in names} | secret
            for viewer, lines in logs.items():
                if "secret" in forms[viewer][version]:
                    continue
                leaked = [s for s in said if s in lines[version]]
                assert not leaked, (viewer, record["kind"], lines[version], leaked)
                hidden_checked += 1
    if ruleset not in ("gambit-board",):
        assert hidden_checked, "the match had hidden records to check"
    screenshot(spectator, f"log-{ruleset}")
    for tab in tabs:
        assert not tab.errors, tab.errors


def test_a_card_played_and_a_piece_moved_read_as_sentences_and_are_marked_on_the_board(tabs, live_server):
    tab = tabs[0]
    match_id, _, _ = active_match(live_server, "gambitz", moves=4, seed=3)
    records = live_server.client.get(f"/matches/{match_id}/events?limit=500").get_json()["events"]
    played = [r for r in records if r["kind"] == "CardPlayed"][-1]
    open_page(tab, live_server, match_id)
    line = log_lines(tab)[played["version"]]
    p = played["public"]
    assert re.search(rf"played the \w+ \w+ on stack {re.escape(p['stack'])}", line), line
    tab.click(f"{LOG_LINES}[data-version='{played['version']}']")
    tab.wait_for_function(
        "v => document.querySelector('[data-current-version]').textContent === String(v)", arg=played["version"]
    )
    assert tab.get_attribute(f"{LOG_LINES}[data-version='{played['version']}']", "aria-current") == "step"
    assert tab.locator(f"#board [data-stack='{p['stack']}'].last-move").count() == 1
    assert tab.locator("#live[data-state=behind]").count() == 1, "a page moved back by the log is not LIVE"

    board_id, _, _ = active_match(live_server, "gambit-board", moves=4, seed=5)
    board_records = live_server.client.get(f"/matches/{board_id}/events?limit=500").get_json()["events"]
    moved = [r for r in board_records if r["kind"] == "PieceMoved"][-1]
    plan = moved["public"]["plan"]
    open_page(tab, live_server, board_id)
    line = log_lines(tab)[moved["version"]]
    assert f"moved {plan['piece']} {plan['from']}→{plan['to']}" in line, line
    tab.click(f"{LOG_LINES}[data-version='{moved['version']}']")
    tab.wait_for_selector(f"#board [data-square='{plan['to']}'].last-move")
    screenshot(tab, "gambit-board-last-move")


def test_the_seat_to_act_is_told_by_title_favicon_and_the_live_region(tabs, live_server):
    first, second, _ = tabs
    match_id, tokens, _ = active_match(live_server, "gambit-board", moves=3, seed=2)
    summary = live_server.client.get(f"/matches/{match_id}").get_json()
    acting = summary["to_act"][0]
    waiting = next(seat for seat in tokens if seat != acting)
    open_page(first, live_server, match_id, tokens[acting])
    open_page(second, live_server, match_id, tokens[waiting])
    first.wait_for_function("() => document.title.startsWith('● Your move — ')")
    assert first.get_attribute("link[rel~=icon]", "href").startswith("data:image/svg+xml")
    assert not second.title().startswith("●")
    assert second.get_attribute("link[rel~=icon]", "href") == "data:,"

    assert play_one(live_server, match_id, tokens, random.Random(4))
    version = live_server.client.get(f"/matches/{match_id}").get_json()["version"]
    second.wait_for_function("v => document.querySelector('#watch').dataset.latest === String(v)", arg=version)
    sentence = log_lines(second)[version]
    second.wait_for_function("s => document.querySelector('#announcer').textContent.includes(s)", arg=sentence)
    assert second.get_attribute("#announcer", "aria-live") == "polite"


def test_the_sound_is_off_by_default_and_its_switch_is_remembered(tabs, live_server):
    tab = tabs[0]
    match_id, tokens, _ = active_match(live_server, "gambitz", moves=1, seed=1)
    open_page(tab, live_server, match_id, tokens["p1"])
    toggle = tab.locator("[data-testid=sound-toggle]")
    assert toggle.get_attribute("aria-pressed") == "false"
    toggle.click()
    assert toggle.get_attribute("aria-pressed") == "true"
    tab.reload()
    tab.wait_for_selector("#watch[data-state=ready]")
    assert tab.locator("[data-testid=sound-toggle]").get_attribute("aria-pressed") == "true"


@pytest.mark.parametrize("ruleset", ["gambit-board", "gattai-conflict"])
def test_a_giving_up_command_is_a_button_that_asks_first(tabs, live_server, ruleset):
    tab = tabs[0]
    config = {"mode": "throwdown"} if ruleset == "gattai-conflict" else {}
    client = live_server.client
    match = client.post("/matches", json={"ruleset": ruleset, "config": config}).get_json()
    tokens = join_all(client, match)
    match_id = match["match_id"]
    rng = random.Random(9)
    seat = None
    for _ in range(200):
        for candidate in sorted(tokens):
            legal = client.get(f"/matches/{match_id}/legal-commands", headers=auth(tokens[candidate])).get_json()
            if any(c["type"] in ("resign", "concede") for c in legal["commands"]):
                seat = candidate
                break
        if seat:
            break
        assert play_one(live_server, match_id, tokens, rng)
    assert seat, "a giving-up command is offered at some point"
    open_page(tab, live_server, match_id, tokens[seat])
    tab.wait_for_selector("[data-testid=play-panel][data-state=ready]")
    button = tab.locator("[data-give-up]").first
    kind = button.get_attribute("data-give-up")
    assert button.text_content().startswith(kind.capitalize())
    button.click()
    assert "Confirm" in button.text_content()
    tab.click("[data-action=cancel-give-up]")
    assert button.text_content().startswith(kind.capitalize()), "Cancel sends nothing"
    assert client.get(f"/matches/{match_id}").get_json()["status"] == "active"
    before = client.get(f"/matches/{match_id}").get_json()["version"]
    button.click()
    button.click()
    tab.wait_for_function("() => document.querySelector('[data-testid=play-panel]').dataset.last === 'ok'")
    written = client.get(f"/matches/{match_id}/events?after={before}&limit=500").get_json()["events"]
    # A Concede ends the Throwdown, which may go on to its clean-up records: look at every record the click wrote.
    assert any(r["kind"] in ("Resigned", "Conceded", "MatchFinished") for r in written), [r["kind"] for r in written]


def test_a_low_clock_is_marked_and_announced(tabs, live_server):
    tab = tabs[0]
    # 20 s a decision: low under 5 s (a quarter of a short control).
    control = {"kind": "per_decision", "per_decision_s": 20}
    with fake_time_source(START):
        match = live_server.client.post(
            "/matches", json={"ruleset": "gambitz", "config": {"players": 2, "time_control": control}}
        ).get_json()
        for seat in ("p1", "p2"):
            live_server.client.post(f"/matches/{match['match_id']}/seats", json={"name": seat, "seat": seat})

        # The page takes the server's time from the clock resource's Date: the server's is START.
        def dated(route) -> None:
            response = route.fetch()
            route.fulfill(response=response, headers={**response.headers, "date": format_datetime(START, usegmt=True)})

        tab.route(re.compile(r"/matches/[^/?#]+/clock$"), dated)
        tab.clock.install(time=START - timedelta(hours=1))
        tab.clock.pause_at(START)
        tab.goto(f"{live_server.url}/watch/{match['match_id']}")
        tab.wait_for_selector("#clock dd[data-seat='p1'][data-counting=true]")
        assert tab.locator("#clock dd.low").count() == 0
        tab.clock.run_for(16_000)
        tab.wait_for_selector("#clock dd[data-seat='p1'].low")
        assert tab.locator("#clock dd[data-seat='p2'].low").count() == 0
        tab.wait_for_function("() => document.querySelector('#announcer').textContent.includes('p1 is low on time')")
