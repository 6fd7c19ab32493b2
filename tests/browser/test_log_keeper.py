"""The seat's page keeps the log (service/static/tlog-keeper.js), in Chromium, against a service with two witnesses.

The page reads the served checkpoint, checks the service key's signature and both witnesses' cosignatures, keeps it
in localStorage, and checks each newer one against it with the consistency endpoint. A seat plays a move from the
page; its saved receipts — its join's (read back for a seat that joined elsewhere, kept from the answer for one that
joined on the page) and its moves' — carry their inclusion proofs and pass `gambit verify --receipt … --witness-key
…`, and so does the kept checkpoint with `--checkpoint`. A server that then serves a checkpoint that does not extend
the kept one — another tree of the same size, or a larger tree with a proof that fails — signed by the service's own
key (what an attacker holding it serves), raises the alarm on the page, and the page keeps what it had. After a
rotation of the service's key, the page fetches the proofs of its receipts by the retired key again, against the new
key's checkpoint.
"""

from __future__ import annotations

import base64
import io
import json
import time

import pytest

from domain.tlog import EMPTY_ROOT
from domain.tlog_note import Checkpoint, Note, parse_checkpoint, parse_note
from service.app import create_app
from service.keeper import build_sequencer, build_witnessing
from service.settings import Settings
from service.verify_cli import EXIT_VERIFIED, run_verify
from service.witness import Witness
from service.witnessing import parse_witnesses
from tests.browser.conftest import LiveServer, screenshot
from tests.browser.test_play import GIVING_UP, PANEL, click_command, join_from_page, open_seat, panel, wait_posted
from tests.support.api import create_match, join_all
from tests.tlog.served_witness import ServedWitness, witness_key_files

pytestmark = pytest.mark.browser

KEEPER = "[data-testid=log-keeper]"


class WitnessedLiveServer(LiveServer):
    """The live server configured with two served witnesses and a quorum of two."""

    def __init__(self, tmp) -> None:
        url = f"sqlite:///{tmp}/s.sqlite3"
        first = create_app(Settings(database_url=url, data_dir=str(tmp)))
        log_vkey = first.test_client().get("/log/").get_json()["logs"][0]["vkey"]
        first.extensions["gambit"].close()
        self.witnesses = [Witness(str(tmp / f"w{i}"), f"witness-{i}", [log_vkey]) for i in (1, 2)]
        self.served = [ServedWitness(w) for w in self.witnesses]
        entries = " ".join(f"{s.witness.name}={s.url}={s.witness.vkey}" for s in self.served)
        self.witnessed = Settings(
            database_url=url, data_dir=str(tmp), witnesses=parse_witnesses(entries), witness_quorum=2
        )
        super().__init__(tmp)

    def settings(self) -> Settings:
        """The live server's settings with the two witnesses."""
        return self.witnessed

    def sequence(self) -> None:
        """One round of the sequencer's duty: integrate the writes, collect both cosignatures."""
        gambit = self.app.extensions["gambit"]
        build_sequencer(gambit).integrate()
        witnessing = build_witnessing(gambit)
        try:
            assert witnessing.collect(), "both witnesses cosign"
        finally:
            witnessing.close()

    def close(self) -> None:
        """Stop the service and its witnesses."""
        super().close()
        for one in self.served:
            one.close()


@pytest.fixture
def server(tmp_path):
    """A witnessed live server of its own (the page's localStorage is per server origin)."""
    live = WitnessedLiveServer(tmp_path)
    yield live
    live.close()


def keeper(tab) -> dict:
    """The keeper panel's state attributes."""
    return tab.eval_on_selector(KEEPER, "k => ({...k.dataset})")


def check_now(tab) -> dict:
    """Ask the page to look at the log now and wait for that look to end; the panel's state."""
    before = int(keeper(tab).get("rounds") or 0)
    tab.locator("[data-testid=check-log]").click()
    tab.wait_for_function(
        "n => Number(document.querySelector('[data-testid=log-keeper]').dataset.rounds || 0) > n", arg=before
    )
    return keeper(tab)


def forged(server, size: int, root: bytes) -> str:
    """A checkpoint of the log's name signed by the service's own key, of any tree the attacker likes."""
    gambit = server.app.extensions["gambit"]
    body = Checkpoint(gambit.log.origin, size, root).body()
    return Note(body, (gambit.signer.note_signature(body, gambit.log.origin),)).render()


