"""The secrets of gambit-tcg, built in one place for `decide`/`setup` and for the verifier.

Which part of each secret the rules fix (`derived_secret`), and which is a seat's choice:
- DeckRegistered: a preconstructed deck's list is the rules page's; a custom list is the seat's.
- DeckShuffled: its secret is the chance result itself, which the verifier re-derives.
- CardsDrawn: the ids of the cards on top of the deck (instances are numbered by shuffled
  position, so the shuffle and the deck list fix which card each one is).
- CardSet: the set card's identity and type follow from the state; its trap window is a choice.
- SetCardRevealed, TrapActivated and a face-down CardPlayed open a set card: its identity and
  the window declared when it was set are all in the state.
"""

from __future__ import annotations

from domain.ruleset import Event

from .cards import CARDS, DECKS
from .state import find_set


def deck_secret(deck_name: str | None, cards: list[str]) -> dict:
    """A DeckRegistered secret: the deck's name (None for a custom list) and its 30 card ids."""
    return {"deck": deck_name, "cards": list(cards)}


def drawn_secret(state: dict, seat: str, count: int) -> dict:
    """A CardsDrawn secret: the ids of the top `count` cards of the seat's deck, by instance."""
    return {"ids": {c: state["cards"][c] for c in state["players"][seat]["deck"][:count]}}


def card_identity(state: dict, card: str) -> dict:
    """What a card instance is: its id and type."""
    card_id = state["cards"][card]
    return {"card": card, "id": card_id, "type": CARDS[card_id]["type"]}


def set_secret(state: dict, card: str, window: str | None) -> dict:
    """A CardSet secret: the card's identity and the trap window its owner declares."""
    return {**card_identity(state, card), "window": window}


def opened_secret(state: dict, card: str) -> dict:
    """The secret of an event that turns a set card face up: its id and the window it was set for."""
    _, entry = find_set(state, card)
    return {"card": card, "id": state["cards"][card], "window": None if entry is None else entry["window"]}


_OPENING = ("SetCardRevealed", "TrapActivated", "CardPlayed")


def derived_secret(state: dict, event: Event) -> dict | None:
    """The part of an event's secret that the state and chance fix; None when it is all a choice."""
    pub = event.public
    if event.secret is None:
        return None
    if event.kind == "DeckRegistered":
        name = event.secret.get("deck")
        return {"cards": list(DECKS[name])} if name in DECKS else None
    if event.kind == "CardsDrawn":
        return drawn_secret(state, pub["seat"], len(pub["cards"]))
    if event.kind == "CardSet":
        return card_identity(state, pub["card"])
    if event.kind in _OPENING:
        return opened_secret(state, pub["card"])
    return None
