"""Every game's board in a real browser: its own renderer (`data-board`), the zones of a mid-game
position, the outcome of a finished match, no sideways scroll on a phone, no seat's secret in a
spectator's page, and the match list with headers and each match once.

Screenshots of every board at 1400 px and 390 px go to test-artifacts/boards-<ruleset>-<width>.png.
"""

from __future__ import annotations

import random
import re

import pytest

from domain import rulesets
from tests.browser.conftest import screenshot
from tests.support.api import auth, create_match, join_all, legal_options
from tests.support.leaks import hidden_from

pytestmark = pytest.mark.browser

# Every registered game's board is drawn; CONFIGS and MID_GAME name only what differs from a
# game's defaults (its default config; a mid-game position twenty records in).
RULESETS = rulesets.available()
CONFIGS = {
    "gambitz": {"players": 3},
    "dragons-gambit": {"players": 3, "target_score": 30},
    "gattai-conflict": {"mode": "throwdown", "pilots": {"p1": {}, "p2": {}}},
}
# Commands that end a game early; a mid-game position is reached without them.
ENDING = {"resign", "concede", "call_final_gambit"}
PHONE = 360


# ----- matches, played over HTTP through legal-commands -------------------------------------------


def _pick(ruleset: str, options: list[dict], rng: random.Random, finish: bool) -> dict:
    """A legal body, favouring eventful play: TCG attacks with most units, few story triggers."""
    calm = [o for o in options if finish or o["type"] not in ENDING] or options
    if ruleset == "gambit-tcg":
        attacks = [o for o in calm if o["type"] == "declare_attack" and o.get("attackers")]
        if attacks:
            return max(attacks, key=lambda o: len(o["attackers"]))
    if ruleset == "gattai-conflict":
        # Story triggers change nothing on the board; Drives and Omens do. A side left with nothing
        # else must concede (the deal decides): then it does, and `play` deals a new match.
        board_moves = [o for o in options if o["type"] not in ("record_trigger", "threat_assist")]
        moves = [o for o in calm if o in board_moves]
        calm = moves or board_moves or calm
    return rng.choice(calm)


def play(server, ruleset: str, until, seed: int = 7, config: dict | None = None, limit: int = 3000):
    """A match of `ruleset` played until `until(spectator view)` holds (or, with until=None, to the end);
    returns (match id, seat tokens, the view it stopped at)."""
    client = server.client
    rng = random.Random(seed)
    # The server's seed shuffles each match differently: a deal that ends before the position is
    # reached is followed by a fresh one (a few at most).
    for _deal in range(5):
        match = create_match(client, ruleset, CONFIGS.get(ruleset, {}) if config is None else config)
        tokens = join_all(client, match)
        match_id = match["match_id"]
        for _ in range(limit):
            view = client.get(f"/matches/{match_id}/view").get_json()
            if view["status"] == "finished" or (until is not None and until(view)):
                break
            seat = rng.choice(sorted(view["to_act"]))
            body = _pick(ruleset, legal_options(client, match_id, tokens[seat], rng), rng, finish=until is None)
            response = client.post(f"/matches/{match_id}/commands", json=body, headers=auth(tokens[seat]))
            assert response.status_code == 201, (body, response.get_json())
        else:
            raise AssertionError(f"{ruleset}: the position was not reached in {limit} commands")
        if until is None or view["status"] == "active":
            return match_id, tokens, view
    raise AssertionError(f"{ruleset}: five deals ended before the position was reached")


def view_at(server, match_id: str, version: int, token: str | None = None) -> dict:
    """GET /view?at=version as a caller."""
    response = server.client.get(f"/matches/{match_id}/view?at={version}", headers=auth(token) if token else {})
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def _tcg_mid_game(view) -> bool:
    """Both TCG sides have a unit, a face-down set card, energy and a graveyard."""
    players = view["state"]["players"].values()
    return all(
        p["units"] and p["energy"] and p["graveyard"] and any(e["face"] == "down" for e in p["set"]) for p in players
    )


def _gattai_mid_game(view) -> bool:
    """A Throwdown in its turns, past its second stage, with cards in a Trash."""
    state = view["state"]
    td = state["throwdown"] or {}
    return (
        state["phase"] == "turns" and td.get("stage", 0) >= 2 and any(deck["trash"] for deck in state["decks"].values())
    )


