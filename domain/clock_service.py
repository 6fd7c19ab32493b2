"""The clock service: deadlines hold whoever touches a match, and the organizer's pause, resume and added time.

Every write of a match goes through `write` here, which first records the expiries due at the
write's instant (docs/clocks.md); reads record them through `enforce` (the match service's
`match`), and the clock process through `expire_due`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import datetime
from typing import Any

from eventsourcing.persistence import IntegrityError

from domain import clock
from domain.errors import ConcurrentWrite
from domain.match import Match
from domain.partitions import PartitionedStore
from domain.store import UPDATE_ATTEMPTS, MatchStore, Written


class ClockService:
    """Expiries recorded when due, and the organizer's clock adjustments, on the shared match store."""

    def __init__(self, store: MatchStore | PartitionedStore) -> None:
        """The clocks of the matches in `store` (one store, or several partitions)."""
        self.store = store

    # ----- the organizer's adjustments ----------------------------------------------------
    def pause_clock(self, match_id: str, note: str, dispute: int | None = None) -> Written:
        """The organizer pauses every clock of a timed match; returns what the write stored."""
        return self.write(match_id, lambda match: match.pause_clock(note, dispute))[1]

    def resume_clock(self, match_id: str, note: str) -> Written:
        """The organizer resumes the clocks; returns what the write stored."""
        return self.write(match_id, lambda match: match.resume_clock(note))[1]

    def add_time(self, match_id: str, seat: str, seconds: int, note: str) -> Written:
        """The organizer adds time to a seat's clock; returns what the write stored."""
        return self.write(match_id, lambda match: match.add_time(seat, seconds, note))[1]

    # ----- every write --------------------------------------------------------------------
    def write(self, match_id: str, change: Callable[[Match], Any]) -> tuple[Any, Written]:
        """Load, record the expiries due, change, save; a lost race is retried on a fresh load (the change is
        re-decided). Returns what `change` returned and what the write stored.

        The range comes from the load the write was decided on, never from an earlier read, so a
        response built from it holds exactly the records this write made.
        """
        for _ in range(UPDATE_ATTEMPTS):
            # One instant for the deadline check and every record of the write (docs/clocks.md).
            at = clock.fresh_now()
            match = self.enforce(self.store.load(match_id), at)
            self.store.refuse_if_tampered(match)
            first = match.version + 1
            with clock.at_instant(at):
                result = change(match)
            try:
                written = self.store.commit(match, first)
            except IntegrityError:
                continue  # someone wrote first: nothing of ours was stored; decide again
            return result, written
        raise ConcurrentWrite("the match kept changing; try again")

    # ----- expiries -----------------------------------------------------------------------
    def expire_due(self, match_id: str) -> Match:
        """Record every expiry due now (what any read does first); the clock process calls it at a deadline."""
        return self.enforce(self.store.load(match_id))

    def refuse_if_late(self, match: Match, seat: str, at: datetime) -> Match:
        """Record the expiries due at the command's instant; refuse the command if its own seat's time ran out.

        Its seat's expiry may already be recorded (by the read that loaded the match, another worker or
        the clock process): a seat that ran out is refused until the match waits for it again.
        """
        late = match.overdue(at)
        own = next((deadline for deadline, late_seat in late if late_seat == seat), None)
        if late:
            match = self._expire(match.match_id, at)
        own = own if own is not None else match.ran_out(seat)
        if own is not None:
            raise clock.ClockExpiredError(
                f"{seat}'s time ran out at {clock.iso(own)}: the command was not taken",
                seat=seat,
                deadline=clock.iso(own),
            )
        return match

    def enforce(self, match: Match, at: datetime | None = None) -> Match:
        """The match once every expiry due at `at` (now) is recorded: deadlines hold whoever touches the match."""
        at = at or clock.fresh_now()
        if not match.overdue(at) or self.store.integrity_problem(match) is not None:
            return match  # nothing due; or a history this service did not write, which it never extends
        return self._expire(match.match_id, at)

    def _expire(self, match_id: str, at: datetime) -> Match:
        """Write the expiries due at `at` once: a process that loses the race reloads and finds them written."""
        for _ in range(UPDATE_ATTEMPTS):
            match = self.store.load(match_id)
            if not match.overdue(at) or self.store.write_problem(match) is not None:
                return match
            match.expire_overdue(at, evidence=functools.partial(self.store.evidence, match.id))
            self.store.acknowledge(match)
            try:
                self.store.save(match)
            except IntegrityError:
                continue  # another worker or the clock process wrote first: look again
            return match
        raise ConcurrentWrite("the match kept changing; try again")
