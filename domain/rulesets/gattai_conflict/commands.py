"""The match config, the seats and the command set of the Gattaibushido conflicts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from domain.ruleset import Command, ConfigError

RULESET_ID = "gattai-conflict"

COACH = "coach"
PILOT_SEATS = ("p1", "p2", "p3", "p4")
MODES = ("gambit", "throwdown")
SHEET_DEFAULTS = {"steel": 2, "flesh": 2, "synch": 2, "solo": 2, "charges_max": 3, "buffers": 1, "charges": 0}
STATS = ("steel", "flesh", "synch", "solo")
# A house cap on sheet values keeps Throwdown draws within the 52 cards of the Pilot Deck.
SHEET_MAX = 10
MAX_THREATS = 6
MAX_STACK = 5


def _default_pilots() -> dict[str, dict[str, int]]:
    return {"p1": {k: v for k, v in SHEET_DEFAULTS.items() if k != "charges"}}


@dataclass(frozen=True)
class Config:
    """The conflict: its mode, the pilots' sheets, Harmony, and the mode's own settings.

    `pilots` maps p1..pN (1-4 pilots) to sheets; a sheet's missing keys take the house defaults
    (steel 2, flesh 2, synch 2, solo 2, charges_max 3, buffers 1) and the optional `charges`
    (the charges she starts with, default 0). `mode` defaults to `gambit`, the most common
    conflict. Throwdown: `threats` (name -> rating), `threat_stacks` (name -> cards invested on
    that Threat, dealt face down from the Coach Deck at the start and drawn by the Coach at the
    Draws step, as the seed's Coach Bonus Draws say; default none), `started_by`, `commander`.
    Gambit: `pilot`, `specialty`. `crisis_tier` sets how many cards a +Tarry sends to the Coach's Trash.
    """

    mode: str = "gambit"
    pilots: dict[str, dict[str, int]] = field(default_factory=_default_pilots)
    harmony: int = 4
    crisis_tier: int = 1
    threats: dict[str, int] = field(default_factory=lambda: {"threat": 3})
    threat_stacks: dict[str, int] = field(default_factory=dict)
    started_by: str = "pilots"
    commander: str = "p1"
    pilot: str = "p1"
    specialty: bool = False

    def validate(self) -> None:
        """Raise ConfigError for a config the conflict cannot be played with."""
        if self.mode not in MODES:
            raise ConfigError("mode", "must be 'gambit' or 'throwdown'")
        names = list(self.pilots)
        if not 1 <= len(names) <= 4 or names != list(PILOT_SEATS[:len(names)]):
            raise ConfigError("pilots", "must name one to four pilots p1..pN, in order")
        for seat, sheet in self.pilots.items():
            for key, value in sheet.items():
                if key not in SHEET_DEFAULTS:
                    raise ConfigError("pilots", f"{seat}: unknown sheet key {key!r}")
                if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= SHEET_MAX:
                    raise ConfigError("pilots", f"{seat}.{key} must be an integer 0..{SHEET_MAX}")
            full = sheet_of(self, seat)
            if full["charges"] > full["charges_max"]:
                raise ConfigError("pilots", f"{seat}.charges exceeds charges_max")
        if not 1 <= self.harmony <= 7:
            raise ConfigError("harmony", "must be an integer from 1 (Red) to 7 (Violet)")
        if not 1 <= self.crisis_tier <= 5:
            raise ConfigError("crisis_tier", "must be an integer from 1 to 5")
        if not 1 <= len(self.threats) <= MAX_THREATS:
            raise ConfigError("threats", f"must list 1..{MAX_THREATS} threats")
        for name, rating in self.threats.items():
            if not 1 <= len(name) <= 40:
                raise ConfigError("threats", "a threat's name must be 1..40 characters")
            if not 1 <= rating <= 10:
                raise ConfigError("threats", f"{name}: rating must be an integer from 1 to 10")
        for name, count in self.threat_stacks.items():
            if name not in self.threats:
                raise ConfigError("threat_stacks", f"{name!r} is not one of the threats")
            if not 0 <= count <= MAX_STACK:
                raise ConfigError("threat_stacks", f"{name}: must be an integer from 0 to {MAX_STACK} (cards)")
        if self.started_by not in ("pilots", "coach"):
            raise ConfigError("started_by", "must be 'pilots' or 'coach'")
        if self.commander not in self.pilots:
            raise ConfigError("commander", "must be one of the pilots")
        if self.pilot not in self.pilots:
            raise ConfigError("pilot", "must be one of the pilots")


def sheet_of(config: Config, seat: str) -> dict[str, int]:
    """A pilot's sheet with the house defaults filled in."""
    return {**SHEET_DEFAULTS, **config.pilots[seat]}


def seat_names(config: Config) -> list[str]:
    """The seats: the Coach, then the pilots p1..pN."""
    return [COACH, *config.pilots]


# ----- the Gambit -------------------------------------------------------------------------------

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


# ----- the Throwdown ----------------------------------------------------------------------------

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


# ----- any conflict -----------------------------------------------------------------------------

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
    PlayThreshold, PlayCard, FlipCard, ChooseOutcome, PickBoon, NameComplication, SealInitiative, RevealInitiative,
    AnswerQuestion,
    GiveCards, ReturnCards, Assist, ThreatAssist, Counter, Block, Escalate, Rumble, Concede, ResolveTrigger,
    SpendOmen, RecordTrigger, DiscardToMax,
)
