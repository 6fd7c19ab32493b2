"""A seat's commands as an export attributes them, each with whether the seat's own key signed it
(`gambit seat-commands`; docs/verification.md, "Players keep proof").

A player who kept its public key and its receipts lists every `CommandReceived` the record puts in its seat's
name: the version, the version it was decided on, the type, the Idempotency-Key, the body (or that the export
keeps it sealed) and the signature's standing under the key the seat held at that version (its `SeatJoined`
key, or the latest `SeatKeyChanged` before it). Given the key the player says is its own, a key the export
claims the seat registered, or an organizer's re-key, signs nothing in the player's name.

The listing reads the records as the export holds them; whether the export itself is the service's unbroken,
signed record is `gambit verify`'s to say.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from domain.command_records import BODY, recorded_body, recorded_signature
from domain.records import COMMAND_RECEIVED, SEAT_JOINED, SEAT_KEY_CHANGED
from domain.seat_keys import SignatureCheck, signed_message

# A command's standing: carries the seat's valid signature; was sent while the seat held no key; its body (and
# so what was signed) is a secret this export does not show; a keyed seat's command without a signature; a
# signature that does not hold (or one on a command of a seat that held no key); a signature that holds under
# the key the export says the seat held, which is not the key the player gave as its own.
SIGNED, UNSIGNED, SEALED, MISSING, INVALID, OTHER_KEY = (
    "signed",
    "unsigned",
    "sealed",
    "missing",
    "invalid",
    "other key",
)
NOT_SIGNED = frozenset({MISSING, INVALID, OTHER_KEY})
NOT_PROVEN = frozenset({UNSIGNED, SEALED})


@dataclass
class SeatKeyRecord:
    """A record that gave the seat a key (or none): where, which key, and whether it is the player's own."""

    version: int
    kind: str
    public_key: dict | None
    yours: bool | None  # None: no key of the player's was given to compare


@dataclass
class SeatCommand:
    """One command the record attributes to the seat, and its signature's standing."""

    version: int
    decided_on: Any
    type: Any
    idempotency_key: Any
    body: Any  # None when sealed
    sealed: bool
    signature: str
    detail: str


@dataclass
class SeatListing:
    """Every command an export attributes to one seat, with the seat's keys."""

    match_id: str
    ruleset: Any
    seat: str
    keys: list[SeatKeyRecord] = field(default_factory=list)
    commands: list[SeatCommand] = field(default_factory=list)
    yours_given: bool = False

    def failing(self) -> list[SeatCommand]:
        """Commands in the seat's name its key does not prove: with the player's key given, every one not signed
        by that key."""
        bad = NOT_SIGNED | ({UNSIGNED} if self.yours_given else frozenset())
        return [c for c in self.commands if c.signature in bad]

    def unproven(self) -> list[SeatCommand]:
        """Commands neither proven nor failing: sent while the seat held no key, or with a body this export seals."""
        counted = NOT_PROVEN - ({UNSIGNED} if self.yours_given else frozenset())
        return [c for c in self.commands if c.signature in counted]

    def as_dict(self) -> dict:
        """The listing as JSON (`gambit seat-commands --json`)."""
        return {
            "match_id": self.match_id,
            "ruleset": self.ruleset,
            "seat": self.seat,
            "ok": not self.failing(),
            "keys": [vars(k) for k in self.keys],
            "commands": [vars(c) for c in self.commands],
            "signed": sum(1 for c in self.commands if c.signature == SIGNED),
            "not_signed": [c.version for c in self.failing()],
            "unproven": [c.version for c in self.unproven()],
        }


def list_seat_commands(
    header: dict, records: list[dict], seat: str, holds: SignatureCheck, yours: dict | None = None
) -> SeatListing:
    """The commands `records` attribute to `seat`, each signature checked with `holds` against the key the seat
    held then, or (when given) against `yours`, the canonical key the player says is its own."""
    listing = SeatListing(str(header.get("match_id")), header.get("ruleset"), seat, yours_given=yours is not None)
    key: Any = None
    for record in records:
        kind, public = record.get("kind"), record.get("public")
        if not isinstance(public, dict) or public.get("seat") != seat:
            continue
        if kind in (SEAT_JOINED, SEAT_KEY_CHANGED):
            key = public.get("public_key")
            mine = None if yours is None or key is None else key == yours
            listing.keys.append(SeatKeyRecord(record["version"], kind, key, mine))
        elif kind == COMMAND_RECEIVED:
            listing.commands.append(_command(header, record, key, holds, yours))
    return listing


def _command(header: dict, record: dict, key: Any, holds: SignatureCheck, yours: dict | None) -> SeatCommand:
    """One command's entry: its body as shown, and its signature's standing under the key in force."""
    public, version = record["public"], record["version"]
    sealed = BODY not in public and not isinstance(record.get("secret"), dict)
    body = None if sealed else recorded_body(record)
    signature = recorded_signature(record)
    standing, detail = _standing(header["match_id"], version, body, sealed, signature, key, holds, yours)
    return SeatCommand(
        version,
        public.get("decided_on"),
        public.get("type"),
        public.get("idempotency_key"),
        body,
        sealed,
        standing,
        detail,
    )


def _standing(
    match_id: str,
    version: int,
    body: Any,
    sealed: bool,
    signature: Any,
    key: Any,
    holds: SignatureCheck,
    yours: dict | None,
) -> tuple[str, str]:
    """(standing, why) of a command's signature: the seat signs the match id, the version before the command's
    record (the one it was decided on) and the body as sent. With the player's own key given, only that key's
    signature proves the command the player's."""
    if key is None and yours is None:
        if signature is not None:
            return INVALID, "a signature, though the seat held no key to check it"
        return UNSIGNED, "sent while the seat held no key: the service alone says the seat sent it"
    if sealed:
        return (
            SEALED,
            "its body is a secret this export does not show (the organizer's export, or one taken after the end, shows it)",
        )
    if signature is None:
        if key is None:
            return UNSIGNED, "no signature: the export says the seat held no key then"
        return MISSING, "no signature, though the seat held a key"
    try:
        message = signed_message(match_id, version - 1, body)
    except ValueError:  # a body JSON cannot carry canonically: no seat signed it
        return INVALID, "the body cannot be encoded canonically, so no key signed it"
    if yours is not None and isinstance(signature, str) and holds(yours, message, signature):
        held = "" if key == yours else "; the export says the seat held another key then"
        return SIGNED, f"signed by your key{held}"
    if key is not None and isinstance(signature, str) and holds(key, message, signature):
        if yours is not None:
            return OTHER_KEY, "signed by a key the export says the seat held, which is not the key you gave"
        return SIGNED, "signed by the seat's key"
    whose = "your key's" if yours is not None else "the seat's key's"
    return INVALID, f"not {whose} signature of this match, version {version - 1} and this body"
