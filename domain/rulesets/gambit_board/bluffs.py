"""Bluff calls in gambit-board: adjudicating a call and the ruling record it gives.

A call is judged against the hidden powers as they stood when the claim was made — nothing can
change a power between a claim and its answer, so that is the current state. The ruling rests on
the claimed slot's newest commitment (commitments.py): opened to everyone when the claim was
true, sealed evidence when it was false; its own secret holds what the piece held. Folding a
ruling is state.py's; re-judging a recorded one, readjudicate.py's.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import TYPE_CHECKING

from domain.ruleset import Event, RuleViolation

from .board import locate, neighbours, shape, undo_move
from .commitments import evidence_version, piece_slots, slot_version
from .flow import opponent, pending_of, pending_plan, pieces_of, seat_of
from .powers import POWER_TYPES, SENSEI, held

if TYPE_CHECKING:
    from .payloads import Plan
    from .shapes import BoardState

# What the call decides about the claimed effect, by (what was claimed, verdict).
EFFECTS = {
    ("move", True): "move_stands",
    ("detect", True): "detect_stands",
    ("moat", True): "move_sent_back",
    ("kamikaze", True): "sitter_removed",
    ("detect", False): "detect_void",
    ("moat", False): "claim_void",
    ("kamikaze", False): "claim_void",
    ("sensei", True): "transfer_stands",
    ("sensei", False): "transfer_void",
}


def called_claim(state: BoardState, claim: str) -> dict:
    """The claim a call names (the counter-claim if one is awaiting an answer); RuleViolation if not made."""
    pending = pending_of(state)
    counter = pending["counter"]
    if counter is not None:
        if claim != counter["kind"]:
            raise RuleViolation("claim_not_made", f"the claim awaiting your answer is {counter['kind']}, not {claim!r}")
        return {
            "subject": counter["kind"],
            "version": counter["version"],
            "seat": counter["seat"],
            "piece": counter["piece"],
        }
    if claim not in pending["claims"]:
        raise RuleViolation("claim_not_made", f"{claim!r} was not claimed (claims: {pending['claims']})")
    return {
        "subject": pending["kind"],
        "version": pending["version"],
        "seat": pending["seat"],
        "piece": pending["piece"],
    }


def claimed_powers(state: BoardState, claim: str) -> list[str]:
    """The powers a call on `claim` tests: the claimed power, or every power a Sensei transfer names."""
    return list(pending_of(state)["powers"]) if claim == SENSEI else [claim]


def claim_is_true(state: BoardState, piece: str, claim: str) -> bool:
    """Whether the piece holds every power the called claim rests on (now: nothing changes before the answer)."""
    record = state["powers"][piece]
    return all(record[POWER_TYPES[p]] == p for p in claimed_powers(state, claim))


def _opposing_moat_near(state: BoardState, seat: str, square: str) -> bool:
    """Whether an opposing piece that holds `moat` stands next to `square` (sat on or not: a sat-on moat protects)."""
    where = locate(state["board"])
    return any(
        seat_of(p) != seat and state["powers"][p]["action"] == "moat" and where[p][0] in neighbours(square)
        for p in where
    )


# Whether the move as made needed each power (rules page, "What a false claim undoes", "Ghost and
# moats"): judged on the plan that was applied, never on another way to reach the same square.
_NEEDED: dict[str, Callable[[BoardState, Plan, dict, dict], bool]] = {
    "bulldozer": lambda state, plan, made, before: plan["push"] is not None,
    "sitting": lambda state, plan, made, before: plan["sat_on"] is not None,
    "diagonal": lambda state, plan, made, before: made["diagonal"],
    "sidewinder": lambda state, plan, made, before: made["wrapped"],
    "ghost": lambda state, plan, made, before: (
        made["passed"] in before or _opposing_moat_near(state, pending_of(state)["seat"], plan["to"])
    ),
}


def move_needed(state: BoardState, power: str) -> bool:
    """Whether the pending move, as it was made, needed `power` (a false claim of it then undoes the move)."""
    plan = pending_plan(state)
    before = copy.deepcopy(state["board"])
    undo_move(before, plan)
    return _NEEDED[power](state, plan, shape(plan["from"], plan["to"]), before)


def loss_chooser(state: BoardState, loser: str) -> str:
    """Who picks the lost piece: the loser, or the other seat with `loss_choice: winner`."""
    return loser if state["config"]["loss_choice"] == "loser" else opponent(loser)


def ruling_call(state: BoardState, caller: str, claim: str, call_version: int | None) -> dict:
    """The `bluff_call` of a ruling on `claim`: whose claim it was, the verdict and its consequences."""
    target = called_claim(state, claim)
    claimant, piece, subject = target["seat"], target["piece"], target["subject"]
    true = claim_is_true(state, piece, claim)
    loser = caller if true else claimant
    effect = EFFECTS.get((subject, true)) or ("move_undone" if move_needed(state, claim) else "move_stands")
    revealed = true and subject != SENSEI  # a true Sensei transfer stands: nothing is stripped or reassigned
    consequences = {
        "piece_lost_by": loser,
        "loss_chosen_by": loss_chooser(state, loser),
        "effect": effect,
        "move_undone": effect in ("move_undone", "move_sent_back"),
        "power_revealed": claim if revealed else None,
        "reassignment_by": claimant if revealed else None,
    }
    if effect == "sitter_removed":
        sitter = pending_of(state)["piece"]
        consequences["sitter_removed"] = sitter
        consequences["sitter_powers"] = held(state["powers"][sitter])
    first = claimed_powers(state, claim)[0]
    call = {
        "claim_version": target["version"],
        "claimant": claimant,
        "piece": piece,
        "power": claim,
        "subject": subject,
        "caller": caller,
        "call_version": call_version,
        "verdict": "true" if true else "false",
        "consequences": consequences,
        "evidence_version": evidence_version(state, claimant, piece, POWER_TYPES[first]),
    }
    if subject == SENSEI:
        pending = pending_of(state)
        call["transfer"] = {"from": piece, "to": pending["target"], "powers": list(pending["powers"])}
    return call


def ruling_truth(state: BoardState, claim: str) -> dict:
    """The secret of a ruling on `claim`: what the claimed piece held and the claimant's whole assignment."""
    target = called_claim(state, claim)
    return {
        "held": dict(state["powers"][target["piece"]]),
        "assignment": {p: dict(state["powers"][p]) for p in pieces_of(target["seat"])},
    }


