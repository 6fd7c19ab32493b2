"""The bounds the service keeps on what it records, and `gambit verify`'s check of them.

The service refuses a request that would record a value out of these bounds (service/matches.py,
service/disputes.py, service/clocks.py take them from here), so a record that breaks one is no
record the service wrote: the verifier fails it, even when the chain and a signature cover it.
The clock adjustments' own bounds (added seconds, who adjusts, pause before resume) are the clock
check's (domain/clock_verification.py); the match options' are domain/match_options.py's.
"""

from __future__ import annotations

import re
from typing import Any, TypeGuard
from uuid import UUID

from domain.clock import CLOCK_EXPIRED, CLOCK_PAUSED, CLOCK_RESUMED, TIME_ADDED, iso, parse_instant
from domain.export_reading import is_hex
from domain.match_options import split_config
from domain.records import (
    COMMAND_RECEIVED,
    DISPUTE_FILED,
    DISPUTE_RULED,
    JOIN_OPTIONS,
    MATCH_CREATED,
    MATCH_FINISHED,
    OUTCOME_AMENDED,
    RECORDS_CAUSES,
    SEAT_JOINED,
    SEAT_KEY_CHANGED,
)
from domain.ruleset import ConfigError
from domain.seat_keys import InvalidPublicKey, canonical_public_key, decoded_signature

# A seat's display name (POST /matches/{id}/join `name`).
MAX_NAME = 64
# A client seed: lowercase hex of at most 64 bytes (the service lowercases what a seat sends).
CLIENT_SEED = re.compile(r"(?:[0-9a-f]{2}){0,64}")
# An Idempotency-Key (the header of POST /matches/{id}/commands), as a command's record keeps it.
MAX_IDEMPOTENCY_KEY = 200
# A command's type: a ruleset's command names are short identifiers.
MAX_COMMAND_TYPE = 64
# A dispute's reason, a ruling's note, and a clock adjustment's note.
MAX_REASON = 2000
MAX_NOTE = 2000
# An amended outcome: at most this many winners, each a seat; its reason at most this long.
MAX_WINNERS = 16
MAX_OUTCOME_REASON = 200
# The decisions a ruling may give (domain/match.py DECISIONS).
DECISIONS = ("upheld", "overturned")
# A tournament entrant's id (domain/tournament.py: e1, e2, … in the order registered).
ENTRANT_ID = re.compile(r"e[1-9][0-9]{0,15}")
# A tournament's id as the match records it: the stored UUID's canonical text.
CANONICAL_UUID_LENGTH = 36
ORGANIZER = "organizer"

# The public fields of each record the match itself writes (docs/verification.md, section 2),
# with the optional ones after the bar: nothing more, nothing less.
PUBLIC_FIELDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    MATCH_CREATED: (
        frozenset({"match_id", "ruleset", "config", "seats", "tournament_id", "server_seed_commitment"}),
        frozenset({"entrants", RECORDS_CAUSES}),
    ),
    SEAT_JOINED: (frozenset({"seat", "name", "client_seed"}), frozenset({"entrant_id", "public_key"})),
    SEAT_KEY_CHANGED: (frozenset({"seat", "public_key", "by", "note"}), frozenset()),
    MATCH_FINISHED: (frozenset({"outcome", "server_seed"}), frozenset()),
    DISPUTE_FILED: (frozenset({"dispute", "call_version", "ruling_version", "reason", "filed_by"}), frozenset()),
    DISPUTE_RULED: (frozenset({"dispute", "call_version", "decision", "note", "amends_outcome"}), frozenset()),
    OUTCOME_AMENDED: (frozenset({"dispute", "outcome", "previous_outcome"}), frozenset()),
    CLOCK_EXPIRED: (frozenset({"seat", "deadline"}), frozenset()),
    CLOCK_PAUSED: (frozenset({"by", "note"}), frozenset({"dispute"})),
    CLOCK_RESUMED: (frozenset({"by", "note"}), frozenset()),
    TIME_ADDED: (frozenset({"by", "seat", "seconds", "note"}), frozenset()),
    COMMAND_RECEIVED: (
        frozenset({"seat", "type", "decided_on", "idempotency_key"}),
        frozenset({"body", "signature"}),
    ),
}

