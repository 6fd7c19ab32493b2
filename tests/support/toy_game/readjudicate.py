"""Toy Swap records no rulings: there is nothing to re-adjudicate."""

from __future__ import annotations

from domain.ruleset import Event

from .shapes import ToyState


def readjudicate(state: ToyState, event: Event) -> dict:
    """No record of Toy Swap carries a `bluff_call`; the verifier never asks."""
    return {}
