"""Errors the match, clock and tournament services raise; each has a stable `code` the service maps to HTTP."""

from __future__ import annotations

from typing import Any


class MatchError(Exception):
    """A request the match cannot take; `code` is stable across releases."""

    code = "match_error"

    def __init__(self, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        self.extra: dict[str, Any] = extra


class MatchNotFound(MatchError):
    """No match has that id."""

    code = "match_not_found"


class UnknownRuleset(MatchError):
    """The ruleset id names no game this service plays."""

    code = "unknown_ruleset"


class InvalidConfig(MatchError):
    """The config does not fit the ruleset."""

    code = "invalid_config"


class InvalidJoinOptions(MatchError):
    """The join options (e.g. a deck list) do not fit the ruleset."""

    code = "invalid_join_options"


class SeatUnavailable(MatchError):
    """The requested seat does not exist or is taken, or every seat is taken."""

    code = "seat_unavailable"


class VersionMismatch(MatchError):
    """The client's expected version (If-Match) is not the match's current version."""

    code = "version_mismatch"


class ConcurrentWrite(MatchError):
    """Another command was stored first; re-read and retry."""

    code = "concurrent_write"


class IdempotencyKeyReused(MatchError):
    """The same Idempotency-Key was sent with a different command."""

    code = "idempotency_key_reused"


class DisputeRejected(MatchError):
    """A dispute or ruling the match cannot take; `rule` says why (unknown_call, dispute_already_ruled, …)."""

    code = "dispute_rejected"

    def __init__(self, rule: str, detail: str) -> None:
        super().__init__(detail, rule=rule)
        self.rule = rule


class TournamentNotFound(MatchError):
    """No tournament has that id."""

    code = "tournament_not_found"


class UnknownTournament(MatchError):
    """A match was created for a tournament that does not exist."""

    code = "unknown_tournament"


class IntegrityAlert(MatchError):
    """The stored match is not what this service wrote (a broken chain, an edited record, records
    past the newest receipt); it takes no write until an operator has looked."""

    code = "integrity_alert"


class PartitionUnavailable(MatchError):
    """The event store holding the match (its partition) does not answer; matches in other partitions are unaffected."""

    code = "partition_unavailable"


class EntrantNotFound(MatchError):
    """The tournament has no entrant of that id."""

    code = "entrant_not_found"


class InvalidPairing(MatchError):
    """A match's pairing names an unknown entrant or seat, or one entrant on two seats (a body that does not fit)."""

    code = "invalid_body"


class InvalidInvite(MatchError):
    """The invite is not a current invite of the match's tournament."""

    code = "invalid_invite"


class SeatReserved(MatchError):
    """The seat is paired to an entrant, and only that entrant's invite takes it."""

    code = "seat_reserved"


class WrongSeatForInvite(MatchError):
    """The invite's entrant is paired to another seat of this match than the one asked for."""

    code = "invalid_body"


class SignatureRequired(MatchError):
    """The seat registered a public key, and the command came without its `Gambit-Signature`."""

    code = "signature_required"


class InvalidSignature(MatchError):
    """The `Gambit-Signature` is not base64 of 64 bytes, or not the seat key's signature of this match, the
    version the command is decided on and the command body."""

    code = "invalid_signature"


class InvalidSeatKey(MatchError):
    """A seat's public key names an unknown algorithm, or its bytes are no key of it."""

    code = "invalid_public_key"


class RekeyRefused(MatchError):
    """A seat's key cannot be changed now: the seat has not joined, or the match has finished."""

    code = "rekey_refused"
