"""A cosignature carries its time: `gambit verify` takes the time by which a quorum of witnesses had cosigned a
checkpoint holding a write as the latest the write's records can have existed, and fails a record dated later (a
service whose clock ran ahead of the truth). Honest runs pass; one witness's clock alone cannot fail an export."""

from __future__ import annotations

import io
import json
import random

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain.clock import parse_instant
from domain.tlog_note import ED25519_COSIGNATURE, Proof, parse_proof, vkey
from service.keeper import build_sequencer
from service.log_keys import cosign, raw_public
from service.verify_cli import EXIT_FAILED, EXIT_VERIFIED, run_verify
from tests.support.api import auth, create_match, join_all, legal_options
from tests.support.clocks import fake_time_source, per_decision, timed_match

NAMES = ("w0", "w1", "w2")


class Witnessed:
    """A match in the log, and three witness keys that can cosign its proofs at any time a test chooses."""

    def __init__(self, app, client, tmp_path, match_id: str | None = None) -> None:
        """A new match with three writes, or the match given as it stands."""
        self.client, self.tmp_path = client, tmp_path
        if match_id is None:
            match = create_match(client, "gambitz", {"players": 2})
            self.match_id = match["match_id"]
            self.tokens = join_all(client, match)
            self.receipts = [self.play() for _ in range(3)]
        else:
            self.match_id = match_id
        build_sequencer(app.extensions["gambit"]).integrate()
        self.keys = {name: Ed25519PrivateKey.generate() for name in NAMES}
        self.key_files = []
        for name, key in self.keys.items():
            path = tmp_path / f"{name}.vkey"
            path.write_text(vkey(name, ED25519_COSIGNATURE, raw_public(key)) + "\n")
            self.key_files.append(str(path))
        text = client.get(f"/matches/{self.match_id}/export").get_data(as_text=True)
        self.lines = [json.loads(line) for line in text.splitlines() if line.strip()]
        self.times = {r["version"]: parse_instant(r["timestamp"]) // 1_000_000 for r in self.lines[1:-1]}

    def play(self) -> dict:
        """One more write by the seat to act; its receipt."""
        summary = self.client.get(f"/matches/{self.match_id}", headers=auth(self.tokens["p1"])).get_json()
        seat = min(summary["to_act"])
        body = legal_options(self.client, self.match_id, self.tokens[seat], random.Random(1))[0]
        response = self.client.post(f"/matches/{self.match_id}/commands", json=body, headers=auth(self.tokens[seat]))
        assert response.status_code == 201, response.get_json()
        return response.get_json()["receipt"]

    def cosigned(self, proof_text: str, times: dict[str, int]) -> str:
        """The proof with its checkpoint cosigned by the named witnesses, each at its time."""
        proof = parse_proof(proof_text)
        lines = [cosign(proof.note.text, name, self.keys[name], at) for name, at in times.items()]
        return Proof(proof.index, proof.hashes, proof.note.with_signatures(lines), proof.checkpoint, proof.extra).render()

    def proof_of(self, version: int) -> str:
        """The served tlog-proof of the write ending at a version."""
        return self.client.get(f"/matches/{self.match_id}/log-proof/{version}").get_data(as_text=True)

    def verify(self, trailer_times: dict[str, int], kept: list[dict] | None = None) -> tuple[int, dict]:
        """`gambit verify --witness-key ×3 --quorum 2` of the export, its trailer's proof cosigned at those times."""
        lines = [*self.lines[:-1], dict(self.lines[-1], log_proof=self.cosigned(self.lines[-1]["log_proof"], trailer_times))]
        export = self.tmp_path / "export.ndjson"
        export.write_text("".join(json.dumps(line) + "\n" for line in lines))
        receipts = []
        if kept:
            path = self.tmp_path / "kept.json"
            path.write_text(json.dumps(kept))
            receipts = [str(path)]
        key = self.client.get("/.well-known/gambit-signing-key").get_json()["public_key"]
        out = io.StringIO()
        newest = max(self.times.values())
        code = run_verify(str(export), [key], True, out=out, err=io.StringIO(), receipts=receipts,
                          witness_keys=self.key_files, quorum=2, now=lambda: newest + 10)
        return code, {c["check"]: c for c in json.loads(out.getvalue())["reports"][0]["checks"]}


def test_an_honestly_dated_export_passes_and_says_when_its_records_existed_at_the_latest(app, client, tmp_path):
    witnessed = Witnessed(app, client, tmp_path)
    newest = max(witnessed.times.values())
    code, checks = witnessed.verify({"w0": newest + 1, "w1": newest + 3})
    assert code == EXIT_VERIFIED, checks
    assert checks["witnessed times"]["status"] == "pass"
    assert "existed no later than" in checks["witnessed"]["detail"]


def test_a_cosignature_in_the_same_second_as_the_record_is_no_contradiction(app, client, tmp_path):
    witnessed = Witnessed(app, client, tmp_path)
    newest = max(witnessed.times.values())
    code, checks = witnessed.verify({"w0": newest, "w1": newest})
    assert code == EXIT_VERIFIED and checks["witnessed times"]["status"] == "pass", checks


def test_a_record_dated_later_than_a_quorum_had_cosigned_its_write_fails(app, client, tmp_path):
    witnessed = Witnessed(app, client, tmp_path)
    newest = max(witnessed.times.values())
    # The witnesses cosigned a minute before the records say they were written: the service's clock ran ahead.
    code, checks = witnessed.verify({"w0": newest - 60, "w1": newest - 60})
    assert code == EXIT_FAILED and checks["witnessed times"]["status"] == "fail", checks
    assert "later than they were written" in checks["witnessed times"]["detail"]


def test_one_witness_with_an_early_clock_cannot_fail_an_honest_export(app, client, tmp_path):
    witnessed = Witnessed(app, client, tmp_path)
    newest = max(witnessed.times.values())
    # The bound is when the quorum-th witness had cosigned: one early cosignature is not a quorum's word.
    code, checks = witnessed.verify({"w0": newest - 3600, "w1": newest + 1, "w2": newest + 2})
    assert code == EXIT_VERIFIED and checks["witnessed times"]["status"] == "pass", checks


def test_a_kept_receipt_bounds_the_records_its_write_holds_and_no_later_ones(app, client, tmp_path):
    witnessed = Witnessed(app, client, tmp_path)
    first = witnessed.receipts[0]
    at = witnessed.times[first["version"]]
    kept = dict(first, log_proof=witnessed.cosigned(witnessed.proof_of(first["version"]), {"w0": at, "w1": at}))
    newest = max(witnessed.times.values())
    code, checks = witnessed.verify({"w0": newest + 1, "w1": newest + 1}, kept=[kept])
    assert code == EXIT_VERIFIED, checks
    early = dict(kept, log_proof=witnessed.cosigned(witnessed.proof_of(first["version"]), {"w0": at - 30, "w1": at - 30}))
    code, checks = witnessed.verify({"w0": newest + 1, "w1": newest + 1}, kept=[early])
    assert code == EXIT_FAILED, checks
    assert f"holding the write of version {first['version']}" in checks["witnessed times"]["detail"]


def test_an_expiry_dated_after_its_deadline_but_witnessed_before_it_fails(app, client, tmp_path):
    with fake_time_source() as now:
        match_id, _ = timed_match(client, "gambitz", per_decision(60), config={"players": 2})
        deadline = now.advance(0).timestamp() + 60
        now.advance(61)
        assert client.get(f"/matches/{match_id}").get_json()["status"] == "finished"
        witnessed = Witnessed(app, client, tmp_path, match_id)
    expired = next(r for r in witnessed.lines if r.get("kind") == "ClockExpired")
    newest = max(witnessed.times.values())
    code, checks = witnessed.verify({"w0": newest, "w1": newest + 1})
    assert code == EXIT_VERIFIED and checks["clock"]["status"] == "pass", checks
    # The witnesses saw the expiry half a minute before the deadline it claims to come after.
    early = int(deadline) - 30
    code, checks = witnessed.verify({"w0": early, "w1": early})
    assert code == EXIT_FAILED, checks
    assert f"version {expired['version']} (ClockExpired)" in checks["witnessed times"]["detail"]
