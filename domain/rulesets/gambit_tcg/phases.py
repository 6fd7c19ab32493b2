"""Turn flow: the five phases, trap windows, draws, state checks and the end of the game.

`Script` is decide's scratch pad: it copies the state once, and every event it emits is folded
at once, so each rule reads the position as it stands after the previous event. Once an event
ends the game, `GameOver` unwinds to `decide`, which returns what was emitted.
"""

from __future__ import annotations

from domain.ruleset import Event

from .cards import CARDS, MAX_HAND, PHASES, TRAP_IDS, energy_value
from .effects import combine, keywords, lethal_units
from .hidden import drawn_public, drawn_secret
from .state import active_on, evolve, fast_copy, opponent


class GameOver(Exception):
    """The game ended mid-decision; no further events may follow."""


class Script:
    """A copy of the state plus the events decided so far, each already folded into it."""

    def __init__(self, state: dict) -> None:
        self.state = fast_copy(state)
        self.events: list[Event] = []

    def emit(self, kind: str, public: dict, secret: dict | None = None, audience: tuple | None = None,
             opens: tuple = ()) -> int:
        """Record an event, fold it, and return the version it will get."""
        event = Event(kind, public, secret, audience, tuple(opens))
        self.events.append(event)
        version = self.state["version"] + 1
        # evolve copies whatever it keeps from an event, so the scratch fold can share the dicts.
        evolve(self.state, Event(kind, public, secret, audience, tuple(opens), version))
        if self.state["result"] is not None:
            raise GameOver
        return version

    def draw(self, seat: str, count: int, reason: str) -> None:
        """Draw `count` cards; a seat that must draw from an empty deck loses."""
        public = drawn_public(self.state, seat, count, reason)
        if public["cards"]:
            self.emit("CardsDrawn", public, secret=drawn_secret(self.state, seat, count), audience=(seat,))
        if len(public["cards"]) < count:
            self.emit("SeatLost", {"seats": [seat], "reason": "deck_out"})

    def destroy(self, unit: str, reason: str, by: str | None) -> None:
        """Destroy a unit in play (its item goes with it)."""
        public = destroyed_public(self.state, unit)
        if public is not None:
            self.emit("UnitDestroyed", {**public, "reason": reason, "by": by})

    def settle(self) -> None:
        """State checks: units whose damage reached Endurance die; a seat at 0 life loses."""
        for _seat, unit in lethal_units(self.state):
            self.destroy(unit, "damage", None)
        losers = [s for s in self.state["seats"] if self.state["players"][s]["life"] <= 0]
        if losers:
            self.emit("SeatLost", {"seats": losers, "reason": "zero_life"})


def destroyed_public(state: dict, unit: str) -> dict | None:
    """What destroying a unit in play shows: the unit, what it is, its controller and its item; None if not in play."""
    for seat in state["seats"]:
        for entry in state["players"][seat]["units"]:
            if entry["card"] == unit:
                item = entry["item"]
                return {"unit": unit, "id": state["cards"][unit], "controller": seat, "item": item,
                        "item_id": state["cards"][item] if item else None}
    return None


# ----- turns and phases -----------------------------------------------------------------------

def turn_limit_public(state: dict) -> dict:
    """The public part of reaching the turn limit: the life totals and the one seat with the most (or none)."""
    life = {s: state["players"][s]["life"] for s in state["seats"]}
    best = max(life.values())
    winners = [s for s in state["seats"] if life[s] == best]
    return {"turn_limit": state["config"]["turn_limit"], "life": life, "winners": winners if len(winners) == 1 else []}


def begin_turn(script: Script, turn: int) -> None:
    """Start turn `turn` (ready the seat's energy) — or end the game at the turn limit."""
    state = script.state
    if turn > state["config"]["turn_limit"]:
        script.emit("TurnLimitReached", turn_limit_public(state))
    script.emit("TurnBegan", {"seat": active_on(turn), "turn": turn})
    begin_phase(script, "main1")


def begin_phase(script: Script, phase: str) -> None:
    """Enter a phase: its start is a trap window; then the phase's own business."""
    script.emit("PhaseBegan", {"seat": script.state["active"], "turn": script.state["turn"], "phase": phase})
    if not open_window(script, phase):
        phase_body(script, phase)


def phase_body(script: Script, phase: str) -> None:
    """What a phase does once its start window has closed."""
    state = script.state
    seat = state["active"]
    if phase == "combat" and not attack_candidates(state, seat):
        begin_phase(script, "main2")  # nobody can attack: combat passes without a declaration
    elif phase == "draw":
        script.draw(seat, max(0, MAX_HAND - len(state["players"][seat]["hand"])), "draw_phase")
        begin_phase(script, "end")
    elif phase == "end":
        script.emit("TurnEnded", {"seat": seat, "turn": state["turn"]})
        script.settle()
        begin_turn(script, state["turn"] + 1)


def end_phase(script: Script) -> None:
    """The active seat ends Main 1 (→ Combat) or Main 2 (→ Draw, End, next turn)."""
    begin_phase(script, "combat" if script.state["phase"] == "main1" else "draw")


def attack_candidates(state: dict, seat: str) -> list[str]:
    """Units of `seat` that may attack now: no Summoning Weakness, or Rush."""
    return [u["card"] for u in state["players"][seat]["units"]
            if u["entered_turn"] < state["turn"] or "rush" in keywords(state, u)]


# ----- trap windows ---------------------------------------------------------------------------

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


def open_window(script: Script, name: str) -> bool:
    """Open a trap window for the seats that may respond (the one not on turn first); True if opened."""
    state = script.state
    if not window_live(state):
        return False
    responders = window_responders(state)
    if not responders:
        return False
    script.emit("WindowOpened", {"window": name, "responders": responders, "turn": state["turn"],
                                 "active": state["active"]})
    return True


def after_response(script: Script, seat: str) -> None:
    """After a trap resolved: the seat keeps the window while it still could respond, else passes."""
    state = script.state
    if window_live(state) and may_respond(state, seat):
        return
    pass_window(script, seat, automatic=True)


def pass_window(script: Script, seat: str, automatic: bool = False) -> None:
    """A responder passes; when none is left, the window closes and the game goes on."""
    name = script.state["window"]["name"]
    script.emit("WindowPassed", {"seat": seat, "window": name, "automatic": automatic})
    window = script.state["window"]
    if window["responders"] and window_live(script.state):
        return
    script.emit("WindowClosed", {"window": name})
    continue_after(script, name)


def continue_after(script: Script, name: str) -> None:
    """Pick up the game where a window interrupted it."""
    from .combat import after_attack_window
    from .play import resolve_pending_spell
    if name in PHASES:
        phase_body(script, name)
    elif name == "attack_declared":
        after_attack_window(script)
    elif name == "spell_activated":
        resolve_pending_spell(script)
    # unit_played: the main phase simply goes on.

