"""The state of a match (`DragonsState`) and `evolve`, which folds one recorded event into it.

`FOLDS` holds one fold per event payload type (events.py declares them), each reading the
payload's typed fields; `evolve` is its fold. Folds apply what a record says and never validate.

State (plain JSON, typed as `DragonsState` below):
- `config`: the match config as a dict; `seats`: seat names in turn order.
- `phase`: "dealing" (no round in play) | "peek" (initial peek running) | "turn" |
  "scoring" (the last final turn has ended; only seen inside `decide`) | "over".
- `draw_pile` (index 0 is the top), `discard` (last is the top), `grids` {seat: [4 card ids]},
  `drawn` {"seat", "card"} | None, `tokens` {card id: non-zero int} for cards in grids only.
- `seen` {seat: sorted card ids}: cards whose value that seat has legitimately seen and which are
  still trackable (in a grid or in its hand). A card leaving for the discard pile is dropped from
  every set: it is face up, and once reshuffled nobody can follow it. Positions of grid cards are
  public (every move names its slots), so knowing a card id is knowing where it is; the unseen
  swap moves ids without adding any, which is how a seat loses sight of its own slot.
- `current` (the seat on turn; None while the seats peek and between rounds), `turns_taken`,
  `caller`, `call_version`, `final_turns_left`, `pending_ability` {"seat", "face"}, `peeked`
  {seat: bool}: the round's turn bookkeeping.
- `evidence`: versions of this round's hidden chance records (deal, reshuffles), which the Final
  Gambit ruling rests on and the round's end opens to everyone (the key keeps its name so stored
  snapshots still load).
- `private`: versions of this round's card records shown to one seat (initial peeks, draws,
  peeks) not yet revealed to everyone; `drawn_version`: the record of the card drawn now. A drawn
  card discarded face up reveals its record at once; the round's end reveals the rest, since by
  then every card they name is face up and its path public (every move names its slots).
- `scores`, `rounds_played`, `last_round` (the latest round's result, for the view);
  `forfeited`: the seat whose time ran out or that resigned, once one has; `forfeit_reason`
  `resignation` when it resigned (absent after a time-out, as in snapshots older than resigning).
"""

from __future__ import annotations

import bisect
from typing import cast

from domain.event_types import Folds
from domain.ruleset import Event, config_to_dict

from .cards import deal_layout, reshuffled_pile, round_first_seat, special_face
from .config import Config
from .events import (
    EVENTS,
    AbilitySkipped,
    CardDrawn,
    CardPeeked,
    CardsBlindSwapped,
    DiscardStarted,
    DiscardTaken,
    DrawnCardDiscarded,
    DrawnCardSwapped,
    DrawPileReshuffled,
    FinalGambitCalled,
    InitialCardsPeeked,
    RoundDealt,
    RoundEnded,
    SeatResigned,
    SeatTimedOut,
    TokenAdded,
)
from .shapes import DragonsState, HeldCard, MatchConfig

FOLDS: Folds[DragonsState] = Folds(EVENTS)


def initial_state(config: Config, seats: list[str]) -> DragonsState:
    """The state before the first deal."""
    return {
        "config": cast(MatchConfig, config_to_dict(config)),
        "seats": list(seats),
        "phase": "dealing",
        "round": 0,
        "current": None,
        "round_first_seat": None,
        "draw_pile": [],
        "discard": [],
        "grids": {s: [] for s in seats},
        "tokens": {},
        "seen": {s: [] for s in seats},
        "drawn": None,
        "pending_ability": None,
        "caller": None,
        "call_version": None,
        "final_turns_left": [],
        "turns_taken": {s: 0 for s in seats},
        "peeked": {s: False for s in seats},
        "evidence": [],
        "private": [],
        "drawn_version": None,
        "scores": {s: 0 for s in seats},
        "rounds_played": 0,
        "last_round": None,
    }


def next_seat(state: DragonsState, seat: str) -> str:
    """The seat after `seat` in turn order."""
    seats = state["seats"]
    return seats[(seats.index(seat) + 1) % len(seats)]


def _on_turn(state: DragonsState) -> str:
    # A record that ends a turn follows one begun: the state names its seat (KeyError otherwise,
    # as for a record lacking a field: the verifier reports it).
    seat = state["current"]
    if seat is None:
        raise KeyError("current")
    return seat


def _held(state: DragonsState) -> HeldCard:
    # A swap or discard of the drawn card follows a draw (KeyError otherwise, as above).
    held = state["drawn"]
    if held is None:
        raise KeyError("drawn")
    return held


