"""The state of a match and `evolve`, which folds one recorded event into it.

State (plain JSON):
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
- `scores`, `rounds_played`, `last_round` (the latest round's result, for the view).
"""

from __future__ import annotations

import bisect

from domain.ruleset import Event, config_to_dict

from .cards import ABILITIES, FACE, TOKEN_DELTA, deal_layout, reshuffled_pile
from .config import Config


def initial_state(config: Config, seats: list[str]) -> dict:
    """The state before the first deal."""
    return {
        "config": config_to_dict(config),
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


def round_first_seat(state: dict, round_no: int) -> str:
    """Who opens a round: `first_seat` in round 1, then the next seat each round (house rule)."""
    seats = state["seats"]
    start = seats.index(state["config"]["first_seat"])
    return seats[(start + round_no - 1) % len(seats)]


def next_seat(state: dict, seat: str) -> str:
    """The seat after `seat` in turn order."""
    seats = state["seats"]
    return seats[(seats.index(seat) + 1) % len(seats)]


def _learn(state: dict, seat: str, card: str) -> None:
    known = state["seen"][seat]
    if card not in known:
        bisect.insort(known, card)


def _forget_everywhere(state: dict, card: str) -> None:
    for known in state["seen"].values():
        if card in known:
            known.remove(card)


def _to_discard(state: dict, card: str) -> None:
    # Tokens travel to the discard pile with the card and are then removed.
    state["tokens"].pop(card, None)
    _forget_everywhere(state, card)
    state["discard"].append(card)


def _end_turn(state: dict) -> None:
    seat = state["current"]
    state["turns_taken"][seat] += 1
    if state["caller"] is not None and seat != state["caller"] and seat in state["final_turns_left"]:
        state["final_turns_left"].remove(seat)
    if state["caller"] is not None and not state["final_turns_left"]:
        state["phase"] = "scoring"
        state["current"] = None
        return
    state["current"] = next_seat(state, seat)


def _shuffle(event: Event) -> list[int]:
    # Every deal and reshuffle keeps its hidden permutation in its secret part.
    return (event.secret or {})["chance_result"]


def _round_dealt(state: dict, event: Event) -> None:
    seats = state["seats"]
    grids, pile = deal_layout(_shuffle(event), seats)
    round_no = state["round"] + 1
    first = round_first_seat(state, round_no)
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
            "evidence": [event.version],
            "private": [],
            "drawn_version": None,
            # Nobody is on turn while the seats peek (at once, with `initial_peek: choose`); the
            # round's first seat takes the turn when the discard pile is started.
            "current": None,
            "round_first_seat": first,
        }
    )


def _keep_private(state: dict, event: Event) -> None:
    """Note a card record shown to one seat, until a reveal opens it to everyone."""
    if event.version is not None:
        state.setdefault("private", []).append(event.version)


def _initial_cards_peeked(state: dict, event: Event) -> None:
    seat = event.public["seat"]
    state["peeked"][seat] = True
    for slot in event.public["slots"]:
        _learn(state, seat, state["grids"][seat][slot])
    _keep_private(state, event)


def _discard_started(state: dict, event: Event) -> None:
    _to_discard(state, state["draw_pile"].pop(0))
    state["phase"] = "turn"
    state["current"] = state["round_first_seat"]


def _draw_pile_reshuffled(state: dict, event: Event) -> None:
    state["draw_pile"] = reshuffled_pile(state["discard"], _shuffle(event))
    state["discard"] = state["discard"][-1:]
    state["evidence"].append(event.version)


def _card_drawn(state: dict, event: Event) -> None:
    seat = event.public["seat"]
    card = state["draw_pile"].pop(0)
    state["drawn"] = {"seat": seat, "card": card}
    _learn(state, seat, card)
    _keep_private(state, event)
    state["drawn_version"] = event.version


def _drawn_card_swapped(state: dict, event: Event) -> None:
    seat, slot = event.public["seat"], event.public["slot"]
    grid = state["grids"][seat]
    old, grid[slot] = grid[slot], state["drawn"]["card"]
    state["drawn"] = None
    state["drawn_version"] = None
    _to_discard(state, old)
    _end_turn(state)


def _drawn_card_discarded(state: dict, event: Event) -> None:
    card = state["drawn"]["card"]
    state["drawn"] = None
    # Discarded face up, the drawn card is public: its draw record is revealed by this record.
    if state.get("drawn_version") in state.get("private", []):
        state["private"].remove(state["drawn_version"])
    state["drawn_version"] = None
    _to_discard(state, card)
    if FACE[card] in ABILITIES:
        state["pending_ability"] = {"seat": event.public["seat"], "face": FACE[card]}
    else:
        _end_turn(state)


