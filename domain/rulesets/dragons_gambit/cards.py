"""The deck, the match config and the command set of The Dragon's Gambit."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from domain.ruleset import Command, ConfigError

RULESET_ID = "dragons-gambit"

GRID_SLOTS = 4
NEAR_ROW = (2, 3)
MIN_SEATS, MAX_SEATS = 2, 6


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


@dataclass(frozen=True)
class Config:
    """The match config: seats, who opens, the initial peek, the caller's penalty, the target."""

    players: int = 2
    first_seat: str = "p1"
    initial_peek: str = "near"
    caller_penalty: int = 10
    target_score: int = 100
    memory_aid: bool = True

    def validate(self) -> None:
        """Raise ConfigError for a config the game cannot be played with."""
        if not MIN_SEATS <= self.players <= MAX_SEATS:
            raise ConfigError("players", f"must be an integer from {MIN_SEATS} to {MAX_SEATS}")
        if self.first_seat not in seat_names(self):
            raise ConfigError("first_seat", f"must be one of {', '.join(seat_names(self))}")
        if self.initial_peek not in ("near", "choose"):
            raise ConfigError("initial_peek", "must be 'near' or 'choose'")
        # Generous where the seed is silent: a penalty up to 100 times the default, and a
        # target up to 10**6, which no match reaches (bench/longmatch.py plays such endless matches).
        if not 0 <= self.caller_penalty <= 1000:
            raise ConfigError("caller_penalty", "must be an integer from 0 to 1000")
        if not 1 <= self.target_score <= 1_000_000:
            raise ConfigError("target_score", "must be an integer from 1 to 1000000")


def catalogue() -> dict:
    """The public deck: every card id with its face value, and the ability of each special face."""
    return {"cards": [{"id": card, "face": FACE[card]} for card in CARD_IDS],
            "abilities": {str(face): name for face, name in ABILITIES.items()}, "grid_slots": GRID_SLOTS}


def seat_names(config: Config) -> list[str]:
    """The seats p1..pN in turn order."""
    return [f"p{i}" for i in range(1, config.players + 1)]


@dataclass(frozen=True)
class PeekCards(Command):
    """Initial peek with `initial_peek: choose`: look at two distinct slots of your own grid."""

    type: ClassVar[str] = "peek"
    first_slot: int
    second_slot: int


@dataclass(frozen=True)
class DrawCard(Command):
    """Draw the top of the draw pile; only you see it."""

    type: ClassVar[str] = "draw"


@dataclass(frozen=True)
class SwapDrawnCard(Command):
    """Put the drawn card into a slot; the old card goes face up on the discard pile."""

    type: ClassVar[str] = "swap"
    slot: int


@dataclass(frozen=True)
class DiscardDrawnCard(Command):
    """Discard the drawn card face up; an 8–12 then offers its ability."""

    type: ClassVar[str] = "discard"


@dataclass(frozen=True)
class AddToken(Command):
    """Ability of 8 (+1) or 11 (−1): put a token on any seat's card."""

    type: ClassVar[str] = "add_token"
    seat: str
    slot: int


@dataclass(frozen=True)
class PeekOtherCard(Command):
    """Ability of 9: look at one card of another seat."""

    type: ClassVar[str] = "peek_other"
    seat: str
    slot: int


@dataclass(frozen=True)
class PeekOwnCard(Command):
    """Ability of 10: look at one of your own cards."""

    type: ClassVar[str] = "peek_own"
    slot: int


@dataclass(frozen=True)
class BlindSwap(Command):
    """Ability of 12: swap one of your cards with another seat's card, unseen by both."""

    type: ClassVar[str] = "blind_swap"
    slot: int
    other_seat: str
    other_slot: int


@dataclass(frozen=True)
class SkipAbility(Command):
    """Decline the ability of the card just discarded."""

    type: ClassVar[str] = "skip_ability"


@dataclass(frozen=True)
class TakeDiscard(Command):
    """Take the top discard into a slot; the old card goes face up on the discard pile."""

    type: ClassVar[str] = "take_discard"
    slot: int


@dataclass(frozen=True)
class CallFinalGambit(Command):
    """Call "Final Gambit": every other seat takes one more turn, then the round ends."""

    type: ClassVar[str] = "call_final_gambit"


COMMANDS: tuple[type[Command], ...] = (
    PeekCards, DrawCard, SwapDrawnCard, DiscardDrawnCard, AddToken, PeekOtherCard, PeekOwnCard, BlindSwap,
    SkipAbility, TakeDiscard, CallFinalGambit,
)

# Which ability command answers which face.
ABILITY_COMMAND: dict[int, type[Command]] = {8: AddToken, 9: PeekOtherCard, 10: PeekOwnCard, 11: AddToken, 12: BlindSwap}
