"""The effect vocabulary's choices, shared by every card; and the static abilities.

A card's `effects` (cards.json) are a list of `{"do": name, ...params}`. For each name this
module knows which command choices it reads (`target`, `reveal`, `declared_type`,
`sacrifice`, `target_player`), the legal choices in a position (`choice_options`) and why a
choice is illegal (`check_choices`); resolution.py turns them into events. Statics — item
bonuses, field auras, keywords — are computed here too (`might`, `endurance`, ...).
"""

from __future__ import annotations

import itertools

from domain.ruleset import RuleViolation

from .cards import CARDS, TYPES
from .shapes import TcgState, UnitEntry, find_unit, unit_in_play

CHOICE_FIELDS = ("target", "reveal", "declared_type", "sacrifice", "target_player")


# ----- statics --------------------------------------------------------------------------------


def field_aura(state: TcgState, name: str) -> tuple[str | None, int]:
    """(owner, amount) of an aura of the field card in play, or (None, 0)."""
    field = state["field"]
    if field is None:
        return None, 0
    amount = CARDS[state["cards"][field["card"]]]["aura"].get(name, 0)
    return (field["owner"], amount) if amount else (None, 0)


def _equip(state: TcgState, unit: UnitEntry) -> dict:
    return CARDS[state["cards"][unit["item"]]]["equip"] if unit["item"] is not None else {}


def might(state: TcgState, unit: UnitEntry) -> int:
    """A unit's current Might: printed + item + boosts, never below 0."""
    printed = CARDS[state["cards"][unit["card"]]]["might"]
    return max(0, printed + _equip(state, unit).get("might", 0) + unit["boost_might"])


def endurance(state: TcgState, seat: str, unit: UnitEntry) -> int:
    """A unit's current Endurance: printed + item + boosts + its controller's field aura."""
    printed = CARDS[state["cards"][unit["card"]]]["endurance"]
    owner, grove = field_aura(state, "own_units_endurance")
    return printed + _equip(state, unit).get("endurance", 0) + unit["boost_endurance"] + (grove if owner == seat else 0)


def keywords(state: TcgState, unit: UnitEntry) -> list[str]:
    """A unit's keywords: printed plus those its item grants."""
    printed = CARDS[state["cards"][unit["card"]]]["keywords"]
    return sorted(set(printed) | set(_equip(state, unit).get("keywords", [])))


def play_cost(state: TcgState, instance: str, revealed: bool) -> int:
    """What playing or activating a card costs now (Hall of Mirrors taxes revealed set cards)."""
    cost = CARDS[state["cards"][instance]]["cost"]
    if revealed:
        cost += field_aura(state, "revealed_cost")[1]
    return cost


def lethal_units(state: TcgState) -> list[tuple[str, str]]:
    """(controller, unit) for every unit whose damage this turn has reached its Endurance."""
    return [
        (seat, unit["card"])
        for seat in state["seats"]
        for unit in state["players"][seat]["units"]
        if unit["damage"] >= endurance(state, seat, unit)
    ]


# ----- targets --------------------------------------------------------------------------------


def reveal_targets(state: TcgState, seat: str) -> list[str]:
    """Set cards a Reveal of `seat` may target: the opponents' face-down ones."""
    return [e["card"] for s in state["seats"] if s != seat for e in state["players"][s]["set"] if not e["revealed"]]


# Effects that harm the unit they target: they target opposing units only (rules page, "Your own
# units": Sacrifice is the only way to send your own unit to the graveyard). Muting an attacker is
# ruled the same way (house): it could only hurt its own controller's attack.
OPPOSING_ONLY = ("destroy_attacker", "damage_attacker", "mute_attacker")


def attacking_targets(state: TcgState, seat: str, min_might: int = 0) -> list[str]:
    """Attacking units `seat` does not control (with at least `min_might`): what its attack traps may target."""
    combat = state["combat"]
    if combat is None:
        return []
    return [
        u
        for u in combat["attackers"]
        if find_unit(state, u)[0] not in (None, seat) and might(state, unit_in_play(state, u)) >= min_might
    ]


def sacrifice_candidates(state: TcgState, seat: str, instance: str | None, effect: dict) -> list[str]:
    """Own units the effect may Sacrifice (the played unit itself too, unless `other`)."""
    units = [u["card"] for u in state["players"][seat]["units"] if u["card"] != instance]
    if instance is not None and CARDS[state["cards"][instance]]["type"] == "unit" and not effect.get("other", False):
        units.append(instance)
    return units


