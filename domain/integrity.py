"""What the service trusts of its own store: sealed snapshots, receipts, and loads that check both.

The events table is append-only under triggers, and every record is chained; but someone who
can write to the database can drop the triggers, and snapshots live in a table of their own.
So nothing the store returns is taken on faith:

- **Snapshots are sealed.** Each one is written with an HMAC under a key only the service holds
  (derived from its signing key) and carries the version and chain head it was taken at. On load
  the seal must hold and the stored event at that version must have the same chain head;
  otherwise the snapshot is ignored, the match is replayed from its events, and the incident is
  logged loudly. Editing a snapshot changes nothing a player sees.
- **Receipts are part of the write.** The newest record of every write carries, in its
  server-only `meta`, the receipt signed for it before the save; so the receipt is stored in the
  same transaction as the events, under the same guard, and never minted later from whatever the
  store holds. A match whose newest records carry no valid receipt has been written by someone
  other than this service.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
from collections.abc import Sequence
from itertools import chain
from typing import Any, Protocol

from eventsourcing.application import AggregateNotFoundError, Repository
from eventsourcing.persistence import AggregateRecorder, StoredEvent

from domain.match import match_record

log = logging.getLogger("gambit.integrity")

SEAL_PREFIX = b"gambit-seal/1:"
_SEAL_HEX = 64


class ReceiptSigner(Protocol):
    """Signs receipts when a write is acknowledged, and checks receipts it finds in the store."""

    key_id: str

    def receipt(self, match_id: str, version: int, head: str) -> dict:
        """A signed receipt for a match's chain head at a version."""
        ...

    def verify(self, receipt: dict) -> bool:
        """Whether a receipt carries this service's valid signature."""
        ...


def _seal_of(key: bytes, stored: StoredEvent, state: bytes) -> bytes:
    message = f"{stored.originator_id}\n{stored.originator_version}\n{stored.topic}\n".encode() + state
    return hmac.new(key, message, hashlib.sha256).hexdigest().encode()


class SealedRecorder(AggregateRecorder):
    """A snapshot recorder that seals every snapshot it writes and returns only those that unseal.

    Everything else (table creation, connection handling) is the wrapped recorder's.
    """

    def __init__(self, recorder: Any, key: bytes) -> None:
        self._recorder = recorder
        self._key = key
        self._reported: set[tuple[str, int]] = set()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._recorder, name)

    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Sequence[int] | None:
        """Write snapshots, each prefixed with its seal."""
        sealed = [
            StoredEvent(
                e.originator_id,
                e.originator_version,
                e.topic,
                SEAL_PREFIX + _seal_of(self._key, e, e.state) + b":" + e.state,
            )
            for e in stored_events
        ]
        return self._recorder.insert_events(sealed, **kwargs)

    def select_events(
        self,
        originator_id: Any,
        *,
        gt: int | None = None,
        lte: int | None = None,
        desc: bool = False,
        limit: int | None = None,
    ) -> list[StoredEvent]:
        """The snapshots whose seal holds; a broken seal is logged and the snapshot left out."""
        found = []
        for stored in self._recorder.select_events(originator_id, gt=gt, lte=lte, desc=desc, limit=limit):
            state = self._unseal(stored)
            if state is None:
                incident = (str(stored.originator_id), stored.originator_version)
                if incident not in self._reported:  # once per snapshot and process: loud, not a flood
                    self._reported.add(incident)
                    log.error(
                        "INTEGRITY: the snapshot of %s at version %s does not carry this service's seal "
                        "(edited, or sealed before a signing-key rotation); ignoring it and replaying from "
                        "the events",
                        *incident,
                    )
                continue
            found.append(StoredEvent(stored.originator_id, stored.originator_version, stored.topic, state))
        return found

    def _unseal(self, stored: StoredEvent) -> bytes | None:
        data = bytes(stored.state)
        if not data.startswith(SEAL_PREFIX):
            return None
        seal_end = len(SEAL_PREFIX) + _SEAL_HEX
        seal, state = data[len(SEAL_PREFIX) : seal_end], data[seal_end + 1 :]
        if not hmac.compare_digest(seal, _seal_of(self._key, stored, state)):
            return None
        return state


class CheckedRepository(Repository):
    """The library's repository, but a snapshot is used only when it agrees with the stored events.

    The stored event at the snapshot's version is read with the events after it (one query, as
    before); its chain must be the snapshot's `head`. Aggregates without a chain (tournaments)
    are bound by the seal alone.
    """

    def _reconstruct_aggregate(self, aggregate_id: Any, version: int | None, projector_func: Any) -> Any:
        if self.snapshot_store is not None:
            snapshots = list(self.snapshot_store.get(originator_id=aggregate_id, desc=True, limit=1, lte=version))
            if snapshots:
                snapshot = snapshots[0]
                at = snapshot.originator_version
                events = list(self.event_store.get(originator_id=aggregate_id, gt=at - 1, lte=version))
                if events and events[0].originator_version == at and _same_head(snapshot, events[0]):
                    return self._project(aggregate_id, version, projector_func, chain(snapshots, events[1:]))
                log.error(
                    "INTEGRITY: the snapshot of %s at version %s disagrees with the stored event at that "
                    "version; replaying from the events",
                    aggregate_id,
                    at,
                )
        return self._project(
            aggregate_id, version, projector_func, self.event_store.get(originator_id=aggregate_id, lte=version)
        )

    @staticmethod
    def _project(aggregate_id: Any, version: int | None, projector_func: Any, events: Any) -> Any:
        aggregate = projector_func(None, events)
        if aggregate is None:
            raise AggregateNotFoundError(f"Aggregate {aggregate_id!r} version {version!r} not found.")
        return aggregate


def _same_head(snapshot: Any, event: Any) -> bool:
    """Whether the snapshot's chain head is the stored record's (a tournament has neither: bound by the seal)."""
    record = match_record(event)
    return snapshot.state.get("head") == (None if record is None else record.chain)
