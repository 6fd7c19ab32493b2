"""`gambit verify`'s clock check: every seat's clock recomputed from the records (docs/clocks.md).

With the same function the match folds (domain/clock.py), the check replays the export and fails it
when a record other than an expiry was accepted after a running deadline, when a `ClockExpired`
came at or before its seat's deadline (or names another deadline), when what follows an expiry is
not the consequence the ruleset gives (`time_out`), or when a pause, resume or added time is not an
organizer's record (a match without a tournament has no organizer). Who is waited for after each
record comes from the replayed ruleset state, so the timing part needs every secret, as the replay
does: an organizer's export, or any export of a finished match.
"""

from __future__ import annotations

from typing import Any

from domain import rulesets
from domain.chance import Chance
from domain.clock import (
    ADJUSTMENTS,
    CLOCK_EXPIRED,
    CLOCK_KINDS,
    CLOCK_PAUSED,
    MAX_ADDED_SECONDS,
    ORGANIZER,
    TIME_ADDED,
    advance,
    deadlines,
    initial_clock,
    iso,
    parse_instant,
)
from domain.match_options import options_of, ruleset_part
from domain.record_bounds import MAX_NOTE, is_text, is_whole
from domain.records import DISPUTE_FILED, MATCH_FINISHED, SEAT_JOINED, json_copy
from domain.records import MATCH_KINDS as _RECORD_KINDS
from domain.ruleset import Event, config_from_dict

CHECK = "clock"
# The match's own kinds, the clock's included: the ruleset never sees them.
MATCH_KINDS = _RECORD_KINDS | CLOCK_KINDS
# Copies of earlier secrets a record carries besides its own: not part of what the ruleset decided.
_CARRIED = ("opened", "sealed_evidence")


class ClockFailure(Exception):
    """A finding of the clock check; the message names the version."""


def check_clocks(report: Any, header: dict, records: list[dict]) -> None:
    """Add the `clock` check to a verification report (nothing for an untimed match without clock records)."""
    control = options_of(header["config"]).time_control
    clock_records = [r for r in records if r["kind"] in CLOCK_KINDS]
    if not control.timed and not clock_records:
        return
    try:
        if not control.timed:
            first = clock_records[0]
            raise ClockFailure(f"version {first['version']}: a {first['kind']} in a match without a clock")
        adjustments = _check_adjustments(records, list(header["seats"]))
        if any(r.get("commitment") is not None and "secret" not in r for r in records):
            report.add(
                CHECK,
                None,
                f"{adjustments} adjustments are the organizer's; the deadlines need who was waited for, "
                "which needs every secret (an organizer's export, or one taken after the end)",
            )
            return
        expiries = _replay_clock(header, records, control)
    except ClockFailure as failure:
        report.add(CHECK, False, str(failure))
        return
    report.add(
        CHECK,
        True,
        f"{control.kind} clock recomputed: no record after a running deadline, {expiries} expiries after "
        f"their deadlines with the ruleset's consequence, {adjustments} adjustments by the organizer",
    )


def _check_adjustments(records: list[dict], seats: list[str]) -> int:
    """Every pause, resume and added time is an organizer's record the service could have written: a pause
    while running, a resume while paused, none after the end, whole seconds within the bound; returns how many."""
    tournament = records[0]["public"].get("tournament_id") if records else None
    count = 0
    paused = finished = False
    disputes: set[object] = set()
    for record in records:
        kind, version, public = record["kind"], record["version"], record["public"]
        if kind == MATCH_FINISHED:
            finished = True
        elif kind == DISPUTE_FILED:
            disputes.add(public.get("dispute"))
        if kind not in ADJUSTMENTS:
            continue
        if tournament is None:
            raise ClockFailure(
                f"version {version}: a {kind} in a match without a tournament, which has no "
                "organizer to adjust its clock"
            )
        if public.get("by") != ORGANIZER:
            raise ClockFailure(f"version {version}: a {kind} that is not an organizer's record")
        if finished:
            raise ClockFailure(f"version {version}: a {kind} after the match finished, when its clocks had stopped")
        if not is_text(public.get("note"), 0, MAX_NOTE):
            raise ClockFailure(f"version {version}: the {kind}'s note is not a text of at most {MAX_NOTE} characters")
        if kind == TIME_ADDED:
            _check_time_added(version, public, seats)
        elif kind == CLOCK_PAUSED:
            if paused:
                raise ClockFailure(f"version {version}: a ClockPaused while the clocks were paused already")
            if "dispute" in public and not (is_whole(public["dispute"]) and public["dispute"] in disputes):
                raise ClockFailure(f"version {version}: the pause names dispute {public['dispute']!r}, not one filed")
            paused = True
        else:
            if not paused:
                raise ClockFailure(f"version {version}: a ClockResumed while the clocks were not paused")
            paused = False
        count += 1
    return count


