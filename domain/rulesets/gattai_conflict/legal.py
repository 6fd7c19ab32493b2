"""Who acts and with what: to_act (the seats the match waits for), may_act (who may act at will), the legal moves.

A seat is in `to_act` or `may_act` exactly when it has a legal command or choice, never in both.
The Coach and the pilots' commander may also resign for their side whenever they are in either
(`check_may_resign`, which decide asks too).
The match waits for a trigger's answer, a discard, or the seat(s) the mode's phase waits for;
the optional actions are an Omen's spending, a story trigger, an Assist and the pilot
commander's reveal of the Initiative (the Coach is waited for). The moves listed are the ones
decide's named checks pass.
"""

from __future__ import annotations

from domain.choices import Choice, collapse, subset_of, text
from domain.ruleset import Command, RuleViolation, check_game_running, passes

from .at_will import RUNNING, check_omen, check_story_trigger, omen_effects
from .cards import deck_for
from .commands import (
    AnswerQuestion,
    Assist,
    Block,
    ChooseOutcome,
    Concede,
    Counter,
    DiscardToMax,
    Escalate,
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
    Rumble,
    SealInitiative,
    SpendOmen,
    ThreatAssist,
)
from .config import COACH
from .gambit import BOONS, CHOSEN, COMPLICATIONS
from .gambit import actors as gambit_actors
from .gambit import awaited as gambit_awaited
from .gambit_rules import check_flip, check_threshold
from .shapes import GattaiState, throwdown_of
from .team import COACH_FIRES, DAMAGE, MAX_TARGET, PILOT_FIRES, PILOT_TARGETED, STORY, pending, resolve_options
from .throwdown import actors as throwdown_actors
from .throwdown import awaited as throwdown_awaited
from .throwdown import driver, payload_full, side_of
from .throwdown_rules import (
    check_assist,
    check_block,
    check_counter,
    check_escalate_stage,
    check_escalation,
    check_rumble_stage,
    check_threat_assist,
)


def to_act(state: GattaiState) -> list[str]:
    """The seats the match waits for (empty once it is over); seats that only may act are `may_act`."""
    if state["phase"] in ("over", "setup"):
        return []
    waiting = pending(state)
    if waiting is not None:
        return [waiting]
    if state["phase"] == "cleanup":
        return sorted(state["discards_due"])
    return gambit_awaited(state) if state["mode"] == "gambit" else throwdown_awaited(state)


def may_act(state: GattaiState) -> list[str]:
    """The seats not waited for that have an optional action now (an Omen, a story trigger, an Assist, a reveal)."""
    waiting = to_act(state)
    return [seat for seat in state["seats"] if seat not in waiting and _game_options(state, seat)]


def pilots_commander(state: GattaiState) -> str:
    """The pilot who speaks for the pilots' side: the Throwdown's commander, or the pilot facing the Gambit."""
    return str(state["config"]["commander" if state["mode"] == "throwdown" else "pilot"])


def check_may_resign(state: GattaiState, seat: str) -> None:
    """The Coach or the pilots' commander resigns the match for its side, once, at a time it could act: the match
    waits for it, or it has another action now (an Omen, a story trigger, the reveal)."""
    check_game_running(state["phase"] in ("over", "setup"), rule="match_over")
    if seat not in (COACH, pilots_commander(state)):
        raise RuleViolation("cannot_resign", "only the Coach or the pilots' commander resigns for a side")
    result = state["result"]
    if result is not None and result["reason"] == "resignation":
        raise RuleViolation("already_resigned", "a side has already resigned the match")
    if seat not in to_act(state) and not _game_options(state, seat):
        raise RuleViolation("not_your_turn", "resign at a time you could act: the match waits for you or you may act")


def resigners(state: GattaiState) -> list[str]:
    """The seats that may give up now: the Coach and the pilots' commander, each while it could act."""
    return [seat for seat in state["seats"] if passes(check_may_resign, state, seat)]


def legal_commands(state: GattaiState, seat: str) -> list[Command]:
    """Every whole command `seat` may send now; the families too large to list are legal_choices."""
    return collapse(_legal_options(state, seat))[0]


def legal_choices(state: GattaiState, seat: str) -> list[Choice]:
    """The families of `seat`'s legal commands: gifts, returns, discards, story triggers' free targets."""
    return collapse(_legal_options(state, seat))[1]


def _legal_options(state: GattaiState, seat: str) -> list:
    """Every legal command of `seat` now, as whole commands and choices (see domain/choices.py), resign included."""
    options = _game_options(state, seat)
    return options + [Resign()] if passes(check_may_resign, state, seat) else options