CHECK = "bounds"
TIMES = "timestamps"


class OutOfBounds(Exception):
    """A record the service could never have written; the message names its version."""


def is_whole(value: object) -> TypeGuard[int]:
    """Whether a JSON value is an integer (a bool or a float such as 5.0 is not)."""
    return type(value) is int


def is_text(value: object, shortest: int, longest: int) -> bool:
    """Whether a value is a string of `shortest` to `longest` characters."""
    return isinstance(value, str) and shortest <= len(value) <= longest


def check_bounds(report: Any, header: dict, records: list[dict]) -> None:
    """Add the `bounds` check: the match options, joins and disputes are within what the service records."""
    try:
        _check_options(header["config"])
        _check_records(header, records)
    except OutOfBounds as finding:
        report.add(CHECK, False, str(finding))
        return
    report.add(CHECK, True, "match options, joins and disputes within the bounds the service records")


def check_timestamps(report: Any, records: list[dict]) -> None:
    """Add the `timestamps` check: every record's time is an ISO 8601 instant with its offset, none before the one
    before it (the service stamps each record no earlier than the last, whatever its host's clock says)."""
    previous = None
    for record in records:
        try:
            at = parse_instant(record["timestamp"])
        except (TypeError, ValueError):
            report.add(
                TIMES, False, f"version {record['version']}: the timestamp is not an ISO 8601 instant with offset"
            )
            return
        if previous is not None and at < previous:
            report.add(
                TIMES,
                False,
                f"version {record['version']} is stamped {record['timestamp']}, before the record before it "
                f"({iso(previous)}): the service never stamps a record earlier than the last",
            )
            return
        previous = at
    report.add(TIMES, True, "every record stamped no earlier than the one before it")


def _check_options(config: dict) -> None:
    try:
        split_config(config)
    except ConfigError as exc:
        raise OutOfBounds(f"the config's match options are none the service accepts: {exc}") from None


def _check_records(header: dict, records: list[dict]) -> None:
    seats = set(header["seats"])
    disputes: dict[int, bool] = {}  # number → ruled
    finished = False
    outcome: object = None  # the outcome as it stands: MatchFinished's, then each amendment's
    amending: int | None = None  # the dispute whose OutcomeAmended must come next
    calls: dict[int, object] = {}  # dispute number → the call it disputes
    pairing: dict[str, str] = {}  # seat → the entrant paired to it (MatchCreated's `entrants`)
    held: set[str] = set()  # the entrants that joined a seat
    in_tournament = False
    records_causes = False
    for record in records:
        version, kind, public = record["version"], record["kind"], record["public"]
        _check_shape(record)
        if amending is not None and kind != OUTCOME_AMENDED:
            raise OutOfBounds(
                f"version {version}: the ruling before it amends the outcome, but no OutcomeAmended follows"
            )
        if kind == MATCH_CREATED:
            _check_tournament(version, public.get("tournament_id"))
            pairing = _check_pairing(version, public, seats)
            in_tournament = public.get("tournament_id") is not None
            if RECORDS_CAUSES in public and public[RECORDS_CAUSES] is not True:
                raise OutOfBounds(f"version {version}: MatchCreated's {RECORDS_CAUSES} is not true")
            records_causes = RECORDS_CAUSES in public
        elif kind == SEAT_JOINED:
            _check_join(version, public)
            _check_join_options(record, records_causes)
            if "entrant_id" in public and not in_tournament:
                raise OutOfBounds(f"version {version}: an entrant joins a match of no tournament")
            _check_entrant_join(version, public, pairing, held)
        elif kind == DISPUTE_FILED:
            _check_filed(version, public, seats, len(disputes) + 1)
            disputes[public["dispute"]] = False
            calls[public["dispute"]] = public["call_version"]
        elif kind == DISPUTE_RULED:
            _check_ruled(version, public, disputes, finished)
            if public.get("call_version") != calls[public["dispute"]]:
                raise OutOfBounds(f"version {version}: the ruling names another call than its dispute")
            disputes[public["dispute"]] = True
            amending = public["dispute"] if public["amends_outcome"] else None
        elif kind == OUTCOME_AMENDED:
            if amending is None or public.get("dispute") != amending:
                raise OutOfBounds(f"version {version}: an OutcomeAmended that no ruling before it announces")
            _check_amended(version, public.get("outcome"), seats)
            if public.get("previous_outcome") != outcome:
                raise OutOfBounds(f"version {version}: the amendment's previous_outcome is not the outcome it replaces")
            outcome = public.get("outcome")
            amending = None
        elif kind == MATCH_FINISHED:
            finished = True
            outcome = public.get("outcome")
        elif kind == COMMAND_RECEIVED:
            _check_command(record, seats)
        elif kind == SEAT_KEY_CHANGED:
            _check_rekey(version, public, seats, finished)
    if amending is not None:
        raise OutOfBounds("the export ends before the OutcomeAmended its last ruling announces")


