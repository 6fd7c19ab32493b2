"""Playing from the watch page in Chromium: seats join and play whole matches through the page alone.

For each game two browser contexts join as the two seats from the page's join form and play the
match to its end by clicking the moves the page offers (listed commands as buttons, choices as
forms, gambit-board moves also by clicking a piece and then a square), while a third context
watches as a spectator and never holds a secret. The test itself only creates the match over REST;
it reads the store afterwards to know what was secret when.
"""

from __future__ import annotations

import json
import random
import re
import time

import pytest

from domain import rulesets
from domain.records import canonical, commitment
from tests.browser.conftest import pages_in_own_contexts, screenshot
from tests.support.api import auth, create_match

pytestmark = pytest.mark.browser

# Configs that keep a match short: one round to one point, two TCG turns, gattai's single pilot.
# Every registered game is played from the page; these games are given a short config (the others
# play with their defaults).
GAMES = {
    "dragons-gambit": {"target_score": 1},
    "gambit-tcg": {"turn_limit": 2},
}
MAX_STEPS = 250
SETTLE_SECONDS = 30
GIVING_UP = {"resign", "concede"}
PANEL = "[data-testid=play-panel]"
# Hidden card ids that name one card each (TCG ids name a card kind, of which a deck holds copies).
CARD_PATTERNS = {
    "gambitz": re.compile(r"^(?:king|queen|bishop|knight|castle|\d+)-(?:red|blue|green|yellow)$"),
    "dragons-gambit": re.compile(r"^c\d\d$"),
    "gattai-conflict": re.compile(r"^[PC]\.\w+$"),
}


# ----- page helpers ---------------------------------------------------------------------------------


@pytest.fixture
def tabs(browser):
    """Three pages in separate browser contexts (two seats and a spectator), each with its own storage."""
    with pages_in_own_contexts(browser, 3, 15000) as pages:
        yield pages


def panel(tab) -> dict:
    """The play panel's state attributes."""
    return tab.eval_on_selector(
        PANEL,
        "p => ({state: p.dataset.state, version: p.dataset.version, seat: p.dataset.seat,"
        " posted: Number(p.dataset.posted || 0), last: p.dataset.last})",
    )


def problem_text(tab) -> str:
    """What the panel says about the last refused request."""
    box = tab.locator("[data-testid=play-problem]")
    return box.text_content() if box.is_visible() else ""


def join_from_page(tab, server, match_id: str, name: str, seat: str | None = None) -> str:
    """Open the watch page, join through its form (a named seat or any free one); returns the seat."""
    tab.goto(f"{server.url}/watch/{match_id}")
    form = tab.locator("[data-testid=join-form]")
    form.locator("input[name=name]").fill(name)
    if seat:
        form.locator("select[name=seat]").select_option(seat)
    form.locator("button[type=submit]").click()
    tab.wait_for_selector(f"{PANEL}[data-seat]:not([data-seat=''])")
    joined = panel(tab)["seat"]
    assert seat is None or joined == seat
    assert tab.locator("[data-testid=join-form]").count() == 0, "a seated page offers no join"
    return joined


def settle(seats: list, timeout: float = SETTLE_SECONDS) -> list[dict]:
    """Wait until every seat page offers the moves of one and the same version, or all show the end."""
    deadline = time.monotonic() + timeout
    while True:
        states = [panel(tab) for tab in seats]
        if all(s["state"] == "finished" for s in states):
            return states
        same_version = len({s["version"] for s in states}) == 1
        answered = all(s["state"] in ("ready", "waiting") for s in states)
        if same_version and answered and any(s["state"] == "ready" for s in states):
            return states
        if time.monotonic() > deadline:
            raise AssertionError(f"the seat pages did not settle on one version within {timeout}s: {states}")
        time.sleep(0.05)


