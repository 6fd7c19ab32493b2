"""The matches one process loaded or saved last, kept to be brought up to date instead of rebuilt.

Loading a match from its latest snapshot re-checks up to 49 records against the chain on every
command; a process that has the match in memory at version v reads only the record at v and those
after it. The record at v must still carry the chain head the kept match has — the same check a
snapshot passes before it is used (domain/integrity.py) — so a record rewritten, truncated or
re-chained in the database since is noticed and the match is rebuilt from the store, as without
this cache. The records after v are folded with their usual chain and commitment checks.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

# Matches remembered per process: the ones being played now, with room to spare.
REMEMBERED_MATCHES = 256


class RecentMatches:
    """A least-recently-used map of match id → the match as this process last saw it (never handed out)."""

    def __init__(self, size: int = REMEMBERED_MATCHES) -> None:
        """`size` 0 keeps nothing (every load rebuilds from the store)."""
        self._size = size
        self._matches: OrderedDict[Any, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, match_id: Any) -> Any | None:
        """The kept match (a domain.kept_match.KeptMatch: requests change only its fresh copies), or None."""
        with self._lock:
            match = self._matches.get(match_id)
            if match is not None:
                self._matches.move_to_end(match_id)
            return match

    def keep(self, match_id: Any, match: Any) -> None:
        """Remember `match`, unless an equal or newer version is remembered already."""
        if self._size <= 0:
            return
        with self._lock:
            known = self._matches.get(match_id)
            if known is not None and known.version >= match.version:
                return
            self._matches[match_id] = match
            self._matches.move_to_end(match_id)
            while len(self._matches) > self._size:
                self._matches.popitem(last=False)

    def forget(self, match_id: Any) -> None:
        """Drop a match (its stored records no longer agree with it)."""
        with self._lock:
            self._matches.pop(match_id, None)