def _a_few_commands_in(view) -> bool:
    """A mid-game position of a game MID_GAME does not name: twenty records in."""
    return view["version"] >= 20


MID_GAME = {
    "gambit-board": lambda view: ((view["state"].get("turn") or {}).get("number") or 0) >= 4,
    "gambitz": lambda view: view["version"] >= 30,
    "dragons-gambit": lambda view: view["version"] >= 20,
    "gambit-tcg": _tcg_mid_game,
    "gattai-conflict": _gattai_mid_game,
}


# ----- the page --------------------------------------------------------------------------------------


def open_watch(page, server, match_id: str, version: int | None = None, token: str | None = None) -> None:
    """Open a match's watch page (at `version`, as `token`) and wait until it has drawn that version."""
    fragment = "&".join(part for part in (f"token={token}" if token else "", f"v={version}" if version else "") if part)
    page.goto(f"{server.url}/watch/{match_id}" + (f"#{fragment}" if fragment else ""))
    page.wait_for_selector("#watch[data-state=ready]")
    if version:
        page.wait_for_selector(f"#watch[data-version='{version}']")


def board_text(page) -> str:
    """The text of the drawn board."""
    return page.locator("#board").inner_text()


def resize(page, width: int, height: int = 900) -> None:
    """Set the viewport and wait until the page's layout is that wide (Chromium applies it within a frame or two)."""
    page.set_viewport_size({"width": width, "height": height})
    page.wait_for_function("width => window.innerWidth === width", arg=width)


def scroll_width(page) -> int:
    """How wide the page's content is (more than the viewport means sideways scrolling)."""
    return page.evaluate("document.documentElement.scrollWidth")


def catalogue_names(server) -> dict[str, str]:
    """gambit-tcg card id -> name, from the ruleset's public catalogue."""
    cards = server.client.get("/rulesets/gambit-tcg").get_json()["catalogue"]["cards"]
    return {card["id"]: card["name"] for card in cards}


# ----- every board -----------------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_game_has_its_own_board_mid_game_that_fits_a_phone(page, live_server, ruleset):
    match_id, _, view = play(live_server, ruleset, MID_GAME.get(ruleset, _a_few_commands_in))
    open_watch(page, live_server, match_id, view["version"])
    assert page.locator(f"#board > [data-board='{ruleset}']").count() == 1
    assert page.get_attribute("#board", "data-ruleset") == ruleset, "the board did not fall back to the JSON tree"
    assert "[object " not in board_text(page)
    assert page.locator("[data-testid=outcome]").count() == 0, "a running match shows no outcome"
    screenshot(page, f"boards-{ruleset}-1400")

    for width in (390, PHONE):
        resize(page, width)
        assert scroll_width(page) <= width, f"the board page scrolls sideways at {width} px"
        if width == 390:
            screenshot(page, f"boards-{ruleset}-390")
    assert not page.recorder.errors, page.recorder.errors


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_finished_match_shows_its_outcome_not_a_turn_or_a_pending_claim(page, live_server, ruleset):
    match_id, _, view = play(live_server, ruleset, None, seed=5)
    outcome = view["outcome"]
    open_watch(page, live_server, match_id)
    banner = page.locator("#board [data-testid=outcome]")
    assert banner.count() == 1
    text = banner.inner_text()
    assert "Finished" in text
    for winner in outcome["winners"]:
        assert winner in text
    if not outcome["winners"]:
        assert "draw" in text
    board = board_text(page).lower()
    for stale in ("· to move", "· to play", "· to act", "· to drive", "pending claim", "awaiting"):
        assert stale not in board, f"a finished {ruleset} board still says {stale!r}"
    assert page.locator("#board .to-move").count() == 0
    screenshot(page, f"boards-{ruleset}-finished")
    resize(page, PHONE)
    assert scroll_width(page) <= PHONE, "a finished board scrolls sideways on a phone"
    assert not page.recorder.errors, page.recorder.errors


# ----- gambit-tcg ------------------------------------------------------------------------------------


