"""The service and its witnesses over HTTP: three witness processes' apps (one of them down), a quorum of two.

The log collects cosignatures after each checkpoint it signs, serves the cosigned checkpoint, says in /readyz and
/metrics how far witnessing is behind, and goes on taking writes while witnesses are down. `gambit verify
--witness-key … --quorum 2` calls an export VERIFIED when its write is in a checkpoint two witnesses cosigned,
PENDING while it is not but its merge delay has not run out, and FAILED after; the clock is injected."""

from __future__ import annotations

import io
import json
import threading
from datetime import datetime

import pytest

from domain.tlog_note import parse_checkpoint, parse_note
from service.app import create_app
from service.keeper import build_sequencer, build_witnessing
from service.log_keys import NoteKey
from service.settings import Settings
from service.verify_cli import EXIT_FAILED, EXIT_PENDING, EXIT_USAGE, EXIT_VERIFIED, run_verify
from service.witness import Witness
from service.witnessing import parse_witnesses
from tests.support.api import auth, create_match, join_all
from tests.tlog.served_witness import ServedWitness, closed_port, witness_key_files

MERGE_DELAY = 60


@pytest.fixture
def witnessed(database_url, tmp_path):
    """(app, served witnesses, the down witness's Witness): the service configured with three witnesses, quorum 2."""
    first = create_app(Settings(database_url=database_url, data_dir=str(tmp_path)))
    log_vkey = first.test_client().get("/log/").get_json()["logs"][0]["vkey"]
    first.extensions["gambit"].close()
    witnesses = [Witness(str(tmp_path / f"w{i}"), f"witness-{i}", [log_vkey]) for i in range(3)]
    served = [ServedWitness(w) for w in witnesses[:2]]
    urls = [s.url for s in served] + [f"http://127.0.0.1:{closed_port()}"]
    entries = " ".join(f"{w.name}={url}={w.vkey}" for w, url in zip(witnesses, urls, strict=True))
    settings = Settings(
        database_url=database_url,
        data_dir=str(tmp_path),
        log_merge_delay=MERGE_DELAY,
        witnesses=parse_witnesses(entries),
        witness_quorum=2,
    )
    app = create_app(settings)
    yield app, served, witnesses
    for one in served:
        one.close()
    app.extensions["gambit"].close()


def _sequence(app) -> None:
    """One round of the sequencer's duty: integrate, then collect cosignatures."""
    gambit = app.extensions["gambit"]
    build_sequencer(gambit).integrate()
    build_witnessing(gambit).collect()


def _verify(client, tmp_path, match_id: str, keys: list[str], now: float, quorum: int | None = 2):
    export = tmp_path / "export.ndjson"
    export.write_text(client.get(f"/matches/{match_id}/export").get_data(as_text=True))
    out, err = io.StringIO(), io.StringIO()
    key = client.get("/.well-known/gambit-signing-key").get_json()["public_key"]
    code = run_verify(str(export), [key], True, out=out, err=err, witness_keys=keys, quorum=quorum, now=lambda: now)
    if code == EXIT_USAGE:
        return code, err.getvalue()
    report = json.loads(out.getvalue())["reports"][0]
    return code, report


def _last_record_time(client, match_id: str) -> float:
    lines = client.get(f"/matches/{match_id}/export").get_data(as_text=True).splitlines()
    records = [json.loads(line) for line in lines if '"timestamp"' in line]
    return datetime.fromisoformat(records[-1]["timestamp"]).timestamp()


def test_two_of_three_witnesses_cosign_and_the_log_serves_the_cosigned_checkpoint(witnessed):
    app, _, witnesses = witnessed
    client = app.test_client()
    create_match(client, "gambitz", {"players": 2})
    _sequence(app)
    note = parse_note(client.get("/log/checkpoint").get_data(as_text=True))
    cosigners = [w.name for w in witnesses if NoteKey.parse(w.vkey).cosigned_at(note) is not None]
    assert cosigners == ["witness-0", "witness-1"], "the down witness did not stop the quorum"
    ready = client.get("/readyz").get_json()["witnessing"]
    assert ready["behind_leaves"] == 0 and ready["witnessed_size"] == ready["size"] > 0


def test_writes_go_on_while_witnesses_are_down_and_readiness_says_how_far_behind(witnessed):
    app, served, _ = witnessed
    client = app.test_client()
    create_match(client, "gambitz", {"players": 2})
    _sequence(app)
    witnessed_size = client.get("/readyz").get_json()["witnessing"]["witnessed_size"]
    served[1].close()  # now two of three are down: no quorum
    match = create_match(client, "gambitz", {"players": 2})
    join_all(client, match)
    _sequence(app)
    ready = client.get("/readyz")
    assert ready.status_code == 200
    status = ready.get_json()["witnessing"]
    assert status["witnessed_size"] == witnessed_size and status["behind_leaves"] == status["size"] - witnessed_size > 0
    assert status["behind_seconds"] is not None
    metrics = client.get("/metrics").get_data(as_text=True)
    assert f'gambit_log_witness_behind_leaves{{partition="0"}} {float(status["behind_leaves"])}' in metrics
    served_size = parse_checkpoint(parse_note(client.get("/log/checkpoint").get_data(as_text=True)).text).size
    assert served_size == witnessed_size, "the log serves the newest checkpoint its quorum cosigned"


