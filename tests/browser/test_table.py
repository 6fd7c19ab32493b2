"""The players' table in Chromium, for every game: two seats and a spectator at 1,400 and on phones.

Each game is played by two seat pages and watched by a spectator page. gambit-board's powers are
given out and a move is picked on the board (piece, square, then the claim) by mouse and by
keyboard; the rest of each match is sent over the API where the page is not the point. On every
page — the match list, the spectator's and each seat's watch page — axe-core finds no serious or
critical violation and no text is under 12 px; at 390 and 360 px nothing is wider than the screen,
no two controls overlap and a seat's moves sit in an action bar pinned inside the screen.
Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import json
import random

import pytest

from domain import rulesets
from tests.browser.conftest import ARTIFACTS, pages_in_own_contexts, screenshot
from tests.browser.page_checks import (
    action_bar_box,
    axe_violations,
    horizontal_overflow,
    install_axe,
    overlapping_controls,
    small_text,
)
from tests.support.api import auth, create_match, join_all, legal_options

pytestmark = pytest.mark.browser

PANEL = "[data-testid=play-panel]"
CONFIGS = {"gambitz": {"players": 2}, "dragons-gambit": {"players": 2}}
PHONES = (390, 360)
# API moves played before the mid-game checks (after gambit-board's page moves).
MID_GAME_MOVES = 8
GIVING_UP = {"resign", "concede"}


@pytest.fixture(scope="module")
def axe():
    """axe.min.js of the pinned axe-core (installed by npm once)."""
    return install_axe()


@pytest.fixture
def tabs(browser):
    """Three pages in their own browser contexts: two seats and a spectator."""
    with pages_in_own_contexts(browser, 3, 15000) as pages:
        yield pages


# ----- helpers ----------------------------------------------------------------------------------


def panel(tab) -> dict:
    """The play panel's state attributes."""
    return tab.eval_on_selector(
        PANEL,
        "p => ({state: p.dataset.state, version: p.dataset.version, posted: Number(p.dataset.posted || 0),"
        " last: p.dataset.last, seat: p.dataset.seat})",
    )


def open_page(tab, server, match_id: str, token: str | None = None) -> None:
    """Open the watch page (as a seat with its token) and wait until it drew the newest version."""
    tab.goto(f"{server.url}/watch/{match_id}" + (f"#token={token}" if token else ""))
    tab.wait_for_selector("#watch[data-state=ready]")
    if token:
        tab.wait_for_selector(f"{PANEL}[data-state=ready], {PANEL}[data-state=waiting], {PANEL}[data-state=finished]")


def caught_up(tab, server, match_id: str) -> None:
    """Wait until the page shows the match's newest version (and, for a seat, its moves there)."""
    version = server.client.get(f"/matches/{match_id}").get_json()["version"]
    tab.wait_for_selector(f"#watch[data-version='{version}']")
    if tab.get_attribute(PANEL, "data-seat"):
        tab.wait_for_function(
            "v => { const p = document.querySelector('[data-testid=play-panel]');"
            " return p.dataset.state === 'finished' || (Number(p.dataset.version) === v"
            " && ['ready', 'waiting'].includes(p.dataset.state)); }",
            arg=version,
        )


def wait_posted(tab, before: int) -> dict:
    """Wait for the answer to the move the page sent; returns the panel state."""
    tab.wait_for_function(
        "n => Number(document.querySelector('[data-testid=play-panel]').dataset.posted || 0) > n", arg=before
    )
    return panel(tab)


def check_page(tab, axe, name: str, width: int) -> None:
    """The page at `width`: axe finds nothing serious, no small text; on a phone the layout checks too."""
    tab.set_viewport_size({"width": width, "height": 1000 if width > 640 else 844})
    tab.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    screenshot(tab, f"table-{name}-{width}")
    assert not axe_violations(tab, axe), f"{name} at {width}px: {axe_violations(tab, axe)}"
    assert not small_text(tab), f"{name} at {width}px has text under 12px: {small_text(tab)}"
    if width <= 640:
        assert horizontal_overflow(tab) <= 0, f"{name} at {width}px scrolls sideways by {horizontal_overflow(tab)}px"
        assert not overlapping_controls(tab), f"{name} at {width}px: {overlapping_controls(tab)}"


