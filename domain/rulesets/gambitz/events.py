"""Every Gambitz event kind as a typed payload (`EVENTS`), and the parts each is built from.

Each kind is a frozen dataclass of its record's public and secret keys (domain/event_types.py);
the fold (state.py) dispatches on these types. decide and setup (rules.py) build every event
from the functions below (a shuffle's chance part comes from its draw), and `derived_public` /
`derived_secret` call the same ones on the replayed state, so the record and its check can never
disagree. Only the seat whose turn it is ever acts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, cast

from domain.chance import ShuffleDescriptor
from domain.event_types import EventTypes, Payload, hidden, keyed, optional
from domain.ruleset import Event

from .cards import HAND_SIZE, group_of, rank_of
from .table import next_position

if TYPE_CHECKING:
    from .shapes import GambitzState


# --- the event kinds ---------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class DeckShuffled(Payload):
    """The whole deck shuffled (at setup or for a redraw); the permutation is for organizers only."""

    reason: Literal["setup", "redraw"]
    deck_size: int
    chance: ShuffleDescriptor
    order: list[int] = hidden(key="chance_result")


@dataclass(frozen=True, kw_only=True)
class CardsMovedUnseen(Payload):
    """Cards moving between the deck and a hand: how many and the deck's size after in public, the cards for the seat."""

    seat: str
    count: int
    deck_size: int
    cards: list[str] = hidden()


@dataclass(frozen=True, kw_only=True)
class CardsRefilled(CardsMovedUnseen):
    """A seat's hand topped back up to three from the top of the deck."""


@dataclass(frozen=True, kw_only=True)
class CardsDealt(CardsRefilled):
    """A seat's opening hand, dealt at setup."""


@dataclass(frozen=True, kw_only=True)
class CardsDrawn(CardsRefilled):
    """The cards the seat draws after a play (1 + any a Knight returned) or after a redraw (3)."""


@dataclass(frozen=True, kw_only=True)
class GameStarted(Payload):
    """Every seat holds its hand: the seats, and the one that plays first."""

    seats: list[str]
    first_seat: str


@dataclass(frozen=True, kw_only=True)
class CardPlayed(Payload):
    """A card laid on a stack: the position it takes, the points it scores, whether (a Queen) it locks the stack."""

    seat: str
    card: str
    stack: str
    position: int
    points: int
    locks: bool


@dataclass(frozen=True, kw_only=True)
class QueenMoved(Payload):
    """A Bishop's power: the Queen locking one stack now locks another."""

    seat: str
    queen: str
    source: str = keyed("from")
    target: str = keyed("to")


@dataclass(frozen=True, kw_only=True)
class CardsReturned(CardsMovedUnseen):
    """A Knight's power: cards from the hand go under the deck, in this order (which the seat alone sees)."""


@dataclass(frozen=True, kw_only=True)
class HandShown(Payload):
    """A stuck hand shown to everyone: returned for a redraw, or (`kept`, the deck empty) kept face up."""

    seat: str
    cards: list[str]
    deck_size: int
    kept: bool = optional(False)


@dataclass(frozen=True, kw_only=True)
class TurnPassed(Payload):
    """A seat that could play no card passed."""

    seat: str


@dataclass(frozen=True, kw_only=True)
class TurnBegan(Payload):
    """The next seat holding cards is to play."""

    seat: str


@dataclass(frozen=True, kw_only=True)
class GameEnded(Payload):
    """The game is over: every hand is empty, or the deck is empty and every seat holding cards passed."""

    reason: Literal["all_hands_empty", "no_card_can_be_played"]


@dataclass(frozen=True, kw_only=True)
class SeatTimedOut(Payload):
    """A seat ran out of time and forfeits: the game ends at once."""

    seat: str


@dataclass(frozen=True, kw_only=True)
class SeatResigned(Payload):
    """A seat gave up on its turn: it forfeits as on a time-out, and the game ends at once."""

    seat: str


