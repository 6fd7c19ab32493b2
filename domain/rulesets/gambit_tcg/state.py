"""The state of a gambit-tcg match before any event (`initial_state`), and `evolve`: the fold of each event type.

`FOLDS` holds one function per payload type of events.py (every kind is folded or declared
unchanged); each applies what decide decided (a loss, the turn limit) and never checks a rule
itself. The state's shape is `TcgState` (shapes.py, with the lookups every module reads it with).
"""

from __future__ import annotations

from typing import cast

from domain.event_types import Folds
from domain.ruleset import Event, config_to_dict

from .cards import STARTING_LIFE
from .config import Config
from .events import EVENTS
from .payloads import (
    AttackDeclared,
    AttackerMuted,
    BlockersAssigned,
    BlocksAwaited,
    CardEnergized,
    CardPlayed,
    CardsDrawn,
    CardSet,
    CombatResolved,
    DeckRegistered,
    DeckShuffled,
    FieldDestroyed,
    FreeSetDeclined,
    GameStarted,
    Payment,
    PhaseBegan,
    PlayerDamaged,
    SeatLost,
    SetCardRevealed,
    SpellNullified,
    SpellResolved,
    TrapActivated,
    TurnBegan,
    TurnEnded,
    TurnLimitReached,
    UnitBoosted,
    UnitDamaged,
    UnitDestroyed,
    UnitSacrificed,
    WindowClosed,
    WindowOpened,
    WindowPassed,
)
from .shapes import LossReason, Step, TcgConfigData, TcgState, find_set, find_unit, owner_of

__all__ = ["FOLDS", "TcgState", "evolve", "initial_state"]


def initial_state(config: Config, seats: list[str]) -> TcgState:
    """The state before setup: empty zones, full life."""
    return {
        "config": cast(TcgConfigData, config_to_dict(config)),
        "seats": list(seats),
        "version": 0,
        "turn": 0,
        "active": None,
        "phase": "setup",
        "step": None,
        "window": None,
        "cards": {},
        "field": None,
        "combat": None,
        "pending_spell": None,
        "result": None,
        "players": {
            s: {
                "life": STARTING_LIFE,
                "deck_name": None,
                "deck_list": [],
                "deck": [],
                "hand": [],
                "set": [],
                "energy": [],
                "units": [],
                "graveyard": [],
                "exile": [],
                "energized": False,
            }
            for s in seats
        },
    }


FOLDS: Folds[TcgState] = Folds(EVENTS)


def evolve(state: TcgState, event: Event) -> TcgState:
    """Fold one recorded event into the state (never validates, never raises on recorded history)."""
    FOLDS.fold(state, event)
    if event.version is not None:
        state["version"] = event.version
    return state


def _remove_unit(state: TcgState, instance: str) -> None:
    """Send a unit and its item to their owners' graveyards; forget it in combat."""
    seat, unit = find_unit(state, instance)
    if seat is None or unit is None:
        return
    state["players"][seat]["units"].remove(unit)
    state["players"][owner_of(instance)]["graveyard"].append(instance)
    if unit["item"] is not None:
        state["players"][owner_of(unit["item"])]["graveyard"].append(unit["item"])
    combat = state["combat"]
    if combat is not None:
        if instance in combat["attackers"]:
            combat["attackers"].remove(instance)
        combat["blocks"] = {b: a for b, a in combat["blocks"].items() if b != instance and a != instance}


def _pay(state: TcgState, seat: str, paid: Payment) -> None:
    player = state["players"][seat]
    for entry in player["energy"]:
        if entry["card"] in paid["energy"]:
            entry["ready"] = False
    for item in paid["discard"]:
        player["hand"].remove(item["card"])
        player["graveyard"].append(item["card"])


def _take_from_source(state: TcgState, seat: str, instance: str, source: str) -> None:
    player = state["players"][seat]
    if source == "hand":
        player["hand"].remove(instance)
    else:
        player["set"] = [e for e in player["set"] if e["card"] != instance]


@FOLDS.on(DeckRegistered)
def _deck_registered(state: TcgState, registered: DeckRegistered, event: Event) -> None:
    player = state["players"][registered.seat]
    player["deck_name"] = registered.deck
    player["deck_list"] = list(registered.cards)


@FOLDS.on(DeckShuffled)
def _deck_shuffled(state: TcgState, shuffled: DeckShuffled, event: Event) -> None:
    seat = shuffled.seat
    player = state["players"][seat]
    player["deck"] = []
    for position, index in enumerate(shuffled.order):
        instance = f"{seat}-{position + 1:02d}"
        state["cards"][instance] = player["deck_list"][index]
        player["deck"].append(instance)


