"""The spectator viewer in a real browser: scrubbing, markers and audits, live following, viewers, secrecy.

Every check compares what the page shows with what the REST API gives the same caller: the
page keeps the view it renders in `<pre id="view-json">`, and `#watch[data-version]` says
which version that is.
"""

from __future__ import annotations

import json
import re
import time

import pytest

from domain import rulesets
from service import events as events_resource
from tests.browser.conftest import active_match, finished_match, play_one, relay_api, screenshot
from tests.support.api import auth
from tests.support.leaks import revealed_versions

pytestmark = pytest.mark.browser

CARD_PATTERNS = {
    "gambitz": re.compile(r"^(?:king|queen|bishop|knight|castle|\d+)-(?:red|blue|green|yellow)$"),
    "dragons-gambit": re.compile(r"^c\d\d$"),
}


# ----- helpers ---------------------------------------------------------------------------------


def open_watch(page, server, match_id: str, fragment: str = "") -> None:
    """Open the watch page and wait until it has drawn a version."""
    page.goto(f"{server.url}/watch/{match_id}{fragment}")
    page.wait_for_selector("#watch[data-state=ready]")


def wait_version(page, version: int) -> None:
    """Wait until the page shows `version`."""
    page.wait_for_selector(f"#watch[data-version='{version}']")


def shown_view(page) -> dict:
    """The view the page rendered (kept in <pre id="view-json">)."""
    return json.loads(page.locator("#view-json").text_content())


def api_view(server, match_id: str, version: int | None = None, token: str | None = None) -> dict:
    """GET /view (?at=version) as a caller."""
    path = f"/matches/{match_id}/view" + (f"?at={version}" if version else "")
    response = server.client.get(path, headers=auth(token) if token else {})
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def latest_version(server, match_id: str) -> int:
    """The match's current version."""
    return server.client.get(f"/matches/{match_id}").get_json()["version"]


def assert_shows(page, server, match_id: str, version: int, token: str | None = None) -> None:
    """The page is at `version` and shows exactly the API's view there."""
    wait_version(page, version)
    assert shown_view(page) == api_view(server, match_id, version, token)
    assert page.locator("#tl-version").text_content() == str(version)


# ----- home page -------------------------------------------------------------------------------


def test_the_home_page_lists_live_and_recent_matches_with_links_to_watch_them(page, live_server):
    finished_id, _ = finished_match(live_server, "dragons-gambit", seed=2)
    active_id, _, _ = active_match(live_server, "gambitz", moves=2)
    page.goto(live_server.url + "/")
    page.wait_for_selector(f"#live-matches tr[data-match='{active_id}']")
    page.wait_for_selector(f"#recent-matches tr[data-match='{finished_id}']")
    assert page.locator(f"#live-matches tr[data-match='{finished_id}']").count() == 0
    assert page.locator(f"#recent-matches tr[data-match='{active_id}']").count() == 0, "a live match is listed once"
    screenshot(page, "home")
    page.click(f"#live-matches a[data-match='{active_id}']")
    page.wait_for_url(f"**/watch/{active_id}")
    page.wait_for_selector("#watch[data-state=ready]")
    assert not page.recorder.errors, page.recorder.errors


def test_an_unknown_match_gets_a_not_found_page(page, live_server):
    response = page.goto(f"{live_server.url}/watch/00000000-0000-0000-0000-000000000000")
    assert response.status == 404
    assert "No such match" in page.content()


def test_the_pages_forbid_foreign_scripts_and_referrers(live_server):
    response = live_server.client.get("/")
    policy = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "connect-src 'self'" in policy
    assert response.headers["Referrer-Policy"] == "no-referrer"
    assert b"http://" not in response.data and b"https://" not in response.data, "no external assets"


# ----- scrubbing finished matches --------------------------------------------------------------


