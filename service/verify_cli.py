"""`gambit verify` and `gambit export`: offline checking and exporting of matches and tournaments."""

from __future__ import annotations

import base64
import gc
import json
import os
import sys
from collections.abc import Callable
from typing import Any, TextIO

from domain.ruleset import ORGANIZER, SPECTATOR
from domain.verification import FAILED, UNSIGNED, VERIFIED, Report, verify_export
from domain.verification_report import PENDING
from domain.verification_split import verify_export_split, worth_splitting

MARKS = {"pass": "ok  ", "fail": "FAIL", "skip": "skip"}

EXIT_VERIFIED, EXIT_FAILED, EXIT_USAGE, EXIT_UNSIGNED, EXIT_PENDING = 0, 1, 2, 3, 4


class UsageError(Exception):
    """A path or key that cannot be used: a one-line message and exit code 2."""


def load_public_keys(value: str) -> list[str]:
    """Public keys from base64, a file holding one, or a saved /.well-known/gambit-signing-key document
    (its `public_key`, then the `previous_keys` it lists: the keys the service signed with before a rotation)."""
    if os.path.exists(value):
        try:
            with open(value, encoding="utf-8") as handle:
                text = handle.read().strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"cannot read the key file {value}: {exc}") from None
    elif _raw_key(value) is None and (os.sep in value or value.endswith((".json", ".pem", ".txt", ".key"))):
        raise UsageError(f"no key file at {value}")
    else:
        text = value.strip()
    if not text.startswith("{"):
        if _raw_key(text) is None:
            raise UsageError("the key is not an Ed25519 public key (32 bytes, base64)")
        return [text]
    try:
        document = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: JSON nested too deeply to read
        raise UsageError(
            "the key file is not a JSON key document (save /.well-known/gambit-signing-key as is)"
        ) from None
    if not isinstance(document, dict) or "public_key" not in document:
        raise UsageError('the key document has no "public_key" (save /.well-known/gambit-signing-key as is)')
    previous = document.get("previous_keys", [])
    if not isinstance(previous, list) or not all(isinstance(item, dict) for item in previous):
        raise UsageError('the key document\'s "previous_keys" is not a list of keys')
    keys = [document["public_key"], *(item.get("public_key") for item in previous)]
    if not all(isinstance(key, str) and _raw_key(key) is not None for key in keys):
        raise UsageError("a key of the key document is not an Ed25519 public key (32 bytes, base64)")
    return keys


def _raw_key(text: str) -> bytes | None:
    """The 32 raw bytes of a base64 Ed25519 public key, or None."""
    try:
        raw = base64.b64decode(text.strip(), validate=True)
    except (ValueError, TypeError):
        return None
    return raw if len(raw) == 32 else None


def export_files(path: str) -> list[str]:
    """The export files to verify: the file itself, or every *.ndjson in a directory (a tournament)."""
    if os.path.isdir(path):
        return sorted(os.path.join(path, name) for name in os.listdir(path) if name.endswith(".ndjson"))
    if not os.path.exists(path):
        raise UsageError(f"no export at {path}")
    return [path]


def render(report: Report, out: TextIO) -> None:
    """A readable report."""
    out.write(
        f"{report.verdict}  {report.source}\n  match {report.match_id} ({report.ruleset}), {report.records} records\n"
    )
    out.writelines(f"  [{MARKS[check.status]}] {check.name}: {check.detail}\n" for check in report.checks)
    out.writelines(
        f"  call at v{call.get('call_version')} by {call.get('caller')} on {call.get('claimant')}'s claim "
        f"{call.get('power') or call.get('claim') or ''}: verdict {call.get('verdict')} "
        f"(ruling v{call['ruling_version']}, evidence {call['evidence']})\n"
        for call in report.calls
    )
    out.writelines(
        f"  {dispute['kind']} v{dispute['version']}: dispute {dispute.get('dispute')} "
        f"{dispute.get('decision') or dispute.get('reason') or ''}\n"
        for dispute in report.disputes
    )


def _names_a_log(lines: list[str]) -> bool:
    """Whether the export's last line (its trailer) names a log: only then are the log's checks loaded."""
    last = next((line for line in reversed(lines) if line.strip()), "")
    return '"log":' in last


def _read_lines(name: str) -> list[str]:
    """An export's lines; bytes that are not UTF-8 are kept visible so the format check names them."""
    try:
        with open(name, encoding="utf-8", errors="surrogateescape") as handle:
            return handle.readlines()
    except OSError as exc:
        raise UsageError(f"cannot read {name}: {exc.strerror or exc}") from None


# What every receipt holds (docs/verification.md, "Receipts"), and the type of each.
_RECEIPT_FIELDS = {"match_id": str, "version": int, "head": str, "key_id": str, "signature": str}


