"""The Gambit: a sealed Threshold, the pilot's play or flip, the reveal, and the outcome's triggers.

Phases: `threshold` (Coach seals) -> `play` (pilot plays or flips; the Threshold is revealed at
once) -> `choice` (not higher: the pilot picks Yes-but / No-but / No-and) -> `boon` (a positive
side: the pilot picks +Chargeup or +Fortify) or `complication` (a negative side: the Coach names
+Purge or +Schism) -> `resolving` (triggers resolve) -> cleanup.

This module holds the Gambit's bookkeeping and who it waits for; gambit_rules.py decides its
commands, events.py declares their events, event_parts.py builds their parts and state.py folds them.

Decisions where the seed and the rules page are silent:
- "Higher" compares ranks only (equal ranks are not higher); a Two beats an Ace and an Ace
  does not beat a Two.
- "No, but..." has a positive side and no negative one, so the pilot picks its boon, like a
  "Yes, and..."; "Yes, but..." and "No, and..." get the Coach's complication.
- With `specialty`, the chosen boon or complication resolves twice; No-and's own +Chargeup:Self
  stays single, and the new Lesson it earns is recorded (`lesson: true`).
- The Gambit's winners are the pilot for a "Yes" outcome and the Coach for a "No" outcome.
- A blind Threshold is seen by the Coach once sealed, like one played from hand.
"""

from __future__ import annotations

from typing import get_args

from .commands import GAMBIT_PHASES
from .config import COACH
from .shapes import Boon, ChosenOutcome, Complication, GambitState, GattaiState, Outcome, gambit_of

OUTCOMES: tuple[Outcome, ...] = get_args(Outcome)
CHOSEN: tuple[ChosenOutcome, ...] = get_args(ChosenOutcome)
BOONS: tuple[Boon, ...] = get_args(Boon)
COMPLICATIONS: tuple[Complication, ...] = get_args(Complication)
# The phases in which the Gambit itself runs (story triggers may be fired): those its commands are declared in.
RUNNING = tuple(GAMBIT_PHASES)


def new_gambit(state: GattaiState) -> GambitState:
    """The Gambit's bookkeeping at its start."""
    cfg = state["config"]
    return {
        "pilot": cfg["pilot"],
        "specialty": cfg["specialty"],
        "threshold_version": None,
        "threshold": None,
        "pilot_card": None,
        "pilot_source": None,
        "higher": None,
        "outcome": None,
        "boon": None,
        "complication": None,
    }


def times(state: GattaiState) -> int:
    """How often the outcome's extra effect happens: twice with the pilot's specialty."""
    return 2 if gambit_of(state)["specialty"] else 1


def earns_lesson(state: GattaiState, outcome: str) -> bool:
    """Whether a chosen outcome earns the pilot a new Lesson: No-and, with her specialty."""
    return outcome == "no_and" and gambit_of(state)["specialty"]


def awaited(state: GattaiState) -> list[str]:
    """Who the Gambit waits for in its current phase."""
    phase = state["phase"]
    if phase in ("threshold", "complication"):
        return [COACH]
    if phase in ("play", "choice", "boon"):
        return [gambit_of(state)["pilot"]]
    return []


def actors(state: GattaiState) -> list[str]:
    """Who may send the Gambit's commands now: exactly the seat it waits for (nothing in it is optional)."""
    return awaited(state)
