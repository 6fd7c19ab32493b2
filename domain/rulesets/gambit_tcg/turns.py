"""Turn flow: turns and phases begin, trap windows open, the draw and end phases run.

A phase's start is a trap window; the phase's own business (`phase_body`) runs once that
window has closed, or at once when none opens. Answering a window is responses.py.
"""

from __future__ import annotations

from .cards import MAX_HAND
from .parts import turn_limit_public, window_opened_public
from .payloads import TurnBegan, TurnEnded
from .phases import attack_candidates, window_live
from .scratch import TcgDecision
from .shapes import active_on, on_turn


def begin_turn(decision: TcgDecision, turn: int) -> None:
    """Start turn `turn` (ready the seat's energy) — or end the game at the turn limit."""
    state = decision.state
    if turn > state["config"]["turn_limit"]:
        decision.emit("TurnLimitReached", turn_limit_public(state))
    decision.add(TurnBegan(seat=active_on(turn), turn=turn).event())
    begin_phase(decision, "main1")


def begin_phase(decision: TcgDecision, phase: str) -> None:
    """Enter a phase: its start is a trap window; then the phase's own business."""
    decision.emit("PhaseBegan", {"seat": decision.state["active"], "turn": decision.state["turn"], "phase": phase})
    if not open_window(decision, phase):
        phase_body(decision, phase)


def phase_body(decision: TcgDecision, phase: str) -> None:
    """What a phase does once its start window has closed."""
    state = decision.state
    seat = on_turn(state)
    if phase == "combat" and not attack_candidates(state, seat):
        begin_phase(decision, "main2")  # nobody can attack: combat passes without a declaration
    elif phase == "draw":
        decision.draw(seat, max(0, MAX_HAND - len(state["players"][seat]["hand"])), "draw_phase")
        begin_phase(decision, "end")
    elif phase == "end":
        decision.add(TurnEnded(seat=seat, turn=state["turn"]).event())
        decision.settle()
        begin_turn(decision, state["turn"] + 1)


def end_phase(decision: TcgDecision) -> None:
    """The active seat ends Main 1 (→ Combat) or Main 2 (→ Draw, End, next turn)."""
    begin_phase(decision, "combat" if decision.state["phase"] == "main1" else "draw")


def open_window(decision: TcgDecision, name: str) -> bool:
    """Open a trap window for the seats that may respond (the one not on turn first); True if opened."""
    state = decision.state
    if not window_live(state, name):
        return False
    asked = window_opened_public(state, name)
    if not asked["responders"]:
        return False
    decision.emit("WindowOpened", {"window": name, **asked})
    return True
