"""`decide`, `legal_commands` and `to_act`: every rule check lives here or in the modules it calls.

decide and legal_commands share the same predicates (check_* and the option lists), so the
commands listed are exactly ones decide accepts.
"""

from __future__ import annotations

import itertools

from domain.ruleset import Event, RuleViolation

from .cards import CARDS, SEATS, WINDOWS
from .combat import assign_blockers, block_options, check_attack, check_blocks, declare_attack
from .commands import (ActivateTrap, AssignBlockers, DeclareAttack, Energize, EndPhase, Pass, PlayCard, SetCard,
                       choices_of)
from .effects import CHOICE_FIELDS, choice_options
from .phases import GameOver, Script, attack_candidates, begin_turn, end_phase, pass_window
from .play import canonical_payment, check_energize, check_payment, check_play, energize, item_hosts, play_card
from .state import opponent
from .traps import activate_trap, check_activation, check_set, set_card


def to_act(state: dict) -> list[str]:
    """Seats that may act now: a window's next responder, else whoever the step waits for."""
    if state["result"] is not None:
        return []
    if state["window"] is not None:
        return state["window"]["responders"][:1]
    step = state["step"]
    if step == "free_set":
        return [SEATS[1]]
    if step in ("main", "attack"):
        return [state["active"]]
    if step == "blocks":
        return [opponent(state["active"])]
    return []


def decide(state: dict, seat: str, command, chance=None) -> list[Event]:
    """The events a command leads to; RuleViolation when the rules forbid it."""
    if state["result"] is not None:
        raise RuleViolation("game_over", "the game has ended")
    if seat not in state["seats"]:
        raise RuleViolation("unknown_seat", f"{seat!r} is not a seat of this match")
    acting = to_act(state)
    if isinstance(command, ActivateTrap):
        choices = choices_of(command)
        entry, cost = check_activation(state, seat, command.card, choices, acting)
        check_payment(state, seat, cost, command.energy, command.discard, command.card)
        return _run(state, lambda s: activate_trap(s, seat, command.card, choices, command.energy, command.discard,
                                                   entry, cost))
    if seat not in acting:
        raise RuleViolation("not_your_turn", f"waiting for {acting}")
    if state["window"] is not None:
        if isinstance(command, Pass):
            return _run(state, lambda s: pass_window(s, seat))
        raise RuleViolation("window_open", "a trap window is open: activate a trap or pass")
    step = state["step"]
    if step == "free_set":
        return _free_set(state, seat, command)
    if step == "main":
        return _main(state, seat, command)
    if step == "attack" and isinstance(command, DeclareAttack):
        target = check_attack(state, seat, command.attackers, command.target_player)
        return _run(state, lambda s: declare_attack(s, seat, command.attackers, target))
    if step == "blocks" and isinstance(command, AssignBlockers):
        check_blocks(state, seat, command.blocks)
        return _run(state, lambda s: assign_blockers(s, seat, command.blocks))
    raise RuleViolation("wrong_step", f"{getattr(command, 'type', command)!r} is not possible now (step {step})")


def _run(state: dict, action) -> list[Event]:
    script = Script(state)
    try:
        action(script)
    except GameOver:
        pass
    return script.events


def _free_set(state: dict, seat: str, command) -> list[Event]:
    if isinstance(command, SetCard):
        check_set(state, seat, command.card, command.window)

        def act(s: Script) -> None:
            set_card(s, seat, command.card, command.window, free=True)
            begin_turn(s, 1)
        return _run(state, act)
    if isinstance(command, Pass):
        def decline(s: Script) -> None:
            s.emit("FreeSetDeclined", {"seat": seat})
            begin_turn(s, 1)
        return _run(state, decline)
    raise RuleViolation("wrong_step", "before the first turn p2 may only set one card or pass")


