"""The secrets of gattai-conflict and the public parts the state fixes, built once for decide/setup and the verifier.

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

from . import cards as C
from .commands import COACH
from .state import side_of
from .team import max_hand

INITIATIVE_SOURCE = "hand"


def stacks_secret(state: dict) -> dict:
    """A ThreatStacksDrawn secret: the cards on every Threat's stack, in Threat order."""
    return {"cards": [card for cards in state["stacks"].values() for card in cards]}


def sealed_secret(card: str, source: str) -> dict:
    """A sealed play's secret: the card and where its seat claims it came from."""
    return {"card": card, "source": source}


def derived_secret(state: dict, event: Event) -> dict | None:
    """The part of an event's secret that the state and chance fix; None when it is all a choice."""
    pub = event.public
    if event.secret is None:
        return None
    if event.kind in ("CardsDrawn", "ThreatStackDealt"):
        return C.drawn_secret(state, pub["deck"], pub["count"])
    if event.kind == "ThreatStacksDrawn":
        return stacks_secret(state)
    if event.kind == "ThresholdSealed":
        if pub["source"] == "deck":
            return sealed_secret(C.top_card(state, "coach"), "deck")
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
        seat = next((s for s in order if _short(state, s) > 0
                     and C.draw_run(state, C.deck_for(s), _short(state, s)) > 0), None)
        why, wanted = ("deal" if phase == "setup" else "refill"), (_short(state, seat) if seat else 0)
    elif phase == "question":
        seat, why, wanted = state["throwdown"]["commander"], "free_card", 1
    elif phase in ("swap", "turns"):
        seat, why, wanted = state["throwdown"]["commander"], "bonus_draw", pub["count"]
    else:
        seat, why, wanted = pub["seat"], pub["why"], pub["count"]
    deck = C.deck_for(seat)
    return {"seat": seat, "deck": deck, "count": C.draw_run(state, deck, wanted), "why": why}


def derived_public(state: dict, event: Event) -> dict | None:
    """The part of an event's public record that the state and chance fix; None when it is all a choice."""
    # The decide-side modules import this one, so their builders are imported when first needed.
    from . import flow, gambit, throwdown
    kind, pub = event.kind, event.public
    if kind == "DeckShuffled":
        return C.shuffle_public(state, pub["deck"], C.shuffle_reason(state, pub["deck"]))
    if kind == "OmenRevealed":
        return {"card": C.omen_on_top(state, pub["deck"])}
    if kind == "CardsDrawn":
        return due_draw(state, pub)
    if kind == "ThreatStackDealt":
        wanted = state["config"]["threat_stacks"].get(pub["threat"], 0) - len(state["stacks"].get(pub["threat"], []))
        return {"seat": COACH, "deck": "coach", "count": C.draw_run(state, "coach", wanted), "why": "threat_stack"}
    if kind == "CardMilled":
        # Only a +Tarry mills, and only the Coach Deck.
        return {"deck": "coach", "card": C.top_card(state, "coach"), "why": "tarry"}
    if kind == "ConflictStarted":
        return flow.started_public(state)
    if kind == "TriggerResolved":
        return flow.resolving_public(state["queue"][0]) if state["queue"] else {"trigger": None}
    if kind == "OmenSpent":
        return {"deck": C.deck_for(pub["seat"])}
    if kind == "CleanupStarted":
        return flow.cleanup_public(state)
    if kind == "ThresholdSealed":
        return {"seat": COACH, "sealed_play": "threshold"}
    if kind == "PilotCardPlayed":
        pilot = state["gambit"]["pilot"]
        return {"seat": pilot, "card": C.top_card(state, "pilot")} if pub["source"] == "deck" else {"seat": pilot}
    if kind == "ThresholdRevealed":
        return {"seat": COACH, "card": gambit.threshold_call(state, event.version)["card"]}
    if kind == "OutcomeChosen":
        return {"seat": state["gambit"]["pilot"], "lesson": gambit.earns_lesson(state, pub["outcome"])}
    if kind == "BoonPicked":
        return {"seat": state["gambit"]["pilot"], "times": gambit.times(state)}
    if kind == "ComplicationNamed":
        return {"seat": COACH, "target": state["gambit"]["pilot"], "times": gambit.times(state)}
    if kind == "GambitResolved":
        return gambit.resolved_public(state)
    return _throwdown_public(state, event, throwdown)


def _throwdown_public(state: dict, event: Event, throwdown) -> dict | None:
    kind, pub = event.kind, event.public
    if kind == "InitiativeSealed":
        return {"sealed_play": "initiative"}
    if kind == "InitiativeRevealed":
        version = state["throwdown"]["initiative"][side_of(pub["seat"])]
        return {"card": next((e["card"] for e in state["sealed"] if e["version"] == version), None)}
    if kind == "InitiativeResolved":
        return throwdown.initiative_resolved_public(state)
    if kind == "DissonanceFlipped":
        return throwdown.flip_public(state, pub["dissonance"])
    if kind == "QuestionAnswered":
        return throwdown.question_public(state, pub["for_team"])
    if kind == "ThreatStacksDrawn":
        return throwdown.stacks_public(state)
    if kind in ("CardsGiven", "CardsReturned"):
        # Gifts go to the commander and returns come from her; the count restates the (opened) secret.
        commander = state["throwdown"]["commander"]
        public = {"to": commander} if kind == "CardsGiven" else {"seat": commander}
        cards = (event.secret or {}).get("cards")
        return public if cards is None else {**public, "count": len(cards)}
    if kind == "ThreatAssisted":
        return {"kind": throwdown.threat_assist_kind(pub["card"])}
    if kind in ("Countered", "Escalated", "Rumbled", "Blocked", "Conceded"):
        seat = throwdown.driver(state, state["throwdown"]["turn"])
        if kind == "Blocked":
            return throwdown.blocked_public(state, seat, pub["card"])
        if kind == "Conceded":
            return throwdown.conceded_public(state, seat)
        return throwdown.drive_public(state, kind, seat, pub["card"])
    if kind == "ThrowdownEnded":
        return throwdown.ended_public(state)
    if kind == "PilesCleared":
        return throwdown.piles_public(state)
    return None
