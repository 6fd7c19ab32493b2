"""The conflict's state as types: `GattaiState` and its parts, and the vocabularies records and views share.

Every module of the game reads the state through these types, so they sit below all of them
(state.py folds into `GattaiState`, events.py declares payloads over the same vocabularies, and
the decide side works on `ConflictPad`, decide's scratch pad typed as this state). The state is
plain JSON data; see state.py for what each key holds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, NotRequired, TypedDict, TypeVar

from domain.chance import Chance
from domain.decision import Decision
from domain.ruleset import Event

Side = Literal["pilots", "coach"]
DeckName = Literal["pilot", "coach"]
Mode = Literal["gambit", "throwdown"]
Phase = Literal[
    "setup",
    "threshold",
    "play",
    "choice",
    "boon",
    "complication",
    "initiative",
    "reveal",
    "question",
    "swap",
    "turns",
    "resolving",
    "cleanup",
    "over",
]
Stat = Literal["steel", "flesh", "synch", "solo"]
# Mechanical triggers change the Team state; story triggers are recorded with their target (team.py).
MechanicalTrigger = Literal["chargeup", "fortify", "rally", "schism", "purge", "trauma"]
StoryTrigger = Literal[
    "favor", "disfavor", "ruin", "rebuild", "replenish", "restore", "storm", "wave", "tarry", "break"
]
TriggerName = Literal[MechanicalTrigger, StoryTrigger]
# Why a trigger fired: a seat's story, a card's outcome, an Omen, or a chain of another trigger.
TriggerSource = Literal[
    "story", "omen", "gambit", "no_and", "dissonance", "threat_assist", "rally_at_violet", "schism_at_red"
]
Outcome = Literal["yes_and", "yes_but", "no_but", "no_and"]
ChosenOutcome = Literal["yes_but", "no_but", "no_and"]
Boon = Literal["chargeup", "fortify"]
Complication = Literal["purge", "schism"]
OmenEffect = Literal["self_full", "all_2", "crisis"]
Source = Literal["hand", "deck"]
TableRole = Literal["threshold", "initiative", "gambit_play"]
SealedKind = Literal["threshold", "initiative"]
# How a card came onto a Pile.
PileHow = Literal["initiative", "counter", "escalate", "rumble"]


W = TypeVar("W", bound=str)


def named(value: str, vocabulary: tuple[W, ...]) -> W | None:
    """The word of a fixed vocabulary a command's text names, or None (commands carry plain text)."""
    return next((word for word in vocabulary if word == value), None)


class FiredTrigger(TypedDict):
    """A fired +Trigger, as records, the queue and delivered Payloads hold it."""

    trigger: TriggerName
    target: str
    amount: int
    full: bool
    by: str
    source: TriggerSource
    immediate: bool


class PayloadEntry(TypedDict):
    """A fired trigger as its side's Payload keeps it: the fields it shares with every at-will trigger left out."""

    trigger: TriggerName
    target: str
    amount: NotRequired[int]
    full: NotRequired[bool]
    by: NotRequired[str]
    source: NotRequired[TriggerSource]
    immediate: NotRequired[bool]


class Gauge(TypedDict):
    """A pilot's sheet stats and her charges and buffers (each with its maximum)."""

    steel: int
    flesh: int
    synch: int
    solo: int
    charges: int
    charges_max: int
    buffers: int
    buffers_max: int


class Omen(TypedDict):
    """A Joker set out beside its deck."""

    card: str
    spent: bool


class Deck(TypedDict):
    """A deck: its draw pile (top first), its Trash (top last) and its Omens."""

    draw: list[str]
    trash: list[str]
    omens: list[Omen]


class TableEntry(TypedDict):
    """A card on the table: the Gambit's two cards, the sealed Initiative cards."""

    card: str
    seat: str
    role: TableRole
    face_up: bool


class SealedEntry(TypedDict):
    """A sealed play: its record's version, the card, the source claimed and where it truly came from."""

    version: int | None
    seat: str
    kind: SealedKind
    card: str
    source: Source
    origin: Source
    reveal_version: int | None


class GambitState(TypedDict):
    """The Gambit's bookkeeping (see gambit.py)."""

    pilot: str
    specialty: bool
    threshold_version: int | None
    threshold: str | None
    pilot_card: str | None
    pilot_source: Source | None
    higher: bool | None
    outcome: Outcome | None
    boon: Boon | None
    complication: Complication | None


