"""`view`: the table as one viewer may see it; `catalogue`: the public deck.

A face-down card shows only its tokens (tokens are public) unless the viewer may know it: a
seat knows the cards in its `seen` set (shown only with `memory_aid`), organizers and everyone
after the match know all. Card ids are shown exactly where values are, since an id determines
the face.

`VIEWS` declares each viewer's shape: a seat sees each grid card known or hidden (and the card
in its own hand), a spectator sees every card hidden while the match runs, and an organizer,
like everyone once the match has ended, sees every card and the draw pile in order.
"""

from __future__ import annotations

from typing import TypedDict

from domain.records import json_copy
from domain.ruleset import Viewer
from domain.view_types import ViewTypes

from .cards import ABILITIES, CARD_IDS, FACE, GRID_SLOTS, AbilityName, SpecialFace
from .shapes import DragonsState, LastRound, Phase


class CatalogueCard(TypedDict):
    """A card of the deck: its id and face value."""

    id: str
    face: int


class DragonsCatalogue(TypedDict):
    """The public deck, the ability of each special face (by face, as text), and the slots of a grid."""

    cards: list[CatalogueCard]
    abilities: dict[str, str]
    grid_slots: int


CATALOGUE = DragonsCatalogue


def catalogue() -> DragonsCatalogue:
    """The public deck: every card id with its face value, and the ability of each special face."""
    return {
        "cards": [{"id": card, "face": FACE[card]} for card in CARD_IDS],
        "abilities": {str(face): name for face, name in ABILITIES.items()},
        "grid_slots": GRID_SLOTS,
    }


class KnownCard(TypedDict):
    """A grid card the viewer knows: its id, face, tokens and value (face plus tokens)."""

    slot: int
    card: str
    face: int
    tokens: int
    value: int


class HiddenCard(TypedDict):
    """A face-down grid card the viewer does not know: only its tokens, which are public."""

    slot: int
    card: None
    face: None
    tokens: int
    value: None


class KnownDrawnCard(TypedDict):
    """The card a seat holds after drawing, shown (the holder's own, or once all is known)."""

    seat: str
    card: str
    face: int


class HiddenDrawnCard(TypedDict):
    """The card another seat holds after drawing: only who holds it."""

    seat: str
    card: None
    face: None


class FaceUpCard(TypedDict):
    """A card on the discard pile (or, for those who see all, in the draw pile): id and face."""

    card: str
    face: int


class PendingAbilityView(TypedDict):
    """The ability the seat on turn may use now: the face discarded and the ability's name."""

    seat: str
    face: SpecialFace
    ability: AbilityName


class TableView(TypedDict):
    """What every viewer is shown besides the grids and the drawn card."""

    round: int
    phase: Phase
    seats: list[str]
    current: str | None
    round_first_seat: str | None
    discard: list[FaceUpCard]
    draw_pile_count: int
    pending_ability: PendingAbilityView | None
    caller: str | None
    final_turns_left: list[str]
    turns_taken: dict[str, int]
    peeked: dict[str, bool]
    scores: dict[str, int]
    target_score: int
    caller_penalty: int
    memory_aid: bool
    last_round: LastRound | None
    rounds_played: int


class SeatView(TableView):
    """A seat's view while the match runs: the cards it knows, and the card in its own hand."""

    grids: dict[str, list[KnownCard | HiddenCard]]
    drawn: KnownDrawnCard | HiddenDrawnCard | None


class SpectatorView(TableView):
    """A spectator's view while the match runs: every card face down, tokens and counts only."""

    grids: dict[str, list[HiddenCard]]
    drawn: HiddenDrawnCard | None


class FullView(TableView):
    """An organizer's view, and everyone's once the match has ended: every card, the draw pile in order."""

    grids: dict[str, list[KnownCard]]
    drawn: KnownDrawnCard | None
    draw_pile: list[FaceUpCard]


VIEWS = ViewTypes(seat=SeatView, spectator=SpectatorView, organizer=FullView, ended=FullView)


def _card(card: str, tokens: int, known: bool) -> dict:
    if not known:
        return {"card": None, "face": None, "tokens": tokens, "value": None}
    return {"card": card, "face": FACE[card], "tokens": tokens, "value": FACE[card] + tokens}


def view(state: DragonsState, viewer: Viewer) -> dict:
    """The board for `viewer`: grids (values only where known), tokens, discards, turn and scores."""
    all_known = viewer.sees_all
    me = viewer.seat if viewer.role == "seat" and viewer.seat in state["seats"] else None
    remembered = set(state["seen"][me]) if me is not None and state["config"]["memory_aid"] else set()
    tokens = state["tokens"]

    grids = {
        seat: [dict(slot=i, **_card(c, tokens.get(c, 0), all_known or c in remembered)) for i, c in enumerate(cards)]
        for seat, cards in state["grids"].items()
    }
    drawn = None
    if state["drawn"] is not None:
        holder, card = state["drawn"]["seat"], state["drawn"]["card"]
        # The card in your hand is in front of you, so it shows even without the memory aid.
        shown = all_known or holder == me
        drawn = {"seat": holder, "card": card if shown else None, "face": FACE[card] if shown else None}
    pending = state["pending_ability"]
    out = {
        "round": state["round"],
        "phase": state["phase"],
        "seats": list(state["seats"]),
        # Only a seat on turn is current: during the simultaneous `choose` peek every unpeeked
        # seat is waited for (to_act), none of them is on turn (a snapshot taken before the state
        # kept `current` None there still shows None).
        "current": state["current"] if state["phase"] == "turn" else None,
        "round_first_seat": state["round_first_seat"],
        "grids": grids,
        "discard": [{"card": c, "face": FACE[c]} for c in state["discard"]],
        "draw_pile_count": len(state["draw_pile"]),
        "drawn": drawn,
        "pending_ability": None
        if pending is None
        else {"seat": pending["seat"], "face": pending["face"], "ability": ABILITIES[pending["face"]]},
        "caller": state["caller"],
        "final_turns_left": list(state["final_turns_left"]),
        "turns_taken": dict(state["turns_taken"]),
        "peeked": dict(state["peeked"]),
        "scores": dict(state["scores"]),
        "target_score": state["config"]["target_score"],
        "caller_penalty": state["config"]["caller_penalty"],
        "memory_aid": state["config"]["memory_aid"],
        "last_round": None if state["last_round"] is None else json_copy(state["last_round"]),
        "rounds_played": state.get("rounds_played", len(state.get("history", []))),
    }
    if all_known:
        out["draw_pile"] = [{"card": c, "face": FACE[c]} for c in state["draw_pile"]]
    return out
