"""The commands of Toy Swap, keep the card, trade it for the top of the deck or give up, and the phase they belong to."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from domain.ruleset import Command, Phases


@dataclass(frozen=True)
class HoldCard(Command):
    """Keep the card in hand."""

    type: ClassVar[str] = "hold"


@dataclass(frozen=True)
class SwapCard(Command):
    """Trade the card in hand, unseen, for the top card of the deck."""

    type: ClassVar[str] = "swap"


@dataclass(frozen=True)
class Resign(Command):
    """Give up on your turn: you forfeit, as when your time runs out."""

    type: ClassVar[str] = "resign"


COMMANDS = (HoldCard, SwapCard, Resign)

# All are taken in play, each seat on its turn; nothing while the cards are dealt or once they are shown.
PHASES = Phases({"deal": (), "play": (HoldCard, SwapCard, Resign), "over": ()})

# No body holds a secret: the cards stay in the events' secrets (domain/ruleset.py, SECRET_COMMANDS).
SECRET_COMMANDS: frozenset[str] = frozenset()
