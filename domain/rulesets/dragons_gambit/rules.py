"""`decide`, `legal_commands`, `to_act`, `outcome` and `setup`: every rule lives here.

`check_command` is the single gate both `decide` and `legal_commands` go through, so the list of
legal commands can never disagree with what `decide` accepts.
"""

from __future__ import annotations

from domain.ruleset import Command, Event, RuleViolation, chance_event

from .cards import (
    ABILITIES, ABILITY_COMMAND, COMMANDS, FACE, GRID_SLOTS, NEAR_ROW, TOKEN_DELTA, AddToken, BlindSwap,
    CallFinalGambit, Config, DiscardDrawnCard, DrawCard, PeekCards, PeekOtherCard, PeekOwnCard, SkipAbility,
    SwapDrawnCard, TakeDiscard,
)
from .state import card_value, deal_layout, evolve, fast_copy, initial_state, reshuffled_pile, round_first_seat

_ABILITY_COMMANDS = (AddToken, PeekOtherCard, PeekOwnCard, BlindSwap)


# --- named predicates shared by decide and legal_commands -------------------------------------

def is_valid_slot(slot: object) -> bool:
    """A grid slot is an int 0..3 (0, 1 far row; 2, 3 near row)."""
    return isinstance(slot, int) and not isinstance(slot, bool) and 0 <= slot < GRID_SLOTS


def final_gambit_blocker(state: dict) -> RuleViolation | None:
    """Why Final Gambit may not be called now, or None when it may."""
    if state["caller"] is not None:
        return RuleViolation("final_gambit_already_called", f"{state['caller']} already called Final Gambit this round")
    if any(n < 1 for n in state["turns_taken"].values()):
        return RuleViolation("final_gambit_too_early", "every seat must have taken a turn this round first")
    return None


def _check_slot(slot: object) -> None:
    if not is_valid_slot(slot):
        raise RuleViolation("invalid_slot", f"slot must be 0, 1, 2 or 3, not {slot!r}")


def _check_seat(state: dict, seat: object) -> None:
    if seat not in state["seats"]:
        raise RuleViolation("unknown_seat", f"no seat {seat!r} in this match")


def _check_other_seat(state: dict, actor: str, seat: object) -> None:
    _check_seat(state, seat)
    if seat == actor:
        raise RuleViolation("must_target_another_seat", "this ability targets another seat's card")


def _check_peek(state: dict, seat: str, command: Command) -> None:
    if not isinstance(command, PeekCards):
        raise RuleViolation("initial_peek_pending", "every seat must first peek at two of its cards")
    if state["peeked"][seat]:
        raise RuleViolation("already_peeked", "you have already peeked this round")
    _check_slot(command.first_slot)
    _check_slot(command.second_slot)
    if command.first_slot == command.second_slot:
        raise RuleViolation("peek_needs_two_distinct_slots", "name two different slots")


def _check_ability(state: dict, seat: str, command: Command) -> None:
    face = state["pending_ability"]["face"]
    if isinstance(command, SkipAbility):
        return
    if not isinstance(command, _ABILITY_COMMANDS):
        raise RuleViolation("must_resolve_ability", f"use or skip the ability of the {face} first")
    if ABILITY_COMMAND[face] is not type(command):
        raise RuleViolation("ability_not_available", f"the {face} does not allow {command.type}")
    if isinstance(command, AddToken):
        _check_seat(state, command.seat)
        _check_slot(command.slot)
    elif isinstance(command, PeekOtherCard):
        _check_other_seat(state, seat, command.seat)
        _check_slot(command.slot)
    elif isinstance(command, PeekOwnCard):
        _check_slot(command.slot)
    else:
        _check_slot(command.slot)
        _check_other_seat(state, seat, command.other_seat)
        _check_slot(command.other_slot)


def _check_turn_start(state: dict, command: Command) -> None:
    if isinstance(command, (SwapDrawnCard, DiscardDrawnCard)):
        raise RuleViolation("no_drawn_card", "draw a card first")
    if isinstance(command, (*_ABILITY_COMMANDS, SkipAbility)):
        raise RuleViolation("ability_not_available", "abilities follow only a drawn card discarded straight away")
    if isinstance(command, TakeDiscard):
        _check_slot(command.slot)
        if not state["discard"]:
            raise RuleViolation("empty_discard", "the discard pile is empty")
    elif isinstance(command, CallFinalGambit):
        blocker = final_gambit_blocker(state)
        if blocker is not None:
            raise blocker


