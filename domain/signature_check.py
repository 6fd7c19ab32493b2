"""The verifier's seat-signature check (docs/verification.md, section 2): every command of a seat that holds a key
carries that key's signature over this match, the version the command is decided on and the body as recorded.

A seat's key is the one its SeatJoined names, or the latest SeatKeyChanged before the command (the organizer's
re-key). Seats that held no key when they sent a command, or hold none, are listed as unsigned: their commands
are attributed to them by the service alone, never proven theirs.
"""

from __future__ import annotations

from typing import Any

from domain.command_records import BODY, recorded_body, recorded_signature
from domain.records import COMMAND_RECEIVED, SEAT_JOINED, SEAT_KEY_CHANGED
from domain.seat_keys import SignatureCheck, signed_message
from domain.verification_report import Report

CHECK = "seat signatures"
UNSIGNED_CHECK = "unsigned seats"


class Unsigned(Exception):
    """A command the record attributes to a keyed seat without that key's valid signature."""


def check_seat_signatures(report: Report, header: dict, records: list[dict], holds: SignatureCheck | None) -> None:
    """Check every keyed seat's command's signature with `holds` (the key library's check: without it, the
    signatures are counted as not checked); list the seats whose commands no key proves."""
    try:
        signed, hidden, unsigned = _signatures(header, records, holds)
    except Unsigned as finding:
        report.add(CHECK, False, str(finding))
        return
    report.unsigned_seats = unsigned
    if holds is None and (signed or hidden):
        report.add(CHECK, None, f"{signed + hidden} signatures of keyed seats not checked: no signature check given")
    elif signed or hidden:
        held = f"; {hidden} not checked, their bodies being secrets this export does not show" if hidden else ""
        report.add(CHECK, True, f"{signed} commands of keyed seats carry their seat's signature{held}")
    if unsigned:
        report.add(
            UNSIGNED_CHECK,
            None,
            f"{', '.join(unsigned)} sent commands without a registered key: the service alone says they sent them",
        )


def _signatures(header: dict, records: list[dict], holds: SignatureCheck | None) -> tuple[int, int, list[str]]:
    """(commands whose signature holds, keyed commands whose body is hidden, seats not proven by a key)."""
    keys: dict[str, Any] = {}
    unsigned: set[str] = set()
    signed = hidden = 0
    for record in records:
        kind, public, version = record["kind"], record["public"], record["version"]
        if kind in (SEAT_JOINED, SEAT_KEY_CHANGED):
            keys[public.get("seat")] = public.get("public_key")
            continue
        if kind != COMMAND_RECEIVED:
            continue
        seat = public.get("seat")
        key = keys.get(seat)
        if key is None:
            if recorded_signature(record) is not None:
                raise Unsigned(f"version {version}: a signature on a command of {seat}, who holds no key to check it")
            unsigned.add(str(seat))
            continue
        if BODY not in public and "secret" not in record:
            hidden += 1
            continue
        signature = recorded_signature(record)
        if holds is None:
            signed += 1  # counted, and reported as not checked
            continue
        if signature is None:
            raise Unsigned(f"version {version}: a command of {seat} without a signature, though {seat} holds a key")
        # The version before the record is the one the command was decided on: the one its seat signed.
        message = signed_message(header["match_id"], version - 1, recorded_body(record))
        if not isinstance(signature, str) or not holds(key, message, signature):
            raise Unsigned(
                f"version {version}: the signature is not {seat}'s key's signature of this match, "
                f"version {version - 1} and the recorded command"
            )
        signed += 1
    unkeyed = {seat for seat, key in keys.items() if key is None}
    return signed, hidden, sorted(unsigned | unkeyed)
