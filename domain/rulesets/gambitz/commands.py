"""The Gambitz commands: play a card (with a Bishop's or a Knight's power), pass, redraw a stuck hand, resign."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from domain.ruleset import Command, Phases

from .cards import rank_of


@dataclass(frozen=True)
class PlayCard(Command):
    """Play a card from hand onto its stack (a Queen names the stack it locks), with optional powers.

    `move_queen_from`/`move_queen_to`: a 2nd or 3rd Bishop's Queen move. `knight_return`: a 2nd
    or 3rd Knight's cards to put on the bottom of the deck, in that order (the order is part of
    the move: it decides which returned card a short deck hands back, and who draws each later).

    A card other than a Queen naming its own rank's stack, and an empty `knight_return`, say no
    more than leaving the field out: they are dropped on construction, so each move has exactly
    one body however a client spells it (the listing, the idempotency fingerprint and decide all
    see that one).
    """

    type: ClassVar[str] = "play"
    card: str
    stack: str | None = None
    move_queen_from: str | None = None
    move_queen_to: str | None = None
    knight_return: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if isinstance(self.card, str) and rank_of(self.card) != "queen" and self.stack == rank_of(self.card):
            object.__setattr__(self, "stack", None)
        if isinstance(self.knight_return, (tuple, list)) and not self.knight_return:
            object.__setattr__(self, "knight_return", None)


@dataclass(frozen=True)
class PassTurn(Command):
    """Pass: allowed only when no card in hand can be played and no redraw is due.

    A stuck hand (three Queens, or two and a locked card) with an empty deck cannot be redrawn:
    the pass shows it to everyone first, the first time the seat passes with it.
    """

    type: ClassVar[str] = "pass"


@dataclass(frozen=True)
class RedrawHand(Command):
    """Show and return a hand of three Queens (or two Queens and a locked card), reshuffle, draw 3."""

    type: ClassVar[str] = "redraw"


@dataclass(frozen=True)
class Resign(Command):
    """Give up on your turn: the game ends at once as if your time had run out, recorded as a resignation."""

    type: ClassVar[str] = "resign"


COMMANDS = (PlayCard, PassTurn, RedrawHand, Resign)

# Every command (giving up too) is taken in play, on the seat's own turn; nothing before the deal or after the end.
PHASES = Phases({"setup": (), "play": (PlayCard, PassTurn, RedrawHand, Resign), "over": ()})

# The command types whose body holds a secret (a Knight's returned cards go to the deck's bottom unseen): recorded as a committed secret
# for the seat until the match ends (docs/verification.md, section 2); the conformance kit checks it.
SECRET_COMMANDS: frozenset[str] = frozenset({"play"})
