"""Re-judging a recorded gambit-board ruling from the replayed hidden powers (the verifier's and the audit's)."""

from __future__ import annotations

from domain.ruleset import Event

from .commitments import evidence_version
from .powers import POWER_TYPES


def readjudicate(state: dict, event: Event) -> dict:
    """The verdict the rules give for a recorded ruling, from the hidden powers in `state`.

    An offline verifier replays every assignment, so `state` holds the truth at the claim (no
    power changes between a claim and its call); it compares this with the recorded ruling.
    """
    call = event.public["bluff_call"]
    kind = POWER_TYPES[call["power"]]
    true = state["powers"][call["piece"]][kind] == call["power"]
    return {"verdict": "true" if true else "false",
            "evidence_version": evidence_version(state, call["claimant"], call["piece"], kind)}
