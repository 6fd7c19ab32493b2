"""The state of a conflict: `initial_state` and `evolve`, which folds one recorded event in.

State (plain JSON, typed as `GattaiState` in shapes.py):
- `version` (of the last folded event), `config`, `seats`, `pilots` (pilot seats in order),
  `mode`, `phase`, `harmony`, `team` {pilot: gauges and stats}, `threats` {name: rating}.
- `decks` {pilot|coach: {draw, trash, omens}}, `hands` {seat: [cards]}, `stacks` {threat: [cards
  invested on it, face down]}, `table` [{card, seat, role, face_up}] for the Gambit's two cards
  and sealed Initiative cards.
- `sealed` [{version, seat, kind, card, source, origin, reveal_version}]: every sealed play.
- `queue` (triggers waiting to resolve), `after_queue` (what follows once it is empty).
- `gambit` / `throwdown`: the mode's own bookkeeping (see gambit.py and throwdown.py).
- `discards_due` {seat: n} after the conflict, `result` once decided or resigned (see `outcome`).

`FOLDS` holds one fold per event payload type (events.py declares them); `evolve` is its fold.
Folds apply what an event records and never validate: every ruling (who wins, what a card
beats, whether a trigger waits in a Payload's place) is in the event decide emitted.
"""

from __future__ import annotations

from domain.event_types import Folds
from domain.ruleset import Event, config_to_dict

from .cards import apply_omen_revealed, apply_shuffle, mark_revealed, new_decks, place_sealed, take, to_trash
from .config import COACH, Config, sheet_of, threat_ratings
from .events import (
    EVENTS,
    BoonPicked,
    CardMilled,
    CardsDiscarded,
    CardsDrawn,
    CleanupStarted,
    ComplicationNamed,
    ConflictStarted,
    DeckShuffled,
    GambitResolved,
    OmenRevealed,
    OmenSpent,
    OutcomeChosen,
    PilotCardPlayed,
    SeatResigned,
    ThreatStackDealt,
    ThresholdRevealed,
    ThresholdSealed,
    TriggerFired,
    TriggerResolved,
)
from .gambit import RUNNING as GAMBIT_RUNNING
from .gambit import new_gambit
from .shapes import GattaiState, Gauge, ThrowdownState, gambit_of, throwdown_of
from .team import DAMAGE, apply_resolved
from .throwdown import FIGHTING, deliver_payloads, new_throwdown, other_side, payload_entry, side_of
from .throwdown_events import (
    Assisted,
    Blocked,
    CardsGiven,
    CardsPassed,
    CardsReturned,
    Conceded,
    Countered,
    DissonanceFlipped,
    Escalated,
    InitiativeResolved,
    InitiativeRevealed,
    InitiativeSealed,
    PilesCleared,
    QuestionAnswered,
    Rumbled,
    ThreatAssisted,
    ThreatStacksDrawn,
    ThrowdownCalledOff,
    ThrowdownEnded,
)

FOLDS: Folds[GattaiState] = Folds(EVENTS)


def initial_state(config: Config, seats: list[str]) -> GattaiState:
    """The state before setup: decks unshuffled, hands empty, the Team as its sheets say."""
    pilots = [s for s in seats if s != COACH]
    team: dict[str, Gauge] = {}
    for p in pilots:
        sheet = sheet_of(config, p)
        team[p] = {
            "steel": sheet["steel"],
            "flesh": sheet["flesh"],
            "synch": sheet["synch"],
            "solo": sheet["solo"],
            "charges": sheet["charges"],
            "charges_max": sheet["charges_max"],
            "buffers": sheet["buffers"],
            "buffers_max": sheet["buffers"],
        }
    return {
        "version": 0,
        "config": config_to_dict(config),
        "seats": list(seats),
        "pilots": pilots,
        "mode": "throwdown" if config.mode == "throwdown" else "gambit",
        "phase": "setup",
        "harmony": config.harmony,
        "team": team,
        "threats": threat_ratings(config),
        "decks": new_decks(),
        "hands": {s: [] for s in seats},
        "stacks": {t: [] for t in threat_ratings(config)},
        "table": [],
        "sealed": [],
        "queue": [],
        "after_queue": None,
        "gambit": None,
        "throwdown": None,
        "discards_due": {},
        "result": None,
    }