def check_command(state: dict, seat: str, command: Command) -> None:
    """Raise RuleViolation unless `seat` may issue `command` now."""
    if state["phase"] == "over":
        raise RuleViolation("game_over", "the match has ended")
    _check_seat(state, seat)
    if not isinstance(command, COMMANDS):
        raise RuleViolation("unknown_command", f"{type(command).__name__} is not a command of this game")
    if state["phase"] == "peek":
        _check_peek(state, seat, command)
        return
    if isinstance(command, PeekCards):
        raise RuleViolation("peek_not_available", "the initial peek is over")
    if state["phase"] != "turn" or state["current"] != seat:
        raise RuleViolation("not_your_turn", f"it is {state['current']}'s turn")
    if state["drawn"] is not None:
        if not isinstance(command, (SwapDrawnCard, DiscardDrawnCard)):
            raise RuleViolation("must_resolve_drawn_card", "swap or discard the drawn card first")
        if isinstance(command, SwapDrawnCard):
            _check_slot(command.slot)
        return
    if state["pending_ability"] is not None:
        _check_ability(state, seat, command)
        return
    _check_turn_start(state, command)


# --- decide -----------------------------------------------------------------------------------

class _Builder:
    """Events decided so far, each folded into a working copy so later ones see its effect."""

    def __init__(self, state: dict, chance=None) -> None:
        self.work = fast_copy(state)
        self.events: list[Event] = []
        # Where this decision's records start (the match tells it through the chance source), so
        # the working copy knows each record's version, as a reveal later in the decision names it.
        self.first = getattr(chance, "version", None)

    def emit(self, event: Event) -> None:
        version = None if self.first is None else self.first + len(self.events)
        self.events.append(event)
        evolve(self.work, Event(event.kind, event.public, event.secret, event.audience, event.opens, version,
                                event.evidence))


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


def _peek_event(state: dict, seat: str, slots: list[int]) -> Event:
    return Event("InitialCardsPeeked", {"seat": seat, "slots": slots}, peeked_cards(state, seat, slots), (seat,))


def _discard_started(state: dict) -> Event:
    card = state["draw_pile"][0]
    return Event("DiscardStarted", {"round": state["round"], "card": card, "face": FACE[card]})


def _without_chance(public: dict) -> dict:
    return {k: v for k, v in public.items() if k != "chance"}


def deal_public(state: dict) -> dict:
    """The public part of a round's deal: the round, who opens it, the grids' and draw pile's sizes."""
    # Every deal shuffles the whole pack: a smaller `n` would leave cards out of the round.
    round_no = state["round"] + 1
    return {"round": round_no, "first_seat": round_first_seat(state, round_no), "cards_per_seat": GRID_SLOTS,
            "draw_pile": len(FACE) - GRID_SLOTS * len(state["seats"]),
            "chance": {"draw": "permutation", "n": len(FACE)}}


def reshuffle_public(state: dict) -> dict:
    """The public part of a reshuffle: the round and the size of the new draw pile (the discards but the top)."""
    size = len(state["discard"]) - 1
    return {"round": state["round"], "cards": size, "chance": {"draw": "permutation", "n": size}}


def _deal_round(b: _Builder, chance) -> None:
    w = b.work
    public = deal_public(w)
    drawn = chance.permutation("deal", public["chance"]["n"])
    b.emit(chance_event("RoundDealt", drawn, _without_chance(public), hidden_from_all_but=(),
                        secret=dealt_grids(w, drawn.result)))
    if w["config"]["initial_peek"] == "near":
        for seat in w["seats"]:
            b.emit(_peek_event(w, seat, list(NEAR_ROW)))
        b.emit(_discard_started(w))


def drawn_discarded_public(state: dict, seat: str) -> dict:
    """The public part of discarding the drawn card: the card, shown face up, and the ability it grants."""
    card = state["drawn"]["card"]
    return {"seat": seat, "card": card, "face": FACE[card], "ability": ABILITIES.get(FACE[card])}


def token_public(state: dict, seat: str, target: str, slot: int) -> dict:
    """The public part of a token: its +1 or -1 (the discarded card's) and the card's tokens after it."""
    card = state["grids"][target][slot]
    delta = TOKEN_DELTA[state["pending_ability"]["face"]]
    return {"seat": seat, "target_seat": target, "slot": slot, "delta": delta,
            "tokens": state["tokens"].get(card, 0) + delta}


