"""The shape of a gambit-board table: the state's TypedDict and its parts (state.py says what each holds).

They live apart from state.py, which folds events (and so imports the modules that build them),
so every module of the game can name the state's type without an import cycle.
"""

# No `from __future__ import annotations`: TypedDicts read NotRequired from evaluated annotations.
from typing import Literal, NotRequired, TypedDict

from .payloads import BluffCall, Plan, PowerRecord

# A piece's powers by type ("movement", "action"): the power, or None for an empty slot.
PowerSlots = dict[str, str | None]


class BoardConfig(TypedDict):
    """The match config as the state keeps it (config_to_dict of `Config`)."""

    power_mode: Literal["select", "roll"]
    loss_choice: Literal["loser", "winner"]
    first_seat: Literal["south", "north", "random"]
    board: Literal["standard", "bridges"]
    player_powers: NotRequired[bool]  # matches begun before the variant existed lack it
    players: NotRequired[int]


class SeatDice(TypedDict):
    """A seat's power dice (roll mode): the attempt (a double moat re-rolls) and each die, 0 until rolled."""

    attempt: int
    movement: list[int]
    action: list[int]


class Turn(TypedDict):
    """The turn being played: whose, its number, what a moat has barred, and who stood on a far row at its start."""

    seat: str
    number: int
    forbidden: list[str]
    rejected: NotRequired[list[list[str]]]  # [piece, to, effect] of moves a moat sent back
    juggernaut: NotRequired[bool]
    far_row_start: NotRequired[dict[str, list[str]]]


class Step(TypedDict):
    """What the match awaits now (or a queued step a ruling or a closed turn owes)."""

    kind: Literal["turn", "respond", "counter", "lose", "reassign", "earn", "end_turn", "retry"]
    seat: NotRequired[str]
    loser: NotRequired[str]  # lose: whose piece is lost
    call_version: NotRequired[int | None]  # lose, reassign: the ruling owing it
    type: NotRequired[str]  # reassign: the power type revealed
    roll: NotRequired[int | None]  # reassign: the reassignment die (roll mode)
    piece: NotRequired[str]  # earn: the piece that arrived
    earned_version: NotRequired[int | None]  # earn: the earning record


class Counter(TypedDict):
    """A moat or kamikaze claimed against the pending claim."""

    kind: Literal["moat", "kamikaze"]
    version: int | None
    seat: str
    piece: str


class Pending(TypedDict):
    """The claim awaiting an answer: a move, a detect or a Sensei transfer, and any counter-claim to it."""

    kind: Literal["move", "detect", "sensei"]
    version: int | None
    seat: str
    piece: str
    claims: list[str]
    plan: Plan | None
    counter: Counter | None
    target: NotRequired[str]  # detect, sensei
    powers: NotRequired[list[str]]  # sensei: the powers named


# A claim or Player Power use in the public record of claims (`from` is not a Python name, hence
# the functional form); a move's keeps its squares, a detect's, Sensei's or Magician's its target.
Claim = TypedDict(
    "Claim",
    {
        "version": int | None,
        "seat": str,
        "kind": Literal["move", "detect", "moat", "kamikaze", "sensei", "magician", "witch_doctor"],
        "piece": str,
        "claims": list[str],
        "from": NotRequired[str],
        "to": NotRequired[str],
        "target": NotRequired[str],
        "powers": NotRequired[list[str]],  # sensei
        "mover": NotRequired[str],  # witch_doctor
    },
)


class Ruling(BluffCall):
    """A ruling as the state keeps it: the recorded call and the version it was recorded at."""

    version: int | None


class Revealed(TypedDict):
    """Powers shown to everyone: a true claim's, or a lost piece's."""

    piece: str
    powers: list[str]
    reason: Literal["true_claim", "kamikaze", "lost"]
    version: int | None


class Detection(TypedDict):
    """What a seat's detect showed it."""

    target: str
    powers: PowerRecord
    version: int | None


class Result(TypedDict):
    """How the match ended."""

    winners: list[str]
    reason: Literal["far_row", "captures", "resignation"]
    resigned: NotRequired[str]


class BoardState(TypedDict):
    """The whole state of a gambit-board match (plain JSON; snapshots store it as it is)."""

    config: BoardConfig
    phase: Literal["setup", "assign", "play", "over"]
    version: int
    first_seat: str | None
    board: dict[str, list[str]]  # occupied squares only, each stack bottom to top
    powers: dict[str, PowerSlots]
    assignment_version: dict[str, int | None]
    # The newest commitment of each power slot, and the slot records the last event requires
    # (commitments.py); matches begun before slots were committed one by one lack them.
    slots: NotRequired[dict[str, dict[str, int | None]]]
    owed: NotRequired[list[list[str]]]  # [piece, power type, reason]
    dice: dict[str, SeatDice | None]
    turn: Turn | None
    step: Step | None
    queue: list[Step]
    pending: Pending | None
    lost: dict[str, list[str]]
    revealed: list[Revealed]
    rulings: list[Ruling]
    claims: list[Claim]
    detections: dict[str, list[Detection]]
    result: Result | None
    # Player Powers: each seat's unspent ones (public), and the earnings the last closed turn owes.
    player_powers: NotRequired[dict[str, list[str]]]
    earnings_owed: NotRequired[list[list[str]]]  # [seat, piece]
