"""How decide takes the Throwdown's commands: their named checks, then the events each emits (see throwdown.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from domain.ruleset import RuleViolation

from .cards import blocks, counters, draw_cards, excess, settle
from .commands import (
    THROWDOWN_PHASES,
    AnswerQuestion,
    Assist,
    Block,
    Concede,
    Counter,
    Escalate,
    GiveCards,
    ReturnCards,
    RevealInitiative,
    Rumble,
    SealInitiative,
    ThreatAssist,
)
from .config import COACH
from .event_parts import (
    INITIATIVE_SOURCE,
    blocked_public,
    conceded_public,
    drive_public,
    flip_public,
    initiative_call,
    initiative_entries,
    initiative_resolved_public,
    piles_public,
    question_public,
    sealed_secret,
    stacks_public,
    stacks_secret,
    throwdown_ended_public,
)
from .events import TriggerFired
from .shapes import ConflictPad, GattaiState, throwdown_of
from .team import trigger
from .throwdown import driver, may_assist, side_of, strike, threat_assist_kind, top
from .throwdown_events import Assisted, CardsGiven, CardsReturned, ThreatAssisted, ThrowdownCalledOff

# ----- named checks (legal.py lists what passes them) ---------------------------------------------


def check_in_hand(state: GattaiState, seat: str, card: str) -> None:
    """A seat plays or gives only a card it holds."""
    if card not in state["hands"][seat]:
        raise RuleViolation("card_not_in_hand", f"{card!r} is not in your hand")


def check_distinct_in_hand(state: GattaiState, seat: str, cards: tuple[str, ...]) -> None:
    """A list of cards names each card once, and only cards the seat holds."""
    if len(set(cards)) != len(cards):
        raise RuleViolation("duplicate_card", "a card is named twice")
    for card in cards:
        check_in_hand(state, seat, card)


def check_sealer(state: GattaiState, seat: str) -> None:
    """Only a commander seals Initiative, once a round."""
    side = side_of(seat)
    if driver(state, side) != seat:
        raise RuleViolation("not_commander", "only the commanders play Initiative")
    if throwdown_of(state)["initiative"][side] is not None:
        raise RuleViolation("already_sealed", "your Initiative card is already sealed")


def check_giver(state: GattaiState, seat: str) -> None:
    """Only a pilot who has not yet given (or passed) gives the commander cards."""
    if seat not in throwdown_of(state)["to_give"]:
        raise RuleViolation("not_your_turn", "you have no cards to give now")


def check_return(state: GattaiState, seat: str, to: str, cards: tuple[str, ...]) -> None:
    """The commander gives a giver back exactly as many cards as she gave, from her own hand."""
    td = throwdown_of(state)
    if seat != td["commander"]:
        raise RuleViolation("not_commander", "only the commander gives cards back")
    if to not in td["returns_due"]:
        raise RuleViolation("nothing_due", f"no cards are due back to {to!r}")
    if len(cards) != td["returns_due"][to]:
        raise RuleViolation("wrong_count", f"give back exactly {td['returns_due'][to]} cards")
    check_distinct_in_hand(state, seat, cards)


def check_assist(state: GattaiState, seat: str) -> None:
    """Another involved pilot assists on her side's turn, once, with a card to discard and a charge to spend."""
    if not may_assist(state, seat):
        raise RuleViolation("cannot_assist", "assist on your side's turn, once, with a charge to spend")


def check_threat_assist(state: GattaiState, threat: str, card: str) -> Literal["wave", "storm"]:
    """Each Threat assists once per Coach turn, for a discarded face card (Wave) or Ace (Storm); returns which."""
    td = throwdown_of(state)
    if td["turn"] != "coach":
        raise RuleViolation("not_your_turn", "Threats assist on the Coach's turn")
    if threat not in state["threats"]:
        raise RuleViolation("unknown_threat", f"no Threat named {threat!r}")
    if threat in td["threat_assists"]:
        raise RuleViolation("threat_already_assisted", "each Threat assists once per turn")
    check_in_hand(state, COACH, card)
    kind = threat_assist_kind(card)
    if kind is None:
        raise RuleViolation("not_face_or_ace", "discard a face card (Wave) or an Ace (Storm)")
    return kind


def check_driver(state: GattaiState, seat: str) -> None:
    """Only the side's commander drives, on her side's turn."""
    side = side_of(seat)
    if throwdown_of(state)["turn"] != side or driver(state, side) != seat:
        raise RuleViolation("not_your_turn", "only the side's commander drives, on her side's turn")


def check_counter(state: GattaiState, side: str, card: str) -> None:
    """A Counter beats the top of the Pile (Aces and Twos aside), within Strike for the Coach."""
    over = top(state)["card"]
    if not counters(card, over):
        raise RuleViolation("does_not_beat", f"{card} does not beat {over} (an Ace yields only to a Two)")
    if side == "coach" and excess(card, over) > strike(state, side):
        raise RuleViolation("beyond_strike", "the Coach may never exceed his Strike")


