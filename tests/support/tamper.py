"""What an attacker with database access would do first: remove the append-only triggers."""

from __future__ import annotations

import sqlite3


def drop_sqlite_guards(db_path) -> None:
    """Drop the append-only triggers of a SQLite store, so rows can be edited in tamper tests."""
    conn = sqlite3.connect(db_path)
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
        conn.execute(f"DROP TRIGGER {name}")
    conn.commit()
    conn.close()
