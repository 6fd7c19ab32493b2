"""`view`: the table as one viewer may see it; `catalogue`: the public deck.

A face-down card shows only its tokens (tokens are public) unless the viewer may know it: a
seat knows the cards in its `seen` set (shown only with `memory_aid`), organizers and everyone
after the match know all. Card ids are shown exactly where values are, since an id determines
the face.
"""

from __future__ import annotations

from domain.decision import fast_copy
from domain.ruleset import Viewer

from .cards import ABILITIES, CARD_IDS, FACE, GRID_SLOTS


def catalogue() -> dict:
    """The public deck: every card id with its face value, and the ability of each special face."""
    return {
        "cards": [{"id": card, "face": FACE[card]} for card in CARD_IDS],
        "abilities": {str(face): name for face, name in ABILITIES.items()},
        "grid_slots": GRID_SLOTS,
    }


def _card(card: str, tokens: int, known: bool) -> dict:
    if not known:
        return {"card": None, "face": None, "tokens": tokens, "value": None}
    return {"card": card, "face": FACE[card], "tokens": tokens, "value": FACE[card] + tokens}


def view(state: dict, viewer: Viewer) -> dict:
    """The board for `viewer`: grids (values only where known), tokens, discards, turn and scores."""
    all_known = viewer.sees_all
    me = viewer.seat if viewer.role == "seat" and viewer.seat in state["seats"] else None
    remembered = set(state["seen"][me]) if me is not None and state["config"]["memory_aid"] else set()
    tokens = state["tokens"]

    grids = {
        seat: [dict(slot=i, **_card(c, tokens.get(c, 0), all_known or c in remembered)) for i, c in enumerate(cards)]
        for seat, cards in state["grids"].items()
    }
    drawn = None
    if state["drawn"] is not None:
        holder, card = state["drawn"]["seat"], state["drawn"]["card"]
        # The card in your hand is in front of you, so it shows even without the memory aid.
        shown = all_known or holder == me
        drawn = {"seat": holder, "card": card if shown else None, "face": FACE[card] if shown else None}
    pending = state["pending_ability"]
    out = {
        "round": state["round"],
        "phase": state["phase"],
        "seats": list(state["seats"]),
        # Only a seat on turn is current: during the simultaneous `choose` peek every unpeeked
        # seat is waited for (to_act), none of them is on turn (a snapshot taken before the state
        # kept `current` None there still shows None).
        "current": state["current"] if state["phase"] == "turn" else None,
        "round_first_seat": state["round_first_seat"],
        "grids": grids,
        "discard": [{"card": c, "face": FACE[c]} for c in state["discard"]],
        "draw_pile_count": len(state["draw_pile"]),
        "drawn": drawn,
        "pending_ability": None
        if pending is None
        else {"seat": pending["seat"], "face": pending["face"], "ability": ABILITIES[pending["face"]]},
        "caller": state["caller"],
        "final_turns_left": list(state["final_turns_left"]),
        "turns_taken": dict(state["turns_taken"]),
        "peeked": dict(state["peeked"]),
        "scores": dict(state["scores"]),
        "target_score": state["config"]["target_score"],
        "caller_penalty": state["config"]["caller_penalty"],
        "memory_aid": state["config"]["memory_aid"],
        "last_round": None if state["last_round"] is None else fast_copy(state["last_round"]),
        "rounds_played": state.get("rounds_played", len(state.get("history", []))),
    }
    if all_known:
        out["draw_pile"] = [{"card": c, "face": FACE[c]} for c in state["draw_pile"]]
    return out