def _game_options(state: GattaiState, seat: str) -> list:
    """The seat's legal commands of the conflict itself, as whole commands and choices (all but resign)."""
    if seat not in state["seats"] or state["phase"] in ("over", "setup"):
        return []
    out: list = []
    waiting = pending(state)
    if waiting is not None:
        if waiting == seat:
            out += [ResolveTrigger(b, s) for b, s in resolve_options(state, state["queue"][0])]
    elif state["phase"] == "cleanup":
        if seat in state["discards_due"]:
            due = state["discards_due"][seat]
            out.append(Choice(DiscardToMax, {}, {"cards": subset_of(state["hands"][seat], due, due)}))
    else:
        out += _gambit_options(state, seat) if state["mode"] == "gambit" else _throwdown_options(state, seat)
        if state["phase"] in RUNNING[state["mode"]]:
            out += _trigger_options(state, seat)
    out += _omen_options(state, seat)
    return out


def _gambit_options(state: GattaiState, seat: str) -> list:
    """The Gambit commands `seat` may send now (all listed whole)."""
    phase = state["phase"]
    if seat not in gambit_actors(state):
        return []
    if phase == "threshold":
        sealable = [PlayThreshold("hand", card) for card in state["hands"][COACH]] + [PlayThreshold("deck")]
        return [cmd for cmd in sealable if passes(check_threshold, state, cmd.source, cmd.card)]
    if phase == "play":
        return [PlayCard(card) for card in state["hands"][seat]] + ([FlipCard()] if passes(check_flip, state) else [])
    if phase == "choice":
        return [ChooseOutcome(o) for o in CHOSEN]
    if phase == "boon":
        return [PickBoon(t) for t in BOONS]
    if phase == "complication":
        return [NameComplication(t) for t in COMPLICATIONS]
    return []


def _throwdown_options(state: GattaiState, seat: str) -> list:
    """The Throwdown commands `seat` may send now, whole or as choices: a giver gives any of her
    cards (none passes), the commander gives back exactly as many to each giver."""
    if seat not in throwdown_actors(state):
        return []
    td, phase = throwdown_of(state), state["phase"]
    hand = state["hands"][seat]
    if phase == "initiative":
        return [SealInitiative(card) for card in hand]
    if phase == "reveal":
        return [RevealInitiative()]
    if phase == "question":
        return [AnswerQuestion(True), AnswerQuestion(False)]
    if phase == "swap":
        out: list = []
        if seat in td["to_give"]:
            out.append(Choice(GiveCards, {}, {"cards": subset_of(hand, 0, len(hand))}))
        if seat == td["commander"]:
            out += [
                Choice(ReturnCards, {"to": to}, {"cards": subset_of(hand, n, n)})
                for to, n in sorted(td["returns_due"].items())
            ]
        return out
    if seat != driver(state, td["turn"]):
        return [Assist(card) for card in hand] if passes(check_assist, state, seat) else []
    return _drives(state, seat)


def _drives(state: GattaiState, seat: str) -> list:
    """The driving commander's Drives (Concede always among them) and, for the Coach, his Threats' Assists."""
    side, stage, hand = side_of(seat), throwdown_of(state)["stage"], state["hands"][seat]
    escalates, rumbles = passes(check_escalate_stage, state), passes(check_rumble_stage, state)
    out: list = []
    for card in hand:
        if passes(check_counter, state, side, card):
            out.append(Counter(card))
        if passes(check_block, state, card):
            out.append(Block(card))
        if escalates and passes(check_escalation, state, side, card, stage + 1):
            out.append(Escalate(card))
        if rumbles and passes(check_escalation, state, side, card, stage + 1):
            out.append(Rumble(card))
    out.append(Concede())
    if side == "coach":
        for threat in state["threats"]:
            out += [ThreatAssist(threat, card) for card in hand if passes(check_threat_assist, state, threat, card)]
    return out


def _trigger_options(state: GattaiState, seat: str) -> list:
    """The story triggers `seat` may fire: listed at each fitting target, or free text for a story object."""
    out: list = []
    for name in COACH_FIRES if seat == COACH else PILOT_FIRES:
        if name in DAMAGE and payload_full(state, seat):
            continue
        if name in STORY:
            # A story trigger names whatever its target is at the table: any text of 1..MAX_TARGET.
            out.append(Choice(RecordTrigger, {"trigger": name}, {"target": text(1, MAX_TARGET)}))
            continue
        out += [
            RecordTrigger(name, target)
            for target in _trigger_targets(state, seat, name)
            if passes(check_story_trigger, state, seat, name, target)
        ]
    return out


def _trigger_targets(state: GattaiState, seat: str, name: str) -> list[str]:
    """Whom a mechanical trigger may name: a pilot (a Threat for a pilot's +Trauma), or the Team for +Rally."""
    if name == "trauma":
        return list(state["pilots"] if seat == COACH else state["threats"])
    if name in PILOT_TARGETED:
        return list(state["pilots"])
    return ["team"] if name == "rally" else []


def _omen_options(state: GattaiState, seat: str) -> list:
    """The Omens beside `seat`'s deck it may spend now, each for every effect of its deck."""
    return [
        SpendOmen(o["card"], effect)
        for o in state["decks"][deck_for(seat)]["omens"]
        for effect in omen_effects(seat)
        if passes(check_omen, state, seat, o["card"], effect)
    ]
