"""Every event kind of the game declared once as a typed payload (`EVENTS`), and the parts each one records.

Each kind is a frozen `Payload` whose fields are the record's public keys and, marked `hidden`,
its secret keys: the fold (state.py) reads them typed, the conformance kit holds every emitted
event to them, and the spec's event schemas come from them. The two shuffles keep their
permutation in the secret's `chance_result`, as `chance_event` writes it.

The builders below make the parts `decide` and `setup` record; `derived_secret` and
`derived_public` give what the replayed state fixes of a recorded event with the same builders,
so the two can never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypedDict, TypeVar

from domain.chance import ShuffleDescriptor
from domain.event_types import EventTypes, Payload, hidden
from domain.ruleset import Event

from .cards import (
    ABILITIES,
    FACE,
    GRID_SLOTS,
    NEAR_ROW,
    TOKEN_DELTA,
    AbilityName,
    SpecialFace,
    card_value,
    deal_layout,
    reshuffled_pile,
    round_first_seat,
)
from .commands import ABILITY_COMMAND, PeekOwnCard
from .shapes import DragonsState

T = TypeVar("T")

# --- the shapes nested in records --------------------------------------------------------------


class ShownCard(TypedDict):
    """A card shown to one seat (drawn or peeked at): its id and face."""

    card: str
    face: int


class PeekedSlot(TypedDict):
    """A card of an initial peek: its slot, id and face."""

    slot: int
    card: str
    face: int


class DiscardedCard(TypedDict):
    """A grid card put face up on the discard pile: its id, face and the tokens it carried."""

    card: str
    face: int
    tokens: int


class RevealedCard(TypedDict):
    """A grid card shown at a round's end: slot, id, face, tokens and value (face plus tokens)."""

    slot: int
    card: str
    face: int
    tokens: int
    value: int


class Consequences(TypedDict):
    """What the Final Gambit ruling costs the caller (0 when the caller's hand was the lowest)."""

    penalty: int


class FinalGambitRuling(TypedDict):
    """The ruling on a Final Gambit call: the caller claimed the lowest hand; the totals decide."""

    claim_version: int
    claimant: str
    caller: str
    call_version: int
    claim: Literal["lowest_hand"]
    verdict: Literal["true", "false"]
    consequences: Consequences
    hand_totals: dict[str, int]
    round: int


# --- the event kinds ---------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class RoundDealt(Payload):
    """A round dealt from the whole pack: who opens it and the sizes in public, the grids sealed."""

    round: int
    first_seat: str
    cards_per_seat: int
    draw_pile: int
    chance: ShuffleDescriptor
    grids: dict[str, list[str]] = hidden()
    shuffle: list[int] = hidden(key="chance_result")


@dataclass(frozen=True, kw_only=True)
class InitialCardsPeeked(Payload):
    """A seat's initial peek: the slots in public, their cards for that seat alone."""

    seat: str
    slots: list[int]
    cards: list[PeekedSlot] = hidden()


@dataclass(frozen=True, kw_only=True)
class DiscardStarted(Payload):
    """The top of the draw pile turned face up to start the discard pile; the round's turns begin."""

    round: int
    card: str
    face: int


@dataclass(frozen=True, kw_only=True)
class DrawPileReshuffled(Payload):
    """The discard pile but its top shuffled into a new draw pile (its order sealed)."""

    round: int
    cards: int
    chance: ShuffleDescriptor
    draw_pile: list[str] = hidden()
    shuffle: list[int] = hidden(key="chance_result")


@dataclass(frozen=True, kw_only=True)
class CardDrawn(Payload):
    """A seat draws the top card, which only it sees."""

    seat: str
    draw_pile: int
    card: str = hidden()
    face: int = hidden()


@dataclass(frozen=True, kw_only=True)
class DrawnCardSwapped(Payload):
    """The drawn card goes into a slot; the card there goes face up on the discard pile."""

    seat: str
    slot: int
    discarded: DiscardedCard


@dataclass(frozen=True, kw_only=True)
class DrawnCardDiscarded(Payload):
    """The drawn card discarded face up, with the ability it grants (None for a plain card)."""

    seat: str
    card: str
    face: int
    ability: AbilityName | None


@dataclass(frozen=True, kw_only=True)
class TokenAdded(Payload):
    """An 8's (+1) or an 11's (-1) token on a card, and the card's tokens after it."""

    seat: str
    target_seat: str
    slot: int
    delta: Literal[1, -1]
    tokens: int


