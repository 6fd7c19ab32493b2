"""The deck and the table of The Dragon's Gambit: card ids and faces, abilities, grids, deals and reshuffles."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, cast

# The table as the helpers below read it (a DragonsState; state.py imports this module, so it is
# not named here).
Table = Mapping[str, Any]

# The faces whose card, discarded straight from the draw, grants an ability, and the abilities.
SpecialFace = Literal[8, 9, 10, 11, 12]
AbilityName = Literal["plus_token", "peek_other", "peek_own", "minus_token", "blind_swap"]

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
ABILITIES: dict[int, AbilityName] = {
    8: "plus_token",
    9: "peek_other",
    10: "peek_own",
    11: "minus_token",
    12: "blind_swap",
}
TOKEN_DELTA: dict[int, Literal[1, -1]] = {8: 1, 11: -1}


def special_face(card: str) -> SpecialFace | None:
    """The card's face when it grants an ability (discarded straight from the draw), else None."""
    face = FACE[card]
    return cast(SpecialFace, face) if face in ABILITIES else None


def is_valid_slot(slot: object) -> bool:
    """A grid slot is an int 0..3 (0, 1 far row; 2, 3 near row)."""
    return isinstance(slot, int) and not isinstance(slot, bool) and 0 <= slot < GRID_SLOTS


def card_value(state: Table, card: str) -> int:
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


def round_first_seat(state: Table, round_no: int) -> str:
    """Who opens a round: `first_seat` in round 1, then the next seat each round (house rule)."""
    seats = state["seats"]
    start = seats.index(state["config"]["first_seat"])
    return seats[(start + round_no - 1) % len(seats)]


def reshuffled_pile(discard: list[str], permutation: list[int]) -> list[str]:
    """The new draw pile: the discard pile without its top card, in the drawn order."""
    pool = discard[:-1]
    return [pool[i] for i in permutation]