def test_the_tcg_board_shows_both_sides_zones_with_card_names_and_set_cards_face_down(page, live_server):
    match_id, tokens, view = play(live_server, "gambit-tcg", _tcg_mid_game)
    names = catalogue_names(live_server)
    open_watch(page, live_server, match_id, view["version"])
    for seat, player in view["state"]["players"].items():
        side = page.locator(f".tcg-side[data-seat='{seat}']")
        assert side.locator("[data-testid^=life]").inner_text().endswith(str(player["life"]))
        hand = side.locator("[data-zone=hand]")
        assert hand.locator(".card-back").count() == min(player["hand_size"], 10)
        assert hand.locator(".tcg-card").count() == 0, "a spectator sees no hand"
        noun = "card" if player["hand_size"] == 1 else "cards"
        assert f"Hand · {player['hand_size']} {noun}" in hand.inner_text()
        hidden = [e for e in player["set"] if e.get("hidden")]
        assert side.locator("[data-zone=set] .tcg-set-back").count() == len(hidden)
        for entry in hidden:
            shown = side.locator(f"[data-zone=set] [data-card='{entry['card']}']")
            assert shown.get_attribute("data-id") is None
        units = side.locator("[data-zone=units] .tcg-card")
        assert units.count() == len(player["units"])
        for unit in player["units"]:
            card = side.locator(f"[data-zone=units] [data-card='{unit['card']}']")
            assert names[unit["id"]] in card.inner_text()
            assert f"{unit['might']}/{unit['endurance']}" in card.inner_text()
        assert side.locator("[data-zone=energy] .tcg-chip").count() == len(player["energy"])
        assert side.locator("[data-zone=graveyard] .tcg-chip").count() == len(player["graveyard"])
        assert f"deck · {player['deck_size']} card" in side.inner_text()
    field = view["state"]["field"]
    if field:
        assert names[field["id"]] in page.locator("[data-zone=field]").inner_text()

    # As a seat: its own hand face up with names and text, the other hand still backs.
    seat_view = view_at(live_server, match_id, view["version"], tokens["p2"])
    page.goto("about:blank")
    open_watch(page, live_server, match_id, view["version"], token=tokens["p2"])
    own = seat_view["state"]["players"]["p2"]
    hand = page.locator(".tcg-side[data-seat='p2'] [data-zone=hand] .tcg-card")
    assert hand.count() == len(own["hand"])
    for card in own["hand"]:
        assert names[card["id"]] in page.locator(f"[data-zone=hand] [data-card='{card['card']}']").inner_text()
    assert page.locator(".tcg-side[data-seat='p1'] [data-zone=hand] .tcg-card").count() == 0
    own_set = page.locator(".tcg-side[data-seat='p2'] [data-zone=set] .tcg-card.known-face-down")
    assert own_set.count() == sum(1 for e in own["set"] if e["face"] == "down")
    assert not page.recorder.errors, page.recorder.errors


def test_the_tcg_board_shows_combat_and_an_open_response_window(page, live_server):
    def attacked(view) -> bool:
        state = view["state"]
        return bool(state["combat"] and state["combat"]["attackers"] and state["window"])

    match_id, _, view = play(live_server, "gambit-tcg", attacked, seed=3)
    names = catalogue_names(live_server)
    combat, window = view["state"]["combat"], view["state"]["window"]
    open_watch(page, live_server, match_id, view["version"])
    box = page.locator("[data-zone=combat]").inner_text()
    assert f"{combat['seat']} attacks {combat['target']}" in box
    attacker_units = {u["card"]: u for u in view["state"]["players"][combat["seat"]]["units"]}
    for attacker in combat["attackers"]:
        assert names[attacker_units[attacker]["id"]] in box
        assert "attacking" in page.locator(f"[data-zone=units] [data-card='{attacker}']").inner_text()
    shown = page.locator("[data-zone=window]").inner_text()
    assert window["name"].replace("_", " ") in shown
    for responder in window["responders"]:
        assert responder in shown
    assert page.locator(".tcg-phases li.current").inner_text() == "Combat"
    screenshot(page, "boards-gambit-tcg-combat")
    assert not page.recorder.errors, page.recorder.errors


# ----- gattai-conflict -------------------------------------------------------------------------------


