"""With several partitions each keeps its own transparency log (issue 34): served under `/log/{partition}/…`, listed at
`/log/`; a write's receipt names its partition's log, its proof is against that log, and `gambit verify` checks it."""

from __future__ import annotations

import base64
import io
import json

import pytest

from domain.tlog import consistent, entry_of_receipt, leaf_hash, read_entry_bundle
from domain.tlog_note import parse_checkpoint, parse_note
from service.app import create_app
from service.keeper import build_sequencer
from service.settings import Settings
from service.verify_cli import run_verify
from tests.stores import BACKENDS, partitioned_urls_for
from tests.support.api import auth, create_match, join_all

PARTITIONS = 2


@pytest.fixture(params=BACKENDS)
def partitioned(request, tmp_path):
    """An app whose matches live in two partitions (the shared store the first)."""
    shared, partitions, drop = partitioned_urls_for(request.param, tmp_path, PARTITIONS)
    app = create_app(Settings(database_url=shared, data_dir=str(tmp_path), partition_urls=partitions))
    app.testing = True
    yield app
    app.extensions["gambit"].close()
    drop()


def _integrate_all(app) -> None:
    for number in range(PARTITIONS):
        build_sequencer(app.extensions["gambit"], number).integrate()


def _matches_by_partition(client, app, config: dict | None = None) -> list[dict]:
    store = app.extensions["gambit"].matches.store
    found: dict[int, dict] = {}
    while len(found) < PARTITIONS:
        match = create_match(client, "gambitz", config or {"players": 2})
        found.setdefault(store.partition_number(match["match_id"]), match)
    return [found[number] for number in range(PARTITIONS)]


def _entries(client, partition: int) -> list[dict]:
    note = client.get(f"/log/{partition}/checkpoint").get_data(as_text=True)
    size = parse_checkpoint(parse_note(note).text).size
    bundle = client.get(f"/log/{partition}/tile/entries/000.p/{size}").get_data()
    return [json.loads(entry) for entry in read_entry_bundle(bundle)]


def test_each_partition_has_its_own_log_listed_under_its_number(partitioned):
    client = partitioned.test_client()
    logs = client.get("/log/").get_json()["logs"]
    assert [log["partition"] for log in logs] == list(range(PARTITIONS))
    assert [log["checkpoint"] for log in logs] == [f"/log/{n}/checkpoint" for n in range(PARTITIONS)]
    assert len({log["origin"] for log in logs}) == PARTITIONS, "every log has a name of its own"
    assert client.get(f"/log/{PARTITIONS}/checkpoint").status_code == 404


def test_a_write_enters_its_partitions_log_only_and_its_export_verifies(partitioned, tmp_path):
    app = partitioned
    client = app.test_client()
    origins = [log["origin"] for log in client.get("/log/").get_json()["logs"]]
    matches = _matches_by_partition(client, app)
    for match in matches:
        join_all(client, match)
    _integrate_all(app)
    key = client.get("/.well-known/gambit-signing-key").get_json()["public_key"]
    for number, match in enumerate(matches):
        version = client.get(f"/matches/{match['match_id']}").get_json()["version"]
        receipt = client.get(f"/matches/{match['match_id']}/receipts/{version}").get_json()
        assert receipt["log"] == origins[number], "the receipt promises the write a leaf of its partition's log"
        holding = [n for n in range(PARTITIONS) if match["match_id"] in {e.get("match_id") for e in _entries(client, n)}]
        assert holding == [number], "its writes are leaves of its partition's log, and of no other"
        assert client.get(f"/matches/{match['match_id']}/log-proof/{version}").status_code == 200
        path = tmp_path / f"export-{number}.ndjson"
        path.write_text(client.get(f"/matches/{match['match_id']}/export").get_data(as_text=True))
        out = io.StringIO()
        code = run_verify(str(path), [key], True, out=out, err=io.StringIO())
        checks = {c["check"]: c for c in json.loads(out.getvalue())["reports"][0]["checks"]}
        assert code == 0 and checks["log"]["status"] == "pass"


