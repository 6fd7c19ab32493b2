"""`gambit verify` on two cores: the record's checks in a forked process while this one replays.

A verification splits into two halves of about equal cost that each need only the export's
lines. A child process, forked once the lines are read, reads every record with what it hashes
to and makes the checks on those (chain, commitments, chance, receipt, clocks). This process
reads the records again, at parse speed and without hashing them, checks the evidence of the
rulings and replays the records through the rules.

The report is the serial one, check for check: the child's checks, with this process's evidence
check in its place, then this process's replay and disputes, each only where the child's checks
say the serial verification comes to it (its reading of the records is the child's, as
`read_records` says). Where no process can be forked, or the child fails, the serial
verification runs.
"""

from __future__ import annotations

import contextlib
import os
import pickle
from collections.abc import Callable
from typing import NoReturn

from domain.seat_keys import SignatureCheck
from domain.verification import (
    Report,
    add_unforeseen,
    check_evidence_of,
    checks_before_replay,
    read_records,
    replay_and_summarize,
    verify_export,
)

# Below this many lines a fork (a few milliseconds) costs about what it saves.
SPLIT_FROM_LINES = 2000


# Where a process can fork (every POSIX system the service runs on; not Windows).
FORKS = os.name == "posix"


def cores_available() -> int:
    """How many cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # a POSIX system without CPU affinity (macOS): every core
        return os.cpu_count() or 1


def worth_splitting(lines: list[str]) -> bool:
    """Whether a verification of these lines is faster in two processes on this machine."""
    return FORKS and cores_available() >= 2 and len(lines) >= SPLIT_FROM_LINES


def verify_export_split(
    lines: list[str],
    source: str = "export",
    *,
    check_signature: Callable[[dict], bool] | None = None,
    progress: Callable[[int], None] | None = None,
    kept_receipts: list[dict] | None = None,
    check_seat_signature: SignatureCheck | None = None,
    redecide: bool = True,
) -> Report:
    """`verify_export`'s report, computed by two processes (by this one alone where it cannot fork).

    Only for a process with no other threads at work (a command-line run): a fork copies this
    thread alone.
    """

    def serially() -> Report:
        return verify_export(
            lines,
            source,
            check_signature=check_signature,
            progress=progress,
            kept_receipts=kept_receipts,
            check_seat_signature=check_seat_signature,
            redecide=redecide,
        )

    if not FORKS:
        return serially()
    read_end, write_end = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return serially()
    if pid == 0:
        os.close(read_end)
        _check_in_child(write_end, lines, source, check_signature, kept_receipts, check_seat_signature)
    os.close(write_end)
    try:
        mine = _evidence_and_replay(lines, source, progress, redecide)
    finally:
        checked = _child_result(read_end, pid)
    if checked is None:
        return serially()  # the child failed
    report, evidence_at, replay_next = checked
    if evidence_at is None:
        return report  # the verification ended before the evidence check (a malformed line, a broken chain…)
    if mine is None:
        return serially()  # cannot be: lines the child accepted read plainly and check as serially
    return _merged(report, evidence_at, replay_next, *mine)


def _evidence_and_replay(
    lines: list[str], source: str, progress: Callable[[int], None] | None, redecide: bool = True
) -> tuple[Report, Report | Exception] | None:
    """This process's half, on the records read plainly: the evidence check, then the replay (or
    the exception that ended the evidence check); None when a line does not read plainly.

    It runs on records the child has not checked yet, which may break what the serial
    verification never shows them to; its results are used only where the child's say the serial
    verification would have come to them.
    """
    try:
        records = read_records(lines, progress)
        if records is None:
            return None
        evidence = Report(source)
        try:
            check_evidence_of(evidence, records.records)
        except Exception as exc:  # noqa: BLE001 - as the serial verification's catch-all: a finding
            return evidence, exc
        replayed = Report(source)
        replay_and_summarize(replayed, records, redecide=redecide)
    except Exception:  # noqa: BLE001 - records the child refuses can break the replay: its report decides
        return None
    return evidence, replayed


def _merged(
    report: Report,
    evidence_at: int,
    replay_next: bool,
    evidence: Report,
    replayed: Report | Exception,
) -> Report:
    """The child's report with this process's evidence check in its place and the replay after it,
    each only where the serial verification comes to it."""
    after = report.checks[evidence_at:]
    report.checks[evidence_at:] = evidence.checks
    report.calls = evidence.calls
    if isinstance(replayed, Exception):
        # The serial verification ends here: nothing after the evidence check ran, signature included.
        add_unforeseen(report, replayed)
        report.signed = False
        return report
    report.checks.extend(after)
    if replay_next:
        report.checks.extend(replayed.checks)
        report.disputes = replayed.disputes
    return report


def _check_in_child(
    pipe: int,
    lines: list[str],
    source: str,
    check_signature: Callable[[dict], bool] | None,
    kept_receipts: list[dict] | None,
    check_seat_signature: SignatureCheck | None,
) -> NoReturn:
    """In the forked child: every check before the replay but the evidence check, whose place it
    marks, sent back pickled; never returns.

    `os._exit` leaves without the parent's exit handlers or a flush of the buffers it copied.
    """
    code = 1
    try:
        report = Report(source)
        marks: list[int] = []
        replay_next = (
            checks_before_replay(
                report,
                lines,
                None,
                check_signature,
                kept_receipts,
                lambda checked, _: marks.append(len(checked.checks)),
                check_seat_signature,
            )
            is not None
        )
        evidence_at = marks[0] if marks else None
        with os.fdopen(pipe, "wb") as out:
            out.write(pickle.dumps((report, evidence_at, replay_next), protocol=pickle.HIGHEST_PROTOCOL))
        code = 0
    finally:
        os._exit(code)


def _child_result(pipe: int, pid: int) -> tuple[Report, int | None, bool] | None:
    """The child's report, where the evidence check goes in it, and whether the replay comes next;
    None when the child failed."""
    with os.fdopen(pipe, "rb") as source:
        data = source.read()
    _, status = os.waitpid(pid, 0)
    if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0 or not data:
        return None
    with contextlib.suppress(pickle.UnpicklingError, EOFError):
        report, evidence_at, replay_next = pickle.loads(data)  # written by our own child, never by the export
        return report, evidence_at, replay_next
    return None
