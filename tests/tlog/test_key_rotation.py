"""Key rotation goes through the log: the new key logs the old one's retirement and the log's size then; a receipt of
the retired key stands only for a write the log took in before that, in `gambit verify` and in the service itself.

The attacker of these tests holds the old key (it leaked) and write access to the database, after the rotation.
"""

from __future__ import annotations

import io
import json
import random
from datetime import datetime, timedelta

import pytest

from domain.records import canonical, chain_link
from domain.tlog import entry_of_receipt, leaf_hash
from domain.tlog_note import AddCheckpoint, Checkpoint, Note, Proof, parse_checkpoint, parse_note
from domain.tlog_rotation import RetirementProof, parse_retirement_proof
from projections.tlog_log import RetiredKeyError
from service.app import create_app
from service.keeper import build_sequencer
from service.log_keys import NoteKey
from service.monitor import Monitor, MonitorState, run_monitor
from service.settings import Settings
from service.signing import Signer
from service.verify_cli import EXIT_FAILED, EXIT_VERIFIED, run_verify
from service.witness import Witness, WitnessRefusal
from service.witnessing import Witnessing, parse_witnesses
from tests.support.api import auth, create_match, going_on, join_all, legal_options
from tests.support.tamper import StoreAccess
from tests.tlog.memory_log import MemoryLog
from tests.tlog.served_witness import ServedWitness


def _integrate(app) -> None:
    build_sequencer(app.extensions["gambit"]).integrate()


def _play(client, match_id: str, tokens: dict, rng: random.Random) -> dict:
    """One more write by the seat to act; its receipt."""
    summary = client.get(f"/matches/{match_id}", headers=auth(tokens["p1"])).get_json()
    seat = min(summary["to_act"])
    # Never a resign or concede: the tests go on to play in the same match after this write.
    body = rng.choice(going_on(legal_options(client, match_id, tokens[seat], rng)))
    response = client.post(f"/matches/{match_id}/commands", json=body, headers=auth(tokens[seat]))
    assert response.status_code == 201, response.get_json()
    return response.get_json()["receipt"]


class Rotated:
    """A match played under an old key, the key rotated (the old one named as previous), and the log's retirement."""

    def __init__(self, database_url: str, tmp_path) -> None:
        self.tmp_path = tmp_path
        self.old_settings = Settings(database_url=database_url, data_dir=str(tmp_path / "old"))
        old = create_app(self.old_settings)
        self.apps = [old]
        self.old_client = old.test_client()
        match = create_match(self.old_client, "gambitz", {"players": 2})
        self.match_id = match["match_id"]
        self.tokens = join_all(self.old_client, match)
        self.rng = random.Random(3)
        self.kept_before = _play(self.old_client, self.match_id, self.tokens, self.rng)
        _integrate(old)
        self.old_checkpoint = self.old_client.get("/log/checkpoint").get_data(as_text=True)
        self.old_vkey = self.old_client.get("/log/").get_json()["logs"][0]["vkey"]
        self.old_key = self.old_client.get("/.well-known/gambit-signing-key").get_json()["public_key"]
        # The operator rotates: a new key signs; the old one is named as previous (deploy/runbook.md).
        self.settings = Settings(
            database_url=database_url, data_dir=str(tmp_path / "new"), previous_signing_keys=(self.old_key,)
        )
        self.app = self.fresh_app()
        self.client = self.app.test_client()
        _integrate(self.app)
        self.document = self.client.get("/.well-known/gambit-signing-key").get_json()
        self.store = StoreAccess(database_url)

    def fresh_app(self):
        """A new process on the (maybe tampered) store, with the new key."""
        app = create_app(self.settings)
        self.apps.append(app)
        return app

    def close(self) -> None:
        """Release every app's store connections."""
        for app in self.apps:
            app.extensions["gambit"].close()

    def old_signer(self) -> Signer:
        """The old key, as whoever it leaked to holds it."""
        signer = Signer.load(self.old_settings.data_dir)
        signer.promise_inclusion(self.kept_before["log"], self.kept_before["merge_delay"])
        return signer

    def export(self, client=None) -> list[dict]:
        """The match's export, parsed."""
        text = (client or self.client).get(f"/matches/{self.match_id}/export").get_data(as_text=True)
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    def verify(self, lines: list[dict], keys: list[str] | None = None, kept: list[dict] | None = None) -> tuple[int, dict]:
        """`gambit verify` of the lines, given the saved key document (default) and kept receipts."""
        export = self.tmp_path / "export.ndjson"
        export.write_text("".join(json.dumps(line) + "\n" for line in lines))
        document = self.tmp_path / "signing-key.json"
        document.write_text(json.dumps(self.document))
        receipts = []
        if kept:
            path = self.tmp_path / "kept.json"
            path.write_text(json.dumps(kept))
            receipts = [str(path)]
        out = io.StringIO()
        code = run_verify(
            str(export), keys or [str(document)], True, out=out, err=io.StringIO(), receipts=receipts
        )
        report = json.loads(out.getvalue())["reports"][0]
        return code, {c["check"]: c for c in report["checks"]}


