"""The secrets of gattai-conflict, built in one place for `decide`/`setup` and for the verifier.

Which part of each secret the rules fix (`derived_secret`), and which is a seat's choice:
- DeckShuffled: its secret is the chance result itself, which the verifier re-derives.
- CardsDrawn, ThreatStackDealt: the cards on top of the deck (a draw never passes a Joker).
- ThreatStacksDrawn: every card invested on the Coach's Threats, Threat by Threat.
- ThresholdSealed: a blind Threshold is the top of the Coach Deck; one from hand is the Coach's
  choice. Either way the claimed source is the one the record states publicly.
- InitiativeSealed: the card is the commander's choice; its source is always the hand.
- CardsGiven, CardsReturned: which cards change hands is the giving seat's choice.
"""

from __future__ import annotations

from domain.ruleset import Event

from . import cards as C

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
