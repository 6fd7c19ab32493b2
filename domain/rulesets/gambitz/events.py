"""The parts of each Gambitz event kind, built from the state before it; what the verifier re-derives.

decide and setup (rules.py) build every public part and every dealt or drawn secret with these
functions, and `derived_public` / `derived_secret` call the same ones on the replayed state, so
the record and its check can never disagree. Only the seat whose turn it is ever acts.
"""

from __future__ import annotations

from domain.ruleset import Event, State

from .cards import HAND_SIZE, group_of, rank_of
from .table import next_position


def shuffle_public(state: State) -> dict:
    """The public part of a shuffle of the whole deck: why, its size, and the size the permutation draws over."""
    # The deck is shuffled at setup and for a redraw only, and always whole: a smaller `n` would
    # drop the cards past it (evolve keeps only the permuted positions).
    size = len(state["deck"])
    return {
        "reason": "setup" if state["phase"] == "setup" else "redraw",
        "deck_size": size,
        "chance": {"draw": "permutation", "n": size},
    }


def refill(state: State, seat: str) -> dict:
    """The secret of a deal or draw: the top cards of the deck that bring the hand back to three."""
    # Every deal and draw is this refill: the opening deal, "draw 1 + k" after a play (the hand
    # holds 3 while the deck has cards; once it is empty only returned cards come back) and the
    # redraw's 3 after the hand was returned.
    count = max(HAND_SIZE - len(state["hands"][seat]), 0)
    return {"cards": state["deck"][:count]}


def refill_public(state: State, seat: str) -> dict:
    """The public part of a deal or draw: how many cards the refill takes, and the deck's size after."""
    count = len(refill(state, seat)["cards"])
    return {"seat": seat, "count": count, "deck_size": len(state["deck"]) - count}


def dealt_seat(state: State) -> str | None:
    """The seat the opening deal serves next: the first, in seat order, with no cards yet."""
    return next((seat for seat in state["seats"] if not state["hands"][seat]), None)


def started_public(state: State) -> dict:
    """The public part of the game's start: the seats and the opening seat, as configured."""
    return {"seats": list(state["seats"]), "first_seat": state["first_seat"]}


def played_public(state: State, seat: str, card: str, stack: str | None) -> dict:
    """The public part of a play: the stack it goes on, the position it takes and the points it scores."""
    # Only a Queen's stack is the seat's choice; every other card goes on its own rank's stack,
    # and the position and points follow from that stack and the scoring table.
    rank = rank_of(card)
    position = next_position(state, rank)
    return {
        "seat": seat,
        "card": card,
        "stack": stack if rank == "queen" else rank,
        "position": position,
        "points": state["scoring"][group_of(rank)][str(position)],
        "locks": rank == "queen",
    }


def queen_moved_public(state: State, seat: str, source: str, target: str) -> dict:
    """The public part of a Bishop's Queen move: the Queen locking `source` now locks `target`."""
    return {"seat": seat, "queen": state["stacks"][source]["queen"], "from": source, "to": target}


def returned_public(state: State, seat: str, cards: list[str]) -> dict:
    """The public part of a Knight's return: how many cards go under the deck, and its size after."""
    return {"seat": seat, "count": len(cards), "deck_size": len(state["deck"]) + len(cards)}


def shown_public(state: State, seat: str) -> dict:
    """The public part of a shown hand: the whole hand, and the deck's size once it is returned.

    A redraw returns the hand to the deck. With an empty deck there is no redraw: the stuck hand
    is shown as the seat passes and stays in its hand (`kept`), face up. Which of the two it is
    follows from the deck; `kept` is written only when true, as records before it had none.
    """
    hand = list(state["hands"][seat])
    if not state["deck"]:
        return {"seat": seat, "cards": hand, "deck_size": 0, "kept": True}
    return {"seat": seat, "cards": hand, "deck_size": len(state["deck"]) + len(hand)}


def revealed_by_showing(state: State, seat: str) -> tuple[int, ...]:
    """The deal and draw records a shown hand reveals to everyone: those that brought its cards.

    Every card such a record holds is public once the hand is shown: the rest were played face up.
    A record a Knight sent a card back from is not revealed (that card's identity stays hidden).
    What opening adds is only when each shown card arrived, of a hand that goes back into the
    deck and is reshuffled at once (a redraw) or stays face up with the seat (an empty deck).
    """
    return tuple(entry["version"] for entry in state.get("received", {}).get(seat, []) if not entry["tainted"])


def passed_public(seat: str) -> dict:
    """The public part of a pass: who passed."""
    return {"seat": seat}


def next_turn(state: State, seat: str) -> tuple[str, dict]:
    """After `seat`'s play or pass (already folded into `state`): the next seat with cards, or the end.

    The end is a fact of the rules, decided here and recorded as GameEnded (evolve only applies
    it): after a pass, the deck is empty and every seat holding cards has passed since the last
    card was played; after a play, every hand is empty. Seats with empty hands are skipped.
    """
    seats, hands = state["seats"], state["hands"]
    holding = [s for s in seats if hands[s]]
    if not holding:
        return "GameEnded", {"reason": "all_hands_empty"}
    if not state["deck"] and all(s in state["passed"] for s in holding):
        return "GameEnded", {"reason": "no_card_can_be_played"}
    at = seats.index(seat)
    following = seats[at + 1 :] + seats[: at + 1]
    return "TurnBegan", {"seat": next(s for s in following if hands[s])}


def derived_secret(state: State, event: Event) -> dict | None:
    """The cards a deal or draw takes off the replayed deck; None for other events."""
    # A shuffle's secret is only its chance result (re-derived from the seed by the verifier),
    # and the cards a Knight returns are the seat's own choice.
    if event.kind in ("CardsDealt", "CardsDrawn"):
        return refill(state, event.public["seat"])
    return None


def derived_public(state: State, event: Event) -> dict | None:
    """What the replayed state fixes of an event's public part; None when it is all a seat's choice."""
    # Everything here follows from the state but the card played (and a Queen's stack), a
    # Bishop's move and a Knight's returned cards, which are the seat's to choose; the count of
    # returned cards restates the (then opened) secret. Only the seat whose turn it is acts.
    kind, pub = event.kind, event.public
    turn = state["turn"]
    if kind == "DeckShuffled":
        return shuffle_public(state)
    if kind == "CardsDealt":
        seat = dealt_seat(state)
        # Once every seat holds its opening hand no deal is due: no recorded seat can match None.
        return {"seat": None} if seat is None else refill_public(state, seat)
    if kind == "CardsDrawn":
        return refill_public(state, turn)
    if kind == "GameStarted":
        return started_public(state)
    if kind == "CardPlayed":
        return played_public(state, turn, pub["card"], pub.get("stack"))
    if kind == "QueenMoved":
        return queen_moved_public(state, turn, pub["from"], pub["to"])
    if kind == "CardsReturned":
        cards = (event.secret or {}).get("cards")
        return {"seat": turn} if cards is None else returned_public(state, turn, cards)
    if kind == "HandShown":
        return shown_public(state, turn)
    if kind == "TurnPassed":
        return passed_public(turn)
    if kind in ("TurnBegan", "GameEnded"):
        # Which of the two follows is fixed too: the other kind's key is then missing.
        return next_turn(state, turn)[1]
    return None
