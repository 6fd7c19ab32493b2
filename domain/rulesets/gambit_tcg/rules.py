"""`setup`, `decide` and `outcome`: the events each command leads to, after decide's named checks.

decide checks a command with the check_* functions of the mechanism modules (play.py,
traps.py, combat.py), the same ones legal.py offers moves with, then lets the mechanism emit
its events through a `TcgDecision`; the game's end stops a decision where it happens.
"""

from __future__ import annotations

from collections.abc import Callable

from domain.chance import Chance
from domain.decision import GameEnded
from domain.ruleset import (
    Command,
    Event,
    RuleViolation,
    chance_event,
    check_game_running,
    check_seat_in_match,
    check_seat_to_act,
)

from .cards import OPENING_HAND
from .combat import assign_blockers, check_attack, check_blocks, declare_attack
from .commands import (
    ActivateTrap,
    AssignBlockers,
    DeclareAttack,
    EndPhase,
    Energize,
    Pass,
    PlayCard,
    Resign,
    SetCard,
    choices_of,
)
from .config import Config, join_options
from .legal import to_act
from .parts import deck_secret, registered_public, shuffle_public, started_public
from .payloads import FreeSetDeclined, SeatLost
from .phases import check_may_resign
from .play import check_energize, check_payment, check_play, energize, play_card
from .responses import pass_window
from .scratch import TcgDecision
from .shapes import TcgState
from .state import initial_state
from .traps import activate_trap, check_activation, check_set, set_card
from .turns import begin_turn, end_phase


def setup(config: Config, seats: list[str], chance: Chance, seat_options: dict[str, dict] | None = None) -> list[Event]:
    """Register each deck (secret to its seat), shuffle it (order secret to all), deal 5 and 6 cards."""
    options = {s: (seat_options or {}).get(s) or join_options(config, s, {}) for s in seats}
    decision = TcgDecision(initial_state(config, seats), chance)
    for seat in seats:
        decision.emit(
            "DeckRegistered",
            registered_public(decision.state),
            secret=deck_secret(options[seat]["deck"], options[seat]["deck_list"]),
            audience=(seat,),
        )
        public = shuffle_public(decision.state)
        shuffled = chance_event(
            "DeckShuffled",
            chance.permutation(f"shuffle/{seat}", public["chance"]["n"]),
            {"seat": public["seat"]},
            hidden_from_all_but=(),
        )
        decision.add(shuffled)
    for seat in seats:
        decision.draw(seat, OPENING_HAND[seat], "opening")
    decision.emit("GameStarted", started_public())
    return decision.events


def decide(state: TcgState, seat: str, command: Command, chance: Chance | None = None) -> list[Event]:
    """The events a command leads to; RuleViolation when the rules forbid it."""
    if isinstance(command, Resign):
        check_may_resign(state, seat)
        return [SeatLost(seats=[seat], reason="resignation").event()]
    check_game_running(state["result"] is not None)
    check_seat_in_match(state["seats"], seat)
    acting = to_act(state)
    if isinstance(command, ActivateTrap):
        # A trap's own checks come first: activating outside a window or out of turn says why.
        choices = choices_of(command)
        entry, cost = check_activation(state, seat, command.card, choices, acting)
        check_payment(state, seat, cost, command.energy, command.discard, command.card)
        return _decided(
            state,
            chance,
            lambda decision: activate_trap(
                decision, seat, command.card, choices, command.energy, command.discard, entry, cost
            ),
        )
    check_seat_to_act(seat, acting)
    if state["window"] is not None:
        if isinstance(command, Pass):
            return _decided(state, chance, lambda decision: pass_window(decision, seat))
        raise RuleViolation("window_open", "a trap window is open: activate a trap or pass")
    step = state["step"]
    if step == "free_set":
        return _free_set(state, seat, command, chance)
    if step == "main":
        return _main(state, seat, command, chance)
    if step == "attack" and isinstance(command, DeclareAttack):
        target = check_attack(state, seat, command.attackers, command.target_player)
        return _decided(state, chance, lambda decision: declare_attack(decision, seat, command.attackers, target))
    if step == "blocks" and isinstance(command, AssignBlockers):
        check_blocks(state, seat, command.blocks)
        return _decided(state, chance, lambda decision: assign_blockers(decision, seat, command.blocks))
    raise RuleViolation("wrong_step", f"{command.type!r} is not possible now (step {step})")


def _decided(state: TcgState, chance: Chance | None, action: Callable[[TcgDecision], None]) -> list[Event]:
    """The events `action` emits on a scratch copy of `state`, up to the one that ends the game."""
    decision = TcgDecision(state, chance)
    try:
        action(decision)
    except GameEnded:
        pass
    return decision.events


def _free_set(state: TcgState, seat: str, command: Command, chance: Chance | None) -> list[Event]:
    """Before the first turn p2 may set one card for free, or pass; either way turn 1 begins."""
    if isinstance(command, SetCard):
        check_set(state, seat, command.card, command.window)

        def set_then_begin(decision: TcgDecision) -> None:
            """Set the card for free, then turn 1 begins."""
            set_card(decision, seat, command.card, command.window, free=True)
            begin_turn(decision, 1)

        return _decided(state, chance, set_then_begin)
    if isinstance(command, Pass):

        def decline_then_begin(decision: TcgDecision) -> None:
            """Decline the free set, then turn 1 begins."""
            decision.add(FreeSetDeclined(seat=seat).event())
            begin_turn(decision, 1)

        return _decided(state, chance, decline_then_begin)
    raise RuleViolation("wrong_step", "before the first turn p2 may only set one card or pass")


def _main(state: TcgState, seat: str, command: Command, chance: Chance | None) -> list[Event]:
    """A main phase: end it, set, energize or play a card."""
    if isinstance(command, EndPhase):
        return _decided(state, chance, end_phase)
    if isinstance(command, SetCard):
        check_set(state, seat, command.card, command.window)
        return _decided(state, chance, lambda decision: set_card(decision, seat, command.card, command.window))
    if isinstance(command, Energize):
        check_energize(state, seat, command.card)
        return _decided(state, chance, lambda decision: energize(decision, seat, command.card))
    if isinstance(command, PlayCard):
        choices = choices_of(command)
        source, entry, cost = check_play(state, seat, command.card, choices)
        check_payment(state, seat, cost, command.energy, command.discard, command.card)
        return _decided(
            state,
            chance,
            lambda decision: play_card(
                decision, seat, command.card, choices, command.energy, command.discard, source, entry, cost
            ),
        )
    raise RuleViolation("wrong_step", f"{command.type!r} is not possible in a main phase")


def outcome(state: TcgState) -> dict | None:
    """None while running; then winners, reason (zero_life | deck_out | time | resignation | turn_limit), and life
    totals (a loss names the `losers`)."""
    result = state["result"]
    if result is None:
        return None
    out = {k: (list(v) if isinstance(v, list) else v) for k, v in result.items() if k != "life"}
    out["life"] = {s: state["players"][s]["life"] for s in state["seats"]}
    out["turns"] = state["turn"]
    return out


def time_out(state: TcgState, seat: str, chance: Chance | None) -> list[Event]:
    """A seat whose time ran out loses at once, as a seat whose deck ran out does (`SeatLost`, reason `time`)."""
    return [SeatLost(seats=[seat], reason="time").event()]