@pytest.fixture
def rotated(database_url, tmp_path):
    """A match across a key rotation, on each store."""
    played = Rotated(database_url, tmp_path)
    yield played
    played.close()


def test_the_new_key_logs_the_old_ones_retirement_after_every_write_the_old_key_made(rotated):
    retired = rotated.document["previous_keys"][0]["retired"]
    entry = json.loads(retired["entry"])
    assert entry["retired_key"] == rotated.old_key and entry["key_id"] == rotated.document["key_id"]
    assert entry["size"] == retired["size"] and f"index {retired['size']}\n" in retired["proof"]
    log = rotated.app.extensions["gambit"].log
    kept = rotated.kept_before
    assert log.leaf_index(rotated.match_id, kept["version"], kept["head"]) < retired["size"]


def test_a_match_played_across_an_honest_rotation_verifies_with_the_key_document(rotated):
    # Its newest write is still the old key's: exported now, the trailer carries the proof it was logged before.
    code, checks = rotated.verify(rotated.export())
    assert code == EXIT_VERIFIED and checks["retired keys"]["status"] == "pass", checks
    assert "1 receipt" in checks["retired keys"]["detail"]
    _play(rotated.client, rotated.match_id, rotated.tokens, rotated.rng)
    _integrate(rotated.app)
    version = rotated.kept_before["version"]
    proof = rotated.client.get(f"/matches/{rotated.match_id}/log-proof/{version}").get_data(as_text=True)
    kept = dict(rotated.kept_before, log_proof=proof)
    code, checks = rotated.verify(rotated.export(), kept=[kept])
    assert code == EXIT_VERIFIED and checks["retired keys"]["status"] == "pass", checks
    assert rotated.client.get("/readyz").status_code == 200


def test_a_kept_receipt_of_a_retired_key_without_its_proof_is_not_taken_on_its_word(rotated):
    _play(rotated.client, rotated.match_id, rotated.tokens, rotated.rng)
    code, checks = rotated.verify(rotated.export(), kept=[rotated.kept_before])
    assert code == EXIT_FAILED and "carries no proof" in checks["retired keys"]["detail"]


def _rewrite_with_the_old_key(rotated: Rotated) -> dict:
    """The attacker moves the newest record's time one second and re-signs its write with the leaked old key."""
    rotated.store.drop_guards()
    rows = rotated.store.rows(rotated.match_id)
    newest = max(rows)
    row = rows[newest]
    # One second later, carried into the minute: a wrap to :00 would put the record before its predecessor.
    stamp = row["timestamp"]["_data_"]
    later = datetime.fromisoformat(stamp) + timedelta(seconds=1)
    row["timestamp"]["_data_"] = later.isoformat(timespec="microseconds" if "." in stamp else "seconds")
    assert len(row["timestamp"]["_data_"]) == len(stamp), (stamp, row["timestamp"]["_data_"])
    row["chain"] = chain_link(
        rows[newest - 1]["chain"], newest, row["kind"], row["timestamp"]["_data_"], row["public"], row["commitment"]
    )
    receipt = rotated.old_signer().receipt(rotated.match_id, newest, row["chain"])
    row["meta"]["receipt"] = receipt
    rotated.store.write(rotated.match_id, newest, row)
    return receipt