EVENTS = EventTypes(
    DeckShuffled,
    CardsDealt,
    CardsDrawn,
    GameStarted,
    CardPlayed,
    QueenMoved,
    CardsReturned,
    HandShown,
    TurnPassed,
    TurnBegan,
    GameEnded,
    SeatTimedOut,
    SeatResigned,
)


# --- the parts each event is built from ----------------------------------------------------------


def shuffle_public(state: GambitzState) -> dict:
    """The public part of a shuffle of the whole deck: why, its size, and the size the permutation draws over."""
    # The deck is shuffled at setup and for a redraw only, and always whole: a smaller `n` would
    # drop the cards past it (evolve keeps only the permuted positions).
    size = len(state["deck"])
    return {
        "reason": "setup" if state["phase"] == "setup" else "redraw",
        "deck_size": size,
        "chance": {"draw": "permutation", "n": size},
    }


def refill(state: GambitzState, seat: str, kind: type[CardsRefilled]) -> CardsRefilled:
    """A deal or draw: the top cards of the deck that bring the hand back to three, and the deck's size after."""
    # Every deal and draw is this refill: the opening deal, "draw 1 + k" after a play (the hand
    # holds 3 while the deck has cards; once it is empty only returned cards come back) and the
    # redraw's 3 after the hand was returned.
    count = max(HAND_SIZE - len(state["hands"][seat]), 0)
    cards = state["deck"][:count]
    return kind(seat=seat, count=len(cards), deck_size=len(state["deck"]) - len(cards), cards=cards)


def dealt_seat(state: GambitzState) -> str | None:
    """The seat the opening deal serves next: the first, in seat order, with no cards yet."""
    return next((seat for seat in state["seats"] if not state["hands"][seat]), None)


def game_started(state: GambitzState) -> GameStarted:
    """The game's start: the seats and the opening seat, as configured."""
    return GameStarted(seats=list(state["seats"]), first_seat=state["first_seat"])


def card_played(state: GambitzState, seat: str, card: str, stack: str | None) -> CardPlayed:
    """A play: the stack it goes on, the position it takes and the points it scores."""
    # Only a Queen's stack is the seat's choice; every other card goes on its own rank's stack,
    # and the position and points follow from that stack and the scoring table. (A Queen's
    # stack is never None once decide's checks passed; a replayed record may hold anything.)
    rank = rank_of(card)
    position = next_position(state, rank)
    return CardPlayed(
        seat=seat,
        card=card,
        stack=cast(str, stack) if rank == "queen" else rank,
        position=position,
        points=state["scoring"][group_of(rank)][str(position)],
        locks=rank == "queen",
    )


def queen_moved(state: GambitzState, seat: str, source: str, target: str) -> QueenMoved:
    """A Bishop's Queen move: the Queen locking `source` now locks `target`."""
    # decide's checks let a Bishop move a Queen only from a locked stack; on a replayed record
    # naming an unlocked one the Queen is None, which then differs from the recorded Queen.
    queen = cast(str, state["stacks"][source]["queen"])
    return QueenMoved(seat=seat, queen=queen, source=source, target=target)


def cards_returned(state: GambitzState, seat: str, cards: list[str]) -> CardsReturned:
    """A Knight's return: the cards (secret), how many go under the deck, and its size after."""
    return CardsReturned(seat=seat, count=len(cards), deck_size=len(state["deck"]) + len(cards), cards=cards)


def hand_shown(state: GambitzState, seat: str) -> HandShown:
    """A shown hand: the whole hand, and the deck's size once it is returned.

    A redraw returns the hand to the deck. With an empty deck there is no redraw: the stuck hand
    is shown as the seat passes and stays in its hand (`kept`), face up. Which of the two it is
    follows from the deck; `kept` is written only when true, as records before it had none.
    """
    hand = list(state["hands"][seat])
    if not state["deck"]:
        return HandShown(seat=seat, cards=hand, deck_size=0, kept=True)
    return HandShown(seat=seat, cards=hand, deck_size=len(state["deck"]) + len(hand))


