"""The log over HTTP: every acknowledged write is a leaf, the checkpoint is signed by the service key under the log's
origin, tiles are the tree's, and a write's tlog-proof proves its receipt is in the log."""

from __future__ import annotations

import base64
import json

from domain.tlog import EMPTY_ROOT, consistent, entry_of_receipt, leaf_hash, read_entry_bundle, root_from_inclusion
from domain.tlog_note import parse_checkpoint, parse_note, parse_proof
from service.keeper import build_sequencer
from service.log_keys import NoteKey
from service.receipt_signatures import verify_receipt
from tests.support.api import auth, create_match, join_all

SPECTATOR_DELAY = 3


def _integrate(app) -> int:
    return build_sequencer(app.extensions["gambit"]).integrate()


def _log_key(client) -> NoteKey:
    origin = client.get("/log/").get_json()["logs"][0]["origin"]
    return NoteKey.log(origin, client.get("/.well-known/gambit-signing-key").get_json()["public_key"])


def test_receipts_name_the_log_and_promise_a_merge_delay_and_still_verify(client):
    match = create_match(client, "gambitz", {"players": 2})
    receipt = client.get(f"/matches/{match['match_id']}/receipts/1").get_json()
    key = client.get("/.well-known/gambit-signing-key").get_json()["public_key"]
    assert receipt["log"] == client.get("/log/").get_json()["logs"][0]["origin"]
    assert receipt["merge_delay"] == 60
    assert verify_receipt(key, receipt)
    assert not verify_receipt(key, {**receipt, "merge_delay": 3600}), "the promise is signed"
    stripped = {k: v for k, v in receipt.items() if k not in ("log", "merge_delay")}
    assert not verify_receipt(key, stripped), "a v2 signature is no v1 signature"


def test_every_write_becomes_a_leaf_proven_against_the_signed_checkpoint(app, client):
    match = create_match(client, "gambitz", {"players": 2})
    join_all(client, match)
    versions = [v for v in range(1, 20) if client.get(f"/matches/{match['match_id']}/receipts/{v}").status_code == 200]
    assert _integrate(app) == len(versions)
    key = _log_key(client)
    note = parse_note(client.get("/log/checkpoint").get_data(as_text=True))
    checkpoint = parse_checkpoint(note.text)
    assert key.signed(note) is not None and checkpoint.size == len(versions)
    for version in versions:
        receipt = client.get(f"/matches/{match['match_id']}/receipts/{version}").get_json()
        response = client.get(f"/matches/{match['match_id']}/log-proof/{version}")
        assert response.status_code == 200 and response.content_type.startswith("text/plain")
        proof = parse_proof(response.get_data(as_text=True))
        assert proof.checkpoint == checkpoint and key.signed(proof.note) is not None
        leaf = leaf_hash(entry_of_receipt(receipt))
        assert root_from_inclusion(proof.index, checkpoint.size, leaf, list(proof.hashes)) == checkpoint.root


def test_the_tiles_hold_the_entries_and_hashes_of_the_served_tree(app, client):
    match = create_match(client, "gambitz", {"players": 2})
    join_all(client, match)
    _integrate(app)
    size = parse_checkpoint(parse_note(client.get("/log/checkpoint").get_data(as_text=True)).text).size
    entries = client.get(f"/log/tile/entries/000.p/{size}")
    hashes = client.get(f"/log/tile/0/000.p/{size}")
    assert entries.status_code == hashes.status_code == 200
    assert "immutable" in hashes.headers["Cache-Control"]
    leaves = [leaf_hash(entry) for entry in read_entry_bundle(entries.get_data())]
    assert b"".join(leaves) == hashes.get_data()
    first = json.loads(read_entry_bundle(entries.get_data())[0])
    assert set(first) == {"match_id", "version", "head", "key_id"} and first["match_id"] == match["match_id"]
    for missing in (f"0/000.p/{size + 1}", "0/000", "1/000.p/1", "0/001.p/1", "0/1", "entries/x000/000"):
        response = client.get(f"/log/tile/{missing}")
        assert response.status_code == 404 and response.get_json()["code"] == "no_tile", missing


