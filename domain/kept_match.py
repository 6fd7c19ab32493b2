"""A match kept between requests as JSON text, copied afresh for each (Match.kept), and the Match's
methods that keep and copy it."""

from __future__ import annotations

import json
from typing import Any, Generic, Self, TypeVar

from domain.match_shape import MatchShape

# The aggregate's attributes that are not JSON: immutable ones a copy shares, and the pending events.
_SHARED = ("_id", "_created_on", "_modified_on")
# Where a write in progress keeps the match as it was at each snapshot version it recorded, until the save
# takes them (Match.kept_for_snapshots): never part of a copy, a snapshot or a kept match.
_KEPT_FOR_SNAPSHOTS = "_kept_for_snapshots"
_NOT_JSON = frozenset((*_SHARED, "_pending_events", _KEPT_FOR_SNAPSHOTS))


# A match's attributes hold no cycles (they are what a snapshot stores): the encoder of a kept match
# skips the check for them, a sixth of the encoding.
_KEPT_ENCODER = json.JSONEncoder(check_circular=False)


class MatchKeeping(MatchShape):
    """How a Match is copied and kept between requests (a base class of it, holding no state of its own)."""

    def fresh_copy(self) -> Self:
        """An independent copy with nothing pending, for one request to change (the original stays as it is).

        Every attribute but the library's identity fields and the attached reveal lookup is plain
        JSON (it is what a snapshot stores), so one JSON round trip copies it, several times
        faster than `copy.deepcopy`.
        """
        return self.kept().fresh_copy()

    def kept(self) -> KeptMatch[Self]:
        """This match as it is now, frozen: each `fresh_copy()` of it is a new independent Match.

        Half of the JSON round trip of `fresh_copy` (the encoding) is done here once, so a match
        kept between requests costs each request only the decoding. The shared attributes hold
        their places in the text (as nulls), so a copy lists its attributes in this match's
        order, and a snapshot taken of it is the very one the library takes of the match rebuilt
        from the store.
        """
        attributes = vars(self)
        plain = {
            key: None if key in _SHARED else value
            for key, value in attributes.items()
            if key not in _NOT_JSON or key in _SHARED
        }
        shared = {key: attributes[key] for key in _SHARED if key in attributes}
        return KeptMatch(type(self), _KEPT_ENCODER.encode(plain), shared, self.version, self.head)

    def kept_for_snapshots(self) -> dict[int, KeptMatch[Self]]:
        """The match as it was at each version a snapshot is due at, recorded since the last call; forgotten here.

        The store's save (domain/store.py) snapshots these instead of rebuilding the match from the store.
        The match at the newest version is not among them: its receipt comes after its records.
        """
        kept: dict[int, KeptMatch[Self]] = vars(self).pop(_KEPT_FOR_SNAPSHOTS, None) or {}
        return kept

    def keep_for_snapshot(self) -> None:
        """Keep the match as it is now for the save to snapshot (see kept_for_snapshots)."""
        vars(self).setdefault(_KEPT_FOR_SNAPSHOTS, {})[self.version] = self.kept()


# The class of the match kept (Match; a type variable, so this module need not import it).
Kept = TypeVar("Kept", bound=MatchShape)


class KeptMatch(Generic[Kept]):
    """A match frozen as JSON text (Match.kept): its version and chain head, and fresh copies of it on demand."""

    __slots__ = ("_cls", "_shared", "_text", "head", "version")

    def __init__(self, cls: type[Kept], text: str, shared: dict[str, Any], version: int, head: str) -> None:
        self._cls = cls
        self._text = text
        self._shared = shared
        self.version = version
        self.head = head

    def fresh_copy(self) -> Kept:
        """A new, independent Match with nothing pending, as the match was when it was kept."""
        copied = json.loads(self._text)
        copied.update(self._shared)
        copied["_pending_events"] = []
        twin = object.__new__(self._cls)
        object.__setattr__(twin, "__dict__", copied)
        return twin