def all_units(state: TcgState) -> list[str]:
    """Every unit in play."""
    return [u["card"] for s in state["seats"] for u in state["players"][s]["units"]]


# ----- choices --------------------------------------------------------------------------------


def _options(state: TcgState, seat: str, instance: str | None, effect: dict) -> list[dict]:
    """The legal partial choices for one effect (a list of dicts of the fields it reads)."""
    kind = effect["do"]
    if kind == "reveal":
        targets = reveal_targets(state, seat)
        if not targets:
            return [] if effect.get("required") else [{}]
        types = TYPES if effect.get("declare_type") else (None,)
        return [{"reveal": t, **({"declared_type": ty} if ty else {})} for t in targets for ty in types]
    if kind == "sacrifice":
        out: list[dict] = [{}] if effect.get("optional") else []
        for unit in sacrifice_candidates(state, seat, instance, effect):
            for rest in combine(state, seat, instance, effect.get("then", [])):
                out.append({"sacrifice": unit, **rest})
        return out
    if kind == "damage_player":
        return [{"target_player": s} for s in state["seats"]]
    if kind in ("destroy_attacker", "damage_attacker", "mute_attacker"):
        return [{"target": u} for u in attacking_targets(state, seat, effect.get("min_might", 0))]
    if kind == "boost":
        return [{"target": u} for u in all_units(state)]
    if kind == "nullify_spell":
        return [{}] if state["pending_spell"] is not None else []
    if kind == "destroy_field":
        field = state["field"]
        ok = field is not None and CARDS[state["cards"][field["card"]]]["field_kind"] == effect["field_kind"]
        return [{}] if ok else []
    return [{}]


def combine(state: TcgState, seat: str, instance: str | None, effects: list[dict]) -> list[dict]:
    """Every legal combination of choices for a list of effects (empty: none legal); `instance` None: no card yet."""
    combos: list[dict] = [{}]
    for effect in effects:
        options = _options(state, seat, instance, effect)
        combos = [{**a, **b} for a, b in itertools.product(combos, options)]
    return combos


def choice_options(state: TcgState, seat: str, instance: str) -> list[dict]:
    """Every legal choice set for playing/activating `instance` now, all fields present."""
    effects = CARDS[state["cards"][instance]]["effects"]
    return [{f: combo.get(f) for f in CHOICE_FIELDS} for combo in combine(state, seat, instance, effects)]


def check_opposing_target(state: TcgState, seat: str, instance: str, choices: dict) -> None:
    """Raise RuleViolation when a damage or destroy effect of `instance` would target one of `seat`'s own units."""
    effects = CARDS[state["cards"][instance]]["effects"]
    target = choices.get("target")
    if target is None or not any(e["do"] in OPPOSING_ONLY for e in effects):
        return
    if find_unit(state, target)[0] == seat:
        raise RuleViolation(
            "own_unit",
            "damage and destroy effects target opposing units only; Sacrifice is the "
            "only way to send your own unit to the graveyard",
        )


def check_choices(state: TcgState, seat: str, instance: str, choices: dict) -> None:
    """Raise RuleViolation unless `choices` are legal for the card's effects now."""
    card = CARDS[state["cards"][instance]]
    check_opposing_target(state, seat, instance, choices)
    options = choice_options(state, seat, instance)
    if not options:
        raise RuleViolation("no_target", f"{card['name']} has no legal target now")
    if choices in options:
        return
    used = {f for o in options for f in CHOICE_FIELDS if o[f] is not None}
    for name in CHOICE_FIELDS:
        if choices[name] is not None and name not in used:
            raise RuleViolation("unexpected_choice", f"{card['name']} takes no {name}")
    if choices["declared_type"] is not None and choices["declared_type"] not in TYPES:
        raise RuleViolation("unknown_type", f"declared type must be one of {list(TYPES)}")
    if choices["reveal"] is not None and choices["reveal"] not in {o["reveal"] for o in options}:
        raise RuleViolation("not_a_reveal_target", "Reveal targets an opponent's face-down set card")
    if choices["sacrifice"] is not None and choices["sacrifice"] not in {o["sacrifice"] for o in options}:
        raise RuleViolation(
            "bad_sacrifice", "Sacrifice one of your own units in play (another one, if the card says so)"
        )
    if choices["target"] is not None and choices["target"] not in {o["target"] for o in options}:
        raise RuleViolation("bad_target", f"{choices['target']!r} is not a legal target for {card['name']}")
    raise RuleViolation("choice_required", f"{card['name']} needs one of: {sorted(used)}")
