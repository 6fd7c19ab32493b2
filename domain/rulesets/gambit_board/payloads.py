"""The declared event kinds of gambit-board: each record's public and secret fields, typed.

Every kind is a frozen dataclass (domain/event_types.py): a plain field is a key of the public
part, `hidden()` one of the secret part, `optional()` a key written only when it differs from its
default. The nested objects records carry (a move's plan, a ruling's call) are TypedDicts here,
shared by the state and the view. events.py gathers the kinds into `EVENTS`; state.py folds them.
This module imports nothing of the package, so every other module may build and read payloads.
"""

# No `from __future__ import annotations`: TypedDicts read NotRequired from evaluated annotations.
from dataclasses import dataclass
from typing import Literal, NotRequired, TypedDict

from domain.chance import ChanceDescriptor
from domain.event_types import Payload, hidden, optional

PowerType = Literal["movement", "action"]
Power = Literal["diagonal", "ghost", "sidewinder", "bulldozer", "moat", "sitting", "kamikaze", "detective"]
PlayerPower = Literal["sensei", "magician", "juggernaut", "witch_doctor"]


class PowerRecord(TypedDict):
    """A piece's powers, one slot per type (None: nothing of that type)."""

    movement: Power | None
    action: Power | None


class RolledDice(TypedDict):
    """A seat's rolled power dice (roll mode), die faces 1–6 in rolling order."""

    movement: list[int]
    action: list[int]


# A pushed stack: the square it leaves, the square it lands on, its pieces bottom to top.
Push = TypedDict("Push", {"from": str, "to": str, "pieces": list[str]})
# A move as applied (board.make_plan): enough to apply it and to undo it.
Plan = TypedDict(
    "Plan",
    {"piece": str, "from": str, "to": str, "claims": list[Power], "push": Push | None, "sat_on": str | None},
)
# The powers a Sensei claim names, from one piece to another.
Transfer = TypedDict("Transfer", {"from": str, "to": str, "powers": list[Power]})


class Consequences(TypedDict):
    """What a ruling makes happen: who loses a piece and who picks it, the effect on the claim."""

    piece_lost_by: str
    loss_chosen_by: str
    effect: Literal[
        "move_stands",
        "move_undone",
        "detect_stands",
        "detect_void",
        "move_sent_back",
        "sitter_removed",
        "claim_void",
        "transfer_stands",
        "transfer_void",
    ]
    move_undone: bool
    power_revealed: Power | None
    reassignment_by: str | None
    sitter_removed: NotRequired[str]
    sitter_powers: NotRequired[list[Power]]


class BluffCall(TypedDict):
    """A ruling on a called claim (bluffs.ruling_call): the claim, the call, the verdict, its consequences."""

    claim_version: int
    claimant: str
    piece: str
    power: Power | Literal["sensei"]
    subject: Literal["move", "detect", "moat", "kamikaze", "sensei"]
    caller: str
    call_version: int | None
    verdict: Literal["true", "false"]
    consequences: Consequences
    evidence_version: int | None
    transfer: NotRequired[Transfer]


class Followup(TypedDict):
    """What a reassignment follows: the ruling, the type it replaces and the assignment it supersedes."""

    call_version: int
    power_type: PowerType
    replaces_assignment_version: int | None


@dataclass(frozen=True, kw_only=True)
class FirstSeatDrawn(Payload):
    """The seat that opens, drawn from the committed seed (`first_seat: random`)."""

    seats: list[str]
    first_seat: str
    chance: ChanceDescriptor
    chance_result: int


@dataclass(frozen=True, kw_only=True)
class PowerDieRolled(Payload):
    """One of a seat's power dice (roll mode), its face secret to the seat."""

    seat: str
    die: PowerType
    index: int
    attempt: int
    chance: ChanceDescriptor
    result: int = hidden(key="chance_result")


@dataclass(frozen=True, kw_only=True)
class BoardSetUp(Payload):
    """The board as play begins: who opens, the board, its impassable squares, the pieces on their home rows."""

    first_seat: str
    board: Literal["standard", "bridges"]
    impassable: list[str]
    pieces: dict[str, str]


@dataclass(frozen=True, kw_only=True)
class PowersAssigned(Payload):
    """A seat's whole assignment, secret to it (with its rolled dice in roll mode)."""

    seat: str
    power_mode: Literal["select", "roll"]
    assignment: dict[str, PowerRecord] = hidden()
    dice: RolledDice | None = optional(None, secret=True)


@dataclass(frozen=True, kw_only=True)
class PieceMoved(Payload):
    """A move as planned with its claims, and whether the other seat gets to answer it."""

    seat: str
    plan: Plan
    needs_response: bool


@dataclass(frozen=True, kw_only=True)
class DetectClaimed(Payload):
    """A detect claimed: the piece and the opposing piece whose powers it would see."""

    seat: str
    piece: str
    target: str


@dataclass(frozen=True, kw_only=True)
class ClaimAccepted(Payload):
    """The awaited claim is accepted: it stands."""

    seat: str
    claim_version: int


