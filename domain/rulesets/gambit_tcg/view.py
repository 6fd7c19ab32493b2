"""What each viewer sees of a gambit-tcg match.

A seat: its hand, deck list, own set cards with their declared windows, everything face up,
counts of every hidden zone. The opponent and spectators: face-down cards as `hidden` with the
version of the record holding their commitment; hand and deck sizes; everything face up.
`sees_all` (organizers, anyone after the end): everything, the deck order included.
`catalogue` is the public card pool and format a client renders every card id with.

`VIEWS` declares each viewer's shape: a seat sees its own player whole (hand, deck list, its set
cards' identities) and the others as the table does; a spectator sees every player as the table
does (a face-down card is `hidden`); an organizer, and anyone once the match has ended, sees every
player whole with the deck order.
"""

from __future__ import annotations

import copy
from typing import Literal, NotRequired, TypedDict, cast

from domain.ruleset import Viewer
from domain.view_types import ViewTypes

from .cards import (
    CARDS,
    DECK_SIZE,
    DECKS,
    KEYWORDS,
    MAX_COPIES,
    MAX_HAND,
    SET_CAP,
    STARTING_LIFE,
    TYPES,
    UNIT_CAP,
    WINDOWS,
)
from .effects import endurance, keywords, might
from .legal import to_act
from .payloads import CardFace
from .phases import attack_candidates
from .shapes import CardType, CombatState, Phase, Result, SetEntry, Step, TcgState, UnitEntry, WindowName

CATALOGUE_FIELDS = (
    "id",
    "name",
    "color",
    "type",
    "cost",
    "might",
    "endurance",
    "keywords",
    "field_kind",
    "windows",
    "text",
)


class SetCardBase(TypedDict):
    """A card in a Set Zone as anyone sees it: when it was set, whether it is face up, its commitment."""

    card: str
    face: Literal["up", "down"]
    set_turn: int
    ready_turn: int
    commitment_version: int | None


class FaceDownSetCard(SetCardBase):
    """Another seat's face-down set card: what it is stays hidden."""

    hidden: Literal[True]


class RevealedSetCard(SetCardBase):
    """Another seat's revealed set card that is no trap: what it is (no window: it has none)."""

    id: str
    type: Literal["unit", "spell", "item", "field"]


class RevealedTrap(SetCardBase):
    """Another seat's revealed trap: what it is and the window it was set for."""

    id: str
    type: Literal["trap"]
    window: str | None


class OwnSetCard(SetCardBase):
    """One's own set card (or any, for who sees all): what it is and the window declared for it."""

    id: str
    type: Literal["unit", "spell", "trap", "item", "field"]
    window: str | None


class EnergyView(TypedDict):
    """A card in an Energy Zone: ready or exhausted, and what it pays."""

    card: str
    id: str
    ready: bool
    value: int


class BoostView(TypedDict):
    """A unit's boosts this turn."""

    might: int
    endurance: int


class UnitView(TypedDict):
    """A unit in play with its current stats, keywords, item and boosts."""

    card: str
    id: str
    might: int
    endurance: int
    damage: int
    keywords: list[str]
    entered_turn: int
    can_attack: bool
    item: CardFace | None
    boost: BoostView


class PlayerBase(TypedDict):
    """What anyone sees of a seat: life, zone sizes, energy, units, graveyard, exile."""

    life: int
    deck_size: int
    hand_size: int
    set_size: int
    energized_this_turn: bool
    energy: list[EnergyView]
    units: list[UnitView]
    graveyard: list[CardFace]
    exile: list[CardFace]


class TablePlayer(PlayerBase):
    """Another seat as a seat or spectator sees it: its face-down set cards hidden."""

    set: list[FaceDownSetCard | RevealedSetCard | RevealedTrap]


class OwnPlayer(PlayerBase):
    """A seat as it sees itself: its hand, deck list and set cards too."""

    set: list[OwnSetCard]
    hand: list[CardFace]
    deck_name: str | None
    deck_list: list[str]


class FullPlayer(OwnPlayer):
    """A seat as who sees all sees it: the deck's order too."""

    deck: list[CardFace]


class WindowView(TypedDict):
    """The open trap window and the seats still to answer it."""

    name: str
    responders: list[str]


class FieldView(TypedDict):
    """The field card in play, its owner and kind."""

    card: str
    id: str
    owner: str
    kind: Literal["spell", "relic"]


class PendingSpellView(TypedDict):
    """The spell on the stack and its choices."""

    card: str
    id: str
    seat: str
    choices: dict[str, str]


class TcgViewBase(TypedDict):
    """The board as every viewer sees it, but for the players."""

    ruleset: Literal["gambit-tcg"]
    viewer: str
    turn: int
    active: str | None
    phase: Phase | Literal["setup", "free_set", "over"]
    step: Step | None
    to_act: list[str]
    window: WindowView | None
    field: FieldView | None
    combat: CombatState | None
    pending_spell: PendingSpellView | None
    result: Result | None


class SeatView(TcgViewBase):
    """A seat's view while the match runs: itself whole, the other seat as the table sees it."""

    players: dict[str, OwnPlayer | TablePlayer]


class SpectatorView(TcgViewBase):
    """A spectator's view while the match runs: every seat as the table sees it."""

    players: dict[str, TablePlayer]


class FullView(TcgViewBase):
    """An organizer's view, and anyone's once the match has ended: every seat whole, decks in order."""

    players: dict[str, FullPlayer]


VIEWS = ViewTypes(seat=SeatView, spectator=SpectatorView, organizer=FullView, ended=FullView)