def test_a_write_not_yet_integrated_has_no_proof_yet_and_says_when(app, client):
    match = create_match(client, "gambitz", {"players": 2})
    _integrate(app)
    tokens = join_all(client, match)
    version = client.get(f"/matches/{match['match_id']}", headers=auth(tokens["p1"])).get_json()["version"]
    response = client.get(f"/matches/{match['match_id']}/log-proof/{version}")
    assert response.status_code == 404 and response.get_json()["code"] == "not_in_log_yet"
    _integrate(app)
    assert client.get(f"/matches/{match['match_id']}/log-proof/{version}").status_code == 200


def test_a_held_back_spectator_gets_no_proof_past_the_version_it_may_see(app, client):
    created = client.post(
        "/matches", json={"ruleset": "gambitz", "config": {"players": 2, "spectator_delay": SPECTATOR_DELAY}}
    )
    match = created.get_json()
    tokens = join_all(client, match)
    _integrate(app)
    version = client.get(f"/matches/{match['match_id']}", headers=auth(tokens["p1"])).get_json()["version"]
    path = f"/matches/{match['match_id']}/log-proof/{version}"
    assert client.get(path).get_json()["code"] == "no_receipt"
    assert client.get(path, headers=auth(tokens["p1"])).status_code == 200, "a seat is never held back"


def test_a_version_without_a_write_and_an_unknown_match_have_no_proof(app, client):
    match = create_match(client, "gambitz", {"players": 2})
    _integrate(app)
    for version in ("0", "2", "x", "9" * 30):
        response = client.get(f"/matches/{match['match_id']}/log-proof/{version}")
        assert response.status_code == 404 and response.get_json()["code"] == "no_receipt", version
    unknown = client.get("/matches/00000000-0000-0000-0000-000000000000/log-proof/1")
    assert unknown.status_code == 404 and unknown.get_json()["code"] == "match_not_found"


def test_the_checkpoint_is_signed_by_the_service_key_under_the_logs_origin(app, client):
    _integrate(app)
    text = client.get("/log/checkpoint").get_data(as_text=True)
    origin, size, root = text.split("\n")[:3]
    assert origin == client.get("/log/").get_json()["logs"][0]["origin"] and size == "0"
    assert base64.b64decode(root).hex() == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    assert _log_key(client).signed(parse_note(text)) is not None


def test_a_kept_checkpoint_is_proven_to_be_extended_by_the_consistency_endpoint(app, client):
    match = create_match(client, "gambitz", {"players": 2})
    _integrate(app)
    kept = parse_checkpoint(parse_note(client.get("/log/checkpoint").get_data(as_text=True)).text)
    join_all(client, match)
    create_match(client, "gambitz", {"players": 2})
    _integrate(app)
    served = parse_checkpoint(parse_note(client.get("/log/checkpoint").get_data(as_text=True)).text)
    assert served.size > kept.size
    response = client.get(f"/log/consistency?first={kept.size}&second={served.size}")
    assert response.status_code == 200 and "immutable" in response.headers["Cache-Control"]
    body = response.get_json()
    proof = [base64.b64decode(h) for h in body["proof"]]
    assert (body["first"], body["second"]) == (kept.size, served.size)
    assert consistent(kept.size, served.size, kept.root, served.root, proof)
    assert not consistent(kept.size, served.size, EMPTY_ROOT, served.root, proof), "another old root is no ancestor"
    assert client.get("/log/").get_json()["logs"][0]["consistency"] == "/log/consistency"


def test_the_consistency_endpoint_refuses_sizes_it_cannot_prove(app, client):
    create_match(client, "gambitz", {"players": 2})
    _integrate(app)
    for query in ("first=2&second=1", "first=-1&second=1", "first=x&second=1", "second=1", "first=0"):
        response = client.get(f"/log/consistency?{query}")
        assert response.status_code == 400 and response.get_json()["code"] == "invalid_parameter", query
    response = client.get("/log/consistency?first=0&second=2")
    assert response.status_code == 404 and response.get_json()["code"] == "no_tree"
    assert client.get("/log/consistency?first=1&second=1").get_json()["proof"] == []
