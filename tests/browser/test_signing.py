"""Seats sign their moves from the page (service/static/seat-keys.js), in Chromium.

Two seats join from the watch page, which makes each a WebCrypto key pair (Ed25519 where Chromium has it, else
P-256), registers its public half and signs every move; the finished match's export then verifies with every
command's signature checked and re-decided, no seat unsigned, and each seat's `gambit seat-commands` listing
all signed. A page without WebCrypto (as over plain HTTP) joins without
a key, says its moves are unsigned, and still plays.
"""

from __future__ import annotations

import io
import json
import random

import pytest

from service.seat_commands_cli import EXIT_PROVEN, run_seat_commands
from service.verify_cli import EXIT_VERIFIED, run_verify
from tests.browser import test_play
from tests.browser.test_play import PANEL, join_from_page, panel, play_one_step, settle
from tests.support.api import create_match

tabs = test_play.tabs  # the two seat pages and the spectator's, as test_play opens them

pytestmark = pytest.mark.browser

MAX_STEPS = 250
# What a page served over plain HTTP has: no crypto.subtle (WebCrypto needs a secure context).
NO_WEBCRYPTO = "Object.defineProperty(Crypto.prototype, 'subtle', { get: () => undefined });"
# A browser whose WebCrypto lacks Ed25519: the page falls back to ECDSA P-256.
NO_ED25519 = """
const generate = SubtleCrypto.prototype.generateKey;
SubtleCrypto.prototype.generateKey = function (algorithm, ...rest) {
  if ((algorithm.name || algorithm) === "Ed25519") return Promise.reject(new DOMException("no Ed25519", "NotSupportedError"));
  return generate.call(this, algorithm, ...rest);
};
"""


def _joins(server, match_id: str) -> dict[str, dict]:
    events = server.client.get(f"/matches/{match_id}/events?after=0&limit=500").get_json()["events"]
    return {e["public"]["seat"]: e["public"] for e in events if e["kind"] == "SeatJoined"}


@pytest.mark.parametrize("browser_keys", ["as built", "without Ed25519"])
def test_both_seats_sign_every_move_from_the_page_and_the_export_verifies_them(tabs, live_server, tmp_path,
                                                                              browser_keys):
    first, second, _ = tabs
    if browser_keys == "without Ed25519":
        for tab in (first, second):
            tab.add_init_script(NO_ED25519)
    match = create_match(live_server.client, "gambitz", {})
    match_id = match["match_id"]
    join_from_page(first, live_server, match_id, "ada")
    join_from_page(second, live_server, match_id, "bo")
    joins = _joins(live_server, match_id)
    algs = {j.get("public_key", {}).get("alg") for j in joins.values()}
    assert algs <= {"ed25519", "p256"} and len(algs) == 1, joins
    if browser_keys == "without Ed25519":
        assert algs == {"p256"}
    first.reload()  # the key is kept in IndexedDB: a reload keeps signing
    first.wait_for_selector(f"{PANEL}[data-seat]:not([data-seat=''])")
    for tab in (first, second):
        note = tab.locator("[data-testid=signing-note][data-signing=signed]")
        note.wait_for()
        assert "signed" in note.text_content()

    rng = random.Random("signed-from-the-page")
    counts = {"commands": 0, "choices": 0, "board": 0}
    for _ in range(MAX_STEPS):
        if all(s["state"] == "finished" for s in settle([first, second])):
            break
        play_one_step([first, second], rng, "gambitz", counts)
    else:
        raise AssertionError("the match did not finish from the page")

    export = tmp_path / "export.ndjson"
    export.write_text(live_server.client.get(f"/matches/{match_id}/export").get_data(as_text=True))
    key = live_server.client.get("/.well-known/gambit-signing-key").get_json()["public_key"]
    out = io.StringIO()
    code = run_verify(str(export), key, as_json=True, out=out, err=io.StringIO())
    report = json.loads(out.getvalue())["reports"][0]
    checks = {c["check"]: c for c in report["checks"]}
    assert code == EXIT_VERIFIED, [c for c in report["checks"] if c["status"] == "fail"]
    assert checks["seat signatures"]["status"] == "pass" and report["unsigned_seats"] == []
    signed = int(checks["seat signatures"]["detail"].split()[0])
    assert signed == sum(counts.values()) >= 3
    assert checks["commands"]["status"] == "pass" and checks["outcome"]["status"] == "pass", checks
    # Each player's own listing: every command in its seat's name signed by the page's key.
    for seat in json.loads(export.read_text().splitlines()[0])["seats"]:
        out = io.StringIO()
        assert run_seat_commands(str(export), seat, as_json=True, out=out, err=io.StringIO()) == EXIT_PROVEN
        listing = json.loads(out.getvalue())
        assert listing["commands"] and {c["signature"] for c in listing["commands"]} == {"signed"}, listing
    for tab in (first, second):
        assert not tab.errors, tab.errors


def test_a_page_without_webcrypto_joins_without_a_key_says_so_and_plays_unsigned(tabs, live_server):
    first, second, _ = tabs
    for tab in (first, second):
        tab.add_init_script(NO_WEBCRYPTO)
    match = create_match(live_server.client, "gambitz", {})
    match_id = match["match_id"]
    join_from_page(first, live_server, match_id, "ada")
    join_from_page(second, live_server, match_id, "bo")
    assert all("public_key" not in j for j in _joins(live_server, match_id).values())
    note = first.locator("[data-testid=signing-note][data-signing=unsigned]")
    note.wait_for()
    assert "unsigned" in note.text_content() and "HTTPS" in note.text_content()
    before = int(settle([first, second])[0]["version"])
    play_one_step([first, second], random.Random(1), "gambitz", {"commands": 0, "choices": 0, "board": 0})
    settle([first, second])
    assert live_server.client.get(f"/matches/{match_id}").get_json()["version"] > before
    assert all(panel(tab)["last"] in (None, "ok") for tab in (first, second))
