"""The state of a gambit-tcg match, the lookups every module reads it with, and `evolve`.

`evolve` folds one recorded event into the state with one evolver per kind; it applies what
decide decided (a loss, the turn limit) and never checks a rule itself.

State (plain JSON; it is the organizer's truth, views filter it):
- `cards` {instance: card id}: every physical card; instances are `<seat>-NN`, numbered by
  position in the shuffled deck, so an instance id says nothing about the card.
- `players` {seat: {life, deck_name, deck_list, deck (top first), hand, set, energy, units,
  graveyard, exile, energized}}; set entries {card, set_version, set_turn, ready_turn, revealed,
  window}; energy entries {card, ready}; unit entries {card, entered_turn, damage, item,
  boost_might, boost_endurance}.
- `field` {card, owner} | None; `combat` {seat, target, attackers, blocks {blocker: attacker},
  muted} | None; `pending_spell` {seat, card, choices, version} | None (a spell on the stack).
- `turn`, `active`, `phase` (setup | free_set | main1 | combat | main2 | draw | end | over),
  `step` (free_set | main | attack | blocks | None), `window` {name, responders, turn} | None.
- `result` {winners, reason, ...} | None; `version` the last folded event's version.
"""

from __future__ import annotations

from typing import Any

from domain.ruleset import Event, RuleViolation, config_to_dict

from .cards import SEATS, STARTING_LIFE
from .config import Config


