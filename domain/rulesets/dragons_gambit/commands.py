"""The commands of The Dragon's Gambit: the initial peek, the three turn choices and the abilities."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from domain.ruleset import Command, Phases


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


@dataclass(frozen=True)
class Resign(Command):
    """Give up when the match waits for you: you forfeit as if your time had run out, recorded as a resignation."""

    type: ClassVar[str] = "resign"


COMMANDS: tuple[type[Command], ...] = (
    PeekCards,
    DrawCard,
    SwapDrawnCard,
    DiscardDrawnCard,
    AddToken,
    PeekOtherCard,
    PeekOwnCard,
    BlindSwap,
    SkipAbility,
    TakeDiscard,
    CallFinalGambit,
    Resign,
)

# A round opens with the initial peek (waited for only with `initial_peek: choose`); every other
# command is a turn's: draw, take from the discard or call Final Gambit, then resolve the drawn
# card and its ability. A seat the match waits for may resign in either. Nothing is done while a
# round is dealt or scored, or after the end.
PHASES = Phases(
    {
        "dealing": (),
        "peek": (PeekCards, Resign),
        "turn": tuple(cls for cls in COMMANDS if cls is not PeekCards),
        "scoring": (),
        "over": (),
    }
)

# The commands that use an ability, and which of them answers which face.
ABILITY_COMMANDS: tuple[type[Command], ...] = (AddToken, PeekOtherCard, PeekOwnCard, BlindSwap)
ABILITY_COMMAND: dict[int, type[Command]] = {
    8: AddToken,
    9: PeekOtherCard,
    10: PeekOwnCard,
    11: AddToken,
    12: BlindSwap,
}

# The command types whose body holds a secret: none (every body names public positions and choices; the cards stay in the events' secrets); the conformance kit checks it.
SECRET_COMMANDS: frozenset[str] = frozenset()
