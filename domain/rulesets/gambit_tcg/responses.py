"""Answering a trap window: pass, or keep it after a trap; once it closes the game goes on where it stopped.

A window interrupts a phase's start, an attack or a spell; when its last responder has passed
(or no trap could do anything any more), `continue_after` picks up the interrupted business.
"""

from __future__ import annotations

from .cards import PHASES
from .combat import after_attack_window
from .phases import may_respond, window_live
from .play import resolve_pending_spell
from .scratch import TcgDecision
from .shapes import window_of
from .turns import phase_body


def after_response(decision: TcgDecision, seat: str) -> None:
    """After a trap resolved: the seat keeps the window while it still could respond, else passes."""
    state = decision.state
    name = window_of(state)["name"]
    if window_live(state, name) and may_respond(state, seat, name):
        return
    pass_window(decision, seat, automatic=True)


def pass_window(decision: TcgDecision, seat: str, automatic: bool = False) -> None:
    """A responder passes; when none is left, the window closes and the game goes on."""
    name = window_of(decision.state)["name"]
    decision.emit("WindowPassed", {"seat": seat, "window": name, "automatic": automatic})
    window = window_of(decision.state)
    if window["responders"] and window_live(decision.state, name):
        return
    decision.emit("WindowClosed", {"window": name})
    continue_after(decision, name)


def continue_after(decision: TcgDecision, name: str) -> None:
    """Pick up the game where a window interrupted it."""
    if name in PHASES:
        phase_body(decision, name)
    elif name == "attack_declared":
        after_attack_window(decision)
    elif name == "spell_activated":
        resolve_pending_spell(decision)
    # unit_played: the main phase simply goes on.
