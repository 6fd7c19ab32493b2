"""The commands of gambit-board; each `type` is the stable JSON body type a client posts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from domain.ruleset import Command, Phases


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
    """Call one claim awaiting your answer: a power the move claimed, detective, moat, kamikaze or `sensei`."""

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
class ChoosePlayerPower(Command):
    """Player Powers: name the Player Power you earned (select mode, or a wild die in roll mode)."""

    type: ClassVar[str] = "choose_player_power"
    power: str


@dataclass(frozen=True)
class UseSensei(Command):
    """Player Powers (your whole turn): claim to move the named powers from one of your pieces to another."""

    type: ClassVar[str] = "use_sensei"
    source: str
    target: str
    powers: tuple[str, ...]


@dataclass(frozen=True)
class UseMagician(Command):
    """Player Powers (your whole turn): swap squares of your unsat piece and an unsat opposing piece."""

    type: ClassVar[str] = "use_magician"
    piece: str
    target: str


@dataclass(frozen=True)
class UseWitchDoctor(Command):
    """Player Powers (instead of an answer): swap your piece's powers with those the opposing move claimed."""

    type: ClassVar[str] = "use_witch_doctor"
    piece: str


@dataclass(frozen=True)
class DeclineJuggernaut(Command):
    """Player Powers: make no Juggernaut move, so the opponent's far-row win stands."""

    type: ClassVar[str] = "decline_juggernaut"


@dataclass(frozen=True)
class Resign(Command):
    """Concede the match."""

    type: ClassVar[str] = "resign"


COMMANDS = (
    AssignPowers,
    MovePiece,
    Detect,
    Accept,
    CallBluff,
    ClaimMoat,
    ClaimKamikaze,
    ChooseLoss,
    Reassign,
    ChoosePlayerPower,
    UseSensei,
    UseMagician,
    UseWitchDoctor,
    DeclineJuggernaut,
    Resign,
)

# Both seats assign their powers, then play: moves and detections, the answers to a claim (accept,
# call, a Moat, a Kamikaze, a Witch Doctor), the loser's choice, a reassignment, and with Player
# Powers the power earned and used. A seat may resign at any time while the match runs, the deal
# included; after the end nothing is done.
PHASES = Phases(
    {
        "setup": (Resign,),
        "assign": (AssignPowers, Resign),
        "play": tuple(cls for cls in COMMANDS if cls is not AssignPowers),
        "over": (),
    }
)

# The command types whose body holds a secret (an assignment, a reassigned power and the powers a Sensei passes are the seat's hidden powers): recorded as a committed secret
# for the seat until the match ends (docs/verification.md, section 2); the conformance kit checks it.
SECRET_COMMANDS: frozenset[str] = frozenset({"assign", "reassign", "use_sensei"})
