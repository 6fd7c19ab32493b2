"""`readjudicate`: the Final Gambit ruling the rules give, for the verifier to compare with the record."""

from __future__ import annotations

from domain.ruleset import Event

from .events import round_end_public


def readjudicate(state: dict, event: Event) -> dict:
    """The Final Gambit ruling the rules give for the hands in `state` (what a verifier compares)."""
    return round_end_public(state)["bluff_call"]
