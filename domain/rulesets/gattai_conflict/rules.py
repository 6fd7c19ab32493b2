"""The rules of a conflict: setup, decide with its named checks, and outcome.

`decide` validates and simulates on a `shapes.ConflictPad` (a `domain.decision.Decision` typed over
the conflict's state); after every command the trigger queue is drained (stopping at a trigger
that waits for a pilot's answer), what follows an emptied queue runs (the Gambit's or the
Throwdown's end, then the discard/draw), and both decks are settled (a Joker on top is set out as
an Omen, an empty deck takes its reshuffled Trash). The modes' own commands are decided in
gambit_rules.py and throwdown_rules.py.

Any-time commands: `spend_omen` (while the match runs) and `record_trigger` (while the conflict
itself runs and no trigger waits for an answer) are judged by their own checks (at_will.py),
whether or not the match waits for their seat; so is an Assist. `resign` is judged by
legal.check_may_resign, since whether its seat could act is what legal.py computes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.chance import Chance
from domain.ruleset import Command, Event, RuleViolation, check_game_running, check_seat_in_match, check_seat_to_act

from .at_will import check_no_trigger_pending, check_omen, check_story_trigger
from .cards import DECKS, deck_for, draw_cards, mill, settle, shuffle
from .commands import (
    COMMANDS,
    AnswerQuestion,
    Assist,
    ChooseOutcome,
    Concede,
    DiscardToMax,
    FlipCard,
    GiveCards,
    NameComplication,
    PickBoon,
    PlayCard,
    PlayThreshold,
    RecordTrigger,
    Resign,
    ResolveTrigger,
    ReturnCards,
    RevealInitiative,
    SealInitiative,
    SpendOmen,
)
from .config import COACH, Config
from .event_parts import cleanup_public, conflict_started_public, resigned_public, resolving_public
from .events import CardsDiscarded, OmenSpent, TriggerFired
from .gambit import BOONS, CHOSEN, COMPLICATIONS
from .gambit import actors as gambit_actors
from .gambit_rules import HANDLERS as GAMBIT_HANDLERS
from .gambit_rules import finish as finish_gambit
from .legal import check_may_resign
from .shapes import ConflictPad, FiredTrigger, GattaiState
from .state import evolve, initial_state
from .team import max_hand, pending, resolve_options, trigger
from .throwdown import actors as throwdown_actors
from .throwdown_rules import HANDLERS as THROWDOWN_HANDLERS
from .throwdown_rules import finish as finish_throwdown

HANDLERS = {"gambit": GAMBIT_HANDLERS, "throwdown": THROWDOWN_HANDLERS}
ACTORS: dict[str, Callable[[GattaiState], list[str]]] = {"gambit": gambit_actors, "throwdown": throwdown_actors}


def _after_resignation(pad: ConflictPad) -> None:
    """A Gambit resigned before its end records no result of its own (the resignation is the result): nothing
    is left to record before the cleanup."""


# What follows the emptied trigger queue once a mode has ended (`after_queue`).
FINISH: dict[str, Callable[[ConflictPad], None]] = {
    "gambit_end": finish_gambit,
    "throwdown_end": finish_throwdown,
    "resigned": _after_resignation,
}


def setup(config: Config, seats: list[str], chance: Chance, seat_options: dict[str, dict] | None = None) -> list[Event]:
    """Shuffle both decks, deal every hand to max (Omens set out on the way), start the conflict (no join options)."""
    pad = ConflictPad(initial_state(config, seats), chance, evolve)
    for deck in DECKS:
        shuffle(pad, deck, "start")
        settle(pad, deck)
    for seat in [*pad.conflict["pilots"], COACH]:
        draw_cards(pad, seat, deck_for(seat), max_hand(pad.conflict, seat), "deal")
    if config.mode == "throwdown":
        for threat, count in config.threat_stacks.items():
            draw_cards(pad, COACH, "coach", count, "threat_stack", threat=threat)
    pad.emit("ConflictStarted", conflict_started_public(pad.conflict))
    return pad.events


def outcome(state: GattaiState) -> dict | None:
    """None while the match runs; then winners, reason, the mode's result and the Team's gauges."""
    if state["phase"] != "over":
        return None
    result = state["result"]
    if result is None:
        raise TypeError("a conflict over has its result")
    out: dict[str, Any] = {**result, "winners": list(result["winners"])}
    out["harmony"] = state["harmony"]
    out["team"] = {p: dict(g) for p, g in state["team"].items()}
    return out


# ----- named checks (legal.py lists what passes them) ---------------------------------------------


def check_command_known(command: Command) -> None:
    """Only this ruleset's own command classes are decided."""
    if type(command) not in COMMANDS:
        raise RuleViolation("unknown_command", "not a command of this ruleset")


