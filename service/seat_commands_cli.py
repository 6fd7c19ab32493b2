"""`gambit seat-commands`: every command an export attributes to one seat, and whether the seat's key signed it
(docs/verification.md, "Players keep proof")."""

from __future__ import annotations

import json
import os
import sys
from typing import TextIO

from domain.seat_commands import SIGNED, SeatListing, list_seat_commands
from domain.seat_keys import InvalidPublicKey, canonical_public_key

# The same exit codes as `gambit verify`: 0 proven, 1 not, 2 a usage error, 3 nothing failed but some
# commands are not proven (sent without a key, or sealed in this export).
EXIT_PROVEN, EXIT_NOT_SIGNED, EXIT_USAGE, EXIT_UNPROVEN = 0, 1, 2, 3
MARKS = {SIGNED: "ok  "}


class UsageError(Exception):
    """An export, seat or key that cannot be used: a one-line message and exit code 2."""


def load_seat_key(path: str) -> dict:
    """The key a player kept as its own, canonical: a JSON file holding `{"alg", "key"}` as the join sent it
    (raw or SPKI base64), or a join request body or a `SeatJoined` record's public part holding it as
    `public_key`."""
    try:
        with open(path, encoding="utf-8") as handle:
            value = json.loads(handle.read())
    except OSError as exc:
        raise UsageError(f"cannot read the public key file {path}: {exc.strerror or exc}") from None
    except (ValueError, RecursionError):  # RecursionError: JSON nested too deeply to read
        raise UsageError(f'{path} is not JSON: save your key as {{"alg": …, "key": …}}') from None
    if isinstance(value, dict) and isinstance(value.get("public_key"), dict):
        value = value["public_key"]
    try:
        return canonical_public_key(value)
    except InvalidPublicKey as exc:
        raise UsageError(f"{path} holds no seat key: {exc}") from None


def _read(path: str) -> tuple[dict, list[dict]]:
    """The header and records of an export file; UsageError when it is none."""
    from domain.export_reading import Malformed, parse_export

    if not os.path.isfile(path):
        raise UsageError(f"no export at {path}")
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as handle:
            parsed = parse_export(handle)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    except Malformed as exc:
        raise UsageError(f"{path} is not a well-formed export ({exc}): `gambit verify` says more") from None
    return parsed.header, parsed.records


def render(listing: SeatListing, out: TextIO) -> None:
    """The readable listing: the seat's keys, one line per command, and a verdict line."""
    out.write(f"seat {listing.seat} in match {listing.match_id} ({listing.ruleset})\n")
    for key in listing.keys:
        alg = key.public_key.get("alg") if isinstance(key.public_key, dict) else None
        mine = {True: ", yours", False: ", NOT the key you gave", None: ""}[key.yours]
        out.write(f"  key  v{key.version} {key.kind}: {alg or 'no key'}{mine}\n")
    failing, unproven = listing.failing(), listing.unproven()
    failed_versions = {c.version for c in failing}
    for command in listing.commands:
        body = "(sealed)" if command.sealed else json.dumps(command.body, sort_keys=True)
        idempotency = "" if command.idempotency_key is None else f" key={command.idempotency_key}"
        out.write(
            f"  [{MARKS.get(command.signature, 'FAIL' if command.version in failed_versions else 'skip')}] "
            f"v{command.version} (decided on v{command.decided_on}) {command.type}{idempotency} {body}: "
            f"{command.signature}: {command.detail}\n"
        )
    total = len(listing.commands)
    if failing:
        versions = ", ".join(f"v{c.version}" for c in failing)
        out.write(f"NOT SIGNED  {len(failing)} of {total} commands attributed to {listing.seat}: {versions}\n")
    elif unproven:
        out.write(
            f"UNPROVEN  {len(unproven)} of {total} commands attributed to {listing.seat} carry no signature this "
            "export can check\n"
        )
    else:
        out.write(f"SIGNED  all {total} commands attributed to {listing.seat} carry its signature\n")


def run_seat_commands(
    path: str,
    seat: str,
    public_key: str | None = None,
    as_json: bool = False,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """List the commands an export attributes to `seat`, each signature checked against the key the seat held
    then (or, with `public_key`, a file holding the key the player kept as its own).

    Exit code: 0 every command is signed by the seat (by the given key); 1 some command is not (no signature,
    one that does not hold, another key's; with a key given, also one sent while the export says the seat held
    no key); 3 none is unsigned that way, but some carry no signature this export can check (sent while the seat
    held no key, or sealed); 2 a missing or unreadable export or key file, or a seat the match does not have.
    """
    out, err = out or sys.stdout, err or sys.stderr
    try:
        header, records = _read(path)
        seats = header.get("seats")
        if not isinstance(seats, list) or seat not in seats:
            raise UsageError(f"match {header.get('match_id')} has no seat {seat!r} (its seats: {seats})")
        yours = None if public_key is None else load_seat_key(public_key)
    except UsageError as exc:
        err.write(f"gambit seat-commands: {exc}\n")
        return EXIT_USAGE
    from service.seat_signatures import seat_signature_holds

    listing = list_seat_commands(header, records, seat, seat_signature_holds, yours)
    if as_json:
        out.write(json.dumps(listing.as_dict(), indent=2) + "\n")
    else:
        render(listing, out)
    return _exit_code(listing)


def _exit_code(listing: SeatListing) -> int:
    if listing.failing():
        return EXIT_NOT_SIGNED
    return EXIT_UNPROVEN if listing.unproven() else EXIT_PROVEN
