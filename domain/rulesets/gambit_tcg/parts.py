"""The parts of gambit-tcg's events that follow from the state, built once for decide, setup and the verifier.

Every public or secret part that follows from the state is built by one function here; decide
and setup emit what it returns, and `derived_secret`/`derived_public` (events.py) hand the
verifier the same values for a recorded event, so the two can never disagree.
"""

from __future__ import annotations

from collections.abc import Iterable

from .cards import CARDS, DECK_SIZE, MAX_HAND, OPENING_HAND, SEATS, STARTING_LIFE, trap_windows
from .effects import might, play_cost
from .phases import window_responders
from .shapes import (
    TcgState,
    combat_of,
    field_of,
    find_set,
    on_turn,
    pending_of,
    ready_turn,
    set_entry,
    source_of,
    unit_in_play,
)


def deck_secret(deck_name: str | None, cards: list[str]) -> dict:
    """A DeckRegistered secret: the deck's name (None for a custom list) and its 30 card ids."""
    return {"deck": deck_name, "cards": list(cards)}


def registered_public(state: TcgState) -> dict:
    """The public part of registering a deck: the next seat without one, and the size every deck has."""
    seat = next((s for s in state["seats"] if not state["players"][s]["deck_list"]), None)
    return {"seat": seat, "size": DECK_SIZE}


def shuffle_public(state: TcgState) -> dict:
    """The public part of a deck's shuffle: the registered, unshuffled deck, and `n` its whole list."""
    # A smaller `n` would leave cards of the list out of the deck (evolve numbers only the
    # permuted positions).
    seat = next(
        (
            s
            for s in state["seats"]
            if state["players"][s]["deck_list"] and not any(instance.startswith(f"{s}-") for instance in state["cards"])
        ),
        None,
    )
    size = len(state["players"][seat]["deck_list"]) if seat is not None else 0
    return {"seat": seat, "chance": {"draw": "permutation", "n": size}}


def started_public() -> dict:
    """The public part of the game's start: p1 first, the starting life, the opening hands, p2's free set."""
    return {
        "first_seat": SEATS[0],
        "life": STARTING_LIFE,
        "opening_hands": dict(OPENING_HAND),
        "free_set_for": SEATS[1],
    }


def drawn_public(state: TcgState, seat: str, count: int, reason: str) -> dict:
    """The public part of a draw: the instances taken off the top of the deck (fewer when it runs out)."""
    deck = state["players"][seat]["deck"]
    drawn = deck[:count]
    return {"seat": seat, "cards": list(drawn), "reason": reason, "deck_size": len(deck) - len(drawn)}


def due_draw(state: TcgState) -> tuple[str, str, int] | None:
    """(seat, reason, count) of the draw the rules owe now (opening hands, the draw phase); None for an effect's."""
    if state["phase"] == "setup":
        seat = next((s for s in state["seats"] if not state["players"][s]["hand"]), None)
        return (seat, "opening", OPENING_HAND.get(seat, 0)) if seat is not None else None
    if state["phase"] == "draw" and state["window"] is None:
        # Inside the draw phase's own trap window only a trap's effect draws.
        seat = on_turn(state)
        return seat, "draw_phase", max(0, MAX_HAND - len(state["players"][seat]["hand"]))
    return None


def set_public(state: TcgState, seat: str, card: str, free: bool) -> dict:
    """The public part of setting a card: that a card was set, on which turn, and the first turn it may fire."""
    turn = state["turn"]
    return {"seat": seat, "card": card, "set_turn": turn, "ready_turn": ready_turn(turn, seat), "free": free}


def drawn_secret(state: TcgState, seat: str, count: int) -> dict:
    """A CardsDrawn secret: the ids of the top `count` cards of the seat's deck, by instance."""
    return {"ids": {c: state["cards"][c] for c in state["players"][seat]["deck"][:count]}}


def card_identity(state: TcgState, card: str) -> dict:
    """What a card instance is: its id and type."""
    card_id = state["cards"][card]
    return {"card": card, "id": card_id, "type": CARDS[card_id]["type"]}


def set_secret(state: TcgState, card: str, window: str | None) -> dict:
    """A CardSet secret: the card's identity and the trap window its owner declares."""
    return {**card_identity(state, card), "window": window}


def fixed_window(state: TcgState, card: str) -> dict:
    """The window a set card must carry when its card leaves no choice: None for a non-trap, a trap's only window."""
    card_id = state["cards"][card]
    if CARDS[card_id]["type"] != "trap":
        return {"window": None}
    windows = trap_windows(card_id)
    return {"window": windows[0]} if len(windows) == 1 else {}


def opened_secret(state: TcgState, card: str) -> dict:
    """The secret of an event that turns a set card face up: its id and the window it was set for."""
    _, entry = find_set(state, card)
    return {"card": card, "id": state["cards"][card], "window": None if entry is None else entry["window"]}


