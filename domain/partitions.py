"""Matches partitioned across event stores (issue 34): where a match lives, and the store that sends each call there.

A deployment may list several event stores (`GAMBIT_PARTITION_URLS`): PostgreSQL servers, or
schemas of one. A match lives in exactly one of them, its partition, for its whole life. The
partition is chosen when the match is created, from the match id's own random bits (a stable
function of the id: its value modulo the number of partitions), and recorded *in the id*: a
partitioned id is a version-8 UUID (RFC 9562: custom layout) whose first 16 bits are its
partition's number. Every request finds its match's partition from the id alone, without asking
any store, and adding partitions later moves nothing: ids already given keep the number they
carry. An ordinary (version-4) id, as every match created before partitioning has, is in
partition 0 — so partitioning an existing store lists it first.

Tournaments (and their access trail) live in the shared store, `GAMBIT_DATABASE_URL`, with the
read models; it may be one of the partitions too.

Each partition is a `MatchStore` of its own: its own gap-free notification log (its own table
lock per append, domain/pg_append.py), its own snapshots and its own followers' positions. A
partition that does not answer makes only its own matches unavailable: `PartitionUnavailable`
(503), naming the partition and the cause.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID, uuid4

from domain.errors import MatchNotFound
from domain.match import Match
from domain.partition_health import PartitionHealth, reaching
from domain.store import MatchStore, Written, parse_match_id

# The UUID version that marks a partitioned match id (its first 16 bits: the partition).
PARTITIONED_ID_VERSION = 8
MAX_PARTITIONS = 1 << 16


def new_match_id(partitions: int) -> UUID:
    """A fresh match id: an ordinary random one with one partition; with several, one that names its partition."""
    drawn = uuid4()
    if partitions <= 1:
        return drawn
    if partitions > MAX_PARTITIONS:
        raise ValueError(f"at most {MAX_PARTITIONS} partitions, not {partitions}")
    raw = bytearray(drawn.bytes)
    raw[0:2] = (drawn.int % partitions).to_bytes(2, "big")
    raw[6] = (raw[6] & 0x0F) | (PARTITIONED_ID_VERSION << 4)
    return UUID(bytes=bytes(raw))


def partition_of(match_id: UUID) -> int:
    """The partition a match id names: its first 16 bits for a partitioned (version-8) id, 0 for any other."""
    return int.from_bytes(match_id.bytes[0:2], "big") if match_id.version == PARTITIONED_ID_VERSION else 0


class PartitionedStore:
    """Matches in several stores, tournaments in the shared one: each call goes to the one store that holds it.

    It offers what the match, clock and tournament services ask of a `MatchStore`.
    """

    def __init__(self, partitions: list[MatchStore], shared: MatchStore) -> None:
        """`partitions` in their configured order (a match's number indexes it); `shared` holds the tournaments."""
        if not partitions:
            raise ValueError("a partitioned store needs at least one partition")
        self.partitions = partitions
        self.shared = shared
        self.health = PartitionHealth()

    # ----- where a match lives --------------------------------------------------------------
    def new_match_id(self) -> UUID:
        """A fresh id for a match, naming the partition it will live in."""
        return new_match_id(len(self.partitions))

    def partition_number(self, match_id: str | UUID) -> int:
        """The partition of a match (by its id alone); MatchNotFound when the id names none configured."""
        uuid_ = match_id if isinstance(match_id, UUID) else parse_match_id(match_id)
        number = partition_of(uuid_)
        if number >= len(self.partitions):
            raise MatchNotFound(f"no match {str(match_id)!r}")
        return number

    def store_of(self, match_id: str | UUID) -> MatchStore:
        """The store holding a match."""
        return self.partitions[self.partition_number(match_id)]

    @property
    def repository(self) -> Any:
        """The shared store's repository: the tournaments'."""
        return self.shared.repository

    @property
    def signer(self) -> Any:
        """The signer every partition shares."""
        return self.shared.signer

    # ----- the MatchStore calls, each sent to its match's partition --------------------------
    def load(self, match_id: str, version: int | None = None) -> Match:
        """The match as stored at a version (see MatchStore.load), from its partition."""
        number = self.partition_number(match_id)
        with reaching(number, self.health):
            return self.partitions[number].load(match_id, version)

    def records(self, match_id: str, after: int = 0, upto: int | None = None, limit: int | None = None) -> list[Any]:
        """Stored records of a match (see MatchStore.records), from its partition."""
        number = self.partition_number(match_id)
        with reaching(number, self.health):
            return self.partitions[number].records(match_id, after=after, upto=upto, limit=limit)

    def evidence(self, match_uuid: UUID, version: int) -> dict:
        """The secret, salt and commitment of a stored record (see MatchStore.evidence)."""
        number = self.partition_number(match_uuid)
        with reaching(number, self.health):
            return self.partitions[number].evidence(match_uuid, version)

    def commit(self, match: Match, first: int) -> Written:
        """Sign and save a match's write in its partition (see MatchStore.commit)."""
        number = self.partition_number(match.id)
        with reaching(number, self.health):
            return self.partitions[number].commit(match, first)

    def save(self, *objs: Any, **kwargs: Any) -> Any:
        """Save each object where it lives: a match in its partition, anything else (a tournament) in the shared store."""
        recordings: list[Any] = []
        for obj in objs:
            if isinstance(obj, Match):
                number = self.partition_number(obj.id)
                with reaching(number, self.health):
                    recordings += self.partitions[number].save(obj, **kwargs)
            else:
                recordings += self.shared.save(obj, **kwargs)
        return recordings

    def acknowledge(self, match: Match) -> None:
        """Sign the write about to be saved (see MatchStore.acknowledge)."""
        self.store_of(match.id).acknowledge(match)

    def integrity_problem(self, match: Match) -> str | None:
        """Why this match is not what this service wrote (see MatchStore.integrity_problem)."""
        return self.store_of(match.id).integrity_problem(match)

    def write_problem(self, match: Match) -> str | None:
        """Why no write may extend this match (see MatchStore.write_problem)."""
        return self.store_of(match.id).write_problem(match)

    def refuse_if_tampered(self, match: Match) -> None:
        """Never extend a history this service did not write (see MatchStore.refuse_if_tampered)."""
        self.store_of(match.id).refuse_if_tampered(match)

    def close(self) -> None:
        """Release every store's connections."""
        for store in {id(s): s for s in [*self.partitions, self.shared]}.values():
            store.close()
