"""The append path before issue 34, for comparison only: `LOCK TABLE`, `NOTIFY` and the insert in one function."""

from __future__ import annotations

from collections.abc import Sequence

from eventsourcing.persistence import StoredEvent
from eventsourcing.postgres import PostgresDatastore

from domain.pg_append import OneTripApplicationRecorder


class TodayRecorder(OneTripApplicationRecorder):
    """The service's recorder with the NOTIFY back inside the append's transaction, and no wake after it."""

    def __init__(self, datastore: PostgresDatastore, *, events_table_name: str = "stored_events") -> None:
        super().__init__(datastore, events_table_name=events_table_name)
        lock = "IN EXCLUSIVE MODE; "
        notify = f'NOTIFY "{self.channel_name}"; '
        self.create_append_function = self.create_append_function.replace(lock, lock + notify, 1)

    def _append_and_wake(self, stored_events: Sequence[StoredEvent]) -> list[int]:
        """One write per transaction, as before issue 34, and no wake: the NOTIFY went out with its commit."""
        return self._append_one(stored_events)


class SilentRecorder(OneTripApplicationRecorder):
    """The new append without its wake: what the wake's own transaction costs (followers then only poll)."""

    def ask_wake(self) -> None:
        """No wake."""
