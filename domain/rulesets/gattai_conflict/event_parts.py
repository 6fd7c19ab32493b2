"""The parts of the event kinds decide builds from the state, built once for decide/setup and the verifier.

decide and setup build these events' public and secret parts with the functions here, and the
verifier's hooks (`derived_secret`, `derived_public` in events.py, and readjudicate.py) call the
same ones, so the two can never disagree. events.py declares every kind's fields.
"""

from __future__ import annotations

from typing import Any

from .cards import (
    excess,
    flip_value,
    gambit_beats,
    rank_then_suit,
    top_card,
)
from .config import COACH
from .shapes import FiredTrigger, GattaiState, SealedEntry, Side, gambit_of, throwdown_of
from .team import max_hand
from .throwdown import FIGHTING, delivered_payload, other_side, side_of, strike, top

INITIATIVE_SOURCE = "hand"


def stacks_secret(state: GattaiState) -> dict:
    """A ThreatStacksDrawn secret: the cards on every Threat's stack, in Threat order."""
    return {"cards": [card for cards in state["stacks"].values() for card in cards]}


def sealed_secret(card: str | None, source: str) -> dict:
    """A sealed play's secret: the card and where its seat claims it came from."""
    return {"card": card, "source": source}


def sealed_verdict(entry: SealedEntry) -> str:
    """A sealed play's bluff verdict: "true" when the card came from where its seat claimed."""
    return "true" if entry["origin"] == entry["source"] else "false"


# ----- any conflict -------------------------------------------------------------------------------


def conflict_started_public(state: GattaiState) -> dict:
    """The public part of the conflict's start: its mode and the Team's Harmony, as configured."""
    return {"mode": state["config"]["mode"], "harmony": state["config"]["harmony"]}


def resolving_public(t: FiredTrigger) -> dict:
    """The trigger a TriggerResolved resolves (the front of the queue), as its record names it."""
    return {"trigger": t["trigger"], "target": t["target"], "by": t["by"], "source": t["source"]}


def cleanup_public(state: GattaiState) -> dict:
    """The public part of the cleanup after the draws: every seat's max hand and who must discard how many."""
    due = {
        s: len(state["hands"][s]) - max_hand(state, s)
        for s in state["seats"]
        if len(state["hands"][s]) > max_hand(state, s)
    }
    return {"discards_due": due, "max_hands": {s: max_hand(state, s) for s in state["seats"]}}


# ----- the Gambit ---------------------------------------------------------------------------------


def threshold_call(state: GattaiState, call_version: int | None) -> dict:
    """The bluff call the reveal of the sealed Threshold makes, once the pilot's card is on the table.

    The pilot's play is the call (only the Gambit's pilot plays); the verdict is whether the
    Threshold came from where the Coach claimed, and the consequence is whether the pilot is higher.
    """
    g = gambit_of(state)
    sealed = next(e for e in state["sealed"] if e["version"] == g["threshold_version"])
    if g["pilot_card"] is None:
        raise TypeError("the pilot has played no card to call the Threshold with")
    higher = gambit_beats(g["pilot_card"], sealed["card"])
    return {
        "claim_version": sealed["version"],
        "claimant": COACH,
        "caller": g["pilot"],
        "call_version": call_version,
        "verdict": sealed_verdict(sealed),
        "kind": "threshold",
        "card": sealed["card"],
        "source": sealed["source"],
        "consequences": {"pilot_card": g["pilot_card"], "pilot_higher": higher},
    }


def gambit_resolved_public(state: GattaiState) -> dict:
    """The public part of the Gambit's end: its cards, its outcome and who it made win."""
    g = gambit_of(state)
    winners = [g["pilot"]] if g["outcome"] in ("yes_and", "yes_but") else [COACH]
    return {
        "pilot": g["pilot"],
        "threshold": g["threshold"],
        "pilot_card": g["pilot_card"],
        "outcome": g["outcome"],
        "winners": winners,
    }


# ----- the Throwdown ------------------------------------------------------------------------------


def initiative_entries(state: GattaiState) -> list[SealedEntry]:
    """The two sealed plays of this Initiative round, in the order they were sealed."""
    sealed = throwdown_of(state)["initiative"].values()
    return sorted((e for e in state["sealed"] if e["version"] in sealed), key=lambda e: e["version"] or 0)


def initiative_contest(state: GattaiState) -> tuple[dict[Side, str], Side | None, bool]:
    """(cards by side, winning side or None, identical) of the sealed Initiative cards: rank, then suit."""
    cards = {side_of(e["seat"]): e["card"] for e in initiative_entries(state)}
    pc, cc = cards["pilots"], cards["coach"]
    identical = rank_then_suit(pc) == rank_then_suit(cc)
    winner: Side | None = None if identical else ("pilots" if rank_then_suit(pc) > rank_then_suit(cc) else "coach")
    return cards, winner, identical


def initiative_call(state: GattaiState, seat: str, caller: str, call_version: int | None) -> dict:
    """The bluff call the reveal of `seat`'s sealed Initiative card makes (either commander may call)."""
    version = throwdown_of(state)["initiative"][side_of(seat)]
    entry = next(e for e in state["sealed"] if e["version"] == version)
    _, winner, identical = initiative_contest(state)
    return {
        "claim_version": entry["version"],
        "claimant": entry["seat"],
        "caller": caller,
        "call_version": call_version,
        "verdict": sealed_verdict(entry),
        "kind": "initiative",
        "card": entry["card"],
        "source": entry["source"],
        "consequences": {"initiative_winner": winner, "identical": identical},
    }


