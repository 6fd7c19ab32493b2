"""A type call's ruling: what the rules make of a declared type before a Reveal.

`resolution.py` puts the ruling in the `bluff_call` of the SetCardRevealed it emits; the
verifier calls `readjudicate` with the replayed state to re-derive it from the set card.
"""

from __future__ import annotations

from domain.ruleset import Event

from .cards import CARDS
from .shapes import TcgState, set_entry


def returns_to_hand(effect: dict, target_type: str) -> bool:
    """Whether a Reveal sends the revealed card back to its owner's hand (Unmasking Light on a trap)."""
    return effect.get("return_if_type") == target_type


def type_call_ruling(state: TcgState, effect: dict, target: str, declared_type: str) -> dict:
    """What the rules make of a declared type before a Reveal: the verdict, evidence and consequences."""
    owner, entry = set_entry(state, target)
    target_id = state["cards"][target]
    target_type = CARDS[target_id]["type"]
    right = declared_type == target_type
    return {
        "claim_version": entry["set_version"],
        "claimant": owner,
        "verdict": "true" if right else "false",
        "actual_type": target_type,
        "card": target,
        "card_id": target_id,
        "evidence_version": entry["set_version"],
        "consequences": {
            "life_gained": effect.get("life_if_right", 0) if right else 0,
            "revealed": target,
            "returned_to_hand": returns_to_hand(effect, target_type),
        },
    }


def _declaring_reveal(effects: list[dict]) -> dict | None:
    """The Reveal effect that asks for a declared type, among `effects` and what they lead to."""
    for effect in effects:
        if effect["do"] == "reveal" and effect.get("declare_type"):
            return effect
        found = _declaring_reveal(effect.get("then", []))
        if found is not None:
            return found
    return None


def readjudicate(state: TcgState, event: Event) -> dict:
    """The ruling the rules give for a recorded type call, from the set card in `state` (for a verifier)."""
    call = event.public["bluff_call"]
    effect = _declaring_reveal(CARDS[state["cards"][call["source"]]]["effects"])
    if effect is None:
        raise ValueError(f"{call['source']!r} declares no type")
    return type_call_ruling(state, effect, call["card"], call["declared_type"])
