"""The deck and the table of The Dragon's Gambit: card ids and faces, abilities, grids, deals and reshuffles."""

from __future__ import annotations

GRID_SLOTS = 4
NEAR_ROW = (2, 3)


def _deck_faces() -> list[int]:
    # 0 and 13 twice each, 1..12 four times each: 2 + 48 + 2 = 52 cards.
    return [0, 0] + [value for value in range(1, 13) for _ in range(4)] + [13, 13]


# Every physical card has a stable id so conservation and the unseen swap can be checked card by
# card. An id determines the face, so an id is exactly as secret as the card's value.
CARD_IDS: tuple[str, ...] = tuple(f"c{i:02d}" for i in range(52))
FACE: dict[str, int] = dict(zip(CARD_IDS, _deck_faces()))

# Special abilities by face, triggered only when a freshly drawn card is discarded straight away.
ABILITIES: dict[int, str] = {8: "plus_token", 9: "peek_other", 10: "peek_own", 11: "minus_token", 12: "blind_swap"}
TOKEN_DELTA: dict[int, int] = {8: 1, 11: -1}


def is_valid_slot(slot: object) -> bool:
    """A grid slot is an int 0..3 (0, 1 far row; 2, 3 near row)."""
    return isinstance(slot, int) and not isinstance(slot, bool) and 0 <= slot < GRID_SLOTS


def card_value(state: dict, card: str) -> int:
    """A card's value: its face plus the tokens on it."""
    return FACE[card] + state["tokens"].get(card, 0)


def deal_layout(permutation: list[int], seats: list[str]) -> tuple[dict[str, list[str]], list[str]]:
    """Grids and draw pile from a shuffle: cards go round the table, slot 0 first, like a dealer's."""
    order = [CARD_IDS[i] for i in permutation]
    grids: dict[str, list[str]] = {s: [] for s in seats}
    position = 0
    for _slot in range(GRID_SLOTS):
        for seat in seats:
            grids[seat].append(order[position])
            position += 1
    return grids, order[position:]


def reshuffled_pile(discard: list[str], permutation: list[int]) -> list[str]:
    """The new draw pile: the discard pile without its top card, in the drawn order."""
    pool = discard[:-1]
    return [pool[i] for i in permutation]