class SideScores(TypedDict):
    """A number per side."""

    pilots: int
    coach: int


class SideVersions(TypedDict):
    """Per side, the version of its sealed Initiative record (None until sealed)."""

    pilots: int | None
    coach: int | None


class SidePayloads(TypedDict):
    """Per side, the triggers its Payload delivers."""

    pilots: list[PayloadEntry]
    coach: list[PayloadEntry]


class PileCard(TypedDict):
    """A card on a Pile: whose and how it came there."""

    card: str
    side: Side
    how: PileHow


class Escalation(TypedDict):
    """The points an Escalate or Rumble gave, which a Block of it takes back."""

    scorer: Side
    points: int


class Pile(TypedDict):
    """A stage's Pile."""

    stage: int
    cards: list[PileCard]
    escalation: Escalation | None


class ThrowdownBook(TypedDict):
    """The Throwdown's bookkeeping that its state and its view hold alike (see throwdown.py)."""

    commander: str
    started_by: Side
    stage: int
    scores: SideScores
    turn: Side | None
    turns_taken: int
    piles: list[Pile]
    strike_base: SideScores
    bonus: int
    assisted: list[str]
    threat_assists: dict[str, Literal["wave", "storm"]]
    initiative_rounds: int
    for_team: bool | None
    to_give: list[str]
    returns_due: dict[str, int]
    conceded_by: Side | None
    winner: Side | None
    called_off: bool


class ThrowdownState(ThrowdownBook):
    """The Throwdown's bookkeeping: each side's sealed Initiative record and its Payload's entries."""

    initiative: SideVersions
    payloads: SidePayloads


class GambitResult(TypedDict):
    """What a Gambit decided."""

    winners: list[str]
    reason: str
    mode: Literal["gambit"]
    gambit_outcome: Outcome
    threshold: str
    pilot_card: str


class ThrowdownResult(TypedDict):
    """What a Throwdown decided (no winner when called off)."""

    winners: list[str]
    reason: str
    mode: Literal["throwdown"]
    winner: Side | None
    scores: SideScores
    conceded_by: Side | None


class ResignationResult(TypedDict):
    """A match one side resigned: the other side wins, whatever the conflict stood at."""

    winners: list[str]
    reason: Literal["resignation"]
    mode: Mode
    resigned_by: Side
    resigned: str


Result = GambitResult | ThrowdownResult | ResignationResult


class GattaiState(TypedDict):
    """A conflict's state (state.py describes each key)."""

    version: int
    config: dict[str, Any]
    seats: list[str]
    pilots: list[str]
    mode: Mode
    phase: Phase
    harmony: int
    team: dict[str, Gauge]
    threats: dict[str, int]
    decks: dict[str, Deck]
    hands: dict[str, list[str]]
    stacks: dict[str, list[str]]
    table: list[TableEntry]
    sealed: list[SealedEntry]
    queue: list[FiredTrigger]
    after_queue: Literal["gambit_end", "throwdown_end", "resigned"] | None
    gambit: GambitState | None
    throwdown: ThrowdownState | None
    discards_due: dict[str, int]
    result: Result | None


def gambit_of(state: GattaiState) -> GambitState:
    """The Gambit being played (TypeError, as indexing None was, for a record out of its place)."""
    gambit = state["gambit"]
    if gambit is None:
        raise TypeError("no Gambit is being played")
    return gambit


def throwdown_of(state: GattaiState) -> ThrowdownState:
    """The Throwdown being fought (TypeError, as indexing None was, for a record out of its place)."""
    throwdown = state["throwdown"]
    if throwdown is None:
        raise TypeError("no Throwdown is being fought")
    return throwdown


class ConflictPad(Decision[GattaiState]):
    """Decide's scratch pad (domain.decision) over a conflict's state, which `conflict` reads."""

    def __init__(self, state: GattaiState, chance: Chance, fold: Callable[[GattaiState, Event], GattaiState]) -> None:
        super().__init__(state, chance, fold)

    @property
    def conflict(self) -> GattaiState:
        """The state as it stands after the events decided so far."""
        return self.state
