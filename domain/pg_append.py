"""PostgreSQL appends in one round trip, holding only their table's lock; the followers' wake comes after the commit.

The library serializes appends with `LOCK TABLE … IN EXCLUSIVE MODE`, so that notification ids
commit in the order they are issued (a follower of the notification log never passes over an id
that commits later). It takes the lock in a transaction of two round trips: the lock, the NOTIFY
and the insert in the first, the COMMIT in the second. Under gevent the worker runs its other
requests' Python between the two, so every other append — of any match, from any worker — waits
for that worker's queue: the p99 tail at human pace (bench/limits.md).

Here the same lock and insert run inside one database function, called in autocommit: one
statement, so one transaction, committed by the server before the answer leaves it. The events
and the receipt signed into the newest one's meta are still written by one insert, in one durable
commit; the ordering guarantee is the library's.

The NOTIFY is not in that transaction (issue 34). PostgreSQL's NOTIFY takes one lock for the whole
server at commit and holds it until the commit is flushed, so appends with it made exactly one
append per WAL flush, on any table of the server. Instead, once the append has committed, a
second statement sends the wake (`pg_notify`) in a transaction of its own that does not wait for
its flush (`synchronous_commit = off`: losing a wake in a crash costs a follower one poll
interval, never a record). Followers (projections/record_wakes.py) read the log from their position
on a wake or on their poll, whichever comes first, so a wake that never comes delays, never loses.

The wake is sent by a thread of the process's own, not by the append's caller, and one at a time: a follower
woken once reads every record committed before it looks, so the appends that commit while a wake is being
sent share the next one (each wake is a transaction and a commit record: a quarter of the appends' CPU when every
append sent its own), and the caller's answer never waits for it. One waker serves all the tables of a server
(the partitions' schemas): one transaction wakes them all, at most one every `Waker.PACE_SECONDS`.

Appends that arrive while one of the same process is at the database go in together, as group commit does
(`AppendBatch`): the next call appends all of them in one transaction, under one table lock, one commit and one
WAL flush. They go in one insert when none of their versions is taken (told under the table's lock, so nothing
can take one meanwhile); otherwise each goes in a subtransaction of its own, so that a write that conflicts (another
write took its version first) fails alone, exactly as it would have on its own. The table lock is held until the commit is flushed, so without this one table made one append per flush; a
lone append still goes alone, at once.

The batch is the server's, not the table's: writes to the events tables of several partitions on one server (schemas)
share the transaction too, each table's lock taken in one fixed order in every process (`server_batch`). Spread over
four tables, a process's writes otherwise made batches a quarter the size, and as many commits.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from eventsourcing.persistence import IntegrityError, InterfaceError, OperationalError, StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore
from eventsourcing.utils import retry

log = logging.getLogger("gambit.store")

# PostgreSQL's longest identifier (NAMEDATALEN - 1 bytes): a longer channel name is refused.
MAX_CHANNEL_BYTES = 63


class OneTripApplicationRecorder(PostgresApplicationRecorder):
    """The library's PostgreSQL application recorder, appending through one function call, then waking followers."""

    def __init__(self, datastore: PostgresDatastore, *, events_table_name: str = "stored_events") -> None:
        super().__init__(datastore, events_table_name=events_table_name)
        # Named after its table: two applications in one schema each get their own.
        function = f"{_quoted(datastore.schema)}.{_quoted(events_table_name + '_append')}"
        wake = f"{_quoted(datastore.schema)}.{_quoted(events_table_name + '_wake')}"
        table = f"{_quoted(datastore.schema)}.{_quoted(events_table_name)}"
        # Channels are per database, not per schema: a follower of one schema's log hears only its writes.
        self.wake_channel = wake_channel(datastore.schema, events_table_name)
        self.create_append_function = (
            f"CREATE OR REPLACE FUNCTION {function}("
            f"ids {_quoted(datastore.originator_id_type)}[], versions bigint[], topics text[], states bytea[]) "
            "RETURNS SETOF bigint LANGUAGE plpgsql AS $BODY$ "
            "BEGIN "
            f"SET LOCAL lock_timeout = '{int(datastore.lock_timeout)}s'; "
            f"LOCK TABLE {table} IN EXCLUSIVE MODE; "
            f"RETURN QUERY INSERT INTO {table} (originator_id, originator_version, topic, state) "
            "SELECT * FROM unnest(ids, versions, topics, states) RETURNING notification_id; "
            "END; $BODY$"
        )
        # SET LOCAL lasts to the end of the statement's own transaction: only the wake's commit skips the flush wait.
        self.create_wake_function = (
            f"CREATE OR REPLACE FUNCTION {wake}() RETURNS void LANGUAGE plpgsql AS $BODY$ "
            "BEGIN "
            "SET LOCAL synchronous_commit = off; "
            f"PERFORM pg_notify({_literal(self.wake_channel)}, ''); "
            "END; $BODY$"
        )
        self.append_statement = f"SELECT appended FROM {function}(%s, %s, %s, %s) AS appended"
        # Several writes in one transaction. Under the table's lock no other write can take a version, so when none
        # of theirs is taken (nor asked for twice) all of them go in one insert; otherwise each goes in a
        # subtransaction of its own, so that the one whose version was taken fails alone. (A subtransaction per
        # write, or even one per batch, cost the server more than the insert.)
        batch = f"{_quoted(datastore.schema)}.{_quoted(events_table_name + '_append_batch')}"
        self.create_batch_function = (
            f"CREATE OR REPLACE FUNCTION {batch}("
            f"ids {_quoted(datastore.originator_id_type)}[], versions bigint[], topics text[], states bytea[], "
            "writes int[]) RETURNS TABLE (write int, appended bigint) LANGUAGE plpgsql AS $BODY$ "
            "DECLARE one int; got bigint[]; "
            "BEGIN "
            f"SET LOCAL lock_timeout = '{int(datastore.lock_timeout)}s'; "
            f"LOCK TABLE {table} IN EXCLUSIVE MODE; "
            # One index lookup per event (LIMIT 1 keeps the planner from scanning the table to join it whole).
            "IF NOT EXISTS (SELECT 1 FROM unnest(ids, versions) AS u(i, v), LATERAL "
            f"(SELECT 1 FROM {table} AS t WHERE t.originator_id = u.i AND t.originator_version = u.v LIMIT 1) AS taken) "
            "AND (SELECT count(*) = count(DISTINCT (u.i, u.v)) FROM unnest(ids, versions) AS u(i, v)) THEN "
            f"RETURN QUERY WITH inserted AS (INSERT INTO {table} (originator_id, originator_version, topic, state) "
            "SELECT u.i, u.v, u.t, u.s FROM unnest(ids, versions, topics, states) WITH ORDINALITY AS u(i, v, t, s, n) "
            "ORDER BY u.n RETURNING originator_id, originator_version, notification_id) "
            "SELECT w.w, inserted.notification_id FROM inserted JOIN unnest(ids, versions, writes) AS w(i, v, w) "
            "ON inserted.originator_id = w.i AND inserted.originator_version = w.v ORDER BY inserted.notification_id; "
            "RETURN; "
            "END IF; "
            "FOR one IN SELECT DISTINCT w FROM unnest(writes) AS w ORDER BY w LOOP "
            "BEGIN "
            f"WITH inserted AS (INSERT INTO {table} (originator_id, originator_version, topic, state) "
            "SELECT u.i, u.v, u.t, u.s FROM unnest(ids, versions, topics, states, writes) WITH ORDINALITY "
            "AS u(i, v, t, s, w, n) WHERE u.w = one ORDER BY u.n RETURNING notification_id) "
            "SELECT array_agg(inserted.notification_id ORDER BY inserted.notification_id) INTO got FROM inserted; "
            "write := one; "
            "FOREACH appended IN ARRAY got LOOP RETURN NEXT; END LOOP; "
            "EXCEPTION WHEN unique_violation THEN write := one; appended := NULL; RETURN NEXT; "
            "END; "
            "END LOOP; "
            "END; $BODY$"
        )
        self.batch_function = batch
        self.batch_statement = f"SELECT write, appended FROM {batch}(%s, %s, %s, %s, %s)"
        self.wake_function = wake
        # One waker for every events table of this server in this process: one wake transaction wakes them all.
        self._waker = server_waker(_server_of(datastore))
        # One batch for every events table of this server in this process: writes to the tables of several
        # partitions (schemas) share a transaction and a flush, as writes to one table do.
        self._batch = server_batch(_server_of(datastore))

    def create_table(self) -> None:
        """The library's tables, then the append and wake functions (replaced, so a changed body takes effect)."""
        super().create_table()
        with self.datastore.transaction(commit=True) as cursor:
            cursor.execute(self.create_append_function)
            cursor.execute(self.create_batch_function)
            cursor.execute(self.create_wake_function)

    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Sequence[int] | None:
        """Append the events in one statement, then wake the followers; their notification ids, in order."""
        if kwargs.get("tracking") is not None or not stored_events:
            return super().insert_events(stored_events, **kwargs)
        return self._append_and_wake(stored_events)

    def _append_and_wake(self, stored_events: Sequence[StoredEvent]) -> list[int]:
        appended = self._batch.append((self, stored_events))
        # The append has committed (autocommit): its wake is sent after it, shared with the appends beside it.
        self.ask_wake()
        return appended

    def ask_wake(self) -> None:
        """Have the followers woken soon (by the waker's thread, shared with the appends beside this one)."""
        self._waker.ask(self)

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)  # as the library's own append
    def _append_one(self, stored_events: Sequence[StoredEvent]) -> list[int]:
        with self.datastore.get_connection() as conn, conn.cursor() as cursor:
            cursor.execute(self.append_statement, _columns(stored_events), prepare=True)
            return [row["appended"] for row in cursor.fetchall()]

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def _append_many(self, writes: Sequence[Sequence[StoredEvent]]) -> list[list[int] | None]:
        parameters = _columns([event for events in writes for event in events]) + (
            [number for number, events in enumerate(writes) for _ in events],
        )
        outcomes: list[list[int] | None] = [[] for _ in writes]
        with self.datastore.get_connection() as conn, conn.cursor() as cursor:
            cursor.execute(self.batch_statement, parameters, prepare=True)
            for row in cursor.fetchall():
                found = outcomes[row["write"]]
                if row["appended"] is None:
                    outcomes[row["write"]] = None
                elif found is not None:
                    found.append(row["appended"])
        return outcomes

    def wake(self) -> None:
        """Tell the followers listening on this log that it may have new records now (best effort: they poll too)."""
        _wake_tables([self])


