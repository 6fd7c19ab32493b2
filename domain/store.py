"""The match store: the one eventsourcing application every service of matches and tournaments shares.

Storage is the eventsourcing library's own persistence, chosen by a database URL
(`sqlite:///path` or `postgresql://user:password@host:port/db`). The store saves (signing a
receipt into every write, snapshotting as it goes), loads a match as stored (checking its
records and receipt), and reads records; what a write decides is the services' (domain/application.py
matches, domain/clock_service.py clocks, domain/tournament_service.py tournaments).
"""

from __future__ import annotations

import hashlib
import os
import secrets
import weakref
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import parse_qs, unquote, urlparse
from uuid import UUID, uuid4

from eventsourcing.application import AggregateNotFoundError, Application, ProjectorFunction, Repository
from eventsourcing.persistence import EventStore

from domain import reveals
from domain.errors import IntegrityAlert, MatchNotFound
from domain.integrity import CheckedRepository, ReceiptSigner, SealedRecorder
from domain.kept_match import KeptMatch
from domain.match import SNAPSHOT_INTERVAL, Match, project_match
from domain.recent import REMEMBERED_MATCHES, RecentMatches
from domain.reveals import RevealIndex
from domain.sqlite_wal import ensure_wal
from domain.store_guard import one_process_at_a_time, protect_events
from domain.tournament import Tournament

if TYPE_CHECKING:
    from domain.partition_health import PartitionHealth

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
    """Whether a store's recorder is one of the library's PostgreSQL ones (ours built on them included), whose
    followers can hear of new records (LISTEN, projections/record_wakes.py); SQLite's cannot."""
    return any(cls.__module__ == "eventsourcing.postgres" for cls in type(recorder).__mro__)


# The matches a save in progress can snapshot without rebuilding them: (id, version) → the match then.
_SNAPSHOT_SOURCES: ContextVar[dict[tuple[UUID, int], Match | KeptMatch[Match]] | None] = ContextVar(
    "gambit_snapshot_sources", default=None
)


def token_hash(token: str) -> str:
    """The stored form of a bearer token (only the hash is ever kept)."""
    return hashlib.sha256(token.encode()).hexdigest()


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


@dataclass(frozen=True)
class Written:
    """What one write of a match stored: its versions first..last, the match after it, those records and the receipt.

    For a repeated Idempotency-Key they are the records and receipt of the first answer (read
    back from the store), so a retry answers exactly as the first attempt did.
    """

    first: int
    last: int
    match: Match
    records: tuple[Any, ...]

    @classmethod
    def of(cls, first: int, match: Match, records: list[Any]) -> Written:
        """The write whose records (first..the match's version) were just stored."""
        return cls(first, match.version, match, tuple(records))

    @property
    def receipt(self) -> dict | None:
        """The receipt signed for the write, stored with its newest record (None when it recorded nothing)."""
        return self.records[-1].meta.get("receipt") if self.records else None


class MatchStore(Application):
    """Matches and tournaments in an event store: save with receipts and snapshots, load checked, read records."""

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
        recent_matches: int = REMEMBERED_MATCHES,
    ) -> None:
        """`signer` signs a receipt into every write and checks the receipts the store holds (the
        service always gives one); `seal_key` seals snapshots (a random key, when none is given,
        means snapshots of other processes are ignored); `on_integrity_problem(match_id, problem)`
        hears of every match that fails its checks on load; `standing_problem(match_id)` tells a
        problem found elsewhere (the scrub's alert, shared by every process), which refuses writes
        as one found on load does; `recent_matches` is how many matches this process keeps in memory to bring up to date rather than rebuild (0: none)."""
        self.signer = signer
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
        sources: dict[tuple[UUID, int], Match | KeptMatch[Match]] = {}
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

    # ----- where matches live (one store: here; domain/partitions.py spreads them over several) -----
    @property
    def partitions(self) -> list[MatchStore]:
        """The event stores holding matches, each followed on its own: this one."""
        return [self]

    @property
    def shared(self) -> MatchStore:
        """The store of the tournaments: this one."""
        return self

    @property
    def health(self) -> PartitionHealth | None:
        """Which partitions did not answer lately: none to track in a store of one (it answers or the request fails)."""
        return None

    def store_of(self, match_id: str | UUID) -> MatchStore:
        """The store holding a match: this one."""
        return self

    def partition_number(self, match_id: str | UUID) -> int:
        """The partition of a match: the only one."""
        return 0

    def new_match_id(self) -> UUID:
        """A fresh id for a match."""
        return uuid4()

    # ----- writes -------------------------------------------------------------------------
    def commit(self, match: Match, first: int) -> Written:
        """Sign and save the records a write decided (versions `first` on); IntegrityError when another write came first.

        The receipt is stored with the newest record; the answer holds the very records stored.
        """
        self.acknowledge(match)
        records = list(match.pending_events)
        self.save(match)
        return Written.of(first, match, records)

    def acknowledge(self, match: Match) -> None:
        """Sign the write about to be saved; the receipt is stored with its newest record."""
        if self.signer is not None:
            match.acknowledge(self.signer.receipt)

    # ----- integrity ----------------------------------------------------------------------

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
                return (
                    f"the receipt at version {receipt['version']} is not signed by this service "
                    f"(its key {str(receipt.get('key_id'))[:32]!r} is not one of its keys, or one the log retired "
                    "before this write was logged)"
                )
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

    def refuse_if_tampered(self, match: Match) -> None:
        """Never extend (and so never sign) a history this service did not write."""
        problem = self.write_problem(match)
        if problem is not None:
            raise IntegrityAlert(
                f"match {match.match_id} fails its integrity checks: {problem}; "
                "no write is taken until an operator has looked",
                problem=problem,
            )

    def evidence(self, match_uuid: UUID, version: int) -> dict:
        """The secret, salt and commitment of a stored record (what a ruling opens as its evidence)."""
        records = list(self.repository.event_store.get(match_uuid, gt=version - 1, lte=version))
        if not records:
            return {"secret": None, "salt": None, "commitment": None}
        record: Any = records[0]  # a stored Match.Recorded
        return {"secret": record.secret, "salt": record.salt, "commitment": record.commitment}

    # ----- reads --------------------------------------------------------------------------
    def load(self, match_id: str, version: int | None = None) -> Match:
        """The match as stored at a version (the latest by default), its integrity checked; no expiry is recorded
        (the match service's `match` records the expiries due first)."""
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