def _main(state: dict, seat: str, command) -> list[Event]:
    if isinstance(command, EndPhase):
        return _run(state, end_phase)
    if isinstance(command, SetCard):
        check_set(state, seat, command.card, command.window)
        return _run(state, lambda s: set_card(s, seat, command.card, command.window))
    if isinstance(command, Energize):
        check_energize(state, seat, command.card)
        return _run(state, lambda s: energize(s, seat, command.card))
    if isinstance(command, PlayCard):
        choices = choices_of(command)
        source, entry, cost = check_play(state, seat, command.card, choices)
        check_payment(state, seat, cost, command.energy, command.discard, command.card)
        return _run(state, lambda s: play_card(s, seat, command.card, choices, command.energy, command.discard,
                                               source, entry, cost))
    raise RuleViolation("wrong_step", f"{getattr(command, 'type', command)!r} is not possible in a main phase")


# ----- legal commands -------------------------------------------------------------------------

def legal_commands(state: dict, seat: str) -> list:
    """Every command `seat` may send now.

    Complete except for two bounded choices: each play/activation is listed with one canonical
    minimal payment (largest energy first, then the last hand cards), and block assignments are
    capped (combat.BLOCK_OPTIONS_CAP).
    """
    if seat not in to_act(state):
        return []
    if state["window"] is not None:
        return [Pass()] + _trap_activations(state, seat)
    step = state["step"]
    hand = state["players"][seat]["hand"]
    if step == "free_set":
        return [Pass()] + _sets(state, seat)
    if step == "attack":
        able = attack_candidates(state, seat)
        return [DeclareAttack(tuple(c)) for n in range(len(able) + 1) for c in itertools.combinations(able, n)]
    if step == "blocks":
        return [AssignBlockers(b) for b in block_options(state, seat)]
    if step != "main":
        return []
    out: list = [EndPhase()]
    player = state["players"][seat]
    if not player["energized"] and len(player["energy"]) < 5:
        out += [Energize(c) for c in hand]
    out += _sets(state, seat)
    out += _plays(state, seat)
    return out


def _sets(state: dict, seat: str) -> list[SetCard]:
    out = []
    for card in state["players"][seat]["hand"]:
        try:
            check_set(state, seat, card, None if CARDS[state["cards"][card]]["type"] != "trap" else WINDOWS[0])
        except RuleViolation:
            continue
        if CARDS[state["cards"][card]]["type"] == "trap":
            out += [SetCard(card, w) for w in WINDOWS]
        else:
            out.append(SetCard(card))
    return out


def _plays(state: dict, seat: str) -> list[PlayCard]:
    player = state["players"][seat]
    candidates = list(player["hand"]) + [e["card"] for e in player["set"]]
    out = []
    for card in candidates:
        kind = CARDS[state["cards"][card]]["type"]
        if kind == "trap":
            continue
        if kind == "item":
            options = [{**dict.fromkeys(CHOICE_FIELDS), "target": h} for h in item_hosts(state, seat, card)]
        elif kind == "field":
            options = [dict.fromkeys(CHOICE_FIELDS)]
        else:
            options = choice_options(state, seat, card)
        if not options:
            continue
        try:
            _, entry, cost = check_play(state, seat, card, options[0])
        except RuleViolation:
            continue
        payment = canonical_payment(state, seat, cost, card)
        if payment is None:
            continue
        out += [PlayCard(card, payment[0], payment[1], **choice) for choice in options]
    return out


def _trap_activations(state: dict, seat: str) -> list[ActivateTrap]:
    out = []
    for entry in state["players"][seat]["set"]:
        card = entry["card"]
        if CARDS[state["cards"][card]]["type"] != "trap":
            continue
        options = choice_options(state, seat, card)
        if not options:
            continue
        try:
            _, cost = check_activation(state, seat, card, options[0], to_act(state))
        except RuleViolation:
            continue
        payment = canonical_payment(state, seat, cost, card)
        if payment is not None:
            out += [ActivateTrap(card, payment[0], payment[1], **choice) for choice in options]
    return out