def revealed_by_showing(state: GambitzState, seat: str) -> tuple[int, ...]:
    """The deal and draw records a shown hand reveals to everyone: those that brought its cards.

    Every card such a record holds is public once the hand is shown: the rest were played face up.
    A record a Knight sent a card back from is not revealed (that card's identity stays hidden).
    What opening adds is only when each shown card arrived, of a hand that goes back into the
    deck and is reshuffled at once (a redraw) or stays face up with the seat (an empty deck).
    """
    return tuple(
        entry["version"]
        for entry in state.get("received", {}).get(seat, [])
        if not entry["tainted"] and entry["version"] is not None
    )


def next_turn(state: GambitzState, seat: str) -> TurnBegan | GameEnded:
    """After `seat`'s play or pass (already folded into `state`): the next seat with cards, or the end.

    The end is a fact of the rules, decided here and recorded as GameEnded (evolve only applies
    it): after a pass, the deck is empty and every seat holding cards has passed since the last
    card was played; after a play, every hand is empty. Seats with empty hands are skipped.
    """
    seats, hands = state["seats"], state["hands"]
    holding = [s for s in seats if hands[s]]
    if not holding:
        return GameEnded(reason="all_hands_empty")
    if not state["deck"] and all(s in state["passed"] for s in holding):
        return GameEnded(reason="no_card_can_be_played")
    at = seats.index(seat)
    following = seats[at + 1 :] + seats[: at + 1]
    return TurnBegan(seat=next(s for s in following if hands[s]))


def derived_secret(state: GambitzState, event: Event) -> dict | None:
    """The cards a deal or draw takes off the replayed deck; None for other events."""
    # A shuffle's secret is only its chance result (re-derived from the seed by the verifier),
    # and the cards a Knight returns are the seat's own choice.
    if event.kind in ("CardsDealt", "CardsDrawn"):
        return refill(state, event.public["seat"], CardsRefilled).parts()[1]
    return None


def derived_public(state: GambitzState, event: Event) -> dict | None:
    """What the replayed state fixes of an event's public part; None when it is all a seat's choice."""
    # Everything here follows from the state but the card played (and a Queen's stack), a
    # Bishop's move and a Knight's returned cards, which are the seat's to choose; the count of
    # returned cards restates the (then opened) secret. Only the seat whose turn it is acts.
    kind, pub = event.kind, event.public
    # Nobody is on turn only before the start and after the end, when no seat's record is due:
    # one recorded then fails the replay, as it always did.
    turn = cast(str, state["turn"])
    if kind == "DeckShuffled":
        return shuffle_public(state)
    if kind == "CardsDealt":
        seat = dealt_seat(state)
        # Once every seat holds its opening hand no deal is due: no recorded seat can match None.
        return {"seat": None} if seat is None else refill(state, seat, CardsDealt).parts()[0]
    if kind == "CardsDrawn":
        return refill(state, turn, CardsDrawn).parts()[0]
    if kind == "GameStarted":
        return game_started(state).parts()[0]
    if kind == "CardPlayed":
        return card_played(state, turn, pub["card"], pub.get("stack")).parts()[0]
    if kind == "QueenMoved":
        return queen_moved(state, turn, pub["from"], pub["to"]).parts()[0]
    if kind == "CardsReturned":
        cards = (event.secret or {}).get("cards")
        return {"seat": turn} if cards is None else cards_returned(state, turn, cards).parts()[0]
    if kind == "HandShown":
        return hand_shown(state, turn).parts()[0]
    if kind == "TurnPassed":
        return TurnPassed(seat=turn).parts()[0]
    if kind in ("TurnBegan", "GameEnded"):
        # Which of the two follows is fixed too: the other kind's key is then missing.
        return next_turn(state, turn).parts()[0]
    return None