class Waker:
    """Sends wakes on a thread of its own, one at a time and at most one per `PACE_SECONDS`: every wake asked for is
    followed by one that starts after it was asked, and the wakes asked for meanwhile are answered by a single next
    one, which names every log they were asked for."""

    # An idle sender ends after this many seconds without a wake to send; the next ask starts another.
    IDLE_SECONDS = 5.0
    # The least time from one wake's start to the next one's. Under load a wake every round trip cost a third of the
    # appends a second (bench/appends.md); this many ms of a follower's lag, at most, buys that back.
    PACE_SECONDS = 0.02

    def __init__(self, send: Callable[[list[Any]], None]) -> None:
        """`send`: one wake of the logs asked for (the items given to `ask`), sent now (it reports its own failures)."""
        self._send = send
        self._asked = threading.Event()
        self._lock = threading.Lock()
        self._items: dict[int, Any] = {}
        self._running = False
        self._pid = os.getpid()

    def ask(self, item: Any = None) -> None:
        """Have a wake of `item`'s log sent soon, after everything committed before this call (never waits for it)."""
        with self._lock:
            self._items.setdefault(id(item), item)
            self._asked.set()
            if self._pid != os.getpid():  # a forked child has none of its parent's threads
                self._pid, self._running = os.getpid(), False
            if self._running:
                return
            self._running = True
        threading.Thread(target=self._run, daemon=True, name="gambit-wake").start()

    def _run(self) -> None:
        started = float("-inf")
        while True:
            if not self._asked.wait(self.IDLE_SECONDS):
                with self._lock:
                    # Asked after the wait ended: go on (an asker that saw this sender running started none).
                    if not self._asked.is_set():
                        self._running = False
                        return
                continue
            time.sleep(max(0.0, started + self.PACE_SECONDS - time.monotonic()))
            with self._lock:
                self._asked.clear()
                items, self._items = list(self._items.values()), {}
            started = time.monotonic()
            try:
                self._send(items)
            except Exception as exc:  # noqa: BLE001 - best effort (the store closed, say): followers poll too
                log.debug("store: a wake was not sent: %s", exc)


