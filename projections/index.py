"""Cross-match read models: the match index and the bluff-call table.

Both follow the event store's notification log and keep their position in the same
transaction as their rows, so they resume where they stopped and can be rebuilt from
scratch. Readers call `catch_up()` before answering (a polling follower, which works on
SQLite and PostgreSQL alike); a separate projector process can keep them warm.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from contextlib import contextmanager
from typing import Any, Iterator
from urllib.parse import parse_qs, unquote, urlparse

from domain.application import MatchApp
from domain.match import MATCH_CREATED, MATCH_FINISHED, SEAT_JOINED

NAME = "cross_match_index"
BATCH = 500
MAX_LIMIT = 200

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
]


def projection_url(database_url: str) -> str:
    """Where the read models live: a sibling SQLite file, or the same PostgreSQL database."""
    if database_url.startswith("sqlite:///"):
        path = database_url[len("sqlite:///"):]
        if path in ("", ":memory:"):
            raise ValueError("the cross-match index needs a file or a server, not an in-memory SQLite store")
        return f"sqlite:///{path}.projections"
    return database_url


class CrossMatchIndex:
    """The match index and bluff-call table, following one application's event store."""

    def __init__(self, app: MatchApp, database_url: str) -> None:
        self.app = app
        self.url = projection_url(database_url)
        self._lock = threading.Lock()
        self._sqlite = self.url.startswith("sqlite:///")
        self._local = threading.local()
        with self._transaction() as cur:
            for statement in _SCHEMA:
                cur.execute(statement)

    # ----- storage --------------------------------------------------------------------------
    def _connect(self) -> Any:
        if self._sqlite:
            path = self.url[len("sqlite:///"):]
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
            conn = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            return conn
        import psycopg  # imported only when PostgreSQL is configured

        parsed = urlparse(self.url)
        schema = parse_qs(parsed.query).get("schema", ["public"])[0]
        return psycopg.connect(host=parsed.hostname or "127.0.0.1", port=parsed.port or 5432,
                               user=unquote(parsed.username or "postgres"), password=unquote(parsed.password or ""),
                               dbname=parsed.path.lstrip("/") or "postgres", autocommit=True,
                               options=f"-c search_path={schema}", connect_timeout=5)

    def _conn(self) -> Any:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = self._connect()
        return conn

    def close(self) -> None:
        """Close this thread's connection."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def _sql(self, statement: str) -> str:
        return statement if self._sqlite else statement.replace("?", "%s")

    @contextmanager
    def _transaction(self) -> Iterator[Any]:
        conn = self._conn()
        cur = conn.cursor()
        # IMMEDIATE takes SQLite's write lock up front so two followers never apply one batch twice.
        cur.execute("BEGIN IMMEDIATE" if self._sqlite else "BEGIN")
        try:
            yield _Cursor(cur, self._sql)
        except BaseException:
            cur.execute("ROLLBACK")
            raise
        else:
            cur.execute("COMMIT")

    def _query(self, statement: str, params: tuple = ()) -> list[tuple]:
        cur = self._conn().cursor()
        cur.execute(self._sql(statement), params)
        return list(cur.fetchall())

    # ----- following --------------------------------------------------------------------------
    def position(self) -> int:
        """The last notification id folded in (0 before any)."""
        rows = self._query("SELECT position FROM gambit_tracking WHERE name = ?", (NAME,))
        return int(rows[0][0]) if rows else 0

    def lag(self) -> int:
        """How many notifications the store has that the index has not folded in yet."""
        head = self.app.recorder.max_notification_id() or 0
        return max(0, head - self.position())

    def catch_up(self, max_batches: int | None = None) -> int:
        """Fold new notifications into the read models; returns how many were processed."""
        processed = 0
        batches = 0
        with self._lock:
            while max_batches is None or batches < max_batches:
                batches += 1
                with self._transaction() as cur:
                    if not self._sqlite:
                        cur.execute("LOCK TABLE gambit_tracking IN EXCLUSIVE MODE")
                    cur.execute("SELECT position FROM gambit_tracking WHERE name = ?", (NAME,))
                    row = cur.fetchone()
                    position = int(row[0]) if row else 0
                    notifications = self.app.recorder.select_notifications(position + 1, BATCH)
                    if not notifications:
                        return processed
                    for notification in notifications:
                        self._fold(cur, notification.id, self.app.mapper.to_domain_event(notification))
                    last = notifications[-1].id
                    if row is None:
                        cur.execute("INSERT INTO gambit_tracking (name, position) VALUES (?, ?)", (NAME, last))
                    else:
                        cur.execute("UPDATE gambit_tracking SET position = ? WHERE name = ?", (last, NAME))
                    processed += len(notifications)
                if len(notifications) < BATCH:
                    return processed
        return processed

    def rebuild(self) -> int:
        """Drop every row and fold the whole store again."""
        with self._lock, self._transaction() as cur:
            cur.execute("DELETE FROM gambit_match_index")
            cur.execute("DELETE FROM gambit_bluff_calls")
            cur.execute("DELETE FROM gambit_tracking WHERE name = ?", (NAME,))
        return self.catch_up()

    def _fold(self, cur: _Cursor, seq: int, event: Any) -> None:
        kind = getattr(event, "kind", None)
        match_id = str(event.originator_id)
        version = event.originator_version
        if kind == MATCH_CREATED:
            public = event.public
            cur.execute("INSERT INTO gambit_match_index (match_id, seq, ruleset, tournament_id, status, created_at, "
                        "seats_total, seats_joined, version) VALUES (?, ?, ?, ?, 'open', ?, ?, 0, ?)",
                        (match_id, seq, public["ruleset"], public.get("tournament_id"), event.timestamp.isoformat(),
                         len(public["seats"]), version))
            return
        if kind == SEAT_JOINED:
            cur.execute("UPDATE gambit_match_index SET seats_joined = seats_joined + 1, version = ?, "
                        "status = CASE WHEN seats_joined + 1 >= seats_total THEN 'active' ELSE status END "
                        "WHERE match_id = ?", (version, match_id))
            return
        if kind == MATCH_FINISHED:
            cur.execute("UPDATE gambit_match_index SET status = 'finished', version = ? WHERE match_id = ?",
                        (version, match_id))
            return
        cur.execute("UPDATE gambit_match_index SET version = ? WHERE match_id = ?", (version, match_id))
        call = event.public.get("bluff_call") if isinstance(getattr(event, "public", None), dict) else None
        if call is not None:
            cur.execute("SELECT tournament_id, ruleset FROM gambit_match_index WHERE match_id = ?", (match_id,))
            row = cur.fetchone() or (None, "")
            cur.execute("INSERT INTO gambit_bluff_calls (seq, match_id, ruling_version, tournament_id, ruleset, verdict, "
                        "caller, claimant, call_version, ruling_kind, call, timestamp) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (seq, match_id, version, row[0], row[1], str(call.get("verdict")), call.get("caller"),
                         call.get("claimant"), call.get("call_version"), kind, json.dumps(call), event.timestamp.isoformat()))

    # ----- queries ----------------------------------------------------------------------------
    def matches(self, status: str | None = None, ruleset: str | None = None, tournament_id: str | None = None,
                after: int | None = None, limit: int = 50) -> tuple[list[str], int | None]:
        """Match ids, newest first, filtered; and the cursor of the next page (or None)."""
        self.catch_up()
        where, params = [], []
        for column, value in (("status", status), ("ruleset", ruleset), ("tournament_id", tournament_id)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        if after is not None:
            where.append("seq < ?")
            params.append(after)
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        rows = self._query(f"SELECT match_id, seq FROM gambit_match_index {clause} ORDER BY seq DESC LIMIT ?",
                           (*params, limit + 1))
        more = len(rows) > limit
        rows = rows[:limit]
        return [r[0] for r in rows], (int(rows[-1][1]) if more else None)

    def bluff_calls(self, match_id: str | None = None, tournament_id: str | None = None, verdict: str | None = None,
                    after: int | None = None, limit: int = 50) -> tuple[list[dict], int | None]:
        """Bluff calls across matches, oldest first, filtered; and the next page's cursor."""
        self.catch_up()
        where, params = [], []
        for column, value in (("match_id", match_id), ("tournament_id", tournament_id), ("verdict", verdict)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        if after is not None:
            where.append("seq > ?")
            params.append(after)
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        rows = self._query("SELECT seq, match_id, ruling_version, tournament_id, ruleset, ruling_kind, call, timestamp "
                           f"FROM gambit_bluff_calls {clause} ORDER BY seq LIMIT ?", (*params, limit + 1))
        more = len(rows) > limit
        rows = rows[:limit]
        calls = [{"match_id": r[1], "ruling_version": r[2], "tournament_id": r[3], "ruleset": r[4], "ruling_kind": r[5],
                  "timestamp": r[7], **json.loads(r[6])} for r in rows]
        return calls, (int(rows[-1][0]) if more else None)


class _Cursor:
    """A DB-API cursor that speaks `?` placeholders on both SQLite and PostgreSQL."""

    def __init__(self, cursor: Any, translate: Any) -> None:
        self._cursor = cursor
        self._translate = translate

    def execute(self, statement: str, params: tuple = ()) -> None:
        """Run one statement."""
        self._cursor.execute(self._translate(statement), params)

    def fetchone(self) -> Any:
        """The next row, or None."""
        return self._cursor.fetchone()