def wait_until(condition, what: str, timeout: float = 10) -> None:
    """Poll `condition` until it holds; fail naming `what` when it does not within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not so within {timeout}s: {what}")
        time.sleep(0.05)


def offered_types(tab) -> list[str]:
    """The command types the page offers now."""
    return tab.eval_on_selector_all(f"{PANEL} .play-type", "groups => groups.map(g => g.dataset.type)")


def wait_posted(tab, before: int) -> dict:
    """Wait until the page has an answer to the move it posted; returns the panel state."""
    tab.wait_for_function(
        "n => Number(document.querySelector('[data-testid=play-panel]').dataset.posted || 0) > n", arg=before
    )
    return panel(tab)


def assign_by_clicks(tab, form, rng: random.Random) -> None:
    """Give out powers in the assignment form: click a piece on the board, then a power; again until one is on offer."""
    pieces = form.locator("[data-assign-key]").evaluate_all("bs => bs.map(b => b.dataset.assignKey)")
    for _attempt in range(20):
        form.locator("[data-action=clear-assignment]").click()
        for row in form.locator(".play-assign-values").all():
            powers = row.locator("[data-power]").evaluate_all("bs => bs.map(b => b.dataset.power)")
            size = int(row.get_attribute("data-size"))
            for piece, power in zip(rng.sample(pieces, size), rng.sample(powers, size), strict=True):
                tab.locator(f"#board [data-piece='{piece}']").first.click()
                assert form.get_attribute("data-selected") == piece, "a click on the board selects the piece"
                row.locator(f"[data-power='{power}']").click()
        if form.locator("button[type=submit]").is_enabled():
            form.locator("button[type=submit]").click()
            return
    raise AssertionError(f"no assignment on offer was found: {form.locator('.play-why').text_content()}")


def fill_choice(form, rng: random.Random) -> None:
    """Pick a random valid value in every picker of a choice form, through its controls."""
    if form.get_attribute("data-picker") == "assign":
        assign_by_clicks(form.page, form, rng)
        return
    variant = form.locator("select[data-role=variant]")
    if variant.count():
        values = variant.locator("option").evaluate_all("options => options.map(o => o.value)")
        variant.select_option(rng.choice(values))
    for field in form.locator("fieldset.play-field").all():
        kind = field.get_attribute("data-domain")
        if kind == "one_of":
            select = field.locator("select")
            select.select_option(rng.choice(select.locator("option").evaluate_all("os => os.map(o => o.value)")))
        elif kind in ("subset_of", "union_of"):
            for group in field.locator(".play-group-boxes").all():
                boxes = group.locator("input[type=checkbox]").all()
                low, high = int(group.get_attribute("data-min")), int(group.get_attribute("data-max"))
                chosen = set(rng.sample(range(len(boxes)), rng.randint(low, min(high, len(boxes)))))
                for index, box in enumerate(boxes):
                    box.set_checked(index in chosen)
        elif kind == "sequence_of":
            row = field.locator(".play-seq-row")
            low, high = int(row.get_attribute("data-min")), int(row.get_attribute("data-max"))
            field.locator("[data-action=clear-sequence]").click()
            buttons = field.locator("button.play-seq").all()
            for index in rng.sample(range(len(buttons)), rng.randint(low, min(high, len(buttons)))):
                buttons[index].click()
        elif kind == "text":
            text_input = field.locator("input")
            low = int(re.search(r"(\d+) to", field.locator("legend").text_content()).group(1))
            text_input.fill("gg " + "é" * max(0, low - 3))
        elif kind == "pairs":
            for part in field.locator(".play-pairs-part").all():
                selects = part.locator("select").all()
                size = selects[0].locator("option").count()
                for select, index in zip(selects, rng.sample(range(size), len(selects))):
                    select.select_option(str(index))
        else:
            raise AssertionError(f"a picker of an unknown kind: {kind}")
    submit = form.locator("button[type=submit]")
    assert submit.is_enabled(), f"the formed body is refused by the form: {form.locator('.play-why').text_content()}"
    submit.click()


def click_command(tab, button) -> None:
    """Click an offered command's button (opening its folded group first)."""
    giving_up = button.get_attribute("data-type") in GIVING_UP
    details = button.locator("xpath=ancestor::details[1]")
    if details.count() and not details.evaluate("d => d.open"):
        details.locator("summary").click()
    button.click()
    if giving_up:
        button.click()  # giving up asks for a second click


