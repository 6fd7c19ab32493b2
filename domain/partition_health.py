"""Whether a partition answers: a call to one partition's store, and which partitions did not answer lately.

Apart from domain/partitions.py so that a store of one (domain/store.py) can name the same type without a cycle.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

from eventsourcing.persistence import InterfaceError, OperationalError

from domain.errors import PartitionUnavailable

# Seconds a partition that did not answer is taken as down before it is asked again. The library tries a call
# to a stopped server 10 times, each waiting up to the URL's connect_timeout: without this every request for its
# matches, and every follower's pass, would wait that long (deploy/runbook.md, "A partition down").
RETRY_UNANSWERED_AFTER = 2.0


class PartitionHealth:
    """Which partitions did not answer lately, so calls to them fail at once instead of each waiting out the library's
    retries; after RETRY_UNANSWERED_AFTER seconds the next call asks again. Shared by a process's store and followers."""

    def __init__(self, retry_after: float = RETRY_UNANSWERED_AFTER) -> None:
        """`retry_after`: seconds a partition that did not answer is passed over."""
        self.retry_after = retry_after
        self._unanswered: dict[int, tuple[float, str]] = {}  # partition → (when, why)

    def unanswered(self, partition: int) -> str | None:
        """Why the partition is taken as down now (it did not answer within `retry_after` s), or None: ask it."""
        found = self._unanswered.get(partition)
        if found is None or time.monotonic() - found[0] >= self.retry_after:
            return None
        return f"it did not answer {time.monotonic() - found[0]:.1f} s ago ({found[1]})"

    def failed(self, partition: int, exc: BaseException) -> None:
        """The partition did not answer now."""
        self._unanswered[partition] = (time.monotonic(), f"{type(exc).__name__}: {str(exc)[:200]}")

    def answered(self, partition: int) -> None:
        """The partition answered now."""
        self._unanswered.pop(partition, None)


def _unavailable(partition: int, why: str) -> PartitionUnavailable:
    return PartitionUnavailable(
        f"partition {partition} does not answer ({why}); "
        "its matches are unavailable until it is back, every other match is not affected",
        partition=partition,
    )


@contextlib.contextmanager
def reaching(partition: int, health: PartitionHealth | None = None) -> Iterator[None]:
    """A call to one partition's store: a store that does not answer is PartitionUnavailable, naming it; with
    `health`, one that did not answer lately is PartitionUnavailable at once, without asking it."""
    why = health.unanswered(partition) if health is not None else None
    if why is not None:
        raise _unavailable(partition, why)
    try:
        yield
    except (OperationalError, InterfaceError) as exc:
        if health is not None:
            health.failed(partition, exc)
        raise _unavailable(partition, f"{type(exc).__name__}: {str(exc)[:200]}") from exc
    if health is not None:
        health.answered(partition)