def check_block(state: GattaiState, card: str) -> None:
    """A Block matches the winning card's rank with an equal or higher suit; never the Initiative or a Rumble card."""
    entry = top(state)
    if entry["how"] in ("initiative", "rumble"):
        raise RuleViolation("unblockable", f"the {entry['how']} card cannot be Blocked")
    if not blocks(card, entry["card"]):
        raise RuleViolation("does_not_block", "a Block needs equal rank and equal or higher suit")


def check_escalate_stage(state: GattaiState) -> None:
    """No Escalate in stage 3 (Rumble instead) or stage 7."""
    if throwdown_of(state)["stage"] in (3, 7):
        raise RuleViolation("cannot_escalate", "no Escalate in stage 3 (Rumble instead) or stage 7")


def check_rumble_stage(state: GattaiState) -> None:
    """The Rumble starts from the third stage only."""
    if throwdown_of(state)["stage"] != 3:
        raise RuleViolation("rumble_only_in_stage_3", "the Rumble starts from the third stage")


def check_escalation(state: GattaiState, side: str, card: str, into: int) -> None:
    """A card starting stage `into` keeps the Coach within Strike of the old top (a pilot risks Dissonance)."""
    if side == "coach" and excess(card, top(state)["card"]) > strike(state, side, into):
        raise RuleViolation("beyond_strike", "the Coach may never exceed his Strike")


# ----- Initiative, question, swap -----------------------------------------------------------------


def seal_initiative(pad: ConflictPad, seat: str, cmd: SealInitiative) -> None:
    """Seal an Initiative card face down; the other commander's commitment may already be recorded."""
    check_sealer(pad.conflict, seat)
    check_in_hand(pad.conflict, seat, cmd.card)
    pad.emit(
        "InitiativeSealed",
        {"seat": seat, "sealed_play": "initiative"},
        sealed_secret(cmd.card, INITIATIVE_SOURCE),
        (seat,),
    )


def reveal_initiative(pad: ConflictPad, seat: str, cmd: RevealInitiative) -> None:
    """Both Initiative cards turn face up (each reveal opens its sealing); rank, then suit, wins."""
    state = pad.conflict
    td = throwdown_of(state)
    for entry in initiative_entries(state):
        call = initiative_call(state, entry["seat"], seat, pad.next_version)
        pad.emit(
            "InitiativeRevealed",
            {"seat": entry["seat"], "card": entry["card"], "bluff_call": call},
            opens=(call["claim_version"],),
        )
    public = initiative_resolved_public(state)
    pad.emit("InitiativeResolved", public)
    if public["identical"]:
        if not state["hands"][COACH] or not state["hands"][td["commander"]]:
            pad.record(ThrowdownCalledOff(reason="identical_initiative_and_empty_hand"))
            end_throwdown(pad)
        return
    over, limit = public["excess"], public["strike"]
    if over > limit and public["winner"] == "pilots":
        dissonance_check(pad, over - limit)
    elif over > limit:
        draw_cards(pad, td["commander"], "pilot", 1, "free_card")


def dissonance_check(pad: ConflictPad, dissonance: int) -> None:
    """The Coach flips the top Coach card: a value (Ace 1) at most the Dissonance is an immediate +Schism."""
    settle(pad, "coach")
    public = flip_public(pad.conflict, dissonance)
    pad.emit("DissonanceFlipped", public)
    settle(pad, "coach")
    if public["schism"]:
        commander = public["pilot"]
        pad.record(TriggerFired(fired=trigger("schism", commander, commander, "dissonance", immediate=True)))


def answer_question(pad: ConflictPad, seat: str, cmd: AnswerQuestion) -> None:
    """The Coach records the table's answer; the commander draws Synch (for her Team) or Solo cards,
    and the Coach draws the cards invested on his Threats."""
    public = question_public(pad.conflict, cmd.for_team)
    pad.emit("QuestionAnswered", public)
    draw_cards(pad, public["commander"], "pilot", public["draws"], "bonus_draw")
    if any(pad.conflict["stacks"].values()):
        pad.emit("ThreatStacksDrawn", stacks_public(pad.conflict), stacks_secret(pad.conflict), (COACH,))


def give_cards(pad: ConflictPad, seat: str, cmd: GiveCards) -> None:
    """Another pilot gives the commander any number of cards (none passes)."""
    check_giver(pad.conflict, seat)
    check_distinct_in_hand(pad.conflict, seat, cmd.cards)
    commander = throwdown_of(pad.conflict)["commander"]
    pad.record(CardsGiven(seat=seat, to=commander, count=len(cmd.cards), cards=list(cmd.cards)), (seat, commander))