def test_a_match_rewritten_and_resigned_with_the_leaked_old_key_after_the_rotation_is_refused(rotated):
    _play(rotated.client, rotated.match_id, rotated.tokens, rotated.rng)
    _integrate(rotated.app)
    forged = _rewrite_with_the_old_key(rotated)
    fresh = rotated.fresh_app().test_client()
    before = fresh.get(f"/matches/{rotated.match_id}").get_json()
    ready = fresh.get("/readyz")
    assert ready.status_code == 503 and ready.get_json()["code"] == "integrity_alert", ready.get_json()
    alert = next(a for a in ready.get_json()["alerts"] if a["match_id"] == rotated.match_id)
    assert f"version {forged['version']}" in alert["problem"] and "retired" in alert["problem"]
    seat = min(before["to_act"])
    body = legal_options(fresh, rotated.match_id, rotated.tokens[seat], rotated.rng)[0]
    refused = fresh.post(f"/matches/{rotated.match_id}/commands", json=body, headers=auth(rotated.tokens[seat]))
    assert refused.status_code == 503 and refused.get_json()["code"] == "integrity_alert", refused.get_json()
    assert fresh.get(f"/matches/{rotated.match_id}").get_json()["version"] == before["version"]
    # The log does not take the forged write in either.
    _integrate(rotated.app)
    log = rotated.app.extensions["gambit"].log
    assert log.leaf_index(rotated.match_id, forged["version"], forged["head"]) is None
    lines = rotated.export(fresh)
    assert lines[-1].get("integrity_problem")
    code, _ = rotated.verify(lines)
    assert code == EXIT_FAILED


def test_an_export_forged_with_the_leaked_old_key_fails_only_because_the_log_retired_it(rotated):
    _play(rotated.client, rotated.match_id, rotated.tokens, rotated.rng)
    forged = _rewrite_with_the_old_key(rotated)
    lines = rotated.export(rotated.fresh_app().test_client())
    # The attacker's own export: the service's word about its store left out.
    lines[-1] = {"trailer": lines[-1]["trailer"], **forged}
    both_keys = [rotated.old_key, rotated.document["public_key"]]
    code, checks = rotated.verify(lines, keys=both_keys)
    assert code == EXIT_VERIFIED, ("without the log's retirement the leaked key's signature is as good as ever", checks)
    code, checks = rotated.verify(lines)
    assert code == EXIT_FAILED and checks["retired keys"]["status"] == "fail", checks
    assert "carries no proof" in checks["retired keys"]["detail"]
    # Nor can the old key vouch for its write with a checkpoint of its own: only a key not retired signs the log now.
    entry = entry_of_receipt(forged)
    origin = forged["log"]
    body = Checkpoint(origin, 1, leaf_hash(entry)).body()
    note = Note(body, (rotated.old_signer().note_signature(body, origin),))
    lines[-1]["log_proof"] = Proof(0, (), note, Checkpoint(origin, 1, leaf_hash(entry))).render()
    code, checks = rotated.verify(lines)
    assert code == EXIT_FAILED and "not signed by a given key that is not retired" in checks["retired keys"]["detail"]


def test_a_monitor_reads_a_retirement_and_alarms_at_a_write_the_retired_key_made_after_it(rotated, tmp_path):
    def fetch(path: str) -> bytes:
        response = rotated.client.get(f"/log/{path}")
        if response.status_code != 200:
            raise OSError(f"HTTP {response.status_code}")
        return response.get_data()

    key = NoteKey.parse(rotated.client.get("/log/").get_json()["logs"][0]["vkey"])
    monitor = Monitor(fetch, MonitorState(), key)
    monitor.round()
    old_key_id = rotated.kept_before["key_id"]
    assert monitor.state.retired == {old_key_id: rotated.document["previous_keys"][0]["retired"]["size"]}
    # A log that took in a write of the retired key after its retirement shows the leaked key at work.
    retirement = Signer.load(rotated.settings.data_dir).retirement_entry("o", rotated.old_key, 1)
    write = canonical({"match_id": "m", "version": 2, "head": "b" * 64, "key_id": old_key_id})
    log = MemoryLog().add(canonical({"match_id": "m", "version": 1, "head": "a" * 64, "key_id": old_key_id}))
    log.add(retirement, write)
    out = io.StringIO()
    assert run_monitor("", None, log.vkey, True, 0, out, io.StringIO(), fetch=log.fetch) == 1
    assert f"entry 2 is a write by key {old_key_id}, retired at log size 1" in out.getvalue()


def retirement_proof(rotated, size: int) -> str:
    """The log's retirement of the old key with its inclusion proof in the tree of `size` leaves, as the service sends
    it to its witnesses (the Gambit-Key-Retirement header)."""
    log = rotated.app.extensions["gambit"].log
    [(index, entry)] = log.retirements()
    return RetirementProof(index, entry, tuple(log.hashes().inclusion_proof(index, size))).render()


