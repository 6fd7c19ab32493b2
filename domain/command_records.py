"""The record of a command (`CommandReceived`): what the match writes first in each command's write,
and what a verifier reads back from it (docs/verification.md, section 2); and the record of a join
(`SeatJoined`), whose join options cause the setup as a command causes its events.

Its public part names the seat, the command's type, the version the command was decided on and its
Idempotency-Key; the body, as the seat sent it, is public too, unless the ruleset declares the
type's body a secret (`SECRET_COMMANDS`: an assignment, a sealed card), when it is the record's
secret for the seat alone (and everyone once the match ends).
"""

from __future__ import annotations

from typing import Any

from domain.records import COMMAND_RECEIVED, JOIN_OPTIONS, SEAT_JOINED, json_copy
from domain.vocabulary import Event

# The public fields of a command's record; `body` is public exactly when the type's body holds no secret.
COMMAND_FIELDS = frozenset({"seat", "type", "decided_on", "idempotency_key"})
BODY = "body"
SIGNATURE = "signature"


def command_record(
    seat: str,
    command_type: str,
    body: dict,
    decided_on: int,
    idempotency_key: str | None,
    secret_body: bool,
    signature: str | None = None,
) -> Event:
    """The record of one command a seat sent: public, or with its body as a secret for the seat; a keyed seat's
    signature goes with the body (a public signature of a secret body would let anyone test guesses of it)."""
    public: dict[str, Any] = {
        "seat": seat,
        "type": command_type,
        "decided_on": decided_on,
        "idempotency_key": idempotency_key,
    }
    signed = {} if signature is None else {SIGNATURE: signature}
    if secret_body:
        return Event(COMMAND_RECEIVED, public, {BODY: json_copy(body), **signed}, (seat,))
    return Event(COMMAND_RECEIVED, {**public, BODY: json_copy(body), **signed})


def recorded_body(record: dict) -> Any:
    """The body a command's record holds: in its public part, or in its secret (None when not visible)."""
    if BODY in record["public"]:
        return record["public"][BODY]
    secret = record.get("secret")
    return secret.get(BODY) if isinstance(secret, dict) else None


def recorded_signature(record: dict) -> Any:
    """The seat's signature a command's record holds, beside its body (None when it holds none or it is hidden)."""
    if BODY in record["public"]:
        return record["public"].get(SIGNATURE)
    secret = record.get("secret")
    return secret.get(SIGNATURE) if isinstance(secret, dict) else None


def join_record(
    seat: str,
    name: str,
    client_seed: str,
    entrant_id: str | None,
    public_key: dict | None,
    options: dict | None,
) -> Event:
    """The record of a seat's join: public, with the join options the seat gave (a deck list) as its secret for
    the seat, so opponents learn them only when the match's secrets open and a verifier re-decides the setup."""
    public: dict[str, Any] = {"seat": seat, "name": name, "client_seed": client_seed}
    if entrant_id is not None:
        public["entrant_id"] = entrant_id
    if public_key is not None:
        public["public_key"] = json_copy(public_key)
    if not options:
        return Event(SEAT_JOINED, public)
    return Event(SEAT_JOINED, public, {JOIN_OPTIONS: json_copy(options)}, (seat,))


def recorded_options(record: dict) -> dict:
    """The join options a join's record holds ({} when the seat gave none, or they are not visible)."""
    secret = record.get("secret")
    options = secret.get(JOIN_OPTIONS) if isinstance(secret, dict) else None
    return options if isinstance(options, dict) else {}