def check_trigger_answer(state: GattaiState, seat: str, use_buffer: bool, stat: str | None) -> None:
    """The aimed-at pilot answers the front trigger: a buffer she has, or a +Trauma's stat above 0."""
    waiting = pending(state)
    if waiting is None:
        raise RuleViolation("no_trigger_pending", "no trigger waits for an answer")
    if waiting != seat:
        raise RuleViolation("not_your_turn", f"the trigger waits for {waiting}")
    if use_buffer and state["team"][seat]["buffers"] < 1:
        raise RuleViolation("no_buffer", "you have no buffer left")
    if (use_buffer, stat) not in resolve_options(state, state["queue"][0]):
        raise RuleViolation("invalid_answer", "take a +Trauma by naming a stat above 0; name no stat otherwise")


def check_discard(state: GattaiState, seat: str, cards: tuple[str, ...]) -> None:
    """After the conflict a seat over its max hand discards exactly the excess, from its hand."""
    if seat not in state["discards_due"]:
        raise RuleViolation("not_your_turn", "you hold no more than your max hand")
    if len(cards) != state["discards_due"][seat]:
        raise RuleViolation("wrong_count", f"discard exactly {state['discards_due'][seat]} cards")
    if len(set(cards)) != len(cards):
        raise RuleViolation("duplicate_card", "a card is named twice")
    for card in cards:
        if card not in state["hands"][seat]:
            raise RuleViolation("card_not_in_hand", f"{card!r} is not in your hand")


# ----- decide -------------------------------------------------------------------------------------


def decide(state: GattaiState, seat: str, command: Command, chance: Chance) -> list[Event]:
    """The events of a command; RuleViolation when the rules do not allow it."""
    check_seat_in_match(state["seats"], seat)
    check_command_known(command)
    check_game_running(state["phase"] in ("over", "setup"), rule="match_over")
    pad = ConflictPad(state, chance, evolve)
    if isinstance(command, Resign):
        check_may_resign(state, seat)
        pad.emit("SeatResigned", resigned_public(state, seat))
    elif isinstance(command, SpendOmen):
        spend_omen(pad, seat, command)
    elif isinstance(command, RecordTrigger):
        record_trigger(pad, seat, command)
    elif isinstance(command, ResolveTrigger):
        resolve_trigger(pad, seat, command)
    elif state["phase"] == "cleanup" and isinstance(command, DiscardToMax):
        check_no_trigger_pending(state)
        discard_to_max(pad, seat, command)
    else:
        check_no_trigger_pending(state)
        handler = HANDLERS[state["mode"]].get((state["phase"], command.type))
        if handler is None:
            raise RuleViolation("not_now", f"{command.type} is not possible in the {state['phase']} phase")
        # An Assist is optional, so its seat is not waited for: its own check judges it.
        if not isinstance(command, Assist):
            check_seat_to_act(seat, ACTORS[state["mode"]](state))
        handler(pad, seat, command)
    drain(pad)
    for deck in DECKS:
        settle(pad, deck)
    return pad.events


def drain(pad: ConflictPad) -> None:
    """Resolve queued triggers until one waits for an answer; then run what follows an empty queue."""
    while True:
        queue = pad.conflict["queue"]
        if queue:
            if pending(pad.conflict) is not None:
                return
            _resolved(pad, queue[0], False, None)
            continue
        after = pad.conflict["after_queue"]
        if after is None:
            return
        FINISH[after](pad)
        begin_cleanup(pad)
        return


def _resolved(pad: ConflictPad, fired: FiredTrigger, prevented: bool, stat: str | None) -> None:
    pad.emit("TriggerResolved", {**resolving_public(fired), "prevented": prevented, "stat": stat})
    if fired["trigger"] == "tarry" and not prevented:
        mill(pad, "coach", pad.conflict["config"]["crisis_tier"], "tarry")