def turn_limit_public(state: TcgState) -> dict:
    """The public part of reaching the turn limit: the life totals and the one seat with the most (or none)."""
    life = {s: state["players"][s]["life"] for s in state["seats"]}
    best = max(life.values())
    winners = [s for s in state["seats"] if life[s] == best]
    return {"turn_limit": state["config"]["turn_limit"], "life": life, "winners": winners if len(winners) == 1 else []}


def window_opened_public(state: TcgState, window: str) -> dict:
    """What opening trap window `window` now fixes: the seats it asks (public facts only), the turn, who is on turn."""
    return {"responders": window_responders(state, window), "turn": state["turn"], "active": state["active"]}


def paid_record(state: TcgState, energy: Iterable[str], discard: Iterable[str]) -> dict:
    """The public record of a payment (discarded cards are face up)."""
    return {"energy": list(energy), "discard": [{"card": c, "id": state["cards"][c]} for c in discard]}


def played_public(
    state: TcgState, seat: str, card: str, choices: dict, energy: Iterable[str], discard: Iterable[str]
) -> dict:
    """The public part of playing a card: what it is, where from, its cost, the payment shown, a field replaced."""
    source, entry = source_of(state, seat, card)
    card_id = state["cards"][card]
    kind = CARDS[card_id]["type"]
    public = {
        "seat": seat,
        "card": card,
        "id": card_id,
        "type": kind,
        "from": source,
        "cost": play_cost(state, card, entry is not None and entry["revealed"]),
        "paid": paid_record(state, energy, discard),
        "target": choices.get("target"),
        "choices": {k: v for k, v in choices.items() if v is not None},
    }
    if kind == "field" and state["field"] is not None:
        old = state["field"]
        public["replaced"] = {"card": old["card"], "id": state["cards"][old["card"]], "owner": old["owner"]}
    return public


def activated_public(state: TcgState, card: str, choices: dict, energy: Iterable[str], discard: Iterable[str]) -> dict:
    """The public part of a trap's activation: its owner, what it is, the window and turn it was set for, its cost."""
    seat, entry = set_entry(state, card)
    return {
        "seat": seat,
        "card": card,
        "id": state["cards"][card],
        "type": "trap",
        "window": entry["window"],
        "set_version": entry["set_version"],
        "set_turn": entry["set_turn"],
        "turn": state["turn"],
        "on_turn_of": state["active"],
        "cost": play_cost(state, card, entry["revealed"]),
        "paid": paid_record(state, energy, discard),
        "choices": {k: v for k, v in choices.items() if v is not None},
    }


def pending_spell_public(state: TcgState) -> dict:
    """The spell waiting on the stack, as its resolution or nullification shows it: seat, card, what it is."""
    pending = pending_of(state)
    return {"seat": pending["seat"], "card": pending["card"], "id": state["cards"][pending["card"]]}


def revealed_public(state: TcgState, target: str) -> dict:
    """What revealing a face-down set card shows: its owner, what it is, a trap's window, when it was set."""
    owner, entry = set_entry(state, target)
    target_id = state["cards"][target]
    target_type = CARDS[target_id]["type"]
    return {
        "owner": owner,
        "card": target,
        "id": target_id,
        "type": target_type,
        "window": entry["window"] if target_type == "trap" else None,
        "set_version": entry["set_version"],
    }


def field_public(state: TcgState) -> dict:
    """The field card in play, as its destruction shows it: the card, what it is, its owner."""
    field = field_of(state)
    return {"card": field["card"], "id": state["cards"][field["card"]], "owner": field["owner"]}


def sacrificed_public(state: TcgState, victim: str) -> dict:
    """What sacrificing a unit shows: what it is and the item that goes with it."""
    unit = unit_in_play(state, victim)
    return {"unit": victim, "id": state["cards"][victim], "item": unit["item"]}


def destroyed_public(state: TcgState, unit: str) -> dict | None:
    """What destroying a unit in play shows: the unit, what it is, its controller and its item; None if not in play."""
    for seat in state["seats"]:
        for entry in state["players"][seat]["units"]:
            if entry["card"] == unit:
                item = entry["item"]
                return {
                    "unit": unit,
                    "id": state["cards"][unit],
                    "controller": seat,
                    "item": item,
                    "item_id": state["cards"][item] if item else None,
                }
    return None


def combat_public(state: TcgState) -> dict:
    """The damage a combat deals: blocked pairs trade Might, unblocked (unmuted) attackers hit the player."""
    combat = combat_of(state)
    by_attacker = {a: b for b, a in combat["blocks"].items()}
    unit_damage, player = [], 0
    for attacker in combat["attackers"]:
        power = 0 if attacker in combat["muted"] else might(state, unit_in_play(state, attacker))
        blocker = by_attacker.get(attacker)
        if blocker is None:
            player += power
            continue
        unit_damage.append({"unit": blocker, "amount": power, "source": attacker})
        unit_damage.append({"unit": attacker, "amount": might(state, unit_in_play(state, blocker)), "source": blocker})
    return {
        "seat": combat["seat"],
        "target": combat["target"],
        "unit_damage": unit_damage,
        "player_damage": {combat["target"]: player} if player else {},
    }
