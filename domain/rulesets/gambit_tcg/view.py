"""What each viewer sees of a gambit-tcg match.

A seat: its hand, deck list, own set cards with their declared windows, everything face up,
counts of every hidden zone. The opponent and spectators: face-down cards as `hidden` with the
version of the record holding their commitment; hand and deck sizes; everything face up.
`sees_all` (organizers, anyone after the end): everything, the deck order included.
`catalogue` is the public card pool and format a client renders every card id with.
"""

from __future__ import annotations

import copy

from domain.ruleset import Viewer

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
from .phases import attack_candidates

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


def catalogue() -> dict:
    """The public card pool (names, types, costs, stats, keywords, a trap's windows and text), the
    preconstructed decks, and the format's numbers, so a client can render every card id it receives."""
    cards = [{k: c[k] for k in CATALOGUE_FIELDS if k in c} for c in CARDS.values()]
    decks = {name: {card_id: ids.count(card_id) for card_id in dict.fromkeys(ids)} for name, ids in DECKS.items()}
    return {
        "cards": cards,
        "decks": decks,
        "types": list(TYPES),
        "windows": list(WINDOWS),
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


def _face(state: dict, instance: str) -> dict:
    return {"card": instance, "id": state["cards"][instance]}


def view(state: dict, viewer: Viewer) -> dict:
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


def _player(state: dict, seat: str, mine: bool, sees_all: bool) -> dict:
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


def _set_entry(state: dict, entry: dict, mine: bool) -> dict:
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


def _unit(state: dict, seat: str, unit: dict) -> dict:
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
