"""`view`: the conflict as one viewer may see it; `catalogue`: the public card lists of both decks.

A seat sees its own hand and its own sealed cards; everyone sees what is face up (Piles, Trash,
Omens, revealed cards), gauges, scores, Payloads, hand and deck sizes, and which sealed plays
exist (their versions name the records whose commitments prove them). Organizers, and everyone
once the match has ended, see everything, deck order included.

While a Throwdown is fought the view always shows the Strikes the next card is judged against:
`strikes` for a card played in the current stage (from stage 4 on the pilots' is the Team's
Harmony), `escalation_strikes` for a card opening the next stage (so in stage 3 the pilots' is
already the Harmony a Rumble card faces); both count this turn's Assists.
"""

from __future__ import annotations

import copy

from domain.ruleset import Viewer

from .cards import DECKS, SUIT_VALUE, SUITS, deck_cards, is_joker, rank
from .config import COACH
from .legal import to_act
from .team import HARMONY_NAMES, max_hand, pending
from .throwdown import FIGHTING, delivered_payload, strike

SIDES = ("pilots", "coach")
LAST_STAGE = 7
STAGE_NAMES = {
    1: "Confrontation",
    2: "Struggle",
    3: "Final Attack",
    4: "Rumble I",
    5: "Rumble II",
    6: "Rumble III",
    7: "Rumble IV",
}


def view(state: dict, viewer: Viewer) -> dict:
    """The board for `viewer`."""
    all_known = viewer.sees_all
    me = viewer.seat if viewer.role == "seat" and viewer.seat in state["seats"] else None

    def shown(seat: str) -> bool:
        """Whether this viewer sees what `seat` holds face down."""
        return all_known or seat == me

    hands = {s: {"count": len(h), "cards": list(h) if shown(s) else None} for s, h in state["hands"].items()}
    decks = {}
    for name, d in state["decks"].items():
        decks[name] = {"count": len(d["draw"]), "trash": list(d["trash"]), "omens": [dict(o) for o in d["omens"]]}
        if all_known:
            decks[name]["order"] = list(d["draw"])
    table = [
        {
            "seat": e["seat"],
            "role": e["role"],
            "face_up": e["face_up"],
            "card": e["card"] if e["face_up"] or shown(e["seat"]) else None,
        }
        for e in state["table"]
    ]
    sealed = [
        {
            "version": e["version"],
            "seat": e["seat"],
            "kind": e["kind"],
            "source": e["source"],
            "reveal_version": e["reveal_version"],
            "card": e["card"] if e["reveal_version"] is not None or shown(e["seat"]) else None,
        }
        for e in state["sealed"]
    ]
    waiting = pending(state)
    out = {
        "mode": state["mode"],
        "phase": state["phase"],
        "seats": list(state["seats"]),
        "to_act": to_act(state),
        "harmony": {"level": state["harmony"], "name": HARMONY_NAMES[state["harmony"]]},
        "team": copy.deepcopy(state["team"]),
        "threats": dict(state["threats"]),
        "hands": hands,
        "max_hands": {s: max_hand(state, s) for s in state["seats"]},
        "decks": decks,
        "table": table,
        "sealed": sealed,
        "threat_stacks": {
            t: {"count": len(c), "cards": list(c) if shown(COACH) else None} for t, c in state["stacks"].items()
        },
        "queue": copy.deepcopy(state["queue"]),
        "pending": None if waiting is None else {"seat": waiting, "trigger": dict(state["queue"][0])},
        "discards_due": dict(state["discards_due"]),
        "result": copy.deepcopy(state["result"]),
        "gambit": copy.deepcopy(state["gambit"]),
        "throwdown": _throwdown(state),
        "crisis_tier": state["config"]["crisis_tier"],
    }
    return out


def _throwdown(state: dict) -> dict | None:
    td = state["throwdown"]
    if td is None:
        return None
    out = copy.deepcopy(td)
    out["payloads"] = {side: delivered_payload(state, side) for side in td["payloads"]}
    out["stage_name"] = STAGE_NAMES.get(td["stage"])
    out["initiative"] = {side: v is not None for side, v in td["initiative"].items()}
    out["strikes"], out["escalation_strikes"] = _strikes(state)
    out["winning_card"] = td["piles"][-1]["cards"][-1]["card"] if td["piles"] else None
    out["coach"] = COACH
    return out


def _strikes(state: dict) -> tuple[dict | None, dict | None]:
    """The Strikes the next card is judged against, per side: one played in the current stage (an
    Initiative card, a Counter) and one opening the next stage (an Escalate; a Rumble, judged against
    the Team's Harmony), None where no such card can come (the Throwdown ended; stage 7)."""
    if state["phase"] not in FIGHTING:
        return None, None
    stage = state["throwdown"]["stage"]
    now = {side: strike(state, side) for side in SIDES}
    nxt = None if stage >= LAST_STAGE else {side: strike(state, side, stage + 1) for side in SIDES}
    return now, nxt


def catalogue() -> dict:
    """The public card lists of both decks: each card id with its rank and suit, or marked as a Joker."""

    def entry(card: str) -> dict:
        if is_joker(card):
            return {"id": card, "joker": True}
        return {"id": card, "rank": card[2:-1], "suit": card[-1], "value": rank(card)}

    return {
        "decks": {deck: [entry(card) for card in deck_cards(deck)] for deck in DECKS},
        "suit_order": sorted(SUITS, key=lambda s: -SUIT_VALUE[s]),
    }
