"""Every event kind of a conflict, declared as a typed payload (`EVENTS`), and what the state fixes of them.

Each kind is a frozen dataclass of its public fields and its secret ones (`hidden`), the
Throwdown's in throwdown_events.py; state.py
folds each payload type and the conformance kit holds every record decide, setup and time_out emit
to exactly these fields. Keys a record holds only sometimes are `optional`. The parts decide builds
from the state (a Drive's excess, a reveal's bluff call) are built in event_parts.py, once for
decide and the verifier's hooks here.

Which part of each secret the rules fix (`derived_secret`), and which is a seat's choice:
- DeckShuffled: its secret is the chance result itself, which the verifier re-derives.
- CardsDrawn, ThreatStackDealt: the cards on top of the deck (a draw never passes a Joker).
- ThreatStacksDrawn: every card invested on the Coach's Threats, Threat by Threat.
- ThresholdSealed: a blind Threshold is the top of the Coach Deck; one from hand is the Coach's
  choice. Either way the claimed source is the one the record states publicly.
- InitiativeSealed: the card is the commander's choice; its source is always the hand.
- CardsGiven, CardsReturned: which cards change hands is the giving seat's choice.

`derived_public` binds the public parts the same way. Fixed by the state: every shuffle's reason
and size (its pool, so `n` can drop no card), the Joker an Omen sets out, how many cards a draw
takes (never past a Joker; the deal's, refill's and free card's counts whole) and from which
deck, the cards shown off a deck's top (a milled card, a Dissonance flip, a flipped pilot card),
the revealed sealed cards, every Drive's excess, Strike, Dissonance and points, the Initiative's,
Gambit's and Throwdown's results, the cleanup's counts. A seat's choices stay free: sealed and
played cards, answers, outcomes, boons, complications, gifts, discards, story triggers; so do
which deck a shuffle or Omen concerns, a Bonus Draw's total (the draws before it are not in the
state) and a Dissonance's size (the Strike it exceeded has been reset by the time it is flipped).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, TypedDict

from domain.chance import ShuffleDescriptor
from domain.event_types import EventTypes, Payload, hidden
from domain.ruleset import Event

from .cards import deck_for, draw_run, drawn_secret, omen_on_top, shuffle_public, shuffle_reason, top_card
from .config import COACH
from .event_parts import (
    INITIATIVE_SOURCE,
    blocked_public,
    cleanup_public,
    conceded_public,
    conflict_started_public,
    drive_public,
    flip_public,
    gambit_resolved_public,
    initiative_resolved_public,
    piles_public,
    question_public,
    resigned_public,
    resolving_public,
    sealed_secret,
    stacks_public,
    stacks_secret,
    threshold_call,
    throwdown_ended_public,
)
from .gambit import earns_lesson, times
from .shapes import (
    Boon,
    ChosenOutcome,
    Complication,
    DeckName,
    FiredTrigger,
    GattaiState,
    Mode,
    OmenEffect,
    Outcome,
    Side,
    Source,
    Stat,
    TriggerName,
    TriggerSource,
    gambit_of,
    throwdown_of,
)
from .team import max_hand
from .throwdown import driver, side_of, threat_assist_kind
from .throwdown_events import (
    Assisted,
    Blocked,
    CardsGiven,
    CardsReturned,
    Conceded,
    Countered,
    DissonanceFlipped,
    Escalated,
    InitiativeResolved,
    InitiativeRevealed,
    InitiativeSealed,
    PilesCleared,
    QuestionAnswered,
    Rumbled,
    SidePayloadRecords,
    ThreatAssisted,
    ThreatStacksDrawn,
    ThrowdownCalledOff,
    ThrowdownEnded,
)

# ----- any conflict -------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class DeckShuffled(Payload):
    """A deck shuffled with its Trash (and its returning Omens): the permutation only organizers see."""

    deck: DeckName
    reason: Literal["start", "omens_returned", "trash_reshuffled"]
    size: int
    chance: ShuffleDescriptor
    chance_result: Sequence[int] = hidden()


@dataclass(frozen=True, kw_only=True)
class OmenRevealed(Payload):
    """The Joker on top of a deck set out beside it as an Omen."""

    deck: DeckName
    card: str


@dataclass(frozen=True, kw_only=True)
class CardsDrawn(Payload):
    """Cards off a deck's top into a hand, seen by the drawing seat."""

    seat: str
    deck: DeckName
    count: int
    why: Literal["deal", "refill", "free_card", "bonus_draw"]
    cards: Sequence[str] = hidden()