def return_cards(pad: ConflictPad, seat: str, cmd: ReturnCards) -> None:
    """The commander gives a pilot back as many cards as that pilot gave her."""
    check_return(pad.conflict, seat, cmd.to, cmd.cards)
    pad.record(CardsReturned(seat=seat, to=cmd.to, count=len(cmd.cards), cards=list(cmd.cards)), (seat, cmd.to))


# ----- turns --------------------------------------------------------------------------------------


def assist(pad: ConflictPad, seat: str, cmd: Assist) -> None:
    """Another pilot discards a card and spends a charge: +1 to the commander's Strike this turn."""
    check_in_hand(pad.conflict, seat, cmd.card)
    check_assist(pad.conflict, seat)
    pad.record(Assisted(seat=seat, card=cmd.card))


def threat_assist(pad: ConflictPad, seat: str, cmd: ThreatAssist) -> None:
    """A Threat activates a Wave (face card discarded) or a Storm (Ace discarded), once per turn."""
    kind = check_threat_assist(pad.conflict, cmd.threat, cmd.card)
    pad.record(ThreatAssisted(threat=cmd.threat, card=cmd.card, activates=kind))
    pad.record(TriggerFired(fired=trigger(kind, cmd.threat, COACH, "threat_assist")))


def counter(pad: ConflictPad, seat: str, cmd: Counter) -> None:
    """Play a card higher than the top of the Pile (a pilot beyond Strike risks Dissonance)."""
    check_driver(pad.conflict, seat)
    check_in_hand(pad.conflict, seat, cmd.card)
    check_counter(pad.conflict, side_of(seat), cmd.card)
    _play(pad, "Countered", seat, cmd.card)


def _play(pad: ConflictPad, kind: str, seat: str, card: str) -> None:
    public = drive_public(pad.conflict, kind, seat, card)
    pad.emit(kind, public)
    if public["dissonance"]:
        dissonance_check(pad, public["dissonance"])


def block(pad: ConflictPad, seat: str, cmd: Block) -> None:
    """Equal rank, equal or higher suit: both cards are discarded; against an Escalate, de-escalate."""
    check_driver(pad.conflict, seat)
    check_in_hand(pad.conflict, seat, cmd.card)
    check_block(pad.conflict, cmd.card)
    pad.emit("Blocked", blocked_public(pad.conflict, seat, cmd.card))


def escalate(pad: ConflictPad, seat: str, cmd: Escalate) -> None:
    """The opponent scores the stage; this card starts the next stage's Pile (not in stage 3 or 7)."""
    check_driver(pad.conflict, seat)
    check_escalate_stage(pad.conflict)
    _escalation(pad, seat, cmd.card, "Escalated")


def rumble(pad: ConflictPad, seat: str, cmd: Rumble) -> None:
    """Stage 3 only: as Escalate into stage 4, every Pile discarded, the card unblockable."""
    check_driver(pad.conflict, seat)
    check_rumble_stage(pad.conflict)
    _escalation(pad, seat, cmd.card, "Rumbled")


def _escalation(pad: ConflictPad, seat: str, card: str, kind: str) -> None:
    check_in_hand(pad.conflict, seat, card)
    check_escalation(pad.conflict, side_of(seat), card, throwdown_of(pad.conflict)["stage"] + 1)
    _play(pad, kind, seat, card)


def concede(pad: ConflictPad, seat: str, cmd: Concede) -> None:
    """The opponent scores the stage and the Throwdown ends."""
    check_driver(pad.conflict, seat)
    pad.emit("Conceded", conceded_public(pad.conflict, seat))
    end_throwdown(pad)


def end_throwdown(pad: ConflictPad) -> None:
    """More points wins, a tie goes to the side that did not concede; Payloads then resolve."""
    pad.emit("ThrowdownEnded", throwdown_ended_public(pad.conflict))


def finish(pad: ConflictPad) -> None:
    """Once the Payloads have resolved: every Pile goes to its Trash."""
    pad.emit("PilesCleared", piles_public(pad.conflict))


# decide looks a command up by (phase, type), the phases those THROWDOWN_PHASES declares for it, so
# one sent in another phase is refused as `not_now`.
HANDLERS: dict[tuple[str, str], Callable[[ConflictPad, str, Any], None]] = THROWDOWN_PHASES.keyed(
    {
        SealInitiative: seal_initiative,
        RevealInitiative: reveal_initiative,
        AnswerQuestion: answer_question,
        GiveCards: give_cards,
        ReturnCards: return_cards,
        Assist: assist,
        ThreatAssist: threat_assist,
        Counter: counter,
        Block: block,
        Escalate: escalate,
        Rumble: rumble,
        Concede: concede,
    }
)
