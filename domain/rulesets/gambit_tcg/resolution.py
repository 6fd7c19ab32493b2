"""How each effect of the vocabulary resolves into events, implemented once and shared by every card.

`resolve` runs a card's effects in order with the choices its command carried (effects.py
checked them); an effect whose target has gone since (a destroyed attacker, a revealed card)
does nothing. A declared type before a Reveal is a bluff call ruled by readjudicate.py.
"""

from __future__ import annotations

from .cards import CARDS, EFFECT_PARAMS
from .effects import attacking_targets, field_aura
from .parts import field_public, opened_secret, pending_spell_public, revealed_public, sacrificed_public
from .payloads import AttackerMuted, PlayerDamaged, UnitBoosted, UnitDamaged
from .readjudicate import returns_to_hand, type_call_ruling
from .scratch import TcgDecision
from .shapes import commitment_version, find_set, find_unit


def resolve(
    decision: TcgDecision,
    seat: str,
    instance: str,
    choices: dict,
    effects: list[dict] | None = None,
    play_version: int | None = None,
) -> None:
    """Resolve a card's effects with the given choices, emitting events through `decision`."""
    card_id = decision.state["cards"][instance]
    for effect in CARDS[card_id]["effects"] if effects is None else effects:
        _RESOLVERS[effect["do"]](decision, seat, instance, effect, choices, play_version)


def _reveal(
    decision: TcgDecision, seat: str, instance: str, effect: dict, choices: dict, play_version: int | None
) -> None:
    target = choices.get("reveal")
    if not target:
        return
    state = decision.state
    _, entry = find_set(state, target)
    if entry is None or entry["revealed"]:
        return
    public = {"seat": seat, "source": instance, **revealed_public(state, target)}
    public["returned_to_hand"] = returns_to_hand(effect, public["type"])
    if effect.get("declare_type"):
        public["bluff_call"] = {
            "caller": seat,
            "call_version": play_version,
            "declared_type": choices["declared_type"],
            "source": instance,
            **type_call_ruling(state, effect, target, choices["declared_type"]),
        }
    decision.emit(
        "SetCardRevealed", public, secret=opened_secret(state, target), audience=(), opens=(commitment_version(entry),)
    )


def pay_sacrifice_costs(decision: TcgDecision, seat: str, instance: str, choices: dict) -> None:
    """Sacrifice the unit a card's mandatory Sacrifice names: a cost, paid as the card is played."""
    for effect in CARDS[decision.state["cards"][instance]]["effects"]:
        if effect["do"] == "sacrifice" and not effect.get("optional") and choices.get("sacrifice"):
            sacrifice(decision, seat, choices["sacrifice"], instance)


def sacrifice(decision: TcgDecision, seat: str, victim: str, by: str) -> None:
    """Destroy one of `seat`'s own units as a Sacrifice (Crypt Sanctum's owner gains life)."""
    controller, unit = find_unit(decision.state, victim)
    if unit is None or controller != seat:
        return
    owner, bonus = field_aura(decision.state, "sacrifice_life")
    decision.emit(
        "UnitSacrificed",
        {
            "seat": seat,
            **sacrificed_public(decision.state, victim),
            "by": by,
            "life_gained": bonus if owner == seat else 0,
            "life_gained_by": seat,
        },
    )


def _sacrifice(
    decision: TcgDecision, seat: str, instance: str, effect: dict, choices: dict, play_version: int | None
) -> None:
    victim = choices.get("sacrifice")
    if victim is None:
        return
    if effect.get("optional"):
        if find_unit(decision.state, victim)[0] != seat:
            return
        sacrifice(decision, seat, victim, instance)
    # A mandatory Sacrifice was paid as a cost (pay_sacrifice_costs), even if the card is later nullified.
    resolve(decision, seat, instance, choices, effect.get("then", []), play_version)


def _draw(
    decision: TcgDecision, seat: str, instance: str, effect: dict, choices: dict, play_version: int | None
) -> None:
    decision.draw(seat, effect["count"], "effect")


def _damage_player(
    decision: TcgDecision, seat: str, instance: str, effect: dict, choices: dict, play_version: int | None
) -> None:
    decision.add(PlayerDamaged(seat=choices["target_player"], amount=effect["amount"], source=instance).event())


def _attacker(decision: TcgDecision, seat: str, choices: dict, min_might: int = 0) -> str | None:
    """The chosen attacker if it is still an opposing attacking unit (own units are never hit), else None."""
    target = choices.get("target")
    return target if target in attacking_targets(decision.state, seat, min_might) else None


def _destroy_attacker(
    decision: TcgDecision, seat: str, instance: str, effect: dict, choices: dict, play_version: int | None
) -> None:
    target = _attacker(decision, seat, choices, effect.get("min_might", 0))
    if target is not None:
        decision.destroy(target, "effect", instance)


def _damage_attacker(
    decision: TcgDecision, seat: str, instance: str, effect: dict, choices: dict, play_version: int | None
) -> None:
    target = _attacker(decision, seat, choices)
    if target is not None:
        decision.add(UnitDamaged(unit=target, amount=effect["amount"], source=instance).event())


def _mute_attacker(
    decision: TcgDecision, seat: str, instance: str, effect: dict, choices: dict, play_version: int | None
) -> None:
    target = _attacker(decision, seat, choices)
    if target is not None:
        decision.add(AttackerMuted(unit=target, source=instance).event())


def _nullify_spell(
    decision: TcgDecision, seat: str, instance: str, effect: dict, choices: dict, play_version: int | None
) -> None:
    if decision.state["pending_spell"] is not None:
        decision.emit("SpellNullified", {**pending_spell_public(decision.state), "by": instance})


def _destroy_field(
    decision: TcgDecision, seat: str, instance: str, effect: dict, choices: dict, play_version: int | None
) -> None:
    field = decision.state["field"]
    if field is not None and CARDS[decision.state["cards"][field["card"]]]["field_kind"] == effect["field_kind"]:
        decision.emit("FieldDestroyed", {**field_public(decision.state), "by": instance})


def _boost(
    decision: TcgDecision, seat: str, instance: str, effect: dict, choices: dict, play_version: int | None
) -> None:
    if find_unit(decision.state, choices.get("target"))[1] is not None:
        boosted = UnitBoosted(
            unit=choices["target"],
            might=effect["might"],
            endurance=effect["endurance"],
            source=instance,
            until="end_of_turn",
        )
        decision.add(boosted.event())


_RESOLVERS = {
    "reveal": _reveal,
    "sacrifice": _sacrifice,
    "draw": _draw,
    "damage_player": _damage_player,
    "destroy_attacker": _destroy_attacker,
    "damage_attacker": _damage_attacker,
    "mute_attacker": _mute_attacker,
    "nullify_spell": _nullify_spell,
    "destroy_field": _destroy_field,
    "boost": _boost,
}
# The data file is validated against EFFECT_PARAMS; every name there must have a resolver.
assert set(_RESOLVERS) == set(EFFECT_PARAMS), "effect vocabulary and resolvers disagree"
