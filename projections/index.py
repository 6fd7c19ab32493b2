"""Cross-match read models: the match index and the bluff-call table.

Both follow the event store's notification log and keep their position in the same
transaction as their rows, so they resume where they stopped and can be rebuilt from
scratch. Readers call `catch_up()` before answering (a polling follower, which works on
SQLite and PostgreSQL alike); a separate projector process can keep them warm.
"""

from __future__ import annotations

import heapq
import json
import logging
import threading
from typing import Any

from domain.match import DISPUTE_FILED, DISPUTE_RULED, MATCH_CREATED, MATCH_FINISHED, SEAT_JOINED, match_record
from domain.partitions import PartitionedStore
from domain.store import MatchStore
from projections.sqlstore import Cursor, SqlStore

NAME = "cross_match_index"
# With several partitions: the last row number the index gave (a row's `seq`).
SEQ_NAME = "cross_match_index#seq"
BATCH = 500

log = logging.getLogger("gambit.index")

_SCHEMA = [
    """CREATE TABLE IF NOT EXISTS gambit_tracking (name TEXT PRIMARY KEY, position BIGINT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS gambit_match_index (
        match_id TEXT PRIMARY KEY, seq BIGINT NOT NULL, ruleset TEXT NOT NULL, tournament_id TEXT,
        status TEXT NOT NULL, created_at TEXT NOT NULL, seats_total INTEGER NOT NULL,
        seats_joined INTEGER NOT NULL, version INTEGER NOT NULL)""",
    """CREATE INDEX IF NOT EXISTS gambit_match_index_seq ON gambit_match_index (seq)""",
    """CREATE TABLE IF NOT EXISTS gambit_bluff_calls (
        seq BIGINT PRIMARY KEY, match_id TEXT NOT NULL, ruling_version INTEGER NOT NULL,
        tournament_id TEXT, ruleset TEXT NOT NULL, verdict TEXT, caller TEXT, claimant TEXT,
        call_version INTEGER, ruling_kind TEXT NOT NULL, call TEXT NOT NULL, timestamp TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS gambit_disputes (
        match_id TEXT NOT NULL, dispute INTEGER NOT NULL, tournament_id TEXT, call_version INTEGER NOT NULL,
        reason TEXT NOT NULL, filed_by TEXT NOT NULL, filed_version INTEGER NOT NULL, status TEXT NOT NULL,
        decision TEXT, note TEXT, ruled_version INTEGER, PRIMARY KEY (match_id, dispute))""",
]


def tracking_name(partition: int) -> str:
    """The index's tracking row for a partition's log: partition 0 keeps the name it had before partitions."""
    return NAME if partition == 0 else f"{NAME}@{partition}"


def _track(cur: Cursor, name: str, exists: bool, position: int) -> None:
    """Keep a log's position, in the transaction that folded its records."""
    if exists:
        cur.execute("UPDATE gambit_tracking SET position = ? WHERE name = ?", (position, name))
    else:
        cur.execute("INSERT INTO gambit_tracking (name, position) VALUES (?, ?)", (name, position))


def _take_seqs(cur: Cursor, count: int) -> int:
    """Reserve `count` row numbers (inside the fold's transaction); returns the last one given before them.

    The first reservation starts past every row already there (numbered by notification id while there was one store).
    """
    cur.execute("SELECT position FROM gambit_tracking WHERE name = ?", (SEQ_NAME,))
    row = cur.fetchone()
    if row is None:
        cur.execute(
            "SELECT MAX(seq) FROM (SELECT seq FROM gambit_match_index UNION ALL SELECT seq FROM gambit_bluff_calls) s"
        )
        found = cur.fetchone()
        base = int(found[0]) if found and found[0] is not None else 0
        cur.execute("INSERT INTO gambit_tracking (name, position) VALUES (?, ?)", (SEQ_NAME, base + count))
        return base
    base = int(row[0])
    cur.execute("UPDATE gambit_tracking SET position = ? WHERE name = ?", (base + count, SEQ_NAME))
    return base