class _Write:
    """One caller's write waiting in a batch: its events, then its notification ids or its error."""

    def __init__(self, events: Any) -> None:
        self.events = events
        self.appended: list[int] = []
        self.error: BaseException | None = None
        self.done = False
        self.leads = False
        self.ready = threading.Event()  # set when done, or when this caller is to append the next batch

    def outcome(self) -> list[int]:
        """The write's notification ids, or its error raised."""
        if self.error is not None:
            raise self.error
        return self.appended


class AppendBatch:
    """Group commit within a process: writes that arrive while a batch is at the database go in the next one.

    The caller whose write finds nobody appending appends at once (alone, or with whoever queued meanwhile); the
    others wait for their outcome, or to be handed the next batch. A batch that fails as a whole (the database,
    not a conflict) is appended again one write at a time, so every caller gets its own write's outcome."""

    # Writes in one transaction at most: a batch's commit waits for all of them.
    MOST = 64

    def __init__(
        self,
        append_one: Callable[[Any], list[int]],
        append_many: Callable[[Sequence[Any]], list[list[int] | None]],
    ) -> None:
        """`append_one`: one write in its own transaction; `append_many`: several in one (None: conflicted).

        A write is whatever they take: a table's events, or (recorder, events) for a server's tables."""
        self._append_one = append_one
        self._append_many = append_many
        self._lock = threading.Lock()
        self._waiting: list[_Write] = []
        self._appending = False
        self._pid = os.getpid()

    def append(self, events: Any) -> list[int]:
        """Append one write's events (with the writes beside it); its notification ids, or its error raised."""
        write = _Write(events)
        with self._lock:
            if self._pid != os.getpid():  # a forked child has none of its parent's appenders
                self._pid, self._appending, self._waiting = os.getpid(), False, []
            self._waiting.append(write)
            write.leads = not self._appending
            self._appending = True
        if not write.leads:
            try:
                write.ready.wait()
            except BaseException:
                # Killed while waiting (a greenlet's timeout): leave the queue, and never hold the batch handed to it.
                self._abandon(write)
                raise
            if write.done:
                return write.outcome()
        with self._lock:
            batch = self._waiting[: self.MOST]
            if write not in batch:
                batch[-1:] = [write]
            for taken in batch:
                self._waiting.remove(taken)
        try:
            self._append(batch)
        finally:
            with self._lock:
                self._hand_on()
        return write.outcome()

    def _hand_on(self) -> None:
        """The next waiting caller appends the next batch; with none waiting, the next to come does (under the lock).

        Handed on, not kept: a caller's answer does not wait for the writes queued behind its own."""
        if self._waiting:
            self._waiting[0].leads = True
            self._waiting[0].ready.set()
        else:
            self._appending = False

    def _abandon(self, write: _Write) -> None:
        with self._lock:
            if write in self._waiting:
                self._waiting.remove(write)
            if write.leads and not write.done:
                self._hand_on()

    def _append(self, batch: list[_Write]) -> None:
        try:
            if len(batch) == 1:
                self._settle(batch[0])
                return
            try:
                outcomes = self._append_many([write.events for write in batch])
            except (InterfaceError, OperationalError) as exc:
                # The database did not answer (after the retries): each write alone would not be answered either.
                for write in batch:
                    write.error = exc
                return
            except Exception:  # noqa: BLE001 - each write again on its own: its caller gets its own write's error
                log.warning("store: a batch of %d appends failed; appending them one at a time", len(batch))
                for write in batch:
                    self._settle(write)
                return
            for write, appended in zip(batch, outcomes, strict=True):
                if appended is None:
                    write.error = IntegrityError("duplicate key value violates unique constraint: version taken")
                else:
                    write.appended = appended
        finally:
            for write in batch:
                write.done = True
                write.ready.set()

    def _settle(self, write: _Write) -> None:
        try:
            write.appended = self._append_one(write.events)
        except BaseException as exc:  # noqa: BLE001 - the caller re-raises its own write's error
            write.error = exc


