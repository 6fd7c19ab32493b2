"""The shape of a Dragon's Gambit table: the state's TypedDict and its parts (state.py says what each holds).

They live apart from state.py, which folds events, so events.py and the rules can name the
state's type without importing the fold (and state.py imports events.py).
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from .cards import SpecialFace

Phase = Literal["dealing", "peek", "turn", "scoring", "over"]


class MatchConfig(TypedDict):
    """The match config as the state keeps it (config.Config as JSON)."""

    players: int
    first_seat: str
    initial_peek: str
    caller_penalty: int
    target_score: int
    memory_aid: bool


class HeldCard(TypedDict):
    """The card a seat has drawn and holds in its hand."""

    seat: str
    card: str


class PendingAbility(TypedDict):
    """The ability a seat may use now: that of the face it just discarded from the draw."""

    seat: str
    face: SpecialFace


class RoundCard(TypedDict):
    """A card of a hand at a round's end, without its id (the next deal makes ids secret again)."""

    slot: int
    face: int
    tokens: int
    value: int


class LastRound(TypedDict):
    """The latest round's result, as the view shows it."""

    round: int
    caller: str
    totals: dict[str, int]
    penalties: dict[str, int]
    round_winners: list[str]
    hands: dict[str, list[RoundCard]]


class PastRound(TypedDict):
    """A finished round as snapshots taken before `rounds_played` listed it."""

    round: int
    totals: dict[str, int]
    penalties: dict[str, int]


class DragonsState(TypedDict):
    """The state of a match (see the module docstring for what each key holds)."""

    config: MatchConfig
    seats: list[str]
    phase: Phase
    round: int
    current: str | None
    round_first_seat: str | None
    draw_pile: list[str]
    discard: list[str]
    grids: dict[str, list[str]]
    tokens: dict[str, int]
    seen: dict[str, list[str]]
    drawn: HeldCard | None
    pending_ability: PendingAbility | None
    caller: str | None
    call_version: int | None
    final_turns_left: list[str]
    turns_taken: dict[str, int]
    peeked: dict[str, bool]
    evidence: list[int]
    # Snapshots taken before a key existed lack it; the code reading it says what it stands for then.
    private: NotRequired[list[int]]
    drawn_version: NotRequired[int | None]
    scores: dict[str, int]
    rounds_played: NotRequired[int]
    history: NotRequired[list[PastRound]]
    last_round: LastRound | None
    forfeited: NotRequired[str]
    forfeit_reason: NotRequired[Literal["resignation"]]
