"""Group commit: writes of one process that arrive while a write is at the database go in together, in one
transaction under one table lock and one flush, and each still gets exactly its own outcome: its notification ids
in order, or its own conflict. A lone write goes at once, alone."""

from __future__ import annotations

import threading
import uuid
from urllib.parse import urlparse

import psycopg
import pytest
from eventsourcing.persistence import IntegrityError, OperationalError, StoredEvent

from domain.application import open_matches
from domain.pg_append import AppendBatch
from domain.store import storage_env
from tests.stores import postgres_schema_url


class _Database:
    """A stand-in for the append functions: it holds the first call until released, and records every call."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []
        self.at_database = threading.Event()
        self.release = threading.Event()
        self.release.set()
        self.failing: Exception | None = None
        self.conflicting: set[str] = set()
        self._next = 0
        self._lock = threading.Lock()

    def _ids(self, events) -> list[int]:
        with self._lock:
            first = self._next
            self._next += len(events)
        return list(range(first, first + len(events)))

    def one(self, events) -> list[int]:
        self.calls.append([events[0]])
        self.at_database.set()
        self.release.wait(10)
        if self.failing is not None:
            raise self.failing
        if events[0] in self.conflicting:
            raise IntegrityError("version taken")
        return self._ids(events)

    def many(self, writes) -> list[list[int] | None]:
        self.calls.append([events[0] for events in writes])
        if self.failing is not None:
            raise self.failing
        return [None if events[0] in self.conflicting else self._ids(events) for events in writes]


def _start(batch: AppendBatch, name: str, outcomes: dict) -> threading.Thread:
    def run() -> None:
        try:
            outcomes[name] = batch.append([name, name])
        except Exception as exc:  # noqa: BLE001 - the test looks at which error each caller got
            outcomes[name] = exc

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def _queued(batch: AppendBatch, count: int) -> None:
    """Wait until `count` writes wait behind the one at the database."""
    for _ in range(1000):
        if len(batch._waiting) >= count:
            return
        threading.Event().wait(0.005)
    raise AssertionError(f"{count} writes never queued")


def _behind_a_write_at_the_database(batch: AppendBatch, database: _Database, names: tuple[str, ...]) -> dict:
    """Each caller's outcome when `names` arrive while a first write is held at the database, then released."""
    database.release.clear()
    outcomes: dict = {}
    threads = [_start(batch, "first", outcomes)]
    assert database.at_database.wait(5)
    threads += [_start(batch, name, outcomes) for name in names]
    _queued(batch, len(names))
    database.release.set()
    for thread in threads:
        thread.join(10)
    return outcomes


def test_a_lone_write_goes_at_once_and_alone():
    database = _Database()
    batch = AppendBatch(database.one, database.many)
    assert batch.append(["a", "a"]) == [0, 1]
    assert database.calls == [["a"]]


def test_writes_that_arrive_while_one_is_at_the_database_go_in_the_next_transaction_together():
    database = _Database()
    batch = AppendBatch(database.one, database.many)
    outcomes = _behind_a_write_at_the_database(batch, database, ("b", "c", "d"))
    assert database.calls[0] == ["first"]
    assert sorted(database.calls[1]) == ["b", "c", "d"] and len(database.calls) == 2
    assert all(isinstance(outcomes[name], list) and len(outcomes[name]) == 2 for name in ("first", "b", "c", "d"))
    everything = [number for name in ("first", "b", "c", "d") for number in outcomes[name]]
    assert sorted(everything) == list(range(8)), "every write got its own notification ids"


def test_a_conflicting_write_in_a_batch_fails_alone():
    database = _Database()
    database.conflicting = {"c"}
    batch = AppendBatch(database.one, database.many)
    outcomes = _behind_a_write_at_the_database(batch, database, ("b", "c", "d"))
    assert isinstance(outcomes["c"], IntegrityError)
    assert all(isinstance(outcomes[name], list) for name in ("first", "b", "d"))


def test_a_batch_the_database_does_not_answer_fails_every_write_in_it_and_the_next_write_goes_again():
    database = _Database()
    database.failing = OperationalError("server closed the connection")
    batch = AppendBatch(database.one, database.many)
    outcomes = _behind_a_write_at_the_database(batch, database, ("b", "c"))
    assert all(isinstance(outcomes[name], OperationalError) for name in ("first", "b", "c"))
    database.failing = None
    assert batch.append(["e", "e"]) == [0, 1], "the batch is not left held by a failed write"


