"""Background work that shares a serving worker's loop in turns.

`gambit serve` runs its background duties (the log's sequencer, the clock keeper) in the leading worker, which
serves requests too; under gevent workers a duty is a greenlet, and a greenlet keeps the worker's only thread
until it waits on I/O. Decoding and checking a batch of a few hundred records is tens of milliseconds of pure
Python: every request that arrived meanwhile waited for all of it, which made the worst command latencies at
human pace. Folded in turns of `TURN` records, a duty gives way between turns; under threads giving way
(`time.sleep(0)`) merely lets another thread run.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from typing import TypeVar

# Records handled between two turns given to the worker's other work (about a millisecond of decoding).
TURN = 8

T = TypeVar("T")


def give_way() -> None:
    """Let the worker's other greenlets (or threads) run: `time.sleep` as gevent patched it, looked up now (the
    module may have been imported before the worker patched it)."""
    time.sleep(0)


def in_turns(items: Iterable[T], turn: int = TURN) -> Iterator[T]:
    """The items, giving the worker's other work a turn after every `turn` of them."""
    for count, item in enumerate(items, start=1):
        yield item
        if count % turn == 0:
            give_way()
