"""The Gambitz deck and its scoring data: 60 cards of 4 suits and 15 ranks, the stacks, the default table."""

from __future__ import annotations

SUITS = ("blue", "green", "red", "yellow")
RANKS = ("queen", "king", "bishop", "knight", "castle") + tuple(str(n) for n in range(1, 11))
STACK_RANKS = RANKS[1:]  # Queens have no stack of their own.
CARDS = tuple(f"{rank}-{suit}" for rank in RANKS for suit in SUITS)
KNOWN_CARDS = frozenset(CARDS)
HAND_SIZE = 3
STACK_LIMIT = 4
POWER_POSITIONS = (2, 3)  # the 2nd and 3rd Bishop / Knight have a power

DEFAULT_SCORING: dict[str, dict[str, int]] = {
    "number": {"1": 0, "2": 1, "3": 3, "4": 1, "hand": -1},
    "king": {"1": 5, "2": 5, "3": 5, "4": 5, "hand": -5},
    "queen": {"4": 2, "hand": -2},
    "bishop": {"1": 1, "2": 2, "3": 2, "4": 1, "hand": -2},
    "knight": {"1": 1, "2": 2, "3": 2, "4": 1, "hand": -3},
    "castle": {"1": 1, "2": 1, "3": 1, "4": 1, "hand": -1},
}


# Every known card's rank, looked up rather than parsed: the legal moves ask for ranks hundreds of times a call.
_RANKS_OF = {f"{rank}-{suit}": rank for rank in RANKS for suit in SUITS}


def rank_of(card: str) -> str:
    """The rank of a card id ("7-blue" -> "7")."""
    rank = _RANKS_OF.get(card)
    return rank if rank is not None else card.rsplit("-", 1)[0]


def suit_of(card: str) -> str:
    """The suit of a card id ("7-blue" -> "blue")."""
    return card.rsplit("-", 1)[1]


def group_of(rank: str) -> str:
    """The scoring-table row of a rank: "number" for 1-10, else the rank itself."""
    return "number" if rank.isdigit() else rank


def has_power(rank: str, position: int) -> bool:
    """Whether playing a card of this rank at this position grants the Bishop's or the Knight's power."""
    return rank in ("bishop", "knight") and position in POWER_POSITIONS
