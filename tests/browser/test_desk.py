"""The organizer's desk, the entrant's page and the printable ruling in Chromium.

A tournament is run from the desk: entrants registered (their invite links read from the page),
four matches created from the desk's form with the entrants paired, one played to its end from
the seat pages (an entrant joins from its invite link; the moves are driven over HTTP with the
page's own seat token, since the board is not the point here), a dispute filed from a seat page,
ruled from the desk (overturned, with an amended outcome), the printable ruling read on screen and
in print media, the standings CSV downloaded and the access trail read. Then the same pages at a
phone's width, by keyboard, and the leak checks: the organizer key never in a URL, and a
spectator's ruling of a running match holding no sealed secret.
"""

from __future__ import annotations

import csv
import io
import random

import pytest

from domain.errors import PartitionUnavailable
from tests.browser.conftest import Recorder, screenshot
from tests.browser.page_checks import axe_violations, install_axe, overlapping_controls, small_text
from tests.support.api import auth, legal_options
from tests.support.entrants import join, new_desk, play_entrants
from tests.support.seat_keys import SeatKey, signed_post

pytestmark = pytest.mark.browser

DESK_READY = "[data-page=organizer-desk][data-state=ready]"
RULING_READY = "[data-page=ruling][data-state=ready]"
NAMES = ("Ada", "Ben", "Cy", "Di")


# ----- helpers ------------------------------------------------------------------------------------


@pytest.fixture
def tab_at(browser):
    """Fresh pages at a given width, each in its own context (own session storage); all closed afterwards."""
    contexts = []

    def open_tab(width: int = 1400):
        context = browser.new_context(viewport={"width": width, "height": 1000}, accept_downloads=True)
        contexts.append(context)
        tab = context.new_page()
        tab.set_default_timeout(20000)
        tab.recorder = Recorder(tab)
        return tab

    yield open_tab
    for context in contexts:
        context.close()


def page_errors(tab) -> list[str]:
    """Script errors of a page (a 404 the page asked for and handled is not one)."""
    return [e for e in tab.recorder.errors if "Failed to load resource" not in e]


def open_desk(tab, server, tournament_id: str, key: str) -> None:
    """Open the desk with the key in the fragment and wait until every section is drawn."""
    tab.goto(f"{server.url}/organize/{tournament_id}#key={key}")
    tab.wait_for_selector(DESK_READY)


def play_to_a_call(server, match_id: str, tokens: dict, rng: random.Random, keys: dict | None = None) -> int:
    """Play random legal commands (signed by `keys` for the seats it holds) until a Final Gambit call
    (dragons-gambit's claim of the lowest hand) is ruled at the end of its round; returns the call's
    version, the one a dispute names."""
    client = server.client
    called = False
    for _ in range(600):
        ruled = [
            c for c in client.get(f"/matches/{match_id}/audit/bluffs").get_json()["calls"] if c.get("ruling_version")
        ]
        if ruled:
            return ruled[0]["call_version"]
        summary = client.get(f"/matches/{match_id}").get_json()
        assert summary["status"] == "active", "the match ended before a call was ruled"
        seat = rng.choice(sorted(summary["to_act"]))
        options = legal_options(client, match_id, tokens[seat], rng)
        calls = [o for o in options if o["type"] == "call_final_gambit"]
        calm = [o for o in options if o["type"] not in ("call_final_gambit", "resign")]
        body = calls[0] if calls and not called else rng.choice(calm or options)
        called = called or body["type"] == "call_final_gambit"
        response = signed_post(client, match_id, tokens[seat], (keys or {}).get(seat), body, summary["version"])
        assert response.status_code == 201, response.get_json()
    raise AssertionError("no call was ruled")


def sealed_salts(server, match_id: str, key: str) -> set[str]:
    """The salts of every record a spectator may not open yet (the organizer's events minus the spectator's)."""
    client = server.client
    organizer = client.get(f"/matches/{match_id}/events?limit=500", headers=auth(key)).get_json()["events"]
    spectator = client.get(f"/matches/{match_id}/events?limit=500").get_json()["events"]
    open_to_all = {r["version"] for r in spectator if r.get("salt")}
    return {r["salt"] for r in organizer if r.get("salt") and r["version"] not in open_to_all}


