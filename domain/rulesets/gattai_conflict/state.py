"""The state of a conflict: `initial_state` and `evolve`, which folds one recorded event in.

State (plain JSON):
- `version` (of the last folded event), `config`, `seats`, `pilots` (pilot seats in order),
  `mode`, `phase`, `harmony`, `team` {pilot: gauges and stats}, `threats` {name: rating}.
- `decks` {pilot|coach: {draw, trash, omens}}, `hands` {seat: [cards]}, `stacks` {threat: [cards
  invested on it, face down]}, `table` [{card, seat, role, face_up}] for the Gambit's two cards
  and sealed Initiative cards.
- `sealed` [{version, seat, kind, card, source, origin, reveal_version}]: every sealed play.
- `queue` (triggers waiting to resolve), `after_queue` (what follows once it is empty).
- `gambit` / `throwdown`: the mode's own bookkeeping (see gambit.py and throwdown.py).
- `discards_due` {seat: n} after the conflict, `result` once decided (see `outcome`).

Evolvers apply what an event records and never validate: every ruling (who wins, what a card
beats, whether a trigger waits in a Payload's place) is in the event decide emitted.
"""

from __future__ import annotations

from domain.ruleset import Event, config_to_dict

from .cards import apply_omen_revealed, apply_shuffle, deck_of, new_decks, to_trash
from .commands import STATS
from .config import COACH, Config, sheet_of, threat_ratings
from .gambit import new_gambit
from .team import DAMAGE, apply_resolved
from .throwdown import FIGHTING, delivered_payload, new_throwdown, other_side, payload_entry, side_of


