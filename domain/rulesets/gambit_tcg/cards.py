"""The card pool and preconstructed decks, loaded from `cards.json` and validated at import.

Every card is data: type, cost, stats, keywords and effects drawn from the fixed vocabulary
(`EFFECT_PARAMS` here; effects.py reads the choices, resolution.py resolves them), and for a
trap the windows its effect can apply in (`windows`, rules page: "Trap windows are card data"),
checked at import so a typo in the data file fails there instead of mid-match. Format
constants (life, deck size, caps) live here too.
"""

from __future__ import annotations

import json
from pathlib import Path

SEATS = ("p1", "p2")
STARTING_LIFE = 20
DECK_SIZE = 30
MAX_COPIES = 3
MAX_HAND = 5
OPENING_HAND = {"p1": 5, "p2": 6}
UNIT_CAP = 5
SET_CAP = 5
ENERGY_CAP = MAX_HAND

TYPES = ("unit", "spell", "trap", "item", "field")
PHASES = ("main1", "combat", "main2", "draw", "end")
WINDOWS = PHASES + ("attack_declared", "spell_activated", "unit_played")
KEYWORDS = ("guard", "rush", "conduit", "cursed", "sacrifice", "reveal")
FIELD_KINDS = ("spell", "relic")

# The effect vocabulary: each effect name and the parameters it takes (name -> allowed type).
EFFECT_PARAMS: dict[str, dict[str, type]] = {
    "reveal": {"declare_type": bool, "life_if_right": int, "required": bool, "return_if_type": str},
    "sacrifice": {"optional": bool, "other": bool, "then": list},
    "draw": {"count": int},
    "damage_player": {"amount": int},
    "destroy_attacker": {"min_might": int},
    "damage_attacker": {"amount": int},
    "mute_attacker": {},
    "nullify_spell": {},
    "destroy_field": {"field_kind": str},
    "boost": {"might": int, "endurance": int},
}
EQUIP_PARAMS: dict[str, type] = {"might": int, "endurance": int, "keywords": list}
AURA_PARAMS: dict[str, type] = {"revealed_cost": int, "sacrifice_life": int, "own_units_endurance": int}


class CardDataError(ValueError):
    """The card data file breaks the schema (raised at import)."""


def _check_effects(card_id: str, effects: object) -> None:
    if not isinstance(effects, list):
        raise CardDataError(f"{card_id}: effects must be a list")
    for effect in effects:
        if not isinstance(effect, dict) or effect.get("do") not in EFFECT_PARAMS:
            raise CardDataError(f"{card_id}: unknown effect {effect!r}")
        allowed = EFFECT_PARAMS[effect["do"]]
        for key, value in effect.items():
            if key == "do":
                continue
            wanted = allowed.get(key)
            # bool is an int in Python: a flag must be a bool and a number must not be one.
            if wanted is None or not isinstance(value, wanted) or isinstance(value, bool) != (wanted is bool):
                raise CardDataError(f"{card_id}: effect {effect['do']} has a bad parameter {key}={value!r}")
        if effect["do"] == "sacrifice":
            _check_effects(card_id, effect.get("then", []))
        if effect.get("return_if_type", "unit") not in TYPES:
            raise CardDataError(f"{card_id}: return_if_type must be a card type")
        if effect["do"] == "destroy_field" and effect.get("field_kind") not in FIELD_KINDS:
            raise CardDataError(f"{card_id}: destroy_field needs field_kind spell|relic")


def _check_table(card_id: str, name: str, table: object, params: dict[str, type]) -> None:
    if not isinstance(table, dict):
        raise CardDataError(f"{card_id}: {name} must be an object")
    for key, value in table.items():
        if key not in params or not isinstance(value, params[key]) or isinstance(value, bool):
            raise CardDataError(f"{card_id}: {name} has a bad entry {key}={value!r}")
    for keyword in table.get("keywords", []):
        if keyword not in KEYWORDS:
            raise CardDataError(f"{card_id}: unknown keyword {keyword!r}")


