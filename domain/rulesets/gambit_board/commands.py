"""The commands of gambit-board; each `type` is the stable JSON body type a client posts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from domain.ruleset import Command


@dataclass(frozen=True)
class AssignPowers(Command):
    """Secretly place the received powers: {"S1": ["diagonal", "moat"], "S4": ["ghost"], ...}."""

    type: ClassVar[str] = "assign"
    powers: dict[str, tuple[str, ...]]


@dataclass(frozen=True)
class MovePiece(Command):
    """Move one of your pieces, naming the powers the move relies on."""

    type: ClassVar[str] = "move"
    piece: str
    to: str
    claims: tuple[str, ...] = ()


@dataclass(frozen=True)
class Detect(Command):
    """Claim `detective` on your piece to learn an adjacent opposing piece's powers."""

    type: ClassVar[str] = "detect"
    piece: str
    target: str


@dataclass(frozen=True)
class Accept(Command):
    """Let the claim awaiting your answer stand."""

    type: ClassVar[str] = "accept"


@dataclass(frozen=True)
class CallBluff(Command):
    """Call one claim of the move, detect, moat or kamikaze awaiting your answer."""

    type: ClassVar[str] = "call_bluff"
    claim: str


@dataclass(frozen=True)
class ClaimMoat(Command):
    """Answer a move by claiming `moat` on your piece next to its destination."""

    type: ClassVar[str] = "claim_moat"
    piece: str


@dataclass(frozen=True)
class ClaimKamikaze(Command):
    """Answer a sit by claiming `kamikaze` on your piece that was just sat on."""

    type: ClassVar[str] = "claim_kamikaze"
    piece: str


@dataclass(frozen=True)
class ChooseLoss(Command):
    """Pick the piece that is lost (the loser or the winner of the call picks, per config)."""

    type: ClassVar[str] = "choose_loss"
    piece: str


@dataclass(frozen=True)
class Reassign(Command):
    """After a true claim, give a new power of the revealed power's type to one of your pieces."""

    type: ClassVar[str] = "reassign"
    power: str
    piece: str


@dataclass(frozen=True)
class Resign(Command):
    """Concede the match."""

    type: ClassVar[str] = "resign"


COMMANDS = (AssignPowers, MovePiece, Detect, Accept, CallBluff, ClaimMoat, ClaimKamikaze, ChooseLoss, Reassign, Resign)
