"""One small DB-API wrapper for the read models: SQLite file or PostgreSQL, `?` placeholders."""

from __future__ import annotations

import os
import sqlite3
import threading
from contextlib import contextmanager
from typing import Any, Iterator
from urllib.parse import parse_qs, unquote, urlparse


def projection_url(database_url: str) -> str:
    """Where the read models live: a sibling SQLite file, or the same PostgreSQL database."""
    if database_url.startswith("sqlite:///"):
        path = database_url[len("sqlite:///"):]
        if path in ("", ":memory:"):
            raise ValueError("read models need a file or a server, not an in-memory SQLite store")
        return f"sqlite:///{path}.projections"
    return database_url


class SqlStore:
    """A connection per thread to the read-model database, with explicit transactions."""

    def __init__(self, database_url: str) -> None:
        self.url = projection_url(database_url)
        self.sqlite = self.url.startswith("sqlite:///")
        self._local = threading.local()
        self._all: list[Any] = []
        self._all_lock = threading.Lock()

    def _connect(self) -> Any:
        if self.sqlite:
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

    def conn(self) -> Any:
        """This thread's connection."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = self._connect()
            with self._all_lock:
                self._all.append(conn)
        return conn

    def sql(self, statement: str) -> str:
        """A statement with `?` placeholders in this database's style."""
        return statement if self.sqlite else statement.replace("?", "%s")

    @contextmanager
    def transaction(self, lock_table: str | None = None) -> Iterator[Cursor]:
        """A transaction; `lock_table` serializes writers on PostgreSQL (SQLite takes its write lock up front)."""
        cur = self.conn().cursor()
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

    def query(self, statement: str, params: tuple = ()) -> list[tuple]:
        """Rows of one read-only statement."""
        cur = self.conn().cursor()
        cur.execute(self.sql(statement), params)
        return list(cur.fetchall())

    def close(self) -> None:
        """Close every connection this store opened."""
        with self._all_lock:
            for conn in self._all:
                try:
                    conn.close()
                except Exception:  # closing is best effort: the connection may already be gone
                    pass
            self._all.clear()
        self._local = threading.local()


class Cursor:
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

    def fetchall(self) -> list:
        """The remaining rows."""
        return list(self._cursor.fetchall())
