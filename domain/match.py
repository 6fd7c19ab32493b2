"""The Match aggregate: every record of a match, folded into the ruleset's state.

One stored event class carries every record (`Recorded`; `Created` for the first), with the
fields of the event record (docs/verification.md) plus `meta` (token hashes, idempotency keys) that never
leaves the server. The chain and commitments are computed when a record is made, so a stored
row that is later edited no longer matches its chain.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextvars import ContextVar
from datetime import datetime
from typing import Any
from uuid import UUID

from eventsourcing.domain import Aggregate

from domain import clock, reveals, rulesets
from domain.chance import Chance
from domain.clock import CLOCK_EXPIRED, CLOCK_KINDS, CLOCK_PAUSED, CLOCK_RESUMED, TIME_ADDED
from domain.errors import DisputeRejected
from domain.match_options import MatchOptions, options_of, ruleset_part
from domain.record_bounds import DECISIONS
from domain.records import (
    DISPUTE_FILED,
    DISPUTE_RULED,
    MATCH_CREATED,
    MATCH_FINISHED,
    OUTCOME_AMENDED,
    SEAT_JOINED,
    chain_link,
    commitment,
    genesis,
    json_copy,
    new_salt,
)
from domain.records import MATCH_KINDS as RECORD_KINDS
from domain.ruleset import Command, Event, config_from_dict

# Every kind of record the match writes itself: the records module's (what the verifier reads) and the clock's.
MATCH_KINDS = RECORD_KINDS | CLOCK_KINDS
# Public keys naming earlier versions a record rests on: revealed to everyone (`opens`), or kept
# sealed as a ruling's evidence; and the secret key holding the copies of what `opens` names.
OPENS = "opens"
SEALED_EVIDENCE = "sealed_evidence"
OPENED = "opened"

# Idempotency keys remembered per match: enough for any client's retry window, while keeping
# the snapshot (and so every command's load) small on very long matches.
REMEMBERED_COMMANDS = 512

# Every how many versions the application stores a snapshot of a match (and of a tournament).
SNAPSHOT_INTERVAL = 50


# True while `_record` folds a record it has just made: that record's payload is the pending
# event's own (still to be stored, already chained), so the fold must not let the ruleset's
# state share it. Records replayed from the store are fresh objects nobody else holds, so
# their fold skips the copy (a large share of loading a match, measured in bench/).
_FOLDING_NEW_RECORD: ContextVar[bool] = ContextVar("gambit_folding_new_record", default=False)


# The aggregate's attributes that are not JSON: immutable ones a copy shares, and the pending events.
_SHARED = ("_id", "_created_on", "_modified_on")
# Where a write in progress keeps the match as it was at each snapshot version it recorded, until the save
# takes them (Match.kept_for_snapshots): never part of a copy, a snapshot or a kept match.
_KEPT_FOR_SNAPSHOTS = "_kept_for_snapshots"
_NOT_JSON = frozenset((*_SHARED, "_pending_events", _KEPT_FOR_SNAPSHOTS))


# A match's attributes hold no cycles (they are what a snapshot stores): the encoder of a kept match
# skips the check for them, a sixth of the encoding.
_KEPT_ENCODER = json.JSONEncoder(check_circular=False)


def _now() -> datetime:
    # The clock's time source (injectable), and within a write the write's one instant.
    return clock.now()


class Match(Aggregate):
    """A match of one ruleset: seats, chance, the chain head and the ruleset's state."""

    TOPIC = "gambit:Match"
    # Version 2 has `clock`: a snapshot of an older version is brought up to it as it is read.
    class_version = 2

    @staticmethod
    def upcast_v1_v2(state: dict) -> None:
        """A snapshot stored before matches had clocks: the match is untimed."""
        state.setdefault("clock", None)

    class Created(Aggregate.Created):
        """The first record: MatchCreated."""

        TOPIC = "gambit:Match.Created"
        kind: str
        public: dict
        secret: dict | None
        salt: str | None
        commitment: str | None
        audience: list | None
        chain: str
        meta: dict

    class Recorded(Aggregate.Event):
        """Every later record of the match."""

        TOPIC = "gambit:Match.Recorded"
        kind: str
        public: dict
        secret: dict | None
        salt: str | None
        commitment: str | None
        audience: list | None
        chain: str
        meta: dict

        def apply(self, aggregate: Match) -> None:
            """Fold this record into the match (runs again on every replay)."""
            aggregate._fold(self)

    def __init__(
        self,
        kind: str,
        public: dict,
        secret: dict | None,
        salt: str | None,
        commitment: str | None,
        audience: list | None,
        chain: str,
        meta: dict,
    ) -> None:
        self.ruleset_id: str = public["ruleset"]
        self.config: dict = json_copy(public["config"])
        self.seat_order: list[str] = list(public["seats"])
        self.tournament_id: str | None = public.get("tournament_id")
        self.server_seed_commitment: str = public["server_seed_commitment"]
        self.server_seed: str = (secret or {})["server_seed"]
        self.created_at: str = self.created_on.isoformat()
        self.seats: dict[str, dict] = {}
        self.status = "open"
        self.outcome: dict | None = None
        self.head = chain
        self.commands: dict[str, dict] = {}
        # Which bluff call each ruling answers, and which records were revealed when, are history: they
        # grow with the match, so they stay in the records (looked up by the application) and out of
        # the aggregate that every command loads and every snapshot stores.
        self.disputes: dict[str, dict] = {}
        # The newest receipt found in a record's meta, and the first thing found wrong while folding.
        self.receipt: dict | None = None
        self.integrity_problem: str | None = None
        if not _FOLDING_NEW_RECORD.get():
            self._check_stored(
                chain,
                self.INITIAL_VERSION,
                kind,
                self.created_on.isoformat(),
                public,
                secret,
                salt,
                commitment,
                genesis(self.match_id),
            )
            self._keep_receipt(meta.get("receipt"), self.INITIAL_VERSION, chain)
        ruleset = rulesets.get(self.ruleset_id)
        self.state = ruleset.initial_state(self.parsed_config, list(self.seat_order))
        # The current clock only (domain/clock.py), never its history; None for an untimed match.
        self.clock: dict | None = clock.initial_clock(options_of(self.config).time_control, self.seat_order)

    # ----- creation -----------------------------------------------------------------------
    @classmethod
    def open(
        cls,
        match_id: UUID,
        ruleset_id: str,
        config: dict,
        tournament_id: str | None,
        server_seed: bytes,
        server_seed_commitment: str,
        seats: list[str],
    ) -> Match:
        """Create a match: the MatchCreated record commits to the server seed."""
        public = {
            "match_id": str(match_id),
            "ruleset": ruleset_id,
            "config": json_copy(config),
            "seats": list(seats),
            "tournament_id": tournament_id,
            "server_seed_commitment": server_seed_commitment,
        }
        secret = {"server_seed": server_seed.hex()}
        salt = new_salt()
        commit = commitment(secret, salt)
        ts = _now()
        chain = chain_link(genesis(str(match_id)), cls.INITIAL_VERSION, MATCH_CREATED, ts.isoformat(), public, commit)
        token = _FOLDING_NEW_RECORD.set(True)
        try:
            return cls._create(
                cls.Created,
                id=match_id,
                timestamp=ts,
                kind=MATCH_CREATED,
                public=public,
                secret=secret,
                salt=salt,
                commitment=commit,
                audience=[],
                chain=chain,
                meta={},
            )
        finally:
            _FOLDING_NEW_RECORD.reset(token)

    # ----- derived ------------------------------------------------------------------------
    @property
    def match_id(self) -> str:
        """The match id as a string (the chain's genesis is derived from it)."""
        return str(self.id)

    @property
    def ruleset(self) -> Any:
        """The ruleset module this match plays."""
        return rulesets.get(self.ruleset_id)

    @property
    def parsed_config(self) -> Any:
        """The ruleset's Config object for this match."""
        return config_from_dict(self.ruleset.Config, ruleset_part(self.config))

    @property
    def options(self) -> MatchOptions:
        """The ruleset-independent options (spectator delay, time control) this match was created with."""
        return options_of(self.config)

    def client_seeds(self) -> list[str]:
        """Client seeds in seat order; a seat that gave none (or has not joined) contributes ''."""
        return [self.seats.get(seat, {}).get("client_seed", "") for seat in self.seat_order]

    def chance(self) -> Chance:
        """The chance source for the records about to be written (purposes scoped by version)."""
        return Chance(
            bytes.fromhex(self.server_seed),
            self.match_id,
            self.client_seeds(),
            scope=f"v{self.version + 1}",
            version=self.version + 1,
        )

    def to_act(self) -> list[str]:
        """Seats the match is waiting for (none unless active)."""
        return list(self.ruleset.to_act(self.state)) if self.status == "active" else []

    def may_act(self) -> list[str]:
        """Seats the match is not waiting for that have an optional action now (none unless active)."""
        return list(self.ruleset.may_act(self.state)) if self.status == "active" else []

    def free_seats(self) -> list[str]:
        """Seats nobody has taken yet, in order."""
        return [seat for seat in self.seat_order if seat not in self.seats]

    def token_hashes(self) -> dict[str, str]:
        """Seat → hash of its bearer token."""
        return {seat: info["token_hash"] for seat, info in self.seats.items()}

    def revealed_at(self, version: int) -> int | None:
        """The version whose record revealed this version's secret to everyone; None while it is not.

        Answered by the reveal index of the application that loaded this match (read from the
        records, domain/reveals.py); a match no application loaded reveals nothing early.
        """
        index = reveals.index_of(self.match_id)
        return None if index is None else index.revealed_at(self.match_id, version, self.version)

    def fresh_copy(self) -> Match:
        """An independent copy with nothing pending, for one request to change (the original stays as it is).

        Every attribute but the library's identity fields and the attached reveal lookup is plain
        JSON (it is what a snapshot stores), so one JSON round trip copies it, several times
        faster than `copy.deepcopy`.
        """
        return self.kept().fresh_copy()

    def kept(self) -> KeptMatch:
        """This match as it is now, frozen: each `fresh_copy()` of it is a new independent Match.

        Half of the JSON round trip of `fresh_copy` (the encoding) is done here once, so a match
        kept between requests costs each request only the decoding. The shared attributes hold
        their places in the text (as nulls), so a copy lists its attributes in this match's
        order, and a snapshot taken of it is the very one the library takes of the match rebuilt
        from the store.
        """
        attributes = vars(self)
        plain = {
            key: None if key in _SHARED else value
            for key, value in attributes.items()
            if key not in _NOT_JSON or key in _SHARED
        }
        shared = {key: attributes[key] for key in _SHARED if key in attributes}
        return KeptMatch(type(self), _KEPT_ENCODER.encode(plain), shared, self.version, self.head)

    def kept_for_snapshots(self) -> dict[int, KeptMatch]:
        """The match as it was at each version a snapshot is due at, recorded since the last call; forgotten here.

        The application's save snapshots these instead of rebuilding the match from the store.
        The match at the newest version is not among them: its receipt comes after its records.
        """
        kept: dict[int, KeptMatch] = vars(self).pop(_KEPT_FOR_SNAPSHOTS, None) or {}
        return kept

    def remembered(self, seat: str, key: str) -> dict | None:
        """The stored result of an earlier command with this Idempotency-Key, if any."""
        return self.commands.get(f"{seat}\n{key}")

    # ----- commands -----------------------------------------------------------------------
    def join(self, seat: str, name: str, client_seed: str, token_hash: str, options: dict | None = None) -> None:
        """Seat a player; when the last seat is taken, the ruleset's setup runs.

        Join options (a deck list) stay server-side in `meta`; the ruleset's setup records
        what of them the game needs, with the secrecy the game gives them.
        """
        self._record(
            Event(SEAT_JOINED, {"seat": seat, "name": name, "client_seed": client_seed}),
            meta={"token_hash": token_hash, "options": json_copy(options or {})},
        )
        if self.status == "active":
            seat_options = {s: json_copy(self.seats[s].get("options", {})) for s in self.seat_order}
            events = self.ruleset.setup(self.parsed_config, list(self.seat_order), self.chance(), seat_options)
            for event in events:
                self._record(event)
            self._finish_if_over()

    def act(
        self,
        seat: str,
        command: Command,
        idempotency: dict | None = None,
        evidence: Callable[[int], dict] | None = None,
    ) -> tuple[int, int]:
        """Decide a command and record its events; returns the first and last new versions.

        `evidence(version)` returns an earlier record's secret, salt and commitment; it is
        called only for events that open evidence (bluff rulings).
        """
        first = self.version + 1
        events = self.ruleset.decide(self.state, seat, command, self.chance())
        meta = {"command": idempotency} if idempotency else {}
        for event in events:
            self._record(event, meta=meta, evidence=self._with_pending(evidence))
        # The finish is part of the command's write: a retry of its key answers up to it, with its receipt.
        self._finish_if_over(meta)
        return first, self.version

    def file_dispute(self, call_version: int, ruling: int, reason: str, filed_by: str, limit: int | None = None) -> int:
        """Dispute a bluff call (or Final Gambit call) whose ruling is at `ruling`; returns the dispute number.

        The application finds the ruling in the records (a dispute may name the call or its ruling).

        `limit` caps the disputes one filer may file in this match, so one seat cannot grow the
        match's record (and the organizer's queue) without bound.
        """
        if limit is not None and sum(1 for d in self.disputes.values() if d["filed_by"] == filed_by) >= limit:
            raise DisputeRejected(
                "dispute_limit_reached", f"{filed_by} has filed the {limit} disputes a filer may file"
            )
        number = len(self.disputes) + 1
        self._record(
            Event(
                DISPUTE_FILED,
                {
                    "dispute": number,
                    "call_version": call_version,
                    "ruling_version": ruling,
                    "reason": reason,
                    "filed_by": filed_by,
                },
            )
        )
        return number

    def rule_dispute(self, number: int, decision: str, note: str, amended_outcome: dict | None) -> None:
        """The organizer's ruling on a dispute; an amended outcome is its own record, never an edit."""
        dispute = self.disputes.get(str(number))
        if dispute is None:
            raise DisputeRejected("unknown_dispute", f"this match has no dispute {number}")
        if dispute["status"] != "open":
            raise DisputeRejected("dispute_already_ruled", f"dispute {number} has been ruled already")
        if decision not in DECISIONS:
            raise DisputeRejected("unknown_decision", f"decision must be one of {', '.join(DECISIONS)}")
        if amended_outcome is not None and self.status != "finished":
            raise DisputeRejected("match_not_finished", "an outcome can only be amended once the match has finished")
        if amended_outcome is not None:
            self._check_amended_outcome(amended_outcome)
        self._record(
            Event(
                DISPUTE_RULED,
                {
                    "dispute": number,
                    "call_version": dispute["call_version"],
                    "decision": decision,
                    "note": note,
                    "amends_outcome": amended_outcome is not None,
                },
            )
        )
        if amended_outcome is not None:
            self._record(
                Event(
                    OUTCOME_AMENDED,
                    {
                        "dispute": number,
                        "outcome": json_copy(amended_outcome),
                        "previous_outcome": json_copy(self.outcome),
                    },
                )
            )

    def _check_amended_outcome(self, amended_outcome: dict) -> None:
        """An amended outcome names its winners as distinct seats of this match (standings count them)."""
        winners = amended_outcome.get("winners")
        if not isinstance(winners, list) or not all(isinstance(w, str) for w in winners):
            raise DisputeRejected("invalid_amended_outcome", "amended_outcome.winners must be a list of seats")
        unknown = [w for w in winners if w not in self.seat_order]
        if unknown:
            raise DisputeRejected(
                "invalid_amended_outcome", f"amended_outcome.winners names {unknown[0]!r}, not a seat of this match"
            )
        if len(set(winners)) != len(winners):
            raise DisputeRejected("invalid_amended_outcome", "amended_outcome.winners names a seat twice")

    # ----- clock -------------------------------------------------------------------------
    def deadline_of(self, seat: str) -> int | None:
        """The instant (µs since the epoch) after which this seat's time has run out, while its clock runs."""
        return clock.deadlines(self.clock).get(seat)

    def ran_out(self, seat: str) -> int | None:
        """The deadline (µs) at which this seat's time ran out, while its commands are refused (domain/clock.py)."""
        return clock.ran_out(self.clock, seat, clock.micros(self.modified_on))

    def overdue(self, at: datetime) -> list[tuple[int, str]]:
        """(deadline, seat) of every seat whose time has run out at `at`, earliest first (none unless active)."""
        if self.status != "active":
            return []
        return clock.overdue(self.clock, clock.micros(at), self.seat_order)

    def expire_overdue(self, at: datetime, evidence: Callable[[int], dict] | None = None) -> int:
        """Record, at `at`, a ClockExpired and the ruleset's consequence for every seat out of time; returns how many.

        The earliest deadline goes first; each consequence is decided on the state it leaves the next.
        """
        expired = 0
        with clock.at_instant(at):
            while expired < clock.MAX_EXPIRIES_PER_WRITE:
                late = self.overdue(at)
                if not late:
                    break
                deadline, seat = late[0]
                self._record(Event(CLOCK_EXPIRED, {"seat": seat, "deadline": clock.iso(deadline)}))
                for event in self.ruleset.time_out(self.state, seat, self.chance()):
                    self._record(event, evidence=self._with_pending(evidence))
                self._finish_if_over()
                expired += 1
        return expired

    def pause_clock(self, note: str, dispute: int | None = None) -> None:
        """The organizer stops every running clock (with a note, and the dispute that prompted it, if any)."""
        self._check_adjustable()
        if self.clock is not None and self.clock["paused"]:
            raise clock.ClockAdjustmentRefused("clock_already_paused", "the clocks are paused already")
        public: dict[str, Any] = {"by": clock.ORGANIZER, "note": note}
        if dispute is not None:
            if str(dispute) not in self.disputes:
                raise DisputeRejected("unknown_dispute", f"this match has no dispute {dispute}")
            public["dispute"] = dispute
        self._record(Event(CLOCK_PAUSED, public))

    def resume_clock(self, note: str) -> None:
        """The organizer starts the clocks again: every seat waited for runs from now."""
        self._check_adjustable()
        if self.clock is not None and not self.clock["paused"]:
            raise clock.ClockAdjustmentRefused("clock_not_paused", "the clocks are not paused")
        self._record(Event(CLOCK_RESUMED, {"by": clock.ORGANIZER, "note": note}))

    def add_time(self, seat: str, seconds: int, note: str) -> None:
        """The organizer gives a seat more time (whole seconds, at most a week at once)."""
        self._check_adjustable()
        if seat not in self.seat_order:
            raise clock.ClockAdjustmentRefused("unknown_seat", f"this match has no seat {seat!r}", status=422)
        if not (isinstance(seconds, int) and 0 < seconds <= clock.MAX_ADDED_SECONDS):
            raise clock.ClockAdjustmentRefused(
                "invalid_seconds", f"seconds must be a whole number from 1 to {clock.MAX_ADDED_SECONDS}", status=422
            )
        self._record(Event(TIME_ADDED, {"by": clock.ORGANIZER, "seat": seat, "seconds": seconds, "note": note}))

    def _check_adjustable(self) -> None:
        if self.clock is None:
            raise clock.UntimedMatch("this match has no clock (its time_control is none)")
        if self.status == "finished":
            raise clock.ClockAdjustmentRefused("match_finished", "the match has finished; its clocks have stopped")

    def acknowledge(self, sign: Callable[[str, int, str], dict]) -> dict | None:
        """Sign the head of the records about to be saved; the receipt goes in the newest one's meta.

        So the receipt is stored in the same transaction as the records it covers, and a receipt
        is only ever made for a write this match itself decided.
        """
        if not self.pending_events:
            return None
        receipt = sign(self.match_id, self.version, self.head)
        newest: Any = self.pending_events[-1]  # a Match.Recorded (or Created): it has `meta`
        newest.meta["receipt"] = receipt
        self.receipt = receipt
        return receipt

    def _check_stored(
        self,
        chain: str,
        version: int,
        kind: str,
        timestamp: str,
        public: dict,
        secret: Any,
        salt: str | None,
        commit: str | None,
        previous: str,
    ) -> None:
        """Note the first stored record whose chain link or commitment does not hold."""
        if self.integrity_problem is not None:
            return
        try:
            if chain_link(previous, version, kind, timestamp, public, commit) != chain:
                self.integrity_problem = f"version {version}: the chain does not link to the record before it"
            elif (secret is None) != (commit is None) or (
                secret is not None and (salt is None or commitment(secret, salt) != commit)
            ):
                self.integrity_problem = f"version {version}: the secret does not open its commitment"
        except (TypeError, ValueError):
            self.integrity_problem = f"version {version}: the record cannot be encoded canonically"

    def _keep_receipt(self, receipt: Any, version: int, chain: str) -> None:
        """Keep a stored receipt as the newest, if it is for this very record."""
        if receipt is None:
            return
        if (
            not isinstance(receipt, dict)
            or receipt.get("version") != version
            or receipt.get("head") != chain
            or receipt.get("match_id") != self.match_id
        ):
            if self.integrity_problem is None:
                self.integrity_problem = f"version {version}: its receipt is not for this record"
            return
        self.receipt = receipt

    def _with_pending(self, evidence: Callable[[int], dict] | None) -> Callable[[int], dict] | None:
        """Evidence lookup that also finds records of this same command (not saved yet)."""

        def lookup(version: int) -> dict:
            pending_records: list[Any] = list(self.pending_events)  # Match.Recorded events, not saved yet
            for pending in pending_records:
                if pending.originator_version == version:
                    return {"secret": pending.secret, "salt": pending.salt, "commitment": pending.commitment}
            if evidence is None:
                raise ValueError(f"no evidence source for version {version}")
            return evidence(version)

        return lookup

    def _finish_if_over(self, meta: dict | None = None) -> None:
        outcome = self.ruleset.outcome(self.state)
        if outcome is not None and self.status != "finished":
            self._record(
                Event(MATCH_FINISHED, {"outcome": json_copy(outcome), "server_seed": self.server_seed}), meta=meta
            )

    def _record(self, event: Event, meta: dict | None = None, evidence: Callable[[int], dict] | None = None) -> None:
        version = self.version + 1
        if self.version % SNAPSHOT_INTERVAL == 0 and self.pending_events:
            # This write recorded the version a snapshot is due at, and records more after it: keep
            # the match as it is at that version, which the save would otherwise rebuild from the
            # store. (Kept only now, so a write that ends there is snapshotted live, not encoded twice.)
            vars(self).setdefault(_KEPT_FOR_SNAPSHOTS, {})[self.version] = self.kept()
        public = json_copy(event.public)
        secret = None if event.secret is None else json_copy(event.secret)
        for versions, key in ((event.opens, OPENS), (event.evidence, SEALED_EVIDENCE)):
            if not versions:
                continue
            if evidence is None:
                raise ValueError(f"{event.kind} opens evidence but no evidence source was given")
            # The opened secrets travel in the record's own secret, under its commitment, so a
            # verifier holding the record can re-commit each one to the record it names.
            secret = dict(secret or {})
            secret[OPENED if key == OPENS else key] = [{"version": v, **json_copy(evidence(v))} for v in versions]
            # Which commitments a record rests on is public, so anyone can tell what to check; the
            # ones under `opens` are revealed to every viewer from this version on (`opened`).
            public[key] = list(versions)
        audience = None if secret is None else list(event.audience or ())
        salt = commit = None
        if secret is not None:
            salt = new_salt()
            commit = commitment(secret, salt)
        ts = self._stamp()
        chain = chain_link(self.head, version, event.kind, ts.isoformat(), public, commit)
        token = _FOLDING_NEW_RECORD.set(True)
        try:
            self.trigger_event(
                self.Recorded,
                timestamp=ts,
                kind=event.kind,
                public=public,
                secret=secret,
                salt=salt,
                commitment=commit,
                audience=audience,
                chain=chain,
                meta=json_copy(meta) if meta else {},
            )
        finally:
            _FOLDING_NEW_RECORD.reset(token)

    def _stamp(self) -> datetime:
        """A new record's time: the write's instant, but never before the match's last record.

        Hosts' clocks differ: a host behind the one that wrote the last record stamps the new one at
        that record's time, so a match's record times never go backwards (the verifier requires it).
        No deadline running after the last record is earlier than it (its writer recorded every
        expiry due), so the later stamp changes no clock (docs/clocks.md).
        """
        instant = _now()
        return max(instant, self.modified_on)  # the last record's time (the library's)

    # ----- folding ------------------------------------------------------------------------
    def _fold(self, record: Match.Recorded) -> None:
        version = record.originator_version
        if not _FOLDING_NEW_RECORD.get():
            self._check_stored(
                record.chain,
                version,
                record.kind,
                record.timestamp.isoformat(),
                record.public,
                record.secret,
                record.salt,
                record.commitment,
                self.head,
            )
            self._keep_receipt(record.meta.get("receipt"), version, record.chain)
        self.head = record.chain
        if record.kind == SEAT_JOINED:
            self.seats[record.public["seat"]] = {
                "name": record.public["name"],
                "client_seed": record.public["client_seed"],
                "token_hash": record.meta.get("token_hash", ""),
                "joined_at": record.timestamp.isoformat(),
                "options": record.meta.get("options", {}),
            }
            if not self.free_seats():
                self.status = "active"
        elif record.kind == MATCH_FINISHED:
            self.status = "finished"
            self.outcome = json_copy(record.public["outcome"])
        elif record.kind == DISPUTE_FILED:
            self.disputes[str(record.public["dispute"])] = {
                "dispute": record.public["dispute"],
                "call_version": record.public["call_version"],
                "reason": record.public["reason"],
                "filed_by": record.public["filed_by"],
                "status": "open",
                "filed_version": version,
            }
        elif record.kind == DISPUTE_RULED:
            self.disputes[str(record.public["dispute"])].update(
                status="ruled", decision=record.public["decision"], note=record.public["note"], ruled_version=version
            )
        elif record.kind == OUTCOME_AMENDED:
            self.outcome = json_copy(record.public["outcome"])
        elif record.kind in CLOCK_KINDS:
            pass  # the clock folds them below; the ruleset never sees them
        else:
            public, secret = record.public, record.secret
            if _FOLDING_NEW_RECORD.get():
                public, secret = json_copy(public), None if secret is None else json_copy(secret)
            event = Event(
                record.kind, public, secret, None if record.audience is None else tuple(record.audience), (), version
            )
            self.state = self.ruleset.evolve(self.state, event)
        command = record.meta.get("command")
        if command:
            key = f"{command['seat']}\n{command['key']}"
            entry = self.commands.pop(key, None) or {"first": version, "fingerprint": command["fingerprint"]}
            entry["last"] = version
            self.commands[key] = entry
            while len(self.commands) > REMEMBERED_COMMANDS:
                self.commands.pop(next(iter(self.commands)))
        if self.clock is not None:  # None in a match untimed
            clock.advance(
                self.clock,
                record.kind,
                record.public,
                clock.micros(record.timestamp),
                self.to_act(),
                record.kind not in MATCH_KINDS,
            )