# ----- folds --------------------------------------------------------------------------------------


@FOLDS.on(DeckShuffled)
def _deck_shuffled(state: GattaiState, shuffled: DeckShuffled, event: Event) -> None:
    apply_shuffle(state, shuffled.deck, shuffled.reason, shuffled.chance_result)


@FOLDS.on(OmenRevealed)
def _omen_revealed(state: GattaiState, revealed: OmenRevealed, event: Event) -> None:
    apply_omen_revealed(state, revealed.deck)


@FOLDS.on(CardsDrawn)
def _cards_drawn(state: GattaiState, drawn: CardsDrawn, event: Event) -> None:
    deck = state["decks"][drawn.deck]["draw"]
    state["hands"][drawn.seat].extend(deck[: drawn.count])
    del deck[: drawn.count]


@FOLDS.on(ThreatStackDealt)
def _threat_stack_dealt(state: GattaiState, dealt: ThreatStackDealt, event: Event) -> None:
    deck = state["decks"][dealt.deck]["draw"]
    state["stacks"][dealt.threat].extend(deck[: dealt.count])
    del deck[: dealt.count]


@FOLDS.on(CardMilled)
def _card_milled(state: GattaiState, milled: CardMilled, event: Event) -> None:
    deck = state["decks"][milled.deck]["draw"]
    if deck:
        to_trash(state, deck.pop(0))


@FOLDS.on(ConflictStarted)
def _conflict_started(state: GattaiState, started: ConflictStarted, event: Event) -> None:
    if state["mode"] == "gambit":
        state["gambit"] = new_gambit(state)
        state["phase"] = "threshold"
    else:
        state["throwdown"] = new_throwdown(state)
        state["phase"] = "initiative"


@FOLDS.on(TriggerFired)
def _trigger_fired(state: GattaiState, fired: TriggerFired, event: Event) -> None:
    t = fired.fired.copy()
    td = state["throwdown"]
    if td is not None and state["phase"] in FIGHTING and t["trigger"] in DAMAGE and not t["immediate"]:
        side = side_of(t["by"])
        td["payloads"][side].append(payload_entry(state, t, side))
    else:
        state["queue"].append(t)


@FOLDS.on(TriggerResolved)
def _trigger_resolved(state: GattaiState, resolved: TriggerResolved, event: Event) -> None:
    apply_resolved(state, resolved.prevented, resolved.stat)


@FOLDS.on(OmenSpent)
def _omen_spent(state: GattaiState, spent: OmenSpent, event: Event) -> None:
    for omen in state["decks"][spent.deck]["omens"]:
        if omen["card"] == spent.omen:
            omen["spent"] = True


@FOLDS.on(CleanupStarted)
def _cleanup_started(state: GattaiState, cleanup: CleanupStarted, event: Event) -> None:
    due = dict(cleanup.discards_due)
    state["discards_due"], state["after_queue"] = due, None
    state["phase"] = "cleanup" if due else "over"


@FOLDS.on(CardsDiscarded)
def _cards_discarded(state: GattaiState, discarded: CardsDiscarded, event: Event) -> None:
    for card in discarded.cards:
        take(state, discarded.seat, card)
        to_trash(state, card)
    state["discards_due"].pop(discarded.seat, None)
    if not state["discards_due"]:
        state["phase"] = "over"


# ----- the Gambit's folds -------------------------------------------------------------------------


@FOLDS.on(ThresholdSealed)
def _threshold_sealed(state: GattaiState, sealed: ThresholdSealed, event: Event) -> None:
    place_sealed(state, sealed.seat, sealed.card, sealed.claimed_source, event.version, "threshold")
    gambit_of(state)["threshold_version"] = event.version
    state["phase"] = "play"


