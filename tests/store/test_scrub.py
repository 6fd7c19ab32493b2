"""The scrub re-checks whole chains: an edit below the newest snapshot is found, alerted and refused, on both stores.

A load reads a match from its newest sealed snapshot (or brings a worker's kept copy up to date)
and so checks only the records after it; the scrub replays every match from its first record.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from service.app import create_app
from service.keeper import Background, scrub_once
from service.settings import Settings
from tests.store.test_verify_tampering import Played
from tests.support.api import auth
from tests.support.tamper import SNAPSHOTS


@pytest.fixture
def played(settings_for, tmp_path):
    """A running 2-seat gambitz match past its first snapshot (taken at version 50)."""
    played = Played(settings_for, tmp_path, "gambitz", {"players": 2}, seed=11, finish=False, upto=60)
    assert played.store.raw(played.match_id, SNAPSHOTS), "a snapshot was taken at version 50"
    yield played
    played.app.extensions["gambit"].close()


def _edit_a_dealt_card_below_the_snapshot(played: Played) -> int:
    """Drop the guards and change a dealt card of an early record (chain fields untouched); returns its version."""
    played.store.drop_guards()
    rows = played.store.rows(played.match_id)
    dealt = next(v for v, r in sorted(rows.items()) if r["kind"] == "CardsDealt")
    assert dealt < min(played.store.raw(played.match_id, SNAPSHOTS))
    card = rows[dealt]["secret"]["cards"][0]
    rows[dealt]["secret"]["cards"][0] = "Q♠" if card != "Q♠" else "K♠"
    played.store.write(played.match_id, dealt, rows[dealt])
    return dealt


def _gambit_scrub(settings: Settings) -> subprocess.CompletedProcess:
    env = {**os.environ, "GAMBIT_DATA_DIR": settings.data_dir, "GAMBIT_DATABASE_URL": settings.database_url}
    return subprocess.run(
        [sys.executable, "-m", "service.cli", "scrub"], env=env, capture_output=True, text=True, timeout=300, check=False
    )


def _a_legal_command(played: Played) -> tuple[str, dict]:
    seat = played.client.get(f"/matches/{played.match_id}").get_json()["to_act"][0]
    legal = played.client.get(f"/matches/{played.match_id}/legal-commands", headers=auth(played.tokens[seat]))
    return seat, legal.get_json()["commands"][0]


def test_gambit_scrub_finds_an_edit_below_the_newest_snapshot_and_writes_to_the_match_are_refused(played):
    dealt = _edit_a_dealt_card_below_the_snapshot(played)
    # A load starts at the snapshot: the edit goes unseen until the scrub replays the whole chain.
    assert played.fresh().get("/readyz").status_code == 200
    done = _gambit_scrub(played.settings)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"match {played.match_id}: FAILED: version {dealt}: the secret does not open" in done.stdout
    assert "1 matches checked, 1 failing" in done.stdout
    ready = played.fresh().get("/readyz")
    assert ready.status_code == 503 and ready.get_json()["code"] == "integrity_alert", ready.get_json()
    assert [a["match_id"] for a in ready.get_json()["alerts"]] == [played.match_id]
    assert played.fresh().get("/readyz").status_code == 503, "readiness cleared an alert the whole chain still earns"
    # The worker that played the match keeps it in memory; it refuses the write too, as a fresh one does.
    version = played.client.get(f"/matches/{played.match_id}").get_json()["version"]
    seat, command = _a_legal_command(played)
    for client in (played.client, played.fresh()):
        refused = client.post(f"/matches/{played.match_id}/commands", json=command, headers=auth(played.tokens[seat]))
        assert refused.status_code == 503 and refused.get_json()["code"] == "integrity_alert", refused.get_json()
    assert played.fresh().get(f"/matches/{played.match_id}").get_json()["version"] == version


def test_an_honest_store_scrubs_clean_and_writes_go_on(played):
    done = _gambit_scrub(played.settings)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 matches checked, 0 failing" in done.stdout
    assert played.fresh().get("/readyz").status_code == 200
    seat, command = _a_legal_command(played)
    taken = played.client.post(f"/matches/{played.match_id}/commands", json=command, headers=auth(played.tokens[seat]))
    assert taken.status_code == 201, taken.get_json()


def _metric(client, name: str) -> float:
    """A sample's value in the /metrics text (0 when absent)."""
    for line in client.get("/metrics").get_data(as_text=True).splitlines():
        if line.startswith(name + " "):
            return float(line.split()[-1])
    return 0.0