def _check_shape(record: dict) -> None:
    (
        """A record the match itself writes has exactly its public fields, and only MatchCreated a secret (the seed), but
    for a command's or a join's own secret."""
        ""
    )
    fields = PUBLIC_FIELDS.get(record["kind"])
    if fields is None:
        return  # a ruleset's record: the replay checks it
    version, kind, public = record["version"], record["kind"], record["public"]
    required, optional = fields
    if not required <= public.keys() <= required | optional:
        odd = sorted(public.keys() - required - optional) or sorted(required - public.keys())
        raise OutOfBounds(f"version {version}: a {kind} whose public fields are not the ones it has ({odd[0]!r})")
    if kind in (COMMAND_RECEIVED, SEAT_JOINED):
        return  # its secret, a secret command's body or the seat's join options, is _check_command's or _check_records's
    if kind != MATCH_CREATED:
        if record.get("commitment") is not None:
            raise OutOfBounds(f"version {version}: a {kind} with a secret, which it never has")
        return
    secret = record.get("secret")
    if record.get("commitment") is None or (
        secret is not None and not (secret.keys() == {"server_seed"} and is_hex(secret["server_seed"], 64))
    ):
        raise OutOfBounds(f"version {version}: MatchCreated's secret is not the server seed alone")


def _check_command(record: dict, seats: set[str]) -> None:
    """A command's record names a seat, its type, the version before it and its key; its body is public or the
    record's only secret, for that seat alone, and is a command of its type."""
    version, public = record["version"], record["public"]
    seat, command_type = public.get("seat"), public.get("type")
    if not isinstance(seat, str) or seat not in seats:
        raise OutOfBounds(f"version {version}: a command of {seat!r}, which is no seat of the match")
    if not is_text(command_type, 1, MAX_COMMAND_TYPE):
        raise OutOfBounds(
            f"version {version}: a command whose type is not a name of 1 to {MAX_COMMAND_TYPE} characters"
        )
    if public.get("decided_on") != version - 1 or not is_whole(public.get("decided_on")):
        raise OutOfBounds(f"version {version}: a command decided on another version than the one before it")
    key = public.get("idempotency_key")
    if key is not None and not is_text(key, 1, MAX_IDEMPOTENCY_KEY):
        raise OutOfBounds(f"version {version}: an Idempotency-Key must be 1 to {MAX_IDEMPOTENCY_KEY} characters")
    if "signature" in public and "body" not in public:
        raise OutOfBounds(f"version {version}: a public signature of a secret command body")
    if "body" in public:
        body = public["body"]
        _check_signature_text(version, public.get("signature", ""))
        if record.get("commitment") is not None:
            raise OutOfBounds(f"version {version}: a command with a public body and a secret")
    else:
        secret = record.get("secret")
        if record.get("commitment") is None or record.get("audience") != [seat]:
            raise OutOfBounds(f"version {version}: a command without a public body is not a secret for its seat")
        if secret is None:
            return  # not visible to this viewer: its commitment stands for it
        if not isinstance(secret, dict) or not {"body"} <= secret.keys() <= {"body", "signature"}:
            raise OutOfBounds(f"version {version}: a command's secret is not its body (and signature) alone")
        body = secret["body"]
        _check_signature_text(version, secret.get("signature", ""))
    if not isinstance(body, dict) or body.get("type") != command_type:
        raise OutOfBounds(f"version {version}: the command's body is not an object of its type")


