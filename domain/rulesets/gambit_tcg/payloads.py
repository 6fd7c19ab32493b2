"""The typed payload of every event gambit-tcg records: its public fields and its secret ones (`hidden`).

events.py gathers them in `EVENTS`; state.py folds each type; the conformance kit holds every
emitted record to its declaration and the spec's event schemas are generated from it. A record's
key that is also a secret key (a set card's `card`, `id`, `window`) has a field name of its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, TypedDict

from domain.chance import ChanceDescriptor
from domain.event_types import Payload, hidden, keyed, optional

from .shapes import CardType, LossReason, Phase, WindowName

# ----- nested parts ---------------------------------------------------------------------------


class CardFace(TypedDict):
    """A card shown face up: its instance and card id."""

    card: str
    id: str


class Payment(TypedDict):
    """A payment as recorded: the energy cards exhausted and the cards discarded (face up)."""

    energy: list[str]
    discard: list[CardFace]


class OwnedCard(TypedDict):
    """A field card shown face up with its owner."""

    card: str
    id: str
    owner: str


class UnitHit(TypedDict):
    """Damage a combat deals to one unit, and the unit that dealt it."""

    unit: str
    amount: int
    source: str


class CallConsequences(TypedDict):
    """What a type call led to: life gained by a right call, the card revealed, whether it went back to hand."""

    life_gained: int
    revealed: str
    returned_to_hand: bool


class TypeCall(TypedDict):
    """A type declared before a Reveal, and the rules' ruling on it (readjudicate.py)."""

    caller: str
    call_version: int | None
    declared_type: CardType
    source: str
    claim_version: int
    claimant: str
    verdict: Literal["true", "false"]
    actual_type: CardType
    card: str
    card_id: str
    evidence_version: int
    consequences: CallConsequences


# ----- setup ----------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class DeckRegistered(Payload):
    """A seat's deck is registered: its size in public, its name and list secret to the seat."""

    seat: str
    size: int
    deck: str | None = hidden()
    cards: Sequence[str] = hidden()


@dataclass(frozen=True, kw_only=True)
class DeckShuffled(Payload):
    """A seat's registered deck is shuffled: the order is organizers' (instances numbered by position)."""

    seat: str
    chance: ChanceDescriptor
    order: Sequence[int] = hidden(key="chance_result")


@dataclass(frozen=True, kw_only=True)
class CardsDrawn(Payload):
    """Cards come off the top of a deck into the hand: which card each instance is stays the seat's."""

    seat: str
    cards: list[str]
    reason: Literal["opening", "draw_phase", "effect"]
    deck_size: int
    ids: Mapping[str, str] = hidden()


@dataclass(frozen=True, kw_only=True)
class GameStarted(Payload):
    """The game starts: who goes first, the starting life, the opening hands, whose free set comes first."""

    first_seat: str
    life: int
    opening_hands: dict[str, int]
    free_set_for: str


@dataclass(frozen=True, kw_only=True)
class FreeSetDeclined(Payload):
    """p2 declines its free set before the first turn."""

    seat: str


# ----- turns and windows ----------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class TurnBegan(Payload):
    """A turn begins: its seat readies its energy."""

    seat: str
    turn: int


@dataclass(frozen=True, kw_only=True)
class PhaseBegan(Payload):
    """A phase of the active seat's turn begins."""

    seat: str
    turn: int
    phase: Phase


@dataclass(frozen=True, kw_only=True)
class WindowOpened(Payload):
    """A trap window opens, asking these seats in order (decided on public facts)."""

    window: WindowName
    responders: list[str]
    turn: int
    active: str


@dataclass(frozen=True, kw_only=True)
class WindowPassed(Payload):
    """A responder passes the window (automatic: after its trap resolved and it could do no more)."""

    seat: str
    window: WindowName
    automatic: bool


@dataclass(frozen=True, kw_only=True)
class WindowClosed(Payload):
    """The window closes; the game goes on where it stopped."""

    window: WindowName


@dataclass(frozen=True, kw_only=True)
class TurnEnded(Payload):
    """The turn ends: damage and boosts wear off."""

    seat: str
    turn: int


@dataclass(frozen=True, kw_only=True)
class SeatLost(Payload):
    """Seats lose: at zero life, decked out, out of time, or by resigning."""

    seats: list[str]
    reason: LossReason


@dataclass(frozen=True, kw_only=True)
class TurnLimitReached(Payload):
    """The turn limit ends the game: the one seat with the most life wins (none on a tie)."""

    turn_limit: int
    life: dict[str, int]
    winners: list[str]


# ----- cards ----------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class CardSet(Payload):
    """A card is set face down: public that it was and when it is ready, its identity and window the owner's."""

    seat: str
    card: str
    set_turn: int
    ready_turn: int
    free: bool
    committed_card: str = hidden(key="card")
    committed_id: str = hidden(key="id")
    committed_type: CardType = hidden(key="type")
    committed_window: WindowName | None = hidden(None, key="window")


