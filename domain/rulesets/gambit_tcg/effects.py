"""The effect vocabulary, implemented once and shared by every card; and the static abilities.

A card's `effects` (cards.json) are a list of `{"do": name, ...params}`. For each name this
module knows: which command choices it reads (`target`, `reveal`, `declared_type`,
`sacrifice`, `target_player`), the legal choices in a position (`choice_options`), why a
choice is illegal (`check_choices`), and how it resolves into events (`resolve`). Statics —
item bonuses, field auras, keywords — are computed here too (`might`, `endurance`, ...).
"""

from __future__ import annotations

import itertools

from domain.ruleset import Event, RuleViolation

from .cards import CARDS, EFFECT_PARAMS, TYPES
from .hidden import opened_secret
from .state import find_set, find_unit

CHOICE_FIELDS = ("target", "reveal", "declared_type", "sacrifice", "target_player")


# ----- statics --------------------------------------------------------------------------------

def field_aura(state: dict, name: str) -> tuple[str | None, int]:
    """(owner, amount) of an aura of the field card in play, or (None, 0)."""
    field = state["field"]
    if field is None:
        return None, 0
    amount = CARDS[state["cards"][field["card"]]]["aura"].get(name, 0)
    return (field["owner"], amount) if amount else (None, 0)


def _equip(state: dict, unit: dict) -> dict:
    return CARDS[state["cards"][unit["item"]]]["equip"] if unit["item"] is not None else {}


def might(state: dict, unit: dict) -> int:
    """A unit's current Might: printed + item + boosts, never below 0."""
    printed = CARDS[state["cards"][unit["card"]]]["might"]
    return max(0, printed + _equip(state, unit).get("might", 0) + unit["boost_might"])


def endurance(state: dict, seat: str, unit: dict) -> int:
    """A unit's current Endurance: printed + item + boosts + its controller's field aura."""
    printed = CARDS[state["cards"][unit["card"]]]["endurance"]
    owner, grove = field_aura(state, "own_units_endurance")
    return printed + _equip(state, unit).get("endurance", 0) + unit["boost_endurance"] + (grove if owner == seat else 0)


def keywords(state: dict, unit: dict) -> list[str]:
    """A unit's keywords: printed plus those its item grants."""
    printed = CARDS[state["cards"][unit["card"]]]["keywords"]
    return sorted(set(printed) | set(_equip(state, unit).get("keywords", [])))


def play_cost(state: dict, instance: str, revealed: bool) -> int:
    """What playing or activating a card costs now (Hall of Mirrors taxes revealed set cards)."""
    cost = CARDS[state["cards"][instance]]["cost"]
    if revealed:
        cost += field_aura(state, "revealed_cost")[1]
    return cost


def lethal_units(state: dict) -> list[tuple[str, str]]:
    """(controller, unit) for every unit whose damage this turn has reached its Endurance."""
    return [(seat, unit["card"]) for seat in state["seats"] for unit in state["players"][seat]["units"]
            if unit["damage"] >= endurance(state, seat, unit)]


# ----- targets --------------------------------------------------------------------------------

def reveal_targets(state: dict, seat: str) -> list[str]:
    """Set cards a Reveal of `seat` may target: the opponents' face-down ones."""
    return [e["card"] for s in state["seats"] if s != seat for e in state["players"][s]["set"] if not e["revealed"]]


def attacking_targets(state: dict, min_might: int = 0) -> list[str]:
    """Attacking units (with at least `min_might`)."""
    combat = state["combat"]
    if combat is None:
        return []
    return [u for u in combat["attackers"] if might(state, find_unit(state, u)[1]) >= min_might]


def sacrifice_candidates(state: dict, seat: str, instance: str, effect: dict) -> list[str]:
    """Own units the effect may Sacrifice (the played unit itself too, unless `other`)."""
    units = [u["card"] for u in state["players"][seat]["units"] if u["card"] != instance]
    if instance is not None and CARDS[state["cards"][instance]]["type"] == "unit" and not effect.get("other", False):
        units.append(instance)
    return units


def all_units(state: dict) -> list[str]:
    """Every unit in play."""
    return [u["card"] for s in state["seats"] for u in state["players"][s]["units"]]


# ----- choices --------------------------------------------------------------------------------

def _options(state: dict, seat: str, instance: str, effect: dict) -> list[dict]:
    """The legal partial choices for one effect (a list of dicts of the fields it reads)."""
    kind = effect["do"]
    if kind == "reveal":
        targets = reveal_targets(state, seat)
        if not targets:
            return [] if effect.get("required") else [{}]
        types = TYPES if effect.get("declare_type") else (None,)
        return [{"reveal": t, **({"declared_type": ty} if ty else {})} for t in targets for ty in types]
    if kind == "sacrifice":
        out = [{}] if effect.get("optional") else []
        for unit in sacrifice_candidates(state, seat, instance, effect):
            for rest in combine(state, seat, instance, effect.get("then", [])):
                out.append({"sacrifice": unit, **rest})
        return out
    if kind == "damage_player":
        return [{"target_player": s} for s in state["seats"]]
    if kind in ("destroy_attacker", "damage_attacker", "mute_attacker"):
        return [{"target": u} for u in attacking_targets(state, effect.get("min_might", 0))]
    if kind == "boost":
        return [{"target": u} for u in all_units(state)]
    if kind == "nullify_spell":
        return [{}] if state["pending_spell"] is not None else []
    if kind == "destroy_field":
        field = state["field"]
        ok = field is not None and CARDS[state["cards"][field["card"]]]["field_kind"] == effect["field_kind"]
        return [{}] if ok else []
    return [{}]


