"""Bluff calls in gambit-board: adjudicating a call (decide side) and applying the ruling (evolve side).

A call is judged against the hidden powers as they stood when the claim was made — nothing can
change a power between a claim and its answer, so that is the current state. The ruling rests on
the claimed slot's newest commitment (commitments.py): opened to everyone when the claim was
true, sealed evidence when it was false; its own secret holds what the piece held.
"""

from __future__ import annotations

import copy

from domain.ruleset import Event, RuleViolation, chance_event

from . import board as geo
from .flow import advance, check_winner, lose_piece, opponent, pieces_of, send_back
from .commitments import evidence_version, piece_slots, slot_version
from .powers import DIE_SIDES, held, power_type

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
    geo.undo_move(board, plan)
    rest = [c for c in plan["claims"] if c != power]
    try:
        geo.plan_move(board, geo.impassable(state["config"]["board"]), plan["piece"], plan["from"], plan["to"], rest)
    except RuleViolation:
        return True
    return False


def loss_chooser(state: dict, loser: str) -> str:
    """Who picks the lost piece: the loser, or the other seat with `loss_choice: winner`."""
    return loser if state["config"]["loss_choice"] == "loser" else opponent(loser)


def ruling_call(state: dict, caller: str, claim: str, call_version: int) -> dict:
    """The `bluff_call` of a ruling on `claim`: whose claim it was, the verdict and its consequences."""
    target = called_claim(state, claim)
    claimant, piece, subject = target["seat"], target["piece"], target["subject"]
    record = state["powers"][piece]
    true = record[power_type(claim)] == claim
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
        "consequences": consequences, "evidence_version": evidence_version(state, claimant, piece, power_type(claim)),
    }


def rule_call(state: dict, caller: str, claim: str, chance) -> list[Event]:
    """The events of a bluff call: the ruling, plus a detect's result or a reassignment die."""
    # The call and its ruling are one record: the first event of this decision, whose version the
    # match tells through the chance source (match records such as disputes may come between).
    call_version = chance.version if chance.version is not None else state["version"] + 1
    call = ruling_call(state, caller, claim, call_version)
    true = call["verdict"] == "true"
    ruling = Event("BluffRuled", {"bluff_call": call}, secret=ruling_truth(state, claim), audience=(),
                   **ruling_evidence(state, call))
    events = [ruling]
    if true and call["subject"] == "detect":
        events.append(detection(state, state["pending"]))
    if true and state["config"]["power_mode"] == "roll":
        after = apply_ruling(copy.deepcopy(state), Event(ruling.kind, ruling.public, version=call_version))
        public = reassignment_roll_public(after)
        if after["result"] is None and public is not None:
            drawn = chance.roll("reassignment", public["chance"]["n"])
            events.append(chance_event("ReassignmentDieRolled", drawn,
                                       {k: v for k, v in public.items() if k != "chance"},
                                       hidden_from_all_but=(call["claimant"],)))
    return events


def ruling_evidence(state: dict, call: dict) -> dict:
    """What a ruling opens to everyone (`opens`) and what it keeps sealed as evidence (`evidence`).

    The call rests on the claimed slot's commitment. A true claim reveals that power to everyone,
    so the slot is opened; a false one must not show what the piece really holds, so the slot is
    sealed evidence (organizers, everyone after the end). A sitter a true kamikaze removes is a
    lost piece, whose powers are shown: its slots are opened too.
    """
    slot = slot_version(state, call["piece"], power_type(call["power"]))
    if slot is None:
        # A match recorded before slots were committed one by one rests on a whole assignment,
        # which is never revealed during play.
        return {"evidence": (call["evidence_version"],)}
    if call["verdict"] != "true":
        return {"evidence": (slot,)}
    sitter = call["consequences"].get("sitter_removed")
    return {"opens": (slot,) + (piece_slots(state, sitter) if sitter else ())}


def reassignment_roll_public(state: dict) -> dict | None:
    """The public part of the die a true claim's reassignment waits for (after the ruling): who rolls, for what."""
    for step in [state["step"]] + state["queue"]:
        if step is not None and step["kind"] == "reassign" and step["roll"] is None:
            return {"seat": step["seat"], "power_type": step["type"], "call_version": step["call_version"],
                    "chance": {"draw": "roll", "n": DIE_SIDES}}
    return None


def ruling_truth(state: dict, claim: str) -> dict:
    """The secret of a ruling on `claim`: what the claimed piece held and the claimant's whole assignment."""
    target = called_claim(state, claim)
    return {"held": dict(state["powers"][target["piece"]]),
            "assignment": {p: dict(state["powers"][p]) for p in pieces_of(target["seat"])}}


def detected_powers(state: dict, target: str) -> dict:
    """The secret of a detect that stands: the target piece's current powers."""
    return {"target": target, "powers": dict(state["powers"][target])}


def detection(state: dict, pending: dict) -> Event:
    """The private result of a detect that stands: the target's current powers, for the detecting seat."""
    target = pending["target"]
    return Event("PowersDetected", {"seat": pending["seat"], "piece": pending["piece"], "target": target,
                                    "detect_version": pending["version"]},
                 secret=detected_powers(state, target), audience=(pending["seat"],))


def apply_ruling(state: dict, event: Event) -> dict:
    """Fold a ruling: reveal and strip a true power or undo a false move, then owe the loss (and reassignment)."""
    call = event.public["bluff_call"]
    cons = call["consequences"]
    version = event.version
    state["rulings"].append({**copy.deepcopy(call), "version": version})
    loss = {"kind": "lose", "seat": cons["loss_chosen_by"], "loser": cons["piece_lost_by"], "call_version": version}
    effect = cons["effect"]
    if call["verdict"] == "true":
        kind = power_type(call["power"])
        state["powers"][call["piece"]][kind] = None
        state["revealed"].append({"piece": call["piece"], "powers": [call["power"]], "reason": "true_claim",
                                  "version": version})
        reassign = {"kind": "reassign", "seat": call["claimant"], "type": kind, "roll": None, "call_version": version}
        state["queue"] = [loss, reassign, {"kind": "retry" if effect == "move_sent_back" else "end_turn"}]
        if effect == "move_sent_back":
            send_back(state)
        elif effect == "sitter_removed":
            lose_piece(state, cons["sitter_removed"], "kamikaze", version)
    else:
        if cons["move_undone"]:
            geo.undo_move(state["board"], state["pending"]["plan"])
        state["queue"] = [loss, {"kind": "end_turn"}]
    state["pending"] = None
    if effect == "sitter_removed" and check_winner(state):
        return state
    advance(state)
    return state


def readjudicate(state: dict, event: Event) -> dict:
    """The verdict the rules give for a recorded ruling, from the hidden powers in `state`.

    An offline verifier replays every assignment, so `state` holds the truth at the claim (no
    power changes between a claim and its call); it compares this with the recorded ruling.
    """
    call = event.public["bluff_call"]
    kind = power_type(call["power"])
    true = state["powers"][call["piece"]][kind] == call["power"]
    return {"verdict": "true" if true else "false",
            "evidence_version": evidence_version(state, call["claimant"], call["piece"], kind)}