@FOLDS.on(CardsDrawn)
def _cards_drawn(state: TcgState, drawn: CardsDrawn, event: Event) -> None:
    player = state["players"][drawn.seat]
    for instance in drawn.cards:
        player["deck"].remove(instance)
        player["hand"].append(instance)


@FOLDS.on(GameStarted)
def _game_started(state: TcgState, started: GameStarted, event: Event) -> None:
    state["phase"], state["step"] = "free_set", "free_set"


@FOLDS.on(CardSet)
def _card_set(state: TcgState, placed: CardSet, event: Event) -> None:
    player = state["players"][placed.seat]
    player["hand"].remove(placed.card)
    player["set"].append(
        {
            "card": placed.card,
            "set_version": event.version,
            "set_turn": placed.set_turn,
            "ready_turn": placed.ready_turn,
            "revealed": False,
            "window": placed.committed_window,
        }
    )


@FOLDS.on(TurnBegan)
def _turn_began(state: TcgState, began: TurnBegan, event: Event) -> None:
    state["turn"], state["active"] = began.turn, began.seat
    player = state["players"][began.seat]
    player["energized"] = False
    for entry in player["energy"]:
        entry["ready"] = True


_STEP_OF_PHASE: dict[str, Step] = {"main1": "main", "main2": "main", "combat": "attack"}


@FOLDS.on(PhaseBegan)
def _phase_began(state: TcgState, began: PhaseBegan, event: Event) -> None:
    state["phase"] = began.phase
    state["step"] = _STEP_OF_PHASE.get(began.phase)


@FOLDS.on(WindowOpened)
def _window_opened(state: TcgState, opened: WindowOpened, event: Event) -> None:
    state["window"] = {"name": opened.window, "responders": list(opened.responders), "turn": state["turn"]}


@FOLDS.on(WindowPassed)
def _window_passed(state: TcgState, passed: WindowPassed, event: Event) -> None:
    window = state["window"]
    if window is not None and passed.seat in window["responders"]:
        window["responders"].remove(passed.seat)


@FOLDS.on(WindowClosed)
def _window_closed(state: TcgState, closed: WindowClosed, event: Event) -> None:
    state["window"] = None


@FOLDS.on(CardEnergized)
def _card_energized(state: TcgState, energized: CardEnergized, event: Event) -> None:
    player = state["players"][energized.seat]
    player["hand"].remove(energized.card)
    player["energy"].append({"card": energized.card, "ready": True})
    player["energized"] = True


@FOLDS.on(CardPlayed)
def _card_played(state: TcgState, played: CardPlayed, event: Event) -> None:
    seat, instance, kind = played.seat, played.card, played.type
    _pay(state, seat, played.paid)
    _take_from_source(state, seat, instance, played.source)
    if kind == "unit":
        state["players"][seat]["units"].append(
            {
                "card": instance,
                "entered_turn": state["turn"],
                "damage": 0,
                "item": None,
                "boost_might": 0,
                "boost_endurance": 0,
            }
        )
    elif kind == "item":
        _, host = find_unit(state, played.target)
        if host is not None:
            host["item"] = instance
    elif kind == "field":
        old = state["field"]
        if old is not None:
            state["players"][old["owner"]]["graveyard"].append(old["card"])
        state["field"] = {"card": instance, "owner": seat}
    elif kind == "spell":
        # `version`: the play a ruling of the spell names (its bluff call's `call_version`).
        state["pending_spell"] = {
            "seat": seat,
            "card": instance,
            "choices": dict(played.choices),
            "version": event.version,
        }


@FOLDS.on(SpellResolved)
def _spell_resolved(state: TcgState, resolved: SpellResolved, event: Event) -> None:
    _spell_done(state)


@FOLDS.on(SpellNullified)
def _spell_nullified(state: TcgState, nullified: SpellNullified, event: Event) -> None:
    _spell_done(state)


def _spell_done(state: TcgState) -> None:
    pending = state["pending_spell"]
    if pending is not None:
        state["players"][pending["seat"]]["graveyard"].append(pending["card"])
    state["pending_spell"] = None


@FOLDS.on(TrapActivated)
def _trap_activated(state: TcgState, activated: TrapActivated, event: Event) -> None:
    seat = activated.seat
    _pay(state, seat, activated.paid)
    _take_from_source(state, seat, activated.card, "set")
    state["players"][seat]["graveyard"].append(activated.card)


