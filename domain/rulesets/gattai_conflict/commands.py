"""The commands of the Gattaibushido conflicts, one class per command `type`, and the stats a +Trauma names."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, get_args

from domain.ruleset import Command, Phases

from .shapes import Stat

# The sheet stats: what a pilot's ResolveTrigger names when she takes a +Trauma.
STATS: tuple[Stat, ...] = get_args(Stat)


# ----- the Gambit ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlayThreshold(Command):
    """Coach: seal the Threshold face down, from hand (`source: hand`, `card`) or blind (`source: deck`)."""

    type: ClassVar[str] = "play_threshold"
    source: str
    card: str | None = None


@dataclass(frozen=True)
class PlayCard(Command):
    """The Gambit's pilot: play a card face up from her hand."""

    type: ClassVar[str] = "play_card"
    card: str


@dataclass(frozen=True)
class FlipCard(Command):
    """The Gambit's pilot: flip the top card of the Pilot Deck instead of playing from hand."""

    type: ClassVar[str] = "flip_card"


@dataclass(frozen=True)
class ChooseOutcome(Command):
    """The Gambit's pilot, when not higher: `yes_but`, `no_but` or `no_and`."""

    type: ClassVar[str] = "choose_outcome"
    outcome: str


@dataclass(frozen=True)
class PickBoon(Command):
    """The Gambit's pilot: the positive trigger for herself, `chargeup` or `fortify`."""

    type: ClassVar[str] = "pick_boon"
    trigger: str


@dataclass(frozen=True)
class NameComplication(Command):
    """Coach: the negative trigger of a Gambit's but/and, `purge` or `schism`."""

    type: ClassVar[str] = "name_complication"
    trigger: str


# ----- the Throwdown ------------------------------------------------------------------------------


@dataclass(frozen=True)
class SealInitiative(Command):
    """A commander (the Coach or the pilot commander): seal an Initiative card face down from hand."""

    type: ClassVar[str] = "seal_initiative"
    card: str


@dataclass(frozen=True)
class RevealInitiative(Command):
    """Either commander, once both Initiative cards are sealed: turn both face up."""

    type: ClassVar[str] = "reveal_initiative"


@dataclass(frozen=True)
class AnswerQuestion(Command):
    """Coach records the table's answer: does the commander fight for her Team (`for_team`)?"""

    type: ClassVar[str] = "answer_question"
    for_team: bool


@dataclass(frozen=True)
class GiveCards(Command):
    """Another involved pilot: give the commander any number of cards (none to pass)."""

    type: ClassVar[str] = "give_cards"
    cards: tuple[str, ...] = ()


@dataclass(frozen=True)
class ReturnCards(Command):
    """The commander: give a pilot back as many cards as she gave."""

    type: ClassVar[str] = "return_cards"
    to: str
    cards: tuple[str, ...] = ()


@dataclass(frozen=True)
class Assist(Command):
    """Another involved pilot: discard a card and spend a charge for +1 to the commander's Strike this turn."""

    type: ClassVar[str] = "assist"
    card: str


@dataclass(frozen=True)
class ThreatAssist(Command):
    """Coach: a Threat activates a Wave (discard a face card) or a Storm (discard an Ace)."""

    type: ClassVar[str] = "threat_assist"
    threat: str
    card: str


@dataclass(frozen=True)
class Counter(Command):
    """Drive: play a card higher than the top of the Pile."""

    type: ClassVar[str] = "counter"
    card: str


@dataclass(frozen=True)
class Block(Command):
    """Drive: play a card of equal rank and equal or higher suit than the winning card."""

    type: ClassVar[str] = "block"
    card: str


@dataclass(frozen=True)
class Escalate(Command):
    """Drive: the opponent scores the stage; this card starts the next stage's Pile."""

    type: ClassVar[str] = "escalate"
    card: str


@dataclass(frozen=True)
class Rumble(Command):
    """Drive (stage 3 only): as Escalate into stage 4, every Pile discarded, the card unblockable."""

    type: ClassVar[str] = "rumble"
    card: str


@dataclass(frozen=True)
class Concede(Command):
    """Drive: the opponent scores the stage and the Throwdown ends."""

    type: ClassVar[str] = "concede"


