"""Stored events are append-only at the database level, on SQLite and on PostgreSQL."""

from __future__ import annotations

import pytest

from domain.application import MatchService, open_matches
from domain.store import storage_env
from domain.store_guard import REFUSAL
from tests.stores import postgres_schema_url


@pytest.fixture
def matches(database_url):
    """The application on a fresh store, with one match in it."""
    app = open_matches(env=storage_env(database_url))
    app.create_match("gambitz", {"players": 2})
    yield app
    app.close()


def _table(app: MatchService) -> str:
    schema = getattr(app.store.recorder.datastore, "schema", None)
    name = app.store.recorder.events_table_name
    return name if schema is None else f'"{schema}"."{name}"'


def _execute(app: MatchService, statement: str) -> None:
    with app.store.recorder.datastore.transaction(commit=True) as cursor:
        cursor.execute(statement)


@pytest.mark.parametrize("statement", [
    "UPDATE {table} SET topic = 'edited'",
    "DELETE FROM {table}",
])
def test_updates_and_deletes_of_stored_events_are_refused_by_the_database(matches, statement):
    with pytest.raises(Exception, match=REFUSAL):
        _execute(matches, statement.format(table=_table(matches)))
    assert matches.store.recorder.max_notification_id() == 1


@pytest.mark.postgres
def test_truncating_the_events_table_is_refused_on_postgresql():
    url, drop = postgres_schema_url()
    app = open_matches(env=storage_env(url))
    try:
        app.create_match("gambitz", {"players": 2})
        with pytest.raises(Exception, match=REFUSAL):
            _execute(app, f"TRUNCATE {_table(app)}")
        assert app.store.recorder.max_notification_id() == 1
    finally:
        app.close()
        drop()


def test_appending_still_works_and_the_guard_is_installed_once_per_store(matches, database_url):
    again = open_matches(env=storage_env(database_url))  # a second worker starting on the same store
    again.create_match("gambitz", {"players": 2})
    assert matches.store.recorder.max_notification_id() == 2
    again.close()


def _construct(url: str) -> str:
    app = open_matches(env=storage_env(url))
    app.close()
    return "ok"


@pytest.mark.postgres
def test_four_workers_starting_at_once_on_a_fresh_postgresql_schema_all_come_up():
    import multiprocessing

    url, drop = postgres_schema_url()
    try:
        with multiprocessing.get_context("spawn").Pool(4) as pool:
            assert pool.map(_construct, [url] * 4) == ["ok"] * 4
    finally:
        drop()