def load_receipts(paths: list[str]) -> list[dict]:
    """Receipts a seat kept: files holding one receipt, a JSON list of them, or one per line."""
    found: list[dict] = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read().strip()
        except OSError as exc:
            raise UsageError(f"cannot read the receipt file {path}: {exc.strerror or exc}") from None
        except UnicodeDecodeError:
            raise UsageError(f"{path} is not UTF-8 text, so it holds no JSON receipts") from None
        try:
            value = (
                json.loads(text)
                if text.startswith("[")
                else [json.loads(line) for line in text.splitlines() if line.strip()]
            )
        except (ValueError, RecursionError):  # RecursionError: JSON nested too deeply to read
            raise UsageError(f"{path} holds no JSON receipts") from None
        if not isinstance(value, list):
            raise UsageError(f"{path} holds no JSON receipts")
        for number, item in enumerate(value, start=1):
            receipt = item.get("receipt", item) if isinstance(item, dict) else None
            if not isinstance(receipt, dict) or "head" not in receipt:
                raise UsageError(f"{path} holds something that is not a receipt (entry {number})")
            for name, kind in _RECEIPT_FIELDS.items():
                field = receipt.get(name)
                if not isinstance(field, kind) or isinstance(field, bool):
                    raise UsageError(f"{path}: receipt {number} has no {name!r} of type {kind.__name__}")
            found.append(receipt)
    return found


def run_verify(
    path: str,
    key: str | list[str] | None,
    as_json: bool,
    out: TextIO = sys.stdout,
    err: TextIO = sys.stderr,
    receipts: list[str] | None = None,
    jobs: int | None = 1,
    checkpoint: str | None = None,
    witness_keys: list[str] | None = None,
    quorum: int | None = None,
    now: Callable[[], float] | None = None,
    redecide: bool = True,
) -> int:
    """Verify one export or a directory of them.

    `key`: the service's public key, or several (each as `--key` takes it): each receipt is
    checked against the one it names by its `key_id`. `checkpoint`: a file holding a checkpoint of the log kept
    earlier, which the export's log proof must extend. `jobs`: processes per export, 1 or 2; None chooses 2 for a long export where a second core is
    free. Two fork this process, which must then have no other threads at work (as a command-line
    run has none).

    `witness_keys` (with `quorum`, more than half of them): each export's write must be in a checkpoint cosigned by
    that many of these witnesses; `now` (the time, injectable) measures a receipt's merge delay.

    `redecide=False` is for bench/verify_cost.py alone (the cost of the `commands` check): `gambit verify` has no
    option for it and always re-decides.

    Exit code: 0 every export VERIFIED (with a key); 1 any FAILED; 4 none failed but a write is not yet in a
    checkpoint a quorum of witnesses cosigned, within its merge delay (PENDING); 3 none failed or waits but no key
    checked the receipts (UNSIGNED); 2 a missing or unreadable file or key.
    """
    try:
        files = export_files(path)
        if not files:
            raise UsageError(f"no exports (*.ndjson) in {path}")
        given = [key] if isinstance(key, str) else list(key or [])
        public_keys = [one for value in given for one in load_public_keys(value)]
        kept = load_receipts(receipts or [])
        retirements: list[dict] = []
        if any(os.path.isfile(value) for value in given):
            from service.verify_rotation import retirements_given  # only a key document can carry retirements

            retirements = retirements_given(given)
        kept_note = None
        witnesses = None
        if checkpoint is not None or witness_keys or quorum is not None:
            import time

            from service.verify_log import CheckpointFileError, load_witnesses, read_kept_checkpoint

            try:
                kept_note = read_kept_checkpoint(checkpoint) if checkpoint is not None else None
                witnesses = load_witnesses(list(witness_keys or []), quorum, (now or time.time)())
            except CheckpointFileError as exc:
                raise UsageError(str(exc)) from None
    except UsageError as exc:
        err.write(f"gambit verify: {exc}\n")
        return EXIT_USAGE
    check = None
    if public_keys:
        from service.receipt_signatures import signed_by_any  # the key's library is imported only when a key is given

        check = signed_by_any(public_keys)
    reports = []
    for name in files:

        def progress(done: int, name: str = name) -> None:
            err.write(f"\r{os.path.basename(name)}: {done} records checked")
            err.flush()

        try:
            lines = _read_lines(name)
        except UsageError as exc:
            err.write(f"gambit verify: {exc}\n")
            return EXIT_USAGE
        report = _verify_without_collector(lines, name, check, progress, kept, jobs, redecide)
        if _names_a_log(lines) or kept_note is not None or witnesses is not None:
            from service.verify_log import check_log  # the log's checks load only for an export that names a log

            check_log(report, lines, kept, public_keys, kept_note, witnesses)
        if retirements:
            from service.verify_log import export_trailer
            from service.verify_rotation import check_retirements

            check_retirements(report, export_trailer(lines), kept, public_keys, retirements)
        err.write("\r" if report.records >= 1000 else "")
        reports.append(report)
        if not as_json:
            render(report, out)
    verdicts = {r.verdict for r in reports}
    overall = (
        FAILED
        if FAILED in verdicts
        else PENDING
        if PENDING in verdicts
        else UNSIGNED
        if UNSIGNED in verdicts
        else VERIFIED
    )
    if as_json:
        out.write(
            json.dumps(
                {"ok": overall == VERIFIED, "verdict": overall, "reports": [r.as_dict() for r in reports]}, indent=2
            )
        )
        out.write("\n")
    return {VERIFIED: EXIT_VERIFIED, FAILED: EXIT_FAILED, UNSIGNED: EXIT_UNSIGNED, PENDING: EXIT_PENDING}[overall]


