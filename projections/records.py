"""Event records in the caller's form (docs/verification.md, "The event record")."""

from __future__ import annotations

import copy
from typing import Any

from domain.match import Match
from domain.reveals import opened_by  # noqa: F401 -- re-exported: projections.views reads it from here
from domain.ruleset import ORGANIZER, Viewer


def viewer_for(match: Match, role: str, seat: str | None = None) -> Viewer:
    """The viewer a caller is for this match: once it has finished, everyone sees everything."""
    sees_all = role == ORGANIZER or match.status == "finished"
    return Viewer(role, seat, sees_all)


def _plain_copy(value: Any) -> Any:
    """A deep copy of JSON-shaped data (dicts, lists, scalars), several times faster than
    `copy.deepcopy`, which it falls back to for anything else (tuples, typed values)."""
    kind = type(value)
    if kind is dict:
        return {key: _plain_copy(item) for key, item in value.items()}
    if kind is list:
        return [_plain_copy(item) for item in value]
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return value
    return copy.deepcopy(value)


def record_form(stored: Any, viewer: Viewer, match: Match | None = None, as_of: int | None = None) -> dict:
    """One stored event as this viewer may see it as of a version; credentials and server metadata never appear.

    Its secret and salt are shown to the secret's audience (and to everyone once `viewer` says the
    match has finished), and to every viewer once a record at or before `as_of` has revealed it
    (`match.revealed_at`, docs/verification.md "Reveals"); without `as_of`, as of the match's own version.
    """
    record = {
        "version": stored.originator_version,
        "kind": stored.kind,
        "timestamp": stored.timestamp.isoformat(),
        "public": _plain_copy(stored.public),
        "commitment": stored.commitment,
        "audience": None if stored.audience is None else list(stored.audience),
        "chain": stored.chain,
    }
    if stored.secret is not None and (
        viewer.may_see(stored.audience) or is_revealed(match, stored.originator_version, as_of)
    ):
        record["secret"] = _plain_copy(stored.secret)
        record["salt"] = stored.salt
    return record


def is_revealed(match: Match | None, version: int, as_of: int | None = None) -> bool:
    """Whether the secret of `version` has been revealed to everyone by a record at or before `as_of`."""
    if match is None:
        return False
    opening = match.revealed_at(version)
    return opening is not None and opening <= (match.version if as_of is None else as_of)
