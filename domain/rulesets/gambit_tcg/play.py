"""Paying costs and playing cards: energize, units, spells, items and field cards.

Costs are paid with ready energy (1 per energized card, 2 for Conduit; it is exhausted until its
owner's next turn) and then by discarding cards from hand, 1 each. A payment must cover the
cost and be minimal: no energy card or discard in it may be left out and still cover the cost.
"""

from __future__ import annotations

from domain.choices import subset_of, union_of
from domain.ruleset import RuleViolation

from .cards import CARDS, ENERGY_CAP, UNIT_CAP, energy_value
from .effects import CHOICE_FIELDS, check_choices, play_cost
from .parts import opened_secret, pending_spell_public, played_public
from .payloads import CardEnergized
from .resolution import pay_sacrifice_costs, resolve
from .scratch import TcgDecision
from .shapes import SetEntry, TcgState, commitment_version, find_unit, opponent, source_of
from .turns import open_window

# ----- payment --------------------------------------------------------------------------------


def check_payment(
    state: TcgState, seat: str, cost: int, energy: tuple[str, ...], discard: tuple[str, ...], playing: str
) -> None:
    """Raise RuleViolation unless the energy and discards pay `cost` exactly enough."""
    player = state["players"][seat]
    ready = {e["card"]: e["ready"] for e in player["energy"]}
    if len(set(energy)) != len(energy) or len(set(discard)) != len(discard):
        raise RuleViolation("bad_payment", "a card pays at most once")
    for card in energy:
        if card not in ready:
            raise RuleViolation("bad_payment", f"{card!r} is not in your Energy Zone")
        if not ready[card]:
            raise RuleViolation("energy_exhausted", f"{card} is exhausted until your next turn")
    for card in discard:
        if card not in player["hand"] or card == playing:
            raise RuleViolation("bad_payment", f"{card!r} is not a card in your hand you can discard")
    values = [energy_value(state["cards"][c]) for c in energy] + [1] * len(discard)
    total = sum(values)
    if total < cost:
        raise RuleViolation("insufficient_payment", f"cost {cost}, paid {total}")
    if values and total - min(values) >= cost:
        raise RuleViolation("overpayment", "pay no more energy or cards than the cost needs")


Payment = tuple[tuple[str, ...], tuple[str, ...]]


def canonical_payment(state: TcgState, seat: str, cost: int, playing: str) -> Payment | None:
    """One minimal payment (largest ready energy first, then the last cards in hand), or None."""
    player = state["players"][seat]
    ready = sorted((e["card"] for e in player["energy"] if e["ready"]), key=lambda c: -energy_value(state["cards"][c]))
    energy: list[str] = []
    total = 0
    for card in ready:
        if total >= cost:
            break
        energy.append(card)
        total += energy_value(state["cards"][card])
    hand = [c for c in player["hand"] if c != playing]
    need = max(0, cost - total)
    if need > len(hand):
        return None
    return tuple(energy), tuple(hand[len(hand) - need :]) if need else ()