def bent_proof(text: str) -> str:
    """A retirement proof whose first hash is another: it no longer leads to the checkpoint's root."""
    proof = parse_retirement_proof(text)
    return RetirementProof(proof.index, proof.entry, (b"\x07" * 32, *proof.hashes[1:])).render()


def witness_across_the_rotation(rotated, tmp_path) -> tuple[Witness, Note, Note]:
    """A witness given both keys of the log that cosigned the old key's checkpoint; that note and the new key's."""
    new_vkey = rotated.client.get("/log/").get_json()["logs"][0]["vkey"]
    witness = Witness(str(tmp_path / "witness"), "w", [rotated.old_vkey, new_vkey])
    before = parse_note(rotated.old_checkpoint)
    assert witness.add_checkpoint(AddCheckpoint(0, (), before).render())
    after = parse_note(rotated.client.get("/log/checkpoint").get_data(as_text=True))
    return witness, before, after


def test_a_witness_given_both_keys_of_the_log_cosigns_across_the_rotation_and_checks_consistency(rotated, tmp_path):
    witness, before, after = witness_across_the_rotation(rotated, tmp_path)
    old_size, new_size = (parse_checkpoint(note.text).size for note in (before, after))
    assert new_size > old_size, "the retirement is a leaf"
    proof = tuple(rotated.app.extensions["gambit"].log.consistency(old_size, new_size))
    assert witness.add_checkpoint(AddCheckpoint(old_size, proof, after).render(), retirement_proof(rotated, new_size))
    forked = Checkpoint(before.text.split("\n")[0], new_size, b"\0" * 32).body()
    signed = Note(forked, (Signer.load(rotated.settings.data_dir).note_signature(forked, forked.split("\n")[0]),))
    with pytest.raises(WitnessRefusal) as refused:
        witness.add_checkpoint(AddCheckpoint(new_size, (), signed).render())
    assert refused.value.code == "inconsistent"


def test_the_old_key_is_retired_only_once_the_retirement_delay_has_passed(database_url, tmp_path):
    old = create_app(Settings(database_url=database_url, data_dir=str(tmp_path / "old")))
    create_match(old.test_client(), "gambitz", {"players": 2})
    old_key = old.test_client().get("/.well-known/gambit-signing-key").get_json()["public_key"]
    waiting = create_app(
        Settings(
            database_url=database_url,
            data_dir=str(tmp_path / "new"),
            previous_signing_keys=(old_key,),
            key_retirement_delay=3600,
        )
    )
    try:
        sequencer = build_sequencer(waiting.extensions["gambit"])
        sequencer.integrate()
        sequencer.integrate()
        document = waiting.test_client().get("/.well-known/gambit-signing-key").get_json()
        assert "retired" not in document["previous_keys"][0], "processes still signing with it get time to finish"
        sequencer.retire_after = 0
        sequencer.integrate()
        document = waiting.test_client().get("/.well-known/gambit-signing-key").get_json()
        assert document["previous_keys"][0]["retired"]["size"] == 1
    finally:
        for app in (old, waiting):
            app.extensions["gambit"].close()


def test_a_process_still_signing_with_the_retired_key_takes_nothing_into_the_log(rotated):
    stale = create_app(rotated.old_settings)
    rotated.apps.append(stale)
    with pytest.raises(RetiredKeyError):
        build_sequencer(stale.extensions["gambit"]).integrate()


@pytest.mark.parametrize(
    "bend",
    [
        lambda retired: {**retired, "entry": "not a retirement"},
        lambda retired: {**retired, "entry": retired["entry"].replace('"size":', '"size":1', 1)},
        lambda retired: {**retired, "proof": retired["proof"].replace("index ", "index 9", 1)},
        lambda retired: {**retired, "proof": "c2sp.org/tlog-proof@v1\nnothing"},
        lambda retired: "a string",
    ],
)
def test_a_retirement_bent_in_the_key_document_fails_the_check_and_never_the_verifier(rotated, bend):
    retired = rotated.document["previous_keys"][0]["retired"]
    rotated.document["previous_keys"][0]["retired"] = bend(retired)
    code, checks = rotated.verify(rotated.export())
    assert code == EXIT_FAILED and checks["retired keys"]["status"] == "fail", checks


