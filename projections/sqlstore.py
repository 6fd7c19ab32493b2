"""One small DB-API wrapper for the read models: SQLite file or PostgreSQL, `?` placeholders."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import parse_qs, unquote, urlparse

from domain.sqlite_wal import switch_to_wal

# Read-model connections per process on PostgreSQL: reads are short, so a few serve all threads.
READ_MODEL_POOL = 3
# Idle SQLite read-model connections kept per process (more are opened when needed, then closed).
SQLITE_IDLE = 4
SCHEMA_LOCK = 7316505
# Rows per multi-row INSERT (`Cursor.insert_rows`): at 7 values a row, well under SQLite's and PostgreSQL's limits.
INSERT_CHUNK = 500


def projection_url(database_url: str) -> str:
    """Where the read models live: a sibling SQLite file, or the same PostgreSQL database."""
    if database_url.startswith("sqlite:///"):
        path = database_url[len("sqlite:///") :]
        if path in ("", ":memory:"):
            raise ValueError("read models need a file or a server, not an in-memory SQLite store")
        return f"sqlite:///{path}.projections"
    return database_url


class MissingSchema(RuntimeError):
    """The database URL names a PostgreSQL schema that does not exist and cannot be created."""


def create_schema_if_missing(pool: Any, schema: str) -> None:
    """Create the URL's `?schema=` when the database has none of that name, one process at a time.

    The read models create their tables in it first, and the event store's tables go there too;
    neither the library nor `CREATE TABLE` makes the schema itself ("no schema has been selected
    to create in" stopped every worker at boot). A user without the right to create it gets one
    clear line instead.
    """
    from psycopg import errors, sql

    with pool.connection() as conn:
        if conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", (schema,)).fetchone():
            return
        try:
            with conn.transaction():
                conn.execute(f"SELECT pg_advisory_xact_lock({SCHEMA_LOCK})")
                conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))
        except errors.InsufficientPrivilege as exc:
            raise MissingSchema(
                f"the database has no schema {schema!r} (GAMBIT_DATABASE_URL ?schema=) and its user may not "
                f"create it: create it, or name an existing one ({exc.diag.message_primary})"
            ) from None


def pg_schema(url: str) -> str:
    """The schema a PostgreSQL store URL names (`?schema=`), `public` by default."""
    return parse_qs(urlparse(url).query).get("schema", ["public"])[0]


def pg_connection_kwargs(url: str, options: str = "") -> dict[str, Any]:
    """psycopg connection arguments for a PostgreSQL store URL, its schema first on the search path."""
    parsed = urlparse(url)
    return {
        "host": parsed.hostname or "127.0.0.1",
        "port": parsed.port or 5432,
        "user": unquote(parsed.username or "postgres"),
        "password": unquote(parsed.password or ""),
        "dbname": parsed.path.lstrip("/") or "postgres",
        "autocommit": True,
        "options": f"-c search_path={pg_schema(url)} {options}".rstrip(),
        "connect_timeout": 5,
    }


class SqlStore:
    """Connections to the read-model database: a few kept idle on SQLite, a small pool on PostgreSQL."""

    def __init__(self, database_url: str) -> None:
        self.url = projection_url(database_url)
        self.sqlite = self.url.startswith("sqlite:///")
        self._idle: list[Any] = []
        self._all: list[Any] = []
        self._all_lock = threading.Lock()
        self._pg_pool: Any = None
        self._wal_lock = threading.Lock()
        self._wal = False

    def _connect(self) -> Any:
        path = self.url[len("sqlite:///") :]
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        conn = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
        if not self._wal:
            with self._wal_lock:
                if not self._wal:
                    switch_to_wal(conn)
                    self._wal = True
        return conn

    def _pool(self) -> Any:
        if self._pg_pool is None:
            with self._all_lock:
                if self._pg_pool is None:
                    from psycopg_pool import ConnectionPool  # only when PostgreSQL is configured

                    schema = pg_schema(self.url)
                    pool = ConnectionPool(
                        kwargs=pg_connection_kwargs(self.url),
                        min_size=1,
                        max_size=READ_MODEL_POOL,
                        open=True,
                        timeout=30,
                        # A connection the server dropped (a restart, a partition's server back up) is replaced
                        # before it is handed out, as the event store's pre-ping does, not failed on first use.
                        check=ConnectionPool.check_connection,
                    )
                    try:
                        create_schema_if_missing(pool, schema)
                    except BaseException:
                        pool.close()
                        raise
                    self._pg_pool = pool
        return self._pg_pool

    @contextmanager
    def connection(self) -> Iterator[Any]:
        """A connection for one unit of work, from a pool on either store.

        Never one per thread: under gevent workers every request is its own greenlet, and a
        per-thread connection would be a new, never-closed connection per request.
        """
        if not self.sqlite:
            with self._pool().connection() as conn:
                yield conn
            return
        with self._all_lock:
            conn = self._idle.pop() if self._idle else None
        if conn is None:
            conn = self._connect()
            with self._all_lock:
                self._all.append(conn)
        try:
            yield conn
        finally:
            with self._all_lock:
                keep = len(self._idle) < SQLITE_IDLE and conn in self._all
                if keep:
                    self._idle.append(conn)
                elif conn in self._all:
                    self._all.remove(conn)
            if not keep:
                conn.close()

    def sql(self, statement: str) -> str:
        """A statement with `?` placeholders in this database's style."""
        return statement if self.sqlite else statement.replace("?", "%s")

    @contextmanager
    def transaction(self, lock_table: str | None = None) -> Iterator[Cursor]:
        """A transaction; `lock_table` serializes writers on PostgreSQL (SQLite takes its write lock up front)."""
        with self.connection() as conn:
            cur = conn.cursor()
            cur.execute("BEGIN IMMEDIATE" if self.sqlite else "BEGIN")
            try:
                if lock_table and not self.sqlite:
                    cur.execute(f"LOCK TABLE {lock_table} IN EXCLUSIVE MODE")
                yield Cursor(cur, self.sql)
            except BaseException:
                cur.execute("ROLLBACK")
                raise
            else:
                cur.execute("COMMIT")

    @contextmanager
    def schema_transaction(self) -> Iterator[Cursor]:
        """A transaction for CREATE statements: on PostgreSQL, one process at a time.

        Workers booting together would otherwise race in CREATE TABLE IF NOT EXISTS (a unique
        violation on the catalog) and fail to boot.
        """
        with self.transaction() as cur:
            if not self.sqlite:
                cur.execute(f"SELECT pg_advisory_xact_lock({SCHEMA_LOCK})")
            yield cur

    def query(self, statement: str, params: tuple = ()) -> list[tuple]:
        """Rows of one read-only statement."""
        with self.connection() as conn:
            cur = conn.cursor()
            cur.execute(self.sql(statement), params)
            return list(cur.fetchall())

    def close(self) -> None:
        """Close every connection this store opened."""
        with self._all_lock:
            for conn in self._all:
                with contextlib.suppress(sqlite3.Error):  # best effort: the connection may already be gone
                    conn.close()
            self._all.clear()
            self._idle.clear()
            if self._pg_pool is not None:
                self._pg_pool.close()
                self._pg_pool = None


class Cursor:
    """A DB-API cursor that speaks `?` placeholders on both SQLite and PostgreSQL."""

    def __init__(self, cursor: Any, translate: Any) -> None:
        self._cursor = cursor
        self._translate = translate

    def execute(self, statement: str, params: tuple = ()) -> None:
        """Run one statement."""
        self._cursor.execute(self._translate(statement), params)

    def executemany(self, statement: str, rows: list[tuple]) -> None:
        """Run one statement for each row of parameters (PostgreSQL pipelines them: one round trip, not one a row)."""
        self._cursor.executemany(self._translate(statement), rows)

    def insert_rows(self, into: str, rows: list[tuple]) -> None:
        """Insert rows with one multi-row `INSERT INTO <into> VALUES (…), (…)` per `INSERT_CHUNK` rows.

        Not `executemany`: PostgreSQL answers a pipelined statement per row, and under gevent the reader waits for
        those answers in many turns of the worker's loop, each behind every request the worker serves, so a batch
        of a few hundred rows took seconds under load."""
        for start in range(0, len(rows), INSERT_CHUNK):
            chunk = rows[start : start + INSERT_CHUNK]
            row_marks = "(" + ", ".join("?" for _ in chunk[0]) + ")"
            statement = f"INSERT INTO {into} VALUES " + ", ".join(row_marks for _ in chunk)
            self._cursor.execute(self._translate(statement), tuple(value for row in chunk for value in row))

    def fetchone(self) -> Any:
        """The next row, or None."""
        return self._cursor.fetchone()

    def fetchall(self) -> list:
        """The remaining rows."""
        return list(self._cursor.fetchall())