# ----- any conflict -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Resign(Command):
    """The Coach or the pilots' commander resigns the match for its side: the other side wins (see legal.check_may_resign)."""

    type: ClassVar[str] = "resign"


@dataclass(frozen=True)
class ResolveTrigger(Command):
    """The pilot a trigger is aimed at: spend a buffer to prevent it, or take it (a +Trauma names a stat)."""

    type: ClassVar[str] = "resolve_trigger"
    use_buffer: bool
    stat: str | None = None


@dataclass(frozen=True)
class SpendOmen(Command):
    """Spend an active Omen: a pilot a Pilot Omen (`self_full` | `all_2`), the Coach a Coach Omen (`crisis`)."""

    type: ClassVar[str] = "spend_omen"
    omen: str
    effect: str


@dataclass(frozen=True)
class RecordTrigger(Command):
    """Fire a +Trigger the story grants (a Tech, a Threat power, a Location), naming its target."""

    type: ClassVar[str] = "record_trigger"
    trigger: str
    target: str


@dataclass(frozen=True)
class DiscardToMax(Command):
    """After the conflict: discard down to the max hand."""

    type: ClassVar[str] = "discard_to_max"
    cards: tuple[str, ...] = ()


COMMANDS: tuple[type[Command], ...] = (
    PlayThreshold,
    PlayCard,
    FlipCard,
    ChooseOutcome,
    PickBoon,
    NameComplication,
    SealInitiative,
    RevealInitiative,
    AnswerQuestion,
    GiveCards,
    ReturnCards,
    Assist,
    ThreatAssist,
    Counter,
    Block,
    Escalate,
    Rumble,
    Concede,
    ResolveTrigger,
    SpendOmen,
    RecordTrigger,
    DiscardToMax,
    Resign,
)

# The phases in which each mode's conflict runs, with the mode's own commands: decide finds one by
# (phase, type) (the HANDLERS of gambit_rules.py and throwdown_rules.py are keyed from these), so one
# sent in another phase is refused as `not_now`; gambit.RUNNING and throwdown.FIGHTING are their phases.
GAMBIT_PHASES = Phases(
    {
        "threshold": (PlayThreshold,),
        "play": (PlayCard, FlipCard),
        "choice": (ChooseOutcome,),
        "boon": (PickBoon,),
        "complication": (NameComplication,),
    }
)
THROWDOWN_PHASES = Phases(
    {
        "initiative": (SealInitiative,),
        "reveal": (RevealInitiative,),
        "question": (AnswerQuestion,),
        "swap": (GiveCards, ReturnCards),
        "turns": (Assist, ThreatAssist, Counter, Block, Escalate, Rumble, Concede),
    }
)
# While a conflict runs a story trigger may be fired and a trigger waiting for a pilot's answer
# answered, beside the mode's commands; an Omen is spent at any time while the match runs. Once a
# mode has ended its queued triggers resolve (`resolving`, answers only), then seats over their max
# hand discard (`cleanup`). Nothing is done before the deal or after the end.
# The Coach or the pilots' commander may resign for its side in every phase while the match runs.
RUNNING_ANYTIME: tuple[type[Command], ...] = (RecordTrigger, ResolveTrigger, SpendOmen, Resign)
PHASES = Phases(
    {
        "setup": (),
        **{phase: (*own, *RUNNING_ANYTIME) for phase, own in GAMBIT_PHASES.items()},
        **{phase: (*own, *RUNNING_ANYTIME) for phase, own in THROWDOWN_PHASES.items()},
        "resolving": (ResolveTrigger, SpendOmen, Resign),
        "cleanup": (DiscardToMax, SpendOmen, Resign),
        "over": (),
    }
)

# The command types whose body holds a secret (a sealed Threshold or Initiative card and the cards passed at the swap are hidden from the others): recorded as a committed secret
# for the seat until the match ends (docs/verification.md, section 2); the conformance kit checks it.
SECRET_COMMANDS: frozenset[str] = frozenset({"play_threshold", "seal_initiative", "give_cards", "return_cards"})