def test_a_batch_that_fails_for_one_write_is_appended_again_one_write_at_a_time():
    database = _Database()
    batch = AppendBatch(database.one, database.many)
    original_many = database.many

    def many_refusing_bad_data(writes):
        if any(events[0] == "bad" for events in writes):
            database.calls.append([events[0] for events in writes])
            raise ValueError("a value the column refuses")
        return original_many(writes)

    batch._append_many = many_refusing_bad_data
    original_one = database.one

    def one_refusing_bad_data(events):
        if events[0] == "bad":
            raise ValueError("a value the column refuses")
        return original_one(events)

    batch._append_one = one_refusing_bad_data
    outcomes = _behind_a_write_at_the_database(batch, database, ("b", "bad"))
    assert isinstance(outcomes["bad"], ValueError)
    assert isinstance(outcomes["b"], list) and isinstance(outcomes["first"], list)


def test_many_concurrent_writers_each_get_their_own_outcome():
    database = _Database()
    batch = AppendBatch(database.one, database.many)
    outcomes: dict = {}
    threads = [_start(batch, f"w{number}", outcomes) for number in range(200)]
    for thread in threads:
        thread.join(30)
    everything = sorted(number for result in outcomes.values() for number in result)
    assert everything == list(range(400))
    assert sum(len(call) for call in database.calls) == 200, "no write appended twice or left out"


@pytest.mark.postgres
def test_on_postgresql_a_batch_stores_each_write_in_version_order_and_refuses_only_the_one_whose_version_was_taken():
    url, drop = postgres_schema_url()
    schema = urlparse(url).query.split("schema=")[1].split("&")[0]
    app = open_matches(env=storage_env(url))
    try:
        recorder = app.store.recorder
        first, second, third = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()

        def events(originator: uuid.UUID, versions: range) -> list[StoredEvent]:
            return [StoredEvent(originator, version, "topic", b"{}") for version in versions]

        recorder._append_one(events(second, range(1, 3)))
        outcomes = recorder._append_many(
            [events(first, range(1, 4)), events(second, range(2, 4)), events(third, range(1, 3))]
        )
        assert outcomes[1] is None, "the write whose version 2 was taken"
        assert len(outcomes[0]) == 3 and len(outcomes[2]) == 2
        assert outcomes[0] == sorted(outcomes[0]) and max(outcomes[0]) < min(outcomes[2])
        with psycopg.connect(url.split("?")[0], autocommit=True) as conn:
            stored = conn.execute(
                f'SELECT originator_id, originator_version FROM "{schema}".gambit_events ORDER BY notification_id'
            ).fetchall()
        assert stored == (
            [(second, 1), (second, 2)] + [(first, version) for version in (1, 2, 3)] + [(third, 1), (third, 2)]
        )
    finally:
        app.close()
        drop()


@pytest.mark.postgres
def test_on_postgresql_two_writes_of_one_batch_asking_for_the_same_version_store_only_the_first():
    url, drop = postgres_schema_url()
    app = open_matches(env=storage_env(url))
    try:
        recorder = app.store.recorder
        first, other = uuid.uuid4(), uuid.uuid4()
        outcomes = recorder._append_many(
            [
                [StoredEvent(first, 1, "topic", b'{"by": "one"}')],
                [StoredEvent(other, 1, "topic", b"{}")],
                [StoredEvent(first, 1, "topic", b'{"by": "two"}'), StoredEvent(first, 2, "topic", b"{}")],
            ]
        )
        assert outcomes[0] and outcomes[1] and outcomes[2] is None
        stored = recorder.select_notifications(start=1, limit=10)
        assert [(n.originator_id, n.originator_version, n.state) for n in stored] == [
            (first, 1, b'{"by": "one"}'),
            (other, 1, b"{}"),
        ]
    finally:
        app.close()
        drop()


