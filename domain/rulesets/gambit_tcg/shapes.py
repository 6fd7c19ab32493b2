"""The shape of a gambit-tcg state (`TcgState` and its parts) and the lookups every module reads it with.

State (plain JSON; it is the organizer's truth, views filter it):
- `cards` {instance: card id}: every physical card; instances are `<seat>-NN`, numbered by
  position in the shuffled deck, so an instance id says nothing about the card.
- `players` {seat: PlayerState}: life, deck (top first), hand, Set Zone, Energy Zone, units,
  graveyard, exile, whether the seat energized this turn.
- `field` | None; `combat` | None; `pending_spell` | None (a spell on the stack).
- `turn`, `active`, `phase`, `step`, `window` (the open trap window) | None.
- `result` {winners, reason, ...} | None; `version` the last folded event's version.

The shape lives here, below events.py and state.py, because both read it: state.py folds the
payloads events.py declares, and events.py's parts are built from these lookups.
"""

from __future__ import annotations

from typing import Literal, TypedDict, TypeVar

from domain.ruleset import RuleViolation

from .cards import SEATS

T = TypeVar("T")

Phase = Literal["main1", "combat", "main2", "draw", "end"]
WindowName = Literal[Phase, "attack_declared", "spell_activated", "unit_played"]
CardType = Literal["unit", "spell", "trap", "item", "field"]
LossReason = Literal["zero_life", "deck_out", "time", "resignation"]
Step = Literal["free_set", "main", "attack", "blocks"]


class SetEntry(TypedDict):
    """A card face down (or revealed) in a Set Zone: its commitment's version, its wait and its window."""

    card: str
    set_version: int | None
    set_turn: int
    ready_turn: int
    revealed: bool
    window: str | None


class EnergyEntry(TypedDict):
    """A card in an Energy Zone, ready or exhausted until its owner's next turn."""

    card: str
    ready: bool


class UnitEntry(TypedDict):
    """A unit in play: when it entered, its damage and boosts this turn, its item."""

    card: str
    entered_turn: int
    damage: int
    item: str | None
    boost_might: int
    boost_endurance: int


class PlayerState(TypedDict):
    """One seat's zones and life."""

    life: int
    deck_name: str | None
    deck_list: list[str]
    deck: list[str]
    hand: list[str]
    set: list[SetEntry]
    energy: list[EnergyEntry]
    units: list[UnitEntry]
    graveyard: list[str]
    exile: list[str]
    energized: bool


class FieldInPlay(TypedDict):
    """The field card in play and its owner."""

    card: str
    owner: str


class CombatState(TypedDict):
    """A combat under way: who attacks whom with what, the blocks (blocker → attacker), muted attackers."""

    seat: str
    target: str
    attackers: list[str]
    blocks: dict[str, str]
    muted: list[str]


class PendingSpell(TypedDict):
    """A spell on the stack, waiting for its window: its choices and the version of its CardPlayed."""

    seat: str
    card: str
    choices: dict[str, str]
    version: int | None


class OpenWindow(TypedDict):
    """The open trap window: its name, the seats still to answer it (in order), the turn it opened on."""

    name: str
    responders: list[str]
    turn: int


class LossResult(TypedDict):
    """A game ended by a loss: the seats left win."""

    winners: list[str]
    reason: LossReason
    losers: list[str]


class TurnLimitResult(TypedDict):
    """A game ended by the turn limit: the one seat with the most life wins (none on a tie)."""

    winners: list[str]
    reason: Literal["turn_limit"]
    life: dict[str, int]


Result = LossResult | TurnLimitResult


class TcgConfigData(TypedDict):
    """The match config as the state holds it (config_to_dict of Config)."""

    players: int
    turn_limit: int