def move_by_board(tab, rng: random.Random) -> None:
    """Play a gambit-board move on the board: click a piece that may move, then one of its squares, then a claim."""
    before = panel(tab)["posted"]
    movable = "#board .gb-square [data-piece].play-can"
    # The board marks the movable pieces once it has drawn the panel's moves, a moment after the panel is ready.
    tab.wait_for_selector(movable)
    pieces = tab.locator(movable)
    piece = pieces.nth(rng.randrange(pieces.count()))
    name = piece.get_attribute("data-piece")
    piece.click()
    assert tab.locator(f"#board [data-piece='{name}'].play-pick").count() == 1, "the piece shows as picked"
    squares = tab.locator("#board [data-square].play-target")
    assert squares.count() >= 1, "the picked piece's squares are targets"
    square = squares.nth(rng.randrange(squares.count()))
    to = square.get_attribute("data-square")
    square.click()
    state = panel(tab)
    if state["state"] == "posting" or state["posted"] > before:
        return
    # Several moves (claims) fit the piece and the square: each is offered once, beside the picks.
    offered = tab.locator("[data-testid=picked-moves] [data-testid=legal-command]")
    bodies = [json.loads(b) for b in offered.evaluate_all("bs => bs.map(b => b.dataset.body)")]
    assert bodies and all(b.get("piece") == name and b.get("to") == to for b in bodies), bodies
    keys = [json.dumps({**b, "claims": sorted(b.get("claims", []))}, sort_keys=True) for b in bodies]
    assert len(set(keys)) == len(keys), f"a move is offered twice: {bodies}"
    offered.nth(rng.randrange(len(bodies))).click()


def offered_choices(seats: list) -> list[tuple]:
    """Each ready seat page with the types it offers (giving up only when nothing else is offered)."""
    ready = [tab for tab in seats if panel(tab)["state"] == "ready"]
    choices = [(tab, [t for t in offered_types(tab) if t not in GIVING_UP]) for tab in ready]
    return [(tab, types) for tab, types in choices if types] or [
        (tab, types) for tab in ready if (types := offered_types(tab))]


def play_one_step(seats: list, rng: random.Random, ruleset: str, counts: dict) -> None:
    """Choose a ready seat page, a type and one of its moves at random, and play it through the page."""
    choices = offered_choices(seats)
    if not choices:
        # A record that came in after the pages settled (a deal, an expiry) has a page re-reading: settle again.
        settle(seats)
        choices = offered_choices(seats)
    tab, types = rng.choice(choices)
    kind = rng.choice(types)
    group = tab.locator(f"{PANEL} .play-type[data-type='{kind}']")
    controls = group.locator("[data-testid=legal-command], [data-testid=legal-choice], [data-board-moves]")
    control = controls.nth(rng.randrange(controls.count()))
    if counts["choices"] == 0:
        # Form a choice the first time one is offered: the deal decides how long a match lasts, and
        # a short one must still exercise the choice form.
        offered = [
            (candidate, group_choices)
            for candidate, candidate_types in choices
            for candidate_kind in candidate_types
            if (group_choices := candidate.locator(
                f"{PANEL} .play-type[data-type='{candidate_kind}'] [data-testid=legal-choice]")).count()
        ]
        if offered:
            tab, group_choices = rng.choice(offered)
            control = group_choices.nth(rng.randrange(group_choices.count()))
    before = panel(tab)["posted"]
    if control.get_attribute("data-testid") == "legal-choice":
        fill_choice(control, rng)
        counts["choices"] += 1
    elif control.get_attribute("data-board-moves"):
        move_by_board(tab, rng)
        counts["board"] += 1
    else:
        click_command(tab, control)
        counts["commands"] += 1
    state = wait_posted(tab, before)
    assert state["last"] == "ok", f"the page's move was refused: {problem_text(tab)}"


# ----- secrets -------------------------------------------------------------------------------------