class CrossMatchIndex:
    """The match index, bluff-call table and dispute queue, following one application's store."""

    def __init__(self, app: MatchStore | PartitionedStore, store: SqlStore) -> None:
        self.app = app
        self.store = store
        self._lock = threading.Lock()
        with self.store.schema_transaction() as cur:
            for statement in _SCHEMA:
                cur.execute(statement)

    def close(self) -> None:
        """Close the read-model connections."""
        self.store.close()

    # ----- following --------------------------------------------------------------------------
    def position(self, partition: int = 0) -> int:
        """The last notification id of a partition's log folded in (0 before any)."""
        rows = self.store.query("SELECT position FROM gambit_tracking WHERE name = ?", (tracking_name(partition),))
        return int(rows[0][0]) if rows else 0

    def lag(self) -> int:
        """How many notifications the stores have that the index has not folded in yet (every partition's)."""
        behind = 0
        for number, partition in enumerate(self.app.partitions):
            head = partition.recorder.max_notification_id() or 0
            behind += max(0, head - self.position(number))
        return behind

    def catch_up(self, max_batches: int | None = None) -> int:
        """Fold new notifications of every partition into the read models; returns how many were processed.

        With several partitions one that fails is logged and passed over (its place is kept: nothing is lost)."""
        partitions = self.app.partitions
        with self._lock:
            if len(partitions) == 1:
                return self._catch_up_one(partitions[0], max_batches)
            return self._catch_up_merged(partitions, max_batches)

    def _catch_up_one(self, partition: Any, max_batches: int | None) -> int:
        """One store: a row's place (`seq`) is its notification id, as before partitions."""
        processed = 0
        batches = 0
        while max_batches is None or batches < max_batches:
            batches += 1
            with self.store.transaction(lock_table="gambit_tracking") as cur:
                cur.execute("SELECT position FROM gambit_tracking WHERE name = ?", (NAME,))
                row = cur.fetchone()
                position = int(row[0]) if row else 0
                notifications = partition.recorder.select_notifications(position + 1, BATCH)
                if not notifications:
                    return processed
                for notification in notifications:
                    self._fold(cur, notification.id, partition.mapper.to_domain_event(notification))
                _track(cur, NAME, row is not None, notifications[-1].id)
                processed += len(notifications)
            if len(notifications) < BATCH:
                return processed
        return processed

    def _catch_up_merged(self, partitions: list[Any], max_batches: int | None) -> int:
        """Several partitions: each batch takes the new records of every partition, merged by their time (each
        partition's own order kept), and the index numbers the rows in that order, so lists across partitions
        are newest first and their pages keep one order that only grows."""
        processed = 0
        batches = 0
        while max_batches is None or batches < max_batches:
            batches += 1
            more = False
            with self.store.transaction(lock_table="gambit_tracking") as cur:
                streams, tracked = [], []
                health = self.app.health
                for number, partition in enumerate(partitions):
                    if health is not None and health.unanswered(number):
                        continue  # it did not answer lately: the others go on without waiting for it again
                    name = tracking_name(number)
                    cur.execute("SELECT position FROM gambit_tracking WHERE name = ?", (name,))
                    row = cur.fetchone()
                    try:
                        notifications = partition.recorder.select_notifications((int(row[0]) if row else 0) + 1, BATCH)
                    except Exception as exc:
                        log.exception("index: partition %d could not be followed; the others go on", number)
                        if health is not None:
                            health.failed(number, exc)
                        continue
                    if not notifications:
                        continue
                    more = more or len(notifications) == BATCH
                    tracked.append((name, row is not None, notifications[-1].id))
                    events = [partition.mapper.to_domain_event(n) for n in notifications]
                    streams.append([(event.timestamp, number, event) for event in events])
                if not streams:
                    return processed
                # heapq.merge only ever takes the head of each partition's list: each keeps its own order.
                merged = list(heapq.merge(*streams, key=lambda item: (item[0], item[1])))
                base = _take_seqs(cur, len(merged))
                for offset, (_, _, event) in enumerate(merged):
                    self._fold(cur, base + offset + 1, event)
                for name, exists, last in tracked:
                    _track(cur, name, exists, last)
                processed += len(merged)
            if not more:
                return processed
        return processed

    def rebuild(self) -> int:
        """Drop every row and fold the whole store (every partition) again."""
        names = [tracking_name(number) for number in range(len(self.app.partitions))] + [SEQ_NAME]
        with self._lock, self.store.transaction(lock_table="gambit_tracking") as cur:
            cur.execute("DELETE FROM gambit_match_index")
            cur.execute("DELETE FROM gambit_bluff_calls")
            cur.execute("DELETE FROM gambit_disputes")
            for name in names:
                cur.execute("DELETE FROM gambit_tracking WHERE name = ?", (name,))
        return self.catch_up()

    def _fold(self, cur: Cursor, seq: int, stored: Any) -> None:
        event = match_record(stored)
        if event is None:
            return  # a tournament's own events (creation, access trail) are not match records
        kind = event.kind
        match_id = str(event.originator_id)
        version = event.originator_version
        if kind == MATCH_CREATED:
            public = event.public
            cur.execute(
                "INSERT INTO gambit_match_index (match_id, seq, ruleset, tournament_id, status, created_at, "
                "seats_total, seats_joined, version) VALUES (?, ?, ?, ?, 'open', ?, ?, 0, ?)",
                (
                    match_id,
                    seq,
                    public["ruleset"],
                    public.get("tournament_id"),
                    event.timestamp.isoformat(),
                    len(public["seats"]),
                    version,
                ),
            )
            return
        if kind == SEAT_JOINED:
            cur.execute(
                "UPDATE gambit_match_index SET seats_joined = seats_joined + 1, version = ?, "
                "status = CASE WHEN seats_joined + 1 >= seats_total THEN 'active' ELSE status END "
                "WHERE match_id = ?",
                (version, match_id),
            )
            return
        if kind == MATCH_FINISHED:
            cur.execute(
                "UPDATE gambit_match_index SET status = 'finished', version = ? WHERE match_id = ?", (version, match_id)
            )
            return
        cur.execute("UPDATE gambit_match_index SET version = ? WHERE match_id = ?", (version, match_id))
        public = event.public
        if kind == DISPUTE_FILED:
            cur.execute(
                "INSERT INTO gambit_disputes (match_id, dispute, tournament_id, call_version, reason, filed_by, "
                "filed_version, status) SELECT ?, ?, tournament_id, ?, ?, ?, ?, 'open' FROM gambit_match_index "
                "WHERE match_id = ?",
                (
                    match_id,
                    public["dispute"],
                    public["call_version"],
                    public["reason"],
                    public["filed_by"],
                    version,
                    match_id,
                ),
            )
            return
        if kind == DISPUTE_RULED:
            cur.execute(
                "UPDATE gambit_disputes SET status = 'ruled', decision = ?, note = ?, ruled_version = ? "
                "WHERE match_id = ? AND dispute = ?",
                (public["decision"], public["note"], version, match_id, public["dispute"]),
            )
            return
        call = public.get("bluff_call")
        if call is not None:
            cur.execute("SELECT tournament_id, ruleset FROM gambit_match_index WHERE match_id = ?", (match_id,))
            row = cur.fetchone() or (None, "")
            cur.execute(
                "INSERT INTO gambit_bluff_calls (seq, match_id, ruling_version, tournament_id, ruleset, verdict, "
                "caller, claimant, call_version, ruling_kind, call, timestamp) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    seq,
                    match_id,
                    version,
                    row[0],
                    row[1],
                    str(call.get("verdict")),
                    call.get("caller"),
                    call.get("claimant"),
                    call.get("call_version"),
                    kind,
                    json.dumps(call),
                    event.timestamp.isoformat(),
                ),
            )

    # ----- queries ----------------------------------------------------------------------------
    def _page(
        self, select: str, filters: dict, cursor: tuple[str, int | None], order: str, limit: int
    ) -> tuple[list[tuple], bool]:
        """Rows of one filtered, keyset-paged query (`cursor` is the comparison on `seq`); and whether more follow."""
        self.catch_up()
        where, params = [], []
        for column, value in filters.items():
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        comparison, after = cursor
        if after is not None:
            where.append(f"seq {comparison} ?")
            params.append(after)
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        rows = self.store.query(f"{select} {clause} ORDER BY seq {order} LIMIT ?", (*params, limit + 1))
        return rows[:limit], len(rows) > limit

    def matches(
        self,
        status: str | None = None,
        ruleset: str | None = None,
        tournament_id: str | None = None,
        after: int | None = None,
        limit: int = 50,
    ) -> tuple[list[str], int | None]:
        """Match ids, newest first, filtered; and the cursor of the next page (or None)."""
        rows, more = self._page(
            "SELECT match_id, seq FROM gambit_match_index",
            {"status": status, "ruleset": ruleset, "tournament_id": tournament_id},
            ("<", after),
            "DESC",
            limit,
        )
        return [r[0] for r in rows], (int(rows[-1][1]) if more else None)

    def bluff_calls(
        self,
        match_id: str | None = None,
        tournament_id: str | None = None,
        verdict: str | None = None,
        after: int | None = None,
        limit: int = 50,
    ) -> tuple[list[dict], int | None]:
        """Bluff calls across matches, oldest first, filtered; and the next page's cursor."""
        rows, more = self._page(
            "SELECT seq, match_id, ruling_version, tournament_id, ruleset, ruling_kind, call, "
            "timestamp FROM gambit_bluff_calls",
            {"match_id": match_id, "tournament_id": tournament_id, "verdict": verdict},
            (">", after),
            "ASC",
            limit,
        )
        calls = [
            {
                "match_id": r[1],
                "ruling_version": r[2],
                "tournament_id": r[3],
                "ruleset": r[4],
                "ruling_kind": r[5],
                "timestamp": r[7],
                **json.loads(r[6]),
            }
            for r in rows
        ]
        return calls, (int(rows[-1][0]) if more else None)

    def unfinished(self, match_ids: set[str]) -> set[str]:
        """Those of these matches the index knows and has not seen finish (a finished match is so for good)."""
        if not match_ids:
            return set()
        ids = sorted(match_ids)
        marks = ", ".join("?" for _ in ids)
        rows = self.store.query(
            f"SELECT match_id FROM gambit_match_index WHERE status <> 'finished' AND match_id IN ({marks})", tuple(ids)
        )
        return {row[0] for row in rows}

    def disputes(self, tournament_id: str, offset: int = 0, limit: int = 100) -> list[dict]:
        """A page of a tournament's dispute queue: open disputes first, then by match and number."""
        self.catch_up()
        rows = self.store.query(
            "SELECT match_id, dispute, call_version, reason, filed_by, filed_version, status, decision, note, "
            "ruled_version FROM gambit_disputes WHERE tournament_id = ? "
            "ORDER BY CASE status WHEN 'open' THEN 0 ELSE 1 END, match_id, dispute LIMIT ? OFFSET ?",
            (tournament_id, limit, min(offset, 2**62)),
        )
        queue = []
        for r in rows:
            entry = {
                "match_id": r[0],
                "dispute": r[1],
                "call_version": r[2],
                "reason": r[3],
                "filed_by": r[4],
                "status": r[6],
                "filed_version": r[5],
            }
            if r[6] == "ruled":
                entry.update(decision=r[7], note=r[8], ruled_version=r[9])
            queue.append(entry)
        return queue