def test_verify_says_verified_pending_then_failed_by_the_merge_delay(witnessed, tmp_path):
    app, served, witnesses = witnessed
    client = app.test_client()
    keys = witness_key_files(tmp_path, witnesses)
    match = create_match(client, "gambitz", {"players": 2})
    _sequence(app)
    at = _last_record_time(client, match["match_id"])
    code, report = _verify(client, tmp_path, match["match_id"], keys, now=at + 1)
    assert code == EXIT_VERIFIED and report["verdict"] == "VERIFIED"
    served[0].close()  # one of three up: the next write waits for its quorum
    tokens = join_all(client, match)
    assert tokens
    _sequence(app)
    at = _last_record_time(client, match["match_id"])
    code, report = _verify(client, tmp_path, match["match_id"], keys, now=at + 1)
    assert code == EXIT_PENDING and report["verdict"] == "PENDING"
    checks = {c["check"]: c for c in report["checks"]}
    assert checks["witnessed"]["status"] == "skip" and "export again later" in checks["witnessed"]["detail"]
    code, report = _verify(client, tmp_path, match["match_id"], keys, now=at + MERGE_DELAY + 1)
    assert code == EXIT_FAILED and report["verdict"] == "FAILED"
    assert "merge delay" in {c["check"]: c for c in report["checks"]}["witnessed"]["detail"]


def test_a_quorum_of_half_or_fewer_of_the_witness_keys_is_refused(witnessed, tmp_path):
    app, _, witnesses = witnessed
    client = app.test_client()
    match = create_match(client, "gambitz", {"players": 2})
    keys = witness_key_files(tmp_path, witnesses)
    code, message = _verify(client, tmp_path, match["match_id"], keys, now=0, quorum=1)
    assert code == EXIT_USAGE and "more than half" in message
    code, message = _verify(client, tmp_path, match["match_id"], keys[:2], now=0, quorum=1)
    assert code == EXIT_USAGE and "more than half" in message


def test_a_seats_kept_receipt_is_checked_against_the_witnesses_too(witnessed, tmp_path):
    app, _, witnesses = witnessed
    client = app.test_client()
    match = create_match(client, "gambitz", {"players": 2})
    tokens = join_all(client, match)
    _sequence(app)
    assert client.get(f"/matches/{match['match_id']}", headers=auth(tokens["p1"])).get_json()["version"] > 1
    receipt = client.get(f"/matches/{match['match_id']}/receipts/1").get_json()
    receipt["log_proof"] = client.get(f"/matches/{match['match_id']}/log-proof/1").get_data(as_text=True)
    kept = tmp_path / "kept.json"
    kept.write_text(json.dumps(receipt))
    export = tmp_path / "export.ndjson"
    export.write_text(client.get(f"/matches/{match['match_id']}/export").get_data(as_text=True))
    key = client.get("/.well-known/gambit-signing-key").get_json()["public_key"]
    out = io.StringIO()
    code = run_verify(
        str(export),
        [key],
        True,
        out=out,
        err=io.StringIO(),
        receipts=[str(kept)],
        witness_keys=witness_key_files(tmp_path, witnesses),
        quorum=2,
        now=lambda: 0,
    )
    checks = {c["check"]: c for c in json.loads(out.getvalue())["reports"][0]["checks"]}
    assert code == EXIT_VERIFIED and checks["witnessed"]["detail"].startswith("2 write(s)"), checks


def test_a_slow_witnessing_round_never_holds_up_the_sequencer(witnessed):
    app, _, _ = witnessed
    witnessing = build_witnessing(app.extensions["gambit"])
    release, rounds = threading.Event(), []

    def slow_round() -> bool:
        rounds.append(1)
        release.wait(30)
        return True

    witnessing.collect = slow_round
    witnessing.collect_soon()
    witnessing.collect_soon()  # returns at once: the round under way is not doubled
    build_sequencer(app.extensions["gambit"]).integrate()  # the sequencer goes on meanwhile
    release.set()
    witnessing.close()
    assert rounds == [1]


def test_gambit_witness_refuses_a_log_key_that_is_not_one(tmp_path, capsys):
    from service.cli import main

    assert main(["witness", "--state", str(tmp_path / "w"), "--log", "not-a-key"]) == 2
    assert "is not a log's verifier key" in capsys.readouterr().err