def _strings(value) -> set[str]:
    """Every string inside a JSON value."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(set(), *(_strings(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(set(), *(_strings(v) for v in value))
    return set()


def secrets_at(records, latest: int, ruleset: str, seed: str, seat: str | None = None) -> dict[str, re.Pattern]:
    """What a viewer (a seat, or a spectator for None) may not hold once records 1..latest exist in a running match."""
    shown = [r for r in records if r.originator_version <= latest]
    opened = {v for r in shown for v in r.public.get("opens", [])}

    def visible(record) -> bool:
        return record.originator_version in opened or (seat is not None and seat in (record.audience or []))

    hidden = [r for r in shown if r.secret is not None and not visible(r)]
    forbidden = {f"salt of v{r.originator_version}": re.compile(re.escape(r.salt)) for r in hidden}
    forbidden["server seed"] = re.compile(re.escape(seed))
    pattern = CARD_PATTERNS.get(ruleset)
    if pattern is not None:
        known = set().union(
            *(_strings(r.public) for r in shown), *(_strings(r.secret) for r in shown if r.secret and visible(r))
        )
        cards = {s for r in hidden for s in _strings(r.secret) if pattern.match(s)} - known
        for card in cards:
            forbidden[f"hidden card {card}"] = re.compile(rf"(?<![\w.-]){re.escape(card)}(?![\w.-])")
    if ruleset == "gambit-board" and seat is None:
        forbidden["a piece's held powers"] = re.compile(r'"powers":\s*\{')
    return forbidden


def assert_kept_no_secret(server, match_id: str, ruleset: str, snapshots: list, seat: str | None, tokens: list) -> None:
    """No snapshot of a page (a seat's, or the spectator's for None) taken while the match ran holds what was
    secret from it then, nor a token that is not its own."""
    records = server.matches.records(match_id)
    seed = server.matches.match(match_id).server_seed
    finish = next(r.originator_version for r in records if r.kind == "MatchFinished")
    whose = f"{seat}'s page" if seat else "the spectator's page"
    checked = 0
    for latest, html in snapshots:
        if latest >= finish:
            continue
        checked += 1
        for name, pattern in secrets_at(records, latest, ruleset, seed, seat).items():
            assert not pattern.search(html), f"{name} reached {whose} at version {latest}"
        for token in tokens:
            assert token not in html, f"another seat's token reached {whose}"
    assert checked >= 3, f"too few snapshots of the running match were checked ({checked})"


# ----- the whole matches ---------------------------------------------------------------------------


def save_screenshots(tab, ruleset: str) -> None:
    """The seat's play page at 1400 px and at 390 px wide; the play panel fits the narrow screen."""
    screenshot(tab, f"play-{ruleset}-1400")
    tab.set_viewport_size({"width": 390, "height": 844})
    width = tab.eval_on_selector(PANEL, "p => p.getBoundingClientRect().right")
    screenshot(tab, f"play-{ruleset}-390")
    tab.set_viewport_size({"width": 1400, "height": 1000})
    assert width <= 390, f"the play panel is {width}px wide on a 390px screen"


@pytest.mark.parametrize("ruleset", rulesets.available())
def test_two_seats_play_a_whole_match_from_the_page_while_a_spectator_sees_no_secret(tabs, live_server, ruleset):
    first, second, spectator = tabs
    match = create_match(live_server.client, ruleset, GAMES.get(ruleset, {}))
    match_id = match["match_id"]
    seat_names = [s["seat"] for s in match["seats"]]
    assert join_from_page(first, live_server, match_id, "ada", seat=seat_names[1]) == seat_names[1]
    assert join_from_page(second, live_server, match_id, "bo") == seat_names[0], "any free seat: the one left"
    spectator.goto(f"{live_server.url}/watch/{match_id}")
    spectator.wait_for_selector(f"{PANEL}[data-state=spectator]")
    assert spectator.locator("[data-testid=legal-command], [data-testid=legal-choice]").count() == 0
    seats = [first, second]
    tokens = [tab.locator(".play-keep input").input_value().split("#token=")[1] for tab in seats]

    rng = random.Random(f"play-{ruleset}")
    counts = {"commands": 0, "choices": 0, "board": 0}
    snapshots: list[tuple[int, str]] = []
    first_snapshots: list[tuple[int, str]] = []
    calls_seen_live: set[str] = set()
    for step in range(MAX_STEPS):
        states = settle(seats)
        if all(s["state"] == "finished" for s in states):
            break
        snapshots.append((int(spectator.get_attribute("#watch", "data-latest") or 0), spectator.content()))
        seen_by_first = max(int(first.get_attribute("#watch", "data-latest") or 0), int(states[0]["version"]))
        first_snapshots.append((seen_by_first, first.content()))
        calls_seen_live |= set(
            first.eval_on_selector_all("[data-testid=play-calls] li", "lines => lines.map(l => l.dataset.callVersion)")
        )
        if step == 4:
            save_screenshots(next(tab for tab in seats if panel(tab)["state"] == "ready"), ruleset)
        play_one_step(seats, rng, ruleset, counts)
    else:
        raise AssertionError(f"{ruleset}: the match did not finish within {MAX_STEPS} moves from the page")

    summary = live_server.client.get(f"/matches/{match_id}").get_json()
    assert summary["status"] == "finished"
    assert sum(counts.values()) >= 3, counts
    if ruleset == "gambit-board":
        assert counts["board"] >= 1, "some moves were played by clicking a piece and then a square"
    if ruleset in ("gambit-board", "gambit-tcg", "gattai-conflict"):
        assert counts["choices"] >= 1, f"some moves were formed in a choice form: {counts}"
    for tab in seats:
        assert "finished" in tab.locator("[data-testid=play-status]").text_content()
    spectator.wait_for_selector("#status.status-finished")
    assert_kept_no_secret(live_server, match_id, ruleset, snapshots, None, tokens)
    assert_kept_no_secret(live_server, match_id, ruleset, first_snapshots, seat_names[1], tokens[1:])

    # Every call is listed on the seats' pages, its evidence re-checked in the browser once open to all.
    calls = live_server.client.get(f"/matches/{match_id}/audit/bluffs").get_json()["calls"]
    ruled = [c for c in calls if c.get("ruling_version") is not None and c.get("evidence_versions")]
    for tab in seats:
        for entry in ruled:
            line = tab.locator(f"[data-testid=play-calls] li[data-call-version='{entry['ruling_version']}']")
            wait_until(
                lambda line=line: line.count() == 1 and line.get_attribute("data-check") == "ok",
                f"the evidence of the call ruled at v{entry['ruling_version']} checks out on the page",
            )
            assert "evidence checks out" in line.text_content()
        assert tab.locator("[data-testid=play-calls] li[data-check=bad]").count() == 0
    if ruled and ruleset != "dragons-gambit":
        # A dragons-gambit call is ruled by the round's end, which also ends this one-point match.
        assert calls_seen_live, "calls were listed while the match ran"
    for tab in tabs:
        assert not tab.errors, tab.errors


