"""How the Throwdown's events change the state (the evolve side of throwdown.py); never validates."""

from __future__ import annotations

from . import cards as C
from .commands import COACH
from .state import mark_revealed, other_side, place_sealed, side_of


def _pass_turn(td: dict) -> None:
    td["turn"] = other_side(td["turn"])
    td.update(bonus=0, assisted=[], threat_assists={})
    td["turns_taken"] += 1


def _initiative_sealed(state, ev):
    place_sealed(state, ev, "initiative")
    sealed = state["throwdown"]["initiative"]
    sealed[side_of(ev.public["seat"])] = ev.version
    if all(v is not None for v in sealed.values()):
        state["phase"] = "reveal"


def _initiative_resolved(state, ev):
    td = state["throwdown"]
    td["initiative_rounds"] += 1
    winner = ev.public["winner"]
    for entry in state["table"]:
        if winner is None or entry["card"] != ev.public["winning_card"]:
            C.to_trash(state, entry["card"])
    state["table"] = []
    td["initiative"] = {"pilots": None, "coach": None}
    state["phase"] = "initiative"
    if winner is not None:
        td["piles"] = [{"stage": 1, "cards": [{"card": ev.public["winning_card"], "side": winner, "how": "initiative"}],
                        "escalation": None}]
        td["turn"] = other_side(winner)
        state["phase"] = "question"


def _dissonance_flipped(state, ev):
    card = ev.public["card"]
    if card is not None:
        state["decks"]["coach"]["draw"].remove(card)
        C.to_trash(state, card)


def _called_off(state, ev):
    state["throwdown"]["called_off"] = True


def _question_answered(state, ev):
    td = state["throwdown"]
    td["for_team"] = ev.public["for_team"]
    td["to_give"] = [p for p in state["pilots"] if p != td["commander"]]
    state["phase"] = "swap" if td["to_give"] else "turns"


def _threat_stacks_drawn(state, ev):
    for threat, cards in state["stacks"].items():
        state["hands"][COACH].extend(cards)
        state["stacks"][threat] = []


def _move(state, ev):
    for card in ev.secret["cards"]:
        state["hands"][ev.public["seat"]].remove(card)
        state["hands"][ev.public["to"]].append(card)


def _swap_done(state):
    td = state["throwdown"]
    if not td["to_give"] and not td["returns_due"]:
        state["phase"] = "turns"


def _cards_given(state, ev):
    td = state["throwdown"]
    _move(state, ev)
    seat = ev.public["seat"]
    if seat in td["to_give"]:
        td["to_give"].remove(seat)
    if ev.public["count"]:
        td["returns_due"][seat] = ev.public["count"]
    _swap_done(state)


def _cards_returned(state, ev):
    _move(state, ev)
    state["throwdown"]["returns_due"].pop(ev.public["to"], None)
    _swap_done(state)


def _assisted(state, ev):
    td = state["throwdown"]
    seat = ev.public["seat"]
    state["hands"][seat].remove(ev.public["card"])
    C.to_trash(state, ev.public["card"])
    state["team"][seat]["charges"] -= 1
    td["bonus"] += 1
    td["assisted"].append(seat)


def _threat_assisted(state, ev):
    state["hands"][COACH].remove(ev.public["card"])
    C.to_trash(state, ev.public["card"])
    state["throwdown"]["threat_assists"][ev.public["threat"]] = ev.public["kind"]


def _countered(state, ev):
    td = state["throwdown"]
    state["hands"][ev.public["seat"]].remove(ev.public["card"])
    td["piles"][-1]["cards"].append({"card": ev.public["card"], "side": ev.public["side"], "how": "counter"})
    _pass_turn(td)


def _blocked(state, ev):
    td = state["throwdown"]
    state["hands"][ev.public["seat"]].remove(ev.public["card"])
    C.to_trash(state, ev.public["card"])
    pile = td["piles"][-1]
    C.to_trash(state, pile["cards"].pop()["card"])
    if ev.public["against"] == "escalate":
        td["piles"].pop()
        td["stage"] = ev.public["stage_back_to"]
        td["scores"][ev.public["scorer"]] -= ev.public["points_back"]
    _pass_turn(td)


def _escalated(state, ev):
    td = state["throwdown"]
    p = ev.public
    state["hands"][p["seat"]].remove(p["card"])
    td["scores"][p["scorer"]] += p["points"]
    td["stage"] = p["new_stage"]
    td["piles"].append({"stage": p["new_stage"], "cards": [{"card": p["card"], "side": p["side"], "how": "escalate"}],
                        "escalation": {"scorer": p["scorer"], "points": p["points"]}})
    _pass_turn(td)


def _rumbled(state, ev):
    td = state["throwdown"]
    p = ev.public
    state["hands"][p["seat"]].remove(p["card"])
    for pile in td["piles"]:
        for entry in pile["cards"]:
            C.to_trash(state, entry["card"])
    td["scores"][p["scorer"]] += p["points"]
    td["stage"] = p["new_stage"]
    td["piles"] = [{"stage": p["new_stage"], "cards": [{"card": p["card"], "side": p["side"], "how": "rumble"}],
                    "escalation": {"scorer": p["scorer"], "points": p["points"]}}]
    _pass_turn(td)


def _conceded(state, ev):
    td = state["throwdown"]
    td["scores"][ev.public["scorer"]] += ev.public["points"]
    td["conceded_by"] = ev.public["side"]


def _throwdown_ended(state, ev):
    td = state["throwdown"]
    p = ev.public
    td["winner"] = p["winner"]
    for side in p["payload_order"]:
        state["queue"].extend(td["payloads"][side])
        td["payloads"][side] = []
    td["turn"] = None
    state["phase"] = "resolving"
    state["after_queue"] = "throwdown_end"
    reason = "called_off" if p["called_off"] else f"{p['winner']}_won"
    state["result"] = {"winners": list(p["winners"]), "reason": reason, "mode": "throwdown", "winner": p["winner"],
                       "scores": dict(p["scores"]), "conceded_by": p["conceded_by"]}


def _piles_cleared(state, ev):
    td = state["throwdown"]
    for pile in td["piles"]:
        for entry in pile["cards"]:
            C.to_trash(state, entry["card"])
    td["piles"] = []
    state["after_queue"] = None


EVOLVERS = {
    "InitiativeSealed": _initiative_sealed, "InitiativeRevealed": mark_revealed,
    "InitiativeResolved": _initiative_resolved,
    "DissonanceFlipped": _dissonance_flipped, "ThrowdownCalledOff": _called_off, "QuestionAnswered": _question_answered,
    "ThreatStacksDrawn": _threat_stacks_drawn,
    "CardsGiven": _cards_given, "CardsReturned": _cards_returned, "Assisted": _assisted,
    "ThreatAssisted": _threat_assisted, "Countered": _countered, "Blocked": _blocked, "Escalated": _escalated,
    "Rumbled": _rumbled, "Conceded": _conceded, "ThrowdownEnded": _throwdown_ended, "PilesCleared": _piles_cleared,
}
