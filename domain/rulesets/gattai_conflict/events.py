"""The parts of every event kind, built once for decide/setup and the verifier, and what the state fixes of them.

decide and setup build each event's public and secret parts with the functions here, and the
verifier's hooks (`derived_secret`, `derived_public`, and readjudicate.py) call the same ones, so
the two can never disagree.

Which part of each secret the rules fix (`derived_secret`), and which is a seat's choice:
- DeckShuffled: its secret is the chance result itself, which the verifier re-derives.
- CardsDrawn, ThreatStackDealt: the cards on top of the deck (a draw never passes a Joker).
- ThreatStacksDrawn: every card invested on the Coach's Threats, Threat by Threat.
- ThresholdSealed: a blind Threshold is the top of the Coach Deck; one from hand is the Coach's
  choice. Either way the claimed source is the one the record states publicly.
- InitiativeSealed: the card is the commander's choice; its source is always the hand.
- CardsGiven, CardsReturned: which cards change hands is the giving seat's choice.

`derived_public` binds the public parts the same way. Fixed by the state: every shuffle's reason
and size (its pool, so `n` can drop no card), the Joker an Omen sets out, how many cards a draw
takes (never past a Joker; the deal's, refill's and free card's counts whole) and from which
deck, the cards shown off a deck's top (a milled card, a Dissonance flip, a flipped pilot card),
the revealed sealed cards, every Drive's excess, Strike, Dissonance and points, the Initiative's,
Gambit's and Throwdown's results, the cleanup's counts. A seat's choices stay free: sealed and
played cards, answers, outcomes, boons, complications, gifts, discards, story triggers; so do
which deck a shuffle or Omen concerns, a Bonus Draw's total (the draws before it are not in the
state) and a Dissonance's size (the Strike it exceeded has been reset by the time it is flipped).
"""

from __future__ import annotations

from domain.ruleset import Event

from .cards import (
    deck_for,
    draw_run,
    drawn_secret,
    excess,
    flip_value,
    gambit_beats,
    omen_on_top,
    rank_then_suit,
    shuffle_public,
    shuffle_reason,
    top_card,
)
from .config import COACH
from .gambit import earns_lesson, times
from .team import max_hand
from .throwdown import delivered_payload, driver, other_side, side_of, strike, threat_assist_kind, top

INITIATIVE_SOURCE = "hand"


def stacks_secret(state: dict) -> dict:
    """A ThreatStacksDrawn secret: the cards on every Threat's stack, in Threat order."""
    return {"cards": [card for cards in state["stacks"].values() for card in cards]}


def sealed_secret(card: str | None, source: str) -> dict:
    """A sealed play's secret: the card and where its seat claims it came from."""
    return {"card": card, "source": source}


def sealed_verdict(entry: dict) -> str:
    """A sealed play's bluff verdict: "true" when the card came from where its seat claimed."""
    return "true" if entry["origin"] == entry["source"] else "false"


# ----- any conflict -------------------------------------------------------------------------------


def conflict_started_public(state: dict) -> dict:
    """The public part of the conflict's start: its mode and the Team's Harmony, as configured."""
    return {"mode": state["config"]["mode"], "harmony": state["config"]["harmony"]}


def resolving_public(t: dict) -> dict:
    """The trigger a TriggerResolved resolves (the front of the queue), as its record names it."""
    return {"trigger": t["trigger"], "target": t["target"], "by": t["by"], "source": t["source"]}


def cleanup_public(state: dict) -> dict:
    """The public part of the cleanup after the draws: every seat's max hand and who must discard how many."""
    due = {
        s: len(state["hands"][s]) - max_hand(state, s)
        for s in state["seats"]
        if len(state["hands"][s]) > max_hand(state, s)
    }
    return {"discards_due": due, "max_hands": {s: max_hand(state, s) for s in state["seats"]}}


# ----- the Gambit ---------------------------------------------------------------------------------


def threshold_call(state: dict, call_version: int | None) -> dict:
    """The bluff call the reveal of the sealed Threshold makes, once the pilot's card is on the table.

    The pilot's play is the call (only the Gambit's pilot plays); the verdict is whether the
    Threshold came from where the Coach claimed, and the consequence is whether the pilot is higher.
    """
    g = state["gambit"]
    sealed = next(e for e in state["sealed"] if e["version"] == g["threshold_version"])
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


def gambit_resolved_public(state: dict) -> dict:
    """The public part of the Gambit's end: its cards, its outcome and who it made win."""
    g = state["gambit"]
    winners = [g["pilot"]] if g["outcome"] in ("yes_and", "yes_but") else [COACH]
    return {
        "pilot": g["pilot"],
        "threshold": g["threshold"],
        "pilot_card": g["pilot_card"],
        "outcome": g["outcome"],
        "winners": winners,
    }


# ----- the Throwdown ------------------------------------------------------------------------------