def _token_added(state: dict, event: Event) -> None:
    card = state["grids"][event.public["target_seat"]][event.public["slot"]]
    total = state["tokens"].get(card, 0) + TOKEN_DELTA[state["pending_ability"]["face"]]
    if total:
        state["tokens"][card] = total
    else:
        state["tokens"].pop(card, None)
    state["pending_ability"] = None
    _end_turn(state)


def _card_peeked(state: dict, event: Event) -> None:
    card = state["grids"][event.public["target_seat"]][event.public["slot"]]
    _learn(state, event.public["seat"], card)
    _keep_private(state, event)
    state["pending_ability"] = None
    _end_turn(state)


def _cards_blind_swapped(state: dict, event: Event) -> None:
    mine, theirs = state["grids"][event.public["seat"]], state["grids"][event.public["other_seat"]]
    a, b = event.public["slot"], event.public["other_slot"]
    mine[a], theirs[b] = theirs[b], mine[a]
    state["pending_ability"] = None
    _end_turn(state)


def _ability_skipped(state: dict, event: Event) -> None:
    state["pending_ability"] = None
    _end_turn(state)


def _discard_taken(state: dict, event: Event) -> None:
    seat, slot = event.public["seat"], event.public["slot"]
    taken = state["discard"].pop()
    grid = state["grids"][seat]
    old, grid[slot] = grid[slot], taken
    # The taken card was face up for all to see, so every seat legitimately knows it.
    for other in state["seats"]:
        _learn(state, other, taken)
    _to_discard(state, old)
    _end_turn(state)


def _final_gambit_called(state: dict, event: Event) -> None:
    caller = event.public["seat"]
    state["caller"] = caller
    state["call_version"] = event.version
    others, seat = [], next_seat(state, caller)
    while seat != caller:
        others.append(seat)
        seat = next_seat(state, seat)
    state["final_turns_left"] = others
    _end_turn(state)


def _round_ended(state: dict, event: Event) -> None:
    public = event.public
    state["scores"] = dict(public["scores"])
    # A count, not the rounds themselves: the state holds what the rules need now (past rounds
    # live in their RoundEnded records), so a long match costs no more to load than a short one.
    # Snapshots taken before the count existed carry the list it replaced.
    state["rounds_played"] = state.get("rounds_played", len(state.pop("history", []))) + 1
    state["last_round"] = {
        "round": public["round"],
        "caller": public["caller"],
        "totals": dict(public["totals"]),
        "penalties": dict(public["penalties"]),
        "round_winners": list(public["round_winners"]),
        # Card ids are left out: they are reused by the next deal, where they are secret again.
        "hands": {
            seat: [{k: c[k] for k in ("slot", "face", "tokens", "value")} for c in cards]
            for seat, cards in public["hands"].items()
        },
    }
    state["current"] = None
    state["phase"] = "over" if public["match_over"] else "dealing"


def _seat_timed_out(state: dict, event: Event) -> None:
    """A seat out of time forfeits (rules.time_out): the match ends at once, and that seat cannot win."""
    state["phase"], state["current"] = "over", None
    state["forfeited"] = event.public["seat"]


_EVOLVERS = {
    "RoundDealt": _round_dealt,
    "InitialCardsPeeked": _initial_cards_peeked,
    "DiscardStarted": _discard_started,
    "DrawPileReshuffled": _draw_pile_reshuffled,
    "CardDrawn": _card_drawn,
    "DrawnCardSwapped": _drawn_card_swapped,
    "DrawnCardDiscarded": _drawn_card_discarded,
    "TokenAdded": _token_added,
    "CardPeeked": _card_peeked,
    "CardsBlindSwapped": _cards_blind_swapped,
    "AbilitySkipped": _ability_skipped,
    "DiscardTaken": _discard_taken,
    "FinalGambitCalled": _final_gambit_called,
    "RoundEnded": _round_ended,
}

# The kinds play records; a time-out's forfeit is the clock's doing (rules.time_out), folded too.
EVENT_KINDS: tuple[str, ...] = tuple(_EVOLVERS)
_EVOLVERS["SeatTimedOut"] = _seat_timed_out


def evolve(state: dict, event: Event) -> dict:
    """Fold one recorded event into the state; never validates (unknown kinds are ignored)."""
    apply = _EVOLVERS.get(event.kind)
    if apply is not None:
        apply(state, event)
    return state
