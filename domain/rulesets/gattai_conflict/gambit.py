"""The Gambit: a sealed Threshold, the pilot's play or flip, the reveal, and the outcome's triggers.

Phases: `threshold` (Coach seals) -> `play` (pilot plays or flips; the Threshold is revealed at
once) -> `choice` (not higher: the pilot picks Yes-but / No-but / No-and) -> `boon` (a positive
side: the pilot picks +Chargeup or +Fortify) or `complication` (a negative side: the Coach names
+Purge or +Schism) -> `resolving` (triggers resolve) -> cleanup.

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

from domain.ruleset import RuleViolation

from . import cards as C
from .commands import COACH, ChooseOutcome, FlipCard, NameComplication, PickBoon, PlayCard, PlayThreshold
from .hidden import sealed_secret
from .state import mark_revealed, place_sealed, sealed_verdict
from .team import trigger

OUTCOMES = ("yes_and", "yes_but", "no_but", "no_and")
CHOSEN = ("yes_but", "no_but", "no_and")
BOONS = ("chargeup", "fortify")
COMPLICATIONS = ("purge", "schism")


def new_gambit(state: dict) -> dict:
    """The Gambit's bookkeeping at its start."""
    cfg = state["config"]
    return {"pilot": cfg["pilot"], "specialty": cfg["specialty"], "threshold_version": None, "threshold": None,
            "pilot_card": None, "pilot_source": None, "higher": None, "outcome": None, "boon": None,
            "complication": None}


def times(state: dict) -> int:
    """How often the outcome's extra effect happens: twice with the pilot's specialty."""
    return 2 if state["gambit"]["specialty"] else 1


def awaited(state: dict) -> list[str]:
    """Who the Gambit waits for in its current phase."""
    phase = state["phase"]
    if phase in ("threshold", "complication"):
        return [COACH]
    if phase in ("play", "choice", "boon"):
        return [state["gambit"]["pilot"]]
    return []


# ----- decide -----------------------------------------------------------------------------------

def play_threshold(sim, seat: str, cmd: PlayThreshold) -> None:
    """Seal the Threshold from hand or blind from the top of the Coach Deck."""
    state = sim.state
    if cmd.source == "hand":
        if cmd.card not in state["hands"][COACH]:
            raise RuleViolation("card_not_in_hand", f"{cmd.card!r} is not in the Coach's hand")
        card = cmd.card
    elif cmd.source == "deck":
        if cmd.card is not None:
            raise RuleViolation("blind_play_names_no_card", "a blind Threshold is the deck top; name no card")
        card = C.top_card(state, "coach")
        if card is None:
            raise RuleViolation("deck_empty", "the Coach Deck and its Trash are empty")
    else:
        raise RuleViolation("unknown_source", "source must be 'hand' or 'deck'")
    # `sealed_play` marks a sealed play for the audit, which lists it (commitment, who sealed it)
    # from this record on; its reveal completes that entry.
    sim.emit("ThresholdSealed", {"seat": COACH, "source": cmd.source, "sealed_play": "threshold"},
             sealed_secret(card, cmd.source), (COACH,))


def play_card(sim, seat: str, cmd: PlayCard) -> None:
    """The pilot plays a card face up from her hand; the Threshold is revealed."""
    if cmd.card not in sim.state["hands"][seat]:
        raise RuleViolation("card_not_in_hand", f"{cmd.card!r} is not in your hand")
    sim.emit("PilotCardPlayed", {"seat": seat, "card": cmd.card, "source": "hand"})
    _reveal(sim)


def flip_card(sim, seat: str, cmd: FlipCard) -> None:
    """The pilot flips the top of the Pilot Deck; the Threshold is revealed."""
    card = C.top_card(sim.state, "pilot")
    if card is None:
        raise RuleViolation("deck_empty", "the Pilot Deck and its Trash are empty")
    sim.emit("PilotCardPlayed", {"seat": seat, "card": card, "source": "deck"})
    C.settle(sim, "pilot")
    _reveal(sim)


def threshold_call(state: dict, call_version: int) -> dict:
    """The bluff call the reveal of the sealed Threshold makes, once the pilot's card is on the table.

    The pilot's play is the call (only the Gambit's pilot plays); the verdict is whether the
    Threshold came from where the Coach claimed, and the consequence is whether the pilot is higher.
    """
    g = state["gambit"]
    sealed = next(e for e in state["sealed"] if e["version"] == g["threshold_version"])
    higher = C.gambit_beats(g["pilot_card"], sealed["card"])
    return {
        "claim_version": sealed["version"], "claimant": COACH, "caller": g["pilot"], "call_version": call_version,
        "verdict": sealed_verdict(sealed), "kind": "threshold", "card": sealed["card"], "source": sealed["source"],
        "consequences": {"pilot_card": g["pilot_card"], "pilot_higher": higher},
    }


def _reveal(sim) -> None:
    call = threshold_call(sim.state, sim.next_version)
    sim.emit("ThresholdRevealed", {"seat": COACH, "card": call["card"], "bluff_call": call},
             opens=(call["claim_version"],))


def earns_lesson(state: dict, outcome: str) -> bool:
    """Whether a chosen outcome earns the pilot a new Lesson: No-and, with her specialty."""
    return outcome == "no_and" and state["gambit"]["specialty"]


def choose_outcome(sim, seat: str, cmd: ChooseOutcome) -> None:
    """Not higher: the pilot chooses Yes-but, No-but or No-and (which gives her +Chargeup:Self)."""
    if cmd.outcome not in CHOSEN:
        raise RuleViolation("unknown_outcome", f"outcome must be one of {', '.join(CHOSEN)}")
    sim.emit("OutcomeChosen", {"seat": seat, "outcome": cmd.outcome, "lesson": earns_lesson(sim.state, cmd.outcome)})
    if cmd.outcome == "no_and":
        sim.emit("TriggerFired", {"fired": trigger("chargeup", seat, seat, "no_and")})