@FOLDS.on(PilotCardPlayed)
def _pilot_card_played(state: GattaiState, played: PilotCardPlayed, event: Event) -> None:
    seat, card = played.seat, played.card
    if played.source == "hand":
        state["hands"][seat].remove(card)
    else:
        state["decks"]["pilot"]["draw"].remove(card)
    state["table"].append({"card": card, "seat": seat, "role": "gambit_play", "face_up": True})
    g = gambit_of(state)
    g["pilot_card"], g["pilot_source"] = card, played.source


@FOLDS.on(ThresholdRevealed)
def _threshold_revealed(state: GattaiState, revealed: ThresholdRevealed, event: Event) -> None:
    mark_revealed(state, revealed.bluff_call["claim_version"], revealed.bluff_call["card"], event.version)
    g = gambit_of(state)
    g["threshold"] = revealed.card
    g["higher"] = revealed.bluff_call["consequences"]["pilot_higher"]
    if g["higher"]:
        g["outcome"] = "yes_and"
        state["phase"] = "boon"
    else:
        state["phase"] = "choice"


@FOLDS.on(OutcomeChosen)
def _outcome_chosen(state: GattaiState, chosen: OutcomeChosen, event: Event) -> None:
    gambit_of(state)["outcome"] = chosen.outcome
    state["phase"] = "boon" if chosen.outcome == "no_but" else "complication"


@FOLDS.on(BoonPicked)
def _boon_picked(state: GattaiState, picked: BoonPicked, event: Event) -> None:
    gambit_of(state)["boon"] = picked.trigger
    state["phase"] = "resolving"
    state["after_queue"] = "gambit_end"


@FOLDS.on(ComplicationNamed)
def _complication_named(state: GattaiState, named: ComplicationNamed, event: Event) -> None:
    gambit_of(state)["complication"] = named.trigger
    state["phase"] = "resolving"
    state["after_queue"] = "gambit_end"


@FOLDS.on(GambitResolved)
def _gambit_resolved(state: GattaiState, resolved: GambitResolved, event: Event) -> None:
    for entry in state["table"]:
        to_trash(state, entry["card"])
    state["table"] = []
    state["after_queue"] = None
    state["result"] = {
        "winners": list(resolved.winners),
        "reason": f"gambit_{resolved.outcome}",
        "mode": "gambit",
        "gambit_outcome": resolved.outcome,
        "threshold": resolved.threshold,
        "pilot_card": resolved.pilot_card,
    }


# ----- the Throwdown's folds ----------------------------------------------------------------------


def pass_turn(td: ThrowdownState) -> None:
    """The other side's turn: this turn's Assists and Threat Assists are spent."""
    td["turn"] = other_side(td["turn"])
    td["bonus"], td["assisted"], td["threat_assists"] = 0, [], {}
    td["turns_taken"] += 1


@FOLDS.on(InitiativeSealed)
def _initiative_sealed(state: GattaiState, sealed: InitiativeSealed, event: Event) -> None:
    place_sealed(state, sealed.seat, sealed.card, sealed.source, event.version, "initiative")
    versions = throwdown_of(state)["initiative"]
    versions[side_of(sealed.seat)] = event.version
    if versions["pilots"] is not None and versions["coach"] is not None:
        state["phase"] = "reveal"


@FOLDS.on(InitiativeRevealed)
def _initiative_revealed(state: GattaiState, revealed: InitiativeRevealed, event: Event) -> None:
    mark_revealed(state, revealed.bluff_call["claim_version"], revealed.bluff_call["card"], event.version)


@FOLDS.on(InitiativeResolved)
def _initiative_resolved(state: GattaiState, resolved: InitiativeResolved, event: Event) -> None:
    td = throwdown_of(state)
    td["initiative_rounds"] += 1
    winner = resolved.winner
    for entry in state["table"]:
        if winner is None or entry["card"] != resolved.winning_card:
            to_trash(state, entry["card"])
    state["table"] = []
    td["initiative"] = {"pilots": None, "coach": None}
    state["phase"] = "initiative"
    if winner is not None and resolved.winning_card is not None:
        td["piles"] = [
            {
                "stage": 1,
                "cards": [{"card": resolved.winning_card, "side": winner, "how": "initiative"}],
                "escalation": None,
            }
        ]
        td["turn"] = other_side(winner)
        state["phase"] = "question"