def test_a_witness_cosigns_for_the_new_key_only_once_the_tree_proves_the_old_ones_retirement(rotated, tmp_path):
    witness, before, after = witness_across_the_rotation(rotated, tmp_path)
    old_size, new_size = (parse_checkpoint(note.text).size for note in (before, after))
    request = AddCheckpoint(old_size, tuple(rotated.app.extensions["gambit"].log.consistency(old_size, new_size)), after)
    kept = witness.seen(parse_checkpoint(after.text).origin)
    # A retirement by another key than the one signing (an attacker's key that never signed this log): no evidence.
    attacker = Signer.load(str(tmp_path / "attacker"))
    origin = parse_checkpoint(after.text).origin
    forged = attacker.retirement_entry(origin, rotated.old_key, 0)
    tries = {
        "no_header": (None, "key_change_unproven"),
        "another_retirer": (RetirementProof(0, forged, ()).render(), "key_change_unproven"),
        "a_proof_that_fails": (bent_proof(retirement_proof(rotated, new_size)), "key_change_unproven"),
        "not_a_proof": ("bm90IGEgcHJvb2Y=", "invalid_request"),
    }
    for name, (evidence, code) in tries.items():
        with pytest.raises(WitnessRefusal) as refused:
            witness.add_checkpoint(request.render(), evidence)
        assert refused.value.code == code, name
        assert witness.seen(origin) == kept, f"{name}: a refusal changes nothing the witness keeps"
    assert witness.add_checkpoint(request.render(), retirement_proof(rotated, new_size))
    seen = witness.seen(origin)
    assert seen.size == new_size and seen.retired == ((rotated.kept_before["key_id"], new_size - 1),)


def test_after_the_rotation_a_witness_refuses_the_retired_keys_checkpoint_of_a_larger_tree(rotated, tmp_path):
    witness, before, after = witness_across_the_rotation(rotated, tmp_path)
    log = rotated.app.extensions["gambit"].log
    old_size, new_size = (parse_checkpoint(note.text).size for note in (before, after))
    proof = tuple(log.consistency(old_size, new_size))
    assert witness.add_checkpoint(AddCheckpoint(old_size, proof, after).render(), retirement_proof(rotated, new_size))
    # The log grows under the new key; whoever holds the leaked old key signs that very (consistent) tree.
    create_match(rotated.client, "gambitz", {"players": 2})  # a write under the new key
    _integrate(rotated.app)
    grown = parse_note(rotated.client.get("/log/checkpoint").get_data(as_text=True))
    body = grown.text
    leaked = Note(body, (rotated.old_signer().note_signature(body, parse_checkpoint(body).origin),))
    larger = parse_checkpoint(body).size
    extension = tuple(log.consistency(new_size, larger))
    with pytest.raises(WitnessRefusal) as refused:
        witness.add_checkpoint(AddCheckpoint(new_size, extension, leaked).render(), retirement_proof(rotated, larger))
    assert refused.value.code == "retired_key" and refused.value.status == 403
    assert witness.seen(parse_checkpoint(body).origin).size == new_size, "nothing cosigned"
    # The new key's checkpoint of the same tree is cosigned, and a restarted witness still knows the retirement.
    assert witness.add_checkpoint(AddCheckpoint(new_size, extension, grown).render())
    again = Witness(str(tmp_path / "witness"), "w", [rotated.old_vkey, grown_vkey(rotated)])
    create_match(rotated.client, "gambitz", {"players": 2})  # a write under the new key
    _integrate(rotated.app)
    newest = parse_note(rotated.client.get("/log/checkpoint").get_data(as_text=True))
    leaked = Note(newest.text, (rotated.old_signer().note_signature(newest.text, parse_checkpoint(newest.text).origin),))
    further = tuple(log.consistency(larger, parse_checkpoint(newest.text).size))
    with pytest.raises(WitnessRefusal) as refused:
        again.add_checkpoint(AddCheckpoint(larger, further, leaked).render())
    assert refused.value.code == "retired_key"


def grown_vkey(rotated) -> str:
    """The log's verifier key under the new key."""
    return rotated.client.get("/log/").get_json()["logs"][0]["vkey"]


