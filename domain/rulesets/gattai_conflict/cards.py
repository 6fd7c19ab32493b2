"""The two 54-card decks: card ids, ranks and suits, and the deck moves (shuffles, draws, Omens).

Card ids carry their deck: `P.10H` is the Ten of Hearts of the Pilot Deck, `C.AS` the Ace of
Spades of the Coach Deck, `P.JK1`/`P.JK2` the Pilot Deck's Jokers. A deck's `draw` list has its
top at index 0; its `trash` has its top last; `omens` lists its Jokers set out beside it.

Decide-side helpers (`settle`, `shuffle`, `draw_cards`, `mill`) emit events on decide's scratch pad
(`shapes.ConflictPad`, `domain.decision.Decision` typed); evolve-side helpers (`apply_*`) move cards in the state and never validate.
"""

from __future__ import annotations

from collections.abc import Sequence

from .config import COACH
from .shapes import ConflictPad, DeckName, GattaiState, SealedKind, Source

DECKS = ("pilot", "coach")
PREFIX = {"pilot": "P", "coach": "C"}
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = ("S", "H", "D", "C")
RANK_VALUE = {r: i + 2 for i, r in enumerate(RANKS)}
SUIT_VALUE = {"S": 4, "H": 3, "D": 2, "C": 1}
FACES = ("J", "Q", "K")
ACE, TWO = 14, 2


def deck_cards(deck: str) -> list[str]:
    """The 54 cards of a deck in their canonical (unshuffled) order: 52 standard, then 2 Jokers."""
    p = PREFIX[deck]
    return [f"{p}.{r}{s}" for s in SUITS for r in RANKS] + [f"{p}.JK1", f"{p}.JK2"]


ALL_CARDS: frozenset[str] = frozenset(deck_cards("pilot") + deck_cards("coach"))


def deck_for(seat: str) -> DeckName:
    """The deck a seat draws from: the Coach's own, the Pilot Deck for every pilot."""
    return "coach" if seat == COACH else "pilot"


def deck_of(card: str) -> str:
    """Which deck a card belongs to (its Trash is where it goes)."""
    return "pilot" if card.startswith("P.") else "coach"


def is_joker(card: str) -> bool:
    """Whether a card is one of the Jokers (an Omen once set out)."""
    return card.endswith((".JK1", ".JK2"))


def rank(card: str) -> int:
    """The rank of a standard card: 2..10, J 11, Q 12, K 13, A 14."""
    return RANK_VALUE[card[2:-1]]


def suit(card: str) -> int:
    """The suit value of a standard card: Spades 4, Hearts 3, Diamonds 2, Clubs 1."""
    return SUIT_VALUE[card[-1]]


def flip_value(card: str) -> int:
    """A card's value for a Dissonance flip: its rank, except that an Ace counts 1."""
    return 1 if rank(card) == ACE else rank(card)


def rank_then_suit(card: str) -> tuple[int, int]:
    """The sort key of "rank, then suit"."""
    return rank(card), suit(card)


def is_face(card: str) -> bool:
    """Whether a card is a Jack, Queen or King."""
    return card[2:-1] in FACES


def gambit_beats(pilot_card: str, threshold: str) -> bool:
    """Whether the pilot's card is higher than the Threshold; a Two always beats an Ace."""
    a, b = rank(pilot_card), rank(threshold)
    if a == TWO and b == ACE:
        return True
    if a == ACE and b == TWO:
        return False
    return a > b


def counters(card: str, top: str) -> bool:
    """Whether `card` may be played onto `top` as a Counter (Ace on top: only a Two; no Ace onto a Two)."""
    a, b = rank(card), rank(top)
    if b == ACE:
        return a == TWO
    if a == ACE and b == TWO:
        return False
    return a > b


def blocks(card: str, top: str) -> bool:
    """Whether `card` blocks `top`: equal rank and equal or higher suit."""
    return rank(card) == rank(top) and suit(card) >= suit(top)


def excess(card: str, over: str) -> int:
    """By how many ranks `card` exceeds `over` (negative or zero when it does not)."""
    return rank(card) - rank(over)


# ----- evolve side --------------------------------------------------------------------------------


def new_decks() -> dict:
    """Both decks before the first shuffle: everything in canonical order, nothing in play."""
    return {d: {"draw": deck_cards(d), "trash": [], "omens": []} for d in DECKS}


def shuffle_pool(state: GattaiState, deck: str, reason: str) -> list[str]:
    """The cards a shuffle orders: the deck then its Trash, plus the spent Jokers when they return."""
    d = state["decks"][deck]
    pool = list(d["draw"]) + list(d["trash"])
    if reason == "omens_returned":
        pool += sorted(o["card"] for o in d["omens"])
    return pool


def apply_shuffle(state: GattaiState, deck: str, reason: str, permutation: Sequence[int]) -> None:
    """Replace a deck by its shuffled pool; its Trash (and returned Omens) are now in it."""
    pool = shuffle_pool(state, deck, reason)
    d = state["decks"][deck]
    d["draw"] = [pool[i] for i in permutation]
    d["trash"] = []
    if reason == "omens_returned":
        d["omens"] = []


def apply_omen_revealed(state: GattaiState, deck: str) -> None:
    """The Joker on top of the deck is set out beside it as an active Omen."""
    d = state["decks"][deck]
    d["omens"].append({"card": d["draw"].pop(0), "spent": False})


def to_trash(state: GattaiState, card: str) -> None:
    """Put a card face up on top of its deck's Trash."""
    state["decks"][deck_of(card)]["trash"].append(card)