def _learn(state: DragonsState, seat: str, card: str) -> None:
    known = state["seen"][seat]
    if card not in known:
        bisect.insort(known, card)


def _forget_everywhere(state: DragonsState, card: str) -> None:
    for known in state["seen"].values():
        if card in known:
            known.remove(card)


def _to_discard(state: DragonsState, card: str) -> None:
    # Tokens travel to the discard pile with the card and are then removed.
    state["tokens"].pop(card, None)
    _forget_everywhere(state, card)
    state["discard"].append(card)


def _end_turn(state: DragonsState) -> None:
    seat = _on_turn(state)
    state["turns_taken"][seat] += 1
    if state["caller"] is not None and seat != state["caller"] and seat in state["final_turns_left"]:
        state["final_turns_left"].remove(seat)
    if state["caller"] is not None and not state["final_turns_left"]:
        state["phase"] = "scoring"
        state["current"] = None
        return
    state["current"] = next_seat(state, seat)


def _keep_private(state: DragonsState, event: Event) -> None:
    """Note a card record shown to one seat, until a reveal opens it to everyone."""
    if event.version is not None:
        state.setdefault("private", []).append(event.version)


@FOLDS.on(RoundDealt)
def _round_dealt(state: DragonsState, dealt: RoundDealt, event: Event) -> None:
    seats = state["seats"]
    grids, pile = deal_layout(dealt.shuffle, seats)
    round_no = state["round"] + 1
    state.update(
        {
            "round": round_no,
            "phase": "peek",
            "grids": grids,
            "draw_pile": pile,
            "discard": [],
            "tokens": {},
            "seen": {s: [] for s in seats},
            "drawn": None,
            "pending_ability": None,
            "caller": None,
            "call_version": None,
            "final_turns_left": [],
            "turns_taken": {s: 0 for s in seats},
            "peeked": {s: False for s in seats},
            # Every record of a match has its version; only a decision outside one has none.
            "evidence": [] if event.version is None else [event.version],
            "private": [],
            "drawn_version": None,
            # Nobody is on turn while the seats peek (at once, with `initial_peek: choose`); the
            # round's first seat takes the turn when the discard pile is started.
            "current": None,
            "round_first_seat": round_first_seat(state, round_no),
        }
    )


@FOLDS.on(InitialCardsPeeked)
def _initial_cards_peeked(state: DragonsState, peek: InitialCardsPeeked, event: Event) -> None:
    state["peeked"][peek.seat] = True
    grid = state["grids"][peek.seat]
    for slot in peek.slots:
        _learn(state, peek.seat, grid[slot])
    _keep_private(state, event)


@FOLDS.on(DiscardStarted)
def _discard_started(state: DragonsState, started: DiscardStarted, event: Event) -> None:
    _to_discard(state, state["draw_pile"].pop(0))
    state["phase"] = "turn"
    state["current"] = state["round_first_seat"]


@FOLDS.on(DrawPileReshuffled)
def _draw_pile_reshuffled(state: DragonsState, reshuffled: DrawPileReshuffled, event: Event) -> None:
    state["draw_pile"] = reshuffled_pile(state["discard"], reshuffled.shuffle)
    state["discard"] = state["discard"][-1:]
    if event.version is not None:
        state["evidence"].append(event.version)


@FOLDS.on(CardDrawn)
def _card_drawn(state: DragonsState, drawn: CardDrawn, event: Event) -> None:
    card = state["draw_pile"].pop(0)
    state["drawn"] = {"seat": drawn.seat, "card": card}
    _learn(state, drawn.seat, card)
    _keep_private(state, event)
    state["drawn_version"] = event.version


@FOLDS.on(DrawnCardSwapped)
def _drawn_card_swapped(state: DragonsState, swapped: DrawnCardSwapped, event: Event) -> None:
    grid = state["grids"][swapped.seat]
    old, grid[swapped.slot] = grid[swapped.slot], _held(state)["card"]
    state["drawn"] = None
    state["drawn_version"] = None
    _to_discard(state, old)
    _end_turn(state)


@FOLDS.on(DrawnCardDiscarded)
def _drawn_card_discarded(state: DragonsState, discarded: DrawnCardDiscarded, event: Event) -> None:
    card = _held(state)["card"]
    state["drawn"] = None
    # Discarded face up, the drawn card is public: its draw record is revealed by this record.
    drawn_version = state.get("drawn_version")
    if drawn_version is not None and drawn_version in state.get("private", []):
        state["private"].remove(drawn_version)
    state["drawn_version"] = None
    _to_discard(state, card)
    face = special_face(card)
    if face is not None:
        state["pending_ability"] = {"seat": discarded.seat, "face": face}
    else:
        _end_turn(state)


