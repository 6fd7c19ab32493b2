"""The commands of gambit-tcg (the `type` strings are stable; bodies are flat JSON)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from domain.ruleset import Command, Phases


@dataclass(frozen=True)
class SetCard(Command):
    """Set a hand card face down (free); a trap declares its trigger window, kept secret."""

    type: ClassVar[str] = "set_card"
    card: str
    window: str | None = None


@dataclass(frozen=True)
class Energize(Command):
    """Move a hand card face up into the Energy Zone (once per turn)."""

    type: ClassVar[str] = "energize"
    card: str


@dataclass(frozen=True)
class _PaidPlay(Command):
    """What playing a card and activating a trap both name: the card, its payment and its choices."""

    card: str
    energy: tuple[str, ...] = ()
    discard: tuple[str, ...] = ()
    target: str | None = None
    reveal: str | None = None
    declared_type: str | None = None
    sacrifice: str | None = None
    target_player: str | None = None


@dataclass(frozen=True)
class PlayCard(_PaidPlay):
    """Play a unit, spell, item or field card from hand, or flip-and-pay one from the Set Zone."""

    type: ClassVar[str] = "play_card"


@dataclass(frozen=True)
class ActivateTrap(_PaidPlay):
    """Activate a set trap in the open window it was declared for, paying its cost."""

    type: ClassVar[str] = "activate_trap"


@dataclass(frozen=True)
class EndPhase(Command):
    """End Main 1 (go to Combat) or Main 2 (draw, end the turn)."""

    type: ClassVar[str] = "end_phase"


@dataclass(frozen=True)
class DeclareAttack(Command):
    """Declare attackers (possibly none) and the player they attack (default: the opponent)."""

    type: ClassVar[str] = "declare_attack"
    attackers: tuple[str, ...] = ()
    target_player: str | None = None


@dataclass(frozen=True)
class AssignBlockers(Command):
    """Assign blockers as {blocker: attacker} (one blocker per attacker; Guard first)."""

    type: ClassVar[str] = "assign_blockers"
    blocks: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Pass(Command):
    """Pass in a trap window, or decline p2's free set before the first turn."""

    type: ClassVar[str] = "pass"


@dataclass(frozen=True)
class Resign(Command):
    """Give up when the match waits for you: you lose at once, as if your time had run out (`SeatLost`, reason
    `resignation`)."""

    type: ClassVar[str] = "resign"


COMMANDS = (SetCard, Energize, PlayCard, ActivateTrap, EndPhase, DeclareAttack, AssignBlockers, Pass, Resign)

# Every phase starts with a trap window (docs/rules/gambit-tcg.md: `main1`, `combat`, `main2`, `draw`,
# `end`), and an attack, a spell or a unit opens one too: in a window the seat asked activates a trap
# or passes. A main phase is for setting, energizing, playing and ending it; combat for declaring
# attackers and assigning blockers. Before turn 1 p2 may set one card for free or pass. The seat the
# match waits for may resign in every phase; nothing is done before the deal or after the end.
WINDOW: tuple[type[Command], ...] = (ActivateTrap, Pass)
MAIN: tuple[type[Command], ...] = (SetCard, Energize, PlayCard, EndPhase, *WINDOW)
PHASES = Phases(
    {
        "setup": (),
        "free_set": (SetCard, Pass, Resign),
        "main1": (*MAIN, Resign),
        "combat": (DeclareAttack, AssignBlockers, *WINDOW, Resign),
        "main2": (*MAIN, Resign),
        "draw": (*WINDOW, Resign),
        "end": (*WINDOW, Resign),
        "over": (),
    }
)


def choices_of(command: PlayCard | ActivateTrap) -> dict:
    """The effect choices a play/activation command carries."""
    return {
        "target": command.target,
        "reveal": command.reveal,
        "declared_type": command.declared_type,
        "sacrifice": command.sacrifice,
        "target_player": command.target_player,
    }


# The command types whose body holds a secret (a set card's trap window is the owner's secret): recorded as a committed secret
# for the seat until the match ends (docs/verification.md, section 2); the conformance kit checks it.
SECRET_COMMANDS: frozenset[str] = frozenset({"set_card"})
