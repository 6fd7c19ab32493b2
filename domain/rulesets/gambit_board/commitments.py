"""One commitment per power slot (a piece's movement or action power), so reveals open only what they show.

A seat's powers are committed twice over: its whole assignment (`PowersAssigned`,
`PowerReassigned`: the seat's own record of what it chose) and, right after, one `PowerCommitted`
record per slot — secret `{"piece", "power_type", "power"}` (power None when the slot is empty),
audience the seat. The slot records are what rulings and reveals rest on:

- a true claim reveals the claimed power to everyone, so its ruling opens that slot's record
  (`opens`); a false claim's evidence is the same slot, but it would show what the piece really
  holds, so it stays sealed in the ruling's secret (`evidence`) until the match ends;
- a lost piece's powers are shown, so the record of its loss opens both of its slots;
- whenever a slot's power changes (a kamikaze spent, a reassignment, a Sensei transfer, a Witch
  Doctor swap), the slot gets a new record,
  so the newest commitment of every slot always holds what the piece holds, and every later
  ruling's evidence supports its verdict (rules page, "Spent and changed powers are committed").

A reassignment's piece is the seat's secret, so it recommits that type's slot of every piece the
seat still has (the public part then says nothing about which one changed). The state keeps
`slots` (piece → type → version of its newest commitment) and `owed` (the slot records the
events just folded require, in order), from which `derived_public` and `derived_secret` bind each
`PowerCommitted` record.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from domain.decision import Decision
from domain.ruleset import Event

from .flow import on_board, pieces_of
from .payloads import PowerCommitted
from .powers import TYPES

if TYPE_CHECKING:
    from .shapes import BoardState

COMMITTED = "PowerCommitted"


def slot_version(state: BoardState, piece: str, kind: str) -> int | None:
    """The version of the newest commitment to a piece's power of one type (None before any)."""
    return state.get("slots", {}).get(piece, {}).get(kind)


def evidence_version(state: BoardState, claimant: str, piece: str, kind: str) -> int | None:
    """The commitment a call on that power rests on: its slot's newest record.

    A match begun before slots were committed one by one has only whole assignments; its
    rulings rest on the claimant's newest assignment, as they were recorded.
    """
    return slot_version(state, piece, kind) or state["assignment_version"][claimant]


def piece_slots(state: BoardState, piece: str) -> tuple[int, ...]:
    """The versions of a piece's newest power commitments, both types (to open when the piece is lost)."""
    return tuple(v for kind in TYPES if (v := slot_version(state, piece, kind)) is not None)


def owe(state: BoardState, pieces: list[str], kinds: tuple[str, ...], reason: str) -> None:
    """Note that the slot records of these pieces and types must follow (evolve side)."""
    state.setdefault("owed", []).extend([piece, kind, reason] for piece in pieces for kind in kinds)


def owed_after_assignment(seat: str) -> tuple[list[str], tuple[str, ...], str]:
    """The slots an assignment commits: every piece of the seat, both types."""
    return pieces_of(seat), TYPES, "assigned"


def owed_after_reassignment(state: BoardState, seat: str, kind: str) -> tuple[list[str], tuple[str, ...], str]:
    """The slots a reassignment commits: that type's slot of every piece the seat still has."""
    return on_board(state, seat), (kind,), "reassigned"


def owed_after_kamikaze(piece: str) -> tuple[list[str], tuple[str, ...], str]:
    """The slot an accepted kamikaze commits anew: the kamikaze piece's action power (spent or not)."""
    return [piece], ("action",), "kamikaze_spent"


def owed_after_transfer(source: str, target: str, kinds: tuple[str, ...]) -> tuple[list[str], tuple[str, ...], str]:
    """The slots a Sensei transfer commits anew (stood, or accepted though bluffed): those types of both pieces."""
    return [source, target], kinds, "sensei_transfer"


def owed_after_swap(piece: str) -> tuple[list[str], tuple[str, ...], str]:
    """The slots a Witch Doctor swap commits anew for one of its two pieces: both types."""
    return [piece], TYPES, "witch_doctor_swap"


def slot_secret(state: BoardState, piece: str, kind: str) -> dict:
    """A slot record's secret: the power the piece holds of that type now."""
    return {"piece": piece, "power_type": kind, "power": state["powers"][piece][kind]}


def committed_public(state: BoardState) -> dict | None:
    """The public part of the next slot record the state owes: whose, which piece, which type, why."""
    owed = state.get("owed") or []
    if not owed:
        return None
    piece, kind, reason = owed[0]
    return {"seat": "south" if piece[0] == "S" else "north", "piece": piece, "power_type": kind, "reason": reason}


def record_owed_slots(play: Decision[BoardState]) -> None:
    """Emit the slot records the events decided so far require, in order (decide side)."""
    while (public := committed_public(play.state)) is not None:
        play.emit(COMMITTED, public, slot_secret(play.state, public["piece"], public["power_type"]), (public["seat"],))


def fold_committed(state: BoardState, committed: PowerCommitted, event: Event) -> None:
    """Fold a slot record: it is now the newest commitment of its slot."""
    owed = state.setdefault("owed", [])
    if owed and owed[0][:2] == [committed.piece, committed.power_type]:
        owed.pop(0)
    slots = state.setdefault("slots", {}).setdefault(committed.piece, {"movement": None, "action": None})
    slots[committed.power_type] = event.version