@pytest.mark.parametrize("ruleset", rulesets.available())
def test_scrubbing_a_finished_match_shows_the_api_view_of_every_version_visited(page, live_server, ruleset):
    match_id, _ = finished_match(live_server, ruleset)
    last = latest_version(live_server, match_id)
    open_watch(page, live_server, match_id)
    assert_shows(page, live_server, match_id, last)

    page.keyboard.press("Home")
    assert_shows(page, live_server, match_id, 1)
    page.keyboard.press("ArrowRight")
    assert_shows(page, live_server, match_id, 2)
    page.keyboard.press("Shift+ArrowRight")
    assert_shows(page, live_server, match_id, 12)
    page.click("#tl-prev")
    assert_shows(page, live_server, match_id, 11)
    page.click("#tl-next")
    assert_shows(page, live_server, match_id, 12)
    middle = last // 2 + 1
    page.locator("#tl-slider").fill(str(middle))
    assert_shows(page, live_server, match_id, middle)
    near_end = last - 3
    page.locator("#tl-slider").fill(str(near_end))
    assert_shows(page, live_server, match_id, near_end)
    page.click("#tl-last")
    assert_shows(page, live_server, match_id, last)

    page.locator("#tl-slider").fill(str(middle))
    wait_version(page, middle)
    assert page.get_attribute("#board", "data-ruleset") == ruleset
    screenshot(page, f"{ruleset}-finished")
    assert not page.recorder.errors, page.recorder.errors


