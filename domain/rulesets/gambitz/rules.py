"""The Gambitz rules: setup, decide with its named checks, and the outcome.

Each `check_*` raises RuleViolation with the rule id the API returns; legal.py lists moves by
running the same checks, so a listed move and an accepted one can never differ.
"""

from __future__ import annotations

from domain.chance import Chance
from domain.decision import Decision
from domain.ruleset import Command, Event, RuleViolation, check_game_running, check_seat_to_act

from .cards import KNOWN_CARDS, STACK_RANKS, group_of, has_power, rank_of
from .commands import PassTurn, PlayCard, RedrawHand, Resign
from .config import Config
from .events import (
    CardsDealt,
    CardsDrawn,
    CardsRefilled,
    SeatResigned,
    SeatTimedOut,
    TurnPassed,
    card_played,
    cards_returned,
    game_started,
    hand_shown,
    next_turn,
    queen_moved,
    refill,
    revealed_by_showing,
    shuffle_public,
)
from .shapes import GambitzState
from .state import evolve, initial_state
from .table import is_playable, knight_returns, must_redraw, must_show, next_position, placement_problem, queen_moves

# --- emitting through the scratch pad -------------------------------------------------------------


class Pad(Decision[GambitzState]):
    """Decide's scratch pad (domain.decision) over the Gambitz state, which the event builders read."""

    def __init__(self, state: GambitzState, chance: Chance) -> None:
        super().__init__(state, chance, evolve)

    @property
    def table(self) -> GambitzState:
        """The state as it stands after the events decided so far."""
        return self.state


def _shuffle(pad: Pad, purpose: str) -> None:
    """A hidden shuffle of the whole deck (organizers only)."""
    public = shuffle_public(pad.table)
    drawn = pad.chance.permutation(purpose, public["chance"]["n"])
    pad.emit_chance("DeckShuffled", drawn, {"reason": public["reason"], "deck_size": public["deck_size"]})


def _refill(pad: Pad, kind: type[CardsRefilled], seat: str) -> None:
    """A deal or draw topping the seat's hand up from the top of the deck, secret to the seat."""
    pad.record(refill(pad.table, seat, kind), (seat,))


def _pass_turn_on(pad: Pad, seat: str) -> None:
    """The next seat's turn, or the end of the game."""
    pad.record(next_turn(pad.table, seat))


# --- setup --------------------------------------------------------------------------------------


def setup(config: Config, seats: list[str], chance: Chance, seat_options: dict[str, dict] | None = None) -> list[Event]:
    """Shuffle (hidden), deal 3 secret cards to each seat, then the first seat is to play (no join options)."""
    # One hidden shuffle and each seat taking the top 3 in turn: a uniform shuffle makes this the
    # same as dealing round-robin.
    pad = Pad(initial_state(config, seats), chance)
    _shuffle(pad, "shuffle")
    for seat in seats:  # the order `dealt_seat` gives the verifier: the first seat still empty-handed
        _refill(pad, CardsDealt, seat)
    pad.record(game_started(pad.table))
    return pad.events


# --- decide's named checks ----------------------------------------------------------------------


def check_dealt(state: GambitzState) -> None:
    """No command is taken before the cards are dealt (`not_started`)."""
    if state["phase"] != "play":
        raise RuleViolation("not_started", "the cards have not been dealt yet")


def check_not_stuck(state: GambitzState, seat: str) -> None:
    """A seat whose hand must be redrawn may do nothing else first (`must_redraw`)."""
    if must_redraw(state, seat):
        raise RuleViolation("must_redraw", "a hand of Queens that cannot be played must be redrawn")


def check_card(state: GambitzState, seat: str, card: object) -> None:
    """The card is a real card in the seat's hand (`unknown_card`, `card_not_in_hand`)."""
    if not isinstance(card, str) or card not in KNOWN_CARDS:
        raise RuleViolation("unknown_card", f"no card {card!r} in this game")
    if card not in state["hands"][seat]:
        raise RuleViolation("card_not_in_hand", f"{card} is not in {seat}'s hand")


