"""Bluff calls in gambit-board: adjudicating a call and the ruling record it gives.

A call is judged against the hidden powers as they stood when the claim was made — nothing can
change a power between a claim and its answer, so that is the current state. The ruling rests on
the claimed slot's newest commitment (commitments.py): opened to everyone when the claim was
true, sealed evidence when it was false; its own secret holds what the piece held. Folding a
ruling is state.py's; re-judging a recorded one, readjudicate.py's.
"""

from __future__ import annotations

import copy

from domain.ruleset import Event, RuleViolation

from .board import impassable, plan_move, undo_move
from .commitments import evidence_version, piece_slots, slot_version
from .flow import opponent, pieces_of
from .powers import POWER_TYPES, held

# What the call decides about the claimed effect, by (what was claimed, verdict).
EFFECTS = {
    ("move", True): "move_stands", ("detect", True): "detect_stands",
    ("moat", True): "move_sent_back", ("kamikaze", True): "sitter_removed",
    ("detect", False): "detect_void", ("moat", False): "claim_void", ("kamikaze", False): "claim_void",
}


def called_claim(state: dict, claim: str) -> dict:
    """The claim a call names (the counter-claim if one is awaiting an answer); RuleViolation if not made."""
    pending = state["pending"]
    counter = pending["counter"]
    if counter is not None:
        if claim != counter["kind"]:
            raise RuleViolation("claim_not_made", f"the claim awaiting your answer is {counter['kind']}, not {claim!r}")
        return {"subject": counter["kind"], "version": counter["version"], "seat": counter["seat"],
                "piece": counter["piece"]}
    if claim not in pending["claims"]:
        raise RuleViolation("claim_not_made", f"{claim!r} was not claimed (claims: {pending['claims']})")
    return {"subject": pending["kind"], "version": pending["version"], "seat": pending["seat"], "piece": pending["piece"]}


def move_needed(state: dict, power: str) -> bool:
    """Whether the pending move is geometrically illegal without `power` (a false claim then undoes it)."""
    plan = state["pending"]["plan"]
    board = copy.deepcopy(state["board"])
    undo_move(board, plan)
    rest = [c for c in plan["claims"] if c != power]
    try:
        plan_move(board, impassable(state["config"]["board"]), plan["piece"], plan["from"], plan["to"], rest)
    except RuleViolation:
        return True
    return False


def loss_chooser(state: dict, loser: str) -> str:
    """Who picks the lost piece: the loser, or the other seat with `loss_choice: winner`."""
    return loser if state["config"]["loss_choice"] == "loser" else opponent(loser)


def ruling_call(state: dict, caller: str, claim: str, call_version: int | None) -> dict:
    """The `bluff_call` of a ruling on `claim`: whose claim it was, the verdict and its consequences."""
    target = called_claim(state, claim)
    claimant, piece, subject = target["seat"], target["piece"], target["subject"]
    record = state["powers"][piece]
    true = record[POWER_TYPES[claim]] == claim
    loser = caller if true else claimant
    effect = EFFECTS.get((subject, true)) or ("move_undone" if move_needed(state, claim) else "move_stands")
    consequences = {
        "piece_lost_by": loser, "loss_chosen_by": loss_chooser(state, loser), "effect": effect,
        "move_undone": effect in ("move_undone", "move_sent_back"),
        "power_revealed": claim if true else None, "reassignment_by": claimant if true else None,
    }
    if effect == "sitter_removed":
        sitter = state["pending"]["piece"]
        consequences["sitter_removed"] = sitter
        consequences["sitter_powers"] = held(state["powers"][sitter])
    return {
        "claim_version": target["version"], "claimant": claimant, "piece": piece, "power": claim, "subject": subject,
        "caller": caller, "call_version": call_version, "verdict": "true" if true else "false",
        "consequences": consequences, "evidence_version": evidence_version(state, claimant, piece, POWER_TYPES[claim]),
    }


def ruling_truth(state: dict, claim: str) -> dict:
    """The secret of a ruling on `claim`: what the claimed piece held and the claimant's whole assignment."""
    target = called_claim(state, claim)
    return {"held": dict(state["powers"][target["piece"]]),
            "assignment": {p: dict(state["powers"][p]) for p in pieces_of(target["seat"])}}


def ruling_evidence(state: dict, call: dict) -> dict:
    """What a ruling opens to everyone (`opens`) and what it keeps sealed as evidence (`evidence`).

    The call rests on the claimed slot's commitment. A true claim reveals that power to everyone,
    so the slot is opened; a false one must not show what the piece really holds, so the slot is
    sealed evidence (organizers, everyone after the end). A sitter a true kamikaze removes is a
    lost piece, whose powers are shown: its slots are opened too.
    """
    slot = slot_version(state, call["piece"], POWER_TYPES[call["power"]])
    if slot is None:
        # A match recorded before slots were committed one by one rests on a whole assignment,
        # which is never revealed during play.
        return {"evidence": (call["evidence_version"],)}
    if call["verdict"] != "true":
        return {"evidence": (slot,)}
    sitter = call["consequences"].get("sitter_removed")
    return {"opens": (slot,) + (piece_slots(state, sitter) if sitter else ())}


def ruling(state: dict, caller: str, claim: str, call_version: int | None) -> Event:
    """The `BluffRuled` record of a call on `claim`, recorded at `call_version`: verdict, truth and evidence."""
    call = ruling_call(state, caller, claim, call_version)
    return Event("BluffRuled", {"bluff_call": call}, secret=ruling_truth(state, claim), audience=(),
                 **ruling_evidence(state, call))