def pick_boon(sim, seat: str, cmd: PickBoon) -> None:
    """The pilot's single-point positive trigger for herself (twice with her specialty)."""
    if cmd.trigger not in BOONS:
        raise RuleViolation("unknown_trigger", "the boon must be 'chargeup' or 'fortify'")
    n = times(sim.state)
    sim.emit("BoonPicked", {"seat": seat, "trigger": cmd.trigger, "times": n})
    for _ in range(n):
        sim.emit("TriggerFired", {"fired": trigger(cmd.trigger, seat, seat, "gambit")})


def name_complication(sim, seat: str, cmd: NameComplication) -> None:
    """The Coach's negative trigger aimed at the pilot (twice with her specialty)."""
    if cmd.trigger not in COMPLICATIONS:
        raise RuleViolation("unknown_trigger", "the complication must be 'purge' or 'schism'")
    n = times(sim.state)
    pilot = sim.state["gambit"]["pilot"]
    sim.emit("ComplicationNamed", {"seat": COACH, "trigger": cmd.trigger, "target": pilot, "times": n})
    for _ in range(n):
        sim.emit("TriggerFired", {"fired": trigger(cmd.trigger, pilot, COACH, "gambit")})


def finish(sim) -> None:
    """Both cards go to their Trash; the Gambit's result is recorded."""
    sim.emit("GambitResolved", resolved_public(sim.state))


def resolved_public(state: dict) -> dict:
    """The public part of the Gambit's end: its cards, its outcome and who it made win."""
    g = state["gambit"]
    winners = [g["pilot"]] if g["outcome"] in ("yes_and", "yes_but") else [COACH]
    return {"pilot": g["pilot"], "threshold": g["threshold"], "pilot_card": g["pilot_card"], "outcome": g["outcome"],
            "winners": winners}


HANDLERS = {
    ("threshold", PlayThreshold.type): play_threshold, ("play", PlayCard.type): play_card,
    ("play", FlipCard.type): flip_card, ("choice", ChooseOutcome.type): choose_outcome,
    ("boon", PickBoon.type): pick_boon, ("complication", NameComplication.type): name_complication,
}


def legal(state: dict, seat: str) -> list:
    """The Gambit commands `seat` may send now (complete)."""
    phase = state["phase"]
    if seat not in awaited(state):
        return []
    if phase == "threshold":
        out = [PlayThreshold("hand", c) for c in state["hands"][COACH]]
        if C.top_card(state, "coach") is not None:
            out.append(PlayThreshold("deck"))
        return out
    if phase == "play":
        out = [PlayCard(c) for c in state["hands"][seat]]
        return out + ([FlipCard()] if C.top_card(state, "pilot") is not None else [])
    if phase == "choice":
        return [ChooseOutcome(o) for o in CHOSEN]
    if phase == "boon":
        return [PickBoon(t) for t in BOONS]
    if phase == "complication":
        return [NameComplication(t) for t in COMPLICATIONS]
    return []


# ----- evolve -----------------------------------------------------------------------------------

def _pilot_card_played(state, ev):
    seat, card = ev.public["seat"], ev.public["card"]
    if ev.public["source"] == "hand":
        state["hands"][seat].remove(card)
    else:
        state["decks"]["pilot"]["draw"].remove(card)
    state["table"].append({"card": card, "seat": seat, "role": "gambit_play", "face_up": True})
    state["gambit"].update(pilot_card=card, pilot_source=ev.public["source"])


def _threshold_revealed(state, ev):
    mark_revealed(state, ev)
    g = state["gambit"]
    g["threshold"] = ev.public["card"]
    g["higher"] = ev.public["bluff_call"]["consequences"]["pilot_higher"]
    if g["higher"]:
        g["outcome"] = "yes_and"
        state["phase"] = "boon"
    else:
        state["phase"] = "choice"


def _outcome_chosen(state, ev):
    outcome = ev.public["outcome"]
    state["gambit"]["outcome"] = outcome
    state["phase"] = "boon" if outcome == "no_but" else "complication"


def _boon_picked(state, ev):
    state["gambit"]["boon"] = ev.public["trigger"]
    state["phase"] = "resolving"
    state["after_queue"] = "gambit_end"


def _complication_named(state, ev):
    state["gambit"]["complication"] = ev.public["trigger"]
    state["phase"] = "resolving"
    state["after_queue"] = "gambit_end"


def _gambit_resolved(state, ev):
    for entry in state["table"]:
        C.to_trash(state, entry["card"])
    state["table"] = []
    state["after_queue"] = None
    p = ev.public
    state["result"] = {"winners": list(p["winners"]), "reason": f"gambit_{p['outcome']}", "mode": "gambit",
                       "gambit_outcome": p["outcome"], "threshold": p["threshold"], "pilot_card": p["pilot_card"]}


def _threshold_sealed(state, ev):
    place_sealed(state, ev, "threshold")
    state["gambit"]["threshold_version"] = ev.version
    state["phase"] = "play"


EVOLVERS = {
    "ThresholdSealed": _threshold_sealed, "PilotCardPlayed": _pilot_card_played,
    "ThresholdRevealed": _threshold_revealed, "OutcomeChosen": _outcome_chosen, "BoonPicked": _boon_picked,
    "ComplicationNamed": _complication_named, "GambitResolved": _gambit_resolved,
}
