"""Running the cross-match read models as their own process (`gambit project`).

On PostgreSQL the runner wakes on the wake each append sends after its commit (LISTEN, see
projections/record_wakes.py), and polls as well; on SQLite it polls. Either way the index folds from
its tracked position, so a restart resumes where it stopped and a wake lost loses nothing.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from projections.index import CrossMatchIndex
from projections.record_wakes import Doorbell, can_wake

log = logging.getLogger("gambit.projector")

PROJECTIONS = ("cross-match-index",)
# How often a runner woken by the appends' wakes looks anyway (a wake lost costs at most this).
WOKEN_POLL_SECONDS = 2.0


def can_subscribe(recorder: object) -> bool:
    """Whether the store wakes followers after its appends: PostgreSQL's recorder does, SQLite's cannot."""
    return can_wake(recorder)


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
    bell = Doorbell([partition.recorder for partition in index.app.partitions])
    interval = WOKEN_POLL_SECONDS if bell.listening else poll_seconds

    def stop_following() -> None:
        stop.wait()
        bell.ring()

    threading.Thread(target=stop_following, daemon=True, name="gambit-runner-stop").start()
    try:
        while not stop.is_set():
            bell.wait(interval)
            if not stop.is_set():
                fold_new()
    finally:
        bell.close()


def rebuild(index: CrossMatchIndex, name: str) -> int:
    """Rebuild one read model from the whole store; returns how many records were folded."""
    if name not in PROJECTIONS:
        raise KeyError(name)
    return index.rebuild()
