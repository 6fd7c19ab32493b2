"""The rules of Toy Swap: setup, decide and its named checks, the outcome and a timed-out seat."""

from __future__ import annotations

from domain.chance import Chance
from domain.decision import Decision
from domain.ruleset import Command, Event, RuleViolation, check_game_running, check_seat_in_match, check_seat_to_act

from .commands import COMMANDS, PHASES, Resign, SwapCard
from .config import Config
from .events import CardDealt, CardHeld, CardsShown, CardSwapped, DeckShuffled, GameEnded, top_card
from .shapes import ToyState
from .state import evolve, initial_state


def setup(config: Config, seats: list[str], chance: Chance, seat_options: dict[str, dict] | None = None) -> list[Event]:
    """Shuffle in secret, then deal each seat the top card, seen by that seat alone."""
    decision = Decision(initial_state(config, seats), chance, evolve)
    drawn = chance.permutation(decision.purpose("shuffle"), len(decision.state["deck"]))
    decision.add(
        DeckShuffled(deck_size=len(decision.state["deck"]), chance=drawn.descriptor, chance_result=drawn.result).event(
            audience=()
        )
    )
    for seat in seats:
        decision.add(CardDealt(seat=seat, **top_card(decision.state)).event(audience=(seat,)))
    return decision.events


def check_seat_may_act(state: ToyState, seat: str) -> None:
    """A seat acts once, on its turn, while the game runs."""
    check_seat_in_match(state["seats"], seat)
    check_game_running(state["phase"] == "over")
    check_seat_to_act(seat, [state["turn"]] if state["phase"] == "play" and state["turn"] is not None else [])


def decide(state: ToyState, seat: str, command: Command, chance: Chance) -> list[Event]:
    """Hold or swap; after the second seat has acted, the cards are shown and the game ends."""
    check_seat_in_match(state["seats"], seat)
    check_game_running(state["phase"] == "over")
    if type(command) not in COMMANDS:
        raise RuleViolation("unknown_command", f"Toy Swap has no command {command.type!r}")
    # The phase owns its commands (PHASES): in the deal each is refused as `not_now`, before whose turn it is.
    PHASES.check(state["phase"], command)
    check_seat_may_act(state, seat)
    if isinstance(command, Resign):
        # Giving up has a time-out's consequence, recorded as a resignation.
        return [GameEnded(reason="resignation", forfeited=seat).event()]
    decision = Decision(state, chance, evolve)
    if isinstance(command, SwapCard):
        decision.add(CardSwapped(seat=seat, **top_card(decision.state)).event(audience=(seat,)))
    else:
        decision.add(CardHeld(seat=seat).event())
    if decision.state["turn"] is None:
        dealt = tuple(sorted(decision.state["dealt_at"].values()))
        decision.add(CardsShown(cards=dict(decision.state["hands"])).event(opens=dealt))
        decision.add(GameEnded(reason="showdown").event())
    return decision.events


def outcome(state: ToyState) -> dict | None:
    """None while playing; then the winner (the higher card, or the seat that did not forfeit on time or by resigning)."""
    if state["end_reason"] is None:
        return None
    if state["forfeited"] is not None:
        winners = [seat for seat in state["seats"] if seat != state["forfeited"]]
        return {"winners": winners, "reason": state["end_reason"], "forfeited": state["forfeited"]}
    best = max(state["hands"].values())
    return {
        "winners": [seat for seat, card in state["hands"].items() if card == best],
        "reason": "showdown",
        "cards": dict(state["hands"]),
    }


def time_out(state: ToyState, seat: str, chance: Chance) -> list[Event]:
    """A seat whose time ran out forfeits: the game ends at once."""
    return [GameEnded(reason="time", forfeited=seat).event()]
