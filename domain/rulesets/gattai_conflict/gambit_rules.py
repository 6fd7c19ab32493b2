"""How decide takes the Gambit's commands: their named checks, then the events each emits (see gambit.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.ruleset import RuleViolation

from .cards import settle, top_card
from .commands import GAMBIT_PHASES, ChooseOutcome, FlipCard, NameComplication, PickBoon, PlayCard, PlayThreshold
from .config import COACH
from .event_parts import gambit_resolved_public, sealed_secret, threshold_call
from .events import BoonPicked, ComplicationNamed, OutcomeChosen, TriggerFired
from .gambit import BOONS, CHOSEN, COMPLICATIONS, earns_lesson, times
from .shapes import Boon, ChosenOutcome, Complication, ConflictPad, GattaiState, gambit_of, named
from .team import trigger

# ----- named checks (legal.py lists what passes them) ---------------------------------------------


def check_threshold(state: GattaiState, source: str, card: str | None) -> None:
    """A Threshold comes from the Coach's hand (naming the card) or blind off the Coach Deck (naming none)."""
    if source == "hand":
        if card not in state["hands"][COACH]:
            raise RuleViolation("card_not_in_hand", f"{card!r} is not in the Coach's hand")
    elif source == "deck":
        if card is not None:
            raise RuleViolation("blind_play_names_no_card", "a blind Threshold is the deck top; name no card")
        if top_card(state, "coach") is None:
            raise RuleViolation("deck_empty", "the Coach Deck and its Trash are empty")
    else:
        raise RuleViolation("unknown_source", "source must be 'hand' or 'deck'")


def check_pilot_card(state: GattaiState, seat: str, card: str) -> None:
    """The pilot plays a card she holds."""
    if card not in state["hands"][seat]:
        raise RuleViolation("card_not_in_hand", f"{card!r} is not in your hand")


def check_flip(state: GattaiState) -> None:
    """A flip needs a card on the Pilot Deck (or in its Trash, reshuffled)."""
    if top_card(state, "pilot") is None:
        raise RuleViolation("deck_empty", "the Pilot Deck and its Trash are empty")


def check_outcome(outcome: str) -> ChosenOutcome:
    """A pilot who is not higher chooses Yes-but, No-but or No-and (returned as the outcome it names)."""
    chosen = named(outcome, CHOSEN)
    if chosen is None:
        raise RuleViolation("unknown_outcome", f"outcome must be one of {', '.join(CHOSEN)}")
    return chosen


def check_boon(name: str) -> Boon:
    """The boon is +Chargeup or +Fortify (returned as the trigger it names)."""
    boon = named(name, BOONS)
    if boon is None:
        raise RuleViolation("unknown_trigger", "the boon must be 'chargeup' or 'fortify'")
    return boon


def check_complication(name: str) -> Complication:
    """The complication is +Purge or +Schism (returned as the trigger it names)."""
    complication = named(name, COMPLICATIONS)
    if complication is None:
        raise RuleViolation("unknown_trigger", "the complication must be 'purge' or 'schism'")
    return complication


# ----- the commands -------------------------------------------------------------------------------


def play_threshold(pad: ConflictPad, seat: str, cmd: PlayThreshold) -> None:
    """Seal the Threshold from hand or blind from the top of the Coach Deck."""
    check_threshold(pad.conflict, cmd.source, cmd.card)
    card = cmd.card if cmd.source == "hand" else top_card(pad.conflict, "coach")
    # `sealed_play` marks a sealed play for the audit, which lists it (commitment, who sealed it)
    # from this record on; its reveal completes that entry.
    pad.emit(
        "ThresholdSealed",
        {"seat": COACH, "source": cmd.source, "sealed_play": "threshold"},
        sealed_secret(card, cmd.source),
        (COACH,),
    )


def play_card(pad: ConflictPad, seat: str, cmd: PlayCard) -> None:
    """The pilot plays a card face up from her hand; the Threshold is revealed."""
    check_pilot_card(pad.conflict, seat, cmd.card)
    pad.emit("PilotCardPlayed", {"seat": seat, "card": cmd.card, "source": "hand"})
    _reveal(pad)


def flip_card(pad: ConflictPad, seat: str, cmd: FlipCard) -> None:
    """The pilot flips the top of the Pilot Deck; the Threshold is revealed."""
    check_flip(pad.conflict)
    pad.emit("PilotCardPlayed", {"seat": seat, "card": top_card(pad.conflict, "pilot"), "source": "deck"})
    settle(pad, "pilot")
    _reveal(pad)


def _reveal(pad: ConflictPad) -> None:
    call = threshold_call(pad.conflict, pad.next_version)
    pad.emit(
        "ThresholdRevealed", {"seat": COACH, "card": call["card"], "bluff_call": call}, opens=(call["claim_version"],)
    )


def choose_outcome(pad: ConflictPad, seat: str, cmd: ChooseOutcome) -> None:
    """Not higher: the pilot chooses Yes-but, No-but or No-and (which gives her +Chargeup:Self)."""
    outcome = check_outcome(cmd.outcome)
    pad.record(OutcomeChosen(seat=seat, outcome=outcome, lesson=earns_lesson(pad.conflict, outcome)))
    if outcome == "no_and":
        pad.record(TriggerFired(fired=trigger("chargeup", seat, seat, "no_and")))


def pick_boon(pad: ConflictPad, seat: str, cmd: PickBoon) -> None:
    """The pilot's single-point positive trigger for herself (twice with her specialty)."""
    boon = check_boon(cmd.trigger)
    n = times(pad.conflict)
    pad.record(BoonPicked(seat=seat, trigger=boon, times=n))
    for _ in range(n):
        pad.record(TriggerFired(fired=trigger(boon, seat, seat, "gambit")))


def name_complication(pad: ConflictPad, seat: str, cmd: NameComplication) -> None:
    """The Coach's negative trigger aimed at the pilot (twice with her specialty)."""
    complication = check_complication(cmd.trigger)
    n = times(pad.conflict)
    pilot = gambit_of(pad.conflict)["pilot"]
    pad.record(ComplicationNamed(seat=COACH, trigger=complication, target=pilot, times=n))
    for _ in range(n):
        pad.record(TriggerFired(fired=trigger(complication, pilot, COACH, "gambit")))


def finish(pad: ConflictPad) -> None:
    """Once the Gambit's triggers have resolved: both cards go to their Trash and its result is recorded."""
    pad.emit("GambitResolved", gambit_resolved_public(pad.conflict))


# decide looks a command up by (phase, type), the phases those GAMBIT_PHASES declares for it, so one
# sent in another phase is refused as `not_now`.
HANDLERS: dict[tuple[str, str], Callable[[ConflictPad, str, Any], None]] = GAMBIT_PHASES.keyed(
    {
        PlayThreshold: play_threshold,
        PlayCard: play_card,
        FlipCard: flip_card,
        ChooseOutcome: choose_outcome,
        PickBoon: pick_boon,
        NameComplication: name_complication,
    }
)