def _check_time_added(version: int, public: dict, seats: list[str]) -> None:
    """A TimeAdded gives a seat of the match whole seconds, from 1 to the bound the service keeps."""
    seconds = public.get("seconds")
    if not (is_whole(seconds) and 0 < seconds <= MAX_ADDED_SECONDS):
        raise ClockFailure(
            f"version {version}: a TimeAdded of {str(seconds)[:40]} seconds; the service adds whole seconds "
            f"from 1 to {MAX_ADDED_SECONDS} at once"
        )
    if public.get("seat") not in seats:
        raise ClockFailure(
            f"version {version}: a TimeAdded for {str(public.get('seat'))[:40]!r}, not a seat of the match"
        )


def _replay_clock(header: dict, records: list[dict], control: Any) -> int:
    """Fold every record into the ruleset state and the clock, checking each against the deadlines before it."""
    try:
        ruleset = rulesets.get(header["ruleset"])
        config = config_from_dict(ruleset.Config, ruleset_part(header["config"]))
    except (KeyError, TypeError, ValueError) as exc:  # the replay check reports the same cause
        raise ClockFailure(f"the ruleset cannot be loaded to recompute the clock: {exc}") from None
    seats = list(header["seats"])
    state = ruleset.initial_state(config, seats)
    clock = initial_clock(control, seats)
    seed = bytes.fromhex((records[0].get("secret") or {}).get("server_seed", ""))
    joined: dict[str, str] = {}
    status = "open"
    consequence: list[Event] = []
    expiries = 0
    for record in records:
        version, kind, public = record["version"], record["kind"], record["public"]
        try:
            at = parse_instant(record["timestamp"])
        except (TypeError, ValueError):
            raise ClockFailure(f"version {version}: the timestamp is not an ISO 8601 instant") from None
        running = deadlines(clock) if status == "active" else {}
        if consequence:
            _check_consequence(record, consequence.pop(0))
        elif kind == CLOCK_EXPIRED:
            _check_expiry(record, running, at)
            expiries += 1
        else:
            late = sorted((deadline, seat) for seat, deadline in running.items() if at > deadline)
            if late:
                deadline, seat = late[0]
                raise ClockFailure(
                    f"version {version} ({kind}) was recorded at {record['timestamp']}, after {seat}'s deadline "
                    f"{iso(deadline)}: a record was accepted after a running deadline"
                )
        if kind == SEAT_JOINED:
            joined[public.get("seat")] = public.get("client_seed", "")
            status = "active" if all(seat in joined for seat in seats) else status
        elif kind == MATCH_FINISHED:
            status = "finished"
        elif kind not in MATCH_KINDS:
            state = ruleset.evolve(state, _event_of(record))
        waiting = list(ruleset.to_act(state)) if status == "active" else []
        if clock is not None:
            advance(clock, kind, public, at, waiting, kind not in MATCH_KINDS)
        if kind == CLOCK_EXPIRED:
            chance = Chance(
                seed,
                header["match_id"],
                [joined.get(s, "") for s in seats],
                scope=f"v{version + 1}",
                version=version + 1,
            )
            consequence = list(ruleset.time_out(state, public["seat"], chance))
    if consequence:
        raise ClockFailure("the export ends before the consequence of its last ClockExpired")
    return expiries