def play_a_move(tab) -> None:
    """Click the first offered command that does not give up, and wait for its answer."""
    tab.wait_for_selector(f"{PANEL}[data-state=ready]")
    before = panel(tab)["posted"]
    buttons = tab.locator(f"{PANEL} [data-testid=legal-command]")
    for index in range(buttons.count()):
        if buttons.nth(index).get_attribute("data-type") not in GIVING_UP:
            click_command(tab, buttons.nth(index))
            break
    assert wait_posted(tab, before)["last"] == "ok"


def logged_to_the_end(server, match_id: str) -> None:
    """Run the sequencer's rounds until the served, cosigned checkpoint holds the match's newest write, as the
    running service's once-a-second rounds would: an export made before then is PENDING, not VERIFIED."""
    deadline = time.monotonic() + 30
    while True:
        version = server.client.get(f"/matches/{match_id}").get_json()["version"]
        if server.client.get(f"/matches/{match_id}/logged").get_json().get("version") == version:
            return
        assert time.monotonic() < deadline, f"the log did not take in version {version} of {match_id}"
        server.sequence()
        time.sleep(0.1)


def verify(server, tmp_path, match_id: str, receipts: str, checkpoint: str, since: int) -> tuple[int, dict]:
    """`gambit verify` of the match's export with the page's receipts, kept checkpoint and both witnesses' keys."""
    export = tmp_path / "export.ndjson"
    export.write_text(server.client.get(f"/matches/{match_id}/export?log_since={since}").get_data(as_text=True))
    keys = witness_key_files(tmp_path, server.witnesses)
    key = server.client.get("/.well-known/gambit-signing-key").get_json()["public_key"]
    out = io.StringIO()
    code = run_verify(
        str(export),
        [key],
        True,
        out=out,
        err=io.StringIO(),
        receipts=[receipts],
        checkpoint=checkpoint,
        witness_keys=keys,
        quorum=2,
    )
    return code, {c["check"]: c for c in json.loads(out.getvalue())["reports"][0]["checks"]}


def seat_page_keeping(server, tab) -> dict:
    """A gambitz match in the cosigned log and its first seat's page, once the page keeps a checkpoint; the match."""
    match = create_match(server.client, "gambitz", {"players": 2})
    tokens = join_all(server.client, match)
    server.sequence()
    open_seat(tab, server, match["match_id"], tokens["p1"])
    tab.wait_for_selector(f"{KEEPER}[data-state=kept]")
    return match


def save_receipts(tab, tmp_path) -> tuple[str, list[dict]]:
    """Save the seat's receipts from the page: the file and what it holds."""
    with tab.expect_download() as saved:
        tab.locator("[data-testid=save-receipts]").click()
    receipts = tmp_path / "receipts.json"
    saved.value.save_as(receipts)
    return str(receipts), json.loads(receipts.read_text())


def save_checkpoint(tab, tmp_path) -> str:
    """Save the page's kept checkpoint: the file."""
    with tab.expect_download() as saved:
        tab.locator("[data-testid=save-checkpoint]").click()
    checkpoint = tmp_path / "kept-checkpoint.txt"
    saved.value.save_as(checkpoint)
    return str(checkpoint)


def served_receipt(server, match_id: str, version: int) -> dict:
    """The receipt the service stored for the write ending at `version`."""
    return server.client.get(f"/matches/{match_id}/receipts/{version}").get_json()


def without_proof(receipt: dict) -> dict:
    """A kept receipt as the service signed it (the page adds its `log_proof`)."""
    return {k: v for k, v in receipt.items() if k != "log_proof"}