def initiative_entries(state: dict) -> list[dict]:
    """The two sealed plays of this Initiative round, in the order they were sealed."""
    sealed = state["throwdown"]["initiative"].values()
    return sorted((e for e in state["sealed"] if e["version"] in sealed), key=lambda e: e["version"])


def initiative_contest(state: dict) -> tuple[dict, str | None, bool]:
    """(cards by side, winning side or None, identical) of the sealed Initiative cards: rank, then suit."""
    cards = {side_of(e["seat"]): e["card"] for e in initiative_entries(state)}
    pc, cc = cards["pilots"], cards["coach"]
    identical = rank_then_suit(pc) == rank_then_suit(cc)
    winner = None if identical else ("pilots" if rank_then_suit(pc) > rank_then_suit(cc) else "coach")
    return cards, winner, identical


def initiative_call(state: dict, seat: str, caller: str, call_version: int | None) -> dict:
    """The bluff call the reveal of `seat`'s sealed Initiative card makes (either commander may call)."""
    version = state["throwdown"]["initiative"][side_of(seat)]
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


def initiative_resolved_public(state: dict) -> dict:
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


def flip_public(state: dict, dissonance: int) -> dict:
    """The public part of a Dissonance flip: the Coach Deck's top card, its value, and whether it is a Schism."""
    card = top_card(state, "coach")
    schism = card is not None and flip_value(card) <= dissonance
    return {
        "card": card,
        "value": None if card is None else flip_value(card),
        "dissonance": dissonance,
        "schism": schism,
        "pilot": state["throwdown"]["commander"],
    }


def question_public(state: dict, for_team: bool) -> dict:
    """The public part of the table's answer: the commander draws her Synch (for her Team) or her Solo."""
    commander = state["throwdown"]["commander"]
    gauge = state["team"][commander]
    return {"for_team": for_team, "commander": commander, "draws": gauge["synch"] if for_team else gauge["solo"]}


def stacks_public(state: dict) -> dict:
    """The public part of the Coach drawing his Threats' stacks: how many cards each held."""
    return {"counts": {t: len(c) for t, c in state["stacks"].items()}}


def drive_public(state: dict, kind: str, seat: str, card: str) -> dict:
    """The public part of a Counter, Escalate or Rumble: the card it goes over, the excess, Strike and Dissonance."""
    side = side_of(seat)
    over = top(state)["card"]
    stage = state["throwdown"]["stage"]
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


def blocked_public(state: dict, seat: str, card: str) -> dict:
    """The public part of a Block: the card blocked, what it was, and against an Escalate what is taken back."""
    td = state["throwdown"]
    entry = top(state)
    public = {"seat": seat, "side": side_of(seat), "card": card, "blocked": entry["card"], "against": entry["how"]}
    if entry["how"] == "escalate":
        esc = td["piles"][-1]["escalation"]
        public.update(stage_back_to=td["stage"] - 1, points_back=esc["points"], scorer=esc["scorer"])
    return public


def conceded_public(state: dict, seat: str) -> dict:
    """The public part of a Concede: the opposing side scores the current stage."""
    side = side_of(seat)
    return {"seat": seat, "side": side, "points": state["throwdown"]["stage"], "scorer": other_side(side)}


def throwdown_ended_public(state: dict) -> dict:
    """The public part of the Throwdown's end: more points wins (a tie: the side that did not concede)."""
    td = state["throwdown"]
    scores = dict(td["scores"])
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


def piles_public(state: dict) -> dict:
    """The public part of clearing the Piles: every card on them."""
    return {"cards": [e["card"] for p in state["throwdown"]["piles"] for e in p["cards"]]}


# ----- the verifier's hooks -----------------------------------------------------------------------


def derived_secret(state: dict, event: Event) -> dict | None:
    """The part of an event's secret that the state and chance fix; None when it is all a choice."""
    pub = event.public
    if event.secret is None:
        return None
    if event.kind in ("CardsDrawn", "ThreatStackDealt"):
        return drawn_secret(state, pub["deck"], pub["count"])
    if event.kind == "ThreatStacksDrawn":
        return stacks_secret(state)
    if event.kind == "ThresholdSealed":
        if pub["source"] == "deck":
            return sealed_secret(top_card(state, "coach"), "deck")
        return {"source": pub["source"]}
    if event.kind == "InitiativeSealed":
        return {"source": INITIATIVE_SOURCE}
    return None


def _short(state: dict, seat: str) -> int:
    return max_hand(state, seat) - len(state["hands"][seat])