def invite_of(link: str) -> str:
    """The invite in an invite link's fragment."""
    from urllib.parse import unquote

    return unquote(link.split("#invite=", 1)[1])


def fits_the_width(tab) -> bool:
    """The page has no horizontal scroll: nothing is wider than the viewport."""
    return tab.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")


def unlabelled_controls(tab) -> list[str]:
    """Form controls a screen reader cannot name (no label, aria-label or aria-labelledby)."""
    return tab.evaluate("""() => [...document.querySelectorAll('input:not([type=hidden]), select, textarea')]
      .filter((c) => c.offsetParent !== null && !(c.labels && c.labels.length) && !c.getAttribute('aria-label')
        && !c.getAttribute('aria-labelledby'))
      .map((c) => c.outerHTML.slice(0, 120))""")


def tab_to(tab, selector: str, presses: int = 400) -> bool:
    """Press Tab until the focused element matches `selector`; False when it never does."""
    for _ in range(presses):
        tab.keyboard.press("Tab")
        if tab.evaluate("(s) => document.activeElement && document.activeElement.matches(s)", selector):
            return True
    return False


# ----- a tournament run from the desk ----------------------------------------------------------------


def test_a_tournament_is_run_from_the_desk_to_a_printed_ruling(tab_at, live_server):
    server = live_server
    desk = new_desk(server.client, "Spring Open")
    tab = tab_at(1400)
    open_desk(tab, server, desk.tournament_id, desk.key)
    assert desk.key not in tab.url, "the key is taken out of the address bar"
    assert tab.evaluate(f"sessionStorage.getItem('gambit-organizer-key:{desk.tournament_id}')") == desk.key

    # Entrants, each invite link read once from the page.
    invites = {}
    for name in NAMES:
        tab.fill("#entrant-name", name)
        tab.fill("#entrant-contact", f"{name.lower()}@example.org")
        tab.click("[data-testid=entrant-form] button[type=submit]")
        tab.wait_for_selector(f".invite p:has-text('{name} registered')")
        tab.wait_for_selector(f".entrant-list tr:has-text('{name}')")
        invites[name] = tab.input_value("#invite-link")
        assert f"/entry/{desk.tournament_id}#invite=" in invites[name]
    entrants = {
        e["name"]: e for e in server.client.get(f"/tournaments/{desk.tournament_id}/entrants").get_json()["entrants"]
    }

    # Four matches from the desk's form, each seat paired to an entrant.
    pairings = [("Ada", "Ben", 1), ("Cy", "Di", 1), ("Ada", "Cy", 1000), ("Ben", "Di", 1000)]
    match_ids = []
    tab.select_option("[data-testid=ruleset-select]", "dragons-gambit")
    tab.wait_for_selector("[data-field=target_score] input")
    for first, second, target in pairings:
        tab.fill("[data-field=target_score] input", str(target))
        tab.select_option("select[data-seat=p1]", entrants[first]["entrant_id"])
        tab.select_option("select[data-seat=p2]", entrants[second]["entrant_id"])
        count = len(match_ids)
        tab.click("[data-testid=create-match-form] button[type=submit]")
        tab.wait_for_function("(n) => document.querySelectorAll('#matches tr[data-match]').length > n", arg=count)
        created = tab.get_attribute("[data-created-match]", "data-created-match")
        assert created not in match_ids
        assert f"for {first}" in tab.inner_text(f"[data-created-match='{created}'] li[data-seat=p1]")
        match_ids.append(created)
    first_match = match_ids[0]
    summary = server.client.get(f"/matches/{first_match}").get_json()
    assert summary["config"]["target_score"] == 1
    assert [s["entrant_id"] for s in summary["seats"]] == [entrants["Ada"]["entrant_id"], entrants["Ben"]["entrant_id"]]

    # Ada takes her seat from her entrant page; Ben joins with his invite over HTTP.
    ada = tab_at(1400)
    ada.goto(invites["Ada"])
    ada.wait_for_selector("[data-page=entry][data-state=ready]")
    assert "invite=" not in ada.url
    ada.click(f"button.take-seat[data-match='{first_match}']")
    ada.wait_for_url(f"**/watch/{first_match}")
    ada.click("form.invite-join button[type=submit]")
    ada.wait_for_selector("[data-testid=play-panel][data-seat=p1]")
    tokens = {
        "p1": ada.evaluate(f"sessionStorage.getItem('gambit-watch-token:{first_match}')"),
        "p2": join(server.client, first_match, invite=invite_of(invites["Ben"]))["token"],
    }
    assert server.client.get(f"/matches/{first_match}").get_json()["seats"][0]["name"] == "Ada"
    # Her page signs her moves with a key it keeps; here she plays on from another device, which holds
    # another key: the organizer re-keys her seat to it.
    other_device = SeatKey("p256")
    rekeyed = server.client.post(f"/matches/{first_match}/seats/p1/key", headers=auth(desk.key),
                                 json={"public_key": other_device.sent, "note": "Ada plays on from her phone"})
    assert rekeyed.status_code == 201, rekeyed.get_json()

    # Play to a bluff call that ends the match (target score 1), then Ada disputes it from her page.
    rng = random.Random(11)
    call_version = play_to_a_call(server, first_match, tokens, rng, keys={"p1": other_device})
    assert server.client.get(f"/matches/{first_match}").get_json()["status"] == "finished"
    ada.wait_for_selector("[data-testid=play-panel][data-state=finished]")
    ada.wait_for_selector(".play-calls .dispute-call summary")
    ada.click(".play-calls .dispute-call summary")
    ada.fill(".dispute-form textarea", "My grid was read wrong at the count.")
    ada.click(".dispute-form button[type=submit]")
    ada.wait_for_selector(".dispute-form[data-filed='1']")
    assert not page_errors(ada), page_errors(ada)

    # The other matches: the second played to its end, the third and fourth left running.
    for match_id, (first, second, _) in zip(match_ids[1:], pairings[1:]):
        seat_tokens = {
            "p1": join(server.client, match_id, invite=invite_of(invites[first]))["token"],
            "p2": join(server.client, match_id, invite=invite_of(invites[second]))["token"],
        }
        play_to_a_call(server, match_id, seat_tokens, rng)

    # The desk: the dispute in the queue, opened, its evidence checked here, overturned with an amended outcome.
    tab.click("#matches .pager button:has-text('Refresh')")
    dispute = tab.locator(f"[data-dispute-id='{first_match}/1']")
    dispute.wait_for()
    assert dispute.get_attribute("data-status") == "open"
    # The matches table refreshes on its own requests (a clock per match): wait for its row to show the dispute.
    tab.wait_for_selector(f"#matches tr[data-match='{first_match}'] [data-open-disputes='1']")
    assert tab.locator(f"#matches tr[data-match='{first_match}'] [data-open-disputes='1']").count() == 1
    dispute.locator("button.open-dispute").click()
    tab.wait_for_selector(".dispute-open [data-evidence-check=ok]")
    detail = tab.inner_text(".dispute-open")
    assert "My grid was read wrong at the count." in detail and f"v{call_version}" in detail
    checks = tab.eval_on_selector_all(
        ".dispute-open tr[data-evidence-version]", "rows => rows.map((r) => r.dataset.check)"
    )
    assert checks and set(checks) == {"ok"}
    winners = server.client.get(f"/matches/{first_match}").get_json()["outcome"]["winners"]
    amended_winner = "p2" if winners == ["p1"] else "p1"
    tab.check(".ruling-form input[value=overturned]")
    tab.fill(".ruling-form textarea", "The count was wrong: the call is set aside.")
    tab.check(".ruling-form input[id$=-amend]")
    tab.check(f".ruling-form input[name$=-winner][value={amended_winner}]")
    tab.click(".ruling-form button[type=submit]")
    written = tab.locator(".action-log .written").first
    written.wait_for()
    assert "DisputeRuled" in written.inner_text() and "OutcomeAmended" in written.inner_text()
    assert server.client.get(f"/matches/{first_match}").get_json()["outcome"]["winners"] == [amended_winner]
    screenshot(tab, "desk-ruled")

    # Standings: per entrant, amended marked; the CSV downloaded from the desk.
    tab.wait_for_selector("#standings tr[data-amended]")
    standings_text = tab.inner_text("#standings")
    assert all(name in standings_text for name in NAMES)
    with tab.expect_download() as download:
        tab.click("[data-testid=standings-csv]")
    with open(download.value.path(), encoding="utf-8") as handle:
        rows = list(csv.reader(io.StringIO(handle.read())))
    assert rows[0] == [
        "rank",
        "entrant_id",
        "name",
        "points",
        "played",
        "wins",
        "shared_wins",
        "losses",
        "buchholz",
        "amended",
    ]
    assert {r[2] for r in rows[1:]} == set(NAMES)

    # The access trail: an organizer export of a running match is recorded, and the desk reads it.
    with tab.expect_download() as exported:
        tab.click(f"#matches tr[data-match='{match_ids[2]}'] button.export-match")
    assert exported.value.suggested_filename == f"{match_ids[2]}.ndjson"
    tab.click("#matches .pager button:has-text('Refresh')")
    tab.wait_for_selector(f"[data-testid=access-trail] tr:has-text('{match_ids[2][:8]}')")
    assert "export" in tab.inner_text("[data-testid=access-trail]")

    # The printable ruling, opened from the desk.
    tab.click(".action-log .written a:has-text('printable ruling')")
    tab.wait_for_selector(RULING_READY)
    text = tab.inner_text("main")
    assert "Spring Open" in text and "Ada" in text and "Ben" in text
    assert tab.get_attribute("[data-decision]", "data-decision") == "overturned"
    assert "The count was wrong: the call is set aside." in text
    assert tab.locator("[data-amended]").count() == 1
    assert set(tab.eval_on_selector_all("tr[data-evidence-version]", "rows => rows.map((r) => r.dataset.check)")) == {
        "ok"
    }
    receipt = server.client.get(f"/matches/{first_match}").get_json()
    records = server.client.get(f"/matches/{first_match}/events").get_json()["events"]
    ruled = next(e for e in records if e["kind"] == "OutcomeAmended")
    assert tab.get_attribute("[data-receipt]", "data-receipt") == str(ruled["version"])
    assert tab.get_attribute("[data-chain-head]", "data-chain-head") == ruled["chain"]
    command = tab.inner_text("[data-verify-command]")
    assert command == (
        f"gambit verify {first_match}.ndjson --key signing-key.json --receipt ruling-{first_match}-1-receipt.json"
    )
    assert receipt["status"] == "finished"
    tab.emulate_media(media="print")
    assert not tab.is_visible("#print") and not tab.is_visible("header.topbar")
    colours = tab.evaluate("""() => [getComputedStyle(document.body).backgroundColor,
      getComputedStyle(document.querySelector('main')).color, getComputedStyle(document.querySelector('main')).backgroundColor]""")
    assert colours[0] in ("rgb(255, 255, 255)", "rgba(0, 0, 0, 0)") and colours[1] == "rgb(0, 0, 0)"
    assert tab.evaluate("[...document.querySelectorAll('main details')].every((d) => d.open)"), (
        "nothing folded away in print"
    )
    screenshot(tab, "ruling-print")
    assert not page_errors(tab), page_errors(tab)

    # On the match's own page, the amended outcome's marker opens the audit of the call it settles.
    viewer = tab_at(1400)
    viewer.goto(f"{server.url}/watch/{first_match}")
    viewer.wait_for_selector("#watch[data-state=ready]")
    viewer.click(f".marker.dispute[data-version='{ruled['version']}']")
    viewer.wait_for_selector(f"#audit[data-call-version='{call_version}']")
    assert "No ruling for this call yet" not in viewer.inner_text("#audit")

    # Leak check: the organizer key reached no URL any page asked for, nor any page's DOM.
    for page in (tab, ada):
        assert not [r.url for r in page.recorder.requests if desk.key in r.url]
        assert desk.key not in page.content()
        assert not [r.url for r in page.recorder.requests if "invite=" in r.url.split("#")[0]]
    for request in tab.recorder.requests:
        if request.url.startswith(server.url) and "/tournaments/" in request.url and request.method == "POST":
            assert request.headers.get("authorization") == f"Bearer {desk.key}"