def test_the_seats_page_keeps_the_cosigned_checkpoint_and_saves_receipts_with_their_proofs(server, page, tmp_path):
    match = seat_page_keeping(server, page)
    first = keeper(page)
    served = parse_checkpoint(parse_note(server.client.get("/log/checkpoint").get_data(as_text=True)).text)
    assert int(first["keptSize"]) == served.size
    assert "witness-1, witness-2" in page.locator("[data-testid=log-status]").text_content()

    play_a_move(page)
    server.sequence()
    state = check_now(page)
    assert state["state"] == "kept" and int(state["keptSize"]) > served.size, "a newer consistent one is kept"
    assert state["receipts"] == "2" and state["proven"] == "2" and state["joined"] == "true", state

    receipts, kept = save_receipts(page, tmp_path)
    assert len(kept) == 2 and all(r["log_proof"].startswith("c2sp.org/tlog-proof@v1\n") for r in kept)
    # The seat joined over REST: the page read its join's receipt back, the one the service stored for that write.
    assert without_proof(kept[0]) == served_receipt(server, match["match_id"], 2)
    checkpoint = save_checkpoint(page, tmp_path)
    code, checks = verify(server, tmp_path, match["match_id"], receipts, checkpoint, int(state["keptSize"]))
    assert code == EXIT_VERIFIED, checks
    assert checks["kept receipts in the log"]["status"] == checks["kept checkpoint"]["status"] == "pass"
    assert checks["witnessed"]["status"] == "pass"
    assert page.recorder.errors == []


def test_a_proof_against_a_checkpoint_not_yet_cosigned_is_not_counted_and_is_fetched_again_once_cosigned(
    server, page, tmp_path
):
    # Before the witnesses' first cosignatures the log serves its newest signed checkpoint: a proof against it is
    # one `gambit verify --witness-key` waits on (PENDING), so the page asks again once a cosigned one is served.
    match = create_match(server.client, "gambitz", {"players": 2})
    match_id = match["match_id"]
    assert join_from_page(page, server, match_id, "Ada", "p1") == "p1"
    build_sequencer(server.app.extensions["gambit"]).integrate()  # signed, and no witness asked yet
    waiting = check_now(page)
    assert waiting["receipts"] == "1" and waiting["proven"] == "0", waiting
    (kept,) = json.loads(page.evaluate("k => localStorage.getItem(k)", f"gambit-receipts:{match_id}:p1"))
    assert "— witness-" not in kept["log_proof"], "the proof kept meanwhile is against the uncosigned checkpoint"

    server.sequence()
    state = check_now(page)
    assert state["receipts"] == state["proven"] == "1" and "refreshed" not in state, state
    (kept,) = json.loads(page.evaluate("k => localStorage.getItem(k)", f"gambit-receipts:{match_id}:p1"))
    assert kept["log_proof"].count("— witness-") == 2, "the proof now carries both witnesses' cosignatures"
    receipts, _ = save_receipts(page, tmp_path)
    checkpoint = save_checkpoint(page, tmp_path)
    code, checks = verify(server, tmp_path, match_id, receipts, checkpoint, int(state["keptSize"]))
    assert code == EXIT_VERIFIED, [c for c in checks.values() if c["status"] != "pass"]


def test_a_seat_that_joins_on_the_page_keeps_its_join_receipt_with_its_proof(server, page, tmp_path):
    match = create_match(server.client, "gambitz", {"players": 2})
    match_id = match["match_id"]
    assert join_from_page(page, server, match_id, "Ada", "p1") == "p1"
    joined = server.client.post(f"/matches/{match_id}/seats", json={"name": "Bob"})
    assert joined.status_code == 201
    server.sequence()
    page.wait_for_selector(f"{KEEPER}[data-joined=true]")
    play_a_move(page)
    server.sequence()
    state = check_now(page)
    assert state["receipts"] == "2" and state["proven"] == "2", state

    receipts, kept = save_receipts(page, tmp_path)
    join = served_receipt(server, match_id, 2)
    assert without_proof(kept[0]) == join, "the join's answer carried the receipt the service stored"
    assert all(r["log_proof"].startswith("c2sp.org/tlog-proof@v1\n") for r in kept)
    checkpoint = save_checkpoint(page, tmp_path)
    logged_to_the_end(server, match_id)
    code, checks = verify(server, tmp_path, match_id, receipts, checkpoint, int(state["keptSize"]))
    assert code == EXIT_VERIFIED, [c for c in checks.values() if c["status"] not in ("pass", "skip")]
    assert checks["kept receipts in the log"]["status"] == checks["witnessed"]["status"] == "pass"
    assert page.recorder.errors == []