def combine(state: dict, seat: str, instance: str, effects: list[dict]) -> list[dict]:
    """Every legal combination of choices for a list of effects (empty list: none legal)."""
    combos = [{}]
    for effect in effects:
        options = _options(state, seat, instance, effect)
        combos = [{**a, **b} for a, b in itertools.product(combos, options)]
    return combos


def choice_options(state: dict, seat: str, instance: str) -> list[dict]:
    """Every legal choice set for playing/activating `instance` now, all fields present."""
    effects = CARDS[state["cards"][instance]]["effects"]
    return [{f: combo.get(f) for f in CHOICE_FIELDS} for combo in combine(state, seat, instance, effects)]


def check_choices(state: dict, seat: str, instance: str, choices: dict) -> None:
    """Raise RuleViolation unless `choices` are legal for the card's effects now."""
    card = CARDS[state["cards"][instance]]
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
        raise RuleViolation("bad_sacrifice", "Sacrifice one of your own units in play (another one, if the card says so)")
    if choices["target"] is not None and choices["target"] not in {o["target"] for o in options}:
        raise RuleViolation("bad_target", f"{choices['target']!r} is not a legal target for {card['name']}")
    raise RuleViolation("choice_required", f"{card['name']} needs one of: {sorted(used)}")


# ----- resolution -----------------------------------------------------------------------------

def resolve(script, seat: str, instance: str, choices: dict, effects: list[dict] | None = None,
            play_version: int | None = None) -> None:
    """Resolve a card's effects with the given choices, emitting events through `script`."""
    card_id = script.state["cards"][instance]
    for effect in CARDS[card_id]["effects"] if effects is None else effects:
        _RESOLVERS[effect["do"]](script, seat, instance, effect, choices, play_version)


def returns_to_hand(effect: dict, target_type: str) -> bool:
    """Whether a Reveal sends the revealed card back to its owner's hand (Unmasking Light on a trap)."""
    return effect.get("return_if_type") == target_type


def type_call_ruling(state: dict, effect: dict, target: str, declared_type: str) -> dict:
    """What the rules make of a declared type before a Reveal: the verdict, evidence and consequences."""
    owner, entry = find_set(state, target)
    target_id = state["cards"][target]
    target_type = CARDS[target_id]["type"]
    right = declared_type == target_type
    return {
        "claim_version": entry["set_version"], "claimant": owner, "verdict": "true" if right else "false",
        "actual_type": target_type, "card": target, "card_id": target_id, "evidence_version": entry["set_version"],
        "consequences": {"life_gained": effect.get("life_if_right", 0) if right else 0, "revealed": target,
                         "returned_to_hand": returns_to_hand(effect, target_type)},
    }


def _declaring_reveal(effects: list[dict]) -> dict | None:
    """The Reveal effect that asks for a declared type, among `effects` and what they lead to."""
    for effect in effects:
        if effect["do"] == "reveal" and effect.get("declare_type"):
            return effect
        found = _declaring_reveal(effect.get("then", []))
        if found is not None:
            return found
    return None


def readjudicate(state: dict, event: Event) -> dict:
    """The ruling the rules give for a recorded type call, from the set card in `state` (for a verifier)."""
    call = event.public["bluff_call"]
    effect = _declaring_reveal(CARDS[state["cards"][call["source"]]]["effects"])
    if effect is None:
        raise ValueError(f"{call['source']!r} declares no type")
    return type_call_ruling(state, effect, call["card"], call["declared_type"])


def revealed_public(state: dict, target: str) -> dict:
    """What revealing a face-down set card shows: its owner, what it is, a trap's window, when it was set."""
    owner, entry = find_set(state, target)
    target_id = state["cards"][target]
    target_type = CARDS[target_id]["type"]
    return {"owner": owner, "card": target, "id": target_id, "type": target_type,
            "window": entry["window"] if target_type == "trap" else None, "set_version": entry["set_version"]}


def _reveal(script, seat, instance, effect, choices, play_version):
    target = choices.get("reveal")
    state = script.state
    _, entry = find_set(state, target) if target else (None, None)
    if entry is None or entry["revealed"]:
        return
    public = {"seat": seat, "source": instance, **revealed_public(state, target)}
    public["returned_to_hand"] = returns_to_hand(effect, public["type"])
    if effect.get("declare_type"):
        public["bluff_call"] = {"caller": seat, "call_version": play_version, "declared_type": choices["declared_type"],
                                "source": instance, **type_call_ruling(state, effect, target, choices["declared_type"])}
    script.emit("SetCardRevealed", public, secret=opened_secret(state, target), audience=(),
                opens=(entry["set_version"],))


