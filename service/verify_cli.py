"""`gambit verify` and `gambit export`: offline checking and exporting of matches and tournaments."""

from __future__ import annotations

import json
import os
import sys
from typing import TextIO

from domain.ruleset import ORGANIZER, SPECTATOR
from domain.verification import Report, verify_export
from service.signing import verify_receipt

MARKS = {"pass": "ok  ", "fail": "FAIL", "skip": "skip"}


def load_public_key(value: str) -> str:
    """A public key from base64, a file holding it, or a saved /.well-known/gambit-signing-key document."""
    text = open(value).read().strip() if os.path.exists(value) else value.strip()
    if text.startswith("{"):
        return json.loads(text)["public_key"]
    return text


def export_files(path: str) -> list[str]:
    """The export files to verify: the file itself, or every *.ndjson in a directory (a tournament)."""
    if os.path.isdir(path):
        return sorted(os.path.join(path, name) for name in os.listdir(path) if name.endswith(".ndjson"))
    return [path]


def render(report: Report, out: TextIO) -> None:
    """A readable report."""
    verdict = "VERIFIED" if report.ok else "FAILED"
    out.write(f"{verdict}  {report.source}\n  match {report.match_id} ({report.ruleset}), {report.records} records\n")
    for check in report.checks:
        out.write(f"  [{MARKS[check.status]}] {check.name}: {check.detail}\n")
    for call in report.calls:
        out.write(f"  call at v{call.get('call_version')} by {call.get('caller')} on {call.get('claimant')}'s claim "
                  f"{call.get('power') or call.get('claim') or ''}: verdict {call.get('verdict')} "
                  f"(ruling v{call['ruling_version']}, evidence {call['evidence']})\n")
    for dispute in report.disputes:
        out.write(f"  {dispute['kind']} v{dispute['version']}: dispute {dispute.get('dispute')} "
                  f"{dispute.get('decision') or dispute.get('reason') or ''}\n")


def run_verify(path: str, key: str | None, as_json: bool, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    """Verify one export or a directory of them; returns the exit code (0 only if all verify)."""
    files = export_files(path)
    if not files:
        err.write(f"gambit verify: no exports at {path}\n")
        return 2
    public_key = load_public_key(key) if key else None
    check = (lambda trailer: verify_receipt(public_key, trailer)) if public_key else None
    reports = []
    for name in files:
        def progress(done: int, name: str = name) -> None:
            err.write(f"\r{os.path.basename(name)}: {done} records checked")
            err.flush()

        with open(name, encoding="utf-8") as handle:
            report = verify_export(handle, name, check_signature=check, progress=progress)
        err.write("\r" if report.records >= 1000 else "")
        reports.append(report)
        if not as_json:
            render(report, out)
    if as_json:
        out.write(json.dumps({"ok": all(r.ok for r in reports), "reports": [r.as_dict() for r in reports]}, indent=2))
        out.write("\n")
    return 0 if all(r.ok for r in reports) else 1


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
        if output:
            with open(output, "w", encoding="utf-8") as handle:
                _write_export(gambit, match_id, role, handle, viewer_for, export_lines, as_json)
        else:
            _write_export(gambit, match_id, role, sys.stdout, viewer_for, export_lines, as_json)
        return 0
    finally:
        gambit.close()


def _write_export(gambit, match_id, role, handle, viewer_for, export_lines, as_json) -> None:
    match = gambit.matches.match(match_id)
    for line in export_lines(gambit.matches, match, viewer_for(match, role)):
        handle.write(line)
    handle.write(as_json({"trailer": "gambit-receipt/1", **gambit.receipt_for(match)}) + "\n")


ROLES = {"organizer": ORGANIZER, "spectator": SPECTATOR}
