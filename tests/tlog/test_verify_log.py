"""`gambit verify` and the log: the export's final write must be in the log its receipt names, and the log must
extend the checkpoint the user kept; a forked or rewritten log fails."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

from domain.tlog import EMPTY_ROOT
from domain.tlog_note import Checkpoint, Note, parse_checkpoint, parse_note
from service.keeper import build_sequencer
from service.verify_cli import run_verify
from tests.support.api import auth, create_match, join_all, legal_options


def _integrate(app) -> None:
    build_sequencer(app.extensions["gambit"]).integrate()


def _export(client, match_id: str, tmp_path, query: str = "") -> str:
    path = tmp_path / f"export{query.replace('?', '-').replace('=', '-')}.ndjson"
    path.write_text(client.get(f"/matches/{match_id}/export{query}").get_data(as_text=True))
    return str(path)


def _key(client) -> str:
    return client.get("/.well-known/gambit-signing-key").get_json()["public_key"]


def _verify(path: str, key: str, **options) -> tuple[int, dict]:
    out = io.StringIO()
    code = run_verify(path, [key], True, out=out, err=io.StringIO(), **options)
    checks = {c["check"]: c for c in json.loads(out.getvalue())["reports"][0]["checks"]}
    return code, checks


def _play(client, match_id: str, tokens: dict) -> None:
    """One more write: the seat to act concedes nothing, it just plays its first legal option."""
    summary = client.get(f"/matches/{match_id}", headers=auth(tokens["p1"])).get_json()
    seat = min(summary["to_act"])
    body = legal_options(client, match_id, tokens[seat], random.Random(1))[0]
    assert client.post(f"/matches/{match_id}/commands", json=body, headers=auth(tokens[seat])).status_code == 201


def test_an_export_whose_write_is_in_the_log_verifies_with_its_proof(app, client, tmp_path):
    match = create_match(client, "gambitz", {"players": 2})
    join_all(client, match)
    _integrate(app)
    code, checks = _verify(_export(client, match["match_id"], tmp_path), _key(client))
    assert code == 0 and checks["log"]["status"] == "pass"


def test_an_export_made_before_its_write_was_integrated_says_it_carries_no_proof_yet(client, tmp_path):
    match = create_match(client, "gambitz", {"players": 2})
    code, checks = _verify(_export(client, match["match_id"], tmp_path), _key(client))
    assert code == 0 and checks["log"]["status"] == "skip" and "no proof" in checks["log"]["detail"]


def test_a_proof_bent_to_another_leaf_fails(app, client, tmp_path):
    match = create_match(client, "gambitz", {"players": 2})
    join_all(client, match)
    _integrate(app)
    path = _export(client, match["match_id"], tmp_path)
    lines = Path(path).read_text().splitlines()
    trailer = json.loads(lines[-1])
    index = int(trailer["log_proof"].split("\nindex ")[1].split("\n")[0])
    assert index > 0
    trailer["log_proof"] = trailer["log_proof"].replace(f"index {index}\n", f"index {index - 1}\n", 1)
    Path(path).write_text("\n".join([*lines[:-1], json.dumps(trailer)]) + "\n")
    code, checks = _verify(path, _key(client))
    assert code == 1 and checks["log"]["status"] == "fail"


def test_the_log_extends_a_checkpoint_kept_earlier(app, client, tmp_path):
    match = create_match(client, "gambitz", {"players": 2})
    tokens = join_all(client, match)
    _integrate(app)
    kept = tmp_path / "kept.checkpoint"
    kept.write_text(client.get("/log/checkpoint").get_data(as_text=True))
    size = parse_checkpoint(parse_note(kept.read_text()).text).size
    _play(client, match["match_id"], tokens)
    _integrate(app)
    path = _export(client, match["match_id"], tmp_path, f"?log_since={size}")
    code, checks = _verify(path, _key(client), checkpoint=str(kept))
    assert code == 0 and checks["kept checkpoint"]["status"] == "pass"
    without = _export(client, match["match_id"], tmp_path)
    code, checks = _verify(without, _key(client), checkpoint=str(kept))
    assert checks["kept checkpoint"]["status"] == "skip" and f"log_since={size}" in checks["kept checkpoint"]["detail"]


def test_a_kept_checkpoint_of_another_tree_of_the_same_size_is_a_fork_and_fails(app, client, tmp_path):
    match = create_match(client, "gambitz", {"players": 2})
    join_all(client, match)
    _integrate(app)
    gambit = app.extensions["gambit"]
    served = parse_checkpoint(parse_note(client.get("/log/checkpoint").get_data(as_text=True)).text)
    # The key holder signs a second tree under the same name: the one a seat kept differs from the export's.
    forked = Checkpoint(served.origin, served.size, EMPTY_ROOT).body()
    kept = tmp_path / "forked.checkpoint"
    kept.write_text(Note(forked, (gambit.signer.note_signature(forked, served.origin),)).render())
    code, checks = _verify(_export(client, match["match_id"], tmp_path), _key(client), checkpoint=str(kept))
    assert (
        code == 1 and checks["kept checkpoint"]["status"] == "fail" and "forked" in checks["kept checkpoint"]["detail"]
    )


def test_a_checkpoint_file_that_holds_no_checkpoint_is_a_usage_error(client, tmp_path):
    match = create_match(client, "gambitz", {"players": 2})
    bad = tmp_path / "bad.checkpoint"
    bad.write_text("not a checkpoint\n")
    err = io.StringIO()
    code = run_verify(
        _export(client, match["match_id"], tmp_path),
        [_key(client)],
        True,
        out=io.StringIO(),
        err=err,
        checkpoint=str(bad),
    )
    assert code == 2 and "holds no checkpoint" in err.getvalue()
