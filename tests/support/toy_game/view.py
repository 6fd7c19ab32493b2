"""What each viewer sees of a Toy Swap table, declared per viewer, and the (empty) catalogue."""

from __future__ import annotations

from typing import TypedDict

from domain.ruleset import ORGANIZER, Viewer
from domain.view_types import ViewTypes

from .shapes import ToyState


class TableView(TypedDict):
    """What everyone sees: whose turn it is, who acted, the deck's size, and the cards once shown."""

    turn: str | None
    acted: list[str]
    deck_size: int
    shown: dict[str, int] | None


class SeatView(TableView):
    """A seat also sees its own card."""

    card: int | None


class FullView(TableView):
    """An organizer, or anyone once the game has ended, sees every card and the deck."""

    hands: dict[str, int]
    deck: list[int]


VIEWS = ViewTypes(seat=SeatView, spectator=TableView, organizer=FullView, ended=FullView)


def view(state: ToyState, viewer: Viewer) -> dict:
    """The table as `viewer` may see it: a seat's own card; every card for organizers and after the end."""
    out: dict = {
        "turn": state["turn"],
        "acted": list(state["acted"]),
        "deck_size": len(state["deck"]),
        "shown": dict(state["hands"]) if state["shown"] else None,
    }
    if viewer.sees_all or viewer.role == ORGANIZER:
        out["hands"] = dict(state["hands"])
        out["deck"] = list(state["deck"])
    elif viewer.seat is not None:
        out["card"] = state["hands"].get(viewer.seat)
    return out


# Toy Swap has no static game data beyond its rules: no catalogue type, and `catalogue()` is None.
CATALOGUE = None


def catalogue() -> None:
    """Toy Swap has no static game data beyond its rules."""
    return