# ----- a tournament built over HTTP, read at a phone's width and by keyboard ------------------------


@pytest.fixture(scope="module")
def running_dispute(live_server):
    """A tournament whose match still runs after a bluff call that a seat disputed and the organizer upheld."""
    server = live_server
    desk = new_desk(server.client, "Autumn Cup")
    ada, ben = desk.register("Ada"), desk.register("Ben")
    match = desk.match(
        {"p1": ada["entrant_id"], "p2": ben["entrant_id"]}, ruleset="dragons-gambit", config={"target_score": 1000}
    )
    tokens = {
        "p1": join(server.client, match["match_id"], invite=ada["invite"])["token"],
        "p2": join(server.client, match["match_id"], invite=ben["invite"])["token"],
    }
    call_version = play_to_a_call(server, match["match_id"], tokens, random.Random(5))
    filed = server.client.post(
        f"/matches/{match['match_id']}/disputes",
        headers=auth(tokens["p2"]),
        json={"call_version": call_version, "reason": "the totals look wrong"},
    )
    assert filed.status_code == 201, filed.get_json()
    second = server.client.post(
        f"/matches/{match['match_id']}/disputes",
        headers=auth(tokens["p1"]),
        json={"call_version": call_version, "reason": "and my penalty too"},
    )
    assert second.status_code == 201, second.get_json()
    ruled = server.client.post(
        f"/matches/{match['match_id']}/disputes/1/ruling",
        headers=desk.organizer,
        json={"decision": "upheld", "note": "The totals are right."},
    )
    assert ruled.status_code == 201, ruled.get_json()
    assert server.client.get(f"/matches/{match['match_id']}").get_json()["status"] == "active"
    return desk, match["match_id"], tokens


