"""Append-only at the database level: updates and deletes of stored events are refused by triggers.

The hash chain already makes an edit evident; the triggers make the ordinary paths to an
edit fail outright (a mistaken UPDATE in a console, a buggy migration). An operator who drops
the triggers can still rewrite rows — that is what the chain and the signed receipts catch.
Snapshots are not guarded: they are derived, and the library replaces them.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

REFUSAL = "gambit: stored events are append-only"
SETUP_LOCK = 7316503
GUARD_LOCK = 7316504


def _sqlite_statements(table: str) -> list[str]:
    return [
        (
            f"CREATE TRIGGER IF NOT EXISTS {table}_no_update BEFORE UPDATE ON {table} "
            f"BEGIN SELECT RAISE(ABORT, '{REFUSAL}'); END"
        ),
        (
            f"CREATE TRIGGER IF NOT EXISTS {table}_no_delete BEFORE DELETE ON {table} "
            f"BEGIN SELECT RAISE(ABORT, '{REFUSAL}'); END"
        ),
    ]


def _postgres_statements(schema: str, table: str) -> list[str]:
    qualified = f'"{schema}"."{table}"'
    function = f'"{schema}".gambit_refuse_change'
    return [
        (
            f"CREATE OR REPLACE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql AS "
            f"$$ BEGIN RAISE EXCEPTION '{REFUSAL}'; END $$"
        ),
        f"DROP TRIGGER IF EXISTS {table}_append_only ON {qualified}",
        (
            f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {qualified} "
            f"FOR EACH ROW EXECUTE FUNCTION {function}()"
        ),
        f"DROP TRIGGER IF EXISTS {table}_no_truncate ON {qualified}",
        (
            f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {qualified} "
            f"FOR EACH STATEMENT EXECUTE FUNCTION {function}()"
        ),
    ]


def protect_events(recorder: Any, postgres_schema: str | None = None) -> None:
    """Install the append-only triggers on the recorder's events table (idempotent): SQLite's, or
    PostgreSQL's when the schema of its tables is given."""
    datastore = recorder.datastore
    table = recorder.events_table_name
    schema = postgres_schema
    if schema is None:
        statements = _sqlite_statements(table)
    else:
        statements = _postgres_statements(schema, table)
        # Several workers start at once; one lock makes the DROP/CREATE pairs atomic between them.
        statements.insert(0, f"SELECT pg_advisory_xact_lock({GUARD_LOCK})")
    with datastore.transaction(commit=True) as cursor:
        for statement in statements:
            cursor.execute(statement)


@contextmanager
def one_process_at_a_time(datastore: Any) -> Iterator[None]:
    """Hold a PostgreSQL session advisory lock while the body runs (schema set-up at start-up)."""
    with datastore.get_connection() as conn:
        conn.execute(f"SELECT pg_advisory_lock({SETUP_LOCK})")
        try:
            yield
        finally:
            conn.execute(f"SELECT pg_advisory_unlock({SETUP_LOCK})")