class CatalogueCard(TypedDict):
    """A card of the pool: a unit has Might and Endurance, a field its kind, a trap the windows it answers."""

    id: str
    name: str
    color: str | None
    type: CardType
    cost: int
    might: NotRequired[int]
    endurance: NotRequired[int]
    keywords: list[str]
    field_kind: NotRequired[str]
    windows: NotRequired[list[WindowName]]
    text: str


class CatalogueFormat(TypedDict):
    """The format's numbers: starting life, deck size, copies of a card, hand, Unit Zone and Set Zone limits."""

    life: int
    deck_size: int
    max_copies: int
    max_hand: int
    unit_zone: int
    set_zone: int


class TcgCatalogue(TypedDict):
    """The card pool, the preconstructed decks (card id → copies), the card types, windows and keywords,
    and the format."""

    cards: list[CatalogueCard]
    decks: dict[str, dict[str, int]]
    types: list[CardType]
    windows: list[WindowName]
    keywords: list[str]
    format: CatalogueFormat


CATALOGUE = TcgCatalogue


def catalogue() -> TcgCatalogue:
    """The public card pool (names, types, costs, stats, keywords, a trap's windows and text), the
    preconstructed decks, and the format's numbers, so a client can render every card id it receives."""
    cards = [cast(CatalogueCard, {k: c[k] for k in CATALOGUE_FIELDS if k in c}) for c in CARDS.values()]
    decks = {name: {card_id: ids.count(card_id) for card_id in dict.fromkeys(ids)} for name, ids in DECKS.items()}
    return {
        "cards": cards,
        "decks": decks,
        # The vocabularies of cards.py are the Literals of shapes.py (cards.py sits below shapes.py).
        "types": cast(list[CardType], list(TYPES)),
        "windows": cast(list[WindowName], list(WINDOWS)),
        "keywords": list(KEYWORDS),
        "format": {
            "life": STARTING_LIFE,
            "deck_size": DECK_SIZE,
            "max_copies": MAX_COPIES,
            "max_hand": MAX_HAND,
            "unit_zone": UNIT_CAP,
            "set_zone": SET_CAP,
        },
    }


def _face(state: TcgState, instance: str) -> dict:
    return {"card": instance, "id": state["cards"][instance]}


def view(state: TcgState, viewer: Viewer) -> dict:
    """The board as `viewer` may see it (fresh objects, never references into the state)."""
    me = viewer.seat if viewer.role == "seat" else None
    players = {}
    for seat in state["seats"]:
        mine = viewer.sees_all or seat == me
        players[seat] = _player(state, seat, mine, viewer.sees_all)
    field = state["field"]
    pending = state["pending_spell"]
    return {
        "ruleset": "gambit-tcg",
        "viewer": viewer.label,
        "turn": state["turn"],
        "active": state["active"],
        "phase": state["phase"],
        "step": state["step"],
        "to_act": to_act(state),
        "window": None
        if state["window"] is None
        else {"name": state["window"]["name"], "responders": list(state["window"]["responders"])},
        "field": None
        if field is None
        else {
            **_face(state, field["card"]),
            "owner": field["owner"],
            "kind": CARDS[state["cards"][field["card"]]]["field_kind"],
        },
        "combat": copy.deepcopy(state["combat"]),
        "pending_spell": None
        if pending is None
        else {**_face(state, pending["card"]), "seat": pending["seat"], "choices": dict(pending["choices"])},
        "players": players,
        "result": copy.deepcopy(state["result"]),
    }


def _player(state: TcgState, seat: str, mine: bool, sees_all: bool) -> dict:
    player = state["players"][seat]
    out = {
        "life": player["life"],
        "deck_size": len(player["deck"]),
        "hand_size": len(player["hand"]),
        "set_size": len(player["set"]),
        "energized_this_turn": player["energized"],
        "set": [_set_entry(state, e, mine) for e in player["set"]],
        "energy": [
            {
                **_face(state, e["card"]),
                "ready": e["ready"],
                "value": 2 if "conduit" in CARDS[state["cards"][e["card"]]]["keywords"] else 1,
            }
            for e in player["energy"]
        ],
        "units": [_unit(state, seat, u) for u in player["units"]],
        "graveyard": [_face(state, c) for c in player["graveyard"]],
        "exile": [_face(state, c) for c in player["exile"]],
    }
    if mine:
        out["hand"] = [_face(state, c) for c in player["hand"]]
        out["deck_name"] = player["deck_name"]
        out["deck_list"] = sorted(player["deck_list"])
    if sees_all:
        out["deck"] = [_face(state, c) for c in player["deck"]]
    return out


def _set_entry(state: TcgState, entry: SetEntry, mine: bool) -> dict:
    out = {
        "card": entry["card"],
        "face": "up" if entry["revealed"] else "down",
        "set_turn": entry["set_turn"],
        "ready_turn": entry["ready_turn"],
        "commitment_version": entry["set_version"],
    }
    card_id = state["cards"][entry["card"]]
    if mine or entry["revealed"]:
        out["id"] = card_id
        out["type"] = CARDS[card_id]["type"]
        if CARDS[card_id]["type"] == "trap" or mine:
            out["window"] = entry["window"]
    else:
        out["hidden"] = True
    return out


def _unit(state: TcgState, seat: str, unit: UnitEntry) -> dict:
    return {
        **_face(state, unit["card"]),
        "might": might(state, unit),
        "endurance": endurance(state, seat, unit),
        "damage": unit["damage"],
        "keywords": keywords(state, unit),
        "entered_turn": unit["entered_turn"],
        "can_attack": unit["card"] in attack_candidates(state, seat),
        "item": None if unit["item"] is None else _face(state, unit["item"]),
        "boost": {"might": unit["boost_might"], "endurance": unit["boost_endurance"]},
    }