def resolve_trigger(pad: ConflictPad, seat: str, cmd: ResolveTrigger) -> None:
    """The aimed-at pilot spends a buffer to prevent the front trigger, or takes it."""
    check_trigger_answer(pad.conflict, seat, cmd.use_buffer, cmd.stat)
    _resolved(pad, pad.conflict["queue"][0], cmd.use_buffer, cmd.stat)


def spend_omen(pad: ConflictPad, seat: str, cmd: SpendOmen) -> None:
    """Spend an active Omen of your side's deck; when both of a deck's Jokers are spent, they go back in."""
    effect = check_omen(pad.conflict, seat, cmd.omen, cmd.effect)
    deck = deck_for(seat)
    pad.record(OmenSpent(seat=seat, deck=deck, omen=cmd.omen, effect=effect))
    if effect == "self_full":
        pad.record(TriggerFired(fired=trigger("chargeup", seat, seat, "omen", full=True)))
    elif effect == "all_2":
        for pilot in pad.conflict["pilots"]:
            pad.record(TriggerFired(fired=trigger("chargeup", pilot, seat, "omen", amount=2)))
    omens = pad.conflict["decks"][deck]["omens"]
    if len(omens) == 2 and all(o["spent"] for o in omens):
        shuffle(pad, deck, "omens_returned")
        settle(pad, deck)


def record_trigger(pad: ConflictPad, seat: str, cmd: RecordTrigger) -> None:
    """Fire a +Trigger the story grants; in a Throwdown its damage waits in the firing side's Payload."""
    fired = check_story_trigger(pad.conflict, seat, cmd.trigger, cmd.target)
    pad.record(TriggerFired(fired=trigger(fired, cmd.target, seat, "story")))


def begin_cleanup(pad: ConflictPad) -> None:
    """Every seat draws up to its max hand; who holds more must discard down."""
    state = pad.conflict
    for seat in state["seats"]:
        short = max_hand(state, seat) - len(state["hands"][seat])
        if short > 0:
            draw_cards(pad, seat, deck_for(seat), short, "refill")
    pad.emit("CleanupStarted", cleanup_public(state))


def discard_to_max(pad: ConflictPad, seat: str, cmd: DiscardToMax) -> None:
    """Discard exactly the cards over your max hand."""
    check_discard(pad.conflict, seat, cmd.cards)
    pad.record(CardsDiscarded(seat=seat, cards=list(cmd.cards)))


# ----- time out -----------------------------------------------------------------------------------


def time_out(state: GattaiState, seat: str, chance: Chance) -> list[Event]:
    """A seat whose time ran out concedes when it may; otherwise its awaited decision is taken for it.

    The first of `default_commands` that the rules accept is decided for the seat (the package
    docstring states the order); an at-will action (an Omen, a story trigger, an Assist) is never
    taken for it. Every conflict terminates whatever is decided, so expiries cannot go on forever.
    """
    for command in default_commands(state, seat):
        try:
            return decide(state, seat, command, chance)
        except RuleViolation:
            continue
    return []


def default_commands(state: GattaiState, seat: str) -> list[Command]:
    """What is decided for a seat out of time, in order of preference: concede, else the least committal answer."""
    if state["phase"] in ("over", "setup"):
        return []
    hand = list(state["hands"][seat])
    if pending(state) == seat:
        return [ResolveTrigger(buffer, stat) for buffer, stat in resolve_options(state, state["queue"][0])]
    due = state["discards_due"].get(seat) if state["phase"] == "cleanup" else None
    if due:
        return [DiscardToMax(tuple(hand[:due]))]
    td = state["throwdown"]
    returns = td["returns_due"] if td is not None else {}
    return [
        Concede(),
        PlayThreshold("deck"),
        *(PlayThreshold("hand", card) for card in hand),
        FlipCard(),
        *(PlayCard(card) for card in hand),
        *(ChooseOutcome(choice) for choice in CHOSEN),
        *(PickBoon(boon) for boon in BOONS),
        *(NameComplication(name) for name in COMPLICATIONS),
        *(SealInitiative(card) for card in hand),
        RevealInitiative(),
        AnswerQuestion(False),
        GiveCards(()),
        *(ReturnCards(to, tuple(hand[:count])) for to, count in sorted(returns.items())),
    ]
