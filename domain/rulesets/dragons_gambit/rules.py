"""`setup`, `decide` and its named checks, and `outcome`: every rule of play lives here.

`check_command` is the single gate `decide` goes through and `legal_commands` filters with, so the
list of legal commands can never disagree with what `decide` accepts.
"""

from __future__ import annotations

from typing import Literal

from domain.chance import Chance
from domain.decision import Decision, GameEnded
from domain.ruleset import (
    Command,
    Event,
    RuleViolation,
    chance_event,
    check_game_running,
    check_seat_in_match,
    check_seat_to_act,
)

from .cards import NEAR_ROW, SpecialFace, is_valid_slot
from .commands import (
    ABILITY_COMMAND,
    ABILITY_COMMANDS,
    COMMANDS,
    AddToken,
    BlindSwap,
    CallFinalGambit,
    DiscardDrawnCard,
    DrawCard,
    PeekCards,
    PeekOtherCard,
    PeekOwnCard,
    Resign,
    SkipAbility,
    SwapDrawnCard,
    TakeDiscard,
)
from .config import Config
from .events import (
    AbilitySkipped,
    CardDrawn,
    CardPeeked,
    CardsBlindSwapped,
    DrawnCardSwapped,
    FinalGambitCalled,
    SeatResigned,
    SeatTimedOut,
    deal_public,
    dealt_grids,
    discard_started,
    discard_taken,
    discarded_card,
    drawn_discarded,
    initial_peek,
    peeked_card,
    reshuffle_public,
    reshuffled_draw_pile,
    round_end_opens,
    round_ended,
    token_added,
    top_card,
    without_chance,
)
from .shapes import DragonsState
from .state import evolve, initial_state

# --- the named checks of decide (legal.py lists commands with them) ---------------------------


def check_slot(slot: object) -> None:
    """A slot must be 0, 1, 2 or 3 (`invalid_slot`)."""
    if not is_valid_slot(slot):
        raise RuleViolation("invalid_slot", f"slot must be 0, 1, 2 or 3, not {slot!r}")


def check_other_seat(state: DragonsState, actor: str, seat: str) -> None:
    """An ability aimed at another seat must name a seat of the match other than the actor's."""
    check_seat_in_match(state["seats"], seat)
    if seat == actor:
        raise RuleViolation("must_target_another_seat", "this ability targets another seat's card")


def check_final_gambit(state: DragonsState) -> None:
    """Final Gambit is called once a round, and only after every seat has taken a turn (house rule)."""
    if state["caller"] is not None:
        raise RuleViolation("final_gambit_already_called", f"{state['caller']} already called Final Gambit this round")
    if any(n < 1 for n in state["turns_taken"].values()):
        raise RuleViolation("final_gambit_too_early", "every seat must have taken a turn this round first")


def check_peek(state: DragonsState, seat: str, command: Command) -> None:
    """During the initial peek a seat peeks once, at two distinct slots of its own grid."""
    if not isinstance(command, PeekCards):
        raise RuleViolation("initial_peek_pending", "every seat must first peek at two of its cards")
    if state["peeked"][seat]:
        raise RuleViolation("already_peeked", "you have already peeked this round")
    check_slot(command.first_slot)
    check_slot(command.second_slot)
    if command.first_slot == command.second_slot:
        raise RuleViolation("peek_needs_two_distinct_slots", "name two different slots")


def check_drawn_card(command: Command) -> None:
    """A seat holding a drawn card must swap it into a slot or discard it."""
    if not isinstance(command, (SwapDrawnCard, DiscardDrawnCard)):
        raise RuleViolation("must_resolve_drawn_card", "swap or discard the drawn card first")
    if isinstance(command, SwapDrawnCard):
        check_slot(command.slot)


def check_ability(state: DragonsState, seat: str, command: Command, face: SpecialFace) -> None:
    """After discarding a special card (of `face`), the seat uses that card's ability (on valid targets) or skips it."""
    if isinstance(command, SkipAbility):
        return
    if not isinstance(command, ABILITY_COMMANDS):
        raise RuleViolation("must_resolve_ability", f"use or skip the ability of the {face} first")
    if ABILITY_COMMAND[face] is not type(command):
        raise RuleViolation("ability_not_available", f"the {face} does not allow {command.type}")
    if isinstance(command, AddToken):
        check_seat_in_match(state["seats"], command.seat)
        check_slot(command.slot)
    elif isinstance(command, PeekOtherCard):
        check_other_seat(state, seat, command.seat)
        check_slot(command.slot)
    elif isinstance(command, PeekOwnCard):
        check_slot(command.slot)
    elif isinstance(command, BlindSwap):
        check_slot(command.slot)
        check_other_seat(state, seat, command.other_seat)
        check_slot(command.other_slot)