def test_the_gattai_board_shows_decks_trash_hands_piles_strike_harmony_and_payloads(page, live_server):
    match_id, _, view = play(live_server, "gattai-conflict", _gattai_mid_game, seed=4)
    state = view["state"]
    td = state["throwdown"]
    open_watch(page, live_server, match_id, view["version"])
    for name, deck in state["decks"].items():
        zone = page.locator(f"[data-deck='{name}']")
        assert f"{deck['count']} card" in zone.inner_text()
        assert zone.locator(f"[data-zone=trash-{name}] .gt-card").count() == len(deck["trash"])
        assert zone.locator(f"[data-zone=omens-{name}] .gt-card").count() == len(deck["omens"])
    for seat, hand in state["hands"].items():
        shown = page.locator(f".gt-hand[data-seat='{seat}']")
        assert shown.locator(".card-back").count() == min(hand["count"], 8)
        assert shown.locator(".gt-card").count() == 0, "a spectator sees no hand"
    piles = page.locator("[data-zone=piles] .gt-pile")
    assert piles.count() == len(td["piles"])
    for pile in td["piles"]:
        shown = page.locator(f"[data-zone=piles] [data-stage='{pile['stage']}']")
        assert shown.locator(".gt-card").count() == len(pile["cards"])
        for entry in pile["cards"]:
            assert shown.locator(f"[data-card='{entry['card']}']").count() == 1
    assert f"stage {td['stage']}" in page.locator("[data-zone=throwdown] h4").inner_text()
    for side in ("pilots", "coach"):
        row = page.locator(f"[data-zone=throwdown] tr[data-side='{side}']")
        assert row.locator(f"[data-testid=score-{side}]").inner_text() == str(td["scores"][side])
        assert str(td["strikes"][side]) in row.inner_text()
        payload = page.locator("[data-zone=payloads]").inner_text()
        assert f"Payload of the {side}" in payload
    harmony = page.locator("[data-zone=harmony] li.current")
    assert harmony.inner_text() == str(state["harmony"]["level"])
    assert state["harmony"]["name"] in page.locator("[data-zone=harmony]").inner_text()
    for pilot, sheet in state["team"].items():
        pilot_box = page.locator(f"[data-zone=team] [data-seat='{pilot}']").inner_text()
        assert "charges" in pilot_box and "buffers" in pilot_box and str(sheet["steel"]) in pilot_box
    assert not page.recorder.errors, page.recorder.errors


def test_sealed_initiative_and_threshold_cards_are_backs_until_revealed(page, live_server):
    def sealed_initiative(view) -> bool:
        table = view["state"]["table"]
        return len(table) == 2 and all(entry["card"] is None for entry in table)

    match_id, tokens, view = play(live_server, "gattai-conflict", sealed_initiative, seed=2)
    open_watch(page, live_server, match_id, view["version"])
    table = page.locator("[data-zone=table]")
    assert table.locator(".gt-sealed .card-back").count() == 2
    assert table.locator(".gt-card").count() == 0
    # The coach sees its own sealed card face up, the pilot's still as a back.
    own = view_at(live_server, match_id, view["version"], tokens["coach"])["state"]["table"]
    page.goto("about:blank")
    open_watch(page, live_server, match_id, view["version"], token=tokens["coach"])
    mine = next(entry["card"] for entry in own if entry["seat"] == "coach")
    assert page.locator(f"[data-zone=table] [data-card='{mine}']").count() == 1
    assert page.locator("[data-zone=table] .gt-sealed .card-back").count() == 1

    def threshold_sealed(view) -> bool:
        return view["state"]["phase"] == "play"

    match_id, _, view = play(live_server, "gattai-conflict", threshold_sealed, seed=2, config={"mode": "gambit"})
    page.goto("about:blank")
    open_watch(page, live_server, match_id, view["version"])
    gambit = page.locator("[data-zone=gambit]")
    assert gambit.locator(".gt-sealed .card-back").count() == 1
    assert "Threshold" in gambit.inner_text()

    def threshold_revealed(view) -> bool:
        return bool((view["state"]["gambit"] or {}).get("threshold"))

    match_id, _, view = play(live_server, "gattai-conflict", threshold_revealed, seed=2, config={"mode": "gambit"})
    page.goto("about:blank")
    open_watch(page, live_server, match_id, view["version"])
    threshold = view["state"]["gambit"]["threshold"]
    assert page.locator(f"[data-zone=gambit] [data-card='{threshold}']").count() == 1
    assert page.locator("[data-zone=gambit] .gt-sealed").count() == 0
    assert not page.recorder.errors, page.recorder.errors