def _check_windows(card_id: str, kind: str, card: dict) -> None:
    """A trap names the windows it answers (at least one, each from WINDOWS, no repeats); no other card has any."""
    if kind != "trap":
        if "windows" in card:
            raise CardDataError(f"{card_id}: only a trap names trigger windows")
        return
    windows = card.get("windows")
    if not isinstance(windows, list) or not windows or len(set(map(str, windows))) != len(windows):
        raise CardDataError(f"{card_id}: a trap needs a list of distinct trigger windows")
    for window in windows:
        if window not in WINDOWS:
            raise CardDataError(f"{card_id}: unknown window {window!r} (windows are {list(WINDOWS)})")


def _check_card(card: dict) -> None:
    card_id = card.get("id")
    if not isinstance(card_id, str) or not card_id:
        raise CardDataError(f"card without an id: {card!r}")
    kind = card.get("type")
    if kind not in TYPES:
        raise CardDataError(f"{card_id}: unknown type {kind!r}")
    cost = card.get("cost")
    if not isinstance(cost, int) or isinstance(cost, bool) or cost < 0:
        raise CardDataError(f"{card_id}: cost must be a non-negative int")
    for keyword in card.get("keywords", []):
        if keyword not in KEYWORDS:
            raise CardDataError(f"{card_id}: unknown keyword {keyword!r}")
    if kind == "unit":
        for stat in ("might", "endurance"):
            if not isinstance(card.get(stat), int) or card[stat] < 0:
                raise CardDataError(f"{card_id}: a unit needs a non-negative {stat}")
        if card["endurance"] < 1:
            raise CardDataError(f"{card_id}: a unit needs endurance of at least 1")
    if kind in ("unit", "spell", "trap"):
        _check_effects(card_id, card.get("effects", []))
    if kind in ("spell", "trap") and not card.get("effects"):
        raise CardDataError(f"{card_id}: a {kind} needs at least one effect")
    _check_windows(card_id, kind, card)
    if kind == "item":
        _check_table(card_id, "equip", card.get("equip"), EQUIP_PARAMS)
    if kind == "field":
        if card.get("field_kind") not in FIELD_KINDS:
            raise CardDataError(f"{card_id}: field_kind must be spell or relic")
        _check_table(card_id, "aura", card.get("aura"), AURA_PARAMS)


def load(text: str) -> tuple[dict[str, dict], dict[str, list[str]]]:
    """Parse and validate the card data: (cards by id, preconstructed decks as 30-id lists)."""
    data = json.loads(text)
    cards: dict[str, dict] = {}
    for card in data.get("cards", []):
        _check_card(card)
        if card["id"] in cards:
            raise CardDataError(f"duplicate card id {card['id']}")
        card.setdefault("keywords", [])
        card.setdefault("effects", [])
        cards[card["id"]] = card
    decks: dict[str, list[str]] = {}
    for name, counts in data.get("decks", {}).items():
        cards_list = [card_id for card_id, n in counts.items() for _ in range(n)]
        problem = deck_problem(cards_list, cards)
        if problem is not None:
            raise CardDataError(f"deck {name}: {problem}")
        decks[name] = cards_list
    return cards, decks


def deck_problem(deck: list, pool: dict[str, dict]) -> str | None:
    """Why a deck list is not legal (size, copies, unknown ids), or None when it is."""
    for card_id in deck:
        if not isinstance(card_id, str) or card_id not in pool:
            return f"unknown card id {card_id!r}"
    if len(deck) != DECK_SIZE:
        return f"a deck has exactly {DECK_SIZE} cards, this one has {len(deck)}"
    for card_id in sorted(set(deck)):
        if deck.count(card_id) > MAX_COPIES:
            return f"at most {MAX_COPIES} copies of a card, {card_id} has {deck.count(card_id)}"
    return None


CARDS, DECKS = load((Path(__file__).with_name("cards.json")).read_text(encoding="utf-8"))
TRAP_IDS = tuple(card_id for card_id, card in CARDS.items() if card["type"] == "trap")


def card(card_id: str) -> dict:
    """The definition of a card id."""
    return CARDS[card_id]


def trap_windows(card_id: str) -> list[str]:
    """The windows a trap's effect can apply in (its card data); empty for any other card."""
    return list(CARDS[card_id].get("windows", []))


def has_keyword(card_id: str, keyword: str) -> bool:
    """Whether the printed card carries a keyword."""
    return keyword in CARDS[card_id]["keywords"]


def energy_value(card_id: str) -> int:
    """Energy an energized card gives per turn: 2 with Conduit, else 1."""
    return 2 if has_keyword(card_id, "conduit") else 1
