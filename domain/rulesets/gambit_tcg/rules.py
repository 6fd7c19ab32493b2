"""`decide`, `legal_commands` and `to_act`: every rule check lives here or in the modules it calls.

decide and legal_commands/legal_choices share the same predicates (check_* and the option
lists), so what they offer is exactly what decide accepts.
"""

from __future__ import annotations

from domain.choices import Choice, collapse, one_of, subset_of
from domain.ruleset import Event, RuleViolation, passes

from .cards import CARDS, ENERGY_CAP, SEATS, WINDOWS
from .combat import assign_blockers, block_choices, check_attack, check_blocks, declare_attack
from .commands import (ActivateTrap, AssignBlockers, DeclareAttack, Energize, EndPhase, Pass, PlayCard, SetCard,
                       choices_of)
from .effects import CHOICE_FIELDS, choice_options
from .phases import GameOver, Script, attack_candidates, begin_turn, end_phase, pass_window
from .play import check_energize, check_payment, check_play, energize, item_hosts, payment_domains, play_card
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
    if chance is not None and chance.version is not None:
        # The match, not the ruleset's state, knows the next version: a dispute recorded since the
        # last ruleset event moved it on, and a ruling names its records by the versions they get.
        state = {**state, "version": chance.version - 1}
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
    """Every whole command `seat` may send now; the families too large to list are legal_choices."""
    return collapse(_legal_options(state, seat))[0]


def legal_choices(state: dict, seat: str) -> list[Choice]:
    """The families of `seat`'s legal commands: payments, block assignments, attacks, set windows."""
    return collapse(_legal_options(state, seat))[1]


def _legal_options(state: dict, seat: str) -> list:
    """Every legal command of `seat` now, as whole commands and choices (see domain/choices.py)."""
    if seat not in to_act(state):
        return []
    if state["window"] is not None:
        return [Pass()] + _trap_activations(state, seat)
    step = state["step"]
    hand = state["players"][seat]["hand"]
    if step == "free_set":
        return [Pass()] + _sets(state, seat)
    if step == "attack":
        attackers = attack_candidates(state, seat)
        return [Choice(DeclareAttack, {}, {"attackers": subset_of(attackers, 0, len(attackers)),
                                           "target_player": one_of([None, opponent(seat)])})]
    if step == "blocks":
        return list(block_choices(state, seat))
    if step != "main":
        return []
    out: list = [EndPhase()]
    player = state["players"][seat]
    if not player["energized"] and len(player["energy"]) < ENERGY_CAP:
        out += [Energize(c) for c in hand]
    out += _sets(state, seat)
    out += _plays(state, seat)
    return out


def _sets(state: dict, seat: str) -> list[Choice]:
    """Each settable hand card with the windows check_set lets it declare (none for a card that is no trap)."""
    out = []
    for card in state["players"][seat]["hand"]:
        windows = [w for w in (None, *WINDOWS) if passes(check_set, state, seat, card, w)]
        if windows:
            out.append(Choice(SetCard, {"card": card}, {"window": one_of(windows)}))
    return out


def _paid(command_cls, state: dict, seat: str, card: str, cost: int, options: list[dict]) -> list[Choice]:
    """Each choice of effects with each family of minimal payments."""
    return [Choice(command_cls, {"card": card, **choice}, payment)
            for choice in options for payment in payment_domains(state, seat, cost, card)]


def _plays(state: dict, seat: str) -> list[Choice]:
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
            _, _, cost = check_play(state, seat, card, options[0])
        except RuleViolation:
            continue
        out += _paid(PlayCard, state, seat, card, cost, options)
    return out


def _trap_activations(state: dict, seat: str) -> list[Choice]:
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
        out += _paid(ActivateTrap, state, seat, card, cost, options)
    return out
