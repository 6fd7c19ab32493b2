"""The any-time commands' checks: spending an Omen and firing a story trigger, and what blocks both.

`spend_omen` is judged whenever the match runs, `record_trigger` while the conflict itself runs and
no trigger waits for an answer, whether or not the match waits for the seat; rules.py decides them
and legal.py offers them with these same checks.
"""

from __future__ import annotations

from domain.ruleset import RuleViolation

from .cards import deck_for
from .config import COACH
from .gambit import RUNNING as GAMBIT_RUNNING
from .shapes import GattaiState, OmenEffect, TriggerName, named
from .team import COACH_FIRES, DAMAGE, PILOT_FIRES, may_fire, pending, valid_target
from .throwdown import FIGHTING, PAYLOAD_LIMIT, payload_full

# The phases in which the conflict itself runs, so story triggers may be fired.
RUNNING = {"gambit": GAMBIT_RUNNING, "throwdown": FIGHTING}
PILOT_OMEN_EFFECTS: tuple[OmenEffect, ...] = ("self_full", "all_2")
COACH_OMEN_EFFECTS: tuple[OmenEffect, ...] = ("crisis",)


def check_no_trigger_pending(state: GattaiState) -> None:
    """While a trigger waits for a pilot's answer, only that answer (and Omens) move the match on."""
    waiting = pending(state)
    if waiting is not None:
        raise RuleViolation("trigger_pending", f"{waiting} must first answer a trigger")


def omen_effects(seat: str) -> tuple[OmenEffect, ...]:
    """What spending an Omen may do: a Pilot Omen charges pilots, a Coach Omen sets off a Crisis."""
    return COACH_OMEN_EFFECTS if seat == COACH else PILOT_OMEN_EFFECTS


def check_omen(state: GattaiState, seat: str, omen: str, effect: str) -> OmenEffect:
    """A seat spends an active, unspent Omen beside its side's deck, for one of that deck's effects (returned)."""
    found = next((o for o in state["decks"][deck_for(seat)]["omens"] if o["card"] == omen), None)
    if found is None:
        raise RuleViolation("unknown_omen", f"{omen!r} is not an Omen beside your deck")
    if found["spent"]:
        raise RuleViolation("omen_spent", "that Omen is already spent")
    chosen = named(effect, omen_effects(seat))
    if chosen is None:
        raise RuleViolation("unknown_effect", f"effect must be one of {', '.join(omen_effects(seat))}")
    return chosen


def check_story_trigger(state: GattaiState, seat: str, name: str, target: str) -> TriggerName:
    """A +Trigger the story grants is fired while the conflict runs, by a seat that fires it, at a fitting target
    (returned as the trigger it names)."""
    check_no_trigger_pending(state)
    if state["phase"] not in RUNNING[state["mode"]]:
        raise RuleViolation("not_now", "triggers are fired while the conflict runs")
    fired = named(name, COACH_FIRES + PILOT_FIRES)
    if fired is None:
        raise RuleViolation("unknown_trigger", f"no trigger {name!r}")
    if not may_fire(seat, name):
        raise RuleViolation("not_your_trigger", f"{seat} does not fire +{name}")
    if not valid_target(state, seat, name, target):
        raise RuleViolation("invalid_target", f"+{name} cannot target {target!r}")
    if name in DAMAGE and payload_full(state, seat):
        raise RuleViolation("payload_full", f"your side's Payload already holds {PAYLOAD_LIMIT} triggers")
    return fired