def check_action_bar(tab, name: str, width: int) -> None:
    """A seat with moves at `width` (a phone) has them in a bar pinned inside the screen."""
    tab.set_viewport_size({"width": width, "height": 844})
    tab.evaluate("() => window.scrollTo(0, 0)")
    bar = action_bar_box(tab)
    ARTIFACTS.mkdir(exist_ok=True)
    tab.screenshot(path=str(ARTIFACTS / f"table-{name}-{width}-screen.png"))
    assert bar is not None, f"{name}: no action bar at {width}px"
    assert bar["position"] == "fixed", f"{name}: the action bar is not pinned at {width}px ({bar['position']})"
    assert bar["moves"] >= 1, f"{name}: the action bar holds no move"
    assert 0 <= bar["top"] and bar["bottom"] <= bar["screen"] + 0.5, f"{name}: the action bar leaves the screen: {bar}"
    assert 0 <= bar["left"] and bar["right"] <= width + 0.5, f"{name}: the action bar is wider than the screen: {bar}"
    assert bar["height"] <= 0.5 * bar["screen"], f"{name}: the action bar covers most of the screen: {bar}"


def api_moves(server, match_id: str, tokens: dict, rng: random.Random, count: int) -> None:
    """Play `count` random legal commands over the API (never giving up; stop at the end)."""
    client = server.client
    for _ in range(count):
        view = client.get(f"/matches/{match_id}/view").get_json()
        if view["status"] != "active":
            return
        seat = rng.choice(sorted(view["to_act"]))
        options = legal_options(client, match_id, tokens[seat], rng)
        calm = [o for o in options if o["type"] not in GIVING_UP | {"call_final_gambit"}] or options
        response = client.post(f"/matches/{match_id}/commands", json=rng.choice(calm), headers=auth(tokens[seat]))
        assert response.status_code == 201, response.get_json()


def play_to_finish(server, match_id: str, tokens: dict, rng: random.Random) -> None:
    """Play random legal commands over the API until the match ends (giving up only when nothing else is left)."""
    client = server.client
    for _ in range(5000):
        view = client.get(f"/matches/{match_id}/view").get_json()
        if view["status"] == "finished":
            return
        seat = rng.choice(sorted(view["to_act"]))
        options = legal_options(client, match_id, tokens[seat], rng)
        calm = [o for o in options if o["type"] not in GIVING_UP] or options
        response = client.post(f"/matches/{match_id}/commands", json=rng.choice(calm), headers=auth(tokens[seat]))
        assert response.status_code == 201, response.get_json()
    raise AssertionError("the match did not finish")


def move_key(body: dict) -> str:
    """A move with its claims in any order, as the page counts distinct moves."""
    return json.dumps({**body, **({"claims": sorted(body["claims"])} if "claims" in body else {})}, sort_keys=True)


# ----- gambit-board by the page -----------------------------------------------------------------------


def assign_by_clicks(tab, server, match_id: str, token: str, rng: random.Random) -> dict:
    """Give out a seat's powers on its page: click a piece on the board, then a power; returns the body sent."""
    legal = server.client.get(f"/matches/{match_id}/legal-commands", headers=auth(token)).get_json()
    choice = rng.choice(legal["choices"])
    pool = choice["free"]["powers"]["pairs"][0]["keys"]["sequence_of"]
    form = tab.locator("[data-testid=legal-choice][data-picker=assign]")
    assert form.count() == 1, "the powers are given out in one form"
    assert form.locator("select").count() == 0, "no dropdown of every assignment"
    expected: dict[str, list[str]] = {}
    for part in choice["free"]["powers"]["pairs"]:
        for piece, power in zip(rng.sample(pool, len(part["values"])), part["values"], strict=True):
            tab.locator(f"#board [data-piece='{piece}']").first.click()
            assert form.get_attribute("data-selected") == piece, "a click on the board selects the piece"
            form.locator(f"[data-power='{power}']").click()
            expected.setdefault(piece, []).append(power)
    body = json.loads(form.get_attribute("data-body"))
    assert body == {"type": "assign", "powers": expected}
    before = panel(tab)["posted"]
    form.locator("button[type=submit]").click()
    assert wait_posted(tab, before)["last"] == "ok"
    return body


def claim_buttons(tab) -> list[dict]:
    """The moves offered for a picked piece and square (one button per distinct claim)."""
    return [
        json.loads(b)
        for b in tab.locator("[data-testid=picked-moves] [data-testid=legal-command]").evaluate_all(
            "bs => bs.map(b => b.dataset.body)"
        )
    ]


def pick_move(server, match_id: str, token: str, rng: random.Random) -> tuple[dict, list[dict]]:
    """A listed move whose piece and square allow more than one claim, and every distinct move there."""
    legal = server.client.get(f"/matches/{match_id}/legal-commands", headers=auth(token)).get_json()
    moves = [c for c in legal["commands"] if c["type"] == "move"]
    by_place: dict[tuple, dict] = {}
    for move in moves:
        by_place.setdefault((move["piece"], move["to"]), {})[move_key(move)] = move
    places = [place for place, found in by_place.items() if len(found) > 1]
    place = rng.choice(places)
    body = rng.choice(list(by_place[place].values()))
    return body, list(by_place[place].values())


