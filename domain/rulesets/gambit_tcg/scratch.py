"""Decide's scratch pad for gambit-tcg: `domain.decision.Decision` with the game's draw, destroy and settle.

Every event a rule emits is folded at once, so the next rule reads the position as it stands;
once an event ends the game (a `result`), `GameEnded` unwinds to `decide`, which returns what
was emitted.
"""

from __future__ import annotations

from domain.chance import Chance
from domain.decision import Decision

from .effects import lethal_units
from .parts import destroyed_public, drawn_public, drawn_secret
from .payloads import SeatLost
from .shapes import TcgState
from .state import evolve


def game_ended(state: TcgState) -> bool:
    """Whether the game has a result (a loss or the turn limit): no event may follow."""
    return state["result"] is not None


class TcgDecision(Decision[TcgState]):
    """A gambit-tcg decision: the shared scratch pad plus the draws, deaths and state checks rules emit through."""

    def __init__(self, state: TcgState, chance: Chance | None) -> None:
        super().__init__(state, chance, evolve, ended=game_ended)

    def draw(self, seat: str, count: int, reason: str) -> None:
        """Draw `count` cards; a seat that must draw from an empty deck loses."""
        public = drawn_public(self.state, seat, count, reason)
        if public["cards"]:
            self.emit("CardsDrawn", public, secret=drawn_secret(self.state, seat, count), audience=(seat,))
        if len(public["cards"]) < count:
            self.add(SeatLost(seats=[seat], reason="deck_out").event())

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
            self.add(SeatLost(seats=losers, reason="zero_life").event())
