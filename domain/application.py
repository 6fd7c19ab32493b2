"""The match service: create a match, seat players, run one command, file and rule disputes, read a match.

Each write answers with what it stored (`Written`: its versions, the match, the records and the
receipt), so a caller answers from that one call. The service shares the one match store
(domain/store.py) with the clock service (domain/clock_service.py), through which every write
first records the expiries due, and the tournament service (domain/tournament_service.py).
`open_matches` builds the three on one store, as the service and the tools use them.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable, Sequence
from typing import Any

from eventsourcing.persistence import IntegrityError

from domain import clock, rulesets
from domain.clock_service import ClockService
from domain.errors import (
    ConcurrentWrite,
    DisputeRejected,
    IdempotencyKeyReused,
    InvalidConfig,
    InvalidInvite,
    InvalidJoinOptions,
    InvalidPairing,
    SeatReserved,
    SeatUnavailable,
    TournamentNotFound,
    UnknownRuleset,
    UnknownTournament,
    VersionMismatch,
    WrongSeatForInvite,
)
from domain.integrity import ReceiptSigner
from domain.match import Match
from domain.match_options import split_config
from domain.partitions import PartitionedStore
from domain.recent import REMEMBERED_MATCHES
from domain.record_bounds import MAX_NAME
from domain.records import OUTCOME_AMENDED, canonical, sha256_hex
from domain.ruleset import Command, ConfigError, RuleViolation, config_from_dict, config_to_dict
from domain.seat_keys import SignatureCheck, canonical_seat_key
from domain.store import MatchStore, Written, token_hash
from domain.tournament_service import TournamentService

# How many records after a bluff call its ruling may come: a Final Gambit is ruled when its round
# ends, a few dozen records later at most.
RULING_SEARCH = 1000


def command_fingerprint(command: Command) -> str:
    """A digest of a command body, to tell a retry from a different command under the same key."""
    return sha256_hex(canonical(command.body()))


class MatchService:
    """Matches in the shared store: create, join, act, dispute, and read at any version."""

    def __init__(
        self,
        store: MatchStore | PartitionedStore,
        clocks: ClockService,
        tournaments: TournamentService,
        max_disputes_per_filer: int | None = None,
        seat_signatures: SignatureCheck | None = None,
    ) -> None:
        """The matches of `store`, whose writes record the expiries due through `clocks`, and whose tournaments
        are `tournaments`'; `max_disputes_per_filer` caps the disputes one seat (or the organizer) files in one
        match; `seat_signatures` checks a keyed seat's signatures (without it, keyed seats' commands are refused)."""
        self.store = store
        self.clocks = clocks
        self.tournaments = tournaments
        self.max_disputes_per_filer = max_disputes_per_filer
        self.seat_signatures = seat_signatures

    # ----- writes -------------------------------------------------------------------------
    def create_match(
        self,
        ruleset_id: str,
        config: dict | None,
        tournament_id: str | None = None,
        entrants: dict[str, str] | None = None,
    ) -> Match:
        """Create a match with a fresh server seed, committed in its first record, with its pairing (seat → entrant
        of its tournament), if any."""
        try:
            ruleset = rulesets.get(ruleset_id)
        except KeyError:
            raise UnknownRuleset(f"unknown ruleset {ruleset_id!r}", available=rulesets.available()) from None
        try:
            ruleset_config, options = split_config(config)
            parsed = config_from_dict(ruleset.Config, ruleset_config)
        except ConfigError as exc:
            raise InvalidConfig(str(exc), field=exc.field) from None
        tournament = None
        if tournament_id is not None:
            try:
                tournament = self.tournaments.tournament(tournament_id)
            except TournamentNotFound:
                raise UnknownTournament(f"no tournament {tournament_id!r}") from None
            tournament_id = tournament.tournament_id
        seats = list(ruleset.seat_names(parsed))
        if entrants:
            self._check_pairing(entrants, seats, None if tournament is None else set(tournament.entrants))
        server_seed = secrets.token_bytes(32)
        match = Match.open(
            self.store.new_match_id(),
            ruleset_id,
            {**config_to_dict(parsed), **options.to_dict()},
            tournament_id,
            server_seed,
            hashlib.sha256(server_seed).hexdigest(),
            seats,
            entrants,
        )
        self.store.commit(match, match.version)
        return match

    @staticmethod
    def _check_pairing(entrants: dict[str, str], seats: list[str], registered: set[str] | None) -> None:
        """A pairing names seats of the match, each a different entrant of its tournament; InvalidPairing otherwise."""
        if registered is None:
            raise InvalidPairing("only a match of a tournament pairs its seats to entrants (give tournament_id)")
        for seat, entrant_id in entrants.items():
            if seat not in seats:
                raise InvalidPairing(f"the pairing names seat {seat!r}, which this match does not have", seats=seats)
            if entrant_id not in registered:
                raise InvalidPairing(f"the pairing names entrant {entrant_id!r}, who is not in this tournament")
        if len(set(entrants.values())) != len(entrants):
            raise InvalidPairing("the pairing puts one entrant on two seats")

    def join(
        self,
        match_id: str,
        name: str | None,
        seat: str | None = None,
        client_seed: str = "",
        options: dict | None = None,
        invite: str | None = None,
        public_key: dict | None = None,
    ) -> tuple[str, str, Written]:
        """Take a seat (the requested one, or the first free one not paired to an entrant; with a tournament entrant's
        invite, the entrant's paired seat); returns the seat, its bearer token, what was stored.

        Without an invite `name` is required; with one it defaults to the entrant's (cut to a seat name's length).
        `public_key` is the seat's key as sent (`{"alg", "key"}`), recorded in its canonical form.
        """
        key = None if public_key is None else canonical_seat_key(public_key)
        token = secrets.token_urlsafe(32)
        entrant = None if invite is None else self._entrant_of_invite(self.match(match_id), invite)
        entrant_id = None if entrant is None else entrant["entrant_id"]
        shown = name if name is not None else (entrant or {}).get("name", "")[:MAX_NAME]

        def take_seat(match: Match) -> str:
            chosen = self._seat_for(match, seat, entrant_id)
            options_taken = self._join_options(match, chosen, options)
            match.join(chosen, shown, client_seed, token_hash(token), options_taken, entrant_id, key, options)
            return chosen

        chosen, written = self.clocks.write(match_id, take_seat)
        return chosen, token, written

    def act(
        self,
        match_id: str,
        seat: str,
        command: Command,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
        loaded: Match | None = None,
        sent: dict | None = None,
        signature: str | None = None,
    ) -> Written:
        """Run one command; returns what it stored: its versions, the match, its records and receipt.

        `sent` is the body as the seat sent it, which the command's record keeps (the command's own
        body when not given); `signature` is its Gambit-Signature, which a keyed seat's command needs
        (checked after a retry is answered, so a retry answers as the first attempt did).

        A repeated Idempotency-Key returns what the first attempt stored (read back from the
        store), so the retry is answered exactly as the first was. `loaded` is the match as the
        caller just loaded it (to authenticate), so it is not loaded twice.
        """
        match = loaded if loaded is not None else self.match(match_id)
        at = clock.fresh_now()  # the command's instant: its deadline check and its records' timestamps
        # Only a keyed command is told apart from a retry, so only it needs its body's digest.
        fingerprint = "" if idempotency_key is None else command_fingerprint(command)
        if idempotency_key is not None:
            earlier = self._remembered(match, seat, idempotency_key, fingerprint)
            if earlier is not None:
                return earlier
        match = self.clocks.refuse_if_late(match, seat, at)
        if expected_version is not None and expected_version != match.version:
            raise VersionMismatch(
                f"the match is at version {match.version}, not {expected_version}", current_version=match.version
            )
        if match.status != "active":
            raise RuleViolation(
                "match_not_active", f"the match is {match.status}; commands are taken while it is active"
            )
        idempotency = (
            None if idempotency_key is None else {"seat": seat, "key": idempotency_key, "fingerprint": fingerprint}
        )
        body = sent if sent is not None else command.body()
        match.check_signature(seat, body, signature, self.seat_signatures)
        self.store.refuse_if_tampered(match)
        with clock.at_instant(at):
            first, _ = match.act(
                seat,
                command,
                idempotency,
                evidence=lambda v: self.store.evidence(match.id, v),
                sent=body,
                signature=signature,
            )
        try:
            return self.store.commit(match, first)
        except IntegrityError:
            if idempotency_key is not None:
                again = self._remembered(self.match(match_id), seat, idempotency_key, fingerprint)
                if again is not None:
                    return again
            raise ConcurrentWrite("another command was recorded first; re-read the match and retry") from None

    def rekey(self, match_id: str, seat: str, public_key: dict, note: str) -> Written:
        """The organizer gives a joined seat a new public key (as sent, recorded canonical); returns what it stored."""
        key = canonical_seat_key(public_key)
        return self.clocks.write(match_id, lambda match: match.rekey(seat, key, note))[1]

    def file_dispute(
        self, match_id: str, call_version: int, reason: str, filed_by: str, pause_clock: bool = False
    ) -> tuple[int, Written]:
        """Record a dispute against a bluff call (and, when the organizer asks, pause the clocks in the same
        write); returns its number and what the write stored."""
        cap = self.max_disputes_per_filer

        def file(match: Match) -> int:
            number = match.file_dispute(call_version, self.ruling_of(match, call_version), reason, filed_by, cap)
            if pause_clock:
                match.pause_clock(f"dispute {number} is being looked at", number)
            return number

        number, written = self.clocks.write(match_id, file)
        return number, written

    def ruling_of(self, match: Match, call_version: int) -> int:
        """The version of the ruling on the bluff call at `call_version` (or `call_version` itself when
        it names a ruling); DisputeRejected `unknown_call` when it is neither.

        Read from the records rather than kept in the match: a ruling follows its call within a
        round, so only the records just after the call are read.
        """
        unknown = DisputeRejected("unknown_call", f"version {call_version} is not a bluff call of this match")
        if not 0 < call_version <= match.version:
            raise unknown
        upto = min(match.version, call_version + RULING_SEARCH)
        ruling = None
        for stored in self.records(match.match_id, after=call_version - 1, upto=upto):
            call = stored.public.get("bluff_call")
            if not isinstance(call, dict):
                continue
            version = stored.originator_version
            if version == call_version or call.get("call_version", version) == call_version:
                ruling = version
        if ruling is None:
            raise unknown
        return ruling

    def rule_dispute(
        self,
        match_id: str,
        number: int,
        decision: str,
        note: str,
        amended_outcome: dict | None,
        resume_clock: bool = False,
    ) -> Written:
        """Record the organizer's ruling on a dispute (and an amended outcome, and the clocks resumed, when
        asked); returns what the write stored."""

        def rule(match: Match) -> None:
            match.rule_dispute(number, decision, note, amended_outcome)
            if resume_clock:
                match.resume_clock(note or f"dispute {number} ruled")

        return self.clocks.write(match_id, rule)[1]

    def _entrant_of_invite(self, match: Match, invite: str) -> dict:
        """The entrant of the match's tournament whose current invite this is; InvalidInvite otherwise."""
        if match.tournament_id is None:
            raise InvalidInvite("this match belongs to no tournament, so no invite joins it")
        entrant = self.tournaments.entrant_by_invite(self.tournaments.tournament(match.tournament_id), invite)
        if entrant is None:
            raise InvalidInvite("the invite is not a current invite of this match's tournament")
        return entrant

    @staticmethod
    def _seat_for(match: Match, seat: str | None, entrant_id: str | None) -> str:
        """The seat a join takes: the one asked for, or the entrant's paired one, or the first free unpaired one."""
        if seat is not None and seat not in match.seat_order:
            raise SeatUnavailable(f"this match has no seat {seat!r}", seats=match.seat_order)
        paired = next((s for s, e in match.entrants.items() if entrant_id is not None and e == entrant_id), None)
        if paired is not None and seat not in (None, paired):
            raise WrongSeatForInvite(f"this invite's entrant is paired to seat {paired!r}, not {seat!r}", seat=paired)
        held = [s for s, info in match.seats.items() if entrant_id is not None and info.get("entrant_id") == entrant_id]
        if held:
            raise SeatUnavailable(f"this entrant already holds seat {held[0]!r} of this match")
        free = match.free_seats()
        if not free:
            raise SeatUnavailable("every seat of this match is taken")
        chosen = seat or paired or next((s for s in free if s not in match.entrants), None)
        if chosen is None:
            raise SeatReserved("every open seat of this match is paired to an entrant; join with your invite")
        if chosen not in free:
            raise SeatUnavailable(f"seat {chosen!r} is taken")
        if match.entrants.get(chosen, entrant_id) != entrant_id:
            raise SeatReserved(f"seat {chosen!r} is paired to another entrant; only that entrant's invite takes it")
        return chosen

    @staticmethod
    def _join_options(match: Match, seat: str, options: dict | None) -> dict:
        try:
            return match.ruleset.join_options(match.parsed_config, seat, options or {})
        except ConfigError as exc:
            raise InvalidJoinOptions(str(exc), field=exc.field) from None

    def _remembered(self, match: Match, seat: str, key: str, fingerprint: str) -> Written | None:
        """What the earlier command with this Idempotency-Key stored, read back; None when the key is new."""
        entry = match.remembered(seat, key)
        if entry is None:
            return None
        if entry["fingerprint"] != fingerprint:
            raise IdempotencyKeyReused("this Idempotency-Key was used for a different command")
        first, last = entry["first"], entry["last"]
        records = self.records(match.match_id, after=first - 1, upto=last) if last >= first else []
        return Written(first, last, match, tuple(records))

    # ----- reads --------------------------------------------------------------------------
    def match(self, match_id: str, version: int | None = None) -> Match:
        """The match as of a version (the latest by default; the latest records the expiries due first)."""
        match = self.store.load(match_id, version)
        return self.clocks.enforce(match) if version is None else match

    def records(self, match_id: str, after: int = 0, upto: int | None = None, limit: int | None = None) -> list[Any]:
        """Stored records of a match, oldest first, with versions in (after, upto]."""
        return self.store.records(match_id, after=after, upto=upto, limit=limit)

    def outcome_amended(self, match: Match) -> bool:
        """Whether an organizer's ruling amended the match's outcome: an OutcomeAmended follows a ruling of it.

        Read from the records (one per ruling, right after it), so a match kept from before rulings said so counts too.
        """
        for dispute in match.disputes.values():
            ruled = dispute.get("ruled_version")
            if ruled is not None and ruled < match.version:
                following = self.records(match.match_id, after=ruled, upto=ruled + 1)
                if following and following[0].kind == OUTCOME_AMENDED:
                    return True
        return False

    @staticmethod
    def authenticate(match: Match, token: str) -> str | None:
        """The seat whose bearer token this is, compared in constant time; None otherwise."""
        presented = token_hash(token)
        found = None
        for seat, stored in match.token_hashes().items():
            if hmac.compare_digest(presented, stored):
                found = seat
        return found

    def close(self) -> None:
        """Release the store's connections (the services built on it go with it)."""
        self.store.close()


