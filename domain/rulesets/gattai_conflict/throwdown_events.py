"""The Throwdown's event kinds, declared as typed payloads (events.py lists them all in `EVENTS`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, TypedDict

from domain.event_types import Payload, hidden, keyed, optional

from .shapes import FiredTrigger, Side, SideScores, Source


class InitiativeConsequences(TypedDict):
    """What an Initiative reveal decides: which side wins it, or identical cards."""

    initiative_winner: Side | None
    identical: bool


class InitiativeCall(TypedDict):
    """The bluff call the reveal of a sealed Initiative card makes (event_parts.initiative_call)."""

    claim_version: int
    claimant: str
    caller: str
    call_version: int | None
    verdict: Literal["true", "false"]
    kind: Literal["initiative"]
    card: str
    source: Source
    consequences: InitiativeConsequences


class SideCards(TypedDict):
    """A card per side."""

    pilots: str
    coach: str


@dataclass(frozen=True, kw_only=True)
class InitiativeSealed(Payload):
    """A commander seals an Initiative card from her hand."""

    seat: str
    sealed_play: Literal["initiative"]
    card: str = hidden()
    source: Literal["hand"] = hidden()


@dataclass(frozen=True, kw_only=True)
class InitiativeRevealed(Payload):
    """A sealed Initiative card turned face up, with the bluff call on its source."""

    seat: str
    card: str
    bluff_call: InitiativeCall


@dataclass(frozen=True, kw_only=True)
class InitiativeResolved(Payload):
    """Who wins the Initiative (rank, then suit); a winner's card, excess and Strike when not identical."""

    winner: Side | None
    identical: bool
    cards: SideCards
    winning_card: str | None = optional(None)
    excess: int | None = optional(None)
    strike: int | None = optional(None)
    outside_strike: bool | None = optional(None)


@dataclass(frozen=True, kw_only=True)
class DissonanceFlipped(Payload):
    """The Coach Deck's top flipped against the commander's Dissonance (no card when deck and Trash are empty)."""

    card: str | None
    value: int | None
    dissonance: int
    schism: bool
    pilot: str


@dataclass(frozen=True, kw_only=True)
class ThrowdownCalledOff(Payload):
    """Identical Initiative cards with a hand empty: the Throwdown has no winner."""

    reason: Literal["identical_initiative_and_empty_hand"]


@dataclass(frozen=True, kw_only=True)
class QuestionAnswered(Payload):
    """The table's answer: the commander draws her Synch (for her Team) or her Solo."""

    for_team: bool
    commander: str
    draws: int


@dataclass(frozen=True, kw_only=True)
class ThreatStacksDrawn(Payload):
    """The Coach takes the cards invested on his Threats into his hand."""

    counts: dict[str, int]
    cards: Sequence[str] = hidden()


@dataclass(frozen=True, kw_only=True)
class CardsPassed(Payload):
    """Cards one seat hands another at the swap, seen by both (not a kind itself: its two kinds follow)."""

    seat: str
    to: str
    count: int
    cards: Sequence[str] = hidden()


@dataclass(frozen=True, kw_only=True)
class CardsGiven(CardsPassed):
    """A pilot gives the commander cards (none passes)."""


@dataclass(frozen=True, kw_only=True)
class CardsReturned(CardsPassed):
    """The commander gives a giver back as many cards."""


@dataclass(frozen=True, kw_only=True)
class Assisted(Payload):
    """A pilot discards a card and spends a charge: +1 to the commander's Strike this turn."""

    seat: str
    card: str


@dataclass(frozen=True, kw_only=True)
class ThreatAssisted(Payload):
    """A Threat activates a Wave (face card discarded) or a Storm (Ace discarded)."""

    threat: str
    card: str
    # `kind` is the payload class's own name for its record kind: the field keeps the record's key.
    activates: Literal["wave", "storm"] = keyed("kind")


@dataclass(frozen=True, kw_only=True)
class Countered(Payload):
    """A card played over the Pile's top: its excess, the Strike it faced and the Dissonance."""

    seat: str
    side: Side
    card: str
    over: str
    excess: int
    strike: int
    dissonance: int


@dataclass(frozen=True, kw_only=True)
class Escalated(Countered):
    """A card opening the next stage's Pile; the opposing side scores the stage left."""

    points: int
    scorer: Side
    new_stage: int


@dataclass(frozen=True, kw_only=True)
class Rumbled(Escalated):
    """Stage 3's Rumble: as an Escalate into stage 4, every Pile discarded."""


@dataclass(frozen=True, kw_only=True)
class Blocked(Payload):
    """A Block: the card blocked and what it was; against an Escalate, the stage and points taken back."""

    seat: str
    side: Side
    card: str
    blocked: str
    against: Literal["counter", "escalate"]
    stage_back_to: int | None = optional(None)
    points_back: int | None = optional(None)
    scorer: Literal["pilots", "coach"] | None = optional(None)


@dataclass(frozen=True, kw_only=True)
class Conceded(Payload):
    """A commander concedes: the opposing side scores the current stage."""

    seat: str
    side: Side
    points: int
    scorer: Side


class SidePayloadRecords(TypedDict):
    """Each side's delivered Payload, whole trigger records."""

    pilots: list[FiredTrigger]
    coach: list[FiredTrigger]


@dataclass(frozen=True, kw_only=True)
class ThrowdownEnded(Payload):
    """The Throwdown's end: scores, winner (none when called off) and the Payloads in the order they resolve."""

    winner: Side | None
    winners: list[str]
    scores: SideScores
    conceded_by: Side | None
    called_off: bool
    payload_order: list[Side]
    payloads: SidePayloadRecords


@dataclass(frozen=True, kw_only=True)
class PilesCleared(Payload):
    """Every card on the Piles goes to its Trash."""

    cards: list[str]