@pytest.mark.parametrize("ruleset", rulesets.available())
def test_every_version_of_a_match_renders_with_its_own_board_and_no_script_error(page, live_server, ruleset):
    match_id, _ = finished_match(live_server, ruleset, seed=11)
    last = latest_version(live_server, match_id)
    open_watch(page, live_server, match_id)
    for version in range(1, last + 1, max(1, last // 40)):
        page.locator("#tl-slider").fill(str(version))
        wait_version(page, version)
        assert page.get_attribute("#board", "data-ruleset") == ruleset, f"v{version} fell back to the tree"
        assert page.locator(f"#board > [data-board='{ruleset}']").count() == 1
        assert "[object " not in page.locator("main").text_content(), f"v{version} shows an unrendered object"
    assert not page.recorder.errors, page.recorder.errors


def test_play_advances_at_the_chosen_speed_and_pause_stops_it(page, live_server):
    match_id, _ = finished_match(live_server, "gambitz", seed=4)
    # The page's clock is Playwright's and moves only when the test runs it: no playback tick
    # depends on how fast this machine is.
    page.clock.install(time=0)
    page.clock.pause_at(1_000)
    open_watch(page, live_server, match_id)
    page.keyboard.press("Home")
    wait_version(page, 1)
    page.select_option("#tl-speed", "16")
    page.click("#tl-play")
    page.clock.run_for(1_000)  # sixteen versions a second
    wait_version(page, 17)
    page.keyboard.press(" ")
    paused_at = int(page.get_attribute("#watch", "data-version"))
    page.clock.run_for(5_000)
    # The slider moves at once on a tick (the page then fetches that version's view).
    assert page.input_value("#tl-slider") == str(paused_at)
    assert int(page.get_attribute("#watch", "data-version")) == paused_at
    assert shown_view(page) == api_view(live_server, match_id, paused_at)
    assert page.locator("#tl-play").text_content().endswith("play")


# ----- markers and audits ----------------------------------------------------------------------


def test_bluff_and_dispute_markers_jump_to_the_call_and_open_its_audit_entry(page, live_server):
    match_id, tokens = finished_match(live_server, "gambit-board")
    audit = live_server.client.get(f"/matches/{match_id}/audit/bluffs").get_json()["calls"]
    assert audit, "this seed's game has bluff calls"
    call = audit[0]
    filed = live_server.client.post(
        f"/matches/{match_id}/disputes",
        headers=auth(tokens[call["caller"]]),
        json={"call_version": call["call_version"], "reason": "the move looked legal"},
    )
    assert filed.status_code == 201, filed.get_json()
    dispute_version = filed.get_json()["version"]

    open_watch(page, live_server, match_id)
    bluffs = page.locator(".marker.bluff")
    assert bluffs.count() == len({c["call_version"] for c in audit})
    assert page.locator(f".marker.dispute[data-version='{dispute_version}']").count() == 1

    page.keyboard.press("Home")
    wait_version(page, 1)
    page.keyboard.press("]")
    assert_shows(page, live_server, match_id, call["call_version"])
    panel = page.locator("#audit")
    assert panel.is_visible()
    assert panel.get_attribute("data-call-version") == str(call["call_version"])
    ruling = "the claim was true" if call["verdict"] == "true" else "bluff caught"
    assert f"Ruling: {ruling}" in panel.text_content()
    assert f"{call['caller']} called {call['claimant']}'s" in panel.text_content()
    assert "✔ verified (server)" in panel.text_content()
    page.wait_for_selector("#audit-browser-check .badge.ok")
    assert "[object " not in panel.text_content()
    evidence = call["evidence"].get("opened") or call["evidence"].get("sealed_evidence")
    assert evidence[0]["salt"] in page.content(), "a finished match's evidence is public"

    last_call = audit[-1]
    page.click(f".marker.bluff[data-version='{last_call['call_version']}']")
    assert_shows(page, live_server, match_id, last_call["call_version"])
    assert panel.get_attribute("data-call-version") == str(last_call["call_version"])
    screenshot(page, "gambit-board-audit")

    page.click(f".marker.dispute[data-version='{dispute_version}']")
    assert_shows(page, live_server, match_id, dispute_version)
    assert panel.get_attribute("data-call-version") == str(call["call_version"])
    assert "the move looked legal" in panel.text_content()
    page.click("#audit .close")
    assert not panel.is_visible()


def test_final_gambit_markers_open_the_ruling_on_the_call(page, live_server):
    match_id, _ = finished_match(live_server, "dragons-gambit", seed=6)
    audit = live_server.client.get(f"/matches/{match_id}/audit/bluffs").get_json()["calls"]
    assert audit, "every dragons-gambit round ends with a Final Gambit ruling"
    open_watch(page, live_server, match_id)
    finals = page.locator(".marker.final")
    assert finals.count() == len(audit)
    assert page.locator(".marker.bluff").count() == 0
    call = audit[0]
    page.click(f".marker.final[data-version='{call['call_version']}']")
    assert_shows(page, live_server, match_id, call["call_version"])
    text = page.locator("#audit").text_content()
    assert "lowest_hand" in text and "✔ verified (server)" in text and "Hand totals" in text
    assert "[object " not in text
    page.wait_for_selector("#audit-browser-check .badge.ok")
    screenshot(page, "dragons-gambit-audit")


# ----- live ------------------------------------------------------------------------------------


def test_an_active_match_shows_new_moves_live(page, live_server):
    match_id, tokens, rng = active_match(live_server, "gambitz", moves=3)
    open_watch(page, live_server, match_id)
    version = latest_version(live_server, match_id)
    assert_shows(page, live_server, match_id, version)
    page.wait_for_selector("#live:not([hidden])")
    for _ in range(3):
        assert play_one(live_server, match_id, tokens, rng)
        version = latest_version(live_server, match_id)
        assert_shows(page, live_server, match_id, version)
    assert page.get_attribute("#watch", "data-latest") == str(version)

    # Scrubbed back, the page stays put and counts what is new.
    page.keyboard.press("Home")
    wait_version(page, 1)
    assert play_one(live_server, match_id, tokens, rng)
    newest = latest_version(live_server, match_id)
    page.wait_for_selector(f"#watch[data-latest='{newest}']")
    assert page.get_attribute("#watch", "data-version") == "1"
    assert page.locator("#new-versions").is_visible()
    page.keyboard.press("End")
    assert_shows(page, live_server, match_id, newest)
    screenshot(page, "gambitz-live-spectator")
    assert not page.recorder.errors, page.recorder.errors


def test_a_delayed_spectator_sees_how_many_records_behind_the_page_is(page, live_server):
    match_id, _, _ = active_match(live_server, "gambitz", moves=3)
    open_watch(page, live_server, match_id)
    badge = page.locator("[data-testid=spectator-delay]")
    assert not badge.is_visible(), "an undelayed view has no delay badge"

    # A delayed spectator's summary and view carry {"delay": {"records", "as_of"}}; the page shows it.
    summary_url = re.compile(rf"^https?://[^/]+/matches/{re.escape(match_id)}$")

    def delayed(route) -> None:
        response = route.fetch()
        body = response.json()
        body["delay"] = {"records": 3, "as_of": body["version"]}
        route.fulfill(response=response, json=body)

    page.route(summary_url, delayed)
    page.reload()
    page.wait_for_selector("#watch[data-state=ready]")
    assert badge.is_visible()
    assert badge.text_content() == "delayed by 3 records"


def test_a_match_that_ends_while_watched_is_reloaded_with_everything_revealed(page, live_server):
    match_id, tokens, _ = active_match(live_server, "gambit-board", moves=4, seed=3)
    open_watch(page, live_server, match_id)
    assert page.locator(".power.held").count() == 0, "a spectator sees no held power while the match runs"
    resigned = live_server.client.post(
        f"/matches/{match_id}/commands", json={"type": "resign"}, headers=auth(tokens["south"])
    )
    assert resigned.status_code == 201, resigned.get_json()
    last = latest_version(live_server, match_id)
    page.wait_for_selector("#status.status-finished")
    assert_shows(page, live_server, match_id, last)
    assert page.locator(".power.held").count() > 0, "once it has ended, every power is public"
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert_shows(page, live_server, match_id, 5)
    assert shown_view(page)["viewer"] == "spectator" and "powers" in shown_view(page)["state"]["pieces"]["S1"]
    page.wait_for_selector("#live", state="hidden")
    screenshot(page, "gambit-board-ended-live")


def test_a_seat_token_in_the_fragment_shows_that_seats_view_and_goes_only_in_the_authorization_header(
    page, live_server
):
    match_id, tokens, rng = active_match(live_server, "gambitz", moves=4)
    token = tokens["p2"]
    open_watch(page, live_server, match_id, f"#token={token}")
    version = latest_version(live_server, match_id)
    assert_shows(page, live_server, match_id, version, token)
    assert shown_view(page)["viewer"] == "p2" and "hand" in shown_view(page)["state"]
    assert token not in page.url, "the token is taken out of the address bar"
    assert play_one(live_server, match_id, tokens, rng)
    version = latest_version(live_server, match_id)
    assert_shows(page, live_server, match_id, version, token)
    screenshot(page, "gambitz-seat-p2")

    api_requests = [r for r in page.recorder.requests if "/matches/" in r.url]
    assert api_requests
    for request in page.recorder.requests:
        assert token not in request.url, f"the token went into a URL: {request.url}"
    for request in api_requests:
        assert request.headers.get("authorization") == f"Bearer {token}", request.url
    assert any("text/event-stream" in (r.headers.get("accept") or "") for r in api_requests), "live via SSE"


def test_an_organizer_key_typed_into_the_form_shows_everything_and_spectate_goes_back(page, live_server):
    created = live_server.client.post("/tournaments", json={"name": "Browser Cup"}).get_json()
    key = created["organizer_key"]
    match_id, _, _ = active_match(
        live_server, "dragons-gambit", moves=6, tournament_id=created["tournament_id"], organizer_key=key
    )
    version = latest_version(live_server, match_id)
    open_watch(page, live_server, match_id)
    assert shown_view(page)["viewer"] == "spectator"
    page.fill("#token-input", key)
    page.click("#token-form button[type=submit]")
    page.wait_for_selector("#watch[data-viewer=organizer]")
    assert_shows(page, live_server, match_id, version, key)
    assert page.locator(".dg-card.back[data-slot]").count() == 0, "an organizer sees every card"
    screenshot(page, "dragons-gambit-organizer")
    page.click("#token-clear")
    page.wait_for_selector("#watch[data-viewer=spectator]")
    assert_shows(page, live_server, match_id, version)
    assert page.locator(".dg-card.back[data-slot]").count() > 0
    assert not page.recorder.errors, page.recorder.errors
    for request in page.recorder.requests:
        assert key not in request.url


def test_a_token_that_is_not_valid_falls_back_to_the_spectator_view(page, live_server):
    match_id, _, _ = active_match(live_server, "gambitz", moves=1)
    open_watch(page, live_server, match_id, "#token=not-a-real-token")
    page.wait_for_selector("#watch[data-viewer=spectator]")
    assert "not valid" in page.locator("#error").text_content()
    assert shown_view(page) == api_view(live_server, match_id)


# ----- secrecy ---------------------------------------------------------------------------------


def _strings(value) -> set[str]:
    """Every string inside a JSON value."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(_strings(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_strings(v) for v in value)) if value else set()
    return set()


def _secrets_of(server, match_id: str, ruleset: str) -> dict[str, re.Pattern]:
    """What a spectator must not see while the match runs: every salt, the server seed and hidden cards."""
    # A record a reveal opened is everyone's from then on (API "Reveals"); the rest stays hidden.
    every_record = server.matches.records(match_id)
    revealed = revealed_versions(every_record)
    records = [r for r in every_record if r.originator_version not in revealed]
    forbidden = {
        f"salt of v{r.originator_version}": re.compile(re.escape(r.salt)) for r in records if r.secret is not None
    }
    assert forbidden, "the match has secrets to keep"
    forbidden["server seed"] = re.compile(re.escape(server.matches.match(match_id).server_seed))
    pattern = CARD_PATTERNS.get(ruleset)
    if pattern is not None:
        public = set().union(
            *(_strings(r.public) for r in every_record),
            *(_strings(r.secret) for r in every_record if r.originator_version in revealed),
        )
        hidden = {s for r in records if r.secret is not None for s in _strings(r.secret) if pattern.match(s)} - public
        assert hidden, "some cards are face down"
        for card in hidden:
            forbidden[f"hidden card {card}"] = re.compile(rf"(?<![\w-]){re.escape(card)}(?![\w-])")
    if ruleset == "gambit-board":
        forbidden["a piece's held powers"] = re.compile(r'"powers":\s*\{')
    return forbidden


@pytest.mark.parametrize("ruleset", rulesets.available())
def test_a_spectator_page_never_holds_a_secret_the_api_would_not_give_it(page, live_server, ruleset, monkeypatch):
    # Short streams, so each SSE response ends (and is relayed to the page whole) within the test.
    monkeypatch.setattr(events_resource, "STREAM_SECONDS", 0.75)
    match_id, tokens, rng = active_match(live_server, ruleset, moves=8, seed=13)
    received = relay_api(page)
    open_watch(page, live_server, match_id)
    contents = []
    start = latest_version(live_server, match_id)
    for version in (1, max(1, start // 2), start):
        page.locator("#tl-slider").fill(str(version))
        assert_shows(page, live_server, match_id, version)
        contents.append(page.content())
    for _ in range(3):
        assert play_one(live_server, match_id, tokens, rng)
    version = latest_version(live_server, match_id)
    assert_shows(page, live_server, match_id, version)
    contents.append(page.content())
    page.keyboard.press("ArrowLeft")
    assert_shows(page, live_server, match_id, version - 1)
    contents.append(page.content())
    page.keyboard.press("End")
    assert_shows(page, live_server, match_id, version)
    if ruleset == "gambit-board":
        assert page.locator(".power.held").count() == 0
    screenshot(page, f"{ruleset}-spectator-live")

    # Wait until the event stream that carried the newest record has been relayed, so it is checked too.
    def streamed_newest() -> bool:
        return any(f'"version": {version},' in text for url, text in received if "/events?" in url)

    # The relay runs while Playwright dispatches the page's events: wait on each finished request
    # (the page reopens its stream every STREAM_SECONDS) until the one that carried it is in.
    give_up = time.monotonic() + 15  # a bound that only ends a hung run
    while not streamed_newest():
        assert time.monotonic() < give_up, "the live records never arrived over SSE"
        page.wait_for_event("requestfinished")

    forbidden = _secrets_of(live_server, match_id, ruleset)
    checked = [(f"page at step {i}", text) for i, text in enumerate(contents)]
    checked += list(received)
    assert len(checked) > 8
    for where, text in checked:
        for name, pattern in forbidden.items():
            assert not pattern.search(text), f"{name} reached the spectator via {where}"
    assert live_server.matches.match(match_id).status == "active"