@FOLDS.on(DissonanceFlipped)
def _dissonance_flipped(state: GattaiState, flipped: DissonanceFlipped, event: Event) -> None:
    if flipped.card is not None:
        state["decks"]["coach"]["draw"].remove(flipped.card)
        to_trash(state, flipped.card)


@FOLDS.on(ThrowdownCalledOff)
def _called_off(state: GattaiState, called_off: ThrowdownCalledOff, event: Event) -> None:
    throwdown_of(state)["called_off"] = True


@FOLDS.on(QuestionAnswered)
def _question_answered(state: GattaiState, answered: QuestionAnswered, event: Event) -> None:
    td = throwdown_of(state)
    td["for_team"] = answered.for_team
    td["to_give"] = [p for p in state["pilots"] if p != td["commander"]]
    state["phase"] = "swap" if td["to_give"] else "turns"


@FOLDS.on(ThreatStacksDrawn)
def _threat_stacks_drawn(state: GattaiState, drawn: ThreatStacksDrawn, event: Event) -> None:
    for threat, cards in state["stacks"].items():
        state["hands"][COACH].extend(cards)
        state["stacks"][threat] = []


def _move(state: GattaiState, moved: CardsPassed) -> None:
    for card in moved.cards:
        state["hands"][moved.seat].remove(card)
        state["hands"][moved.to].append(card)


def _swap_done(state: GattaiState) -> None:
    td = throwdown_of(state)
    if not td["to_give"] and not td["returns_due"]:
        state["phase"] = "turns"


@FOLDS.on(CardsGiven)
def _cards_given(state: GattaiState, given: CardsGiven, event: Event) -> None:
    td = throwdown_of(state)
    _move(state, given)
    if given.seat in td["to_give"]:
        td["to_give"].remove(given.seat)
    if given.count:
        td["returns_due"][given.seat] = given.count
    _swap_done(state)


@FOLDS.on(CardsReturned)
def _cards_returned(state: GattaiState, returned: CardsReturned, event: Event) -> None:
    _move(state, returned)
    throwdown_of(state)["returns_due"].pop(returned.to, None)
    _swap_done(state)


@FOLDS.on(Assisted)
def _assisted(state: GattaiState, assisted: Assisted, event: Event) -> None:
    td = throwdown_of(state)
    state["hands"][assisted.seat].remove(assisted.card)
    to_trash(state, assisted.card)
    state["team"][assisted.seat]["charges"] -= 1
    td["bonus"] += 1
    td["assisted"].append(assisted.seat)


@FOLDS.on(ThreatAssisted)
def _threat_assisted(state: GattaiState, assisted: ThreatAssisted, event: Event) -> None:
    state["hands"][COACH].remove(assisted.card)
    to_trash(state, assisted.card)
    throwdown_of(state)["threat_assists"][assisted.threat] = assisted.activates


@FOLDS.on(Countered)
def _countered(state: GattaiState, countered: Countered, event: Event) -> None:
    td = throwdown_of(state)
    state["hands"][countered.seat].remove(countered.card)
    td["piles"][-1]["cards"].append({"card": countered.card, "side": countered.side, "how": "counter"})
    pass_turn(td)


@FOLDS.on(Blocked)
def _blocked(state: GattaiState, blocked: Blocked, event: Event) -> None:
    td = throwdown_of(state)
    state["hands"][blocked.seat].remove(blocked.card)
    to_trash(state, blocked.card)
    pile = td["piles"][-1]
    to_trash(state, pile["cards"].pop()["card"])
    if blocked.against == "escalate" and blocked.stage_back_to is not None and blocked.scorer is not None:
        td["piles"].pop()
        td["stage"] = blocked.stage_back_to
        td["scores"][blocked.scorer] -= blocked.points_back or 0
    pass_turn(td)