def test_the_scrub_counts_what_it_checks_in_the_metrics(played):
    clean = 'gambit_scrub_matches_checked_total{outcome="clean"}'
    mismatch = 'gambit_scrub_matches_checked_total{outcome="mismatch"}'
    app = create_app(played.settings)
    try:
        client, gambit = app.test_client(), app.extensions["gambit"]
        assert scrub_once(gambit).problems == {}
        assert _metric(client, clean) == 1.0 and _metric(client, mismatch) == 0.0
        _edit_a_dealt_card_below_the_snapshot(played)
        assert list(scrub_once(gambit).problems) == [played.match_id]
        assert _metric(client, mismatch) == 1.0
    finally:
        app.extensions["gambit"].close()


def test_the_background_scrub_of_the_leading_worker_raises_the_alert(played):
    _edit_a_dealt_card_below_the_snapshot(played)
    settings = Settings(
        database_url=played.settings.database_url,
        data_dir=played.settings.data_dir,
        keep_clocks=False,
        scrub_rate=100.0,
        scrub_interval=3600.0,
    )
    app = create_app(settings)
    background = Background(app.extensions["gambit"])
    background.start()
    try:
        client = app.test_client()
        deadline = time.monotonic() + 60  # a generous bound: the pass over one match takes well under a second
        while _metric(client, "gambit_scrub_passes_total") < 1:
            assert time.monotonic() < deadline, "the background scrub did not finish a pass"
            time.sleep(0.1)
        assert _metric(client, "gambit_leader") == 1.0
        assert _metric(client, 'gambit_scrub_matches_checked_total{outcome="mismatch"}') == 1.0
        ready = played.fresh().get("/readyz")
        assert ready.status_code == 503 and ready.get_json()["alerts"][0]["match_id"] == played.match_id
    finally:
        background.stop()
        app.extensions["gambit"].close()



def test_a_timed_match_under_a_scrub_alert_takes_no_expiry_and_the_keeper_stops_waking_for_it(settings_for):
    from projections.clocks import ClockKeeper
    from tests.support.clocks import fake_time_source, fischer, timed_match

    with fake_time_source() as now:
        app = create_app(settings_for)
        try:
            gambit = app.extensions["gambit"]
            match_id, _ = timed_match(app.test_client(), "gambitz", fischer(60), config={"players": 2})
            keeper = ClockKeeper(gambit.matches.clocks, gambit.index.store)
            keeper.catch_up()
            assert keeper.next_deadline() is not None
            gambit.alerts.raise_alert(match_id, "version 2: the secret does not open its commitment")
            now.advance(61)
            assert keeper.tick() == [], "an expiry was written into a match under an integrity alert"
            assert keeper.next_deadline() is None, "the keeper would wake for it again at once, in a loop"
            assert "ClockExpired" not in [record.kind for record in gambit.matches.records(match_id)]
        finally:
            app.extensions["gambit"].close()


@pytest.mark.parametrize("name", ["GAMBIT_SCRUB_RATE", "GAMBIT_SCRUB_INTERVAL"])
@pytest.mark.parametrize("value", ["-1", "fast", "inf"])
def test_a_scrub_setting_that_is_not_a_number_from_zero_up_fails_at_start(name, value):
    with pytest.raises(ValueError, match=name):
        Settings.from_env({name: value})


def test_the_serve_keeper_setting_is_on_or_off():
    assert Settings.from_env({}).keep_clocks
    assert not Settings.from_env({"GAMBIT_SERVE_KEEPS_CLOCKS": "off"}).keep_clocks
    with pytest.raises(ValueError, match="GAMBIT_SERVE_KEEPS_CLOCKS"):
        Settings.from_env({"GAMBIT_SERVE_KEEPS_CLOCKS": "maybe"})