def _discarded(state: dict, card: str) -> dict:
    return {"card": card, "face": FACE[card], "tokens": state["tokens"].get(card, 0)}


def _round_ended(state: dict) -> Event:
    # A round ends only through a Final Gambit, so every round end is also the ruling on that call.
    seats, cfg = state["seats"], state["config"]
    hands = {s: [{"slot": i, "card": c, "face": FACE[c], "tokens": state["tokens"].get(c, 0),
                  "value": card_value(state, c)} for i, c in enumerate(state["grids"][s])] for s in seats}
    totals = {s: sum(c["value"] for c in hands[s]) for s in seats}
    lowest = min(totals.values())
    caller = state["caller"]
    # A tie counts as lowest (house rule), so only a strictly beaten caller pays.
    verdict = totals[caller] <= lowest
    penalties = {s: 0 for s in seats}
    if not verdict:
        penalties[caller] = cfg["caller_penalty"]
    scores = {s: state["scores"][s] + totals[s] + penalties[s] for s in seats}
    public = {
        "round": state["round"], "hands": hands, "totals": totals,
        "round_winners": [s for s in seats if totals[s] == lowest], "caller": caller, "penalties": penalties,
        "scores": scores, "match_over": any(v >= cfg["target_score"] for v in scores.values()),
        "bluff_call": {
            "claim_version": state["call_version"], "claimant": caller, "caller": caller,
            "call_version": state["call_version"], "claim": "lowest_hand", "verdict": "true" if verdict else "false",
            "consequences": {"penalty": penalties[caller]}, "hand_totals": dict(totals), "round": state["round"],
        },
    }
    # The deal and every reshuffle of the round were recorded by earlier commands, so their
    # versions are known; together they fix every card's path, which proves the hands. They also
    # fix the undrawn order of the pile, which stays hidden: they are the ruling's sealed
    # evidence. Every card shown to one seat this round is face up now, so those records are
    # revealed to everyone.
    return Event("RoundEnded", public, opens=tuple(state.get("private", ())), evidence=tuple(state["evidence"]))


def _turn_events(b: _Builder, seat: str, command: Command, chance) -> None:
    w = b.work
    if isinstance(command, PeekCards):
        b.emit(_peek_event(w, seat, [command.first_slot, command.second_slot]))
        if all(w["peeked"].values()):
            b.emit(_discard_started(w))
    elif isinstance(command, DrawCard):
        if not w["draw_pile"]:
            public = reshuffle_public(w)
            drawn = chance.permutation("reshuffle", public["chance"]["n"])
            b.emit(chance_event("DrawPileReshuffled", drawn, _without_chance(public), hidden_from_all_but=(),
                                secret=reshuffled_draw_pile(w, drawn.result)))
        b.emit(Event("CardDrawn", {"seat": seat, "draw_pile": len(w["draw_pile"]) - 1}, top_card(w), (seat,)))
    elif isinstance(command, SwapDrawnCard):
        old = w["grids"][seat][command.slot]
        b.emit(Event("DrawnCardSwapped", {"seat": seat, "slot": command.slot, "discarded": _discarded(w, old)}))
    elif isinstance(command, DiscardDrawnCard):
        drawn = w.get("drawn_version")
        b.emit(Event("DrawnCardDiscarded", drawn_discarded_public(w, seat), opens=() if drawn is None else (drawn,)))
    elif isinstance(command, AddToken):
        b.emit(Event("TokenAdded", token_public(w, seat, command.seat, command.slot)))
    elif isinstance(command, (PeekOtherCard, PeekOwnCard)):
        target = command.seat if isinstance(command, PeekOtherCard) else seat
        b.emit(Event("CardPeeked", {"seat": seat, "target_seat": target, "slot": command.slot,
                                    "ability": w["pending_ability"]["face"]},
                     peeked_card(w, target, command.slot), (seat,)))
    elif isinstance(command, BlindSwap):
        b.emit(Event("CardsBlindSwapped", {"seat": seat, "slot": command.slot, "other_seat": command.other_seat,
                                           "other_slot": command.other_slot}))
    elif isinstance(command, SkipAbility):
        b.emit(Event("AbilitySkipped", {"seat": seat, "ability": w["pending_ability"]["face"]}))
    elif isinstance(command, TakeDiscard):
        taken, old = w["discard"][-1], w["grids"][seat][command.slot]
        b.emit(Event("DiscardTaken", {"seat": seat, "slot": command.slot, "card": taken, "face": FACE[taken],
                                      "discarded": _discarded(w, old)}))
    elif isinstance(command, CallFinalGambit):
        b.emit(Event("FinalGambitCalled", {"seat": seat, "round": w["round"]}))


