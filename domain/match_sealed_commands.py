"""The match's part in opening secret command bodies (domain/command_reveals.py): which body is secret, which
commands wait for their write's secrets, and the versions a command's write opens with the rules' own.

Only a match that records the causes of its writes (`MatchCreated.public.records_causes`) does this; an
older match keeps every body of a `SECRET_COMMANDS` type secret until it finishes, as it always did.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from domain.clock import CLOCK_KINDS
from domain.command_reveals import body_is_secret, follow, no_sealed_commands, opened_commands
from domain.records import COMMAND_RECEIVED, RECORDS_CAUSES
from domain.records import MATCH_KINDS as RECORD_KINDS
from domain.vocabulary import Event

_MATCH_KINDS = RECORD_KINDS | CLOCK_KINDS


class MatchSealedCommands:
    """Mixin of Match: the secret command bodies still waiting for their write's secrets to open."""

    ruleset: Any
    records_causes: bool
    sealed_commands: dict

    @staticmethod
    def upcast_v3_v4(state: dict) -> None:
        """A snapshot stored before matches recorded their causes: an older match, with no command waiting."""
        state.setdefault("records_causes", False)
        state.setdefault("sealed_commands", no_sealed_commands())

    def _start_sealed_commands(self, created: dict) -> None:
        """Whether the match records causes (its MatchCreated says so), and no command waiting yet."""
        self.records_causes = created.get(RECORDS_CAUSES) is True
        self.sealed_commands = no_sealed_commands()

    def _keeps_body_secret(self, command_type: str, events: list[Event]) -> bool:
        """Whether a command's body is recorded as a secret (domain/command_reveals.py body_is_secret)."""
        return body_is_secret(self.ruleset.SECRET_COMMANDS, command_type, events, self.records_causes)

    def _opening_commands(self, event: Event) -> Event:
        """A command's event as recorded: what it opens, and the commands whose last sealed secret that is."""
        if not (self.records_causes and event.opens):
            return event
        waiting = opened_commands(self.sealed_commands, event.opens)
        return dataclasses.replace(event, opens=(*event.opens, *waiting)) if waiting else event

    def _follow_sealed(self, kind: str, version: int, public: dict, commitment: str | None) -> None:
        """Fold one record into the commands waiting for their secrets (a match recording causes only)."""
        if self.records_causes:
            secret_command = kind == COMMAND_RECEIVED and commitment is not None
            opens = public.get("opens") or []
            follow(self.sealed_commands, version, kind in _MATCH_KINDS, secret_command, commitment is not None, opens)