def ruling_evidence(state: BoardState, call: dict) -> dict:
    """What a ruling opens to everyone (`opens`) and what it keeps sealed as evidence (`evidence`).

    The call rests on the claimed slot's commitment (each named slot's, for a Sensei transfer). A
    true claim shows the claimed powers to everyone, so those slots are opened; a false one must not
    show what the piece really holds, so they are sealed evidence (organizers, everyone after the
    end). A sitter a true kamikaze removes is a lost piece, whose powers are shown: its slots are
    opened too.
    """
    powers = call["transfer"]["powers"] if call["subject"] == SENSEI else [call["power"]]
    slots = tuple(slot_version(state, call["piece"], POWER_TYPES[p]) for p in powers)
    if None in slots:
        # A match recorded before slots were committed one by one rests on a whole assignment,
        # which is never revealed during play.
        return {"evidence": (call["evidence_version"],)}
    if call["verdict"] != "true":
        return {"evidence": slots}
    sitter = call["consequences"].get("sitter_removed")
    return {"opens": slots + (piece_slots(state, sitter) if sitter else ())}


def ruling(state: BoardState, caller: str, claim: str, call_version: int | None) -> Event:
    """The `BluffRuled` record of a call on `claim`, recorded at `call_version`: verdict, truth and evidence."""
    call = ruling_call(state, caller, claim, call_version)
    return Event(
        "BluffRuled",
        {"bluff_call": call},
        secret=ruling_truth(state, claim),
        audience=(),
        **ruling_evidence(state, call),
    )