def test_the_services_witnesses_cosign_across_a_rotation_and_refuse_the_leaked_old_key(rotated, tmp_path):
    """Through the service's own witnessing over HTTP: the old key's checkpoint, then the new key's (the service sends
    the retirement's proof), while a checkpoint the leaked old key signs for the grown tree gets no cosignature."""
    witnesses = [Witness(str(tmp_path / f"w{i}"), f"w{i}", [rotated.old_vkey, grown_vkey(rotated)]) for i in (1, 2)]
    served = [ServedWitness(w) for w in witnesses]
    try:
        config = parse_witnesses(" ".join(f"{s.witness.name}={s.url}={s.witness.vkey}" for s in served))
        old_log = rotated.apps[0].extensions["gambit"].log
        before = Witnessing(old_log, config, 2)
        try:
            # The old key's checkpoint, as the old process asked before the rotation (its log row is the same store's,
            # so ask with the note it signed).
            note = parse_note(rotated.old_checkpoint)
            size = parse_checkpoint(note.text).size
            assert all(before._ask(w, note, size) for w in config), "both cosign the old key's checkpoint"
        finally:
            before.close()
        witnessing = Witnessing(rotated.app.extensions["gambit"].log, config, 2)
        try:
            assert witnessing.collect(), "both cosign the new key's checkpoint, shown the retirement"
            served_note = parse_note(rotated.client.get("/log/checkpoint").get_data(as_text=True))
            assert len(served_note.signatures) == 3
            create_match(rotated.client, "gambitz", {"players": 2})  # a write under the new key
            _integrate(rotated.app)
            grown = parse_note(rotated.app.extensions["gambit"].log.checkpoint_note().render())
            leaked = Note(grown.text, (rotated.old_signer().note_signature(grown.text, parse_checkpoint(grown.text).origin),))
            old = parse_checkpoint(served_note.text).size
            assert not any(witnessing._ask(w, leaked, parse_checkpoint(grown.text).size) for w in config)
            assert all(w.seen(parse_checkpoint(grown.text).origin).size == old for w in witnesses)
            assert witnessing.collect(), "the new key's grown checkpoint is cosigned"
        finally:
            witnessing.close()
    finally:
        for one in served:
            one.close()


def test_a_witness_away_across_two_rotations_follows_the_chain_of_retirements_when_it_is_back(rotated, tmp_path):
    """The log's key goes old → new → third while a witness knows only the old key's checkpoint: the service shows it
    both retirements and it follows them; shown only the newest, or not given the key between, it refuses."""
    new_key = rotated.document["public_key"]
    third_settings = Settings(
        database_url=rotated.settings.database_url,
        data_dir=str(tmp_path / "third"),
        previous_signing_keys=(rotated.old_key, new_key),
    )
    third = create_app(third_settings)
    rotated.apps.append(third)
    _integrate(third)
    log = third.extensions["gambit"].log
    assert len(log.retirements()) == 2, "the third key retired the second; the second had retired the first"
    third_vkey = third.test_client().get("/log/").get_json()["logs"][0]["vkey"]
    every_key = [rotated.old_vkey, grown_vkey(rotated), third_vkey]
    before = parse_note(rotated.old_checkpoint)
    after = parse_note(third.test_client().get("/log/checkpoint").get_data(as_text=True))
    old_size, size = (parse_checkpoint(note.text).size for note in (before, after))
    request = AddCheckpoint(old_size, tuple(log.consistency(old_size, size)), after).render()

    def witness(name: str, keys: list[str]) -> Witness:
        made = Witness(str(tmp_path / name), name, keys)
        assert made.add_checkpoint(AddCheckpoint(0, (), before).render())
        return made

    # Shown only the newest retirement, a witness that missed the first cannot tell the second key was the log's.
    newest_only = witness("newest-only", every_key)
    index, entry = log.retirements()[-1]
    only = RetirementProof(index, entry, tuple(log.hashes().inclusion_proof(index, size))).render()
    with pytest.raises(WitnessRefusal) as refused:
        newest_only.add_checkpoint(request, only)
    assert refused.value.code == "key_change_unproven"
    # Not given the key between, it cannot check who retired the first key.
    missing = witness("missing", [rotated.old_vkey, third_vkey])
    served_missing = ServedWitness(missing)
    away = witness("away", every_key)
    served = ServedWitness(away)
    try:
        config = parse_witnesses(
            f"{away.name}={served.url}={away.vkey} {missing.name}={served_missing.url}={missing.vkey}"
        )
        witnessing = Witnessing(log, config, 1)
        try:
            assert witnessing.collect(), "the witness given every key follows both retirements"
        finally:
            witnessing.close()
        origin = parse_checkpoint(after.text).origin
        assert away.seen(origin).size == size
        retired = dict(away.seen(origin).retired)
        assert set(retired) == {rotated.kept_before["key_id"], rotated.document["key_id"]}
        assert missing.seen(origin).size == old_size, "the witness missing the key between cosigned nothing"
    finally:
        served.close()
        served_missing.close()