@dataclass(frozen=True, kw_only=True)
class CardPeeked(Payload):
    """A 9's or a 10's peek at one card (another seat's or one's own), shown to the peeking seat."""

    seat: str
    target_seat: str
    slot: int
    ability: Literal[9, 10]
    card: str = hidden()
    face: int = hidden()


@dataclass(frozen=True, kw_only=True)
class CardsBlindSwapped(Payload):
    """A 12's unseen swap of one of the seat's cards with another seat's."""

    seat: str
    slot: int
    other_seat: str
    other_slot: int


@dataclass(frozen=True, kw_only=True)
class AbilitySkipped(Payload):
    """The ability of the card just discarded declined (`ability` is that card's face)."""

    seat: str
    ability: SpecialFace


@dataclass(frozen=True, kw_only=True)
class DiscardTaken(Payload):
    """The top discard taken into a slot; the card there goes face up on the discard pile."""

    seat: str
    slot: int
    card: str
    face: int
    discarded: DiscardedCard


@dataclass(frozen=True, kw_only=True)
class FinalGambitCalled(Payload):
    """A seat calls Final Gambit: every other seat takes one more turn, then the round ends."""

    seat: str
    round: int


@dataclass(frozen=True, kw_only=True)
class RoundEnded(Payload):
    """A round's end: every hand, totals, penalties, scores and the ruling on the Final Gambit call."""

    round: int
    hands: dict[str, list[RevealedCard]]
    totals: dict[str, int]
    round_winners: list[str]
    caller: str
    penalties: dict[str, int]
    scores: dict[str, int]
    match_over: bool
    bluff_call: FinalGambitRuling


@dataclass(frozen=True, kw_only=True)
class SeatTimedOut(Payload):
    """A seat out of time forfeits (rules.time_out): the match ends at once."""

    seat: str


@dataclass(frozen=True, kw_only=True)
class SeatResigned(Payload):
    """A seat the match waited for gave up: it forfeits as on a time-out, and the match ends at once."""

    seat: str


# The kinds that end the match by a seat's forfeit.
FORFEITS = (SeatTimedOut.kind(), SeatResigned.kind())

EVENTS = EventTypes(
    RoundDealt,
    InitialCardsPeeked,
    DiscardStarted,
    DrawPileReshuffled,
    CardDrawn,
    DrawnCardSwapped,
    DrawnCardDiscarded,
    TokenAdded,
    CardPeeked,
    CardsBlindSwapped,
    AbilitySkipped,
    DiscardTaken,
    FinalGambitCalled,
    RoundEnded,
    SeatTimedOut,
    SeatResigned,
)

# The kinds play records; a forfeit ends play instead (a time-out is the clock's doing, a resignation a seat's).
EVENT_KINDS: tuple[str, ...] = tuple(kind for kind in EVENTS.kinds() if kind not in FORFEITS)

# --- secrets: the cards a seat is shown, and what a shuffle puts where -------------------------


def shown_card(card: str) -> ShownCard:
    """The secret of a card shown to one seat (drawn or peeked at): its id and face."""
    return {"card": card, "face": FACE[card]}


def peeked_slots(state: DragonsState, seat: str, slots: list[int]) -> list[PeekedSlot]:
    """The cards of an initial peek: those in these slots of the seat's grid."""
    grid = state["grids"][seat]
    return [{"slot": s, "card": grid[s], "face": FACE[grid[s]]} for s in slots]


def dealt_grids(state: DragonsState, permutation: list[int]) -> dict:
    """The secret of a deal beside its shuffle: the grids that shuffle deals."""
    return {"grids": deal_layout(permutation, state["seats"])[0]}


def reshuffled_draw_pile(state: DragonsState, permutation: list[int]) -> dict:
    """The secret of a reshuffle beside its shuffle: the draw pile it makes of the discard pile."""
    return {"draw_pile": reshuffled_pile(state["discard"], permutation)}


def top_card(state: DragonsState) -> ShownCard:
    """The secret of a draw: the top card of the draw pile."""
    return shown_card(state["draw_pile"][0])


def peeked_card(state: DragonsState, target: str, slot: int) -> ShownCard:
    """The secret of an ability's peek: the card in that slot of the target's grid."""
    return shown_card(state["grids"][target][slot])


# --- public parts ------------------------------------------------------------------------------