def check_stack(card: str, stack: object) -> str:
    """The stack the card goes on: a Queen names a real stack, any other card only its own; returns it."""
    rank = rank_of(card)
    if rank == "queen":
        if stack is None:
            raise RuleViolation("queen_needs_stack", "name the stack the Queen locks (`stack`)")
        if not isinstance(stack, str) or stack not in STACK_RANKS:
            raise RuleViolation("unknown_stack", f"no stack named {stack!r}")
        return stack
    if stack is not None and stack != rank:
        raise RuleViolation("wrong_stack", f"{card} goes only on the {rank} stack")
    return rank


def check_placement(state: GambitzState, rank: str, stack: str) -> None:
    """The stack takes a card of this rank now (`stack_locked`, `stack_full`, `queen_on_castle`, ...)."""
    problem = placement_problem(state, rank, stack)
    if problem is not None:
        raise RuleViolation(*problem)


def check_queen_move(state: GambitzState, card: str, move: tuple[object, object]) -> None:
    """A Queen move comes only with a 2nd or 3rd Bishop, from a locked stack to an open non-Castle stack of 3."""
    if move == (None, None):
        return
    rank = rank_of(card)
    if not (rank == "bishop" and has_power(rank, next_position(state, rank))):
        raise RuleViolation("bishop_power_unavailable", "only the 2nd or 3rd Bishop may move a Queen")
    if move not in queen_moves(state):
        raise RuleViolation("invalid_queen_move", "move a locking Queen to another non-Castle stack of exactly 3 cards")


def check_knight_return(state: GambitzState, seat: str, card: str, returned: object) -> None:
    """Cards go back only with a 2nd or 3rd Knight: one or both of the others held, each once, in any order."""
    if not isinstance(returned, (tuple, list)):
        raise RuleViolation("invalid_knight_return", "knight_return lists card ids")
    if not returned:
        return
    rank = rank_of(card)
    if not (rank == "knight" and has_power(rank, next_position(state, rank))):
        raise RuleViolation("knight_power_unavailable", "only the 2nd or 3rd Knight may return cards")
    if tuple(returned) not in knight_returns(state, seat, card):
        raise RuleViolation("invalid_knight_return", "return one or both of the other cards you held, once each")


def check_play(state: GambitzState, seat: str, command: PlayCard) -> str:
    """Every check a play must pass, in the order decide reports them; returns the stack the card goes on."""
    check_not_stuck(state, seat)
    return check_move(state, seat, command)


def check_move(state: GambitzState, seat: str, command: PlayCard) -> str:
    """The checks of a play after `check_not_stuck`: the card, its stack, the placement and its power."""
    check_card(state, seat, command.card)
    stack = check_stack(command.card, command.stack)
    check_placement(state, rank_of(command.card), stack)
    check_queen_move(state, command.card, (command.move_queen_from, command.move_queen_to))
    check_knight_return(state, seat, command.card, command.knight_return or ())
    return stack


def check_may_pass(state: GambitzState, seat: str) -> None:
    """A seat passes only when no redraw is due and no card in its hand can be played (a stuck hand is then shown)."""
    check_not_stuck(state, seat)
    if any(is_playable(state, card) for card in state["hands"][seat]):
        raise RuleViolation("cannot_pass_with_playable_card", "a seat that can play a card must play one")


def check_may_redraw(state: GambitzState, seat: str) -> None:
    """A hand is redrawn only when it is stuck, the deck has cards and the seat has not redrawn this turn."""
    if not must_redraw(state, seat):
        raise RuleViolation(
            "redraw_not_allowed",
            "only a stuck hand of three Queens, or two Queens and a locked "
            "card, with cards left in the deck, is redrawn (once a turn)",
        )


def check_turn(state: GambitzState, seat: str) -> None:
    """The game is running and it is this seat's turn (`game_over`, `not_started`, `not_your_turn`)."""
    check_game_running(state["phase"] == "over")
    check_dealt(state)
    turn = state["turn"]  # a seat is on turn once the cards are dealt, until the end
    check_seat_to_act(seat, [] if turn is None else [turn])


