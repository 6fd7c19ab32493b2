"""The clock of a timed match: one pure function of the records, shared by the match, the service and the verifier.

docs/clocks.md states the rule this module implements. In short: after every record the match
knows who it waits for (`to_act`); a waited-for seat's clock runs from the record that started
its wait, unless the organizer has paused the clocks. A Fischer seat spends its bank and earns
`increment_s` each time the match stops waiting for it (unless its time ran out in that wait);
a per-decision seat gets `per_decision_s` afresh at every ruleset record after which it is
waited for. A seat's time has run out at an instant strictly after its deadline
(`since + remaining`).

The clock state is bounded: per seat the time left, when it started running and whether it ran
out in the current wait; the seats waited for after the last record; paused or not. It is plain
JSON, so the match keeps it in its snapshot as it is. Times are whole microseconds since the Unix
epoch (UTC), so the service and any verifier compute the same deadlines with integers only.

The time source is injectable (`set_time_source`), and a write runs at one instant
(`at_instant`): the deadline check and every record's timestamp use the same `now`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime, timedelta
from typing import Any

from domain.errors import MatchError
from domain.match_options import FISCHER, PER_DECISION, TimeControl

CLOCK_EXPIRED = "ClockExpired"
CLOCK_PAUSED = "ClockPaused"
CLOCK_RESUMED = "ClockResumed"
TIME_ADDED = "TimeAdded"
# The organizer's records: only an organizer may write them (the verifier checks `by`).
ADJUSTMENTS = frozenset({CLOCK_PAUSED, CLOCK_RESUMED, TIME_ADDED})
CLOCK_KINDS = ADJUSTMENTS | {CLOCK_EXPIRED}
ORGANIZER = "organizer"

SECOND = 1_000_000  # microseconds
# The most time one adjustment may add (a week, the longest time control).
MAX_ADDED_SECONDS = 7 * 24 * 3600
# The most expiries one write records: each must end the seat's wait (the ruleset contract), so a
# match runs out of seats to expire long before; the bound only keeps a faulty ruleset from looping.
MAX_EXPIRIES_PER_WRITE = 64

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class ClockError(MatchError):
    """A request the match's clock refuses; `code` is stable."""

    code = "clock_error"
    status = 409


class ClockExpiredError(ClockError):
    """A command arrived after its seat's deadline: refused, and its seat's expiry recorded instead."""

    code = "clock_expired"


class UntimedMatch(ClockError):
    """A clock adjustment for a match that has no clock."""

    code = "untimed_match"
    status = 422


class ClockAdjustmentRefused(ClockError):
    """A pause, resume or added time the clock cannot take now (already paused, not running, finished)."""

    code = "clock_adjustment_refused"

    def __init__(self, rule: str, detail: str, status: int = 409) -> None:
        super().__init__(detail, rule=rule)
        self.rule = rule
        self.status = status


# ----- the time source ------------------------------------------------------------------------

_source: Callable[[], datetime] = lambda: datetime.now(UTC)
_instant: ContextVar[datetime | None] = ContextVar("gambit_write_instant", default=None)


def set_time_source(source: Callable[[], datetime] | None) -> None:
    """Use `source()` as the current time everywhere (tests); None restores the system clock."""
    global _source
    _source = source if source is not None else (lambda: datetime.now(UTC))


def now() -> datetime:
    """The instant of the write in progress, else the current time of the time source (UTC)."""
    instant = _instant.get()
    return instant if instant is not None else _source().astimezone(UTC)


def fresh_now() -> datetime:
    """The current time of the time source, ignoring any write in progress."""
    return _source().astimezone(UTC)


@contextmanager
def at_instant(instant: datetime) -> Iterator[None]:
    """Run a write at one instant: every record it makes is timestamped `instant`."""
    token = _instant.set(instant)
    try:
        yield
    finally:
        _instant.reset(token)


def micros(moment: datetime) -> int:
    """Whole microseconds since the Unix epoch (exact integer arithmetic)."""
    return (moment - _EPOCH) // timedelta(microseconds=1)


def moment(us: int) -> datetime:
    """The UTC datetime of a microsecond count."""
    return _EPOCH + timedelta(microseconds=us)


def iso(us: int) -> str:
    """A microsecond count as the records write instants (`2026-11-22T10:00:00.123456+00:00`)."""
    return moment(us).isoformat()


def parse_instant(text: str) -> int:
    """A record's timestamp (ISO 8601 with offset) in microseconds; ValueError when it is not one."""
    parsed = datetime.fromisoformat(text)
    if parsed.tzinfo is None:
        raise ValueError(f"{text!r} has no UTC offset")
    return micros(parsed)


# ----- the clock state ------------------------------------------------------------------------


def initial_clock(control: TimeControl, seats: list[str]) -> dict | None:
    """The clock of a new match: every seat's full allotment, nobody running; None when untimed."""
    if not control.timed:
        return None
    return {
        "control": control.to_dict(),
        "paused": False,
        "waiting": [],
        "seats": {
            seat: {
                "remaining": _allotment(control.to_dict()),
                "since": None,
                "out": False,
                "ran_out": None,
                "expired_at": None,
            }
            for seat in seats
        },
    }


