"""The parts of each event kind, built once for `decide`/`setup` and the verifier hooks alike.

`derived_secret` and `derived_public` give what the replayed state fixes of a recorded event;
`decide` builds the same parts with the same functions, so the two can never disagree.
"""

from __future__ import annotations

from domain.ruleset import Event

from .cards import ABILITIES, FACE, GRID_SLOTS, NEAR_ROW, TOKEN_DELTA, card_value, deal_layout, reshuffled_pile
from .commands import ABILITY_COMMAND, PeekOwnCard
from .state import round_first_seat

# --- secrets: the cards a seat is shown, and what a shuffle puts where -------------------------


def shown_card(card: str) -> dict:
    """The secret of a card shown to one seat (drawn or peeked at): its id and face."""
    return {"card": card, "face": FACE[card]}


def peeked_cards(state: dict, seat: str, slots: list[int]) -> dict:
    """The secret of an initial peek: the cards in those slots of the seat's grid."""
    return {"cards": [{"slot": s, **shown_card(state["grids"][seat][s])} for s in slots]}


def dealt_grids(state: dict, permutation: list[int]) -> dict:
    """The secret of a deal beside its shuffle: the grids that shuffle deals."""
    return {"grids": deal_layout(permutation, state["seats"])[0]}


def reshuffled_draw_pile(state: dict, permutation: list[int]) -> dict:
    """The secret of a reshuffle beside its shuffle: the draw pile it makes of the discard pile."""
    return {"draw_pile": reshuffled_pile(state["discard"], permutation)}


def top_card(state: dict) -> dict:
    """The secret of a draw: the top card of the draw pile."""
    return shown_card(state["draw_pile"][0])


def peeked_card(state: dict, target: str, slot: int) -> dict:
    """The secret of an ability's peek: the card in that slot of the target's grid."""
    return shown_card(state["grids"][target][slot])


# --- public parts ------------------------------------------------------------------------------


def deal_public(state: dict) -> dict:
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


def reshuffle_public(state: dict) -> dict:
    """The public part of a reshuffle: the round and the size of the new draw pile (the discards but the top)."""
    size = len(state["discard"]) - 1
    return {"round": state["round"], "cards": size, "chance": {"draw": "permutation", "n": size}}


def without_chance(public: dict) -> dict:
    """A shuffle's public part without its `chance` descriptor, which the recorded draw fills in."""
    return {k: v for k, v in public.items() if k != "chance"}


def initial_peek_event(state: dict, seat: str, slots: list[int]) -> Event:
    """An initial peek: the slots in public, their cards for the peeking seat alone."""
    return Event("InitialCardsPeeked", {"seat": seat, "slots": slots}, peeked_cards(state, seat, slots), (seat,))


def discard_started_public(state: dict) -> dict:
    """The public part of starting the discard pile: the top of the draw pile, turned face up."""
    card = state["draw_pile"][0]
    return {"round": state["round"], "card": card, "face": FACE[card]}


def discarded_card(state: dict, card: str) -> dict:
    """A grid card put face up on the discard pile: its id, face and the tokens it carried."""
    return {"card": card, "face": FACE[card], "tokens": state["tokens"].get(card, 0)}


def drawn_discarded_public(state: dict, seat: str) -> dict:
    """The public part of discarding the drawn card: the card, shown face up, and the ability it grants."""
    card = state["drawn"]["card"]
    return {"seat": seat, "card": card, "face": FACE[card], "ability": ABILITIES.get(FACE[card])}


def token_public(state: dict, seat: str, target: str, slot: int) -> dict:
    """The public part of a token: its +1 or -1 (the discarded card's) and the card's tokens after it."""
    card = state["grids"][target][slot]
    delta = TOKEN_DELTA[state["pending_ability"]["face"]]
    return {
        "seat": seat,
        "target_seat": target,
        "slot": slot,
        "delta": delta,
        "tokens": state["tokens"].get(card, 0) + delta,
    }


def discard_taken_public(state: dict, seat: str, slot: int) -> dict:
    """The public part of taking the top discard into a slot: the card taken and the one put down."""
    taken = state["discard"][-1]
    return {
        "seat": seat,
        "slot": slot,
        "card": taken,
        "face": FACE[taken],
        "discarded": discarded_card(state, state["grids"][seat][slot]),
    }