def check_turn_start(state: DragonsState, command: Command) -> None:
    """A turn starts with a draw, a take from a non-empty discard pile, or a Final Gambit call."""
    if isinstance(command, (SwapDrawnCard, DiscardDrawnCard)):
        raise RuleViolation("no_drawn_card", "draw a card first")
    if isinstance(command, (*ABILITY_COMMANDS, SkipAbility)):
        raise RuleViolation("ability_not_available", "abilities follow only a drawn card discarded straight away")
    if isinstance(command, TakeDiscard):
        check_slot(command.slot)
        if not state["discard"]:
            raise RuleViolation("empty_discard", "the discard pile is empty")
    elif isinstance(command, CallFinalGambit):
        check_final_gambit(state)


def waiting_for(state: DragonsState) -> list[str]:
    """Seats the match waits for: the unpeeked seats in a `choose` peek, else the seat on turn (legal.to_act)."""
    if state["phase"] == "peek":
        if state["config"]["initial_peek"] != "choose":
            return []
        return [s for s in state["seats"] if not state["peeked"][s]]
    on_turn = state["current"]
    if state["phase"] == "turn" and on_turn is not None:
        return [on_turn]
    return []


def check_may_resign(state: DragonsState, seat: str) -> None:
    """A seat gives up only while the match waits for it (no seat ever acts unasked), before the end."""
    check_game_running(state["phase"] == "over")
    check_seat_in_match(state["seats"], seat)
    check_seat_to_act(seat, waiting_for(state))


def check_command(state: DragonsState, seat: str, command: Command) -> None:
    """Raise RuleViolation unless `seat` may issue `command` now."""
    check_game_running(state["phase"] == "over")
    check_seat_in_match(state["seats"], seat)
    if not isinstance(command, COMMANDS):
        raise RuleViolation("unknown_command", f"{type(command).__name__} is not a command of this game")
    if isinstance(command, Resign):
        check_may_resign(state, seat)
        return
    if state["phase"] == "peek":
        check_peek(state, seat, command)
        return
    if isinstance(command, PeekCards):
        raise RuleViolation("peek_not_available", "the initial peek is over")
    on_turn = state["current"]
    check_seat_to_act(seat, [on_turn] if state["phase"] == "turn" and on_turn is not None else [])
    pending = state["pending_ability"]
    if state["drawn"] is not None:
        check_drawn_card(command)
    elif pending is not None:
        check_ability(state, seat, command, pending["face"])
    else:
        check_turn_start(state, command)


# --- decide -----------------------------------------------------------------------------------


def _match_over(state: DragonsState) -> bool:
    return state["phase"] == "over"


class Pad(Decision[DragonsState]):
    """Decide's scratch pad (domain.decision) over this game's state, which `table` reads."""

    def __init__(self, state: DragonsState, chance: Chance, stop_at_match_end: bool = False) -> None:
        super().__init__(state, chance, evolve, ended=_match_over if stop_at_match_end else None)

    @property
    def table(self) -> DragonsState:
        """The state as it stands after the events decided so far."""
        return self.state


def _deal_round(d: Pad) -> None:
    public = deal_public(d.table)
    drawn = d.chance.permutation("deal", public["chance"]["n"])
    d.add(
        chance_event(
            "RoundDealt",
            drawn,
            without_chance(public),
            hidden_from_all_but=(),
            secret=dealt_grids(d.table, drawn.result),
        )
    )
    if d.table["config"]["initial_peek"] == "near":
        for seat in d.table["seats"]:
            d.record(initial_peek(d.table, seat, list(NEAR_ROW)), (seat,))
        d.record(discard_started(d.table))


def _draw(d: Pad, seat: str) -> None:
    if not d.table["draw_pile"]:
        public = reshuffle_public(d.table)
        drawn = d.chance.permutation("reshuffle", public["chance"]["n"])
        d.add(
            chance_event(
                "DrawPileReshuffled",
                drawn,
                without_chance(public),
                hidden_from_all_but=(),
                secret=reshuffled_draw_pile(d.table, drawn.result),
            )
        )
    shown = top_card(d.table)
    d.record(CardDrawn(seat=seat, draw_pile=len(d.table["draw_pile"]) - 1, **shown), (seat,))