# ----- secrecy ---------------------------------------------------------------------------------------


def _gattai_hidden_cards(server, match_id: str, tokens: dict, version: int) -> set[str]:
    """Cards only a seat may see now: its hand, its unrevealed sealed cards, the Coach's Threat stacks."""
    hidden = set()
    for token in tokens.values():
        state = view_at(server, match_id, version, token)["state"]
        for hand in state["hands"].values():
            hidden.update(hand["cards"] or [])
        hidden.update(e["card"] for e in state["table"] if e["card"] and not e["face_up"])
        for stack in state["threat_stacks"].values():
            hidden.update(stack["cards"] or [])
    return hidden


@pytest.mark.parametrize("ruleset", ["gambit-tcg", "gattai-conflict"])
def test_a_spectators_board_holds_no_secret_of_any_seat(page, live_server, ruleset):
    match_id, tokens, view = play(live_server, ruleset, MID_GAME[ruleset], seed=9)
    version = view["version"]
    open_watch(page, live_server, match_id, version)
    content = page.content()
    matches = live_server.matches
    assert matches.match(match_id).server_seed not in content
    secrets = hidden_from(matches, match_id, None)
    assert secrets, "the match has secrets to keep"
    for secret_version, salt in secrets:
        assert salt not in content, f"the salt of v{secret_version} reached the spectator's page"
    if ruleset == "gambit-tcg":
        assert page.locator("[data-zone=hand] .tcg-card").count() == 0
        for token in tokens.values():
            seat_state = view_at(live_server, match_id, version, token)["state"]
            for player in seat_state["players"].values():
                for entry in player["set"]:
                    if entry["face"] == "down":
                        assert page.locator(f"[data-card='{entry['card']}'][data-id]").count() == 0
    else:
        hidden = _gattai_hidden_cards(live_server, match_id, tokens, version)
        assert hidden, "some cards are face down"
        shown = set(page.eval_on_selector_all("[data-card]", "nodes => nodes.map(n => n.dataset.card)"))
        assert not hidden & shown, f"hidden cards drawn face up: {hidden & shown}"
        for card in hidden:
            assert not re.search(rf"(?<![\w.]){re.escape(card)}(?!\w)", content), f"{card} reached the spectator's page"
    assert not page.recorder.errors, page.recorder.errors


# ----- the match list --------------------------------------------------------------------------------


def test_the_match_list_has_column_headers_lists_each_match_once_and_fits_a_phone(page, live_server):
    finished_id, _, finished = play(live_server, "gambit-board", None, seed=5)
    active_id, _, _ = play(live_server, "gambitz", lambda view: view["version"] >= 8)
    open_id = create_match(live_server.client, "dragons-gambit", {"players": 3})["match_id"]
    page.goto(live_server.url + "/")
    page.wait_for_selector(f"#live-matches tr[data-match='{active_id}']")
    page.wait_for_selector(f"#recent-matches tr[data-match='{finished_id}']")
    for table in ("#live-matches", "#recent-matches"):
        headers = [h.strip() for h in page.locator(f"{table} thead th").all_inner_texts()]
        assert headers[1:] == ["Match", "Game", "Status", "Version", "Seats", "Outcome", "Created"]
    for match_id in (finished_id, active_id, open_id):
        assert page.locator(f"tr[data-match='{match_id}']").count() == 1, f"{match_id} is listed more than once"
    assert page.locator(f"#recent-matches tr[data-match='{open_id}']").count() == 1
    ids = page.eval_on_selector_all("tbody tr[data-match]", "rows => rows.map(r => r.dataset.match)")
    assert len(ids) == len(set(ids)), "no match is listed twice"
    listed_outcome = page.locator(f"tr[data-match='{finished_id}']").inner_text()
    assert all(f"{winner} win" in listed_outcome for winner in finished["outcome"]["winners"])

    resize(page, PHONE, 800)
    assert scroll_width(page) <= PHONE, "the match list scrolls sideways on a phone"
    screenshot(page, "boards-index-360")
    assert not page.recorder.errors, page.recorder.errors