def _seat_signature_holds(public_key: dict, message: bytes, signature: str) -> bool:
    """service/seat_signatures.py's check, its key library imported only for an export with keyed seats."""
    from service.seat_signatures import seat_signature_holds

    return seat_signature_holds(public_key, message, signature)


def _verify_without_collector(
    lines: list[str],
    name: str,
    check: Callable[[dict], bool] | None,
    progress: Callable[[int], None],
    kept: list[dict],
    jobs: int | None = 1,
    redecide: bool = True,
) -> Report:
    """verify_export (in two processes, as `jobs` says) with the cyclic garbage collector paused.

    An export's records are held until its replay ends and hold no reference cycles: the
    collector's passes over them, more of them the longer the match, would find nothing.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        split = jobs == 2 or (jobs is None and worth_splitting(lines))
        return (verify_export_split if split else verify_export)(
            lines,
            name,
            check_signature=check,
            progress=progress,
            kept_receipts=kept,
            check_seat_signature=_seat_signature_holds,
            redecide=redecide,
        )
    finally:
        if was_enabled:
            gc.enable()


def run_export(match_id: str | None, tournament_id: str | None, output: str | None, role: str) -> int:
    """Export one match (to a file or stdout) or every match of a tournament (to a directory)."""
    from projections.records import viewer_for
    from projections.views import as_json, export_lines
    from service.app import build_gambit
    from service.settings import Settings

    gambit = build_gambit(Settings.from_env())
    try:
        if tournament_id is not None:
            directory = output or f"tournament-{tournament_id}"
            os.makedirs(directory, exist_ok=True)
            ids, cursor = gambit.index.matches(tournament_id=tournament_id, limit=200)
            while cursor is not None:
                more, cursor = gambit.index.matches(tournament_id=tournament_id, after=cursor, limit=200)
                ids.extend(more)
            for one in ids:
                with open(os.path.join(directory, f"match-{one}.ndjson"), "w", encoding="utf-8") as handle:
                    _write_export(gambit, one, role, handle, viewer_for, export_lines, as_json)
            print(f"gambit export: {len(ids)} matches written to {directory}", file=sys.stderr)
            return 0
        if match_id is None:
            print("gambit export: name a match (or --tournament)", file=sys.stderr)
            return 2
        if output:
            with open(output, "w", encoding="utf-8") as handle:
                _write_export(gambit, match_id, role, handle, viewer_for, export_lines, as_json)
        else:
            _write_export(gambit, match_id, role, sys.stdout, viewer_for, export_lines, as_json)
        return 0
    finally:
        gambit.close()


def _write_export(
    gambit: Any,
    match_id: str,
    role: str,
    handle: Any,
    viewer_for: Callable[..., Any],
    export_lines: Callable[..., Any],
    as_json: Callable[[Any], str],
) -> None:
    """Write one match's export (header, records, trailer) to `handle` (imports passed in: the CLI loads them lazily).

    A spectator's export of a running match with a spectator delay ends where `GET /export` ends
    it for a spectator: at the delayed version, on that write's receipt.
    """
    from projections.delay import shown_as_of, spectator_delay

    latest = gambit.matches.match(match_id)
    viewer = viewer_for(latest, role)
    delay = spectator_delay(gambit.matches, latest, viewer)
    match = shown_as_of(gambit.matches, latest, delay)
    if delay is not None and match.version != latest.version:
        print(
            f"gambit export: spectators see match {match_id} {delay.records} records behind while it runs: "
            f"exported as of version {match.version} of {latest.version}",
            file=sys.stderr,
        )
    for line in export_lines(gambit.matches, match, viewer):
        handle.write(line)
    handle.write(as_json(gambit.trailer_for(match)) + "\n")


ROLES = {"organizer": ORGANIZER, "spectator": SPECTATOR}