def _check_signature_text(version: int, signature: object) -> None:
    """A recorded signature ('' for none) is base64 of 64 bytes."""
    if signature != "" and decoded_signature(signature) is None:
        raise OutOfBounds(f"version {version}: a command's signature is not base64 of 64 bytes")


def _check_tournament(version: int, tournament_id: object) -> None:
    """A match belongs to no tournament or names one by its canonical id (the service records the stored id)."""
    if tournament_id is None:
        return
    if not isinstance(tournament_id, str) or len(tournament_id) != CANONICAL_UUID_LENGTH:
        raise OutOfBounds(f"version {version}: the tournament_id is not a tournament's id")
    try:
        canonical = str(UUID(tournament_id))
    except ValueError:
        canonical = None
    if canonical != tournament_id:
        raise OutOfBounds(f"version {version}: the tournament_id is not a tournament's id")


def _check_pairing(version: int, public: dict, seats: set[str]) -> dict[str, str]:
    """A pairing (MatchCreated's optional `entrants`) maps seats of a tournament's match to distinct entrant ids."""
    if "entrants" not in public:
        return {}
    pairing = public["entrants"]
    if (
        public.get("tournament_id") is None
        or not isinstance(pairing, dict)
        or not pairing
        or not all(seat in seats and _is_entrant_id(e) for seat, e in pairing.items())
        or len(set(pairing.values())) != len(pairing)
    ):
        raise OutOfBounds(
            f"version {version}: the pairing does not map seats of a tournament's match to distinct entrant ids"
        )
    return dict(pairing)


def _is_entrant_id(value: object) -> bool:
    return isinstance(value, str) and ENTRANT_ID.fullmatch(value) is not None


def _check_entrant_join(version: int, public: dict, pairing: dict[str, str], held: set[str]) -> None:
    """A seat paired to an entrant is joined by that entrant; an entrant holds at most one seat of a match."""
    entrant_id = public.get("entrant_id")
    paired = pairing.get(public.get("seat"))  # type: ignore[arg-type]  # the header check holds seats to strings
    if "entrant_id" in public and not _is_entrant_id(entrant_id):
        raise OutOfBounds(f"version {version}: the join's entrant_id is not an entrant's id")
    if paired is not None and entrant_id != paired:
        raise OutOfBounds(f"version {version}: seat {public.get('seat')!r} is paired to {paired}, who did not join it")
    if entrant_id is not None:
        if entrant_id in held:
            raise OutOfBounds(f"version {version}: entrant {entrant_id} joins a second seat of the match")
        held.add(entrant_id)


def _check_join(version: int, public: dict) -> None:
    if "public_key" in public:
        _check_key(version, public["public_key"])
    if not is_text(public.get("name"), 1, MAX_NAME):
        raise OutOfBounds(f"version {version}: a seat's name must be 1 to {MAX_NAME} characters")
    seed = public.get("client_seed")
    if not isinstance(seed, str) or CLIENT_SEED.fullmatch(seed) is None:
        raise OutOfBounds(f"version {version}: the client seed is not lowercase hex of at most 64 bytes")


def _check_join_options(record: dict, records_causes: bool) -> None:
    """A join's only secret is the join options its seat gave (an object, not empty), for that seat alone, in a
    match that records the causes of its writes."""
    version, seat = record["version"], record["public"].get("seat")
    if record.get("commitment") is None:
        return
    if not records_causes or record.get("audience") != [seat]:
        raise OutOfBounds(f"version {version}: a SeatJoined with a secret that is not its seat's join options")
    secret = record.get("secret")
    if secret is not None and not (
        isinstance(secret, dict)
        and secret.keys() == {JOIN_OPTIONS}
        and isinstance(secret[JOIN_OPTIONS], dict)
        and secret[JOIN_OPTIONS]
    ):
        raise OutOfBounds(f"version {version}: a SeatJoined's secret is not the seat's join options alone")