@pytest.mark.parametrize("attack", ["another tree of the same size", "a larger tree that does not extend it"])
def test_a_checkpoint_that_does_not_extend_the_kept_one_raises_the_alarm_on_the_page(server, page, attack):
    seat_page_keeping(server, page)
    kept_size = int(keeper(page)["keptSize"])
    if attack == "another tree of the same size":
        lie = forged(server, kept_size, EMPTY_ROOT)
    else:
        lie = forged(server, kept_size + 3, EMPTY_ROOT)
        proof = {"first": kept_size, "second": kept_size + 3, "proof": [base64.b64encode(b"\x07" * 32).decode()] * 3}
        page.route("**/log/consistency?*", lambda route: route.fulfill(json=proof))
    page.route("**/log/checkpoint", lambda route: route.fulfill(body=lie, content_type="text/plain; charset=utf-8"))
    state = check_now(page)
    assert state["state"] == "alarm", state
    alarm = page.locator("[data-testid=log-alarm]")
    assert alarm.is_visible() and "The log forked" in alarm.text_content()
    why = "two trees of one size" if attack.startswith("another") else "does not extend"
    assert why in alarm.text_content()
    assert int(state["keptSize"]) == kept_size, "the page keeps what it had"
    screenshot(page, f"log-keeper-alarm-{attack.split()[0]}")
    page.unroute("**/log/checkpoint")
    assert check_now(page)["state"] == "alarm", "an alarm stays on the page"


class RotatingLiveServer(LiveServer):
    """The live server without witnesses, whose signing key can be rotated (a restart with a new key that names
    the old one as previous and retires it in the log at once)."""

    def __init__(self, tmp) -> None:
        self.url_of_store = f"sqlite:///{tmp}/s.sqlite3"
        self.current = Settings(database_url=self.url_of_store, data_dir=str(tmp / "old"))
        super().__init__(tmp)

    def settings(self) -> Settings:
        """The settings of the key signing now."""
        return self.current

    def integrate(self) -> None:
        """One round of the sequencer: the writes (and a due retirement) go into the log."""
        build_sequencer(self.app.extensions["gambit"]).integrate()

    def rotate(self) -> None:
        """Restart on the same store and port with a new key; the log retires the old one."""
        old_key = self.client.get("/.well-known/gambit-signing-key").get_json()["public_key"]
        self.stop()
        self.current = Settings(
            database_url=self.url_of_store, data_dir=str(self.tmp / "new"), previous_signing_keys=(old_key,)
        )
        self.start()
        self.integrate()


@pytest.fixture
def rotating(tmp_path):
    """A live server whose key the test rotates."""
    live = RotatingLiveServer(tmp_path)
    yield live
    live.close()


def test_after_a_key_rotation_the_page_fetches_its_retired_key_receipts_proofs_again(rotating, page, tmp_path):
    match = create_match(rotating.client, "gambitz", {"players": 2})
    tokens = join_all(rotating.client, match)
    open_seat(page, rotating, match["match_id"], tokens["p1"])
    play_a_move(page)
    rotating.integrate()
    before = check_now(page)
    assert before["receipts"] == before["proven"] == "2" and "refreshed" not in before, before

    rotating.rotate()
    document = rotating.client.get("/.well-known/gambit-signing-key").get_json()
    assert document["previous_keys"][0]["retired"], "the log retired the old key"
    state = check_now(page)
    assert state["refreshed"] == "2" and state["proven"] == "2", state
    assert state["state"] == "kept", "the new key's checkpoint extends the kept one"

    receipts, kept = save_receipts(page, tmp_path)
    retired = document["previous_keys"][0]
    for receipt in kept:
        assert receipt["key_id"] == retired["key_id"]
        note = parse_note(receipt["log_proof"].split("\n\n", 1)[1])
        assert parse_checkpoint(note.text).size > retired["retired"]["size"], "against the new key's checkpoint"
    export = tmp_path / "export.ndjson"
    export.write_text(rotating.client.get(f"/matches/{match['match_id']}/export").get_data(as_text=True))
    key_document = tmp_path / "signing-key.json"
    key_document.write_text(json.dumps(document))
    out = io.StringIO()
    code = run_verify(str(export), [str(key_document)], True, out=out, err=io.StringIO(), receipts=[receipts])
    checks = {c["check"]: c for c in json.loads(out.getvalue())["reports"][0]["checks"]}
    assert code == EXIT_VERIFIED, checks
    assert checks["retired keys"]["status"] == checks["kept receipts in the log"]["status"] == "pass", checks
    # The only errors: the page's reads refused while the server restarted with its new key.
    # The restart drops the page's open connections: refused, or cut while a request was on its way.
    restart = ("ERR_CONNECTION_REFUSED", "ERR_SOCKET_NOT_CONNECTED", "ERR_CONNECTION_RESET")
    assert [e for e in page.recorder.errors if not any(cause in e for cause in restart)] == []