def test_a_delayed_match_enters_its_partitions_log_sealed(partitioned):
    app = partitioned
    client = app.test_client()
    delayed = _matches_by_partition(client, app, {"players": 2, "spectator_delay": 3})
    tokens = [join_all(client, match) for match in delayed]
    _integrate_all(app)
    for number, (match, seat_tokens) in enumerate(zip(delayed, tokens, strict=True)):
        public = json.dumps(_entries(client, number)).encode() + client.get(f"/log/{number}/checkpoint").get_data()
        assert match["match_id"].encode() not in public, "the delayed match's id is not in its partition's log"
        seat = auth(seat_tokens["p1"])
        version = client.get(f"/matches/{match['match_id']}", headers=seat).get_json()["version"]
        receipt = client.get(f"/matches/{match['match_id']}/receipts/{version}", headers=seat).get_json()
        assert leaf_hash(entry_of_receipt(receipt)) not in public


def test_each_partitions_log_proves_its_own_consistency_under_its_number(partitioned):
    app = partitioned
    client = app.test_client()
    logs = client.get("/log/").get_json()["logs"]
    assert [log["consistency"] for log in logs] == [f"/log/{n}/consistency" for n in range(PARTITIONS)]
    matches = _matches_by_partition(client, app)
    _integrate_all(app)
    kept = [parse_checkpoint(parse_note(client.get(f"/log/{n}/checkpoint").text).text) for n in range(PARTITIONS)]
    for match in matches:
        join_all(client, match)
    _integrate_all(app)
    for number in range(PARTITIONS):
        served = parse_checkpoint(parse_note(client.get(f"/log/{number}/checkpoint").text).text)
        assert served.size > kept[number].size
        answer = client.get(f"/log/{number}/consistency?first={kept[number].size}&second={served.size}")
        assert answer.status_code == 200
        proof = [base64.b64decode(h) for h in answer.get_json()["proof"]]
        assert consistent(kept[number].size, served.size, kept[number].root, served.root, proof)
        other = kept[1 - number]
        assert not consistent(other.size, served.size, other.root, served.root, proof), "a proof of its own log only"
        too_far = client.get(f"/log/{number}/consistency?first=0&second={served.size + 1}")
        assert too_far.status_code == 404 and too_far.get_json()["code"] == "no_tree"
        backwards = client.get(f"/log/{number}/consistency?first=2&second=1")
        assert backwards.status_code == 400 and backwards.get_json()["code"] == "invalid_parameter"
    missing = client.get(f"/log/{PARTITIONS}/consistency?first=0&second=0")
    assert missing.status_code == 404 and missing.get_json()["code"] == "no_log"


def test_a_match_says_how_far_its_partitions_log_holds_it(partitioned):
    app = partitioned
    client = app.test_client()
    origins = [log["origin"] for log in client.get("/log/").get_json()["logs"]]
    matches = _matches_by_partition(client, app)
    _integrate_all(app)
    for number, match in enumerate(matches):
        logged = client.get(f"/matches/{match['match_id']}/logged").get_json()
        assert logged["log"] == origins[number] and logged["version"] == 1
        join_all(client, match)
        version = client.get(f"/matches/{match['match_id']}").get_json()["version"]
        assert client.get(f"/matches/{match['match_id']}/logged").get_json()["version"] == 1, "not integrated yet"
        assert client.get(f"/matches/{match['match_id']}/log-proof/{version}").status_code == 404
    _integrate_all(app)
    for match in matches:
        version = client.get(f"/matches/{match['match_id']}").get_json()["version"]
        logged = client.get(f"/matches/{match['match_id']}/logged").get_json()
        assert logged["version"] == version, "every write up to the newest is in the served checkpoint"
        assert client.get(f"/matches/{match['match_id']}/log-proof/{version}").status_code == 200
