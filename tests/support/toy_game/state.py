"""The Toy Swap state before any event, and the fold of each recorded event into it (never validates)."""

from __future__ import annotations

from domain.event_types import Folds
from domain.ruleset import Event

from .config import Config
from .events import EVENTS, CardDealt, CardHeld, CardsShown, CardSwapped, DeckShuffled, GameEnded
from .shapes import ToyState

DECK = [1, 2, 3, 4, 5, 6]


def initial_state(config: Config, seats: list[str]) -> ToyState:
    """The table before the shuffle: the deck in order, no cards dealt."""
    return {
        "seats": list(seats),
        "phase": "deal",
        "turn": config.first_seat,
        "deck": list(DECK),
        "hands": {},
        "dealt_at": {},
        "acted": [],
        "shown": False,
        "end_reason": None,
        "forfeited": None,
    }


FOLDS: Folds[ToyState] = Folds(EVENTS)


def evolve(state: ToyState, event: Event) -> ToyState:
    """Fold one recorded event into the state (unknown kinds change nothing)."""
    return FOLDS.fold(state, event)


@FOLDS.on(DeckShuffled)
def _shuffled(state: ToyState, shuffled: DeckShuffled, event: Event) -> None:
    state["deck"] = [state["deck"][i] for i in shuffled.chance_result]


@FOLDS.on(CardDealt)
def _dealt(state: ToyState, dealt: CardDealt, event: Event) -> None:
    state["deck"].remove(dealt.card)
    state["hands"][dealt.seat] = dealt.card
    state["dealt_at"][dealt.seat] = event.version or 0
    if len(state["hands"]) == len(state["seats"]):
        state["phase"] = "play"


@FOLDS.on(CardHeld)
def _held(state: ToyState, held: CardHeld, event: Event) -> None:
    _acted(state, held.seat)


@FOLDS.on(CardSwapped)
def _swapped(state: ToyState, swapped: CardSwapped, event: Event) -> None:
    state["deck"].remove(swapped.card)
    state["deck"].append(state["hands"][swapped.seat])
    state["hands"][swapped.seat] = swapped.card
    state["dealt_at"][swapped.seat] = event.version or 0
    _acted(state, swapped.seat)


def _acted(state: ToyState, seat: str) -> None:
    state["acted"].append(seat)
    waiting = [s for s in state["seats"] if s not in state["acted"]]
    state["turn"] = waiting[0] if waiting else None


@FOLDS.on(CardsShown)
def _shown(state: ToyState, shown: CardsShown, event: Event) -> None:
    state["shown"] = True


@FOLDS.on(GameEnded)
def _ended(state: ToyState, ended: GameEnded, event: Event) -> None:
    state["phase"], state["turn"], state["end_reason"], state["forfeited"] = "over", None, ended.reason, ended.forfeited
