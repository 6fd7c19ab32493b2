"""The Team state (Harmony, charges, buffers, stats) and the +Trigger vocabulary.

A fired trigger is a plain record `{"trigger", "target", "amount", "full", "by", "source",
"immediate"}`. Mechanical triggers change the Team state; story triggers (Favor, Disfavor, Ruin,
Rebuild, Replenish, Restore, Storm, Wave, Tarry, BREAK!) are recorded with their named target
and change nothing, except +Tarry, which mills the Coach Deck by `crisis_tier` cards.

Triggers wait in `state["queue"]` and resolve front first. A +Schism, +Purge or +Trauma aimed
at a pilot who has a buffer, and would change something, waits for her `resolve_trigger`
(spend a buffer or take it); an unprevented +Trauma waits for her choice of stat. Chain effects
(+Schism at Red gives +Trauma:Each, +Rally at Violet gives +Chargeup:Each) are pushed to the
front of the queue, since they happen as part of the trigger that caused them.
"""

from __future__ import annotations

import math
from typing import get_args

from .commands import STATS
from .config import COACH
from .shapes import FiredTrigger, GattaiState, MechanicalTrigger, Stat, StoryTrigger, TriggerName, TriggerSource

HARMONY_NAMES = {1: "Red", 2: "Orange", 3: "Yellow", 4: "Green", 5: "Blue", 6: "Indigo", 7: "Violet"}

MECHANICAL: tuple[MechanicalTrigger, ...] = get_args(MechanicalTrigger)
STORY: tuple[StoryTrigger, ...] = get_args(StoryTrigger)
DAMAGE = ("schism", "purge", "trauma", "disfavor", "ruin")
PREVENTABLE = ("schism", "purge", "trauma")
# Who may fire which trigger with `record_trigger`: the Coach adjudicates what the story grants
# mechanically (a Threat's power, a Location); pilots name their own story boons.
# A pilot's +Trauma hits a Threat (its rating drops by one, not below 0); the Coach's hits a pilot.
COACH_FIRES: tuple[TriggerName, ...] = (
    "chargeup",
    "fortify",
    "rally",
    "schism",
    "purge",
    "trauma",
    "disfavor",
    "ruin",
    "storm",
    "wave",
    "tarry",
    "break",
)
PILOT_FIRES: tuple[TriggerName, ...] = ("favor", "rebuild", "replenish", "restore", "tarry", "trauma")
PILOT_TARGETED = ("chargeup", "fortify", "schism", "purge")
MAX_TARGET = 40


def max_hand(state: GattaiState, seat: str) -> int:
    """A seat's max hand: a pilot 2 + ceil(Harmony / 2) (house), the Coach the number of pilots."""
    if seat == COACH:
        return len(state["pilots"])
    return 2 + math.ceil(state["harmony"] / 2)


def trigger(
    name: TriggerName,
    target: str,
    by: str,
    source: TriggerSource,
    *,
    amount: int = 1,
    full: bool = False,
    immediate: bool = False,
) -> FiredTrigger:
    """A fired trigger record."""
    return {
        "trigger": name,
        "target": target,
        "amount": amount,
        "full": full,
        "by": by,
        "source": source,
        "immediate": immediate,
    }


def may_fire(seat: str, name: str) -> bool:
    """Whether a seat may fire this trigger with `record_trigger`."""
    return name in (COACH_FIRES if seat == COACH else PILOT_FIRES)


def valid_target(state: GattaiState, seat: str, name: str, target: str) -> bool:
    """Whether a target fits: a pilot (a Threat for a pilot's +Trauma), `team` for +Rally, free text for story."""
    if name == "trauma":
        return target in (state["team"] if seat == COACH else state["threats"])
    if name in PILOT_TARGETED:
        return target in state["team"]
    if name == "rally":
        return target == "team"
    return 1 <= len(target) <= MAX_TARGET


def would_change(state: GattaiState, t: FiredTrigger) -> bool:
    """Whether a preventable trigger would change anything if it applied."""
    name = t["trigger"]
    if name == "schism":
        return True
    gauge = state["team"][t["target"]]
    if name == "purge":
        return gauge["charges"] > 0
    if name == "trauma":
        return any(gauge[s] > 0 for s in STATS)
    return False


def decider(state: GattaiState, t: FiredTrigger) -> str | None:
    """The pilot whose answer the trigger waits for, or None when it resolves by itself."""
    if t["trigger"] not in PREVENTABLE or t["target"] not in state["team"] or not would_change(state, t):
        return None
    gauge = state["team"][t["target"]]
    if gauge["buffers"] > 0 or t["trigger"] == "trauma":
        return t["target"]
    return None


def pending(state: GattaiState) -> str | None:
    """The pilot whose answer the front trigger waits for, if any."""
    return decider(state, state["queue"][0]) if state["queue"] else None


def resolve_options(state: GattaiState, t: FiredTrigger) -> list[tuple[bool, Stat | None]]:
    """The answers the aimed-at pilot may give: spend a buffer, or take it (naming a stat for +Trauma)."""
    gauge = state["team"][t["target"]]
    out: list[tuple[bool, Stat | None]] = []
    if gauge["buffers"] > 0:
        out.append((True, None))
    if t["trigger"] == "trauma":
        out += [(False, s) for s in STATS if gauge[s] > 0]
    else:
        out.append((False, None))
    return out


# ----- evolve side --------------------------------------------------------------------------------


def apply_resolved(state: GattaiState, prevented: bool, stat: Stat | None) -> None:
    """Apply the trigger at the front of the queue as the `TriggerResolved` event says (prevented, or the stat taken)."""
    t = state["queue"].pop(0)
    name, target = t["trigger"], t["target"]
    if prevented:
        state["team"][target]["buffers"] -= 1
        return
    chained: list[FiredTrigger] = []
    if name == "trauma" and target not in state["team"]:
        if target in state["threats"]:
            state["threats"][target] = max(0, state["threats"][target] - 1)
    elif name in ("chargeup", "fortify", "purge", "trauma"):
        gauge = state["team"][target]
        if name == "chargeup":
            gained = gauge["charges_max"] if t["full"] else gauge["charges"] + t["amount"]
            gauge["charges"] = min(gauge["charges_max"], gained)
        elif name == "fortify":
            gauge["buffers"] = min(gauge["buffers_max"], gauge["buffers"] + 1)
        elif name == "purge":
            gauge["charges"] = 0
        elif stat in STATS and stat is not None and gauge[stat] > 0:
            gauge[stat] -= 1
    elif name == "rally":
        if state["harmony"] < 7:
            state["harmony"] += 1
        else:
            chained = [trigger("chargeup", p, t["by"], "rally_at_violet") for p in state["pilots"]]
    elif name == "schism":
        if state["harmony"] > 1:
            state["harmony"] -= 1
        else:
            chained = [
                trigger("trauma", p, t["by"], "schism_at_red", immediate=t["immediate"]) for p in state["pilots"]
            ]
    state["queue"][0:0] = chained
