"""What an attacker with write access to the database (but not the service key) can do, on both stores.

`StoreAccess` reads and writes the library's tables directly: stored events and snapshots,
row by row, after dropping the append-only triggers as such an attacker would first.
"""

from __future__ import annotations

import json
import sqlite3
from urllib.parse import parse_qs, urlparse

from domain.records import chain_link

EVENTS = "events"
SNAPSHOTS = "snapshots"
# The library names its tables per store: fixed names on SQLite, the application's name on PostgreSQL.
_TABLES = {True: {EVENTS: "stored_events", SNAPSHOTS: "stored_snapshots"},
           False: {EVENTS: "gambit_events", SNAPSHOTS: "gambit_snapshots"}}


def drop_sqlite_guards(db_path) -> None:
    """Drop the append-only triggers of a SQLite store, so rows can be edited in tamper tests."""
    conn = sqlite3.connect(db_path)
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
        conn.execute(f"DROP TRIGGER {name}")
    conn.commit()
    conn.close()


class StoreAccess:
    """Direct row access to a SQLite file or a PostgreSQL schema holding the service's store."""

    def __init__(self, database_url: str) -> None:
        self.url = database_url
        self.sqlite = database_url.startswith("sqlite:///")

    def _run(self, statement: str, params: tuple = (), fetch: bool = False) -> list[tuple]:
        for logical, table in _TABLES[self.sqlite].items():
            statement = statement.replace("{" + logical + "}", table)
        if self.sqlite:
            conn = sqlite3.connect(self.url[len("sqlite:///"):])
            try:
                rows = conn.execute(statement, params).fetchall()
                conn.commit()
            finally:
                conn.close()
            return rows
        import psycopg

        parsed = urlparse(self.url)
        schema = parse_qs(parsed.query).get("schema", ["public"])[0]
        with psycopg.connect(host=parsed.hostname, port=parsed.port or 5432, user=parsed.username or "postgres",
                             dbname=parsed.path.lstrip("/"), autocommit=True,
                             options=f"-c search_path={schema}") as conn:
            cur = conn.execute(statement.replace("?", "%s"), params)
            return cur.fetchall() if fetch else []

    def _id(self, match_id: str) -> str:
        return match_id.replace("-", "") if self.sqlite else match_id

    def drop_guards(self) -> None:
        """Remove the append-only triggers, as an attacker with database access would first."""
        if self.sqlite:
            drop_sqlite_guards(self.url[len("sqlite:///"):])
            return
        self._run("DROP TRIGGER IF EXISTS {events}_append_only ON {events}")
        self._run("DROP TRIGGER IF EXISTS {events}_no_truncate ON {events}")

    def rows(self, match_id: str, table: str = EVENTS) -> dict[int, dict]:
        """Version → the stored state (JSON) of every row of a match."""
        found = self._run("SELECT originator_version, state FROM {" + table + "} WHERE originator_id = ?",
                          (self._id(match_id),), fetch=True)
        return {version: json.loads(bytes(state)) for version, state in found}

    def raw(self, match_id: str, table: str = SNAPSHOTS) -> dict[int, bytes]:
        """Version → the stored bytes of every row of a match (snapshots are sealed bytes)."""
        found = self._run("SELECT originator_version, state FROM {" + table + "} WHERE originator_id = ?",
                          (self._id(match_id),), fetch=True)
        return {version: bytes(state) for version, state in found}

    def write(self, match_id: str, version: int, state: dict | bytes | None, table: str = EVENTS) -> None:
        """Replace one row's state (None deletes the row)."""
        if state is None:
            self._run("DELETE FROM {" + table + "} WHERE originator_id = ? AND originator_version = ?",
                      (self._id(match_id), version))
            return
        data = state if isinstance(state, bytes) else json.dumps(state).encode()
        self._run("UPDATE {" + table + "} SET state = ? WHERE originator_id = ? AND originator_version = ?",
                  (data, self._id(match_id), version))

    def truncate_after(self, match_id: str, version: int) -> None:
        """Delete every event of a match after a version."""
        self._run("DELETE FROM {events} WHERE originator_id = ? AND originator_version > ?",
                  (self._id(match_id), version))

    def rewind(self, match_id: str, version: int) -> None:
        """Put a match back to a version, as if nothing after it was ever written: its events and snapshots after it
        are deleted (a fork starts here: the service then takes another write at the next version)."""
        for table in (EVENTS, SNAPSHOTS):
            self._run("DELETE FROM {" + table + "} WHERE originator_id = ? AND originator_version > ?",
                      (self._id(match_id), version))

    def rewrite_from(self, match_id: str, version: int, change) -> None:
        """Apply `change(rows)` then rebuild every chain link from `version` on, as a forger would."""
        rows = self.rows(match_id)
        change(rows)
        previous = rows[version - 1]["chain"]
        for v in range(version, max(rows) + 1):
            row = rows[v]
            row["chain"] = chain_link(previous, v, row["kind"], row["timestamp"]["_data_"], row["public"],
                                      row["commitment"])
            previous = row["chain"]
            self.write(match_id, v, row)