def decide(state: dict, seat: str, command: Command, chance) -> list[Event]:
    """The events `command` by `seat` causes; RuleViolation when the rules forbid it."""
    check_command(state, seat, command)
    b = _Builder(state, chance)
    _turn_events(b, seat, command, chance)
    if b.work["phase"] == "scoring":
        b.emit(_round_ended(b.work))
        if b.work["phase"] != "over":
            _deal_round(b, chance)
    return b.events


def setup(config: Config, seats: list[str], chance) -> list[Event]:
    """Deal the first round (and, with `initial_peek: near`, show each seat its near row)."""
    b = _Builder(initial_state(config, seats), chance)
    _deal_round(b, chance)
    return b.events


# --- who acts, what they may do, how it ends --------------------------------------------------

def to_act(state: dict) -> list[str]:
    """Seats that may act now: the unpeeked seats in a `choose` peek, else the seat on turn."""
    if state["phase"] == "peek":
        if state["config"]["initial_peek"] != "choose":
            return []
        return [s for s in state["seats"] if not state["peeked"][s]]
    if state["phase"] == "turn":
        return [state["current"]]
    return []


def _candidates(state: dict, seat: str) -> list[Command]:
    slots = range(GRID_SLOTS)
    others = [s for s in state["seats"] if s != seat]
    if state["phase"] == "peek":
        # Either order names the same two slots, and decide takes both.
        return [PeekCards(a, b) for a in slots for b in slots if a != b]
    if state["drawn"] is not None:
        return [SwapDrawnCard(s) for s in slots] + [DiscardDrawnCard()]
    pending = state["pending_ability"]
    if pending is not None:
        face = pending["face"]
        options: list[Command] = []
        if face in TOKEN_DELTA:
            options = [AddToken(t, s) for t in state["seats"] for s in slots]
        elif face == 9:
            options = [PeekOtherCard(t, s) for t in others for s in slots]
        elif face == 10:
            options = [PeekOwnCard(s) for s in slots]
        elif face == 12:
            options = [BlindSwap(s, t, o) for s in slots for t in others for o in slots]
        return options + [SkipAbility()]
    return [DrawCard()] + [TakeDiscard(s) for s in slots] + [CallFinalGambit()]


def legal_commands(state: dict, seat: str) -> list[Command]:
    """Every command `seat` may issue now (complete: at most 81 entries, for a 12 with six seats)."""
    if seat not in to_act(state):
        return []
    out = []
    for command in _candidates(state, seat):
        try:
            check_command(state, seat, command)
        except RuleViolation:
            continue
        out.append(command)
    return out


def legal_choices(state: dict, seat: str) -> list:
    """None: every legal command is listed by legal_commands (at most 81)."""
    return []


def outcome(state: dict) -> dict | None:
    """None while the match runs; then the lowest match score wins (ties share)."""
    if state["phase"] != "over":
        return None
    scores = state["scores"]
    best = min(scores.values())
    return {"winners": [s for s in state["seats"] if scores[s] == best], "reason": "target_score",
            "scores": dict(scores), "rounds": state["round"]}


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
        return _discard_started(state).public
    if kind == "InitialCardsPeeked":
        if state["config"]["initial_peek"] != "near":
            return None
        return {"seat": next((s for s in state["seats"] if not state["peeked"][s]), None), "slots": list(NEAR_ROW)}
    if kind == "CardDrawn":
        return {"seat": seat, "draw_pile": len(state["draw_pile"]) - 1}
    if kind == "DrawnCardSwapped":
        return {"seat": seat, "discarded": _discarded(state, state["grids"][seat][pub["slot"]])}
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
        taken = state["discard"][-1]
        return {"seat": seat, "card": taken, "face": FACE[taken],
                "discarded": _discarded(state, state["grids"][seat][pub["slot"]])}
    if kind == "FinalGambitCalled":
        return {"seat": seat, "round": state["round"]}
    if kind == "RoundEnded":
        return _round_ended(state).public
    return None


def readjudicate(state: dict, event: Event) -> dict:
    """The Final Gambit ruling the rules give for the hands in `state` (what a verifier compares)."""
    return _round_ended(state).public["bluff_call"]