@pytest.mark.parametrize("width", [1400, 390])
def test_the_desk_fits_the_screen_and_is_usable_by_keyboard(tab_at, live_server, running_dispute, width):
    desk, match_id, _ = running_dispute
    tab = tab_at(width)
    open_desk(tab, live_server, desk.tournament_id, desk.key)
    assert fits_the_width(tab), f"the desk scrolls sideways at {width} px"
    assert not unlabelled_controls(tab), unlabelled_controls(tab)
    tab.click("body")
    assert tab_to(tab, f"[data-dispute-id='{match_id}/2'] button.open-dispute"), "the open dispute is reachable by Tab"
    tab.keyboard.press("Enter")
    tab.wait_for_selector(f".dispute-open[data-dispute-id='{match_id}/2']")
    assert tab_to(tab, ".ruling-form input[value=upheld]"), "the ruling form is reachable by Tab"
    assert not unlabelled_controls(tab), unlabelled_controls(tab)
    assert fits_the_width(tab), f"an opened dispute scrolls sideways at {width} px"
    screenshot(tab, f"desk-{width}")
    assert not page_errors(tab), page_errors(tab)


@pytest.mark.parametrize("width", [1400, 390])
def test_the_desk_the_ruling_and_the_entry_page_pass_axe_with_no_small_text_or_overlap(
    tab_at, live_server, running_dispute, width
):
    desk, match_id, _ = running_dispute
    axe = install_axe()
    listed = live_server.client.get(f"/tournaments/{desk.tournament_id}/entrants", headers=desk.organizer).get_json()
    ada = next(e for e in listed["entrants"] if e["name"] == "Ada")
    reissued = live_server.client.post(
        f"/tournaments/{desk.tournament_id}/entrants/{ada['entrant_id']}/invite", headers=desk.organizer
    )
    assert reissued.status_code == 201, reissued.get_json()
    invite = reissued.get_json()["invite"]
    pages = {
        "desk": (f"/organize/{desk.tournament_id}#key={desk.key}", "[data-dispute-id] button.open-dispute"),
        "ruling": (f"/ruling/{match_id}/1", RULING_READY),
        "entry": (f"/entry/{desk.tournament_id}#invite={invite}", "[data-page=entry] [data-match]"),
    }
    for name, (path, ready) in pages.items():
        tab = tab_at(width)
        tab.goto(live_server.url + path)
        tab.wait_for_selector(ready)
        if name == "desk":
            tab.click(f"[data-dispute-id='{match_id}/2'] button.open-dispute")
            tab.wait_for_selector(f".dispute-open[data-dispute-id='{match_id}/2']")
        assert not axe_violations(tab, axe), (name, width, axe_violations(tab, axe))
        assert not small_text(tab), (name, width, small_text(tab))
        assert not overlapping_controls(tab), (name, width, overlapping_controls(tab))
        assert not page_errors(tab), page_errors(tab)