def round_end_public(state: dict) -> dict:
    """The public part of a round's end: every hand, totals, penalties, scores and the Final Gambit ruling."""
    # A round ends only through a Final Gambit, so every round end is also the ruling on that call.
    seats, cfg = state["seats"], state["config"]
    hands = {
        s: [
            {"slot": i, "card": c, "face": FACE[c], "tokens": state["tokens"].get(c, 0), "value": card_value(state, c)}
            for i, c in enumerate(state["grids"][s])
        ]
        for s in seats
    }
    totals = {s: sum(c["value"] for c in hands[s]) for s in seats}
    lowest = min(totals.values())
    caller = state["caller"]
    # A tie counts as lowest (house rule), so only a strictly beaten caller pays.
    verdict = totals[caller] <= lowest
    penalties = {s: 0 for s in seats}
    if not verdict:
        penalties[caller] = cfg["caller_penalty"]
    scores = {s: state["scores"][s] + totals[s] + penalties[s] for s in seats}
    return {
        "round": state["round"],
        "hands": hands,
        "totals": totals,
        "round_winners": [s for s in seats if totals[s] == lowest],
        "caller": caller,
        "penalties": penalties,
        "scores": scores,
        "match_over": any(v >= cfg["target_score"] for v in scores.values()),
        "bluff_call": {
            "claim_version": state["call_version"],
            "claimant": caller,
            "caller": caller,
            "call_version": state["call_version"],
            "claim": "lowest_hand",
            "verdict": "true" if verdict else "false",
            "consequences": {"penalty": penalties[caller]},
            "hand_totals": dict(totals),
            "round": state["round"],
        },
    }


def round_end_opens(state: dict) -> tuple[int, ...]:
    """The records a round's end reveals to everyone: its deal and reshuffles, and its cards shown to one seat."""
    # The deal and reshuffles fix every card's path, which proves the hands the ruling rests on.
    # Opened rather than sealed, they let every viewer check the ruling at once: they hide nothing
    # that matters any more, since the next round is dealt from the whole pack by a fresh shuffle
    # and no card order carries over. Every card shown to one seat this round is face up now.
    return tuple(sorted(state["evidence"] + state.get("private", [])))


# --- the verifier's hooks ----------------------------------------------------------------------


def derived_secret(state: dict, event: Event) -> dict | None:
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
        return peeked_cards(state, public["seat"], public["slots"])
    if event.kind == "CardDrawn":
        return top_card(state)
    if event.kind == "CardPeeked":
        return peeked_card(state, public["target_seat"], public["slot"])
    return None


def derived_public(state: dict, event: Event) -> dict | None:
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
        return discard_started_public(state)
    if kind == "InitialCardsPeeked":
        if state["config"]["initial_peek"] != "near":
            return None
        return {"seat": next((s for s in state["seats"] if not state["peeked"][s]), None), "slots": list(NEAR_ROW)}
    if kind == "CardDrawn":
        return {"seat": seat, "draw_pile": len(state["draw_pile"]) - 1}
    if kind == "DrawnCardSwapped":
        return {"seat": seat, "discarded": discarded_card(state, state["grids"][seat][pub["slot"]])}
    if kind == "DrawnCardDiscarded":
        return drawn_discarded_public(state, seat)
    if kind == "TokenAdded":
        return token_public(state, seat, pub["target_seat"], pub["slot"])
    if kind == "CardPeeked":
        face = state["pending_ability"]["face"]
        own = ABILITY_COMMAND[face] is PeekOwnCard
        return {"seat": seat, "ability": face, **({"target_seat": seat} if own else {})}
    if kind == "AbilitySkipped":
        return {"seat": seat, "ability": state["pending_ability"]["face"]}
    if kind == "CardsBlindSwapped":
        return {"seat": seat}
    if kind == "DiscardTaken":
        return discard_taken_public(state, seat, pub["slot"])
    if kind == "FinalGambitCalled":
        return {"seat": seat, "round": state["round"]}
    if kind == "RoundEnded":
        return round_end_public(state)
    return None