@dataclass(frozen=True, kw_only=True)
class ThreatStackDealt(Payload):
    """Cards off the Coach Deck's top face down onto a Threat (the Coach's Bonus Draws)."""

    seat: str
    deck: DeckName
    count: int
    why: Literal["threat_stack"]
    threat: str
    cards: Sequence[str] = hidden()


@dataclass(frozen=True, kw_only=True)
class CardMilled(Payload):
    """A card off a deck's top face up into its Trash (a +Tarry)."""

    deck: DeckName
    card: str
    why: Literal["tarry"]


@dataclass(frozen=True, kw_only=True)
class ConflictStarted(Payload):
    """The conflict begins, in its mode, at the Team's Harmony."""

    mode: Mode
    harmony: int


@dataclass(frozen=True, kw_only=True)
class TriggerFired(Payload):
    """A +Trigger fired: queued, or kept in its side's Payload during a Throwdown."""

    fired: FiredTrigger


@dataclass(frozen=True, kw_only=True)
class TriggerResolved(Payload):
    """The front trigger of the queue resolved: prevented with a buffer, or taken (a +Trauma naming a stat)."""

    trigger: TriggerName
    target: str
    by: str
    source: TriggerSource
    prevented: bool
    stat: Stat | None


@dataclass(frozen=True, kw_only=True)
class OmenSpent(Payload):
    """A seat spends an Omen beside its deck for one of the deck's effects."""

    seat: str
    deck: DeckName
    omen: str
    effect: OmenEffect


@dataclass(frozen=True, kw_only=True)
class CleanupStarted(Payload):
    """Hands are refilled: every seat's max hand, and who must discard how many."""

    discards_due: dict[str, int]
    max_hands: dict[str, int]


@dataclass(frozen=True, kw_only=True)
class CardsDiscarded(Payload):
    """A seat discards the cards over its max hand."""

    seat: str
    cards: list[str]


# ----- the Gambit ---------------------------------------------------------------------------------


class ThresholdConsequences(TypedDict):
    """What the Threshold's reveal decides: whether the pilot's card is higher."""

    pilot_card: str
    pilot_higher: bool


class ThresholdCall(TypedDict):
    """The bluff call the reveal of the Threshold makes (event_parts.threshold_call)."""

    claim_version: int
    claimant: str
    caller: str
    call_version: int | None
    verdict: Literal["true", "false"]
    kind: Literal["threshold"]
    card: str
    source: Source
    consequences: ThresholdConsequences


@dataclass(frozen=True, kw_only=True)
class ThresholdSealed(Payload):
    """The Coach seals the Threshold: its claimed source public, the card (and the claim) his."""

    seat: str
    source: Source
    sealed_play: Literal["threshold"]
    card: str = hidden()
    claimed_source: Literal["hand", "deck"] = hidden(key="source")


@dataclass(frozen=True, kw_only=True)
class PilotCardPlayed(Payload):
    """The pilot plays a card from hand or flips the Pilot Deck's top."""

    seat: str
    card: str
    source: Source


@dataclass(frozen=True, kw_only=True)
class ThresholdRevealed(Payload):
    """The Threshold turned face up, with the bluff call on its claimed source."""

    seat: str
    card: str
    bluff_call: ThresholdCall


@dataclass(frozen=True, kw_only=True)
class OutcomeChosen(Payload):
    """A pilot who was not higher chooses the outcome (a new Lesson with her specialty's No-and)."""

    seat: str
    outcome: ChosenOutcome
    lesson: bool


@dataclass(frozen=True, kw_only=True)
class BoonPicked(Payload):
    """The pilot's boon, fired `times` times."""

    seat: str
    trigger: Boon
    times: int