@pytest.mark.parametrize("width", [1400, 390])
def test_a_spectators_ruling_of_a_running_match_shows_no_sealed_secret(tab_at, live_server, running_dispute, width):
    desk, match_id, _ = running_dispute
    sealed = sealed_salts(live_server, match_id, desk.key)
    assert sealed, "the running match still has sealed records"
    tab = tab_at(width)
    received = []
    tab.on("response", lambda r: received.append(r))
    tab.goto(f"{live_server.url}/ruling/{match_id}/1")
    tab.wait_for_selector(RULING_READY)
    assert tab.get_attribute("[data-decision]", "data-decision") == "upheld"
    assert "The totals are right." in tab.inner_text("main")
    assert fits_the_width(tab), f"the ruling scrolls sideways at {width} px"
    content = tab.content()
    bodies = [r.text() for r in received if r.request.resource_type in ("fetch", "xhr") and r.ok]
    assert not [s for s in sealed if s in content or any(s in b for b in bodies)], (
        "a sealed secret reached the spectator"
    )
    assert not page_errors(tab), page_errors(tab)

    # The organizer (key in the fragment) sees the same ruling with the sealed evidence it may see.
    organizer = tab_at(width)
    organizer.goto(f"{live_server.url}/ruling/{match_id}/1#key={desk.key}")
    organizer.wait_for_selector(RULING_READY)
    assert desk.key not in organizer.url
    assert "Shown to the organizer" in organizer.inner_text("#viewer-note")