def open_matches(
    env: dict | None = None,
    *,
    signer: ReceiptSigner | None = None,
    seal_key: bytes | None = None,
    on_integrity_problem: Callable[[str, str], None] | None = None,
    standing_problem: Callable[[str], str | None] | None = None,
    max_disputes_per_filer: int | None = None,
    recent_matches: int = REMEMBERED_MATCHES,
    seat_signatures: SignatureCheck | None = None,
    partition_envs: list[dict] | None = None,
    partition_signers: Sequence[ReceiptSigner | None] | None = None,
) -> MatchService:
    """The match service on a store opened with these settings (see MatchStore), with its clock and tournament
    services (`.clocks`, `.tournaments`) on the same store (`.store`).

    With `partition_envs` (the settings of each partition's store, in order) matches live in those stores
    (domain/partitions.py) and the store of `env` keeps the tournaments; a partition with the same settings as
    `env` is that very store; `partition_signers` (one per partition) sign its writes' receipts, each naming the
    partition's own log."""

    def opened(settings: dict | None, signing: ReceiptSigner | None) -> MatchStore:
        return MatchStore(
            settings,
            signer=signing,
            seal_key=seal_key,
            on_integrity_problem=on_integrity_problem,
            standing_problem=standing_problem,
            recent_matches=recent_matches,
        )

    shared = opened(env, signer)
    store: MatchStore | PartitionedStore = shared
    if partition_envs:
        signers = list(partition_signers or [signer] * len(partition_envs))
        parts = []
        for given, signing in zip(partition_envs, signers, strict=True):
            if given == env:
                shared.signer = signing  # the shared store is this partition: its matches' receipts name its log
                parts.append(shared)
            else:
                parts.append(opened(given, signing))
        store = PartitionedStore(parts, shared)
    return MatchService(store, ClockService(store), TournamentService(shared), max_disputes_per_filer, seat_signatures)