@dataclass(frozen=True, kw_only=True)
class ComplicationNamed(Payload):
    """The Coach's complication aimed at the pilot, fired `times` times."""

    seat: str
    trigger: Complication
    target: str
    times: int


@dataclass(frozen=True, kw_only=True)
class GambitResolved(Payload):
    """The Gambit's end: its cards, its outcome and who it made win."""

    pilot: str
    threshold: str
    pilot_card: str
    outcome: Outcome
    winners: list[str]


@dataclass(frozen=True, kw_only=True)
class SeatResigned(Payload):
    """The Coach or the pilots' commander resigned the match for its side: the other side wins, and a Throwdown
    still being fought delivers its Payloads as on a Concede (`payload_order`, empty when none are delivered)."""

    seat: str
    side: Side
    winners: list[str]
    payload_order: list[Side]
    payloads: SidePayloadRecords


EVENTS = EventTypes(
    DeckShuffled,
    OmenRevealed,
    CardsDrawn,
    ThreatStackDealt,
    CardMilled,
    ConflictStarted,
    TriggerFired,
    TriggerResolved,
    OmenSpent,
    CleanupStarted,
    CardsDiscarded,
    ThresholdSealed,
    PilotCardPlayed,
    ThresholdRevealed,
    OutcomeChosen,
    BoonPicked,
    ComplicationNamed,
    GambitResolved,
    InitiativeSealed,
    InitiativeRevealed,
    InitiativeResolved,
    DissonanceFlipped,
    ThrowdownCalledOff,
    QuestionAnswered,
    ThreatStacksDrawn,
    CardsGiven,
    CardsReturned,
    Assisted,
    ThreatAssisted,
    Countered,
    Escalated,
    Rumbled,
    Blocked,
    Conceded,
    ThrowdownEnded,
    PilesCleared,
    SeatResigned,
)


# ----- the verifier's hooks -----------------------------------------------------------------------


def derived_secret(state: GattaiState, event: Event) -> dict | None:
    """The part of an event's secret that the state and chance fix; None when it is all a choice."""
    pub = event.public
    if event.secret is None:
        return None
    if event.kind in ("CardsDrawn", "ThreatStackDealt"):
        return drawn_secret(state, pub["deck"], pub["count"])
    if event.kind == "ThreatStacksDrawn":
        return stacks_secret(state)
    if event.kind == "ThresholdSealed":
        if pub["source"] == "deck":
            return sealed_secret(top_card(state, "coach"), "deck")
        return {"source": pub["source"]}
    if event.kind == "InitiativeSealed":
        return {"source": INITIATIVE_SOURCE}
    return None


def _short(state: GattaiState, seat: str) -> int:
    return max_hand(state, seat) - len(state["hands"][seat])


def due_draw(state: GattaiState, pub: dict) -> dict:
    """Who draws how many cards from which deck, and why, in a CardsDrawn the state expects now."""
    phase = state["phase"]
    if phase in ("setup", "resolving"):
        # The deal (pilots first) and the refill after the conflict fill each hand to its max in
        # turn, passing over a seat whose deck and Trash have run dry.
        order = [*state["pilots"], COACH] if phase == "setup" else state["seats"]
        seat = next(
            (s for s in order if _short(state, s) > 0 and draw_run(state, deck_for(s), _short(state, s)) > 0), None
        )
        why, wanted = ("deal" if phase == "setup" else "refill"), (_short(state, seat) if seat else 0)
    elif phase == "question":
        seat, why, wanted = throwdown_of(state)["commander"], "free_card", 1
    elif phase in ("swap", "turns"):
        seat, why, wanted = throwdown_of(state)["commander"], "bonus_draw", pub["count"]
    else:
        seat, why, wanted = pub["seat"], pub["why"], pub["count"]
    # With no seat short of cards the draw is judged against the Pilot Deck, where it may take none.
    deck = "pilot" if seat is None else deck_for(seat)
    return {"seat": seat, "deck": deck, "count": draw_run(state, deck, wanted), "why": why}


