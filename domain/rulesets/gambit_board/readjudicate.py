"""Re-judging a recorded gambit-board ruling from the replayed hidden powers (the verifier's and the audit's)."""

from __future__ import annotations

from domain.ruleset import Event

from .bluffs import claim_is_true, claimed_powers
from .commitments import evidence_version
from .powers import POWER_TYPES
from .shapes import BoardState


def readjudicate(state: BoardState, event: Event) -> dict:
    """The verdict the rules give for a recorded ruling, from the hidden powers in `state`.

    An offline verifier replays every assignment, so `state` holds the truth at the claim (no
    power changes between a claim and its call); it compares this with the recorded ruling. A
    Sensei claim is true when its source held every power the claim named (the state's record
    of the claim, not the ruling's restatement of it).
    """
    call = event.public["bluff_call"]
    first = claimed_powers(state, call["power"])[0]
    return {
        "verdict": "true" if claim_is_true(state, call["piece"], call["power"]) else "false",
        "evidence_version": evidence_version(state, call["claimant"], call["piece"], POWER_TYPES[first]),
    }
