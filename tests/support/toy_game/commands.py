"""The two commands of Toy Swap, keep the card or trade it for the top of the deck, and the phase they belong to."""

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


COMMANDS = (HoldCard, SwapCard)

# Both are taken in play, each seat on its turn; nothing while the cards are dealt or once they are shown.
PHASES = Phases({"deal": (), "play": (HoldCard, SwapCard), "over": ()})

# Neither body holds a secret: the cards stay in the events' secrets (domain/ruleset.py, SECRET_COMMANDS).
SECRET_COMMANDS: frozenset[str] = frozenset()
