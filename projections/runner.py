"""Running the cross-match read models as their own process (`gambit project`).

On PostgreSQL the runner wakes on the store's LISTEN/NOTIFY subscription (the eventsourcing
library's `subscribe()`); on SQLite, which has no subscriptions, it polls. Either way the
index folds from its tracked position, so a restart resumes where it stopped.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from domain.store import notifies_followers
from projections.index import CrossMatchIndex

log = logging.getLogger("gambit.projector")

PROJECTIONS = ("cross-match-index",)


def can_subscribe(recorder: object) -> bool:
    """Whether the store notifies followers: PostgreSQL's recorder does (LISTEN/NOTIFY), SQLite's cannot."""
    return notifies_followers(recorder)


def follow(
    index: CrossMatchIndex,
    stop: threading.Event,
    poll_seconds: float = 0.5,
    on_batch: Callable[[int], None] | None = None,
) -> None:
    """Keep the index caught up until `stop` is set."""

    def fold_new() -> None:
        processed = index.catch_up()
        if on_batch and processed:
            on_batch(processed)

    fold_new()
    recorder = index.app.recorder
    if not can_subscribe(recorder):
        while not stop.wait(poll_seconds):
            fold_new()
        return
    with recorder.subscribe(gt=index.position()) as subscription:

        def stop_following() -> None:
            stop.wait()
            subscription.stop()

        watcher = threading.Thread(target=stop_following, daemon=True)
        watcher.start()
        for _ in subscription:
            if stop.is_set():
                break
            fold_new()


def rebuild(index: CrossMatchIndex, name: str) -> int:
    """Rebuild one read model from the whole store; returns how many records were folded."""
    if name not in PROJECTIONS:
        raise KeyError(name)
    return index.rebuild()