def test_a_ruling_not_given_yet_and_an_unknown_page_say_so(tab_at, live_server, running_dispute):
    _, match_id, _ = running_dispute
    tab = tab_at()
    tab.goto(f"{live_server.url}/ruling/{match_id}/2")
    tab.wait_for_selector("[data-page=ruling][data-state=pending]")
    assert "Not ruled yet" in tab.inner_text("#decision-body")
    tab.goto(f"{live_server.url}/ruling/{match_id}/9")
    tab.wait_for_selector("[data-page=ruling][data-state=missing]")
    for path in ("/organize/no-such-tournament", "/entry/no-such-tournament", "/ruling/no-such-match/1"):
        response = tab.goto(f"{live_server.url}{path}")
        assert response.status == 404 and "No such match" in tab.content(), path


def test_a_wrong_key_opens_no_desk(tab_at, live_server, running_dispute):
    desk, _, _ = running_dispute
    tab = tab_at()
    tab.goto(f"{live_server.url}/organize/{desk.tournament_id}#key=not-the-key")
    tab.wait_for_selector("[data-page=organizer-desk][data-state=needs-key]")
    assert "not this tournament's organizer key" in tab.inner_text("#error")
    assert tab.evaluate(f"sessionStorage.getItem('gambit-organizer-key:{desk.tournament_id}')") is None
    tab.fill("#key-input", desk.key)
    tab.click("#key-form button[type=submit]")
    tab.wait_for_selector(DESK_READY)


# ----- the public index: a match of its own ----------------------------------------------------------


