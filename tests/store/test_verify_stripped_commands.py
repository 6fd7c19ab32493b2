"""A match that records the causes of its writes cannot lose its command records unnoticed, on both stores.

A key holder who removes every `CommandReceived` from a finished match's export, renumbers the rest
(and every version the records name), rebuilds the commitments and the chain and re-signs the
trailer leaves the moves' events without a recorded cause. The match's `MatchCreated` says it
records causes (`records_causes`), so `gambit verify` fails the export; only an export of a match
created before causes were recorded, which has no such flag, is replayed with `commands` skipped.
"""

from __future__ import annotations

import copy

import pytest

from domain.records import COMMAND_RECEIVED, EVIDENCE_FIELDS, RECORDS_CAUSES
from service.verify_cli import EXIT_FAILED, EXIT_VERIFIED
from tests.store.test_verify_tampering import Played, failed, rechain_and_resign, recommit

# gambit-board with the first seat fixed and powers selected draws no chance, so renumbering its records
# leaves every chance check standing: only the missing causes tell the stripped export apart.
BOARD = {"first_seat": "south", "power_mode": "select"}


def _renumbered(value, new_of: dict[int, int], key: str = ""):
    """A JSON value with every version it names (a `…version` field, an `opens` or `sealed_evidence` list) moved."""
    if isinstance(value, dict):
        return {k: _renumbered(v, new_of, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_renumbered(v, new_of, key) for v in value]
    names_version = key.endswith("version") or key in {name for name, _ in EVIDENCE_FIELDS}
    if names_version and type(value) is int:
        return new_of.get(value, value)
    return value


def _stripped(played: Played, lines: list[dict], *, keep_flag: bool = True) -> list[dict]:
    """The export without its command records, renumbered and re-committed as a key holder would."""
    lines = copy.deepcopy(lines)
    header, records, trailer = lines[0], lines[1:-1], lines[-1]
    kept = [r for r in records if r["kind"] != COMMAND_RECEIVED]
    new_of = {r["version"]: number for number, r in enumerate(kept, start=1)}
    by_version: dict[int, dict] = {}
    for record in kept:
        old_secret = record.get("secret")
        record["version"] = new_of[record["version"]]
        record["public"] = _renumbered(record["public"], new_of)
        if old_secret is not None:
            secret = _renumbered(old_secret, new_of)
            for _, copies in EVIDENCE_FIELDS:
                for item in secret.get(copies, []):
                    target = by_version[item["version"]]
                    item.update(secret=target["secret"], salt=target["salt"], commitment=target["commitment"])
            record["secret"] = secret
            if secret != old_secret:
                recommit(record)
        by_version[record["version"]] = record
    if not keep_flag:
        kept[0]["public"].pop(RECORDS_CAUSES)
    return rechain_and_resign([header, *kept, trailer], played.signer())


@pytest.fixture
def board(settings, tmp_path):
    """A finished gambit-board match (bluff calls that open what they rest on)."""
    return Played(settings, tmp_path, "gambit-board", BOARD, seed=7)


def test_an_export_stripped_of_its_command_records_fails(board):
    lines = board.export_lines()
    assert lines[1]["public"][RECORDS_CAUSES] is True and any(r["kind"] == COMMAND_RECEIVED for r in lines[1:-1])
    code, report = board.verify(_stripped(board, lines))
    found = failed(report)
    # The first move's events now follow the setup's, which the setup does not decide; later ones follow nothing.
    assert code == EXIT_FAILED and "the setup after version 3 does not decide" in found["commands"], found
    assert {"chain", "versions", "commitments", "chance", "evidence", "signature", "receipt"}.isdisjoint(found), found


def test_an_older_match_without_the_flag_is_still_replayed_with_commands_skipped(board):
    # The same stripped records, but from a match that never said it records causes: what an export of a
    # match recorded before commands were looks like. It verifies, and `commands` says it re-decided nothing.
    code, report = board.verify(_stripped(board, board.export_lines(), keep_flag=False))
    checks = {c["check"]: c for c in report["reports"][0]["checks"]}
    assert code == EXIT_VERIFIED, failed(report)
    assert checks["commands"]["status"] == "skip" and "no command is recorded" in checks["commands"]["detail"]