class KeptMatch:
    """A match frozen as JSON text (Match.kept): its version and chain head, and fresh copies of it on demand."""

    __slots__ = ("_cls", "_shared", "_text", "head", "version")

    def __init__(self, cls: type[Match], text: str, shared: dict[str, Any], version: int, head: str) -> None:
        self._cls = cls
        self._text = text
        self._shared = shared
        self.version = version
        self.head = head

    def fresh_copy(self) -> Match:
        """A new, independent Match with nothing pending, as the match was when it was kept."""
        copied = json.loads(self._text)
        copied.update(self._shared)
        copied["_pending_events"] = []
        twin = object.__new__(self._cls)
        object.__setattr__(twin, "__dict__", copied)
        return twin


def match_record(event: object) -> Match.Created | Match.Recorded | None:
    """The event as a match's record; None when it is another aggregate's (a tournament's own records)."""
    return event if isinstance(event, (Match.Created, Match.Recorded)) else None


def project_match(aggregate: Match | None, events: Any) -> Match | None:
    """Fold stored events into a match: the library's `project_aggregate` without its per-event
    `assert isinstance(event, CanMutateProtocol)`.

    That assert is a runtime `typing.Protocol` check which, on Python 3.11, re-walks the
    protocol's members on every call: loading a match spends a large share of its time there
    (bench/, docs/benchmarks.md). Every event of a match's stream is a `Match` event, which can
    mutate by construction, so the check adds nothing. The application can pass this as the
    repository's `projector_func` and in `snapshotting_projectors`.
    """
    for event in events:
        aggregate = event.mutate(aggregate)
    return aggregate
