"""The Match aggregate: every record of a match, folded into the ruleset's state.

One stored event class carries every record (`Recorded`; `Created` for the first), with the
fields of the event record (docs/verification.md) plus `meta` (token hashes, idempotency keys) that never
leaves the server. The chain and commitments are computed when a record is made, so a stored
row that is later edited no longer matches its chain.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from datetime import datetime
from typing import Any
from uuid import UUID

from eventsourcing.domain import Aggregate

from domain import clock, reveals, rulesets
from domain.chance import Chance
from domain.clock import CLOCK_KINDS
from domain.command_records import command_record, join_record
from domain.kept_match import MatchKeeping
from domain.match_clock import MatchClock
from domain.match_disputes import MatchDisputes
from domain.match_integrity import MatchIntegrity
from domain.match_options import MatchOptions, options_of, ruleset_part
from domain.match_sealed_commands import MatchSealedCommands
from domain.match_seat_keys import MatchSeatKeys
from domain.records import (
    COMMAND_RECEIVED,
    DISPUTE_FILED,
    DISPUTE_RULED,
    MATCH_CREATED,
    MATCH_FINISHED,
    OUTCOME_AMENDED,
    RECORDS_CAUSES,
    SEAT_JOINED,
    SEAT_KEY_CHANGED,
    chain_link,
    commitment,
    genesis,
    json_copy,
    new_salt,
)
from domain.records import MATCH_KINDS as RECORD_KINDS
from domain.ruleset import Command, Event, Ruleset, config_from_dict

# Every kind of record the match writes itself: the records module's (what the verifier reads) and the clock's.
MATCH_KINDS = RECORD_KINDS | CLOCK_KINDS
# Public keys naming earlier versions a record rests on: revealed to everyone (`opens`), or kept
# sealed as a ruling's evidence; and the secret key holding the copies of what `opens` names.
OPENS = "opens"
SEALED_EVIDENCE = "sealed_evidence"
OPENED = "opened"

# Idempotency keys remembered per match: any client's retry window, in a snapshot kept small on long matches.
REMEMBERED_COMMANDS = 512

# Every how many versions the store (domain/store.py) keeps a snapshot of a match (and of a tournament).
SNAPSHOT_INTERVAL = 50


# True while `_record` folds a record it has just made: that record's payload is the pending
# event's own (still to be stored, already chained), so the fold must not let the ruleset's
# state share it. Records replayed from the store are fresh objects nobody else holds, so
# their fold skips the copy (a large share of loading a match, measured in bench/).
_FOLDING_NEW_RECORD: ContextVar[bool] = ContextVar("gambit_folding_new_record", default=False)


def _now() -> datetime:
    # The clock's time source (injectable), and within a write the write's one instant.
    return clock.now()


class Match(MatchDisputes, MatchClock, MatchIntegrity, MatchKeeping, MatchSeatKeys, MatchSealedCommands, Aggregate):
    """A match of one ruleset: seats, chance, the chain head and the ruleset's state.

    Its record and fold core is here; its disputes, clock and integrity methods are in
    domain/match_disputes.py, domain/match_clock.py and domain/match_integrity.py; its copies
    kept between requests in domain/kept_match.py.
    """

    TOPIC = "gambit:Match"
    # Version 2 has `clock`, 3 `entrants`, 4 `records_causes` and `sealed_commands` (its upcast is the mixin's).
    class_version = 4

    @staticmethod
    def upcast_v1_v2(state: dict) -> None:
        """A snapshot stored before matches had clocks: the match is untimed."""
        state.setdefault("clock", None)

    @staticmethod
    def upcast_v2_v3(state: dict) -> None:
        """A snapshot stored before tournament pairings: no seat is paired."""
        state.setdefault("entrants", {})

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
        # The pairing: seat → the tournament entrant who alone may take it (MatchCreated's optional `entrants`).
        self.entrants: dict[str, str] = dict(public.get("entrants") or {})
        self.server_seed_commitment: str = public["server_seed_commitment"]
        self._start_sealed_commands(public)
        self.server_seed: str = (secret or {})["server_seed"]
        self.created_at: str = self.created_on.isoformat()
        self.seats: dict[str, dict] = {}
        self.status = "open"
        self.outcome: dict | None = None
        self.head = chain
        self.commands: dict[str, dict] = {}
        # Which bluff call each ruling answers, and which records were revealed when, are history: they
        # grow with the match, so they stay in the records (looked up by the match service) and out of
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
        entrants: dict[str, str] | None = None,
    ) -> Match:
        """Create a match: the MatchCreated record commits to the server seed (and records the pairing, if any)."""
        public = {
            "match_id": str(match_id),
            "ruleset": ruleset_id,
            "config": json_copy(config),
            "seats": list(seats),
            "tournament_id": tournament_id,
            "server_seed_commitment": server_seed_commitment,
            RECORDS_CAUSES: True,
        }
        if entrants:
            public["entrants"] = dict(entrants)
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
    def ruleset(self) -> Ruleset[Any, Any]:
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

    def chance(self, ahead: int = 0) -> Chance:
        """The chance source for the records about to be written (purposes scoped by version): by the next
        version, or `ahead` versions past it (a command's events follow the record of the command)."""
        first = self.version + 1 + ahead
        return Chance(
            bytes.fromhex(self.server_seed),
            self.match_id,
            self.client_seeds(),
            scope=f"v{first}",
            version=first,
        )

    def to_act(self) -> list[str]:
        """Seats the match is waiting for (none unless active)."""
        return list(self.ruleset.to_act(self.state)) if self.status == "active" else []

    def may_act(self) -> list[str]:
        """Seats the match is not waiting for that have an optional action now (none unless active)."""
        return list(self.ruleset.may_act(self.state)) if self.status == "active" else []

    def entrant_of(self, seat: str) -> str | None:
        """The tournament entrant holding or paired to a seat; None for a seat of no entrant."""
        return self.seats.get(seat, {}).get("entrant_id") or self.entrants.get(seat)

    def revealed_at(self, version: int) -> int | None:
        """The version whose record revealed this version's secret to everyone; None while it is not.

        Answered by the reveal index of the store that loaded this match (read from the
        records, domain/reveals.py); a match no store loaded reveals nothing early.
        """
        index = reveals.index_of(self.match_id)
        return None if index is None else index.revealed_at(self.match_id, version, self.version)

    def remembered(self, seat: str, key: str) -> dict | None:
        """The stored result of an earlier command with this Idempotency-Key, if any."""
        return self.commands.get(f"{seat}\n{key}")

    # ----- commands -----------------------------------------------------------------------
    def join(
        self,
        seat: str,
        name: str,
        client_seed: str,
        token_hash: str,
        options: dict | None = None,
        entrant_id: str | None = None,
        public_key: dict | None = None,
        given_options: dict | None = None,
    ) -> None:
        """Seat a player (a tournament entrant, joining with its invite, when `entrant_id` is given); when the last
        seat is taken, the ruleset's setup runs.

        `options` are the seat's join options as the ruleset validated them (a deck list), which the setup takes;
        `given_options`, as the seat sent them, are the join record's secret for the seat, so a verifier re-decides
        the setup (domain/command_records.py join_record). `public_key`, the seat's canonical key
        (domain/seat_keys.py), is public, so the join's receipt covers it.
        """
        recorded_options = given_options if self.records_causes else None  # an older match kept them in meta alone
        joined = join_record(seat, name, client_seed, entrant_id, public_key, recorded_options)
        self._record(joined, meta={"token_hash": token_hash, "options": json_copy(options or {})})
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
        sent: dict | None = None,
        signature: str | None = None,
    ) -> tuple[int, int]:
        """Decide a command and record it, then its events; returns the first and last new versions.

        The command comes first (`CommandReceived`: the seat, the body as sent, the version it is
        decided on, its Idempotency-Key), so a verifier re-decides it against the state before it;
        its events' chance is scoped by the version after it. `sent` is the body as the seat sent
        it (the command's own body when not given), recorded with its `signature` when the seat has a
        key. `evidence(version)` returns an earlier record's secret, salt and commitment; it is called
        only for events that open evidence (bluff rulings).
        """
        first = self.version + 1
        events = self.ruleset.decide(self.state, seat, command, self.chance(ahead=1))
        meta = {"command": idempotency} if idempotency else {}
        key = None if idempotency is None else idempotency["key"]
        secret_body = self._keeps_body_secret(command.type, events)
        body = sent if sent is not None else command.body()
        received = command_record(seat, command.type, body, self.version, key, secret_body, signature)
        self._record(received, meta=meta)
        for event in events:
            self._record(self._opening_commands(event), meta=meta, evidence=self._with_pending(evidence))
        # The finish is part of the command's write: a retry of its key answers up to it, with its receipt.
        self._finish_if_over(meta)
        return first, self.version

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
            self.keep_for_snapshot()
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
        self._follow_sealed(record.kind, version, record.public, record.commitment)
        if record.kind == SEAT_JOINED:
            self.seats[record.public["seat"]] = {
                "name": record.public["name"],
                "client_seed": record.public["client_seed"],
                "token_hash": record.meta.get("token_hash", ""),
                "joined_at": record.timestamp.isoformat(),
                "options": record.meta.get("options", {}),
                "entrant_id": record.public.get("entrant_id"),
                "public_key": record.public.get("public_key"),
            }
            if not self.free_seats():
                self.status = "active"
        elif record.kind == SEAT_KEY_CHANGED:
            self.seats[record.public["seat"]]["public_key"] = json_copy(record.public["public_key"])
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
        elif record.kind in CLOCK_KINDS or record.kind == COMMAND_RECEIVED:
            pass  # the clock folds them below; the ruleset folds the command's events, not the command
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


def match_record(event: object) -> Match.Created | Match.Recorded | None:
    """The event as a match's record; None when it is another aggregate's (a tournament's own records)."""
    return event if isinstance(event, (Match.Created, Match.Recorded)) else None


def project_match(aggregate: Match | None, events: Any) -> Match | None:
    """Fold stored events into a match: the library's `project_aggregate` without its per-event
    `assert isinstance(event, CanMutateProtocol)`.

    That assert is a runtime `typing.Protocol` check which, on Python 3.11, re-walks the
    protocol's members on every call: loading a match spends a large share of its time there
    (bench/, docs/benchmarks.md). Every event of a match's stream is a `Match` event, which can
    mutate by construction, so the check adds nothing. The store passes this as the
    repository's `projector_func` and in `snapshotting_projectors`.
    """
    for event in events:
        aggregate = event.mutate(aggregate)
    return aggregate