def _allotment(control: dict) -> int:
    """A seat's time at the start: the Fischer bank, or one decision."""
    if control["kind"] == FISCHER:
        return control["initial_s"] * SECOND
    return control["per_decision_s"] * SECOND


def _stop(seat: dict, at: int) -> None:
    """Charge a running seat the time since it started (never below zero) and stop it."""
    if seat["since"] is not None:
        seat["remaining"] = max(0, seat["remaining"] - max(0, at - seat["since"]))
        seat["since"] = None


def advance(clock: dict, kind: str, public: dict, at: int, waiting: list[str], ruleset_record: bool) -> None:
    """Fold one record into the clock: its kind and public part, its instant, the seats waited for after it.

    `ruleset_record` says the record is a ruleset event (not one of the match's own kinds): under a
    per-decision control, every seat waited for after it starts a fresh decision.
    """
    control, seats = clock["control"], clock["seats"]
    if kind == CLOCK_PAUSED and not clock["paused"]:
        for seat in seats.values():
            _stop(seat, at)
        clock["paused"] = True
    elif kind == CLOCK_RESUMED and clock["paused"]:
        clock["paused"] = False
    elif kind == TIME_ADDED and public.get("seat") in seats and _is_seconds(public.get("seconds")):
        seats[public["seat"]]["remaining"] += public["seconds"] * SECOND
    elif kind == CLOCK_EXPIRED and public.get("seat") in seats:
        # The seat is out until the match waits for it anew: stopped, at zero, and earning no increment.
        expired = seats[public["seat"]]
        deadline = None if expired["since"] is None else expired["since"] + expired["remaining"]
        expired.update(remaining=0, since=None, out=True, ran_out=deadline, expired_at=at)
    before = set(clock["waiting"])
    after = [seat for seat in waiting if seat in seats]
    for name, seat in seats.items():
        if name in before and name not in after:
            _stop(seat, at)
            if control["kind"] == FISCHER and not seat["out"]:
                seat["remaining"] += control["increment_s"] * SECOND
            elif control["kind"] == PER_DECISION:
                seat["remaining"] = control["per_decision_s"] * SECOND
        elif name in after:
            if control["kind"] == PER_DECISION and ruleset_record:
                _stop(seat, at)
                seat["remaining"] = control["per_decision_s"] * SECOND
            # The expiry record itself starts nobody: its consequence decides whether the seat waits on.
            if seat["since"] is None and not clock["paused"] and kind != CLOCK_EXPIRED:
                seat.update(since=at, out=False)
    clock["waiting"] = after


def _is_seconds(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value <= MAX_ADDED_SECONDS


def deadlines(clock: dict | None) -> dict[str, int]:
    """Running seat → the instant (µs) after which its time has run out."""
    if clock is None:
        return {}
    return {
        name: seat["since"] + seat["remaining"] for name, seat in clock["seats"].items() if seat["since"] is not None
    }


def earliest_deadline(clock: dict | None) -> int | None:
    """The first running deadline (µs), or None when no clock runs."""
    found = deadlines(clock)
    return min(found.values()) if found else None


def overdue(clock: dict | None, at: int, seat_order: list[str]) -> list[tuple[int, str]]:
    """(deadline, seat) of every seat whose time has run out at `at`, earliest first (ties in seat order)."""
    late = [(deadline, seat) for seat, deadline in deadlines(clock).items() if at > deadline]
    return sorted(late, key=lambda item: (item[0], seat_order.index(item[1]) if item[1] in seat_order else 0))


def ran_out(clock: dict | None, seat: str, latest: int) -> int | None:
    """The deadline (µs) at which this seat's time ran out, while its commands are refused for it; None otherwise.

    That is while the seat is out (the match has not waited for it since), or while its expiry is
    the match's latest write (`latest`: the instant of the newest record), so a command sent before
    the expiry was recorded is never taken as the seat's next decision.
    """
    if clock is None or seat not in clock["seats"]:
        return None
    state = clock["seats"][seat]
    return state.get("ran_out") if state.get("out") or state.get("expired_at") == latest else None


def remaining_at(clock: dict, seat: str, at: int) -> int:
    """A seat's time left (µs) at an instant, never below zero."""
    state = clock["seats"][seat]
    spent = max(0, at - state["since"]) if state["since"] is not None else 0
    return max(0, state["remaining"] - spent)


def clock_view(clock: dict | None, as_of: int) -> dict | None:
    """The public clock as of an instant (the version's last record): time left, deadlines, paused or running."""
    if clock is None:
        return None
    running = deadlines(clock)
    first = min(running.values()) if running else None
    return {
        "time_control": dict(clock["control"]),
        "paused": clock["paused"],
        "as_of": iso(as_of),
        "deadline": None if first is None else iso(first),
        "seats": {
            seat: {
                "remaining_ms": remaining_at(clock, seat, as_of) // 1000,
                "running": seat in running,
                "deadline": iso(running[seat]) if seat in running else None,
            }
            for seat in clock["seats"]
        },
    }
