"""PostgreSQL appends in one round trip: the events table's lock is held only while the database works.

The library serializes appends with `LOCK TABLE … IN EXCLUSIVE MODE`, so that notification ids
commit in the order they are issued (a follower of the notification log never passes over an id
that commits later). It takes the lock in a transaction of two round trips: the lock, the NOTIFY
and the insert in the first, the COMMIT in the second. Under gevent the worker runs its other
requests' Python between the two, so every other append — of any match, from any worker — waits
for that worker's queue: the p99 tail at human pace (bench/limits.md).

Here the same lock, NOTIFY and insert run inside one database function, called in autocommit:
one statement, so one transaction, committed by the server before the answer leaves it. The
ordering guarantee and the NOTIFY (the clock process listens to it) are the library's; only who
waits for the network while the lock is held changes. The events and the receipt signed into the
newest one's meta are still written by one insert, in one durable commit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eventsourcing.persistence import InterfaceError, OperationalError, StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore
from eventsourcing.utils import retry


class OneTripApplicationRecorder(PostgresApplicationRecorder):
    """The library's PostgreSQL application recorder, appending through one function call."""

    def __init__(self, datastore: PostgresDatastore, *, events_table_name: str = "stored_events") -> None:
        super().__init__(datastore, events_table_name=events_table_name)
        # Named after its table: two applications in one schema each get their own.
        function = f"{_quoted(datastore.schema)}.{_quoted(events_table_name + '_append')}"
        table = f"{_quoted(datastore.schema)}.{_quoted(events_table_name)}"
        self.create_append_function = (
            f"CREATE OR REPLACE FUNCTION {function}("
            f"ids {_quoted(datastore.originator_id_type)}[], versions bigint[], topics text[], states bytea[]) "
            "RETURNS SETOF bigint LANGUAGE plpgsql AS $BODY$ "
            "BEGIN "
            f"SET LOCAL lock_timeout = '{int(datastore.lock_timeout)}s'; "
            f"LOCK TABLE {table} IN EXCLUSIVE MODE; "
            f"NOTIFY {_quoted(self.channel_name)}; "
            f"RETURN QUERY INSERT INTO {table} (originator_id, originator_version, topic, state) "
            "SELECT * FROM unnest(ids, versions, topics, states) RETURNING notification_id; "
            "END; $BODY$"
        )
        self.append_statement = f"SELECT appended FROM {function}(%s, %s, %s, %s) AS appended"

    def create_table(self) -> None:
        """The library's tables, then the append function (replaced, so a changed body takes effect)."""
        super().create_table()
        with self.datastore.transaction(commit=True) as cursor:
            cursor.execute(self.create_append_function)

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)  # as the library's own append
    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Sequence[int] | None:
        """Append the events in one statement; their notification ids, in order."""
        if kwargs.get("tracking") is not None or not stored_events:
            return super().insert_events(stored_events, **kwargs)
        parameters = (
            [event.originator_id for event in stored_events],
            [event.originator_version for event in stored_events],
            [event.topic for event in stored_events],
            [event.state for event in stored_events],
        )
        with self.datastore.get_connection() as conn, conn.cursor() as cursor:
            cursor.execute(self.append_statement, parameters, prepare=True)
            return [row["appended"] for row in cursor.fetchall()]


def _quoted(name: str) -> str:
    """A PostgreSQL identifier, quoted (a double quote inside it doubled)."""
    return '"' + name.replace('"', '""') + '"'