@pytest.mark.postgres
def test_on_postgresql_concurrent_writes_share_transactions_and_every_one_is_stored_once(monkeypatch):
    url, drop = postgres_schema_url()
    app = open_matches(env=storage_env(url))
    try:
        recorder = app.store.recorder
        batches: list[int] = []
        append_many = recorder._batch._append_many

        def counted(writes):
            batches.append(len(writes))
            return append_many(writes)

        monkeypatch.setattr(recorder._batch, "_append_many", counted)
        originators = [uuid.uuid4() for _ in range(16)]

        def write(originator: uuid.UUID) -> None:
            for version in range(1, 21):
                recorder.insert_events([StoredEvent(originator, version, "topic", b"{}")])

        threads = [threading.Thread(target=write, args=(originator,)) for originator in originators]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        stored = recorder.select_notifications(start=1, limit=1000)
        assert len(stored) == 16 * 20
        assert len({(n.originator_id, n.originator_version) for n in stored}) == 16 * 20
        assert batches and max(batches) > 1, "sixteen writers never shared a transaction"
    finally:
        app.close()
        drop()


def _stored(url: str, schema: str) -> list[tuple]:
    """(originator, version) of every record of a schema's events table, in order."""
    with psycopg.connect(url.split("?")[0], autocommit=True) as conn:
        return conn.execute(
            f'SELECT originator_id, originator_version FROM "{schema}".gambit_events ORDER BY notification_id'
        ).fetchall()


def _schema(url: str) -> str:
    return urlparse(url).query.split("schema=")[1].split("&")[0]


@pytest.mark.postgres
def test_on_postgresql_writes_to_two_partitions_on_one_server_share_one_transaction_and_a_conflict_fails_alone(
    monkeypatch, two_partitions_of_one_server
):
    one, two = two_partitions_of_one_server
    first, second = one.app.store.recorder, two.app.store.recorder
    assert first._batch is second._batch, "one batch for the server's tables"
    a, b, c = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()

    def events(originator: uuid.UUID, versions: range) -> list[StoredEvent]:
        return [StoredEvent(originator, version, "topic", b"{}") for version in versions]

    second._append_one(events(c, range(1, 2)))
    sent: list[str] = []
    execute = psycopg.Cursor.execute

    def counted(cursor, query, *args, **kwargs):
        sent.append(str(query))
        return execute(cursor, query, *args, **kwargs)

    monkeypatch.setattr(psycopg.Cursor, "execute", counted)
    outcomes = first._batch._append_many(
        [(second, events(b, range(1, 3))), (first, events(a, range(1, 4))), (second, events(c, range(1, 3)))]
    )
    monkeypatch.undo()
    appends = [text for text in sent if "_append_batch" in text]
    assert len(appends) == 1, "one statement, in autocommit: one transaction"
    assert first.batch_function in appends[0] and second.batch_function in appends[0]
    assert outcomes[2] is None, "the write whose version 1 was taken"
    assert len(outcomes[0]) == 2 and len(outcomes[1]) == 3
    assert _stored(one.url, _schema(one.url)) == [(a, 1), (a, 2), (a, 3)]
    assert _stored(two.url, _schema(two.url)) == [(c, 1), (b, 1), (b, 2)]


@pytest.mark.postgres
def test_on_postgresql_concurrent_writes_to_two_partitions_share_transactions_and_every_one_is_stored_once(
    monkeypatch, two_partitions_of_one_server
):
    one, two = two_partitions_of_one_server
    recorders = [one.app.store.recorder, two.app.store.recorder]
    batch = recorders[0]._batch
    shared: list[int] = []
    append_many = batch._append_many

    def counted(writes):
        shared.append(len({id(recorder) for recorder, _ in writes}))
        return append_many(writes)

    monkeypatch.setattr(batch, "_append_many", counted)

    def write(recorder, originator: uuid.UUID) -> None:
        for version in range(1, 21):
            recorder.insert_events([StoredEvent(originator, version, "topic", b"{}")])

    threads = [threading.Thread(target=write, args=(recorders[n % 2], uuid.uuid4())) for n in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    for recorder in recorders:
        stored = recorder.select_notifications(start=1, limit=1000)
        assert len({(n.originator_id, n.originator_version) for n in stored}) == len(stored) == 8 * 20
        assert [n.id for n in stored] == list(range(1, 161)), "each partition's log stays gap-free"
    assert shared and max(shared) == 2, "the two tables' writes never shared a transaction"