def _columns(stored_events: Sequence[StoredEvent]) -> tuple[list[Any], ...]:
    """The events as the append functions take them: one array per column."""
    return (
        [event.originator_id for event in stored_events],
        [event.originator_version for event in stored_events],
        [event.topic for event in stored_events],
        [event.state for event in stored_events],
    )


_server_batches: dict[tuple[Any, ...], AppendBatch] = {}
_server_wakers: dict[tuple[Any, ...], Waker] = {}
_server_batches_lock = threading.Lock()

TableWrite = tuple[OneTripApplicationRecorder, Sequence[StoredEvent]]


def server_batch(server: tuple[Any, ...]) -> AppendBatch:
    """This process's group commit for the events tables of one PostgreSQL server (its writes: `TableWrite`s)."""
    with _server_batches_lock:
        batch = _server_batches.get(server)
        if batch is None:
            batch = _server_batches[server] = AppendBatch(_append_one_write, _append_table_writes)
        return batch


def server_waker(server: tuple[Any, ...]) -> Waker:
    """This process's waker for the events tables of one PostgreSQL server (it is asked with their recorders)."""
    with _server_batches_lock:
        waker = _server_wakers.get(server)
        if waker is None:
            waker = _server_wakers[server] = Waker(_wake_tables)
        return waker


