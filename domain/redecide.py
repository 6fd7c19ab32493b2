"""The `commands` check of an export: every recorded command re-decided by the rules of its game.

Replaying from the start, each `CommandReceived` is decided again by the ruleset's `decide`, on
the replayed state before it, with a chance source that hands back the draws its write recorded
and refuses any purpose, kind or size the rules would not draw (domain/chance.py RecordedChance).
The events the write recorded after the command must be exactly the events `decide` gives.

Every ruleset event must have a cause the record shows: a command (the records after its
`CommandReceived`), the setup (the records after the join that filled the last seat), or a seat's
time running out (the records after a `ClockExpired`, which the clock check re-derives). An export
that records no command at all is one written before commands were recorded: it is re-decided
nowhere, and the check says so (skip, never pass).
"""

from __future__ import annotations

from typing import Any

from domain.chance import ChanceMismatch, RecordedChance
from domain.clock import CLOCK_EXPIRED, CLOCK_KINDS
from domain.command_records import BODY, recorded_body
from domain.records import COMMAND_RECEIVED, EVIDENCE_FIELDS, SEAT_JOINED, json_copy
from domain.records import MATCH_KINDS as RECORD_KINDS
from domain.ruleset import Event, RuleViolation, UnreadableCommand, command_of_body

CHECK = "commands"
MATCH_KINDS = RECORD_KINDS | CLOCK_KINDS
_CARRIED = frozenset(copies for _, copies in EVIDENCE_FIELDS)
_COMMAND, _SETUP, _TIME_OUT = "command", "setup", "time out"


class Contradiction(Exception):
    """A recorded command the rules do not decide as recorded; the message names the version and the reason."""


class CommandReplay:
    """Re-decides the commands of one export as the replay reaches them (check_replay drives it)."""

    def __init__(self, ruleset: Any, header: dict, records: list[dict]) -> None:
        """The re-decider of `records`, an export of `header`'s match played by `ruleset`."""
        self.ruleset = ruleset
        self.records = records
        self.seats = list(header["seats"])
        self.recorded = any(r["kind"] == COMMAND_RECEIVED for r in records)
        self.redecided = 0
        self._joined: set[str] = set()
        self._cause: str | None = None
        self._expected: list[Event] = []
        self._command_version = 0

    def reach(self, index: int, state: Any) -> None:
        """Check the record at `index` against its cause, with `state` the replayed state before it."""
        record = self.records[index]
        kind, version = record["kind"], record["version"]
        if kind not in MATCH_KINDS:
            self._check_event(record)
            return
        self._close()
        if kind == COMMAND_RECEIVED:
            self._expected = self._decide(index, state)
            self._cause, self._command_version = _COMMAND, version
            self.redecided += 1
        elif kind == SEAT_JOINED:
            self._joined.add(record["public"].get("seat"))
            self._cause = _SETUP if self._joined >= set(self.seats) else None
        elif kind == CLOCK_EXPIRED:
            self._cause = _TIME_OUT
        else:
            self._cause = None

    def finish(self) -> None:
        """The end of the export: the last command's decision must be recorded whole."""
        self._close()

    def _close(self) -> None:
        if self._cause == _COMMAND and self._expected:
            raise Contradiction(
                f"version {self._command_version}: the rules decide this command with more events than its write "
                f"recorded ({self._expected[0].kind} is missing)"
            )
        self._expected = []

    def _check_event(self, record: dict) -> None:
        version, kind = record["version"], record["kind"]
        if self._cause is None:
            if self.recorded:
                raise Contradiction(f"version {version}: a {kind} that no recorded command, setup or expiry caused")
            return
        if self._cause != _COMMAND:
            return  # the setup's and a time-out's events: bound by the chance, dealt-secrets and clock checks
        if not self._expected:
            raise Contradiction(
                f"version {version}: a {kind} that the command at version {self._command_version} does not decide"
            )
        expected = self._expected.pop(0)
        if not _same(record, expected):
            raise Contradiction(
                f"version {version}: {kind} is not what the rules decide for the command at version "
                f"{self._command_version} ({expected.kind} with other parts)"
            )

    def _decide(self, index: int, state: Any) -> list[Event]:
        """The events the rules give for the command recorded at `index`, decided on `state`."""
        record = self.records[index]
        version, public = record["version"], record["public"]
        command_type, seat = public.get("type"), public.get("seat")
        secret_type = command_type in self.ruleset.SECRET_COMMANDS
        if (BODY in public) == secret_type:
            where = "public" if secret_type else "secret"
            raise Contradiction(
                f"version {version}: the body of a {command_type} command is {where}, not as the rules keep it"
            )
        try:
            command = command_of_body(self.ruleset, recorded_body(record))
        except UnreadableCommand as exc:
            raise Contradiction(f"version {version}: {exc}") from None
        chance = RecordedChance(self._draws(index), scope=f"v{version + 1}", version=version + 1)
        try:
            return list(self.ruleset.decide(state, seat, command, chance))
        except RuleViolation as exc:
            raise Contradiction(
                f"version {version}: the rules refuse {seat}'s {command_type} at this point ({exc.rule}: {exc.detail})"
            ) from None
        except ChanceMismatch as exc:
            raise Contradiction(f"version {version}: chance purpose: {exc}") from None

    def _draws(self, index: int) -> dict[str, tuple[str, int, Any]]:
        """The draws recorded by the write of the command at `index`: full purpose → kind, size and result."""
        draws: dict[str, tuple[str, int, Any]] = {}
        for record in self.records[index + 1 :]:
            if record["kind"] in MATCH_KINDS:
                break
            chance = record["public"].get("chance")
            if not isinstance(chance, dict) or not isinstance(chance.get("purpose"), str):
                continue
            result = record["public"].get("chance_result", (record.get("secret") or {}).get("chance_result"))
            draw, size = chance.get("draw"), chance.get("n")
            if isinstance(draw, str) and isinstance(size, int):  # a malformed descriptor matches no draw of the rules
                draws[chance["purpose"]] = (draw, size, json_copy(result))
        return draws


def _same(record: dict, expected: Event) -> bool:
    """Whether a record is exactly an event the rules decided: kind, public part (with what it opens) and secret."""
    public = dict(expected.public)
    for versions, (name, _) in zip((expected.opens, expected.evidence), EVIDENCE_FIELDS, strict=True):
        if versions:
            public[name] = list(versions)
    secret = {k: v for k, v in (record.get("secret") or {}).items() if k not in _CARRIED} or None
    return (
        record["kind"] == expected.kind
        and record["public"] == json_copy(public)
        and secret == (json_copy(expected.secret) or None)
    )