def derived_public(state: GattaiState, event: Event) -> dict | None:
    """The part of an event's public record that the state and chance fix; None when it is all a choice."""
    kind, pub = event.kind, event.public
    if kind == "DeckShuffled":
        return shuffle_public(state, pub["deck"], shuffle_reason(state, pub["deck"]))
    if kind == "OmenRevealed":
        return {"card": omen_on_top(state, pub["deck"])}
    if kind == "CardsDrawn":
        return due_draw(state, pub)
    if kind == "ThreatStackDealt":
        wanted = state["config"]["threat_stacks"].get(pub["threat"], 0) - len(state["stacks"].get(pub["threat"], []))
        return {"seat": COACH, "deck": "coach", "count": draw_run(state, "coach", wanted), "why": "threat_stack"}
    if kind == "CardMilled":
        # Only a +Tarry mills, and only the Coach Deck.
        return {"deck": "coach", "card": top_card(state, "coach"), "why": "tarry"}
    if kind == "ConflictStarted":
        return conflict_started_public(state)
    if kind == "TriggerResolved":
        return resolving_public(state["queue"][0]) if state["queue"] else {"trigger": None}
    if kind == "OmenSpent":
        return {"deck": deck_for(pub["seat"])}
    if kind == "CleanupStarted":
        return cleanup_public(state)
    if kind == "ThresholdSealed":
        return {"seat": COACH, "sealed_play": "threshold"}
    if kind == "PilotCardPlayed":
        pilot = gambit_of(state)["pilot"]
        return {"seat": pilot, "card": top_card(state, "pilot")} if pub["source"] == "deck" else {"seat": pilot}
    if kind == "ThresholdRevealed":
        return {"seat": COACH, "card": threshold_call(state, event.version)["card"]}
    if kind == "OutcomeChosen":
        return {"seat": gambit_of(state)["pilot"], "lesson": earns_lesson(state, pub["outcome"])}
    if kind == "BoonPicked":
        return {"seat": gambit_of(state)["pilot"], "times": times(state)}
    if kind == "ComplicationNamed":
        return {"seat": COACH, "target": gambit_of(state)["pilot"], "times": times(state)}
    if kind == "GambitResolved":
        return gambit_resolved_public(state)
    if kind == "SeatResigned":
        return resigned_public(state, pub["seat"])
    return _throwdown_public(state, event)


def _throwdown_public(state: GattaiState, event: Event) -> dict | None:
    kind, pub = event.kind, event.public
    if kind == "InitiativeSealed":
        return {"sealed_play": "initiative"}
    if kind == "InitiativeRevealed":
        version = throwdown_of(state)["initiative"][side_of(pub["seat"])]
        return {"card": next((e["card"] for e in state["sealed"] if e["version"] == version), None)}
    if kind == "InitiativeResolved":
        return initiative_resolved_public(state)
    if kind == "DissonanceFlipped":
        return flip_public(state, pub["dissonance"])
    if kind == "QuestionAnswered":
        return question_public(state, pub["for_team"])
    if kind == "ThreatStacksDrawn":
        return stacks_public(state)
    if kind in ("CardsGiven", "CardsReturned"):
        # Gifts go to the commander and returns come from her; the count restates the (opened) secret.
        commander = throwdown_of(state)["commander"]
        public = {"to": commander} if kind == "CardsGiven" else {"seat": commander}
        cards = (event.secret or {}).get("cards")
        return public if cards is None else {**public, "count": len(cards)}
    if kind == "ThreatAssisted":
        return {"kind": threat_assist_kind(pub["card"])}
    if kind in ("Countered", "Escalated", "Rumbled", "Blocked", "Conceded"):
        seat = driver(state, throwdown_of(state)["turn"])
        if kind == "Blocked":
            return blocked_public(state, seat, pub["card"])
        if kind == "Conceded":
            return conceded_public(state, seat)
        return drive_public(state, kind, seat, pub["card"])
    if kind == "ThrowdownEnded":
        return throwdown_ended_public(state)
    if kind == "PilesCleared":
        return piles_public(state)
    return None