def _check_expiry(record: dict, running: dict[str, int], at: int) -> None:
    """A ClockExpired names a running seat, its deadline exactly, and comes after it."""
    version, seat = record["version"], record["public"].get("seat")
    deadline = running.get(seat) if isinstance(seat, str) else None
    if deadline is None:
        raise ClockFailure(f"version {version}: a ClockExpired for {seat!r}, whose clock was not running")
    if record["public"].get("deadline") != iso(deadline):
        raise ClockFailure(
            f"version {version}: the ClockExpired names the deadline {record['public'].get('deadline')!r}, "
            f"but {seat}'s clock gives {iso(deadline)}"
        )
    if at <= deadline:
        raise ClockFailure(
            f"version {version}: the ClockExpired came at {record['timestamp']}, "
            f"before {seat}'s deadline {iso(deadline)}"
        )


def _check_consequence(record: dict, expected: Event) -> None:
    """A record after an expiry is the next event of the ruleset's `time_out`, public and secret alike."""
    public = dict(expected.public)
    for versions, key in ((expected.opens, "opens"), (expected.evidence, "sealed_evidence")):
        if versions:
            public[key] = list(versions)
    secret = {k: v for k, v in (record.get("secret") or {}).items() if k not in _CARRIED} or None
    if (
        record["kind"] != expected.kind
        or record["public"] != json_copy(public)
        or secret != (json_copy(expected.secret) or None)
    ):
        raise ClockFailure(
            f"version {record['version']}: {record['kind']} is not the consequence the rules give for the "
            f"ClockExpired before it ({expected.kind} was due)"
        )


def _event_of(record: dict) -> Event:
    """A ruleset record as the event the match folded (carried copies of earlier secrets left out)."""
    # Copies: a fold may keep parts of an event in its state, and the export's records stay as they were read.
    secret = record.get("secret")
    if secret is not None:
        secret = json_copy({k: v for k, v in secret.items() if k not in _CARRIED})
    audience = record.get("audience")
    return Event(
        record["kind"],
        json_copy(record["public"]),
        secret,
        None if audience is None else tuple(audience),
        (),
        record["version"],
    )


# What a cosignature's time may fall short of a record's own, and the record still count as honestly dated: the
# cosignature's time is whole seconds (cut, not rounded), and the witness's clock is not the service's.
WITNESS_SLACK_SECONDS = 2
WITNESSED_TIMES = "witnessed times"


def check_witnessed_times(report: Any, stamps: dict[int, tuple[str, int]], bounds: list[tuple[int, int]]) -> None:
    """Add the `witnessed times` check: no record is dated later than a time by which it provably existed.

    `stamps`: version → (kind, timestamp in microseconds) of each record; `bounds`: (version, seconds) for each write
    in a checkpoint a quorum of trusted witnesses cosigned, the time by which that quorum had cosigned it. A write's
    chain head binds every record up to its version, so each record existed by the earliest bound of a write at or
    after it. A record dated later than that (beyond the slack) was dated by a clock that ran ahead of the truth: its
    own timestamp, and any deadline reasoning on it (an expiry after its deadline), is false.
    """
    if not bounds or not stamps:
        return
    ordered = sorted(bounds, reverse=True)
    earliest: tuple[int, int] | None = None  # (seconds, the write's version) of the tightest bound seen so far
    late = []
    at = 0
    for version in sorted(stamps, reverse=True):
        while at < len(ordered) and ordered[at][0] >= version:
            if earliest is None or ordered[at][1] < earliest[0]:
                earliest = (ordered[at][1], ordered[at][0])
            at += 1
        if earliest is None:
            continue
        kind, stamp = stamps[version]
        if stamp > (earliest[0] + WITNESS_SLACK_SECONDS) * 1_000_000:
            late.append((version, kind, stamp, earliest))
    if late:
        version, kind, stamp, (seconds, write) = min(late)
        report.add(
            WITNESSED_TIMES,
            False,
            f"version {version} ({kind}) is dated {iso(stamp)}, but it existed by {iso(seconds * 1_000_000)}, when a "
            f"quorum of witnesses had cosigned a checkpoint holding the write of version {write}: the service dated "
            f"{len(late)} record(s) later than they were written",
        )
        return
    newest, oldest_bound = max(bounds), min(seconds for _, seconds in bounds)
    report.add(
        WITNESSED_TIMES,
        True,
        f"no record is dated after the time a quorum of witnesses had cosigned a checkpoint holding it (version "
        f"{newest[0]} and every record before it existed by {iso(newest[1] * 1_000_000)}; the earliest bound is "
        f"{iso(oldest_bound * 1_000_000)})",
    )