# ----- the pieces in detail -----------------------------------------------------------------------


def open_seat(tab, server, match_id: str, token: str) -> None:
    """Open a seat's page with its token in the fragment and wait for its moves."""
    tab.goto(f"{server.url}/watch/{match_id}#token={token}")
    tab.wait_for_selector(f"{PANEL}[data-state=ready]")


def joined_gambit_board(server) -> tuple[str, dict]:
    """A gambit-board match whose two seats joined over REST (both now assign their powers)."""
    match = create_match(server.client, "gambit-board", {})
    tokens = {}
    for seat in ("south", "north"):
        response = server.client.post(f"/matches/{match['match_id']}/seats", json={"name": seat, "seat": seat})
        tokens[seat] = response.get_json()["token"]
    return match["match_id"], tokens


def assign_on_page(tab) -> None:
    """Give out south's powers on its page (S1 diagonal and moat, S2 ghost and sitting) and send them."""
    form = tab.locator("[data-testid=legal-choice][data-picker=assign]")
    form.locator("[data-action=clear-assignment]").click()
    for piece, power in (("S1", "diagonal"), ("S2", "ghost"), ("S1", "moat"), ("S2", "sitting")):
        form.locator(f"[data-assign-key='{piece}']").click()
        form.locator(f"[data-power='{power}']").click()
    assert json.loads(form.get_attribute("data-body")) == {
        "type": "assign", "powers": {"S1": ["diagonal", "moat"], "S2": ["ghost", "sitting"]}}
    form.locator("button[type=submit]").click()