def take(state: GattaiState, seat: str, card: str) -> None:
    """Take a card out of a seat's hand, if it is there."""
    hand = state["hands"][seat]
    if card in hand:
        hand.remove(card)


def place_sealed(
    state: GattaiState, seat: str, card: str, source: Source, version: int | None, kind: SealedKind
) -> None:
    """Move a sealed card face down onto the table and note the claim (source) and where it came from."""
    origin: Source = "hand" if card in state["hands"][seat] else "deck"
    if origin == "hand":
        take(state, seat, card)
    else:
        state["decks"][deck_of(card)]["draw"].remove(card)
    state["table"].append({"card": card, "seat": seat, "role": kind, "face_up": False})
    state["sealed"].append(
        {
            "version": version,
            "seat": seat,
            "kind": kind,
            "card": card,
            "source": source,
            "origin": origin,
            "reveal_version": None,
        }
    )


def mark_revealed(state: GattaiState, claim_version: int, card: str, version: int | None) -> None:
    """Mark the sealed play recorded at `claim_version` revealed (at `version`), and turn its card face up."""
    for entry in state["sealed"]:
        if entry["version"] == claim_version:
            entry["reveal_version"] = version
    for placed in state["table"]:
        if placed["card"] == card:
            placed["face_up"] = True


# ----- decide side --------------------------------------------------------------------------------


def omen_on_top(state: GattaiState, deck: str) -> str | None:
    """The Joker on top of a deck, to be set out as an Omen; None when the top is not a Joker."""
    d = state["decks"][deck]["draw"]
    return d[0] if d and is_joker(d[0]) else None


def settle(pad: ConflictPad, deck: str) -> None:
    """Set out any Joker on top of the deck as an Omen, and reshuffle the Trash into an empty deck."""
    while True:
        d = pad.conflict["decks"][deck]
        omen = omen_on_top(pad.conflict, deck)
        if omen is not None:
            pad.emit("OmenRevealed", {"deck": deck, "card": omen})
        elif not d["draw"] and d["trash"]:
            shuffle(pad, deck, "trash_reshuffled")
        else:
            return


def shuffle_reason(state: GattaiState, deck: str) -> str:
    """Why a deck is shuffled now: at the start, for its two spent Omens' return, or for its empty draw pile."""
    # Both Omens spent are returned by the same command that spends the second (nothing else is
    # shuffled in between), and a deck is otherwise only shuffled once its draw pile is empty.
    omens = state["decks"][deck]["omens"]
    if state["phase"] == "setup":
        return "start"
    if len(omens) == 2 and all(o["spent"] for o in omens):
        return "omens_returned"
    return "trash_reshuffled"


def shuffle_public(state: GattaiState, deck: str, reason: str) -> dict:
    """The public part of a shuffle: its pool's size, which is also the `n` its permutation draws over."""
    # A smaller `n` would silently drop the pool's cards past it (apply_shuffle keeps only the
    # permuted positions).
    n = len(shuffle_pool(state, deck, reason))
    return {"deck": deck, "reason": reason, "size": n, "chance": {"draw": "permutation", "n": n}}


def shuffle(pad: ConflictPad, deck: str, reason: str) -> None:
    """Shuffle a deck (with its Trash, and its returning Jokers) from the match's randomness."""
    public = shuffle_public(pad.conflict, deck, reason)
    drawn = pad.chance.permutation(pad.purpose(f"shuffle-{deck}"), public["chance"]["n"])
    pad.emit_chance("DeckShuffled", drawn, {k: v for k, v in public.items() if k != "chance"})


def drawn_secret(state: GattaiState, deck: str, count: int) -> dict:
    """A CardsDrawn / ThreatStackDealt secret: the top `count` cards of the deck."""
    return {"cards": list(state["decks"][deck]["draw"][:count])}


def draw_run(state: GattaiState, deck: str, wanted: int) -> int:
    """How many of `wanted` cards one draw event takes off the deck: never past a Joker or the deck's end."""
    top = state["decks"][deck]["draw"]
    run = 0
    while run < len(top) and run < wanted and not is_joker(top[run]):
        run += 1
    return run


def draw_cards(pad: ConflictPad, seat: str, deck: str, count: int, why: str, threat: str | None = None) -> int:
    """Draw `count` cards into a hand (or onto a Threat's stack), setting out Omens on the way.

    Returns how many were drawn: fewer when the deck and its Trash run dry.
    """
    drawn = 0
    while drawn < count:
        settle(pad, deck)
        run = draw_run(pad.conflict, deck, count - drawn)
        if run == 0:
            break
        public = {"seat": seat, "deck": deck, "count": run, "why": why}
        if threat is not None:
            public["threat"] = threat
        pad.emit("ThreatStackDealt" if threat else "CardsDrawn", public, drawn_secret(pad.conflict, deck, run), (seat,))
        drawn += run
    settle(pad, deck)
    return drawn


def top_card(state: GattaiState, deck: str) -> str | None:
    """The card on top of a deck (never a Joker once settled), or None when deck and Trash are empty."""
    d = state["decks"][deck]["draw"]
    return d[0] if d and not is_joker(d[0]) else None


def mill(pad: ConflictPad, deck: str, count: int, why: str) -> None:
    """Send cards from the top of a deck face up to its Trash, one at a time (Omens set out between)."""
    for _ in range(count):
        settle(pad, deck)
        card = top_card(pad.conflict, deck)
        if card is None:
            break
        pad.emit("CardMilled", {"deck": deck, "card": card, "why": why})
    settle(pad, deck)
