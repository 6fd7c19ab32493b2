"""The `commands` check of an export: every recorded command re-decided by the rules of its game.

Replaying from the start, each `CommandReceived` is decided again by the ruleset's `decide`, on
the replayed state before it, with a chance source that hands back the draws its write recorded
and refuses any purpose, kind or size the rules would not draw (domain/chance.py RecordedChance).
The events the write recorded after the command must be exactly the events `decide` gives.

Every ruleset event must have a cause the record shows: a command (the records after its
`CommandReceived`), the setup (the records after the join that filled the last seat), or a seat's
time running out (the records after a `ClockExpired`, which the clock check re-derives). In a match
that records the causes of its writes (`MatchCreated.public.records_causes`), each join records the
join options its seat gave, and the setup is re-decided like a command: the ruleset's `setup` with
those options and the setup write's recorded chance must give exactly the setup's records, and the
check never skips: with its command records removed, the moves' events would follow the setup's
(or nothing), which no recorded cause decides. An export of an older match (no `records_causes`)
that records no command at all is one written before commands were recorded: it is re-decided
nowhere, and the check says so (skip, never pass).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from domain.chance import ChanceMismatch, RecordedChance
from domain.clock import CLOCK_EXPIRED, CLOCK_KINDS
from domain.command_records import BODY, recorded_body, recorded_options
from domain.command_reveals import body_is_secret, follow, no_sealed_commands, opened_commands
from domain.records import COMMAND_RECEIVED, EVIDENCE_FIELDS, MATCH_CREATED, RECORDS_CAUSES, SEAT_JOINED, json_copy
from domain.records import MATCH_KINDS as RECORD_KINDS
from domain.ruleset import ConfigError, Event, RuleViolation, UnreadableCommand, command_of_body

CHECK = "commands"
MATCH_KINDS = RECORD_KINDS | CLOCK_KINDS
_CARRIED = frozenset(copies for _, copies in EVIDENCE_FIELDS)
_COMMAND, _SETUP, _TIME_OUT = "command", "setup", "time out"


class Contradiction(Exception):
    """A recorded command the rules do not decide as recorded; the message names the version and the reason."""


class CommandReplay:
    """Re-decides the commands of one export as the replay reaches them (check_replay drives it)."""

    def __init__(self, ruleset: Any, header: dict, records: list[dict], config: Any) -> None:
        """The re-decider of `records`, an export of `header`'s match played by `ruleset` with `config`."""
        self.ruleset = ruleset
        self.records = records
        self.config = config
        self.seats = list(header["seats"])
        self.recorded = any(r["kind"] == COMMAND_RECEIVED for r in records)
        self.records_causes = bool(records) and _records_causes(records[0])
        self.redecided = 0
        self.setup_redecided = False
        self._sealed = no_sealed_commands()  # the secret command bodies waiting to open (domain/command_reveals.py)
        self._joined: dict[str, dict] = {}  # seat → the join options it gave, as recorded
        self._cause: str | None = None
        self._expected: list[Event] = []
        self._decided_by = ""  # what the expected events are the rules' decision of, for the messages

    def reach(self, index: int, state: Any) -> None:
        """Check the record at `index` against its cause, with `state` the replayed state before it."""
        record = self.records[index]
        kind, version = record["kind"], record["version"]
        if kind not in MATCH_KINDS:
            self._check_event(record)
            self._follow_sealed(record)
            return
        self._close()
        self._follow_sealed(record)
        if kind == SEAT_JOINED:
            self._joined[record["public"].get("seat")] = recorded_options(record)
        self._cause = _cause_after(record, set(self._joined), self.seats)
        if self._cause == _COMMAND:
            self._expected = self._decide(index, state)
            self._decided_by = f"the command at version {version}"
            self.redecided += 1
        elif self._cause == _SETUP and self.records_causes:
            self._expected = self._set_up(index)
            self._decided_by = f"the setup after version {version}"
            self.setup_redecided = True

    def finish(self) -> None:
        """The end of the export: the last command's decision must be recorded whole."""
        self._close()

    def _close(self) -> None:
        if self._expected:
            raise Contradiction(
                f"{self._decided_by}: the rules decide it with more events than its write recorded "
                f"({self._expected[0].kind} is missing)"
            )

    def _check_event(self, record: dict) -> None:
        version, kind = record["version"], record["kind"]
        if self._cause is None:
            if self.recorded or self.records_causes:
                raise Contradiction(_uncaused(record))
            return
        if self._cause == _TIME_OUT or (self._cause == _SETUP and not self.records_causes):
            return  # a time-out's events, and an older match's setup: bound by the clock, chance and dealt-secrets checks
        if not self._expected:
            raise Contradiction(f"version {version}: a {kind} that {self._decided_by} does not decide")
        expected = self._expected.pop(0)
        if self._cause == _COMMAND and self.records_causes and expected.opens:
            # A command's record that opens the last sealed secret of an earlier command's write opens that command.
            expected = replace(expected, opens=(*expected.opens, *opened_commands(self._sealed, expected.opens)))
        if not _same(record, expected):
            raise Contradiction(
                f"version {version}: {kind} is not what the rules decide for {self._decided_by} "
                f"({expected.kind} with other parts)"
            )

    def _decide(self, index: int, state: Any) -> list[Event]:
        """The events the rules give for the command recorded at `index`, decided on `state`."""
        record = self.records[index]
        version, public = record["version"], record["public"]
        command_type, seat = public.get("type"), public.get("seat")
        try:
            command = command_of_body(self.ruleset, recorded_body(record))
        except UnreadableCommand as exc:
            raise Contradiction(f"version {version}: {exc}") from None
        chance = RecordedChance(self._draws(index), scope=f"v{version + 1}", version=version + 1)
        try:
            events = list(self.ruleset.decide(state, seat, command, chance))
        except RuleViolation as exc:
            raise Contradiction(
                f"version {version}: the rules refuse {seat}'s {command_type} at this point ({exc.rule}: {exc.detail})"
            ) from None
        except ChanceMismatch as exc:
            raise Contradiction(f"version {version}: chance purpose: {exc}") from None
        secret = body_is_secret(self.ruleset.SECRET_COMMANDS, command_type, events, self.records_causes)
        if (BODY in public) == secret:
            where = "public" if secret else "secret"
            raise Contradiction(
                f"version {version}: the body of a {command_type} command is {where}, not as the rules keep it"
            )
        return events

    def _follow_sealed(self, record: dict) -> None:
        """Take in a record's part in opening secret command bodies (a match recording causes only)."""
        if self.records_causes:
            kind, commitment = record["kind"], record.get("commitment")
            opens = record["public"].get("opens")
            secret_command = kind == COMMAND_RECEIVED and commitment is not None
            follow(
                self._sealed,
                record["version"],
                kind in MATCH_KINDS,
                secret_command,
                commitment is not None,
                opens if isinstance(opens, list) else [],
            )

    def _set_up(self, index: int) -> list[Event]:
        """The events the rules give for the setup after the join at `index`, from the join options each seat gave."""
        version = self.records[index]["version"]
        options: dict[str, dict] = {}
        for seat in self.seats:
            try:
                options[seat] = self.ruleset.join_options(self.config, seat, self._joined[seat])
            except ConfigError as exc:
                raise Contradiction(
                    f"the setup after version {version}: the rules refuse {seat}'s join options ({exc})"
                ) from None
        chance = RecordedChance(self._draws(index), scope=f"v{version + 1}", version=version + 1)
        try:
            return list(self.ruleset.setup(self.config, list(self.seats), chance, options))
        except ChanceMismatch as exc:
            raise Contradiction(f"the setup after version {version}: chance purpose: {exc}") from None

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


def _cause_after(record: dict, joined: set[str], seats: list[str]) -> str | None:
    """What causes the ruleset events right after a record the match writes itself (`joined`: the seats joined so
    far, this record's included): a command, the setup, a time-out, or nothing."""
    kind = record["kind"]
    if kind == COMMAND_RECEIVED:
        return _COMMAND
    if kind == SEAT_JOINED:
        return _SETUP if joined >= set(seats) else None
    return _TIME_OUT if kind == CLOCK_EXPIRED else None


def _uncaused(record: dict) -> str:
    return f"version {record['version']}: a {record['kind']} that no recorded command, setup or expiry caused"


def _records_causes(first: dict) -> bool:
    """Whether an export's first record declares that the match records the cause of every write."""
    return first["kind"] == MATCH_CREATED and first["public"].get(RECORDS_CAUSES) is True


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