def _ability_events(d: Pad, seat: str, command: Command, face: SpecialFace) -> None:
    w = d.table
    if isinstance(command, AddToken):
        d.record(token_added(w, seat, command.seat, command.slot, face))
    elif isinstance(command, (PeekOtherCard, PeekOwnCard)):
        target = command.seat if isinstance(command, PeekOtherCard) else seat
        # check_ability let only a 9 peek at another seat's card and only a 10 at one's own.
        peek_face: Literal[9, 10] = 9 if isinstance(command, PeekOtherCard) else 10
        shown = peeked_card(w, target, command.slot)
        d.record(CardPeeked(seat=seat, target_seat=target, slot=command.slot, ability=peek_face, **shown), (seat,))
    elif isinstance(command, BlindSwap):
        swap = CardsBlindSwapped(
            seat=seat, slot=command.slot, other_seat=command.other_seat, other_slot=command.other_slot
        )
        d.record(swap)
    elif isinstance(command, SkipAbility):
        d.record(AbilitySkipped(seat=seat, ability=face))


def _turn_events(d: Pad, seat: str, command: Command) -> None:
    w = d.table
    pending, held = w["pending_ability"], w["drawn"]
    if isinstance(command, PeekCards):
        d.record(initial_peek(w, seat, [command.first_slot, command.second_slot]), (seat,))
        if all(w["peeked"].values()):
            d.record(discard_started(w))
    elif isinstance(command, DrawCard):
        _draw(d, seat)
    elif isinstance(command, SwapDrawnCard):
        old = w["grids"][seat][command.slot]
        d.record(DrawnCardSwapped(seat=seat, slot=command.slot, discarded=discarded_card(w, old)))
    elif isinstance(command, DiscardDrawnCard) and held is not None:
        # Discarded face up, the drawn card is public: this record reveals its draw.
        drawn = w.get("drawn_version")
        d.record(drawn_discarded(w, seat, held["card"]), opens=() if drawn is None else (drawn,))
    elif pending is not None:
        _ability_events(d, seat, command, pending["face"])
    elif isinstance(command, TakeDiscard):
        d.record(discard_taken(w, seat, command.slot))
    elif isinstance(command, CallFinalGambit):
        d.record(FinalGambitCalled(seat=seat, round=w["round"]))


def decide(state: DragonsState, seat: str, command: Command, chance: Chance) -> list[Event]:
    """The events `command` by `seat` causes; RuleViolation when the rules forbid it."""
    check_command(state, seat, command)
    if isinstance(command, Resign):
        return [SeatResigned(seat=seat).event()]
    d = Pad(state, chance, stop_at_match_end=True)
    try:
        _turn_events(d, seat, command)
        if d.table["phase"] == "scoring":
            # The ruling on the Final Gambit: all hands shown, and the round's card records opened
            # to everyone (round_end_opens says why that hides nothing any more).
            d.record(round_ended(d.table), opens=round_end_opens(d.table))
            _deal_round(d)
    except GameEnded:
        pass
    return d.events


def setup(config: Config, seats: list[str], chance: Chance, seat_options: dict[str, dict] | None = None) -> list[Event]:
    """Deal the first round (and, with `initial_peek: near`, show each seat its near row); no join options."""
    d = Pad(initial_state(config, seats), chance)
    _deal_round(d)
    return d.events


def outcome(state: DragonsState) -> dict | None:
    """None while the match runs; then the lowest match score wins (ties share); a forfeit (on time, or a
    resignation) ranks the others, and the outcome names the seat that `forfeited`."""
    if state["phase"] != "over":
        return None
    scores = state["scores"]
    forfeited = state.get("forfeited")
    contenders = [s for s in state["seats"] if s != forfeited]
    best = min(scores[s] for s in contenders)
    result = {
        "winners": [s for s in contenders if scores[s] == best],
        "reason": "target_score" if forfeited is None else state.get("forfeit_reason", "time"),
        "scores": dict(scores),
        "rounds": state["round"],
    }
    if forfeited is not None:
        result["forfeited"] = forfeited
    return result


def time_out(state: DragonsState, seat: str, chance: Chance) -> list[Event]:
    """A seat whose time ran out forfeits: the match ends at once (`SeatTimedOut`), reason `time`, and the
    other seats are ranked by their match scores as they stand (the forfeiting seat is never among the winners)."""
    return [SeatTimedOut(seat=seat).event()]
