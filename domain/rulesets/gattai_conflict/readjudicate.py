"""`readjudicate`: the verifier's second look at a recorded reveal of a sealed play (Threshold or Initiative)."""

from __future__ import annotations

from domain.ruleset import Event

from .event_parts import initiative_call, threshold_call
from .shapes import GattaiState


def readjudicate(state: GattaiState, event: Event) -> dict:
    """The bluff call the rules give for a recorded reveal of a sealed play, from the hidden state in `state`."""
    if event.kind == "ThresholdRevealed":
        return threshold_call(state, event.version)
    if event.kind == "InitiativeRevealed":
        return initiative_call(state, event.public["seat"], event.public["bluff_call"]["caller"], event.version)
    raise ValueError(f"a {event.kind} is not a ruling of this ruleset")
