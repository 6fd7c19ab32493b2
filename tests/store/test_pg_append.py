"""On PostgreSQL a write is one statement: the library's table lock and insert in one function call; the
followers' wake is its own transaction, after the append has committed (no server-wide NOTIFY lock per append)."""

from __future__ import annotations

import threading
import time
from urllib.parse import urlparse

import psycopg
import pytest

from domain.application import MatchService, open_matches
from domain.pg_append import OneTripApplicationRecorder
from domain.store import notifies_followers, storage_env
from tests.stores import postgres_schema_url

pytestmark = pytest.mark.postgres


@pytest.fixture
def pg():
    """A match application on a fresh PostgreSQL schema, with a plain connection to the same database."""
    url, drop = postgres_schema_url()
    parsed = urlparse(url)
    app = open_matches(env=storage_env(url))
    conn = psycopg.connect(url.split("?")[0], autocommit=True)
    try:
        yield app, conn, parsed.query.split("schema=")[1].split("&")[0]
    finally:
        conn.close()
        app.close()
        drop()


def _new_match(app: MatchService) -> str:
    return app.create_match("gambitz", {"players": 2}).match_id


def test_the_service_appends_through_the_one_statement_recorder(pg):
    app, _, _ = pg
    assert isinstance(app.store.recorder, OneTripApplicationRecorder)
    assert notifies_followers(app.store.recorder)


def _waiting_for_a_lock_on(conn, table: str) -> int:
    """How many sessions wait for a lock on `table` that another holds."""
    query = "SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = %s::regclass"
    return conn.execute(query, (table,)).fetchone()[0]


def test_appends_still_wait_for_the_table_lock_so_ids_commit_in_order(pg):
    app, conn, schema = pg
    _new_match(app)  # the tables and the function exist
    table = f'"{schema}".gambit_events'
    holder = psycopg.connect(conn.info.dsn, autocommit=False)
    holder.execute(f"LOCK TABLE {table} IN EXCLUSIVE MODE")
    appended = threading.Event()
    thread = threading.Thread(target=lambda: (_new_match(app), appended.set()), daemon=True)
    thread.start()
    try:
        # The append is seen queued behind the lock (a generous bound only ends a hung run).
        give_up = time.monotonic() + 30
        while not _waiting_for_a_lock_on(conn, table):
            assert time.monotonic() < give_up, "the append never waited for the table lock"
            assert not appended.is_set(), "an append went past the table lock"
            time.sleep(0.01)
        assert not appended.is_set(), "an append went past the table lock"
    finally:
        holder.commit()
        holder.close()
    thread.join(timeout=30)
    assert appended.is_set(), "the append did not go on once the lock was released"


def test_an_append_wakes_the_followers_of_its_own_schema(pg):
    app, conn, schema = pg
    _new_match(app)
    channel = app.store.recorder.wake_channel
    assert schema in channel
    conn.execute(f'LISTEN "{channel}"')
    _new_match(app)
    assert next(conn.notifies(timeout=5, stop_after=1)).channel == channel


def test_the_append_function_sends_no_notification_inside_its_transaction(pg):
    app, conn, schema = pg
    _new_match(app)
    body = conn.execute(
        "SELECT pg_get_functiondef(p.oid) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
        "WHERE n.nspname = %s AND p.proname = 'gambit_events_append'",
        (schema,),
    ).fetchone()[0]
    assert "LOCK TABLE" in body
    assert "notify" not in body.lower()


def test_a_wake_that_fails_leaves_the_write_stored(pg, monkeypatch):
    app, _, _ = pg
    recorder = app.store.recorder
    monkeypatch.setattr(recorder, "wake_function", "no_such_function")
    match_id = _new_match(app)
    assert app.match(match_id).version == 1


def test_a_conflicting_write_stores_none_of_its_records(pg):
    app, conn, schema = pg
    match_id = _new_match(app)
    first, second = app.match(match_id), app.match(match_id)
    first.join("p1", "first", "", "hash-1")
    second.join("p1", "second", "", "hash-1")
    second.join("p2", "second", "", "hash-2")  # the last seat: the set-up's records follow in the same write
    app.store.save(first)
    count = conn.execute(f'SELECT count(*) FROM "{schema}".gambit_events').fetchone()[0]
    with pytest.raises(Exception) as caught:
        app.store.save(second)
    assert "IntegrityError" in type(caught.value).__name__
    assert conn.execute(f'SELECT count(*) FROM "{schema}".gambit_events').fetchone()[0] == count


def test_a_write_is_one_statement_to_the_database_then_its_wake_after_it(pg, monkeypatch):
    app, _, _ = pg
    match_id = _new_match(app)
    match = app.match(match_id)
    match.join("p1", "one", "", "hash-1")
    match.join("p2", "two", "", "hash-2")
    assert len(match.pending_events) > 2
    statements: list[str] = []
    execute = psycopg.Cursor.execute

    def counted(cursor, query, *args, **kwargs):
        statements.append(query.as_string(cursor) if hasattr(query, "as_string") else str(query))
        return execute(cursor, query, *args, **kwargs)

    monkeypatch.setattr(psycopg.Cursor, "execute", counted)
    app.store.save(match)
    mine = app.store.recorder.wake_function

    def woken_after_the_write() -> bool:
        written = [n for n, text in enumerate(statements) if "gambit_events_append" in text]
        return bool(written) and any(mine in text for text in statements[written[0] + 1 :])

    deadline = time.monotonic() + 10  # the wake is sent by the waker's thread, after the save has returned
    while not woken_after_the_write() and time.monotonic() < deadline:
        time.sleep(0.01)
    monkeypatch.undo()
    sent = [text for text in statements if text.strip()]  # not the pool's empty liveness check
    appends = [n for n, text in enumerate(sent) if "gambit_events_append" in text]
    assert len(appends) == 1, sent
    assert any(mine in text for text in sent[appends[0] + 1 :]), "a wake of its table follows the write"
    # Nothing else: another test's waker (one per server and process) may send a wake meanwhile, never a write.
    assert all("gambit_events_wake" in text for n, text in enumerate(sent) if n != appends[0]), sent
    assert app.match(match_id).version == match.version
