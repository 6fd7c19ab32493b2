"""A witness cosigns a checkpoint only when the log's key signed it and it extends the last one it cosigned for that
log; it answers a wrong old size with 409 and its own size, and keeps its key and state across restarts."""

from __future__ import annotations

from domain.tlog_note import parse_signature_lines
from service.log_keys import NoteKey
from service.witness import SIZE_TYPE, Witness, create_witness_app
from tests.tlog.memory_log import MemoryLog

NOW = 1_790_000_000


def _witness(tmp_path, log: MemoryLog, name: str = "w1") -> Witness:
    return Witness(str(tmp_path / name), name, [log.vkey], clock=lambda: NOW)


def _post(witness: Witness, body: str):
    return create_witness_app(witness).test_client().post("/add-checkpoint", data=body)


def _cosigned(witness: Witness, log: MemoryLog, response, size: int | None = None) -> bool:
    note = log.note(size).with_signatures(parse_signature_lines(response.get_data(as_text=True)))
    return NoteKey.parse(witness.vkey).cosigned_at(note) == NOW


def test_a_witness_cosigns_a_first_checkpoint_and_then_each_consistent_one(tmp_path):
    log = MemoryLog().add(b"a", b"b", b"c")
    witness = _witness(tmp_path, log)
    first = _post(witness, log.add_checkpoint(0))
    assert first.status_code == 200 and _cosigned(witness, log, first)
    log.add(b"d", b"e")
    second = _post(witness, log.add_checkpoint(3))
    assert second.status_code == 200 and _cosigned(witness, log, second)
    assert witness.seen(log.origin).size == 5
    again = _post(witness, log.add_checkpoint(5))
    assert again.status_code == 200, "the same checkpoint is cosigned again"


def test_a_witness_refuses_a_fork_of_what_it_cosigned(tmp_path):
    log = MemoryLog().add(b"a", b"b", b"c")
    witness = _witness(tmp_path, log)
    assert _post(witness, log.add_checkpoint(0)).status_code == 200
    fork = MemoryLog(key=log.key).add(b"a", b"B", b"c", b"d")  # the same key signs another history
    refused = _post(witness, fork.add_checkpoint(3))
    assert refused.status_code == 422 and refused.get_json()["code"] == "inconsistent"
    assert "does not extend" in refused.get_json()["detail"]
    same_size = _post(witness, MemoryLog(key=log.key).add(b"x", b"y", b"z").add_checkpoint(3))
    assert same_size.status_code == 422
    assert witness.seen(log.origin).size == 3, "a refusal changes nothing"
    log.add(b"d")
    assert _post(witness, log.add_checkpoint(3)).status_code == 200, "the honest history goes on"


def test_a_wrong_old_size_gets_409_with_the_witnesss_size(tmp_path):
    log = MemoryLog().add(b"a", b"b", b"c", b"d")
    witness = _witness(tmp_path, log)
    assert _post(witness, log.add_checkpoint(0, 2)).status_code == 200
    wrong = _post(witness, log.add_checkpoint(1))
    assert wrong.status_code == 409 and wrong.content_type == SIZE_TYPE and wrong.get_data(as_text=True) == "2\n"
    assert _post(witness, log.add_checkpoint(2)).status_code == 200


def test_a_checkpoint_not_signed_by_the_logs_key_or_of_an_unknown_log_is_refused(tmp_path):
    log = MemoryLog().add(b"a")
    witness = _witness(tmp_path, log)
    impostor = MemoryLog().add(b"a")  # another key under the same name
    refused = _post(witness, impostor.add_checkpoint(0))
    assert refused.status_code == 403 and refused.get_json()["code"] == "not_signed_by_log"
    stranger = MemoryLog("other.test/log").add(b"a")
    refused = _post(witness, stranger.add_checkpoint(0))
    assert refused.status_code == 404 and refused.content_type == "application/problem+json"
    assert refused.get_json()["code"] == "unknown_log"
    for junk in ("", "old 0\n\nnot a note\n", "old x\n\n" + log.note().render(), "old 5\n\n" + log.note().render()):
        refused = _post(witness, junk)
        assert refused.status_code == 400 and refused.get_json()["code"] == "invalid_request", junk
    assert witness.seen(log.origin) is None


def test_a_restarted_witness_keeps_its_key_and_what_it_cosigned(tmp_path):
    log = MemoryLog().add(b"a", b"b")
    witness = _witness(tmp_path, log)
    assert _post(witness, log.add_checkpoint(0)).status_code == 200
    again = _witness(tmp_path, log)
    assert again.vkey == witness.vkey
    assert again.seen(log.origin).size == 2
    assert _post(again, log.add_checkpoint(0)).status_code == 409
    fork = MemoryLog(key=log.key).add(b"x", b"y", b"z")
    assert _post(again, fork.add_checkpoint(2)).status_code == 422


def test_a_verifier_key_whose_base64_holds_a_plus_still_parses():
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from domain.tlog_note import ED25519_COSIGNATURE, parse_vkey, vkey
    from service.log_keys import raw_public

    keys = (raw_public(Ed25519PrivateKey.generate()) for _ in range(200))
    texts = [vkey("w", ED25519_COSIGNATURE, key) for key in keys]
    with_plus = [text for text in texts if "+" in text.split("+", 2)[2]]
    assert with_plus, "some of 200 random keys' base64 holds a +"
    for text in with_plus:
        assert vkey(*parse_vkey(text)) == text


def test_the_service_reads_its_witnesses_and_quorum_from_the_environment(tmp_path):
    import pytest

    from service.settings import Settings

    log = MemoryLog()
    keys = [_witness(tmp_path, log, f"w{i}").vkey for i in range(3)]
    entries = ",".join(f"w{i}=http://127.0.0.1:{9000 + i}={key}" for i, key in enumerate(keys))
    settings = Settings.from_env({"GAMBIT_WITNESSES": entries})
    assert [w.name for w in settings.witnesses] == ["w0", "w1", "w2"] and settings.witness_quorum == 2
    assert Settings.from_env({"GAMBIT_WITNESSES": entries, "GAMBIT_WITNESS_QUORUM": "3"}).witness_quorum == 3
    for bad in (
        {"GAMBIT_WITNESSES": entries, "GAMBIT_WITNESS_QUORUM": "4"},
        {"GAMBIT_WITNESSES": "w0=http://x"},
        {"GAMBIT_WITNESSES": f"w0=ftp://x={keys[0]}"},
        {"GAMBIT_WITNESSES": f"w0=http://x={log.vkey}"},
        {"GAMBIT_WITNESS_QUORUM": "1"},
    ):
        with pytest.raises(ValueError, match="GAMBIT_WITNESS"):
            Settings.from_env(bad)
