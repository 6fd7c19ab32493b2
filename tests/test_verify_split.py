"""`gambit verify` in two processes says word for word what it says in one.

A forked child checks the record (chain, commitments, chance, receipt, clocks) while this process
checks the evidence and replays; the report merges them in the serial order, and wherever the
split cannot run (no fork, a failed child) the serial verification answers instead. Every
mutation of tests/store/test_verify_mutations.py and every game's finished export (the
conformance suite, in a fresh process) are compared the same way.
"""

from __future__ import annotations

import json
import os

import pytest

from domain import verification, verification_split
from domain.verification import verify_export
from domain.verification_split import SPLIT_FROM_LINES, verify_export_split, worth_splitting
from service.cli import build_parser
from tests.rules.test_derived_secrets import export_lines, playout


@pytest.fixture(scope="module")
def honest() -> list[str]:
    """A finished dragons-gambit match's organizer export (rulings, opened evidence), one JSON text a line."""
    game = playout("dragons-gambit", {"players": 2, "target_score": 30}, 5)
    return export_lines(game, game.events)


@pytest.fixture
def split_only(monkeypatch):
    """The split verification must answer by itself: its serial fallback fails the test."""

    def fallback(*_args, **_kwargs):
        raise AssertionError("the split verification fell back to the serial one")

    monkeypatch.setattr(verification_split, "verify_export", fallback)


def same_report(lines: list[str], **options) -> dict:
    """The report of these lines, asserting the split and the serial verification give the same one."""
    serial = verify_export(lines, **options).as_dict()
    split = verify_export_split(lines, **options).as_dict()
    assert split == serial
    return split


def test_the_honest_export_gets_the_serial_report_with_every_check(honest, split_only):
    report = same_report(honest)
    names = [check["check"] for check in report["checks"]]
    assert names.index("chance") < names.index("evidence") < names.index("receipt") < names.index("replay")
    assert report["calls"] and report["disputes"] == verify_export(honest).disputes


def test_the_record_is_checked_in_a_second_process_while_this_one_replays(honest, split_only, tmp_path):
    seen = tmp_path / "signature-checked-by"

    def check_signature(receipt: dict) -> bool:
        seen.write_text(str(os.getpid()))
        return False

    report = verify_export_split(honest, check_signature=check_signature)
    assert int(seen.read_text()) != os.getpid()
    assert report.as_dict() == verify_export(honest, check_signature=check_signature).as_dict()


def test_a_broken_chain_ends_the_split_report_where_it_ends_the_serial_one(honest, split_only):
    record = json.loads(honest[5])
    record["public"]["forged"] = True
    report = same_report([*honest[:5], json.dumps(record), *honest[6:]])
    assert [c["check"] for c in report["checks"]][-1] == "chain" and report["calls"] == []


def test_a_malformed_line_gets_the_serial_format_failure(honest, split_only):
    report = same_report([*honest[:3], "{not json", *honest[4:]])
    assert report["checks"] == [{"check": "format", "status": "fail", "detail": report["checks"][0]["detail"]}]


def test_an_evidence_check_that_breaks_ends_both_reports_before_the_receipt(honest, split_only, monkeypatch):
    # Content no check foresaw ends a verification where it breaks one: made here by an evidence
    # check that fails midway, after one ruling is listed, in both verifications.
    def breaks_midway(report, records):
        report.calls.append({"ruling_version": 1})
        raise KeyError("unforeseen")

    monkeypatch.setattr(verification, "check_evidence_of", breaks_midway)
    monkeypatch.setattr(verification_split, "check_evidence_of", breaks_midway)
    report = same_report(honest, check_signature=lambda _: True)
    names = [check["check"] for check in report["checks"]]
    assert names[-1] == "content" and "receipt" not in names and "replay" not in names
    assert report["calls"] == [{"ruling_version": 1}] and report["verdict"] == "FAILED"


def test_when_the_child_fails_the_serial_verification_answers(honest, monkeypatch):
    def crash(*_args, **_kwargs):
        raise RuntimeError("the child breaks")

    monkeypatch.setattr(verification_split, "checks_before_replay", crash)
    assert verify_export_split(honest).as_dict() == verify_export(honest).as_dict()


def test_where_no_process_can_be_forked_the_serial_verification_answers(honest, monkeypatch):
    def refuse():
        raise OSError("no more processes")

    monkeypatch.setattr(os, "fork", refuse)
    assert verify_export_split(honest).as_dict() == verify_export(honest).as_dict()


def test_on_a_system_that_cannot_fork_the_serial_verification_answers(honest, monkeypatch):
    def never(*_args):
        raise AssertionError("no fork where the system has none")

    monkeypatch.setattr(verification_split, "FORKS", False)
    monkeypatch.setattr(os, "fork", never)
    assert verify_export_split(honest).as_dict() == verify_export(honest).as_dict()
    assert not worth_splitting(["{}"] * SPLIT_FROM_LINES)


def test_only_a_long_export_on_a_machine_with_a_second_core_is_split(monkeypatch):
    monkeypatch.setattr(verification_split, "cores_available", lambda: 2)
    assert worth_splitting(["{}"] * SPLIT_FROM_LINES)
    assert not worth_splitting(["{}"] * (SPLIT_FROM_LINES - 1))
    monkeypatch.setattr(verification_split, "cores_available", lambda: 1)
    assert not worth_splitting(["{}"] * SPLIT_FROM_LINES)


def test_gambit_verify_takes_one_or_two_jobs_and_nothing_else():
    parser = build_parser()
    assert parser.parse_args(["verify", "x.ndjson"]).jobs is None
    assert parser.parse_args(["verify", "--jobs", "2", "x.ndjson"]).jobs == 2
    with pytest.raises(SystemExit):
        parser.parse_args(["verify", "--jobs", "3", "x.ndjson"])


def test_progress_is_heard_as_in_the_serial_verification():
    game = playout("dragons-gambit", {"players": 2, "target_score": 200}, 5)
    long = export_lines(game, game.events)
    heard: list[int] = []
    serially: list[int] = []
    assert (
        verify_export_split(long, progress=heard.append).as_dict()
        == verify_export(long, progress=serially.append).as_dict()
    )
    assert heard == serially == list(range(1000, len(long) - 2, 1000))