@FOLDS.on(Escalated)
def _escalated(state: GattaiState, escalated: Escalated, event: Event) -> None:
    td = throwdown_of(state)
    state["hands"][escalated.seat].remove(escalated.card)
    td["scores"][escalated.scorer] += escalated.points
    td["stage"] = escalated.new_stage
    td["piles"].append(
        {
            "stage": escalated.new_stage,
            "cards": [{"card": escalated.card, "side": escalated.side, "how": "escalate"}],
            "escalation": {"scorer": escalated.scorer, "points": escalated.points},
        }
    )
    pass_turn(td)


@FOLDS.on(Rumbled)
def _rumbled(state: GattaiState, rumbled: Rumbled, event: Event) -> None:
    td = throwdown_of(state)
    state["hands"][rumbled.seat].remove(rumbled.card)
    for pile in td["piles"]:
        for entry in pile["cards"]:
            to_trash(state, entry["card"])
    td["scores"][rumbled.scorer] += rumbled.points
    td["stage"] = rumbled.new_stage
    td["piles"] = [
        {
            "stage": rumbled.new_stage,
            "cards": [{"card": rumbled.card, "side": rumbled.side, "how": "rumble"}],
            "escalation": {"scorer": rumbled.scorer, "points": rumbled.points},
        }
    ]
    pass_turn(td)


@FOLDS.on(Conceded)
def _conceded(state: GattaiState, conceded: Conceded, event: Event) -> None:
    td = throwdown_of(state)
    td["scores"][conceded.scorer] += conceded.points
    td["conceded_by"] = conceded.side


@FOLDS.on(ThrowdownEnded)
def _throwdown_ended(state: GattaiState, ended: ThrowdownEnded, event: Event) -> None:
    td = throwdown_of(state)
    td["winner"] = ended.winner
    deliver_payloads(state, ended.payload_order)
    td["turn"] = None
    state["phase"] = "resolving"
    state["after_queue"] = "throwdown_end"
    reason = "called_off" if ended.called_off else f"{ended.winner}_won"
    state["result"] = {
        "winners": list(ended.winners),
        "reason": reason,
        "mode": "throwdown",
        "winner": ended.winner,
        "scores": ended.scores.copy(),
        "conceded_by": ended.conceded_by,
    }


@FOLDS.on(PilesCleared)
def _piles_cleared(state: GattaiState, cleared: PilesCleared, event: Event) -> None:
    td = throwdown_of(state)
    for pile in td["piles"]:
        for entry in pile["cards"]:
            to_trash(state, entry["card"])
    td["piles"] = []
    state["after_queue"] = None


@FOLDS.on(SeatResigned)
def _seat_resigned(state: GattaiState, resigned: SeatResigned, event: Event) -> None:
    """The other side wins the match. A Throwdown being fought ends, its Payloads delivered as on a Concede; a
    Gambit not yet resolved records no result of its own; what is queued resolves, then the cleanup runs."""
    if resigned.payload_order:
        deliver_payloads(state, resigned.payload_order)
        td = throwdown_of(state)
        td["winner"], td["turn"] = other_side(resigned.side), None
        state["after_queue"] = "throwdown_end"
    elif state["phase"] in GAMBIT_RUNNING or state["after_queue"] == "gambit_end":
        state["after_queue"] = "resigned"
    if state["phase"] != "cleanup":
        state["phase"] = "resolving"
    state["result"] = {
        "winners": list(resigned.winners),
        "reason": "resignation",
        "mode": state["mode"],
        "resigned_by": resigned.side,
        "resigned": resigned.seat,
    }


def evolve(state: GattaiState, event: Event) -> GattaiState:
    """Fold one recorded event into the state; never validates (unknown kinds are ignored)."""
    if event.version is not None:
        state["version"] = event.version
    return FOLDS.fold(state, event)
