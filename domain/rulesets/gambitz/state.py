"""The Gambitz state (`GambitzState`) before any event, and the fold of each event type into it (`FOLDS`).

`evolve` is `FOLDS.fold`: one function per payload type declared in events.py. It never validates.
"""

# No `from __future__ import annotations`: TypedDicts read NotRequired from evaluated annotations.

import copy

from domain.event_types import Folds
from domain.ruleset import Event

from .cards import CARDS, STACK_RANKS
from .config import Config
from .events import (
    EVENTS,
    CardPlayed,
    CardsDealt,
    CardsDrawn,
    CardsRefilled,
    CardsReturned,
    DeckShuffled,
    GameEnded,
    GameStarted,
    HandShown,
    QueenMoved,
    SeatResigned,
    SeatTimedOut,
    TurnBegan,
    TurnPassed,
)
from .shapes import GambitzState, Received


def initial_state(config: Config, seats: list[str]) -> GambitzState:
    """The table before the shuffle: the deck in catalogue order, empty hands and stacks."""
    return {
        "seats": list(seats),
        "first_seat": config.first_seat,
        "scoring": copy.deepcopy(config.scoring),
        "phase": "setup",
        "turn": None,
        "end_reason": None,
        "deck": list(CARDS),
        "hands": {seat: [] for seat in seats},
        "stacks": {rank: {"cards": [], "queen": None} for rank in STACK_RANKS},
        "points": {seat: 0 for seat in seats},
        "passed": [],  # seats that passed since the last card was played
        "redrew": False,  # the seat to act has redrawn this turn
        "shown": [],  # hands shown (by redraws, or kept with an empty deck), public for good
        # Per seat, the deal and draw records that brought cards still in its hand: their version,
        # the cards not played yet, and whether a Knight sent one of them back unseen.
        "received": {seat: [] for seat in seats},
    }


def _take(cards: list[str], taken: list[str]) -> None:
    for card in taken:
        if card in cards:
            cards.remove(card)


def _received(state: GambitzState, seat: str) -> list[Received]:
    # States snapshotted before `received` was kept lack it; they start tracking from here.
    return state.setdefault("received", {}).setdefault(seat, [])


def settle_received(state: GambitzState, seat: str, cards: list[str], tainted: bool) -> None:
    """Cards leave the hand: played face up, or (tainted) returned unseen under the deck."""
    entries = _received(state, seat)
    for entry in entries:
        gone = [card for card in entry["pending"] if card in cards]
        if gone:
            entry["pending"] = [card for card in entry["pending"] if card not in gone]
            entry["tainted"] = entry["tainted"] or tainted
    # A record all of whose cards were played shows nothing a later hand could reveal.
    entries[:] = [entry for entry in entries if entry["pending"]]


FOLDS: Folds[GambitzState] = Folds(EVENTS)


@FOLDS.on(DeckShuffled)
def _deck_shuffled(state: GambitzState, shuffled: DeckShuffled, event: Event) -> None:
    """The deck in the permuted order (the permutation is the record's secret chance result)."""
    deck = state["deck"]
    state["deck"] = [deck[i] for i in shuffled.order]


def _cards_received(state: GambitzState, received: CardsRefilled, event: Event) -> None:
    """A deal or draw: the secret cards leave the deck for the seat's hand."""
    seat, cards = received.seat, received.cards
    _take(state["deck"], cards)
    state["hands"][seat].extend(cards)
    if cards:
        _received(state, seat).append({"version": event.version, "pending": list(cards), "tainted": False})


FOLDS.on(CardsDealt)(_cards_received)
FOLDS.on(CardsDrawn)(_cards_received)


@FOLDS.on(GameStarted)
def _game_started(state: GambitzState, started: GameStarted, event: Event) -> None:
    state["phase"], state["turn"] = "play", started.first_seat


@FOLDS.on(CardPlayed)
def _card_played(state: GambitzState, played: CardPlayed, event: Event) -> None:
    """The card goes onto its stack (a Queen locks it), its points count, and the passes start over."""
    _take(state["hands"][played.seat], [played.card])
    settle_received(state, played.seat, [played.card], tainted=False)
    pile = state["stacks"][played.stack]
    if played.locks:
        pile["queen"] = played.card
    else:
        pile["cards"].append(played.card)
    state["points"][played.seat] += played.points
    state["passed"] = []


@FOLDS.on(QueenMoved)
def _queen_moved(state: GambitzState, moved: QueenMoved, event: Event) -> None:
    state["stacks"][moved.source]["queen"] = None
    state["stacks"][moved.target]["queen"] = moved.queen


@FOLDS.on(CardsReturned)
def _cards_returned(state: GambitzState, returned: CardsReturned, event: Event) -> None:
    """A Knight's return: the secret cards go from the hand under the deck, in the recorded order."""
    _take(state["hands"][returned.seat], returned.cards)
    state["deck"].extend(returned.cards)
    settle_received(state, returned.seat, returned.cards, tainted=True)


@FOLDS.on(HandShown)
def _hand_shown(state: GambitzState, shown: HandShown, event: Event) -> None:
    """A redraw's shown hand goes back into the deck and stays public; the seat has redrawn this turn.

    A hand shown with an empty deck (`kept`) stays in the seat's hand, face up: nothing moves.
    """
    if shown.kept:
        state["shown"].append({"seat": shown.seat, "cards": list(shown.cards), "kept": True})
        return
    _take(state["hands"][shown.seat], shown.cards)
    state["deck"].extend(shown.cards)
    state["shown"].append({"seat": shown.seat, "cards": list(shown.cards)})
    state["redrew"] = True
    state.setdefault("received", {})[shown.seat] = []


@FOLDS.on(TurnPassed)
def _turn_passed(state: GambitzState, passed: TurnPassed, event: Event) -> None:
    state["passed"].append(passed.seat)


@FOLDS.on(TurnBegan)
def _turn_began(state: GambitzState, began: TurnBegan, event: Event) -> None:
    state["turn"], state["redrew"] = began.seat, False


@FOLDS.on(GameEnded)
def _game_ended(state: GambitzState, ended: GameEnded, event: Event) -> None:
    state["phase"], state["turn"], state["end_reason"] = "over", None, ended.reason


@FOLDS.on(SeatTimedOut)
def _seat_timed_out(state: GambitzState, timed_out: SeatTimedOut, event: Event) -> None:
    """A seat out of time forfeits (rules.time_out): the game ends at once, and that seat cannot win."""
    state["phase"], state["turn"], state["end_reason"] = "over", None, "time"
    state["forfeited"] = timed_out.seat


@FOLDS.on(SeatResigned)
def _seat_resigned(state: GambitzState, resigned: SeatResigned, event: Event) -> None:
    """A seat that resigns forfeits exactly as one out of time does, the end recorded as a resignation."""
    state["phase"], state["turn"], state["end_reason"] = "over", None, "resignation"
    state["forfeited"] = resigned.seat


def evolve(state: GambitzState, event: Event) -> GambitzState:
    """Fold one recorded event into the state (never validates; unknown kinds change nothing)."""
    return FOLDS.fold(state, event)