@dataclass(frozen=True, kw_only=True)
class CardEnergized(Payload):
    """A hand card goes face up to the Energy Zone."""

    seat: str
    card: str
    id: str
    value: int


@dataclass(frozen=True, kw_only=True)
class CardPlayed(Payload):
    """A card is paid for and played from hand or Set Zone; a face-down one opens its set commitment.

    The opened commitment (organizers' until the end) is the secret only of a card played from
    the Set Zone face down; `""` stands for its absence, as `None` is the window it records.
    """

    seat: str
    card: str
    id: str
    type: CardType
    source: Literal["hand", "set"] = keyed("from")
    cost: int
    paid: Payment
    target: str | None
    choices: dict[str, str]
    replaced: OwnedCard | None = optional(None)
    opened_card: str = optional("", key="card", secret=True)
    opened_id: str = optional("", key="id", secret=True)
    opened_window: WindowName | None | Literal[""] = optional("", key="window", secret=True)


@dataclass(frozen=True, kw_only=True)
class SpellResolved(Payload):
    """The spell on the stack resolves and goes to the graveyard."""

    seat: str
    card: str
    id: str


@dataclass(frozen=True, kw_only=True)
class SpellNullified(Payload):
    """A trap nullifies the spell on the stack; it goes to the graveyard unresolved."""

    seat: str
    card: str
    id: str
    by: str


@dataclass(frozen=True, kw_only=True)
class TrapActivated(Payload):
    """A set trap fires in its declared window: it is paid for and its set commitment opened."""

    seat: str
    card: str
    id: str
    type: Literal["trap"]
    window: WindowName
    set_version: int
    set_turn: int
    turn: int
    on_turn_of: str
    cost: int
    paid: Payment
    choices: dict[str, str]
    opened_card: str = hidden(key="card")
    opened_id: str = hidden(key="id")
    opened_window: WindowName | None = hidden(key="window")


@dataclass(frozen=True, kw_only=True)
class SetCardRevealed(Payload):
    """A Reveal turns an opponent's set card face up (or back to hand); a declared type is a ruled call."""

    seat: str
    source: str
    owner: str
    card: str
    id: str
    type: CardType
    window: WindowName | None
    set_version: int
    returned_to_hand: bool = False
    bluff_call: TypeCall | None = optional(None)
    opened_card: str = hidden(key="card")
    opened_id: str = hidden(key="id")
    opened_window: WindowName | None = hidden(key="window")


# ----- units and the field --------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class UnitSacrificed(Payload):
    """A seat sacrifices one of its units (and its item); Crypt Sanctum's owner gains life."""

    seat: str
    unit: str
    id: str
    item: str | None
    by: str
    life_gained: int
    life_gained_by: str


@dataclass(frozen=True, kw_only=True)
class UnitDestroyed(Payload):
    """A unit in play is destroyed (by damage or an effect), its item with it."""

    unit: str
    id: str
    controller: str
    item: str | None
    item_id: str | None
    reason: Literal["damage", "effect"]
    by: str | None


@dataclass(frozen=True, kw_only=True)
class PlayerDamaged(Payload):
    """An effect deals damage to a player."""

    seat: str
    amount: int
    source: str


@dataclass(frozen=True, kw_only=True)
class UnitDamaged(Payload):
    """An effect deals damage to a unit."""

    unit: str
    amount: int
    source: str


@dataclass(frozen=True, kw_only=True)
class UnitBoosted(Payload):
    """An effect boosts a unit's Might and Endurance until the end of the turn."""

    unit: str
    might: int
    endurance: int
    source: str
    until: Literal["end_of_turn"]


@dataclass(frozen=True, kw_only=True)
class AttackerMuted(Payload):
    """An attacker deals no damage this combat."""

    unit: str
    source: str


@dataclass(frozen=True, kw_only=True)
class FieldDestroyed(Payload):
    """The field card in play is destroyed."""

    card: str
    id: str
    owner: str
    by: str


# ----- combat ---------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class AttackDeclared(Payload):
    """The active seat attacks a seat with these units (none: it skips combat)."""

    seat: str
    target: str
    attackers: list[str]


@dataclass(frozen=True, kw_only=True)
class BlocksAwaited(Payload):
    """The defender is asked for blockers against these attackers."""

    seat: str
    attackers: list[str]


@dataclass(frozen=True, kw_only=True)
class BlockersAssigned(Payload):
    """The defender's blocks, blocker → attacker."""

    seat: str
    blocks: dict[str, str]


@dataclass(frozen=True, kw_only=True)
class CombatResolved(Payload):
    """The combat's damage: blocked pairs trade Might, unblocked attackers hit the player."""

    seat: str
    target: str
    unit_damage: list[UnitHit]
    player_damage: dict[str, int]