def due_draw(state: dict, pub: dict) -> dict:
    """Who draws how many cards from which deck, and why, in a CardsDrawn the state expects now."""
    phase = state["phase"]
    if phase in ("setup", "resolving"):
        # The deal (pilots first) and the refill after the conflict fill each hand to its max in
        # turn, passing over a seat whose deck and Trash have run dry.
        order = [*state["pilots"], COACH] if phase == "setup" else state["seats"]
        seat = next(
            (s for s in order if _short(state, s) > 0 and draw_run(state, deck_for(s), _short(state, s)) > 0), None
        )
        why, wanted = ("deal" if phase == "setup" else "refill"), (_short(state, seat) if seat else 0)
    elif phase == "question":
        seat, why, wanted = state["throwdown"]["commander"], "free_card", 1
    elif phase in ("swap", "turns"):
        seat, why, wanted = state["throwdown"]["commander"], "bonus_draw", pub["count"]
    else:
        seat, why, wanted = pub["seat"], pub["why"], pub["count"]
    # With no seat short of cards the draw is judged against the Pilot Deck, where it may take none.
    deck = "pilot" if seat is None else deck_for(seat)
    return {"seat": seat, "deck": deck, "count": draw_run(state, deck, wanted), "why": why}


def derived_public(state: dict, event: Event) -> dict | None:
    """The part of an event's public record that the state and chance fix; None when it is all a choice."""
    kind, pub = event.kind, event.public
    if kind == "DeckShuffled":
        return shuffle_public(state, pub["deck"], shuffle_reason(state, pub["deck"]))
    if kind == "OmenRevealed":
        return {"card": omen_on_top(state, pub["deck"])}
    if kind == "CardsDrawn":
        return due_draw(state, pub)
    if kind == "ThreatStackDealt":
        wanted = state["config"]["threat_stacks"].get(pub["threat"], 0) - len(state["stacks"].get(pub["threat"], []))
        return {"seat": COACH, "deck": "coach", "count": draw_run(state, "coach", wanted), "why": "threat_stack"}
    if kind == "CardMilled":
        # Only a +Tarry mills, and only the Coach Deck.
        return {"deck": "coach", "card": top_card(state, "coach"), "why": "tarry"}
    if kind == "ConflictStarted":
        return conflict_started_public(state)
    if kind == "TriggerResolved":
        return resolving_public(state["queue"][0]) if state["queue"] else {"trigger": None}
    if kind == "OmenSpent":
        return {"deck": deck_for(pub["seat"])}
    if kind == "CleanupStarted":
        return cleanup_public(state)
    if kind == "ThresholdSealed":
        return {"seat": COACH, "sealed_play": "threshold"}
    if kind == "PilotCardPlayed":
        pilot = state["gambit"]["pilot"]
        return {"seat": pilot, "card": top_card(state, "pilot")} if pub["source"] == "deck" else {"seat": pilot}
    if kind == "ThresholdRevealed":
        return {"seat": COACH, "card": threshold_call(state, event.version)["card"]}
    if kind == "OutcomeChosen":
        return {"seat": state["gambit"]["pilot"], "lesson": earns_lesson(state, pub["outcome"])}
    if kind == "BoonPicked":
        return {"seat": state["gambit"]["pilot"], "times": times(state)}
    if kind == "ComplicationNamed":
        return {"seat": COACH, "target": state["gambit"]["pilot"], "times": times(state)}
    if kind == "GambitResolved":
        return gambit_resolved_public(state)
    return _throwdown_public(state, event)


def _throwdown_public(state: dict, event: Event) -> dict | None:
    kind, pub = event.kind, event.public
    if kind == "InitiativeSealed":
        return {"sealed_play": "initiative"}
    if kind == "InitiativeRevealed":
        version = state["throwdown"]["initiative"][side_of(pub["seat"])]
        return {"card": next((e["card"] for e in state["sealed"] if e["version"] == version), None)}
    if kind == "InitiativeResolved":
        return initiative_resolved_public(state)
    if kind == "DissonanceFlipped":
        return flip_public(state, pub["dissonance"])
    if kind == "QuestionAnswered":
        return question_public(state, pub["for_team"])
    if kind == "ThreatStacksDrawn":
        return stacks_public(state)
    if kind in ("CardsGiven", "CardsReturned"):
        # Gifts go to the commander and returns come from her; the count restates the (opened) secret.
        commander = state["throwdown"]["commander"]
        public = {"to": commander} if kind == "CardsGiven" else {"seat": commander}
        cards = (event.secret or {}).get("cards")
        return public if cards is None else {**public, "count": len(cards)}
    if kind == "ThreatAssisted":
        return {"kind": threat_assist_kind(pub["card"])}
    if kind in ("Countered", "Escalated", "Rumbled", "Blocked", "Conceded"):
        seat = driver(state, state["throwdown"]["turn"])
        if kind == "Blocked":
            return blocked_public(state, seat, pub["card"])
        if kind == "Conceded":
            return conceded_public(state, seat)
        return drive_public(state, kind, seat, pub["card"])
    if kind == "ThrowdownEnded":
        return throwdown_ended_public(state)
    if kind == "PilesCleared":
        return piles_public(state)
    return None