def initiative_resolved_public(state: GattaiState) -> dict:
    """The public part of resolving the revealed Initiative cards: who wins, by how much, and against which Strike."""
    cards, winner, identical = initiative_contest(state)
    both = {"pilots": cards["pilots"], "coach": cards["coach"]}
    if identical or winner is None:
        return {"winner": None, "identical": True, "cards": both}
    over = excess(cards[winner], cards[other_side(winner)])
    limit = strike(state, winner)
    return {
        "winner": winner,
        "identical": False,
        "cards": both,
        "winning_card": cards[winner],
        "excess": over,
        "strike": limit,
        "outside_strike": over > limit,
    }


def flip_public(state: GattaiState, dissonance: int) -> dict:
    """The public part of a Dissonance flip: the Coach Deck's top card, its value, and whether it is a Schism."""
    card = top_card(state, "coach")
    schism = card is not None and flip_value(card) <= dissonance
    return {
        "card": card,
        "value": None if card is None else flip_value(card),
        "dissonance": dissonance,
        "schism": schism,
        "pilot": throwdown_of(state)["commander"],
    }


def question_public(state: GattaiState, for_team: bool) -> dict:
    """The public part of the table's answer: the commander draws her Synch (for her Team) or her Solo."""
    commander = throwdown_of(state)["commander"]
    gauge = state["team"][commander]
    return {"for_team": for_team, "commander": commander, "draws": gauge["synch"] if for_team else gauge["solo"]}


def stacks_public(state: GattaiState) -> dict:
    """The public part of the Coach drawing his Threats' stacks: how many cards each held."""
    return {"counts": {t: len(c) for t, c in state["stacks"].items()}}


def drive_public(state: GattaiState, kind: str, seat: str, card: str) -> dict:
    """The public part of a Counter, Escalate or Rumble: the card it goes over, the excess, Strike and Dissonance."""
    side = side_of(seat)
    over = top(state)["card"]
    stage = throwdown_of(state)["stage"]
    if kind == "Countered":
        limit, extra = strike(state, side), {}
    else:
        limit = strike(state, side, stage + 1)
        extra = {"points": stage, "scorer": other_side(side), "new_stage": stage + 1}
    ex = excess(card, over)
    return {
        "seat": seat,
        "side": side,
        "card": card,
        "over": over,
        "excess": ex,
        "strike": limit,
        "dissonance": max(0, ex - limit) if side == "pilots" else 0,
        **extra,
    }


def blocked_public(state: GattaiState, seat: str, card: str) -> dict:
    """The public part of a Block: the card blocked, what it was, and against an Escalate what is taken back."""
    td = throwdown_of(state)
    entry = top(state)
    public: dict[str, Any] = {
        "seat": seat,
        "side": side_of(seat),
        "card": card,
        "blocked": entry["card"],
        "against": entry["how"],
    }
    esc = td["piles"][-1]["escalation"]
    if entry["how"] == "escalate" and esc is not None:
        public.update(stage_back_to=td["stage"] - 1, points_back=esc["points"], scorer=esc["scorer"])
    return public


def conceded_public(state: GattaiState, seat: str) -> dict:
    """The public part of a Concede: the opposing side scores the current stage."""
    side = side_of(seat)
    return {"seat": seat, "side": side, "points": throwdown_of(state)["stage"], "scorer": other_side(side)}


def throwdown_ended_public(state: GattaiState) -> dict:
    """The public part of the Throwdown's end: more points wins (a tie: the side that did not concede)."""
    td = throwdown_of(state)
    scores = td["scores"].copy()
    winner: Side | None
    order: list[Side]
    if td["called_off"]:
        winner, order = None, ["coach", "pilots"]
    else:
        if scores["pilots"] != scores["coach"]:
            winner = "pilots" if scores["pilots"] > scores["coach"] else "coach"
        else:
            winner = other_side(td["conceded_by"])
        order = [other_side(winner), winner]
    winners = [] if winner is None else (list(state["pilots"]) if winner == "pilots" else [COACH])
    return {
        "winner": winner,
        "winners": winners,
        "scores": scores,
        "conceded_by": td["conceded_by"],
        "called_off": td["called_off"],
        "payload_order": order,
        "payloads": {s: delivered_payload(state, s) for s in order},
    }


def resigned_public(state: GattaiState, seat: str) -> dict:
    """The public part of a resignation: the other side wins the match; a Throwdown still being fought
    delivers its Payloads as on a Concede (the resigning side's, the loser's, first)."""
    side = side_of(seat)
    winner = other_side(side)
    order: list[Side] = [side, winner] if state["throwdown"] is not None and state["phase"] in FIGHTING else []
    return {
        "seat": seat,
        "side": side,
        "winners": list(state["pilots"]) if winner == "pilots" else [COACH],
        "payload_order": order,
        "payloads": {s: delivered_payload(state, s) if order else [] for s in ("pilots", "coach")},
    }


def piles_public(state: GattaiState) -> dict:
    """The public part of clearing the Piles: every card on them."""
    return {"cards": [e["card"] for p in throwdown_of(state)["piles"] for e in p["cards"]]}