def initial_state(config: Config, seats: list[str]) -> dict:
    """The state before setup: decks unshuffled, hands empty, the Team as its sheets say."""
    pilots = [s for s in seats if s != COACH]
    team = {}
    for p in pilots:
        sheet = sheet_of(config, p)
        team[p] = {
            **{s: sheet[s] for s in STATS},
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
        "mode": config.mode,
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


# ----- evolvers -----------------------------------------------------------------------------------


def _take(state: dict, seat: str, card: str) -> None:
    hand = state["hands"][seat]
    if card in hand:
        hand.remove(card)


def _deck_shuffled(state, ev):
    apply_shuffle(state, ev.public["deck"], ev.public["reason"], ev.secret["chance_result"])


def _omen_revealed(state, ev):
    apply_omen_revealed(state, ev.public["deck"])


def _cards_drawn(state, ev):
    deck = state["decks"][ev.public["deck"]]["draw"]
    n = ev.public["count"]
    state["hands"][ev.public["seat"]].extend(deck[:n])
    del deck[:n]


def _threat_stack_dealt(state, ev):
    deck = state["decks"][ev.public["deck"]]["draw"]
    n = ev.public["count"]
    state["stacks"][ev.public["threat"]].extend(deck[:n])
    del deck[:n]


def _card_milled(state, ev):
    deck = state["decks"][ev.public["deck"]]["draw"]
    if deck:
        to_trash(state, deck.pop(0))


def _conflict_started(state, ev):
    if state["mode"] == "gambit":
        state["gambit"] = new_gambit(state)
        state["phase"] = "threshold"
    else:
        state["throwdown"] = new_throwdown(state)
        state["phase"] = "initiative"


def place_sealed(state: dict, seat: str, secret: dict, version: int | None, kind: str) -> None:
    """Move a sealed card face down onto the table and note the claim (source) and where it came from."""
    card, source = secret["card"], secret["source"]
    origin = "hand" if card in state["hands"][seat] else "deck"
    if origin == "hand":
        _take(state, seat, card)
    else:
        state["decks"][deck_of(card)]["draw"].remove(card)
    state["table"].append({"card": card, "seat": seat, "role": kind, "face_up": False})
    state["sealed"].append(
        {
            "version": version,
            "seat": seat,
            "kind": kind,
            "card": card,
            "source": source,
            "origin": origin,
            "reveal_version": None,
        }
    )


def mark_revealed(state: dict, ev: Event) -> None:
    """Mark a sealed play revealed by the event carrying its bluff call, and turn its card face up."""
    call = ev.public["bluff_call"]
    for entry in state["sealed"]:
        if entry["version"] == call["claim_version"]:
            entry["reveal_version"] = ev.version
    for entry in state["table"]:
        if entry["card"] == call["card"]:
            entry["face_up"] = True


def _trigger_fired(state, ev):
    t = dict(ev.public["fired"])
    td = state["throwdown"]
    if td is not None and state["phase"] in FIGHTING and t["trigger"] in DAMAGE and not t["immediate"]:
        side = side_of(t["by"])
        td["payloads"][side].append(payload_entry(state, t, side))
    else:
        state["queue"].append(t)


def _trigger_resolved(state, ev):
    apply_resolved(state, ev.public)


def _omen_spent(state, ev):
    for omen in state["decks"][ev.public["deck"]]["omens"]:
        if omen["card"] == ev.public["omen"]:
            omen["spent"] = True


def _cleanup_started(state, ev):
    due = dict(ev.public["discards_due"])
    state["discards_due"] = due
    state["phase"] = "cleanup" if due else "over"


def _cards_discarded(state, ev):
    seat = ev.public["seat"]
    for card in ev.public["cards"]:
        _take(state, seat, card)
        to_trash(state, card)
    state["discards_due"].pop(seat, None)
    if not state["discards_due"]:
        state["phase"] = "over"


# ----- the Gambit's evolvers ----------------------------------------------------------------------


def _pilot_card_played(state, ev):
    seat, card = ev.public["seat"], ev.public["card"]
    if ev.public["source"] == "hand":
        state["hands"][seat].remove(card)
    else:
        state["decks"]["pilot"]["draw"].remove(card)
    state["table"].append({"card": card, "seat": seat, "role": "gambit_play", "face_up": True})
    state["gambit"].update(pilot_card=card, pilot_source=ev.public["source"])


def _threshold_revealed(state, ev):
    mark_revealed(state, ev)
    g = state["gambit"]
    g["threshold"] = ev.public["card"]
    g["higher"] = ev.public["bluff_call"]["consequences"]["pilot_higher"]
    if g["higher"]:
        g["outcome"] = "yes_and"
        state["phase"] = "boon"
    else:
        state["phase"] = "choice"


def _outcome_chosen(state, ev):
    outcome = ev.public["outcome"]
    state["gambit"]["outcome"] = outcome
    state["phase"] = "boon" if outcome == "no_but" else "complication"


def _boon_picked(state, ev):
    state["gambit"]["boon"] = ev.public["trigger"]
    state["phase"] = "resolving"
    state["after_queue"] = "gambit_end"


def _complication_named(state, ev):
    state["gambit"]["complication"] = ev.public["trigger"]
    state["phase"] = "resolving"
    state["after_queue"] = "gambit_end"


def _gambit_resolved(state, ev):
    for entry in state["table"]:
        to_trash(state, entry["card"])
    state["table"] = []
    state["after_queue"] = None
    p = ev.public
    state["result"] = {
        "winners": list(p["winners"]),
        "reason": f"gambit_{p['outcome']}",
        "mode": "gambit",
        "gambit_outcome": p["outcome"],
        "threshold": p["threshold"],
        "pilot_card": p["pilot_card"],
    }


def _threshold_sealed(state, ev):
    place_sealed(state, ev.public["seat"], ev.secret, ev.version, "threshold")
    state["gambit"]["threshold_version"] = ev.version
    state["phase"] = "play"


# ----- the Throwdown's evolvers -------------------------------------------------------------------


def _pass_turn(td: dict) -> None:
    td["turn"] = other_side(td["turn"])
    td.update(bonus=0, assisted=[], threat_assists={})
    td["turns_taken"] += 1


def _initiative_sealed(state, ev):
    place_sealed(state, ev.public["seat"], ev.secret, ev.version, "initiative")
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
            to_trash(state, entry["card"])
    state["table"] = []
    td["initiative"] = {"pilots": None, "coach": None}
    state["phase"] = "initiative"
    if winner is not None:
        td["piles"] = [
            {
                "stage": 1,
                "cards": [{"card": ev.public["winning_card"], "side": winner, "how": "initiative"}],
                "escalation": None,
            }
        ]
        td["turn"] = other_side(winner)
        state["phase"] = "question"


def _dissonance_flipped(state, ev):
    card = ev.public["card"]
    if card is not None:
        state["decks"]["coach"]["draw"].remove(card)
        to_trash(state, card)


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
    to_trash(state, ev.public["card"])
    state["team"][seat]["charges"] -= 1
    td["bonus"] += 1
    td["assisted"].append(seat)


def _threat_assisted(state, ev):
    state["hands"][COACH].remove(ev.public["card"])
    to_trash(state, ev.public["card"])
    state["throwdown"]["threat_assists"][ev.public["threat"]] = ev.public["kind"]


def _countered(state, ev):
    td = state["throwdown"]
    state["hands"][ev.public["seat"]].remove(ev.public["card"])
    td["piles"][-1]["cards"].append({"card": ev.public["card"], "side": ev.public["side"], "how": "counter"})
    _pass_turn(td)


def _blocked(state, ev):
    td = state["throwdown"]
    state["hands"][ev.public["seat"]].remove(ev.public["card"])
    to_trash(state, ev.public["card"])
    pile = td["piles"][-1]
    to_trash(state, pile["cards"].pop()["card"])
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
    td["piles"].append(
        {
            "stage": p["new_stage"],
            "cards": [{"card": p["card"], "side": p["side"], "how": "escalate"}],
            "escalation": {"scorer": p["scorer"], "points": p["points"]},
        }
    )
    _pass_turn(td)


def _rumbled(state, ev):
    td = state["throwdown"]
    p = ev.public
    state["hands"][p["seat"]].remove(p["card"])
    for pile in td["piles"]:
        for entry in pile["cards"]:
            to_trash(state, entry["card"])
    td["scores"][p["scorer"]] += p["points"]
    td["stage"] = p["new_stage"]
    td["piles"] = [
        {
            "stage": p["new_stage"],
            "cards": [{"card": p["card"], "side": p["side"], "how": "rumble"}],
            "escalation": {"scorer": p["scorer"], "points": p["points"]},
        }
    ]
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
        state["queue"].extend(delivered_payload(state, side))
        td["payloads"][side] = []
    td["turn"] = None
    state["phase"] = "resolving"
    state["after_queue"] = "throwdown_end"
    reason = "called_off" if p["called_off"] else f"{p['winner']}_won"
    state["result"] = {
        "winners": list(p["winners"]),
        "reason": reason,
        "mode": "throwdown",
        "winner": p["winner"],
        "scores": dict(p["scores"]),
        "conceded_by": p["conceded_by"],
    }


def _piles_cleared(state, ev):
    td = state["throwdown"]
    for pile in td["piles"]:
        for entry in pile["cards"]:
            to_trash(state, entry["card"])
    td["piles"] = []
    state["after_queue"] = None


EVOLVERS = {
    "DeckShuffled": _deck_shuffled,
    "OmenRevealed": _omen_revealed,
    "CardsDrawn": _cards_drawn,
    "ThreatStackDealt": _threat_stack_dealt,
    "CardMilled": _card_milled,
    "ConflictStarted": _conflict_started,
    "TriggerFired": _trigger_fired,
    "TriggerResolved": _trigger_resolved,
    "OmenSpent": _omen_spent,
    "CleanupStarted": _cleanup_started,
    "CardsDiscarded": _cards_discarded,
    # the Gambit
    "ThresholdSealed": _threshold_sealed,
    "PilotCardPlayed": _pilot_card_played,
    "ThresholdRevealed": _threshold_revealed,
    "OutcomeChosen": _outcome_chosen,
    "BoonPicked": _boon_picked,
    "ComplicationNamed": _complication_named,
    "GambitResolved": _gambit_resolved,
    # the Throwdown
    "InitiativeSealed": _initiative_sealed,
    "InitiativeRevealed": mark_revealed,
    "InitiativeResolved": _initiative_resolved,
    "DissonanceFlipped": _dissonance_flipped,
    "ThrowdownCalledOff": _called_off,
    "QuestionAnswered": _question_answered,
    "ThreatStacksDrawn": _threat_stacks_drawn,
    "CardsGiven": _cards_given,
    "CardsReturned": _cards_returned,
    "Assisted": _assisted,
    "ThreatAssisted": _threat_assisted,
    "Countered": _countered,
    "Blocked": _blocked,
    "Escalated": _escalated,
    "Rumbled": _rumbled,
    "Conceded": _conceded,
    "ThrowdownEnded": _throwdown_ended,
    "PilesCleared": _piles_cleared,
}


def evolve(state: dict, event: Event) -> dict:
    """Fold one recorded event into the state; never validates (unknown kinds are ignored)."""
    if event.version is not None:
        state["version"] = event.version
    apply = EVOLVERS.get(event.kind)
    if apply is not None:
        apply(state, event)
    return state