@FOLDS.on(TokenAdded)
def _token_added(state: DragonsState, added: TokenAdded, event: Event) -> None:
    card = state["grids"][added.target_seat][added.slot]
    total = state["tokens"].get(card, 0) + added.delta
    if total:
        state["tokens"][card] = total
    else:
        state["tokens"].pop(card, None)
    state["pending_ability"] = None
    _end_turn(state)


@FOLDS.on(CardPeeked)
def _card_peeked(state: DragonsState, peeked: CardPeeked, event: Event) -> None:
    _learn(state, peeked.seat, state["grids"][peeked.target_seat][peeked.slot])
    _keep_private(state, event)
    state["pending_ability"] = None
    _end_turn(state)


@FOLDS.on(CardsBlindSwapped)
def _cards_blind_swapped(state: DragonsState, swap: CardsBlindSwapped, event: Event) -> None:
    mine, theirs = state["grids"][swap.seat], state["grids"][swap.other_seat]
    a, b = swap.slot, swap.other_slot
    mine[a], theirs[b] = theirs[b], mine[a]
    state["pending_ability"] = None
    _end_turn(state)


@FOLDS.on(AbilitySkipped)
def _ability_skipped(state: DragonsState, skipped: AbilitySkipped, event: Event) -> None:
    state["pending_ability"] = None
    _end_turn(state)


@FOLDS.on(DiscardTaken)
def _discard_taken(state: DragonsState, taken: DiscardTaken, event: Event) -> None:
    card = state["discard"].pop()
    grid = state["grids"][taken.seat]
    old, grid[taken.slot] = grid[taken.slot], card
    # The taken card was face up for all to see, so every seat legitimately knows it.
    for other in state["seats"]:
        _learn(state, other, card)
    _to_discard(state, old)
    _end_turn(state)


@FOLDS.on(FinalGambitCalled)
def _final_gambit_called(state: DragonsState, call: FinalGambitCalled, event: Event) -> None:
    caller = call.seat
    state["caller"] = caller
    state["call_version"] = event.version
    others, seat = [], next_seat(state, caller)
    while seat != caller:
        others.append(seat)
        seat = next_seat(state, seat)
    state["final_turns_left"] = others
    _end_turn(state)


@FOLDS.on(RoundEnded)
def _round_ended(state: DragonsState, ended: RoundEnded, event: Event) -> None:
    state["scores"] = dict(ended.scores)
    # A count, not the rounds themselves: the state holds what the rules need now (past rounds
    # live in their RoundEnded records), so a long match costs no more to load than a short one.
    # Snapshots taken before the count existed carry the list it replaced.
    state["rounds_played"] = state.get("rounds_played", len(state.pop("history", []))) + 1
    state["last_round"] = {
        "round": ended.round,
        "caller": ended.caller,
        "totals": dict(ended.totals),
        "penalties": dict(ended.penalties),
        "round_winners": list(ended.round_winners),
        # Card ids are left out: they are reused by the next deal, where they are secret again.
        "hands": {
            seat: [{"slot": c["slot"], "face": c["face"], "tokens": c["tokens"], "value": c["value"]} for c in cards]
            for seat, cards in ended.hands.items()
        },
    }
    state["current"] = None
    state["phase"] = "over" if ended.match_over else "dealing"


@FOLDS.on(SeatTimedOut)
def _seat_timed_out(state: DragonsState, timed_out: SeatTimedOut, event: Event) -> None:
    """A seat out of time forfeits (rules.time_out): the match ends at once, and that seat cannot win."""
    state["phase"], state["current"] = "over", None
    state["forfeited"] = timed_out.seat


@FOLDS.on(SeatResigned)
def _seat_resigned(state: DragonsState, resigned: SeatResigned, event: Event) -> None:
    """A seat that resigns forfeits exactly as one out of time does; the end is recorded as a resignation."""
    state["phase"], state["current"] = "over", None
    state["forfeited"], state["forfeit_reason"] = resigned.seat, "resignation"


def evolve(state: DragonsState, event: Event) -> DragonsState:
    """Fold one recorded event into the state; never validates (kinds the game does not record are ignored)."""
    return FOLDS.fold(state, event)
