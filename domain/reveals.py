"""Which records of a match have been revealed to everyone, and by which later record.

A revealing record names the versions it opens (`public.opens`, docs/verification.md "Reveals").
That is history: it grows with every reveal, so it is kept out of the Match aggregate and its
snapshots (which stay bounded by what the rules need now) and read from the records themselves,
once per process and match, then extended as the match grows.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

OPENS = "opens"

# Matches whose reveals one process remembers; the least recently used is forgotten first and
# read again from its records if it is asked for later.
REMEMBERED_MATCHES = 1024


def opened_by(stored: Any) -> list[int]:
    """The earlier versions a stored record reveals to everyone (its public `opens`; malformed entries reveal nothing)."""
    opens = stored.public.get(OPENS, [])
    if not isinstance(opens, list):
        return []
    version = stored.originator_version
    return [v for v in opens if isinstance(v, int) and not isinstance(v, bool) and 0 < v < version]


# Which application's index answers for a match: the aggregate itself holds no reference to it, since
# everything a Match holds goes into its snapshots, and a snapshot holds only JSON. Match ids are
# UUIDs, so one process-wide map serves several applications (stores) at once. It holds weak
# references: an application nobody uses any more (and its store's connections) must not be kept.
_BOUND: OrderedDict[str, weakref.ref[RevealIndex]] = OrderedDict()
_BOUND_LOCK = threading.Lock()


def bind(match_id: str, index: RevealIndex) -> None:
    """Say which index answers for a match (its application loaded it just now)."""
    with _BOUND_LOCK:
        _BOUND[match_id] = weakref.ref(index)
        _BOUND.move_to_end(match_id)
        while len(_BOUND) > REMEMBERED_MATCHES * 4:
            _BOUND.popitem(last=False)


def index_of(match_id: str) -> RevealIndex | None:
    """The index that answers for a match, if an application loaded it."""
    with _BOUND_LOCK:
        bound = _BOUND.get(match_id)
    return None if bound is None else bound()


class _Reveals:
    """What one match's records in (`start`, `upto`] reveal: opened version → the first version that opened it.

    Only a later record can reveal a version, so whether `v` is revealed as of `known` needs the
    records in (v, known] alone: the span grows backwards and forwards only as far as it is asked.
    """

    __slots__ = ("opened", "start", "upto")

    def __init__(self, start: int, upto: int) -> None:
        self.start = start
        self.upto = upto
        self.opened: dict[int, int] = {}

    def take(self, records: Iterable[Any]) -> None:
        """Take in what stored records reveal (any order; a version keeps its earliest revealer)."""
        for stored in records:
            version = stored.originator_version
            for opened in opened_by(stored):
                earlier = self.opened.get(opened)
                if earlier is None or version < earlier:
                    self.opened[opened] = version


class RevealIndex:
    """Reveals of every match this process has been asked about, read from the store on demand."""

    def __init__(self, read: Callable[[str, int, int], list[Any]], remembered: int = REMEMBERED_MATCHES) -> None:
        """`read(match_id, after, upto)` returns the stored records with versions in (after, upto], oldest first."""
        self._read = read
        self._remembered = remembered
        self._matches: OrderedDict[str, _Reveals] = OrderedDict()
        self._lock = threading.Lock()

    def revealed_at(self, match_id: str, version: int, known_version: int) -> int | None:
        """The version whose record revealed `version` to everyone, looking at records up to `known_version`."""
        with self._lock:
            reveals = self._entry(match_id, version)
            start, upto = reveals.start, reveals.upto
        if version < start:
            earlier = self._read(match_id, version, start)
            with self._lock:
                reveals.take(earlier)
                reveals.start = min(reveals.start, version)
        if upto < known_version:
            later = self._read(match_id, upto, known_version)
            with self._lock:
                reveals.take(later)
                reveals.upto = max(reveals.upto, known_version)
        return reveals.opened.get(version)

    def note(self, match_id: str, records: Iterable[Any]) -> None:
        """Take in records just saved: they extend what is known when they follow it, or start it.

        A match this process has not asked about yet starts from the write itself, so the answer to a
        command (its own records, which only its own later records can reveal) reads nothing more.
        """
        records = list(records)
        if not records:
            return
        first, last = records[0].originator_version, records[-1].originator_version
        with self._lock:
            reveals = self._matches.get(match_id)
            if reveals is None:
                reveals = self._entry(match_id, first - 1)
                reveals.upto = first - 1
            if first == reveals.upto + 1:
                reveals.take(records)
                reveals.upto = last

    def _entry(self, match_id: str, version: int) -> _Reveals:
        reveals = self._matches.get(match_id)
        if reveals is None:
            # Nothing known yet: an empty span at `version`, grown by the reads that follow.
            reveals = self._matches[match_id] = _Reveals(version, version)
            while len(self._matches) > self._remembered:
                self._matches.popitem(last=False)
        else:
            self._matches.move_to_end(match_id)
        return reveals