def deal_public(state: DragonsState) -> dict:
    """The public part of a round's deal: the round, who opens it, the grids' and draw pile's sizes."""
    # Every deal shuffles the whole pack: a smaller `n` would leave cards out of the round.
    round_no = state["round"] + 1
    return {
        "round": round_no,
        "first_seat": round_first_seat(state, round_no),
        "cards_per_seat": GRID_SLOTS,
        "draw_pile": len(FACE) - GRID_SLOTS * len(state["seats"]),
        "chance": {"draw": "permutation", "n": len(FACE)},
    }


def reshuffle_public(state: DragonsState) -> dict:
    """The public part of a reshuffle: the round and the size of the new draw pile (the discards but the top)."""
    size = len(state["discard"]) - 1
    return {"round": state["round"], "cards": size, "chance": {"draw": "permutation", "n": size}}


def without_chance(public: dict) -> dict:
    """A shuffle's public part without its `chance` descriptor, which the recorded draw fills in."""
    return {k: v for k, v in public.items() if k != "chance"}


def initial_peek(state: DragonsState, seat: str, slots: list[int]) -> InitialCardsPeeked:
    """An initial peek: the slots in public, their cards for the peeking seat alone (its audience)."""
    return InitialCardsPeeked(seat=seat, slots=slots, cards=peeked_slots(state, seat, slots))


def discard_started(state: DragonsState) -> DiscardStarted:
    """Starting the discard pile: the top of the draw pile, turned face up."""
    card = state["draw_pile"][0]
    return DiscardStarted(round=state["round"], card=card, face=FACE[card])


def discarded_card(state: DragonsState, card: str) -> DiscardedCard:
    """A grid card put face up on the discard pile: its id, face and the tokens it carried."""
    return {"card": card, "face": FACE[card], "tokens": state["tokens"].get(card, 0)}


def drawn_discarded(state: DragonsState, seat: str, card: str) -> DrawnCardDiscarded:
    """Discarding the drawn card: the card, shown face up, and the ability it grants."""
    return DrawnCardDiscarded(seat=seat, card=card, face=FACE[card], ability=ABILITIES.get(FACE[card]))


def token_added(state: DragonsState, seat: str, target: str, slot: int, face: SpecialFace) -> TokenAdded:
    """A token from the card of `face`: its +1 or -1 and the card's tokens after it."""
    card = state["grids"][target][slot]
    delta = TOKEN_DELTA[face]
    return TokenAdded(
        seat=seat, target_seat=target, slot=slot, delta=delta, tokens=state["tokens"].get(card, 0) + delta
    )


def discard_taken(state: DragonsState, seat: str, slot: int) -> DiscardTaken:
    """Taking the top discard into a slot: the card taken and the one put down."""
    taken = state["discard"][-1]
    put_down = discarded_card(state, state["grids"][seat][slot])
    return DiscardTaken(seat=seat, slot=slot, card=taken, face=FACE[taken], discarded=put_down)


def round_ended(state: DragonsState) -> RoundEnded:
    """A round's end: every hand, totals, penalties, scores and the Final Gambit ruling."""
    # A round ends only through a Final Gambit, so every round end is also the ruling on that call.
    seats, cfg = state["seats"], state["config"]
    caller, call_version = state["caller"], state["call_version"]
    if caller is None or call_version is None:
        raise ValueError("a round ends only after a recorded Final Gambit call")
    hands: dict[str, list[RevealedCard]] = {
        s: [
            {"slot": i, "card": c, "face": FACE[c], "tokens": state["tokens"].get(c, 0), "value": card_value(state, c)}
            for i, c in enumerate(state["grids"][s])
        ]
        for s in seats
    }
    totals = {s: sum(c["value"] for c in hands[s]) for s in seats}
    lowest = min(totals.values())
    # A tie counts as lowest (house rule), so only a strictly beaten caller pays.
    verdict = totals[caller] <= lowest
    penalties = {s: 0 for s in seats}
    if not verdict:
        penalties[caller] = cfg["caller_penalty"]
    scores = {s: state["scores"][s] + totals[s] + penalties[s] for s in seats}
    return RoundEnded(
        round=state["round"],
        hands=hands,
        totals=totals,
        round_winners=[s for s in seats if totals[s] == lowest],
        caller=caller,
        penalties=penalties,
        scores=scores,
        match_over=any(v >= cfg["target_score"] for v in scores.values()),
        bluff_call={
            "claim_version": call_version,
            "claimant": caller,
            "caller": caller,
            "call_version": call_version,
            "claim": "lowest_hand",
            "verdict": "true" if verdict else "false",
            "consequences": {"penalty": penalties[caller]},
            "hand_totals": dict(totals),
            "round": state["round"],
        },
    )


