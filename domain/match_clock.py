"""A match's clock: its deadlines, the expiries due, and the organizer's pause, resume and added time
(methods of Match; the clock's rules are domain/clock.py).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from domain import clock
from domain.clock import CLOCK_EXPIRED, CLOCK_PAUSED, CLOCK_RESUMED, TIME_ADDED
from domain.errors import DisputeRejected
from domain.match_shape import MatchShape
from domain.ruleset import Event


class MatchClock(MatchShape):
    """The clock queries and commands of a Match (a base class of it, holding no state of its own)."""

    def deadline_of(self, seat: str) -> int | None:
        """The instant (µs since the epoch) after which this seat's time has run out, while its clock runs."""
        return clock.deadlines(self.clock).get(seat)

    def ran_out(self, seat: str) -> int | None:
        """The deadline (µs) at which this seat's time ran out, while its commands are refused (domain/clock.py)."""
        return clock.ran_out(self.clock, seat, clock.micros(self.modified_on))

    def overdue(self, at: datetime) -> list[tuple[int, str]]:
        """(deadline, seat) of every seat whose time has run out at `at`, earliest first (none unless active)."""
        if self.status != "active":
            return []
        return clock.overdue(self.clock, clock.micros(at), self.seat_order)

    def expire_overdue(self, at: datetime, evidence: Callable[[int], dict] | None = None) -> int:
        """Record, at `at`, a ClockExpired and the ruleset's consequence for every seat out of time; returns how many.

        The earliest deadline goes first; each consequence is decided on the state it leaves the next.
        """
        expired = 0
        with clock.at_instant(at):
            while expired < clock.MAX_EXPIRIES_PER_WRITE:
                late = self.overdue(at)
                if not late:
                    break
                deadline, seat = late[0]
                self._record(Event(CLOCK_EXPIRED, {"seat": seat, "deadline": clock.iso(deadline)}))
                for event in self.ruleset.time_out(self.state, seat, self.chance()):
                    self._record(event, evidence=self._with_pending(evidence))
                self._finish_if_over()
                expired += 1
        return expired

    def pause_clock(self, note: str, dispute: int | None = None) -> None:
        """The organizer stops every running clock (with a note, and the dispute that prompted it, if any)."""
        self._check_adjustable()
        if self.clock is not None and self.clock["paused"]:
            raise clock.ClockAdjustmentRefused("clock_already_paused", "the clocks are paused already")
        public: dict[str, Any] = {"by": clock.ORGANIZER, "note": note}
        if dispute is not None:
            if str(dispute) not in self.disputes:
                raise DisputeRejected("unknown_dispute", f"this match has no dispute {dispute}")
            public["dispute"] = dispute
        self._record(Event(CLOCK_PAUSED, public))

    def resume_clock(self, note: str) -> None:
        """The organizer starts the clocks again: every seat waited for runs from now."""
        self._check_adjustable()
        if self.clock is not None and not self.clock["paused"]:
            raise clock.ClockAdjustmentRefused("clock_not_paused", "the clocks are not paused")
        self._record(Event(CLOCK_RESUMED, {"by": clock.ORGANIZER, "note": note}))

    def add_time(self, seat: str, seconds: int, note: str) -> None:
        """The organizer gives a seat more time (whole seconds, at most a week at once)."""
        self._check_adjustable()
        if seat not in self.seat_order:
            raise clock.ClockAdjustmentRefused("unknown_seat", f"this match has no seat {seat!r}", status=422)
        if not (isinstance(seconds, int) and 0 < seconds <= clock.MAX_ADDED_SECONDS):
            raise clock.ClockAdjustmentRefused(
                "invalid_seconds", f"seconds must be a whole number from 1 to {clock.MAX_ADDED_SECONDS}", status=422
            )
        self._record(Event(TIME_ADDED, {"by": clock.ORGANIZER, "seat": seat, "seconds": seconds, "note": note}))

    def _check_adjustable(self) -> None:
        if self.clock is None:
            raise clock.UntimedMatch("this match has no clock (its time_control is none)")
        if self.status == "finished":
            raise clock.ClockAdjustmentRefused("match_finished", "the match has finished; its clocks have stopped")