@dataclass(frozen=True, kw_only=True)
class MoatAccepted(Payload):
    """A moat countering the move is accepted: the move is sent back."""

    seat: str
    claim_version: int
    moat_piece: str


@dataclass(frozen=True, kw_only=True)
class KamikazeAccepted(Payload):
    """A kamikaze countering a sit is accepted: the sitter is lost, its powers shown."""

    seat: str
    claim_version: int
    sitter: str
    kamikaze_piece: str
    sitter_powers: list[Power]


@dataclass(frozen=True, kw_only=True)
class PowersDetected(Payload):
    """What a detect that stands shows the detecting seat: the target's powers."""

    seat: str
    piece: str
    target: str
    detect_version: int
    detected: str = hidden(key="target")
    powers: PowerRecord = hidden()


@dataclass(frozen=True, kw_only=True)
class MoatClaimed(Payload):
    """A moat claimed against the awaited move."""

    seat: str
    piece: str
    against_version: int


@dataclass(frozen=True, kw_only=True)
class KamikazeClaimed(Payload):
    """A kamikaze claimed against the sit awaiting an answer."""

    seat: str
    piece: str
    against_version: int


@dataclass(frozen=True, kw_only=True)
class BluffRuled(Payload):
    """A call and its ruling, one record; the secret holds what the claimed piece and its seat held."""

    bluff_call: BluffCall
    held: PowerRecord = hidden()
    assignment: dict[str, PowerRecord] = hidden()


@dataclass(frozen=True, kw_only=True)
class ReassignmentDieRolled(Payload):
    """The die a true claim's reassignment uses (roll mode), its face secret to the claimant."""

    seat: str
    power_type: PowerType
    call_version: int
    chance: ChanceDescriptor
    result: int = hidden(key="chance_result")


@dataclass(frozen=True, kw_only=True)
class PieceLost(Payload):
    """A piece a ruling cost: whose, who chose it, where it stood and its powers, now shown."""

    seat: str
    piece: str
    chosen_by: str
    square: str
    stack_position: int
    powers: list[Power]
    call_version: int


@dataclass(frozen=True, kw_only=True)
class PowerReassigned(Payload):
    """A revealed power replaced: the type in public, the piece, the power and the new assignment secret."""

    seat: str
    power_type: PowerType
    bluff_call_followup: Followup
    piece: str = hidden()
    power: Power = hidden()
    assignment: dict[str, PowerRecord] = hidden()


@dataclass(frozen=True, kw_only=True)
class PowerCommitted(Payload):
    """One power slot's commitment (commitments.py), secret to the piece's seat."""

    seat: str
    piece: str
    power_type: PowerType
    reason: Literal["assigned", "reassigned", "kamikaze_spent", "sensei_transfer", "witch_doctor_swap"]
    slot_piece: str = hidden(key="piece")
    slot_type: PowerType = hidden(key="power_type")
    power: Power | None = hidden()


@dataclass(frozen=True, kw_only=True)
class PlayerPowerEarned(Payload):
    """A piece newly on its far row earns a Player Power (None: its seat names it); roll mode rolls for it."""

    seat: str
    piece: str
    square: str
    power: PlayerPower | None
    chance: ChanceDescriptor | None = optional(None)
    chance_result: int | None = optional(None)


@dataclass(frozen=True, kw_only=True)
class PlayerPowerChosen(Payload):
    """The Player Power a seat names for an earning."""

    seat: str
    power: PlayerPower
    earned_version: int


@dataclass(frozen=True, kw_only=True)
class SenseiClaimed(Payload):
    """A Sensei claim: powers named to move from one of the seat's pieces to another."""

    seat: str
    source: str
    target: str
    powers: list[Power]


@dataclass(frozen=True, kw_only=True)
class MagicianSwapped(Payload):
    """A Magician swap of two unsat pieces' squares."""

    seat: str
    piece: str
    target: str
    piece_square: str
    target_square: str


@dataclass(frozen=True, kw_only=True)
class WitchDoctorSwapped(Payload):
    """A Witch Doctor answering a move; the secret, for both seats, holds the powers given."""

    seat: str
    piece: str
    mover: str
    received: list[Power]
    against_version: int
    given: list[Power] = hidden()
    # Swaps recorded before issue 28 also restated both pieces' new powers here.
    piece_powers: PowerRecord | None = optional(None, secret=True)
    mover_powers: PowerRecord | None = optional(None, secret=True)


@dataclass(frozen=True, kw_only=True)
class JuggernautOffered(Payload):
    """A far-row win answered by the loser's Juggernaut: one more move."""

    seat: str
    winner: str


@dataclass(frozen=True, kw_only=True)
class JuggernautDeclined(Payload):
    """The Juggernaut holder declines its move: the win holds."""

    seat: str


@dataclass(frozen=True, kw_only=True)
class MatchWon(Payload):
    """The match ends by a win: who met a winning condition and which."""

    winner: str
    reason: Literal["far_row", "captures"]


@dataclass(frozen=True, kw_only=True)
class Resigned(Payload):
    """A seat resigns (or its time ran out): its opponent wins."""

    seat: str