def _check_key(version: int, key: object) -> None:
    """A seat's key is recorded in exactly its canonical form (base64 SPKI), so one key has one spelling."""
    try:
        canonical = canonical_public_key(key)
    except InvalidPublicKey as exc:
        raise OutOfBounds(f"version {version}: a seat's public key is no key: {exc}") from None
    if canonical != key:
        raise OutOfBounds(f"version {version}: a seat's public key is not in its canonical form (base64 SPKI)")


def _check_rekey(version: int, public: dict, seats: set[str], finished: bool) -> None:
    """The organizer re-keys a seat of the match, with a note, while it runs."""
    if public.get("seat") not in seats or public.get("by") != ORGANIZER:
        raise OutOfBounds(f"version {version}: a SeatKeyChanged not made by the organizer for a seat of the match")
    if finished:
        raise OutOfBounds(f"version {version}: a seat re-keyed after the match finished")
    if not is_text(public.get("note"), 0, MAX_NOTE):
        raise OutOfBounds(f"version {version}: a note must be at most {MAX_NOTE} characters")
    _check_key(version, public.get("public_key"))


def _check_filed(version: int, public: dict, seats: set[str], number: int) -> None:
    if public.get("dispute") != number or not is_whole(public.get("dispute")):
        raise OutOfBounds(f"version {version}: disputes are numbered 1, 2, … in order; this one should be {number}")
    for name in ("call_version", "ruling_version"):
        if not (is_whole(public.get(name)) and 1 <= public[name] < version):
            raise OutOfBounds(f"version {version}: the dispute's {name} is not an earlier version")
    if not is_text(public.get("reason"), 1, MAX_REASON):
        raise OutOfBounds(f"version {version}: a dispute's reason must be 1 to {MAX_REASON} characters")
    filed_by = public.get("filed_by")
    if not isinstance(filed_by, str) or (filed_by not in seats and filed_by != ORGANIZER):
        raise OutOfBounds(f"version {version}: a dispute filed by {filed_by!r}, neither a seat nor the organizer")


def _check_ruled(version: int, public: dict, disputes: dict[int, bool], finished: bool) -> None:
    number = public.get("dispute")
    if not is_whole(number) or number not in disputes:
        raise OutOfBounds(f"version {version}: a ruling on dispute {number!r}, which was not filed before it")
    if disputes[number]:
        raise OutOfBounds(f"version {version}: a second ruling on dispute {number}")
    if public.get("decision") not in DECISIONS:
        raise OutOfBounds(f"version {version}: the decision is not one of {', '.join(DECISIONS)}")
    if not is_text(public.get("note"), 0, MAX_NOTE):
        raise OutOfBounds(f"version {version}: a ruling's note must be a text of at most {MAX_NOTE} characters")
    if not isinstance(public.get("amends_outcome"), bool):
        raise OutOfBounds(f"version {version}: the ruling does not say whether it amends the outcome")
    if public["amends_outcome"] and not finished:
        raise OutOfBounds(f"version {version}: a ruling amends the outcome of a match that has not finished")


def _check_amended(version: int, outcome: object, seats: set[str]) -> None:
    if not isinstance(outcome, dict):
        raise OutOfBounds(f"version {version}: the amended outcome is not an object")
    winners = outcome.get("winners")
    if (
        not isinstance(winners, list)
        or len(winners) > MAX_WINNERS
        or not all(isinstance(w, str) and w in seats for w in winners)
        or len(set(winners)) != len(winners)
    ):
        raise OutOfBounds(
            f"version {version}: the amended outcome's winners are not distinct seats (at most {MAX_WINNERS})"
        )
    if "reason" in outcome and not is_text(outcome["reason"], 1, MAX_OUTCOME_REASON):
        raise OutOfBounds(
            f"version {version}: the amended outcome's reason must be 1 to {MAX_OUTCOME_REASON} characters"
        )
