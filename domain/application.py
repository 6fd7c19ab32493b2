"""The match application: load a Match, run one command, save — with the store's optimistic lock.

Storage is the eventsourcing library's own persistence, chosen by a database URL
(`sqlite:///path` or `postgresql://user:password@host:port/db`).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import os
import secrets
import weakref
from collections.abc import Callable
from contextvars import ContextVar
from datetime import datetime
from typing import Any, ClassVar
from urllib.parse import parse_qs, unquote, urlparse
from uuid import UUID, uuid4

from eventsourcing.application import AggregateNotFoundError, Application, ProjectorFunction, Repository
from eventsourcing.persistence import EventStore, IntegrityError

from domain import clock, reveals, rulesets
from domain.errors import (
    ConcurrentWrite,
    DisputeRejected,
    IdempotencyKeyReused,
    IntegrityAlert,
    InvalidConfig,
    InvalidJoinOptions,
    MatchNotFound,
    SeatUnavailable,
    TournamentNotFound,
    UnknownRuleset,
    UnknownTournament,
    VersionMismatch,
)
from domain.integrity import CheckedRepository, ReceiptSigner, SealedRecorder
from domain.kept_match import KeptMatch
from domain.match import SNAPSHOT_INTERVAL, Match, project_match
from domain.match_options import split_config
from domain.recent import REMEMBERED_MATCHES, RecentMatches
from domain.records import canonical, sha256_hex
from domain.reveals import RevealIndex
from domain.ruleset import Command, ConfigError, RuleViolation, config_from_dict, config_to_dict
from domain.sqlite_wal import ensure_wal
from domain.store_guard import one_process_at_a_time, protect_events
from domain.tournament import Tournament

# How many records after a bluff call its ruling may come: a Final Gambit is ruled when its round
# ends, a few dozen records later at most.
RULING_SEARCH = 1000
# A kept match that had to fold more records than this to catch up is kept again as caught up, so a
# match this process only reads (others write it) does not fold ever more records per load.
CATCH_UP_KEPT = 8
UPDATE_ATTEMPTS = 8
# Receipts this process remembers as verified (matches × versions); past it the memory starts again.
REMEMBERED_RECEIPTS = 4096


def storage_env(database_url: str) -> dict[str, str]:
    """The eventsourcing persistence settings for a database URL."""
    parsed = urlparse(database_url)
    if parsed.scheme == "sqlite":
        path = database_url[len("sqlite:///") :] if database_url.startswith("sqlite:///") else parsed.path
        if path in ("", ":memory:"):
            return {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": ":memory:"}
        directory = os.path.dirname(os.path.abspath(path))
        os.makedirs(directory, exist_ok=True)
        return {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": path, "SQLITE_LOCK_TIMEOUT": "10"}
    if parsed.scheme in ("postgresql", "postgres"):
        query = parse_qs(parsed.query)
        return {
            "PERSISTENCE_MODULE": "eventsourcing.postgres",
            "POSTGRES_DBNAME": parsed.path.lstrip("/") or "postgres",
            "POSTGRES_HOST": parsed.hostname or "127.0.0.1",
            "POSTGRES_PORT": str(parsed.port or 5432),
            "POSTGRES_USER": unquote(parsed.username or "postgres"),
            "POSTGRES_PASSWORD": unquote(parsed.password or ""),
            "POSTGRES_SCHEMA": query.get("schema", ["public"])[0],
            # Per process: a gunicorn worker with 8 threads rarely needs more than a few at once,
            # and workers x hosts x (pool + overflow) must stay under the server's max_connections.
            "POSTGRES_POOL_SIZE": query.get("pool_size", ["4"])[0],
            "POSTGRES_MAX_OVERFLOW": query.get("max_overflow", ["4"])[0],
            "POSTGRES_CONNECT_TIMEOUT": query.get("connect_timeout", ["5"])[0],
            "POSTGRES_PRE_PING": "y",
            "ORIGINATOR_ID_TYPE": "uuid",
            # Appends take the library's table lock in one round trip (domain/pg_append.py).
            "APPLICATION_RECORDER_TOPIC": "domain.pg_append:OneTripApplicationRecorder",
        }
    raise ValueError(f"unsupported database URL scheme: {parsed.scheme!r}")


def notifies_followers(recorder: object) -> bool:
    """Whether a store's recorder tells followers of new records: the library's PostgreSQL ones
    (LISTEN/NOTIFY), ours built on them included; SQLite's cannot."""
    return any(cls.__module__ == "eventsourcing.postgres" for cls in type(recorder).__mro__)


