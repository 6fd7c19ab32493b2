"""Gambitz records no rulings: nothing in it is a bluff call for the verifier to re-adjudicate."""

from __future__ import annotations

from domain.ruleset import Event

from .shapes import GambitzState


def readjudicate(state: GambitzState, event: Event) -> dict:
    """Gambitz has no bluff calls, so no record of it is a ruling to re-adjudicate."""
    raise ValueError(f"a {event.kind} is not a ruling: gambitz records no rulings")
