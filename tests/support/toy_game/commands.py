"""The two commands of Toy Swap: keep the card, or trade it for the top of the deck."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from domain.ruleset import Command


@dataclass(frozen=True)
class HoldCard(Command):
    """Keep the card in hand."""

    type: ClassVar[str] = "hold"


@dataclass(frozen=True)
class SwapCard(Command):
    """Trade the card in hand, unseen, for the top card of the deck."""

    type: ClassVar[str] = "swap"


COMMANDS = (HoldCard, SwapCard)