# The matches a save in progress can snapshot without rebuilding them: (id, version) → the match then.
_SNAPSHOT_SOURCES: ContextVar[dict[tuple[UUID, int], Match | KeptMatch] | None] = ContextVar(
    "gambit_snapshot_sources", default=None
)


def token_hash(token: str) -> str:
    """The stored form of a bearer token (only the hash is ever kept)."""
    return hashlib.sha256(token.encode()).hexdigest()


def command_fingerprint(command: Command) -> str:
    """A digest of a command body, to tell a retry from a different command under the same key."""
    return sha256_hex(canonical(command.body()))


def _alive(method: weakref.WeakMethod) -> Callable[..., Any]:
    """The method a weak reference names (its application is still in use whenever it is called)."""
    bound = method()
    if bound is None:
        raise RuntimeError("the application was closed")
    return bound


def _receipt_identity(receipt: dict) -> tuple[Any, Any, Any]:
    """What must be the same for a receipt to be one already verified (the match id and version are the key)."""
    return receipt.get("head"), receipt.get("key_id"), receipt.get("signature")


def parse_match_id(match_id: str) -> UUID:
    """The aggregate id of a match; MatchNotFound for anything that is not a UUID."""
    try:
        return UUID(str(match_id))
    except (ValueError, AttributeError, TypeError):
        raise MatchNotFound(f"no match {match_id!r}") from None


