"""Read-model connections are pooled, never one per thread: under gevent every request is its own greenlet."""

from __future__ import annotations

import threading

from projections.sqlstore import SQLITE_IDLE, SqlStore


def test_a_hundred_short_lived_threads_share_a_few_sqlite_connections(tmp_path):
    store = SqlStore(f"sqlite:///{tmp_path / 'events.sqlite3'}")
    for _ in range(100):
        reader = threading.Thread(target=store.query, args=("SELECT 1",))
        reader.start()
        reader.join()
    assert len(store._all) <= SQLITE_IDLE
    store.close()


def test_concurrent_readers_get_their_own_connections_and_give_them_back(tmp_path):
    store = SqlStore(f"sqlite:///{tmp_path / 'events.sqlite3'}")
    inside = threading.Barrier(6)
    seen = []

    def read():
        with store.connection() as conn:
            seen.append(id(conn))
            inside.wait(timeout=10)

    readers = [threading.Thread(target=read) for _ in range(6)]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join()
    assert len(set(seen)) == 6, "no two units of work share a connection at once"
    assert len(store._all) == SQLITE_IDLE, "the extra ones are closed once given back"
    store.close()


def test_threads_opening_a_new_read_model_file_at_once_all_connect(tmp_path):
    for attempt in range(20):
        store = SqlStore(f"sqlite:///{tmp_path / f'events-{attempt}.sqlite3'}")
        start = threading.Barrier(8)
        failures = []

        def first_query(store=store, start=start, failures=failures):
            start.wait(timeout=10)
            try:
                store.query("SELECT 1")
            except Exception as exc:  # noqa: BLE001 - the assertion below reports whatever a reader met
                failures.append(exc)

        readers = [threading.Thread(target=first_query) for _ in range(8)]
        for reader in readers:
            reader.start()
        for reader in readers:
            reader.join()
        store.close()
        assert failures == [], "a new file's first readers wait for its switch to WAL instead of failing"