def initial_state(config: Config, seats: list[str]) -> dict:
    """The state before setup: empty zones, full life."""
    return {
        "config": config_to_dict(config),
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


def owner_of(instance: str) -> str:
    """The seat that owns a card instance (its deck's seat)."""
    return instance.split("-", 1)[0]


def opponent(seat: str) -> str:
    """The other seat."""
    return SEATS[1] if seat == SEATS[0] else SEATS[0]


def active_on(turn: int) -> str:
    """Who takes turn number `turn` (p1 the odd turns, p2 the even ones)."""
    return SEATS[0] if turn % 2 == 1 else SEATS[1]


def ready_turn(set_turn: int, seat: str) -> int:
    """The first turn a trap set on `set_turn` may fire: the start of its owner's next turn."""
    turn = set_turn + 1
    while active_on(turn) != seat:
        turn += 1
    return turn


def find_unit(state: dict, instance: str) -> tuple[str, dict] | tuple[None, None]:
    """(controller, unit entry) of a unit in play, or (None, None)."""
    for seat in state["seats"]:
        for unit in state["players"][seat]["units"]:
            if unit["card"] == instance:
                return seat, unit
    return None, None


def find_set(state: dict, instance: str) -> tuple[str, dict] | tuple[None, None]:
    """(owner, set entry) of a card in a Set Zone, or (None, None)."""
    for seat in state["seats"]:
        for entry in state["players"][seat]["set"]:
            if entry["card"] == instance:
                return seat, entry
    return None, None


def unit_in_play(state: dict, instance: str) -> dict:
    """The entry of a unit the rules know is in play (KeyError if it is not: a record that cannot replay)."""
    _, unit = find_unit(state, instance)
    if unit is None:
        raise KeyError(instance)
    return unit


def set_entry(state: dict, instance: str) -> tuple[str, dict]:
    """(owner, set entry) of a card the rules know is set (KeyError if it is not: a record that cannot replay)."""
    owner, entry = find_set(state, instance)
    if owner is None or entry is None:
        raise KeyError(instance)
    return owner, entry


def source_of(state: dict, seat: str, card: str) -> tuple[str, dict | None]:
    """Where a card of `seat` may be played from: ("hand", None) or ("set", entry); RuleViolation otherwise."""
    if card in state["players"][seat]["hand"]:
        return "hand", None
    owner, entry = find_set(state, card)
    if owner == seat:
        return "set", entry
    raise RuleViolation("card_not_in_hand", f"{card!r} is not in your hand or Set Zone")


def _remove_unit(state: dict, instance: str) -> None:
    """Send a unit and its item to their owners' graveyards; forget it in combat."""
    seat, unit = find_unit(state, instance)
    if unit is None:
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


def _pay(state: dict, seat: str, paid: dict) -> None:
    player = state["players"][seat]
    for entry in player["energy"]:
        if entry["card"] in paid["energy"]:
            entry["ready"] = False
    for item in paid["discard"]:
        player["hand"].remove(item["card"])
        player["graveyard"].append(item["card"])


def _take_from_source(state: dict, seat: str, instance: str, source: str) -> None:
    player = state["players"][seat]
    if source == "hand":
        player["hand"].remove(instance)
    else:
        player["set"] = [e for e in player["set"] if e["card"] != instance]


def _set_result(state: dict, winners: list[str], reason: str, **extra: Any) -> None:
    state["result"] = {"winners": list(winners), "reason": reason, **extra}
    state["phase"], state["step"], state["window"] = "over", None, None


def evolve(state: dict, event: Event) -> dict:
    """Fold one recorded event into the state (never validates, never raises on recorded history)."""
    handler = _HANDLERS.get(event.kind)
    if handler is not None:
        handler(state, event.public, event.secret or {})
    if event.version is not None:
        state["version"] = event.version
    if event.kind == "CardSet":
        state["players"][event.public["seat"]]["set"][-1]["set_version"] = event.version
    elif event.kind == "CardPlayed" and state["pending_spell"] is not None and event.public["type"] == "spell":
        state["pending_spell"]["version"] = event.version
    return state


def _deck_registered(state, pub, sec):
    player = state["players"][pub["seat"]]
    player["deck_name"] = sec.get("deck")
    player["deck_list"] = list(sec.get("cards", []))


def _deck_shuffled(state, pub, sec):
    seat = pub["seat"]
    player = state["players"][seat]
    order = sec.get("chance_result", [])
    player["deck"] = []
    for position, index in enumerate(order):
        instance = f"{seat}-{position + 1:02d}"
        state["cards"][instance] = player["deck_list"][index]
        player["deck"].append(instance)


def _cards_drawn(state, pub, sec):
    player = state["players"][pub["seat"]]
    for instance in pub["cards"]:
        player["deck"].remove(instance)
        player["hand"].append(instance)


def _game_started(state, pub, sec):
    state["phase"], state["step"] = "free_set", "free_set"


def _card_set(state, pub, sec):
    player = state["players"][pub["seat"]]
    player["hand"].remove(pub["card"])
    player["set"].append(
        {
            "card": pub["card"],
            "set_version": None,
            "set_turn": pub["set_turn"],
            "ready_turn": pub["ready_turn"],
            "revealed": False,
            "window": sec.get("window"),
        }
    )


def _turn_began(state, pub, sec):
    state["turn"], state["active"] = pub["turn"], pub["seat"]
    player = state["players"][pub["seat"]]
    player["energized"] = False
    for entry in player["energy"]:
        entry["ready"] = True


def _phase_began(state, pub, sec):
    state["phase"] = pub["phase"]
    state["step"] = {"main1": "main", "main2": "main", "combat": "attack"}.get(pub["phase"])


def _window_opened(state, pub, sec):
    state["window"] = {"name": pub["window"], "responders": list(pub["responders"]), "turn": state["turn"]}


def _window_passed(state, pub, sec):
    window = state["window"]
    if window is not None and pub["seat"] in window["responders"]:
        window["responders"].remove(pub["seat"])


def _window_closed(state, pub, sec):
    state["window"] = None


def _card_energized(state, pub, sec):
    player = state["players"][pub["seat"]]
    player["hand"].remove(pub["card"])
    player["energy"].append({"card": pub["card"], "ready": True})
    player["energized"] = True


def _card_played(state, pub, sec):
    seat, instance, kind = pub["seat"], pub["card"], pub["type"]
    _pay(state, seat, pub["paid"])
    _take_from_source(state, seat, instance, pub["from"])
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
        _, host = find_unit(state, pub["target"])
        if host is not None:
            host["item"] = instance
    elif kind == "field":
        old = state["field"]
        if old is not None:
            state["players"][old["owner"]]["graveyard"].append(old["card"])
        state["field"] = {"card": instance, "owner": seat}
    elif kind == "spell":
        state["pending_spell"] = {"seat": seat, "card": instance, "choices": dict(pub["choices"]), "version": None}


def _spell_done(state, pub, sec):
    pending = state["pending_spell"]
    if pending is not None:
        state["players"][pending["seat"]]["graveyard"].append(pending["card"])
    state["pending_spell"] = None


def _trap_activated(state, pub, sec):
    seat = pub["seat"]
    _pay(state, seat, pub["paid"])
    _take_from_source(state, seat, pub["card"], "set")
    state["players"][seat]["graveyard"].append(pub["card"])


def _set_card_revealed(state, pub, sec):
    owner, entry = find_set(state, pub["card"])
    if entry is not None:
        if pub.get("returned_to_hand"):
            state["players"][owner]["set"].remove(entry)
            state["players"][owner]["hand"].append(pub["card"])
        else:
            entry["revealed"] = True
    call = pub.get("bluff_call")
    if call is not None:
        state["players"][call["caller"]]["life"] += call["consequences"].get("life_gained", 0)


def _unit_left(state, pub, sec):
    _remove_unit(state, pub["unit"])
    if pub.get("life_gained"):
        state["players"][pub["life_gained_by"]]["life"] += pub["life_gained"]


def _player_damaged(state, pub, sec):
    state["players"][pub["seat"]]["life"] -= pub["amount"]


def _unit_damaged(state, pub, sec):
    _, unit = find_unit(state, pub["unit"])
    if unit is not None:
        unit["damage"] += pub["amount"]


def _unit_boosted(state, pub, sec):
    _, unit = find_unit(state, pub["unit"])
    if unit is not None:
        unit["boost_might"] += pub["might"]
        unit["boost_endurance"] += pub["endurance"]


def _attacker_muted(state, pub, sec):
    if state["combat"] is not None:
        state["combat"]["muted"].append(pub["unit"])


def _field_destroyed(state, pub, sec):
    field = state["field"]
    if field is not None:
        state["players"][field["owner"]]["graveyard"].append(field["card"])
    state["field"] = None


def _attack_declared(state, pub, sec):
    state["combat"] = {
        "seat": pub["seat"],
        "target": pub["target"],
        "attackers": list(pub["attackers"]),
        "blocks": {},
        "muted": [],
    }
    state["step"] = None


def _blocks_awaited(state, pub, sec):
    state["step"] = "blocks"


def _blockers_assigned(state, pub, sec):
    if state["combat"] is not None:
        state["combat"]["blocks"] = dict(pub["blocks"])
    state["step"] = None


def _combat_resolved(state, pub, sec):
    for hit in pub["unit_damage"]:
        _, unit = find_unit(state, hit["unit"])
        if unit is not None:
            unit["damage"] += hit["amount"]
    for seat, amount in pub["player_damage"].items():
        state["players"][seat]["life"] -= amount
    state["combat"] = None


def _turn_ended(state, pub, sec):
    for seat in state["seats"]:
        for unit in state["players"][seat]["units"]:
            unit["damage"], unit["boost_might"], unit["boost_endurance"] = 0, 0, 0
    state["combat"] = None


def _seat_lost(state, pub, sec):
    losers = list(pub["seats"])
    _set_result(state, [s for s in state["seats"] if s not in losers], pub["reason"], losers=losers)


def _turn_limit(state, pub, sec):
    _set_result(state, list(pub["winners"]), "turn_limit", life=dict(pub["life"]))


_HANDLERS = {
    "DeckRegistered": _deck_registered,
    "DeckShuffled": _deck_shuffled,
    "CardsDrawn": _cards_drawn,
    "GameStarted": _game_started,
    "CardSet": _card_set,
    "TurnBegan": _turn_began,
    "PhaseBegan": _phase_began,
    "WindowOpened": _window_opened,
    "WindowPassed": _window_passed,
    "WindowClosed": _window_closed,
    "CardEnergized": _card_energized,
    "CardPlayed": _card_played,
    "SpellResolved": _spell_done,
    "SpellNullified": _spell_done,
    "TrapActivated": _trap_activated,
    "SetCardRevealed": _set_card_revealed,
    "UnitSacrificed": _unit_left,
    "UnitDestroyed": _unit_left,
    "PlayerDamaged": _player_damaged,
    "UnitDamaged": _unit_damaged,
    "UnitBoosted": _unit_boosted,
    "AttackerMuted": _attacker_muted,
    "FieldDestroyed": _field_destroyed,
    "AttackDeclared": _attack_declared,
    "BlocksAwaited": _blocks_awaited,
    "BlockersAssigned": _blockers_assigned,
    "CombatResolved": _combat_resolved,
    "TurnEnded": _turn_ended,
    "SeatLost": _seat_lost,
    "TurnLimitReached": _turn_limit,
}