@FOLDS.on(SetCardRevealed)
def _set_card_revealed(state: TcgState, revealed: SetCardRevealed, event: Event) -> None:
    owner, entry = find_set(state, revealed.card)
    if owner is not None and entry is not None:
        if revealed.returned_to_hand:
            state["players"][owner]["set"].remove(entry)
            state["players"][owner]["hand"].append(revealed.card)
        else:
            entry["revealed"] = True
    call = revealed.bluff_call
    if call is not None:
        state["players"][call["caller"]]["life"] += call["consequences"].get("life_gained", 0)


@FOLDS.on(UnitSacrificed)
def _unit_sacrificed(state: TcgState, sacrificed: UnitSacrificed, event: Event) -> None:
    _remove_unit(state, sacrificed.unit)
    if sacrificed.life_gained:
        state["players"][sacrificed.life_gained_by]["life"] += sacrificed.life_gained


@FOLDS.on(UnitDestroyed)
def _unit_destroyed(state: TcgState, destroyed: UnitDestroyed, event: Event) -> None:
    _remove_unit(state, destroyed.unit)


@FOLDS.on(PlayerDamaged)
def _player_damaged(state: TcgState, damaged: PlayerDamaged, event: Event) -> None:
    state["players"][damaged.seat]["life"] -= damaged.amount


@FOLDS.on(UnitDamaged)
def _unit_damaged(state: TcgState, damaged: UnitDamaged, event: Event) -> None:
    _, unit = find_unit(state, damaged.unit)
    if unit is not None:
        unit["damage"] += damaged.amount


@FOLDS.on(UnitBoosted)
def _unit_boosted(state: TcgState, boosted: UnitBoosted, event: Event) -> None:
    _, unit = find_unit(state, boosted.unit)
    if unit is not None:
        unit["boost_might"] += boosted.might
        unit["boost_endurance"] += boosted.endurance


@FOLDS.on(AttackerMuted)
def _attacker_muted(state: TcgState, muted: AttackerMuted, event: Event) -> None:
    if state["combat"] is not None:
        state["combat"]["muted"].append(muted.unit)


@FOLDS.on(FieldDestroyed)
def _field_destroyed(state: TcgState, destroyed: FieldDestroyed, event: Event) -> None:
    field = state["field"]
    if field is not None:
        state["players"][field["owner"]]["graveyard"].append(field["card"])
    state["field"] = None


@FOLDS.on(AttackDeclared)
def _attack_declared(state: TcgState, declared: AttackDeclared, event: Event) -> None:
    state["combat"] = {
        "seat": declared.seat,
        "target": declared.target,
        "attackers": list(declared.attackers),
        "blocks": {},
        "muted": [],
    }
    state["step"] = None


@FOLDS.on(BlocksAwaited)
def _blocks_awaited(state: TcgState, awaited: BlocksAwaited, event: Event) -> None:
    state["step"] = "blocks"


@FOLDS.on(BlockersAssigned)
def _blockers_assigned(state: TcgState, assigned: BlockersAssigned, event: Event) -> None:
    if state["combat"] is not None:
        state["combat"]["blocks"] = dict(assigned.blocks)
    state["step"] = None


@FOLDS.on(CombatResolved)
def _combat_resolved(state: TcgState, resolved: CombatResolved, event: Event) -> None:
    for hit in resolved.unit_damage:
        _, unit = find_unit(state, hit["unit"])
        if unit is not None:
            unit["damage"] += hit["amount"]
    for seat, amount in resolved.player_damage.items():
        state["players"][seat]["life"] -= amount
    state["combat"] = None


@FOLDS.on(TurnEnded)
def _turn_ended(state: TcgState, ended: TurnEnded, event: Event) -> None:
    for seat in state["seats"]:
        for unit in state["players"][seat]["units"]:
            unit["damage"], unit["boost_might"], unit["boost_endurance"] = 0, 0, 0
    state["combat"] = None


@FOLDS.on(SeatLost)
def _seat_lost(state: TcgState, lost: SeatLost, event: Event) -> None:
    losers = list(lost.seats)
    reason: LossReason = lost.reason
    winners = [s for s in state["seats"] if s not in losers]
    state["result"] = {"winners": winners, "reason": reason, "losers": losers}
    _game_over(state)


@FOLDS.on(TurnLimitReached)
def _turn_limit_reached(state: TcgState, reached: TurnLimitReached, event: Event) -> None:
    state["result"] = {"winners": list(reached.winners), "reason": "turn_limit", "life": dict(reached.life)}
    _game_over(state)


def _game_over(state: TcgState) -> None:
    state["phase"], state["step"], state["window"] = "over", None, None


FOLDS.unchanged(FreeSetDeclined)