def test_the_index_creates_a_match_from_the_rulesets_declarations(tab_at, live_server):
    tab = tab_at(390)
    tab.goto(live_server.url)
    tab.click("#create-open")
    tab.select_option("[data-testid=ruleset-select]", "gambitz")
    tab.wait_for_selector("[data-field=players] input")
    players = tab.locator("[data-field=players] input")
    assert (players.get_attribute("min"), players.get_attribute("max"), players.input_value()) == ("2", "8", "2")
    assert "default 2" in tab.inner_text("[data-field=players]")
    players.fill("3")
    tab.select_option("select[name='time_control.kind']", "fischer")
    tab.fill("[data-field='time_control.initial_s'] input", "300")
    tab.fill("[data-field=spectator_delay] input", "2")
    tab.click("[data-testid=create-match-form] button[type=submit]")
    tab.wait_for_selector("[data-created-match]")
    match_id = tab.get_attribute("[data-created-match]", "data-created-match")
    summary = live_server.client.get(f"/matches/{match_id}").get_json()
    assert summary["config"]["players"] == 3 and summary["tournament_id"] is None
    assert summary["config"]["time_control"]["initial_s"] == 300 and summary["config"]["spectator_delay"] == 2
    assert tab.locator("[data-created-match] li[data-seat]").count() == 3
    assert not unlabelled_controls(tab), unlabelled_controls(tab)
    assert fits_the_width(tab)
    # Out of its range, a field is refused by the browser; a config the rules refuse, by the service.
    tab.fill("[data-field=players] input", "99")
    assert tab.evaluate("document.querySelector('[data-field=players] input').validity.rangeOverflow")
    tab.fill("[data-field=players] input", "2")
    tab.select_option("[data-field=first_seat] select", "p3")
    tab.click("[data-testid=create-match-form] button[type=submit]")
    tab.wait_for_selector(".match-form .error:has-text('first_seat')")
    assert not page_errors(tab), page_errors(tab)


def test_an_invite_link_joins_the_paired_seat_under_the_entrants_name(tab_at, live_server):
    desk = new_desk(live_server.client, "Invites")
    cy, di = desk.register("Cy"), desk.register("Di")
    match = desk.match({"p2": cy["entrant_id"]}, ruleset="dragons-gambit")
    tab = tab_at(390)
    tab.goto(f"{live_server.url}/entry/{desk.tournament_id}#invite={cy['invite']}")
    tab.wait_for_selector("[data-page=entry][data-state=ready]")
    assert "Cy" in tab.inner_text("#title") and cy["invite"] not in tab.url
    tab.click(f"button.take-seat[data-match='{match['match_id']}']")
    tab.click("form.invite-join button[type=submit]")
    tab.wait_for_selector("[data-testid=play-panel][data-seat=p2]")
    seats = live_server.client.get(f"/matches/{match['match_id']}").get_json()["seats"]
    assert seats[1]["name"] == "Cy" and seats[1]["entrant_id"] == cy["entrant_id"] and not seats[0]["joined"]
    # Another entrant's page does not list a match it is not paired to; a stale invite is refused.
    other = tab_at(390)
    other.goto(f"{live_server.url}/entry/{desk.tournament_id}#invite={di['invite']}")
    other.wait_for_selector("[data-page=entry][data-state=ready]")
    assert other.locator("button.take-seat").count() == 0
    other = tab_at(390)
    other.goto(f"{live_server.url}/entry/{desk.tournament_id}#invite=stale")
    other.wait_for_selector("[data-page=entry][data-state=needs-invite]")
    assert "not valid" in other.inner_text("#error")
    assert not page_errors(tab), page_errors(tab)


def test_the_desk_says_the_standings_wait_for_a_match_whose_partition_is_down(tab_at, live_server, monkeypatch):
    desk = new_desk(live_server.client, "Split Cup")
    ann, bob = desk.register("Ann"), desk.register("Bob")
    play_entrants(desk, ann, bob)
    down = desk.match()["match_id"]
    served = live_server.matches.match

    def match(match_id: str, version: int | None = None):
        # As a partitioned store answers for a match whose partition does not answer (domain/partitions.py).
        if match_id == down:
            raise PartitionUnavailable("partition 1 does not answer (stopped)", partition=1)
        return served(match_id, version)

    monkeypatch.setattr(live_server.matches, "match", match)
    tab = tab_at()
    open_desk(tab, live_server, desk.tournament_id, desk.key)
    note = tab.locator("[data-testid=standings-unavailable]")
    assert "1 of the matches cannot be read" in note.inner_text()
    assert tab.locator("#standings table").count() == 0, "no standings rather than standings short of a result"
    assert page_errors(tab) == []
