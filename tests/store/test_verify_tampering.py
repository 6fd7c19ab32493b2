"""`gambit verify` confirms an untouched match and catches every single-row tampering of the store."""

from __future__ import annotations

import io
import json
import random
import sqlite3

import pytest

from domain.records import chain_link
from service.app import create_app
from service.settings import Settings
from service.verify_cli import run_verify
from tests.support.api import auth, join_all, play_to_end
from tests.support.tamper import drop_sqlite_guards


@pytest.fixture
def finished(tmp_path):
    """A finished 3-seat dragons-gambit match on a SQLite file: (settings, match_id, organizer-export function)."""
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'store.sqlite3'}", data_dir=str(tmp_path))
    app = create_app(settings)
    client = app.test_client()
    tournament = client.post("/tournaments", json={"name": "t"}).get_json()
    match = client.post("/matches", json={"ruleset": "dragons-gambit", "config": {"players": 3, "target_score": 40},
                                          "tournament_id": tournament["tournament_id"]}).get_json()
    play_to_end(client, match["match_id"], join_all(client, match), random.Random(8))
    key = client.get("/.well-known/gambit-signing-key").get_json()["public_key"]
    drop_sqlite_guards(tmp_path / "store.sqlite3")  # an attacker with database access removes the triggers first

    def export() -> str:
        fresh = create_app(settings).test_client()  # a new process's view of the (maybe tampered) store
        text = fresh.get(f"/matches/{match['match_id']}/export", headers=auth(tournament["organizer_key"])).get_data(as_text=True)
        path = tmp_path / "export.ndjson"
        path.write_text(text)
        return str(path)

    return tmp_path / "store.sqlite3", match["match_id"], export, key


def _verify(path: str, key: str) -> tuple[int, dict]:
    out = io.StringIO()
    code = run_verify(path, key, as_json=True, out=out, err=io.StringIO())
    return code, json.loads(out.getvalue())


def _failed(report: dict) -> dict:
    return {c["check"]: c["detail"] for c in report["reports"][0]["checks"] if c["status"] == "fail"}


def _rows(db, match_id: str) -> dict[int, dict]:
    conn = sqlite3.connect(db)
    rows = conn.execute("SELECT originator_version, state FROM stored_events WHERE originator_id = ?",
                        (match_id.replace("-", ""),)).fetchall()
    conn.close()
    return {v: json.loads(s) for v, s in rows}


def _write(db, match_id: str, version: int, state: dict | None) -> None:
    conn = sqlite3.connect(db)
    if state is None:
        conn.execute("DELETE FROM stored_events WHERE originator_id = ? AND originator_version = ?",
                     (match_id.replace("-", ""), version))
    else:
        conn.execute("UPDATE stored_events SET state = ? WHERE originator_id = ? AND originator_version = ?",
                     (json.dumps(state).encode(), match_id.replace("-", ""), version))
    conn.commit()
    conn.close()


def _without_snapshots(db) -> None:
    # A snapshot taken before the tampering would hide it from the live aggregate, but never
    # from the export, which is read from the events themselves; drop them to make that plain.
    conn = sqlite3.connect(db)
    conn.execute("DELETE FROM stored_snapshots")
    conn.commit()
    conn.close()


def test_an_untouched_match_verifies_with_every_check_passing(finished):
    db, match_id, export, key = finished
    code, report = _verify(export(), key)
    assert code == 0
    statuses = {c["check"]: c["status"] for c in report["reports"][0]["checks"]}
    for check in ("chain", "commitments", "chance", "evidence", "signature", "receipt", "replay", "verdicts", "outcome"):
        assert statuses[check] == "pass", check


def test_editing_one_stored_event_is_caught(finished):
    db, match_id, export, key = finished
    rows = _rows(db, match_id)
    rows[6]["public"]["edited"] = True
    _write(db, match_id, 6, rows[6])
    code, report = _verify(export(), key)
    assert code == 1 and "chain breaks at version 6" in _failed(report)["chain"]


def test_deleting_the_last_event_is_caught_by_the_signed_receipt(finished):
    db, match_id, export, key = finished
    last = max(_rows(db, match_id))
    _write(db, match_id, last, None)
    _without_snapshots(db)
    code, report = _verify(export(), key)
    assert code == 1 and f"the records end at version {last - 1}" in _failed(report)["receipt"]


def test_swapping_two_events_is_caught(finished):
    db, match_id, export, key = finished
    rows = _rows(db, match_id)
    _write(db, match_id, 8, rows[9])
    _write(db, match_id, 9, rows[8])
    code, report = _verify(export(), key)
    assert code == 1 and "chain breaks at version 8" in _failed(report)["chain"]


def test_altering_one_secret_is_caught(finished):
    db, match_id, export, key = finished
    rows = _rows(db, match_id)
    version = next(v for v, r in sorted(rows.items()) if r["kind"] == "CardDrawn")
    rows[version]["secret"]["face"] = (rows[version]["secret"]["face"] + 1) % 14
    _write(db, match_id, version, rows[version])
    code, report = _verify(export(), key)
    assert code == 1 and f"version {version} does not open" in _failed(report)["commitments"]


def test_forging_a_verdict_even_with_a_rebuilt_chain_is_caught(finished):
    db, match_id, export, key = finished
    rows = _rows(db, match_id)
    ruling = next(v for v, r in sorted(rows.items()) if "bluff_call" in r["public"])
    call = rows[ruling]["public"]["bluff_call"]
    call["verdict"] = "false" if call["verdict"] == "true" else "true"
    # A forger with database access rebuilds every chain link after the edit.
    previous = rows[ruling - 1]["chain"]
    for version in range(ruling, max(rows) + 1):
        row = rows[version]
        row["chain"] = chain_link(previous, version, row["kind"], row["timestamp"]["_data_"], row["public"],
                                  row["commitment"])
        previous = row["chain"]
    for version in range(ruling, max(rows) + 1):
        _write(db, match_id, version, rows[version])
    code, report = _verify(export(), key)
    failed = _failed(report)
    assert code == 1
    assert "chain" not in failed, "the rebuilt chain is consistent: only the receipt and the rules catch it"
    assert "the trailer signs head" in failed["receipt"]
    assert "differs from the rules" in failed["verdicts"]
