"""The Gambitz state before any event, and the fold of each recorded event into it (never validates)."""

from __future__ import annotations

import copy
from collections.abc import Callable

from domain.ruleset import Event, State

from .cards import CARDS, STACK_RANKS
from .config import Config


def initial_state(config: Config, seats: list[str]) -> State:
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


def _received(state: State, seat: str) -> list[dict]:
    # States snapshotted before `received` was kept lack it; they start tracking from here.
    return state.setdefault("received", {}).setdefault(seat, [])


def settle_received(state: State, seat: str, cards: list[str], tainted: bool) -> None:
    """Cards leave the hand: played face up, or (tainted) returned unseen under the deck."""
    entries = _received(state, seat)
    for entry in entries:
        gone = [card for card in entry["pending"] if card in cards]
        if gone:
            entry["pending"] = [card for card in entry["pending"] if card not in gone]
            entry["tainted"] = entry["tainted"] or tainted
    # A record all of whose cards were played shows nothing a later hand could reveal.
    entries[:] = [entry for entry in entries if entry["pending"]]


def _shuffled(state: State, event: Event) -> None:
    """The deck in the permuted order (its result is public or, as Gambitz records it, secret)."""
    order = (
        event.public["chance_result"]
        if "chance_result" in event.public
        else (event.secret or {}).get("chance_result", [])
    )
    deck = state["deck"]
    state["deck"] = [deck[i] for i in order]


def _cards_received(state: State, event: Event) -> None:
    """A deal or draw: the secret cards leave the deck for the seat's hand."""
    seat, cards = event.public["seat"], (event.secret or {}).get("cards", [])
    _take(state["deck"], cards)
    state["hands"][seat].extend(cards)
    if cards:
        _received(state, seat).append({"version": event.version, "pending": list(cards), "tainted": False})


def _game_started(state: State, event: Event) -> None:
    state["phase"], state["turn"] = "play", event.public["first_seat"]


def _card_played(state: State, event: Event) -> None:
    """The card goes onto its stack (a Queen locks it), its points count, and the passes start over."""
    pub = event.public
    _take(state["hands"][pub["seat"]], [pub["card"]])
    settle_received(state, pub["seat"], [pub["card"]], tainted=False)
    pile = state["stacks"][pub["stack"]]
    if pub["locks"]:
        pile["queen"] = pub["card"]
    else:
        pile["cards"].append(pub["card"])
    state["points"][pub["seat"]] += pub["points"]
    state["passed"] = []


def _queen_moved(state: State, event: Event) -> None:
    pub = event.public
    state["stacks"][pub["from"]]["queen"] = None
    state["stacks"][pub["to"]]["queen"] = pub["queen"]


def _cards_returned(state: State, event: Event) -> None:
    """A Knight's return: the secret cards go from the hand under the deck, in the recorded order."""
    seat, cards = event.public["seat"], (event.secret or {}).get("cards", [])
    _take(state["hands"][seat], cards)
    state["deck"].extend(cards)
    settle_received(state, seat, cards, tainted=True)


def _hand_shown(state: State, event: Event) -> None:
    """A redraw's shown hand goes back into the deck and stays public; the seat has redrawn this turn.

    A hand shown with an empty deck (`kept`) stays in the seat's hand, face up: nothing moves.
    """
    pub = event.public
    if pub.get("kept"):
        state["shown"].append({"seat": pub["seat"], "cards": list(pub["cards"]), "kept": True})
        return
    _take(state["hands"][pub["seat"]], pub["cards"])
    state["deck"].extend(pub["cards"])
    state["shown"].append({"seat": pub["seat"], "cards": list(pub["cards"])})
    state["redrew"] = True
    state.setdefault("received", {})[pub["seat"]] = []


def _turn_passed(state: State, event: Event) -> None:
    state["passed"].append(event.public["seat"])


def _turn_began(state: State, event: Event) -> None:
    state["turn"], state["redrew"] = event.public["seat"], False


def _game_ended(state: State, event: Event) -> None:
    state["phase"], state["turn"], state["end_reason"] = "over", None, event.public["reason"]


def _seat_timed_out(state: State, event: Event) -> None:
    """A seat out of time forfeits (rules.time_out): the game ends at once, and that seat cannot win."""
    state["phase"], state["turn"], state["end_reason"] = "over", None, "time"
    state["forfeited"] = event.public["seat"]


_EVOLVERS: dict[str, Callable[[State, Event], None]] = {
    "DeckShuffled": _shuffled,
    "CardsDealt": _cards_received,
    "CardsDrawn": _cards_received,
    "GameStarted": _game_started,
    "CardPlayed": _card_played,
    "QueenMoved": _queen_moved,
    "CardsReturned": _cards_returned,
    "HandShown": _hand_shown,
    "TurnPassed": _turn_passed,
    "TurnBegan": _turn_began,
    "GameEnded": _game_ended,
    "SeatTimedOut": _seat_timed_out,
}


def evolve(state: State, event: Event) -> State:
    """Fold one recorded event into the state (never validates; unknown kinds change nothing)."""
    evolver = _EVOLVERS.get(event.kind)
    if evolver is not None:
        evolver(state, event)
    return state