class TcgState(TypedDict):
    """The whole state of a gambit-tcg match (see the module docstring)."""

    config: TcgConfigData
    seats: list[str]
    version: int
    turn: int
    active: str | None
    phase: Phase | Literal["setup", "free_set", "over"]
    step: Step | None
    window: OpenWindow | None
    cards: dict[str, str]
    field: FieldInPlay | None
    combat: CombatState | None
    pending_spell: PendingSpell | None
    result: Result | None
    players: dict[str, PlayerState]


def owner_of(instance: str) -> str:
    """The seat that owns a card instance (its deck's seat)."""
    return instance.split("-", 1)[0]


def opponent(seat: str | None) -> str:
    """The other seat."""
    return SEATS[1] if seat == SEATS[0] else SEATS[0]


def active_on(turn: int) -> str:
    """Who takes turn number `turn` (p1 the odd turns, p2 the even ones)."""
    return SEATS[0] if turn % 2 == 1 else SEATS[1]


def ready_turn(set_turn: int, seat: str) -> int:
    """The first turn a trap set on `set_turn` may fire: the start of its owner's next turn."""
    turn = set_turn + 1
    while active_on(turn) != seat:
        turn += 1
    return turn


def find_unit(state: TcgState, instance: str | None) -> tuple[str, UnitEntry] | tuple[None, None]:
    """(controller, unit entry) of a unit in play, or (None, None)."""
    for seat in state["seats"]:
        for unit in state["players"][seat]["units"]:
            if unit["card"] == instance:
                return seat, unit
    return None, None


def find_set(state: TcgState, instance: str | None) -> tuple[str, SetEntry] | tuple[None, None]:
    """(owner, set entry) of a card in a Set Zone, or (None, None)."""
    for seat in state["seats"]:
        for entry in state["players"][seat]["set"]:
            if entry["card"] == instance:
                return seat, entry
    return None, None


def unit_in_play(state: TcgState, instance: str) -> UnitEntry:
    """The entry of a unit the rules know is in play (KeyError if it is not: a record that cannot replay)."""
    _, unit = find_unit(state, instance)
    if unit is None:
        raise KeyError(instance)
    return unit


def set_entry(state: TcgState, instance: str) -> tuple[str, SetEntry]:
    """(owner, set entry) of a card the rules know is set (KeyError if it is not: a record that cannot replay)."""
    owner, entry = find_set(state, instance)
    if owner is None or entry is None:
        raise KeyError(instance)
    return owner, entry


def source_of(state: TcgState, seat: str, card: str) -> tuple[Literal["hand", "set"], SetEntry | None]:
    """Where a card of `seat` may be played from: ("hand", None) or ("set", entry); RuleViolation otherwise."""
    if card in state["players"][seat]["hand"]:
        return "hand", None
    owner, entry = find_set(state, card)
    if owner == seat:
        return "set", entry
    raise RuleViolation("card_not_in_hand", f"{card!r} is not in your hand or Set Zone")


def _present(value: T | None, name: str) -> T:
    """A part of the state the rules know is there (KeyError if it is not: a record that cannot replay)."""
    if value is None:
        raise KeyError(name)
    return value


def on_turn(state: TcgState) -> str:
    """The seat whose turn it is (KeyError before the first turn)."""
    return _present(state["active"], "active")


def combat_of(state: TcgState) -> CombatState:
    """The combat under way (KeyError when none is)."""
    return _present(state["combat"], "combat")


def window_of(state: TcgState) -> OpenWindow:
    """The open trap window (KeyError when none is)."""
    return _present(state["window"], "window")


def pending_of(state: TcgState) -> PendingSpell:
    """The spell on the stack (KeyError when none is)."""
    return _present(state["pending_spell"], "pending_spell")


def field_of(state: TcgState) -> FieldInPlay:
    """The field card in play (KeyError when none is)."""
    return _present(state["field"], "field")


def commitment_version(entry: SetEntry) -> int:
    """The version of the CardSet record holding a set card's commitment (KeyError before it is recorded)."""
    return _present(entry["set_version"], "set_version")