def round_end_opens(state: DragonsState) -> tuple[int, ...]:
    """The records a round's end reveals to everyone: its deal and reshuffles, and its cards shown to one seat."""
    # The deal and reshuffles fix every card's path, which proves the hands the ruling rests on.
    # Opened rather than sealed, they let every viewer check the ruling at once: they hide nothing
    # that matters any more, since the next round is dealt from the whole pack by a fresh shuffle
    # and no card order carries over. Every card shown to one seat this round is face up now.
    return tuple(sorted(state["evidence"] + state.get("private", [])))


# --- the verifier's hooks ----------------------------------------------------------------------


def derived_secret(state: DragonsState, event: Event) -> dict | None:
    """What the replayed state and the recorded shuffles fix of an event's secret; None when it has none."""
    # Every secret of this game is fixed so: the cards are wherever the deal and reshuffles put
    # them, and the seats choose only slots, which are public. The chance results themselves are
    # re-derived from the seed by the verifier.
    secret, public = event.secret or {}, event.public
    if event.kind == "RoundDealt":
        return dealt_grids(state, secret["chance_result"])
    if event.kind == "DrawPileReshuffled":
        return reshuffled_draw_pile(state, secret["chance_result"])
    if event.kind == "InitialCardsPeeked":
        return {"cards": peeked_slots(state, public["seat"], public["slots"])}
    if event.kind == "CardDrawn":
        return dict(top_card(state))
    if event.kind == "CardPeeked":
        return dict(peeked_card(state, public["target_seat"], public["slot"]))
    return None


def derived_public(state: DragonsState, event: Event) -> dict | None:
    """What the replayed state fixes of an event's public part; None when it is all a seat's choice."""
    # The seats choose only commands and slots (and, in a `choose` peek, who peeks when); every
    # card shown face up — the discard pile's first card, a drawn card discarded or swapped
    # out, a card taken — and every count follows from the state, as does the round's end.
    kind, pub = event.kind, event.public
    seat = state["current"]
    if kind == "RoundDealt":
        return deal_public(state)
    if kind == "DrawPileReshuffled":
        return reshuffle_public(state)
    if kind == "DiscardStarted":
        return discard_started(state).parts()[0]
    if kind == "InitialCardsPeeked":
        if state["config"]["initial_peek"] != "near":
            return None
        return {"seat": next((s for s in state["seats"] if not state["peeked"][s]), None), "slots": list(NEAR_ROW)}
    if kind == "CardDrawn":
        return {"seat": seat, "draw_pile": len(state["draw_pile"]) - 1}
    if kind == "DrawnCardSwapped":
        on_turn = _present(seat, "seat on turn")
        return {"seat": seat, "discarded": discarded_card(state, state["grids"][on_turn][pub["slot"]])}
    if kind == "DrawnCardDiscarded":
        drawn = _present(state["drawn"], "drawn card")
        return drawn_discarded(state, _present(seat, "seat on turn"), drawn["card"]).parts()[0]
    if kind == "TokenAdded":
        face = _present(state["pending_ability"], "pending ability")["face"]
        return token_added(state, _present(seat, "seat on turn"), pub["target_seat"], pub["slot"], face).parts()[0]
    if kind == "CardPeeked":
        face = _present(state["pending_ability"], "pending ability")["face"]
        own = ABILITY_COMMAND[face] is PeekOwnCard
        return {"seat": seat, "ability": face, **({"target_seat": seat} if own else {})}
    if kind == "AbilitySkipped":
        return {"seat": seat, "ability": _present(state["pending_ability"], "pending ability")["face"]}
    if kind == "CardsBlindSwapped":
        return {"seat": seat}
    if kind == "DiscardTaken":
        return discard_taken(state, _present(seat, "seat on turn"), pub["slot"]).parts()[0]
    if kind == "FinalGambitCalled":
        return {"seat": seat, "round": state["round"]}
    if kind == "RoundEnded":
        return round_ended(state).parts()[0]
    return None


def _present(value: T | None, what: str) -> T:
    """`value`, which a record of this kind needs the replayed state to hold (a forged record finds it missing)."""
    if value is None:
        raise ValueError(f"the replayed state has no {what} for this record")
    return value
