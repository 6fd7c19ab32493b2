"""The secrets of gambit-tcg and the public parts the state fixes, built once for `decide`/`setup` and the verifier.

Which part of each secret the rules fix (`derived_secret`), and which is a seat's choice:
- DeckRegistered: a preconstructed deck's list is the rules page's; a custom list is the seat's.
- DeckShuffled: its secret is the chance result itself, which the verifier re-derives.
- CardsDrawn: the ids of the cards on top of the deck (instances are numbered by shuffled
  position, so the shuffle and the deck list fix which card each one is).
- CardSet: the set card's identity and type follow from the state; its trap window is a choice.
- SetCardRevealed, TrapActivated and a face-down CardPlayed open a set card: its identity and
  the window declared when it was set are all in the state.

`derived_public` binds the public parts the same way. Fixed by the state: every shuffle's size
(the registered list), the instances a draw takes off the top of the deck and how many (the
opening hands, the draw phase's refill), what every card shown face up is (`id`, `type`, a
payment's discards, a destroyed unit's item, the field), who acts and on which turn, who a trap
window asks, a combat's damage and the turn limit's verdict. A seat's choices stay free: what
it plays or sets and with which choices and payment, attacks and blocks, passing; so do the
amounts an effect deals or boosts by and how many cards a draw effect takes (the resolving
card is not named in those records), and which seat decked out.
"""

from __future__ import annotations

from domain.ruleset import Event

from .cards import CARDS, DECK_SIZE, DECKS, MAX_HAND, OPENING_HAND, SEATS, STARTING_LIFE, energy_value
from .state import active_on, find_set, ready_turn


def deck_secret(deck_name: str | None, cards: list[str]) -> dict:
    """A DeckRegistered secret: the deck's name (None for a custom list) and its 30 card ids."""
    return {"deck": deck_name, "cards": list(cards)}


def registered_public(state: dict) -> dict:
    """The public part of registering a deck: the next seat without one, and the size every deck has."""
    seat = next((s for s in state["seats"] if not state["players"][s]["deck_list"]), None)
    return {"seat": seat, "size": DECK_SIZE}


def shuffle_public(state: dict) -> dict:
    """The public part of a deck's shuffle: the registered, unshuffled deck, and `n` its whole list."""
    # A smaller `n` would leave cards of the list out of the deck (evolve numbers only the
    # permuted positions).
    seat = next((s for s in state["seats"] if state["players"][s]["deck_list"] and not any(
        instance.startswith(f"{s}-") for instance in state["cards"])), None)
    size = len(state["players"][seat]["deck_list"]) if seat is not None else 0
    return {"seat": seat, "chance": {"draw": "permutation", "n": size}}


def started_public() -> dict:
    """The public part of the game's start: p1 first, the starting life, the opening hands, p2's free set."""
    return {"first_seat": SEATS[0], "life": STARTING_LIFE, "opening_hands": dict(OPENING_HAND),
            "free_set_for": SEATS[1]}


def drawn_public(state: dict, seat: str, count: int, reason: str) -> dict:
    """The public part of a draw: the instances taken off the top of the deck (fewer when it runs out)."""
    deck = state["players"][seat]["deck"]
    drawn = deck[:count]
    return {"seat": seat, "cards": list(drawn), "reason": reason, "deck_size": len(deck) - len(drawn)}


def due_draw(state: dict) -> tuple[str, str, int] | None:
    """(seat, reason, count) of the draw the rules owe now (opening hands, the draw phase); None for an effect's."""
    if state["phase"] == "setup":
        seat = next((s for s in state["seats"] if not state["players"][s]["hand"]), None)
        return (seat, "opening", OPENING_HAND.get(seat, 0)) if seat is not None else None
    if state["phase"] == "draw" and state["window"] is None:
        # Inside the draw phase's own trap window only a trap's effect draws.
        seat = state["active"]
        return seat, "draw_phase", max(0, MAX_HAND - len(state["players"][seat]["hand"]))
    return None


def set_public(state: dict, seat: str, card: str, free: bool) -> dict:
    """The public part of setting a card: that a card was set, on which turn, and the first turn it may fire."""
    turn = state["turn"]
    return {"seat": seat, "card": card, "set_turn": turn, "ready_turn": ready_turn(turn, seat), "free": free}


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


def derived_public(state: dict, event: Event) -> dict | None:
    """The part of an event's public record that the state and chance fix; None when it is all a choice."""
    # The decide-side modules import this one, so their builders are imported when first needed.
    from . import combat, effects, phases, play, traps
    kind, pub = event.kind, event.public
    active = state["active"]
    if kind == "DeckRegistered":
        return registered_public(state)
    if kind == "DeckShuffled":
        return shuffle_public(state)
    if kind == "CardsDrawn":
        due = due_draw(state)
        if due is None:
            # An effect's draw: its count is the card's, but the cards are still the deck's top.
            return drawn_public(state, pub["seat"], len(pub["cards"]), "effect")
        seat, reason, count = due
        return drawn_public(state, seat, count, reason)
    if kind == "GameStarted":
        return started_public()
    if kind == "FreeSetDeclined":
        return {"seat": SEATS[1]}
    if kind == "CardSet":
        free = state["phase"] == "free_set"
        return set_public(state, SEATS[1] if free else active, pub["card"], free)
    if kind == "TurnBegan":
        return {"seat": active_on(state["turn"] + 1), "turn": state["turn"] + 1}
    if kind in ("PhaseBegan", "TurnEnded"):
        return {"seat": active, "turn": state["turn"]}
    if kind == "TurnLimitReached":
        return phases.turn_limit_public(state)
    if kind == "WindowOpened":
        return {"responders": phases.window_responders(state), "turn": state["turn"], "active": active}
    if kind in ("WindowPassed", "WindowClosed"):
        return {"window": (state["window"] or {}).get("name")}
    if kind == "CardEnergized":
        card_id = state["cards"][pub["card"]]
        return {"seat": active, "id": card_id, "value": energy_value(card_id)}
    if kind == "CardPlayed":
        discard = [d["card"] for d in pub["paid"]["discard"]]
        return play.played_public(state, active, pub["card"], pub["choices"], pub["paid"]["energy"], discard)
    if kind in ("SpellResolved", "SpellNullified"):
        return effects.pending_spell_public(state)
    if kind == "TrapActivated":
        discard = [d["card"] for d in pub["paid"]["discard"]]
        return traps.activated_public(state, pub["card"], pub["choices"], pub["paid"]["energy"], discard)
    if kind == "SetCardRevealed":
        return effects.revealed_public(state, pub["card"])
    if kind == "UnitSacrificed":
        return effects.sacrificed_public(state, pub["unit"])
    if kind == "UnitDestroyed":
        return phases.destroyed_public(state, pub["unit"]) or {"unit": None}
    if kind == "FieldDestroyed":
        return effects.field_public(state)
    if kind == "AttackDeclared":
        return {"seat": active}
    if kind in ("BlocksAwaited", "BlockersAssigned"):
        combat_now = state["combat"]
        return {"seat": combat_now["target"], **({"attackers": list(combat_now["attackers"])}
                                                 if kind == "BlocksAwaited" else {})}
    if kind == "CombatResolved":
        return combat.combat_public(state)
    if kind == "SeatLost" and pub.get("reason") == "zero_life":
        return {"seats": [s for s in state["seats"] if state["players"][s]["life"] <= 0]}
    return None