def move_by_mouse(tab, server, match_id: str, token: str, rng: random.Random) -> dict:
    """Click a piece, its square, then the claim; each distinct move is offered once."""
    body, distinct = pick_move(server, match_id, token, rng)
    tab.locator(f"#board [data-piece='{body['piece']}']").first.click()
    assert tab.locator(f"#board [data-square='{body['to']}'].play-target").count() == 1
    tab.locator(f"#board [data-square='{body['to']}']").click()
    offered = claim_buttons(tab)
    assert sorted(map(move_key, offered)) == sorted(map(move_key, distinct)), "each distinct move once"
    before = panel(tab)["posted"]
    tab.locator("[data-testid=picked-moves] [data-testid=legal-command]").nth(
        [move_key(b) for b in offered].index(move_key(body))
    ).click()
    assert wait_posted(tab, before)["last"] == "ok"
    return body


def walk_to(tab, square: str) -> None:
    """Move the board's keyboard focus to `square` with the arrow keys."""
    here = tab.evaluate("() => document.activeElement.dataset.square")
    columns = "abcdef"
    dx = columns.index(square[0]) - columns.index(here[0])
    dy = int(square[1]) - int(here[1])
    for _ in range(abs(dx)):
        tab.keyboard.press("ArrowRight" if dx > 0 else "ArrowLeft")
    for _ in range(abs(dy)):
        tab.keyboard.press("ArrowUp" if dy > 0 else "ArrowDown")
    assert tab.evaluate("() => document.activeElement.dataset.square") == square


def move_by_keyboard(tab, server, match_id: str, token: str, rng: random.Random) -> dict:
    """Tab to the board, walk to the piece with the arrow keys, Enter; walk to the square, Enter; Enter on a claim."""
    body, _ = pick_move(server, match_id, token, rng)
    stop = tab.locator("#board [data-square][tabindex='0']")
    assert stop.count() == 1, "the board is one tab stop"
    stop.focus()
    where = server.client.get(f"/matches/{match_id}/view", headers=auth(token)).get_json()["state"]["pieces"]
    walk_to(tab, where[body["piece"]]["square"])
    tab.keyboard.press("Enter")
    assert tab.locator(f"#board [data-piece='{body['piece']}'].play-pick").count() == 1
    walk_to(tab, body["to"])
    tab.keyboard.press("Enter")
    offered = claim_buttons(tab)
    button = tab.locator("[data-testid=picked-moves] [data-testid=legal-command]").nth(
        [move_key(b) for b in offered].index(move_key(body))
    )
    before = panel(tab)["posted"]
    button.focus()
    tab.keyboard.press("Enter")
    assert wait_posted(tab, before)["last"] == "ok"
    return body


def until_seat_moves(server, match_id: str, tokens: dict, seat: str, rng: random.Random) -> None:
    """Play over the API until `seat` is to move a piece with a choice of claims."""
    client = server.client
    for _ in range(200):
        legal = client.get(f"/matches/{match_id}/legal-commands", headers=auth(tokens[seat])).get_json()
        if any(c["type"] == "move" for c in legal["commands"]):
            return
        view = client.get(f"/matches/{match_id}/view").get_json()
        assert view["status"] == "active", "the match ended before the seat moved again"
        actor = rng.choice(sorted(view["to_act"]))
        options = [
            o for o in legal_options(client, match_id, tokens[actor], rng) if o["type"] not in ("resign", "call_bluff")
        ]
        response = client.post(f"/matches/{match_id}/commands", json=rng.choice(options), headers=auth(tokens[actor]))
        assert response.status_code == 201, response.get_json()
    raise AssertionError(f"{seat} never got to move")


# ----- the tests -------------------------------------------------------------------------------------


def test_the_match_list_and_the_not_found_page_pass_axe_and_fit_a_phone(tabs, live_server, axe):
    tab = tabs[0]
    create_match(live_server.client, "gambitz", {})
    tab.goto(live_server.url + "/")
    tab.wait_for_selector("#recent-matches tr[data-match], #live-matches tr[data-match]")
    for width in (1400, *PHONES):
        check_page(tab, axe, "index", width)
    tab.set_viewport_size({"width": 1400, "height": 1000})
    assert tab.goto(live_server.url + "/watch/no-such-match").status == 404
    for width in (1400, *PHONES):
        check_page(tab, axe, "not-found", width)
    assert not tab.errors, tab.errors