def proof_requests(tab) -> list[str]:
    """The paths of the write proofs the page asked for."""
    return [r.url.split("/matches/", 1)[1] for r in tab.recorder.requests if "/log-proof/" in r.url]


def test_the_page_asks_for_no_proof_of_a_write_its_log_does_not_hold_yet(server, page):
    match = seat_page_keeping(server, page)
    page.wait_for_selector(f"{KEEPER}[data-proven='1']")
    play_a_move(page)
    kept = page.evaluate("k => JSON.parse(localStorage.getItem(k))", f"gambit-receipts:{match['match_id']}:p1")
    move = max(r["version"] for r in kept)
    for _ in range(2):
        state = check_now(page)
        assert state["receipts"] == "2" and state["proven"] == "1", "the move's write waits for the log"
    assert not [p for p in proof_requests(page) if p.endswith(f"/log-proof/{move}")], "no request known to fail"
    server.sequence()
    state = check_now(page)
    assert state["receipts"] == state["proven"] == "2", state
    assert [p for p in proof_requests(page) if p.endswith(f"/log-proof/{move}")], "asked once the log holds it"
    assert page.recorder.errors == []


class PartitionedLiveServer(LiveServer):
    """The live server with its matches in two SQLite partitions, each with its own log (no witnesses)."""

    def settings(self) -> Settings:
        """Two partitions, the shared store the first."""
        shared = f"sqlite:///{self.tmp}/s.sqlite3"
        return Settings(
            database_url=shared, data_dir=str(self.tmp), partition_urls=(shared, f"sqlite:///{self.tmp}/p1.sqlite3")
        )

    def integrate(self) -> None:
        """One round of every partition's sequencer."""
        gambit = self.app.extensions["gambit"]
        for number in range(len(gambit.partition_logs())):
            build_sequencer(gambit, number).integrate()


@pytest.fixture
def partitioned(tmp_path):
    """A live server of its own over two partitions."""
    live = PartitionedLiveServer(tmp_path)
    yield live
    live.close()


def test_a_seat_page_keeps_and_checks_the_log_of_its_matchs_partition(partitioned, page):
    store = partitioned.matches.store
    match = create_match(partitioned.client, "gambitz", {"players": 2})
    while store.partition_number(match["match_id"]) != 1:
        match = create_match(partitioned.client, "gambitz", {"players": 2})
    tokens = join_all(partitioned.client, match)
    partitioned.integrate()
    logs = partitioned.client.get("/log/").get_json()["logs"]
    open_seat(page, partitioned, match["match_id"], tokens["p1"])
    page.wait_for_selector(f"{KEEPER}[data-state=kept]")
    first = keeper(page)
    assert first["origin"] == logs[1]["origin"] != logs[0]["origin"], "the log of the match's partition"
    served = parse_checkpoint(parse_note(partitioned.client.get("/log/1/checkpoint").text).text)
    assert int(first["keptSize"]) == served.size

    play_a_move(page)
    partitioned.integrate()
    state = check_now(page)
    assert state["state"] == "kept" and int(state["keptSize"]) > served.size, state
    assert state["receipts"] == state["proven"] == "2", state
    paths = [r.url.split(partitioned.url, 1)[1] for r in page.recorder.requests if "/log/" in r.url]
    assert any(p.startswith("/log/1/checkpoint") for p in paths)
    assert any(p.startswith(f"/log/1/consistency?first={served.size}&") for p in paths), paths
    assert not [p for p in paths if p.startswith(("/log/checkpoint", "/log/consistency", "/log/0/"))], paths
    assert page.recorder.errors == []
