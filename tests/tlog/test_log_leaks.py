"""The log never shows a spectator more than a match's delay allows: a match with a spectator delay enters the log
as sealed leaves (a commitment per write), so neither its id, nor its versions, nor its heads appear in /log/* (its
consistency proofs included); the write's proof, gated by the delay, reveals the salt that opens its leaf, and the
export's proof still verifies."""

from __future__ import annotations

import base64
import io
import json

from domain.tlog import entry_bytes, entry_of_receipt, leaf_hash, read_entry_bundle, root_from_inclusion
from domain.tlog_note import parse_checkpoint, parse_note, parse_proof
from service.keeper import build_sequencer
from service.verify_cli import run_verify
from tests.support.api import auth, create_match, join_all

SPECTATOR_DELAY = 3


def _integrate(app) -> None:
    build_sequencer(app.extensions["gambit"]).integrate()


def _delayed_match(client) -> tuple[dict, dict]:
    created = client.post(
        "/matches", json={"ruleset": "gambitz", "config": {"players": 2, "spectator_delay": SPECTATOR_DELAY}}
    )
    match = created.get_json()
    return match, join_all(client, match)


def _everything_public_in_the_log(client) -> bytes:
    """What anyone can read of the log: its list, its checkpoint, every entries and hash tile of the tree, and every
    consistency proof to it."""
    seen = [client.get("/log/").get_data(), client.get("/log/checkpoint").get_data()]
    size = parse_checkpoint(parse_note(client.get("/log/checkpoint").get_data(as_text=True)).text).size
    for path in (f"entries/000.p/{size}", f"0/000.p/{size}"):
        response = client.get(f"/log/tile/{path}")
        assert response.status_code == 200
        seen.append(response.get_data())
    for first in range(size + 1):
        proof = client.get(f"/log/consistency?first={first}&second={size}").get_json()["proof"]
        seen.extend(base64.b64decode(h) for h in proof)
    return b"\n".join(seen)


def test_a_spectator_of_a_delayed_match_learns_nothing_of_it_from_the_log(app, client):
    match, tokens = _delayed_match(client)
    other = create_match(client, "gambitz", {"players": 2})
    _integrate(app)
    match_id = match["match_id"]
    live = client.get(f"/matches/{match_id}", headers=auth(tokens["p1"])).get_json()["version"]
    shown = client.get(f"/matches/{match_id}").get_json()["delay"]["as_of"]
    assert shown < live
    receipts = [client.get(f"/matches/{match_id}/receipts/{v}", headers=auth(tokens["p1"])) for v in range(1, live + 1)]
    hidden = [r.get_json() for r in receipts if r.status_code == 200 and r.get_json()["version"] > shown]
    assert hidden, "the delay hides at least one write"
    public = _everything_public_in_the_log(client)
    assert match_id.encode() not in public, "the delayed match's id is not in the log"
    for receipt in hidden:
        assert receipt["head"].encode() not in public
        assert leaf_hash(entry_of_receipt(receipt)) not in public, "no open leaf of a hidden write"
    size = parse_checkpoint(parse_note(client.get("/log/checkpoint").get_data(as_text=True)).text).size
    entries = [json.loads(e) for e in read_entry_bundle(client.get(f"/log/tile/entries/000.p/{size}").get_data())]
    assert {e["match_id"] for e in entries if "match_id" in e} == {other["match_id"]}
    assert all(set(e) == {"sealed"} for e in entries if "match_id" not in e)
    hidden_proof = client.get(f"/matches/{match_id}/log-proof/{hidden[-1]['version']}")
    assert hidden_proof.status_code == 404, "nor does the proof endpoint open a hidden write to a spectator"


def test_a_seat_opens_its_sealed_leaf_with_the_salt_its_proof_reveals(app, client):
    match, tokens = _delayed_match(client)
    _integrate(app)
    match_id = match["match_id"]
    live = client.get(f"/matches/{match_id}", headers=auth(tokens["p1"])).get_json()["version"]
    receipt = client.get(f"/matches/{match_id}/receipts/{live}", headers=auth(tokens["p1"])).get_json()
    proof = parse_proof(client.get(f"/matches/{match_id}/log-proof/{live}", headers=auth(tokens["p1"])).text)
    assert proof.extra is not None and len(proof.extra) == 32
    sealed = entry_of_receipt(receipt, proof.extra)
    assert json.loads(sealed).keys() == {"sealed"}
    leaf = leaf_hash(sealed)
    assert root_from_inclusion(proof.index, proof.checkpoint.size, leaf, list(proof.hashes)) == proof.checkpoint.root
    other_head = entry_bytes(match_id, live, "0" * 64, receipt["key_id"], proof.extra)
    assert leaf_hash(other_head) != leaf, "the seal binds the head"


def test_a_delayed_matchs_export_verifies_its_sealed_leaf(app, client, tmp_path):
    match, tokens = _delayed_match(client)
    _integrate(app)
    for who, headers in (("seat", auth(tokens["p1"])), ("spectator", {})):
        path = tmp_path / f"{who}.ndjson"
        path.write_text(client.get(f"/matches/{match['match_id']}/export", headers=headers).get_data(as_text=True))
        out = io.StringIO()
        key = client.get("/.well-known/gambit-signing-key").get_json()["public_key"]
        code = run_verify(str(path), [key], True, out=out, err=io.StringIO())
        checks = {c["check"]: c for c in json.loads(out.getvalue())["reports"][0]["checks"]}
        assert code == 0 and checks["log"]["status"] == "pass", (who, checks["log"])


def test_how_far_a_delayed_match_is_logged_is_told_a_spectator_only_up_to_what_the_delay_shows(app, client):
    match, tokens = _delayed_match(client)
    _integrate(app)
    match_id = match["match_id"]
    live = client.get(f"/matches/{match_id}", headers=auth(tokens["p1"])).get_json()["version"]
    shown = client.get(f"/matches/{match_id}").get_json()["delay"]["as_of"]
    assert shown < live
    assert client.get(f"/matches/{match_id}/logged", headers=auth(tokens["p1"])).get_json()["version"] == live
    spectator = client.get(f"/matches/{match_id}/logged").get_json()
    assert spectator["version"] is not None and spectator["version"] <= shown, "no logged version past the delay"
    assert client.get(f"/matches/{match_id}/logged", headers=auth("not-a-token")).status_code == 401