@pytest.mark.parametrize("ruleset", rulesets.available())
def test_two_seats_and_a_spectator_at_1400_and_on_phones(tabs, live_server, axe, ruleset):
    first, second, spectator = tabs
    client = live_server.client
    match = create_match(client, ruleset, CONFIGS.get(ruleset, {}))
    match_id = match["match_id"]
    tokens = join_all(client, match)
    seats = [s["seat"] for s in match["seats"]]
    rng = random.Random(f"table-{ruleset}")
    pages = {seats[0]: first, seats[1]: second}
    for seat, tab in pages.items():
        open_page(tab, live_server, match_id, tokens[seat])
    open_page(spectator, live_server, match_id)

    if ruleset == "gambit-board":
        # Powers by clicks on both pages, then moves picked on the board: by mouse, then by keyboard.
        for seat, tab in pages.items():
            caught_up(tab, live_server, match_id)
            assign_by_clicks(tab, live_server, match_id, tokens[seat], rng)
        mover = client.get(f"/matches/{match_id}").get_json()["to_act"][0]
        caught_up(pages[mover], live_server, match_id)
        move_by_mouse(pages[mover], live_server, match_id, tokens[mover], rng)
        until_seat_moves(live_server, match_id, tokens, mover, rng)
        caught_up(pages[mover], live_server, match_id)
        move_by_keyboard(pages[mover], live_server, match_id, tokens[mover], rng)
    api_moves(live_server, match_id, tokens, rng, MID_GAME_MOVES)
    if client.get(f"/matches/{match_id}").get_json()["status"] != "active":
        pytest.fail(f"{ruleset}: the match ended before the mid-game checks; pick another seed")

    # Mid-game: every page passes at every width; a seat with moves has them in the bar on a phone.
    to_act = client.get(f"/matches/{match_id}").get_json()["to_act"]
    for name, tab in [
        (f"{ruleset}-spectator", spectator),
        *[(f"{ruleset}-{seat}", tab) for seat, tab in pages.items()],
    ]:
        caught_up(tab, live_server, match_id)
        for width in (1400, *PHONES):
            check_page(tab, axe, name, width)
        tab.set_viewport_size({"width": 1400, "height": 1000})
    acting = pages[to_act[0]]
    for width in PHONES:
        check_action_bar(acting, f"{ruleset}-{to_act[0]}", width)
    # A move sent from the bar on a phone.
    acting.set_viewport_size({"width": 390, "height": 844})
    buttons = acting.locator(".play-bar [data-testid=legal-command]:visible")
    calm = [
        i for i, kind in enumerate(buttons.evaluate_all("bs => bs.map(b => b.dataset.type)")) if kind not in GIVING_UP
    ]
    if calm:
        before = panel(acting)["posted"]
        buttons.nth(rng.choice(calm)).click()
        assert wait_posted(acting, before)["last"] == "ok"
    acting.set_viewport_size({"width": 1400, "height": 1000})

    # The end: the finished pages pass too.
    play_to_finish(live_server, match_id, tokens, rng)
    for name, tab in [(f"{ruleset}-spectator-finished", spectator), (f"{ruleset}-{seats[0]}-finished", first)]:
        tab.wait_for_selector("#status.status-finished")
        caught_up(tab, live_server, match_id)
        for width in (1400, 390):
            check_page(tab, axe, name, width)
        tab.set_viewport_size({"width": 1400, "height": 1000})
    for tab in tabs:
        assert not tab.errors, tab.errors


def test_a_lost_piece_shows_its_revealed_powers_to_a_spectator(tabs, live_server):
    client = live_server.client
    rng = random.Random(11)
    for _deal in range(5):
        match = create_match(client, "gambit-board", {})
        match_id = match["match_id"]
        tokens = join_all(client, match)
        for _ in range(600):
            view = client.get(f"/matches/{match_id}/view").get_json()
            if view["status"] != "active" or any(view["state"]["lost"].values()):
                break
            seat = rng.choice(sorted(view["to_act"]))
            options = [o for o in legal_options(client, match_id, tokens[seat], rng) if o["type"] != "resign"]
            client.post(f"/matches/{match_id}/commands", json=rng.choice(options), headers=auth(tokens[seat]))
        if view["status"] == "active" and any(view["state"]["lost"].values()):
            break
    else:
        raise AssertionError("no piece was lost in five matches")
    tab = tabs[2]
    open_page(tab, live_server, match_id)
    revealed = {r["piece"]: r["powers"] for r in view["state"]["revealed"] if r["reason"] == "lost"}
    for piece in [p for lost in view["state"]["lost"].values() for p in lost]:
        token = tab.locator(f".gb-seat .lost [data-piece='{piece}']")
        assert token.locator(".power.hidden").count() == 0, f"{piece}'s powers are public once it is lost"
        shown = token.locator(".power .long").all_text_contents()
        assert shown == revealed[piece] or (not revealed[piece] and "no power" in token.text_content()), (piece, shown)
    assert not tab.errors, tab.errors
