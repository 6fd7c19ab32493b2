"""Every event kind Toy Swap records, as typed payloads; what the verifier re-derives of them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from domain.chance import ShuffleDescriptor
from domain.event_types import EventTypes, Payload, hidden
from domain.ruleset import Event

from .shapes import ToyState


@dataclass(frozen=True, kw_only=True)
class DeckShuffled(Payload):
    """The deck was shuffled, in secret (organizers only)."""

    deck_size: int
    chance: ShuffleDescriptor
    chance_result: list[int] = hidden()


@dataclass(frozen=True, kw_only=True)
class CardDealt(Payload):
    """A seat was dealt the top card of the deck, seen by that seat alone."""

    seat: str
    card: int = hidden()


@dataclass(frozen=True, kw_only=True)
class CardHeld(Payload):
    """A seat kept its card."""

    seat: str


@dataclass(frozen=True, kw_only=True)
class CardSwapped(Payload):
    """A seat put its card under the deck and took the top card, seen by that seat alone."""

    seat: str
    card: int = hidden()


@dataclass(frozen=True, kw_only=True)
class CardsShown(Payload):
    """Both seats showed their cards; the records that dealt them are open to everyone."""

    cards: dict[str, int]


@dataclass(frozen=True, kw_only=True)
class GameEnded(Payload):
    """The game ended: the higher card won, or a seat ran out of time or resigned (and forfeited)."""

    reason: Literal["showdown", "time", "resignation"]
    forfeited: str | None = None


EVENTS = EventTypes(DeckShuffled, CardDealt, CardHeld, CardSwapped, CardsShown, GameEnded)


def top_card(state: ToyState) -> dict:
    """The secret of a deal or a swap: the deck's top card."""
    return {"card": state["deck"][0]}


def derived_secret(state: ToyState, event: Event) -> dict | None:
    """The card a deal or swap takes off the replayed deck; None for other events."""
    if event.kind in (CardDealt.kind(), CardSwapped.kind()):
        return top_card(state)
    return None


def derived_public(state: ToyState, event: Event) -> dict | None:
    """The shuffle's size, the seat a deal serves, and the cards a showdown shows."""
    if event.kind == DeckShuffled.kind():
        return {"deck_size": len(state["deck"]), "chance": {"draw": "permutation", "n": len(state["deck"])}}
    if event.kind == CardDealt.kind():
        return {"seat": next((s for s in state["seats"] if s not in state["hands"]), None)}
    if event.kind == CardsShown.kind():
        return {"cards": dict(state["hands"])}
    return None