def test_a_move_whose_answer_was_lost_is_sent_again_with_the_same_key_and_recorded_once(tabs, live_server):
    match_id, tokens = joined_gambit_board(live_server)
    tab = tabs[0]
    sent: list[dict] = []

    def lose_first_answer(route) -> None:
        sent.append(
            {
                "key": route.request.headers.get("idempotency-key"),
                "if_match": route.request.headers.get("if-match"),
                "body": route.request.post_data,
            }
        )
        response = route.fetch()
        if len(sent) == 1:
            assert response.status == 201  # written, but the page never hears so
            route.abort("connectionreset")
        else:
            route.fulfill(response=response)

    tab.route(re.compile(r".*/matches/[^/]+/commands$"), lose_first_answer)
    open_seat(tab, live_server, match_id, tokens["south"])
    version = live_server.client.get(f"/matches/{match_id}").get_json()["version"]
    before = panel(tab)["posted"]
    assign_on_page(tab)
    assert wait_posted(tab, before)["last"] == "ok"
    assert len(sent) == 2
    assert sent[0] == sent[1], "the retry is the same request: same key, same If-Match, same body"
    assert sent[0]["if_match"] == f'"{version}"'
    assigned = [r for r in live_server.matches.records(match_id) if r.kind == "PowersAssigned"]
    assert len(assigned) == 1, "the command was recorded once"

    # The next intended command gets a key of its own.
    tab.wait_for_selector(f"{PANEL}[data-state=waiting], {PANEL}[data-state=ready]")
    live_server.client.post(
        f"/matches/{match_id}/commands",
        headers=auth(tokens["north"]),
        json={"type": "assign", "powers": {"N1": ["diagonal", "moat"], "N2": ["ghost", "sitting"]}},
    )
    tab.wait_for_selector(f"{PANEL}[data-state=ready] [data-board-moves]")
    before = panel(tab)["posted"]
    move_by_board(tab, random.Random(1))
    assert wait_posted(tab, before)["last"] == "ok"
    assert sent[2]["key"] != sent[0]["key"]


def test_evidence_is_recommitted_in_the_browser_and_a_forged_item_shows_a_mismatch(tabs, live_server):
    tab = tabs[0]
    match = create_match(live_server.client, "gambitz", {})
    tab.goto(f"{live_server.url}/watch/{match['match_id']}")
    tab.wait_for_selector("#watch[data-state=ready]")
    secret = {"server_seed": "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"}
    salt = "00112233445566778899aabbccddeeff"
    tricky = {"\uffff": 1, "😀": [True, None, -5], "b": {"z": "é\u001f\n", "": "/"}, "B": 9007199254740991}
    result = tab.evaluate(
        """async ([secret, salt, tricky, trickyCommitment]) => {
            const m = await import('/watch-assets/play-evidence.js');
            const vector = 'f58e1403f9f9ea11cf0f8f08aff8d0a48e9ebf58fac8ee0fbdd2b74ac7a7bd72';
            const stored = {1: vector, 2: trickyCommitment};
            const honest = await m.checkEvidence([{version: 1, secret, salt}, {version: 2, secret: tricky, salt}], v => stored[v]);
            const forged = await m.checkEvidence(
                [{version: 1, secret: {server_seed: '00' + secret.server_seed.slice(2, 62) + 'ff'}, salt}], v => stored[v]);
            const list = document.createElement('ol');
            document.body.append(list);
            const log = new m.CallLog(list, v => stored[v]);
            const entry = {ruling_version: 7, call_version: 7, claimant: 'south', caller: 'north', power: 'diagonal',
                           piece: 'S2', verdict: 'true', evidence_versions: [1], commitments: {'1': vector}};
            await log.show({...entry, opened: [{version: 1, secret, salt}]});
            await log.show({...entry, ruling_version: 8, call_version: 8, opened: [{version: 1, secret: {server_seed: 'forged'}, salt}]});
            return {honest, forged, canonical: m.canonical(tricky), good: list.children[1].textContent,
                    bad: list.children[0].textContent, badCheck: list.children[0].dataset.check};
        }""",
        [secret, salt, tricky, commitment(tricky, salt)],
    )
    assert result["canonical"] == canonical(tricky).decode("utf-8"), "keys in code point order, as the server"
    assert result["honest"]["ok"] is True
    assert result["forged"]["ok"] is False
    assert "north called south's diagonal claim on S2 a bluff: the claim was true" in result["good"]
    assert "evidence checks out" in result["good"]
    assert "MISMATCH" in result["bad"] and result["badCheck"] == "bad"
    assert not tab.errors, tab.errors


def test_a_finished_match_offers_no_join_and_no_moves(tabs, live_server):
    match_id, tokens = joined_gambit_board(live_server)
    live_server.client.post(f"/matches/{match_id}/commands", json={"type": "resign"}, headers=auth(tokens["south"]))
    tab = tabs[0]
    open_url = f"{live_server.url}/watch/{match_id}#token={tokens['north']}"
    tab.goto(open_url)
    tab.wait_for_selector(f"{PANEL}[data-state=finished]")
    assert "Won by north" in tab.locator("[data-testid=play-status]").text_content()
    assert tab.locator("[data-testid=join-form], [data-testid=legal-command], [data-testid=legal-choice]").count() == 0
