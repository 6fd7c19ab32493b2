"""Spectator delay: while a match runs, spectators see it as of an earlier version (the match option
`spectator_delay`, in records).

The version a held-back spectator sees, `as_of`, is the last record of the newest write that lies
at least `spectator_delay` records behind the match's latest version: the newest record at or
before `max(1, latest - spectator_delay)` that carries its write's receipt. Spectators so move on a
whole write at a time — never half of a command's records — and a spectator's export ends on a
receipt, so it verifies. Seats and the organizer are never held back, and nobody is once the match
has finished.
"""

from __future__ import annotations

from dataclasses import dataclass

from domain.application import MatchService
from domain.match import Match
from domain.ruleset import SPECTATOR, Viewer

# Most writes are a record or a few: look that far back first, and further only for long writes.
SHORT_LOOK, LONG_LOOK = 8, 1000


@dataclass(frozen=True)
class SpectatorDelay:
    """How far one caller is held behind a running match: `records` (the option) and the version shown."""

    records: int
    as_of: int

    def body(self) -> dict:
        """The `delay` object of a view or summary."""
        return {"records": self.records, "as_of": self.as_of}


def spectator_delay(app: MatchService, match: Match, viewer: Viewer) -> SpectatorDelay | None:
    """How far this viewer is held behind the match as loaded (its latest version); None: not at all."""
    records = match.options.spectator_delay
    if records == 0 or viewer.role != SPECTATOR or match.status == "finished":
        return None
    return SpectatorDelay(records, delayed_version(app, match, records))


def shown_as_of(app: MatchService, match: Match, delay: SpectatorDelay | None) -> Match:
    """The match as of the version a viewer held back by `delay` may see (the latest without a delay)."""
    if delay is None or delay.as_of == match.version:
        return match
    return app.match(match.match_id, version=delay.as_of)


def delayed_version(app: MatchService, match: Match, records: int) -> int:
    """The newest write boundary at least `records` records behind the match's version (module docstring)."""
    target = max(1, match.version - records)
    upto = target
    for look in (SHORT_LOOK, LONG_LOOK):
        after = max(0, upto - look)
        for stored in reversed(app.records(match.match_id, after=after, upto=upto)):
            if isinstance(stored.meta.get("receipt"), dict):
                return stored.originator_version
        if after == 0:
            break
        upto = after
    # A store without receipts this far back (records written before receipts existed) is shown
    # record by record: its exports fail verification for that reason whoever reads them.
    return target
