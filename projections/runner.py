"""Running the cross-match read models as their own process (`gambit project`).

On PostgreSQL the runner wakes on the store's LISTEN/NOTIFY subscription (the eventsourcing
library's `subscribe()`); on SQLite, which has no subscriptions, it polls. Either way the
index folds from its tracked position, so a restart resumes where it stopped.
"""

from __future__ import annotations

import logging
import threading
from typing import Callable

from projections.index import CrossMatchIndex

log = logging.getLogger("gambit.projector")

PROJECTIONS = ("cross-match-index",)


def follow(index: CrossMatchIndex, stop: threading.Event, poll_seconds: float = 0.5,
           on_batch: Callable[[int], None] | None = None) -> None:
    """Keep the index caught up until `stop` is set."""
    processed = index.catch_up()
    if on_batch and processed:
        on_batch(processed)
    recorder = index.app.recorder
    try:
        subscription = recorder.subscribe(gt=index.position())
    except (NotImplementedError, AttributeError):
        subscription = None
    if subscription is None:
        while not stop.wait(poll_seconds):
            processed = index.catch_up()
            if on_batch and processed:
                on_batch(processed)
        return
    with subscription:
        watcher = threading.Thread(target=lambda: (stop.wait(), subscription.stop()), daemon=True)
        watcher.start()
        for _ in subscription:
            if stop.is_set():
                break
            processed = index.catch_up()
            if on_batch and processed:
                on_batch(processed)


def rebuild(index: CrossMatchIndex, name: str) -> int:
    """Rebuild one read model from the whole store; returns how many records were folded."""
    if name not in PROJECTIONS:
        raise KeyError(name)
    return index.rebuild()