class MatchApp(Application):
    """Matches in an event store: create, join, act, and read at any version."""

    name = "gambit"
    snapshotting_intervals: ClassVar[dict[type, int]] = {Match: SNAPSHOT_INTERVAL, Tournament: SNAPSHOT_INTERVAL}
    snapshotting_projectors: ClassVar[dict[type, Any]] = {Match: project_match}

    def __init__(
        self,
        env: dict | None = None,
        *,
        signer: ReceiptSigner | None = None,
        seal_key: bytes | None = None,
        on_integrity_problem: Callable[[str, str], None] | None = None,
        standing_problem: Callable[[str], str | None] | None = None,
        max_disputes_per_filer: int | None = None,
        recent_matches: int = REMEMBERED_MATCHES,
    ) -> None:
        """`signer` signs a receipt into every write and checks the receipts the store holds (the
        service always gives one); `seal_key` seals snapshots (a random key, when none is given,
        means snapshots of other processes are ignored); `on_integrity_problem(match_id, problem)`
        hears of every match that fails its checks on load; `standing_problem(match_id)` tells a
        problem found elsewhere (the scrub's alert, shared by every process), which refuses writes
        as one found on load does; `max_disputes_per_filer` caps the
        disputes one seat (or the organizer) files in one match; `recent_matches` is how many
        matches this process keeps in memory to bring up to date rather than rebuild (0: none)."""
        self.signer = signer
        self.max_disputes_per_filer = max_disputes_per_filer
        self._seal_key = seal_key if seal_key is not None else secrets.token_bytes(32)
        self._on_integrity_problem = on_integrity_problem
        self._standing_problem = standing_problem
        # (match id, version) → (head, key id, signature) of a receipt known to be this service's.
        self._verified_receipts: dict[tuple[str, int], tuple[Any, Any, Any]] = {}
        self._recent = RecentMatches(recent_matches)
        # The index reads through a weak reference: a cycle (app → index → app) would keep an application
        # nobody uses, and its store's connection pool, alive until the cyclic collector happens to run.
        records = weakref.WeakMethod(self.records)
        self.reveals = RevealIndex(lambda match_id, after, upto: _alive(records)(match_id, after=after, upto=upto))
        env = dict(env or {})
        postgres = env.get("PERSISTENCE_MODULE") == "eventsourcing.postgres"
        given = {**os.environ, **env}  # as the library reads its settings
        sqlite_file = given.get("SQLITE_DBNAME", ":memory:")
        if given.get("PERSISTENCE_MODULE") == "eventsourcing.sqlite" and ":memory:" not in sqlite_file:
            # Workers boot together: the library's own switch to WAL would fail in all but one of them.
            ensure_wal(sqlite_file)
        if postgres:
            # Workers starting together on a fresh database race in the library's CREATE
            # statements ("tuple concurrently updated"): create the tables ourselves, one process
            # at a time, below.
            env["CREATE_TABLE"] = "false"
        super().__init__(env=env)
        if postgres:
            # The library's PostgreSQL recorders (typed here as the abstract recorder they implement).
            events: Any = self.recorder
            snapshots: Any = self.snapshots.recorder if self.snapshots is not None else None
            with one_process_at_a_time(events.datastore):
                events.create_table()
                if snapshots is not None:
                    snapshots.create_table()
                protect_events(events, postgres_schema=events.datastore.schema)
        elif ":memory:" not in str(self.env.get("SQLITE_DBNAME", "")):
            protect_events(self.recorder)

    def save(self, *objs: Any, **kwargs: Any) -> Any:
        """The library's save; then the reveals index takes in the match records just stored.

        A snapshot due at a version this save records is taken of the match as this write made
        it (see `take_snapshot`), not of the match rebuilt from the store.
        """
        pending = [(obj, list(obj.pending_events)) for obj in objs if isinstance(obj, Match)]
        sources: dict[tuple[UUID, int], Match | KeptMatch] = {}
        for match, _ in pending:
            sources.update(((match.id, version), kept) for version, kept in match.kept_for_snapshots().items())
            sources[(match.id, match.version)] = match
        token = _SNAPSHOT_SOURCES.set(sources)
        try:
            recordings = super().save(*objs, **kwargs)
        finally:
            _SNAPSHOT_SOURCES.reset(token)
        for match, records in pending:
            self.reveals.note(match.match_id, records)
            self._recent.keep(match.id, match.kept())
            if records:
                self._note_own_receipt(match, records[-1])
        return recordings

    def _note_own_receipt(self, match: Match, newest: Any) -> None:
        """Remember the receipt stored with a write just saved as verified: this service signed it for that write.

        The next load finds in the store exactly the receipt remembered here (the same head, key and
        signature), unless the store's copy was changed since, which is then verified as any other.
        """
        receipt = match.receipt
        if self.signer is None or receipt is None or newest.meta.get("receipt") is not receipt:
            return
        self._remember_verified(match.match_id, receipt)

    def _remember_verified(self, match_id: str, receipt: dict) -> None:
        if len(self._verified_receipts) > REMEMBERED_RECEIPTS:
            self._verified_receipts.clear()
        self._verified_receipts[(match_id, receipt["version"])] = _receipt_identity(receipt)

    def take_snapshot(
        self, aggregate_id: Any, version: int | None = None, projector_func: ProjectorFunction[Any, Any] = project_match
    ) -> None:
        """The library's snapshot of a match at a version the save in progress recorded, without its rebuild.

        The library rebuilds the aggregate from the store to snapshot it. The match this very write
        made (or, for a version before the write's newest, the match as it was kept at that version)
        has the same attributes in the same order, so its snapshot is the same bytes; only a
        snapshot the save cannot take so (a tournament's) is the library's.
        """
        source = (_SNAPSHOT_SOURCES.get() or {}).get((aggregate_id, version)) if version is not None else None
        if source is None or self.snapshots is None:
            super().take_snapshot(aggregate_id, version, projector_func)
            return
        match = source.fresh_copy() if isinstance(source, KeptMatch) else source
        self.snapshots.put([match.Snapshot.take(match)])

    def construct_snapshot_store(self) -> EventStore:
        """Snapshots go through a recorder that seals them (see domain/integrity.py)."""
        recorder = SealedRecorder(self.factory.aggregate_recorder(purpose="snapshots"), self._seal_key)
        return self.factory.event_store(mapper=self.mapper, recorder=recorder)

    def construct_repository(self) -> Repository:
        """A repository that uses a snapshot only when it agrees with the stored events."""
        return CheckedRepository(event_store=self.events, snapshot_store=self.snapshots)

    # ----- writes -------------------------------------------------------------------------
    def create_match(self, ruleset_id: str, config: dict | None, tournament_id: str | None = None) -> Match:
        """Create a match with a fresh server seed, committed in its first record."""
        try:
            ruleset = rulesets.get(ruleset_id)
        except KeyError:
            raise UnknownRuleset(f"unknown ruleset {ruleset_id!r}", available=rulesets.available()) from None
        try:
            ruleset_config, options = split_config(config)
            parsed = config_from_dict(ruleset.Config, ruleset_config)
        except ConfigError as exc:
            raise InvalidConfig(str(exc), field=exc.field) from None
        if tournament_id is not None:
            try:
                tournament_id = self.tournament(tournament_id).tournament_id
            except TournamentNotFound:
                raise UnknownTournament(f"no tournament {tournament_id!r}") from None
        server_seed = secrets.token_bytes(32)
        match = Match.open(
            uuid4(),
            ruleset_id,
            {**config_to_dict(parsed), **options.to_dict()},
            tournament_id,
            server_seed,
            hashlib.sha256(server_seed).hexdigest(),
            list(ruleset.seat_names(parsed)),
        )
        self._acknowledge(match)
        self.save(match)
        return match

    def join(
        self, match_id: str, name: str, seat: str | None = None, client_seed: str = "", options: dict | None = None
    ) -> tuple[str, str, Match]:
        """Take a seat (the requested one, or the first free); returns seat, bearer token, match."""
        token = secrets.token_urlsafe(32)

        def take_seat(match: Match) -> str:
            free = match.free_seats()
            if seat is not None and seat not in match.seat_order:
                raise SeatUnavailable(f"this match has no seat {seat!r}", seats=match.seat_order)
            if not free:
                raise SeatUnavailable("every seat of this match is taken")
            if seat is not None and seat not in free:
                raise SeatUnavailable(f"seat {seat!r} is taken")
            chosen = seat or free[0]
            match.join(chosen, name, client_seed, token_hash(token), self._join_options(match, chosen, options))
            return chosen

        chosen, match = self._update(match_id, take_seat)
        return chosen, token, match

    def file_dispute(
        self, match_id: str, call_version: int, reason: str, filed_by: str, pause_clock: bool = False
    ) -> tuple[int, int, int, Match]:
        """Record a dispute against a bluff call (and, when the organizer asks, pause the clocks in the same
        write); returns its number, the versions written (first, last), the match."""
        cap = self.max_disputes_per_filer

        def file(match: Match) -> int:
            number = match.file_dispute(call_version, self.ruling_of(match, call_version), reason, filed_by, cap)
            if pause_clock:
                match.pause_clock(f"dispute {number} is being looked at", number)
            return number

        number, first, match = self._write(match_id, file)
        return number, first, match.version, match

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
    ) -> tuple[int, int, Match]:
        """Record the organizer's ruling on a dispute (and an amended outcome, and the clocks resumed, when
        asked); returns first, last, match."""

        def rule(match: Match) -> None:
            match.rule_dispute(number, decision, note, amended_outcome)
            if resume_clock:
                match.resume_clock(note or f"dispute {number} ruled")

        _, first, match = self._write(match_id, rule)
        return first, match.version, match

    def _update(self, match_id: str, change: Callable[[Match], Any]) -> tuple[Any, Match]:
        """Load, change, save; a lost race is retried on a fresh load (the change is re-decided)."""
        result, _, match = self._write(match_id, change)
        return result, match

    def _write(self, match_id: str, change: Callable[[Match], Any]) -> tuple[Any, int, Match]:
        """`_update`, also telling the first version this write recorded (the last is the match's version).

        The range comes from the load the write was decided on, never from an earlier read, so a
        response built from it holds exactly the records this write made.
        """
        for _ in range(UPDATE_ATTEMPTS):
            # One instant for the deadline check and every record of the write (docs/clocks.md).
            at = clock.fresh_now()
            match = self._enforce_clock(self.match(match_id, enforce_clock=False), at)
            self._refuse_if_tampered(match)
            first = match.version + 1
            with clock.at_instant(at):
                result = change(match)
            self._acknowledge(match)
            try:
                self.save(match)
            except IntegrityError:
                continue  # someone wrote first: nothing of ours was stored; decide again
            return result, first, match
        raise ConcurrentWrite("the match kept changing; try again")

    # ----- tournaments --------------------------------------------------------------------
    def create_tournament(self, name: str) -> tuple[Tournament, str]:
        """Create a tournament; returns it and its organizer key (shown once, only its hash kept)."""
        key = secrets.token_urlsafe(32)
        tournament = Tournament.create(uuid4(), name, token_hash(key))
        self.save(tournament)
        return tournament, key

    def tournament(self, tournament_id: str) -> Tournament:
        """A tournament by id."""
        try:
            tournament: Tournament = self.repository.get(UUID(str(tournament_id)))
        except (ValueError, AggregateNotFoundError):
            raise TournamentNotFound(f"no tournament {tournament_id!r}") from None
        if not isinstance(tournament, Tournament):
            raise TournamentNotFound(f"no tournament {tournament_id!r}")
        return tournament

    @staticmethod
    def is_organizer(tournament: Tournament, key: str) -> bool:
        """Whether a bearer token is this tournament's organizer key (constant-time)."""
        return hmac.compare_digest(token_hash(key), tournament.organizer_key_hash)

    def record_secret_read(
        self, tournament_id: str, organizer: str, match_id: str, resource: str, match_version: int
    ) -> None:
        """Add an entry to the tournament's access trail (retried on a concurrent write)."""
        for _ in range(UPDATE_ATTEMPTS):
            tournament = self.tournament(tournament_id)
            tournament.record_read(organizer, match_id, resource, match_version)
            try:
                self.save(tournament)
                return
            except IntegrityError:
                continue
        raise ConcurrentWrite("the access trail kept changing; try again")

    def access_trail(self, tournament_id: str, after: int = 0, limit: int = 100) -> list[Any]:
        """The tournament's organizer reads, oldest first."""
        tournament = self.tournament(tournament_id)
        if after >= tournament.reads:
            return []  # nothing past the newest entry (and no `after + 1` beyond what a store's integers hold)
        events = self.repository.event_store.get(tournament.id, gt=after + 1, limit=limit)
        return [e for e in events if isinstance(e, Tournament.SecretsRead)]

    def act(
        self,
        match_id: str,
        seat: str,
        command: Command,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
        loaded: Match | None = None,
        written: list[Any] | None = None,
    ) -> tuple[int, int, Match]:
        """Run one command; returns the first and last versions it recorded and the match.

        A repeated Idempotency-Key returns the versions the first attempt recorded. `loaded` is
        the match as the caller just loaded it (to authenticate), so it is not loaded twice.
        `written`, when given, receives the records this call stored (nothing for a repeated key,
        whose records were stored before), so the answer need not read them back.
        """
        match = loaded if loaded is not None else self.match(match_id)
        at = clock.fresh_now()  # the command's instant: its deadline check and its records' timestamps
        # Only a keyed command is told apart from a retry, so only it needs its body's digest.
        fingerprint = "" if idempotency_key is None else command_fingerprint(command)
        if idempotency_key is not None:
            earlier = self._remembered(match, seat, idempotency_key, fingerprint)
            if earlier is not None:
                return earlier[0], earlier[1], match
        match = self._refuse_if_late(match, seat, at)
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
        self._refuse_if_tampered(match)
        with clock.at_instant(at):
            first, last = match.act(seat, command, idempotency, evidence=lambda v: self._evidence(match.id, v))
        self._acknowledge(match)
        records = list(match.pending_events)
        try:
            self.save(match)
        except IntegrityError:
            if idempotency_key is not None:
                again = self._remembered(self.match(match_id), seat, idempotency_key, fingerprint)
                if again is not None:
                    return again[0], again[1], self.match(match_id)
            raise ConcurrentWrite("another command was recorded first; re-read the match and retry") from None
        if written is not None:
            written.extend(records)
        return first, last, match

    # ----- clocks -------------------------------------------------------------------------
    def pause_clock(self, match_id: str, note: str, dispute: int | None = None) -> tuple[int, int, Match]:
        """The organizer pauses every clock of a timed match; returns the versions written and the match."""
        _, first, match = self._write(match_id, lambda match: match.pause_clock(note, dispute))
        return first, match.version, match

    def resume_clock(self, match_id: str, note: str) -> tuple[int, int, Match]:
        """The organizer resumes the clocks; returns the versions written and the match."""
        _, first, match = self._write(match_id, lambda match: match.resume_clock(note))
        return first, match.version, match

    def add_time(self, match_id: str, seat: str, seconds: int, note: str) -> tuple[int, int, Match]:
        """The organizer adds time to a seat's clock; returns the versions written and the match."""
        _, first, match = self._write(match_id, lambda match: match.add_time(seat, seconds, note))
        return first, match.version, match

    def expire_due(self, match_id: str) -> Match:
        """Record every expiry due now (what any read does first); the clock process calls it at a deadline."""
        return self.match(match_id)

    def _refuse_if_late(self, match: Match, seat: str, at: datetime) -> Match:
        """Record the expiries due at the command's instant; refuse the command if its own seat's time ran out.

        Its seat's expiry may already be recorded (by the read that loaded the match, another worker or
        the clock process): a seat that ran out is refused until the match waits for it again.
        """
        late = match.overdue(at)
        own = next((deadline for deadline, late_seat in late if late_seat == seat), None)
        if late:
            match = self._expire(match.match_id, at)
        own = own if own is not None else match.ran_out(seat)
        if own is not None:
            raise clock.ClockExpiredError(
                f"{seat}'s time ran out at {clock.iso(own)}: the command was not taken",
                seat=seat,
                deadline=clock.iso(own),
            )
        return match

    def _enforce_clock(self, match: Match, at: datetime | None = None) -> Match:
        """The match once every expiry due at `at` (now) is recorded: deadlines hold whoever touches the match."""
        at = at or clock.fresh_now()
        if not match.overdue(at) or self.integrity_problem(match) is not None:
            return match  # nothing due; or a history this service did not write, which it never extends
        return self._expire(match.match_id, at)

    def _expire(self, match_id: str, at: datetime) -> Match:
        """Write the expiries due at `at` once: a process that loses the race reloads and finds them written."""
        for _ in range(UPDATE_ATTEMPTS):
            match = self.match(match_id, enforce_clock=False)
            if not match.overdue(at) or self.write_problem(match) is not None:
                return match
            match.expire_overdue(at, evidence=functools.partial(self._evidence, match.id))
            self._acknowledge(match)
            try:
                self.save(match)
            except IntegrityError:
                continue  # another worker or the clock process wrote first: look again
            return match
        raise ConcurrentWrite("the match kept changing; try again")

    # ----- integrity ----------------------------------------------------------------------
    def _acknowledge(self, match: Match) -> None:
        """Sign the write about to be saved; the receipt is stored with its newest record."""
        if self.signer is not None:
            match.acknowledge(self.signer.receipt)

    def integrity_problem(self, match: Match) -> str | None:
        """Why this match, as loaded, is not what this service wrote; None when it is.

        The fold checks every record's chain link and commitment and each receipt's version and
        head; here the newest receipt must carry this service's signature and cover the newest
        record (records past it were written by someone else).
        """
        if match.integrity_problem is not None:
            return match.integrity_problem
        if self.signer is None:
            return None
        receipt = match.receipt
        if receipt is None:
            return f"versions 1..{match.version} carry no receipt of this service"
        if receipt["version"] < match.version:
            return f"versions {receipt['version'] + 1}..{match.version} carry no receipt of this service"
        if self._verified_receipts.get((match.match_id, receipt["version"])) != _receipt_identity(receipt):
            if not self.signer.verify(receipt):
                return f"the receipt at version {receipt['version']} is not signed by this service"
            self._remember_verified(match.match_id, receipt)
        return None

    def write_problem(self, match: Match) -> str | None:
        """Why no write may extend this match: a problem found on this load, or an alert standing for it.

        The load checks the records after the newest snapshot (or the copy kept in memory); an
        edit below them is found by the scrub, whose alert every process reads here.
        """
        problem = self.integrity_problem(match)
        if problem is None and self._standing_problem is not None:
            problem = self._standing_problem(match.match_id)
        return problem

    def _refuse_if_tampered(self, match: Match) -> None:
        """Never extend (and so never sign) a history this service did not write."""
        problem = self.write_problem(match)
        if problem is not None:
            raise IntegrityAlert(
                f"match {match.match_id} fails its integrity checks: {problem}; "
                "no write is taken until an operator has looked",
                problem=problem,
            )

    @staticmethod
    def _join_options(match: Match, seat: str, options: dict | None) -> dict:
        try:
            return match.ruleset.join_options(match.parsed_config, seat, options or {})
        except ConfigError as exc:
            raise InvalidJoinOptions(str(exc), field=exc.field) from None

    @staticmethod
    def _remembered(match: Match, seat: str, key: str, fingerprint: str) -> tuple[int, int] | None:
        entry = match.remembered(seat, key)
        if entry is None:
            return None
        if entry["fingerprint"] != fingerprint:
            raise IdempotencyKeyReused("this Idempotency-Key was used for a different command")
        return entry["first"], entry["last"]

    def _evidence(self, match_uuid: UUID, version: int) -> dict:
        records = list(self.repository.event_store.get(match_uuid, gt=version - 1, lte=version))
        if not records:
            return {"secret": None, "salt": None, "commitment": None}
        record: Any = records[0]  # a stored Match.Recorded
        return {"secret": record.secret, "salt": record.salt, "commitment": record.commitment}

    # ----- reads --------------------------------------------------------------------------
    def match(self, match_id: str, version: int | None = None, enforce_clock: bool = True) -> Match:
        """The match as of a version (the latest by default; the latest records the expiries due first)."""
        uuid = parse_match_id(match_id)
        match = self._brought_up_to_date(uuid) if version is None else None
        if match is None:
            try:
                match = self.repository.get(uuid, version=version, projector_func=project_match)
            except AggregateNotFoundError:
                raise MatchNotFound(f"no match {match_id!r}") from None
            if not isinstance(match, Match):
                raise MatchNotFound(f"no match {match_id!r}")
            if version is None:
                self._recent.keep(uuid, match.kept())
        reveals.bind(match.match_id, self.reveals)
        if version is None and self._on_integrity_problem is not None:
            problem = self.integrity_problem(match)
            if problem is not None:
                self._on_integrity_problem(match.match_id, problem)
        if version is None and enforce_clock:
            match = self._enforce_clock(match)
        return match

    def _brought_up_to_date(self, uuid: UUID) -> Match | None:
        """The match this process last saw, with the records since folded in; None to rebuild it from the store.

        The stored record at the kept version must still carry the kept chain head (domain/recent.py).
        """
        kept = self._recent.get(uuid)
        if kept is None:
            return None
        records: list[Any] = list(self.repository.event_store.get(originator_id=uuid, gt=kept.version - 1))
        if not records or records[0].originator_version != kept.version or records[0].chain != kept.head:
            self._recent.forget(uuid)
            return None
        match = project_match(kept.fresh_copy(), records[1:])
        if match is None:
            return None
        if len(records) > CATCH_UP_KEPT:
            self._recent.keep(uuid, match.kept())
        return match

    def records(self, match_id: str, after: int = 0, upto: int | None = None, limit: int | None = None) -> list[Any]:
        """Stored records of a match, oldest first, with versions in (after, upto]."""
        return list(self.repository.event_store.get(parse_match_id(match_id), gt=after or None, lte=upto, limit=limit))

    @staticmethod
    def authenticate(match: Match, token: str) -> str | None:
        """The seat whose bearer token this is, compared in constant time; None otherwise."""
        presented = token_hash(token)
        found = None
        for seat, stored in match.token_hashes().items():
            if hmac.compare_digest(presented, stored):
                found = seat
        return found