def pay_sacrifice_costs(script, seat: str, instance: str, choices: dict) -> None:
    """Sacrifice the unit a card's mandatory Sacrifice names: a cost, paid as the card is played."""
    for effect in CARDS[script.state["cards"][instance]]["effects"]:
        if effect["do"] == "sacrifice" and not effect.get("optional") and choices.get("sacrifice"):
            sacrifice(script, seat, choices["sacrifice"], instance)


def sacrifice(script, seat: str, victim: str, by: str) -> None:
    """Destroy one of `seat`'s own units as a Sacrifice (Crypt Sanctum's owner gains life)."""
    controller, unit = find_unit(script.state, victim)
    if unit is None or controller != seat:
        return
    owner, bonus = field_aura(script.state, "sacrifice_life")
    script.emit("UnitSacrificed", {"seat": seat, **sacrificed_public(script.state, victim), "by": by,
                                   "life_gained": bonus if owner == seat else 0, "life_gained_by": seat})


def _sacrifice(script, seat, instance, effect, choices, play_version):
    victim = choices.get("sacrifice")
    if victim is None:
        return
    if effect.get("optional"):
        if find_unit(script.state, victim)[0] != seat:
            return
        sacrifice(script, seat, victim, instance)
    # A mandatory Sacrifice was paid as a cost (pay_sacrifice_costs), even if the card is later nullified.
    resolve(script, seat, instance, choices, effect.get("then", []), play_version)


def _draw(script, seat, instance, effect, choices, play_version):
    script.draw(seat, effect["count"], "effect")


def _damage_player(script, seat, instance, effect, choices, play_version):
    script.emit("PlayerDamaged", {"seat": choices["target_player"], "amount": effect["amount"], "source": instance})


def _attacker(script, choices, min_might=0):
    target = choices.get("target")
    return target if target in attacking_targets(script.state, min_might) else None


def _destroy_attacker(script, seat, instance, effect, choices, play_version):
    target = _attacker(script, choices, effect.get("min_might", 0))
    if target is not None:
        script.destroy(target, "effect", instance)


def _damage_attacker(script, seat, instance, effect, choices, play_version):
    target = _attacker(script, choices)
    if target is not None:
        script.emit("UnitDamaged", {"unit": target, "amount": effect["amount"], "source": instance})


def _mute_attacker(script, seat, instance, effect, choices, play_version):
    target = _attacker(script, choices)
    if target is not None:
        script.emit("AttackerMuted", {"unit": target, "source": instance})


def _nullify_spell(script, seat, instance, effect, choices, play_version):
    if script.state["pending_spell"] is not None:
        script.emit("SpellNullified", {**pending_spell_public(script.state), "by": instance})


def _destroy_field(script, seat, instance, effect, choices, play_version):
    field = script.state["field"]
    if field is not None and CARDS[script.state["cards"][field["card"]]]["field_kind"] == effect["field_kind"]:
        script.emit("FieldDestroyed", {**field_public(script.state), "by": instance})


def pending_spell_public(state: dict) -> dict:
    """The spell waiting on the stack, as its resolution or nullification shows it: seat, card, what it is."""
    pending = state["pending_spell"]
    return {"seat": pending["seat"], "card": pending["card"], "id": state["cards"][pending["card"]]}


def field_public(state: dict) -> dict:
    """The field card in play, as its destruction shows it: the card, what it is, its owner."""
    field = state["field"]
    return {"card": field["card"], "id": state["cards"][field["card"]], "owner": field["owner"]}


def sacrificed_public(state: dict, victim: str) -> dict:
    """What sacrificing a unit shows: what it is and the item that goes with it."""
    _, unit = find_unit(state, victim)
    return {"unit": victim, "id": state["cards"][victim], "item": unit["item"]}


def _boost(script, seat, instance, effect, choices, play_version):
    if find_unit(script.state, choices.get("target"))[1] is not None:
        script.emit("UnitBoosted", {"unit": choices["target"], "might": effect["might"],
                                    "endurance": effect["endurance"], "source": instance, "until": "end_of_turn"})


_RESOLVERS = {
    "reveal": _reveal, "sacrifice": _sacrifice, "draw": _draw, "damage_player": _damage_player,
    "destroy_attacker": _destroy_attacker, "damage_attacker": _damage_attacker, "mute_attacker": _mute_attacker,
    "nullify_spell": _nullify_spell, "destroy_field": _destroy_field, "boost": _boost,
}
# The data file is validated against EFFECT_PARAMS; every name there must have a resolver.
assert set(_RESOLVERS) == set(EFFECT_PARAMS), "effect vocabulary and resolvers disagree"
