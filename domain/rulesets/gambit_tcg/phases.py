"""What the turn's flow reads off the board: which units may attack, and who a trap window asks.

These are public facts only (the card pool is public, set cards' declared windows are never
consulted), so who is asked gives nothing away. turns.py opens windows with them, events.py
binds a recorded window's responders to them, legal.py and view.py show them.
"""

from __future__ import annotations

from .cards import CARDS, TRAP_IDS, energy_value
from .effects import combine, keywords
from .state import opponent


def attack_candidates(state: dict, seat: str) -> list[str]:
    """Units of `seat` that may attack now: no Summoning Weakness, or Rush."""
    return [u["card"] for u in state["players"][seat]["units"]
            if u["entered_turn"] < state["turn"] or "rush" in keywords(state, u)]


def available_payment(state: dict, seat: str) -> int:
    """Energy still ready plus cards in hand: the most `seat` could pay now."""
    player = state["players"][seat]
    return sum(energy_value(state["cards"][e["card"]]) for e in player["energy"] if e["ready"]) + len(player["hand"])


def may_respond(state: dict, seat: str) -> bool:
    """Whether `seat` gets a say in a trap window — decided on public facts only.

    It must hold a set card past its one-turn wait that could be a trap (face down, or a revealed
    trap) and be able to pay the cheapest trap of the pool. The declared windows are never
    consulted, so who is asked gives nothing away.
    """
    player = state["players"][seat]
    cheapest = min((CARDS[t]["cost"] for t in TRAP_IDS), default=0)
    if available_payment(state, seat) < cheapest:
        return False
    return any(e["ready_turn"] <= state["turn"]
               and (not e["revealed"] or CARDS[state["cards"][e["card"]]]["type"] == "trap")
               for e in player["set"])


def window_live(state: dict) -> bool:
    """Whether any trap of the pool would have a legal target now (public: the pool is public)."""
    return any(combine(state, seat, None, CARDS[t]["effects"]) for t in TRAP_IDS for seat in state["seats"])


def window_responders(state: dict) -> list[str]:
    """The seats a trap window opened now asks, in order: the seat not on turn first."""
    order = [opponent(state["active"]), state["active"]]
    return [s for s in order if may_respond(state, s)]