def check_may_resign(state: GambitzState, seat: str) -> None:
    """A seat gives up only when it could act: on its own turn while the game runs (nobody acts out of turn)."""
    check_turn(state, seat)


# --- decide -------------------------------------------------------------------------------------


def _decide_play(state: GambitzState, seat: str, command: PlayCard, chance: Chance) -> list[Event]:
    stack = check_play(state, seat, command)
    pad = Pad(state, chance)
    pad.record(card_played(state, seat, command.card, stack))
    source, target = command.move_queen_from, command.move_queen_to
    if source is not None and target is not None:
        pad.record(queen_moved(pad.table, seat, source, target))
    returned = list(command.knight_return or ())
    if returned:
        pad.record(cards_returned(pad.table, seat, returned), (seat,))
    if pad.table["deck"]:
        _refill(pad, CardsDrawn, seat)
    _pass_turn_on(pad, seat)
    return pad.events


def _decide_pass(state: GambitzState, seat: str, chance: Chance) -> list[Event]:
    check_may_pass(state, seat)
    pad = Pad(state, chance)
    if must_show(state, seat):
        # A stuck hand with an empty deck cannot be redrawn: it is shown (opening the records
        # that brought it, as a redraw's is) and kept, and the seat passes; nothing is drawn.
        pad.record(hand_shown(state, seat), opens=revealed_by_showing(state, seat))
    pad.record(TurnPassed(seat=seat))
    _pass_turn_on(pad, seat)
    return pad.events


def _decide_redraw(state: GambitzState, seat: str, chance: Chance) -> list[Event]:
    check_may_redraw(state, seat)
    pad = Pad(state, chance)
    pad.record(hand_shown(state, seat), opens=revealed_by_showing(state, seat))
    _shuffle(pad, "reshuffle")
    _refill(pad, CardsDrawn, seat)
    return pad.events


def decide(state: GambitzState, seat: str, command: Command, chance: Chance) -> list[Event]:
    """The events of a legal command; RuleViolation for anything the rules do not allow."""
    if isinstance(command, Resign):
        check_may_resign(state, seat)
        return [SeatResigned(seat=seat).event()]
    check_turn(state, seat)
    if isinstance(command, PlayCard):
        return _decide_play(state, seat, command, chance)
    if isinstance(command, PassTurn):
        return _decide_pass(state, seat, chance)
    if isinstance(command, RedrawHand):
        return _decide_redraw(state, seat, chance)
    raise RuleViolation("unknown_command", f"gambitz has no command {command.type!r}")


# --- outcome ------------------------------------------------------------------------------------


def penalty_of(state: GambitzState, cards: list[str]) -> int:
    """The penalty (a positive amount under the default table) for these cards left in hand."""
    return -sum(state["scoring"][group_of(rank_of(card))]["hand"] for card in cards)


def outcome(state: GambitzState) -> dict | None:
    """None while playing; then winners (ties share), reason, final scores, points and penalties (and the
    seat that `forfeited`, on a time-out or a resignation)."""
    if state["phase"] != "over":
        return None
    seats = state["seats"]
    penalties = {seat: penalty_of(state, state["hands"][seat]) for seat in seats}
    scores = {seat: state["points"][seat] - penalties[seat] for seat in seats}
    # A seat that ran out of time, or resigned, forfeits: the others are ranked as the game stands.
    forfeited = state.get("forfeited")
    contenders = [seat for seat in seats if seat != forfeited]
    best = max(scores[seat] for seat in contenders)
    result = {
        "winners": [seat for seat in contenders if scores[seat] == best],
        "reason": state["end_reason"],
        "scores": scores,
        "points": dict(state["points"]),
        "penalties": penalties,
        "hands": {seat: list(state["hands"][seat]) for seat in seats},
    }
    if forfeited is not None:
        result["forfeited"] = forfeited
    return result


def time_out(state: GambitzState, seat: str, chance: Chance) -> list[Event]:
    """A seat whose time ran out forfeits: the game ends at once (`SeatTimedOut`), reason `time`, and the
    other seats are ranked by their scores as they stand (the forfeiting seat is never among the winners)."""
    return [SeatTimedOut(seat=seat).event()]