def _wake_tables(recorders: list[OneTripApplicationRecorder]) -> None:
    """One wake transaction for the followers of every table named (each table's wake function, in one statement)."""
    if not recorders:
        return
    ordered = sorted(recorders, key=lambda r: r.wake_function)
    statement = "SELECT " + ", ".join(f"{recorder.wake_function}()" for recorder in ordered)
    try:
        with ordered[0].datastore.get_connection() as conn, conn.cursor() as cursor:
            cursor.execute(statement, prepare=True)
    except Exception as exc:  # noqa: BLE001 - the records are committed; a follower's poll finds them
        if len(ordered) > 1:
            # One table's store closed (or its function gone) must not cost the others their wake.
            for recorder in ordered:
                _wake_tables([recorder])
            return
        log.warning("store: the wake after an append failed (followers find the records on their poll): %s", exc)


def _server_of(datastore: PostgresDatastore) -> tuple[Any, ...]:
    """What names one server and database: writes to its tables can share a transaction."""
    found = datastore.pool.kwargs
    found = (found() if callable(found) else found) or {}
    return (found.get("host"), str(found.get("port")), found.get("dbname"), found.get("user"))


def _append_one_write(write: TableWrite) -> list[int]:
    recorder, events = write
    return recorder._append_one(events)


def _append_table_writes(writes: Sequence[TableWrite]) -> list[list[int] | None]:
    """Several writes, to one table or to several of the server's, in one transaction; None for a write refused."""
    tables = sorted({id(recorder): recorder for recorder, _ in writes}.values(), key=lambda r: r.batch_function)
    if len(tables) == 1:
        return tables[0]._append_many([events for _, events in writes])
    return _append_across_tables(tables, writes)


@retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
def _append_across_tables(
    tables: list[OneTripApplicationRecorder], writes: Sequence[TableWrite]
) -> list[list[int] | None]:
    # The tables' locks are taken in one order (their functions' names) in every process: two such transactions
    # never wait for each other's tables crosswise. A union's branches run in the order written.
    statement = " UNION ALL ".join(
        f"SELECT {part} AS part, write, appended FROM {table.batch_function}(%s, %s, %s, %s, %s)"
        for part, table in enumerate(tables)
    )
    parameters: list[Any] = []
    numbered: list[list[int]] = []  # per table, the positions in `writes` of its writes, in their number's order
    for table in tables:
        mine = [position for position, (recorder, _) in enumerate(writes) if recorder is table]
        numbered.append(mine)
        events = [writes[position][1] for position in mine]
        parameters.extend(_columns([event for one in events for event in one]))
        parameters.append([number for number, one in enumerate(events) for _ in one])
    outcomes: list[list[int] | None] = [[] for _ in writes]
    with tables[0].datastore.get_connection() as conn, conn.cursor() as cursor:
        cursor.execute(statement, parameters, prepare=True)
        for row in cursor.fetchall():
            position = numbered[row["part"]][row["write"]]
            found = outcomes[position]
            if row["appended"] is None:
                outcomes[position] = None
            elif found is not None:
                found.append(row["appended"])
    return outcomes


def wake_channel(schema: str, events_table_name: str) -> str:
    """The LISTEN channel of one event table's wakes: its table and schema, cut to PostgreSQL's identifier length."""
    name = f"{events_table_name}@{schema}"
    return name.encode()[:MAX_CHANNEL_BYTES].decode(errors="ignore")


def _quoted(name: str) -> str:
    """A PostgreSQL identifier, quoted (a double quote inside it doubled)."""
    return '"' + name.replace('"', '""') + '"'


def _literal(text: str) -> str:
    """A PostgreSQL string literal (a single quote inside it doubled)."""
    return "'" + text.replace("'", "''") + "'"
