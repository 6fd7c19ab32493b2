"""`readjudicate`: the Final Gambit ruling the rules give, for the verifier to compare with the record."""

from __future__ import annotations

from domain.ruleset import Event

from .events import round_ended
from .shapes import DragonsState


def readjudicate(state: DragonsState, event: Event) -> dict:
    """The Final Gambit ruling the rules give for the hands in `state` (what a verifier compares)."""
    return dict(round_ended(state).bluff_call)