def payment_domains(state: TcgState, seat: str, cost: int, playing: str) -> list[dict]:
    """Every minimal payment of `cost`, as families of `energy` and `discard` domains.

    A payment that holds a 1 (plain energy or a discard) must total the cost exactly; one of
    Conduit energy alone may go one over (ceil(cost / 2) Conduits). So the families are: that many
    Conduits, and for each count of Conduits, plain energy and discards that sum to the cost.
    """
    player = state["players"][seat]
    ready = [e["card"] for e in player["energy"] if e["ready"]]
    conduits = [c for c in ready if energy_value(state["cards"][c]) == 2]
    plain = [c for c in ready if energy_value(state["cards"][c]) == 1]
    hand = [c for c in player["hand"] if c != playing]
    nothing = subset_of([], 0, 0)
    if cost == 0:
        return [{"energy": nothing, "discard": nothing}]
    out = []
    conduits_only = (cost + 1) // 2
    if conduits_only <= len(conduits):
        out.append({"energy": subset_of(conduits, conduits_only, conduits_only), "discard": nothing})
    for twos in range(min(len(conduits), cost // 2) + 1):
        for ones in range(min(len(plain), cost - 2 * twos) + 1):
            discards = cost - 2 * twos - ones
            if discards > len(hand) or ones + discards == 0:
                continue
            parts = [subset_of(conduits, twos, twos), subset_of(plain, ones, ones)]
            energy = union_of(parts) if twos and ones else parts[0] if twos else parts[1]
            out.append({"energy": energy, "discard": subset_of(hand, discards, discards)})
    return out


# ----- energize -------------------------------------------------------------------------------


def check_energize(state: TcgState, seat: str, card: str) -> None:
    """Raise RuleViolation unless `seat` may energize `card` now."""
    player = state["players"][seat]
    if card not in player["hand"]:
        raise RuleViolation("card_not_in_hand", f"{card!r} is not in your hand")
    if player["energized"]:
        raise RuleViolation("already_energized", "energize one card per turn")
    if len(player["energy"]) >= ENERGY_CAP:
        raise RuleViolation("energy_zone_full", f"the Energy Zone holds {ENERGY_CAP} cards")


def energize(decision: TcgDecision, seat: str, card: str) -> None:
    """Move a hand card face up to the Energy Zone."""
    card_id = decision.state["cards"][card]
    decision.add(CardEnergized(seat=seat, card=card, id=card_id, value=energy_value(card_id)).event())


# ----- playing a card -------------------------------------------------------------------------


def check_play(state: TcgState, seat: str, card: str, choices: dict) -> tuple[str, SetEntry | None, int]:
    """Raise RuleViolation unless `seat` may play `card` with `choices`; return (source, set entry, cost)."""
    source, entry = source_of(state, seat, card)
    info = CARDS[state["cards"][card]]
    kind = info["type"]
    if kind == "trap":
        if source == "hand":
            raise RuleViolation("traps_must_be_set", "a trap is set face down and activated in its window")
        raise RuleViolation("trap_needs_window", "activate a set trap with activate_trap in its declared window")
    if kind == "unit" and len(state["players"][seat]["units"]) >= UNIT_CAP:
        raise RuleViolation("unit_zone_full", f"the Unit Zone holds {UNIT_CAP} units")
    if kind == "item":
        check_item_host(state, seat, card, choices)
    elif kind == "field":
        extra = [k for k, v in choices.items() if v is not None]
        if extra:
            raise RuleViolation("unexpected_choice", f"{info['name']} takes no {extra[0]}")
    else:
        check_choices(state, seat, card, choices)
    return source, entry, play_cost(state, card, entry is not None and entry["revealed"])


def check_item_host(state: TcgState, seat: str, card: str, choices: dict) -> None:
    """An item goes on one of your units — a Cursed one on an opponent's — whose item slot is free."""
    extra = [k for k, v in choices.items() if v is not None and k != "target"]
    if extra:
        raise RuleViolation("unexpected_choice", f"an item takes no {extra[0]}")
    host = choices.get("target")
    controller, unit = find_unit(state, host) if host else (None, None)
    if unit is None:
        raise RuleViolation("bad_target", "equip an item to a unit in play")
    cursed = "cursed" in CARDS[state["cards"][card]]["keywords"]
    if cursed and controller == seat:
        raise RuleViolation("item_host_invalid", "a Cursed item is equipped to an opponent's unit")
    if not cursed and controller != seat:
        raise RuleViolation("item_host_invalid", "an item is equipped to one of your own units")
    if unit["item"] is not None:
        raise RuleViolation("item_slot_taken", "a unit carries one item")


def item_hosts(state: TcgState, seat: str, card: str) -> list[str]:
    """Units `card` (an item) may be equipped to now."""
    cursed = "cursed" in CARDS[state["cards"][card]]["keywords"]
    seats = [opponent(seat)] if cursed else [seat]
    return [u["card"] for s in seats for u in state["players"][s]["units"] if u["item"] is None]


def play_card(
    decision: TcgDecision,
    seat: str,
    card: str,
    choices: dict,
    energy: tuple,
    discard: tuple,
    source: str,
    entry: SetEntry | None,
    cost: int,
) -> None:
    """Pay and play: a unit enters (when-played effects, then the unit_played window); a spell
    waits in the spell_activated window; an item is equipped; a field card replaces the old one."""
    state = decision.state
    public = played_public(state, seat, card, choices, energy, discard)
    kind = public["type"]
    if entry is not None and not entry["revealed"]:
        # Flipping a face-down card opens its set commitment; its identity stays organizers' until the end.
        version = decision.emit(
            "CardPlayed", public, secret=opened_secret(state, card), audience=(), opens=(commitment_version(entry),)
        )
    else:
        version = decision.emit("CardPlayed", public)
    if kind == "unit":
        resolve(decision, seat, card, choices, play_version=version)
        decision.settle()
        open_window(decision, "unit_played")
    elif kind == "spell":
        pay_sacrifice_costs(decision, seat, card, choices)
        decision.settle()
        if not open_window(decision, "spell_activated"):
            resolve_pending_spell(decision)
    else:
        decision.settle()


def resolve_pending_spell(decision: TcgDecision) -> None:
    """Resolve the spell waiting on the stack (unless a trap nullified it), then to the graveyard."""
    pending = decision.state["pending_spell"]
    if pending is None:
        return
    resolve(decision, pending["seat"], pending["card"], _full(pending["choices"]), play_version=pending["version"])
    decision.emit("SpellResolved", pending_spell_public(decision.state))
    decision.settle()


def _full(choices: dict) -> dict:
    """A pending spell's choices with every field present (its record keeps only the set ones)."""
    return {f: choices.get(f) for f in CHOICE_FIELDS}
