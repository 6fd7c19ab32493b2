"""gambit-board's event kinds (`EVENTS`) and their parts, built once for `decide`/`setup` and for the verifier hooks.

Each kind's fields and types are declared in payloads.py (a module the rest of the package can
import without a cycle); `EVENTS` gathers them for the fold (state.py), the conformance kit and
the spec. Each builder gives what the state fixes of one event kind (the ruling's parts are bluffs.py's,
the slot records' commitments.py's); `derived_secret` and `derived_public` return the same parts
for a recorded event, so the verifier holds every record to what the rules would have written.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from domain.event_types import EventTypes
from domain.ruleset import Event, RuleViolation

from .bluffs import ruling_call, ruling_truth
from .board import COLUMNS, impassable, locate, neighbours, plan_move
from .commitments import COMMITTED, committed_public, piece_slots, slot_secret
from .flow import SEATS, on_board, opponent, pending_of, pieces_of, step_of, winner
from .payloads import (
    BluffRuled,
    BoardSetUp,
    ClaimAccepted,
    DetectClaimed,
    FirstSeatDrawn,
    JuggernautDeclined,
    JuggernautOffered,
    KamikazeAccepted,
    KamikazeClaimed,
    MagicianSwapped,
    MatchWon,
    MoatAccepted,
    MoatClaimed,
    PieceLost,
    PieceMoved,
    PlayerPowerChosen,
    PlayerPowerEarned,
    PowerCommitted,
    PowerDieRolled,
    PowerReassigned,
    PowersAssigned,
    PowersDetected,
    ReassignmentDieRolled,
    Resigned,
    SenseiClaimed,
    WitchDoctorSwapped,
)
from .player_powers import earned_public, juggernaut_public, magician_public, witch_doctor_public, witch_doctor_secret
from .powers import DIE_SIDES, held, next_power_die

if TYPE_CHECKING:
    from .shapes import BoardState


MATCH_WON = "MatchWon"

# Every kind gambit-board records (declared in payloads.py), in the order play meets them.
EVENTS = EventTypes(
    FirstSeatDrawn,
    PowerDieRolled,
    BoardSetUp,
    PowersAssigned,
    PieceMoved,
    DetectClaimed,
    ClaimAccepted,
    MoatAccepted,
    KamikazeAccepted,
    PowersDetected,
    MoatClaimed,
    KamikazeClaimed,
    BluffRuled,
    ReassignmentDieRolled,
    PieceLost,
    PowerReassigned,
    PowerCommitted,
    PlayerPowerEarned,
    PlayerPowerChosen,
    SenseiClaimed,
    MagicianSwapped,
    WitchDoctorSwapped,
    JuggernautOffered,
    JuggernautDeclined,
    MatchWon,
    Resigned,
)


def first_seat_public(index: int) -> dict:
    """The public part of drawing the first seat: the seats drawn from and the one drawn."""
    return {"seats": list(SEATS), "first_seat": SEATS[index]}


def board_public(config: Mapping[str, Any], first_seat: str) -> dict:
    """The public part of setting the board up: who opens, the board, its impassable squares, the home rows."""
    return {
        "first_seat": first_seat,
        "board": config["board"],
        "impassable": sorted(impassable(config["board"])),
        "pieces": {f"{c}{r}": f"{'S' if r == 1 else 'N'}{i + 1}" for i, c in enumerate(COLUMNS) for r in (1, 6)},
    }


def rolled_dice(state: BoardState, seat: str) -> dict:
    """The part of an assignment's secret restating the seat's rolled power dice ({} in select mode)."""
    dice = state["dice"][seat]
    if not dice:
        return {}
    return {"dice": {"movement": list(dice["movement"]), "action": list(dice["action"])}}


def needs_response(state: BoardState, plan: Mapping[str, Any], seat: str) -> bool:
    """A move with no claims, ending next to no opposing piece and on no piece, needs no answer."""
    if plan["claims"] or plan["sat_on"] is not None:
        return True
    # Without claims nothing is pushed, so the opposing pieces stand where they stood before the move.
    where = locate(state["board"])
    return any(where.get(p, (None,))[0] in neighbours(plan["to"]) for p in on_board(state, opponent(seat)))


def moved_public(state: BoardState, seat: str, plan: Mapping[str, Any]) -> dict:
    """The public part of a move: its plan and whether the other seat gets to answer it."""
    return {"seat": seat, "plan": plan, "needs_response": needs_response(state, plan, seat)}


def replanned(state: BoardState, plan: Mapping[str, Any]) -> dict | None:
    """The plan the rules give for a recorded move's piece, destination and claims; None when none is legal."""
    where = locate(state["board"]).get(plan["piece"])
    if where is None:
        return None
    try:
        return plan_move(
            state["board"],
            impassable(state["config"]["board"]),
            plan["piece"],
            where[0],
            plan["to"],
            tuple(plan["claims"]),
        )
    except RuleViolation:
        return None


def acceptance(state: BoardState, seat: str) -> Event:
    """The event of accepting what awaits an answer: the claim, or the moat or kamikaze countering it."""
    pending = pending_of(state)
    counter = pending["counter"]
    if counter is None:
        return Event("ClaimAccepted", {"seat": seat, "claim_version": pending["version"]})
    if counter["kind"] == "moat":
        return Event(
            "MoatAccepted", {"seat": seat, "claim_version": counter["version"], "moat_piece": counter["piece"]}
        )
    sitter = pending["piece"]
    # The sitter is lost and its powers shown: its slot commitments are revealed with it.
    return Event(
        "KamikazeAccepted",
        {
            "seat": seat,
            "claim_version": counter["version"],
            "sitter": sitter,
            "kamikaze_piece": counter["piece"],
            "sitter_powers": held(state["powers"][sitter]),
        },
        opens=piece_slots(state, sitter),
    )


def detected_powers(state: BoardState, target: str) -> dict:
    """The secret of a detect that stands: the target piece's current powers."""
    return {"target": target, "powers": dict(state["powers"][target])}


def detection(state: BoardState, claim: Mapping[str, Any]) -> Event:
    """The private result of a detect that stands: the target's current powers, for the detecting seat."""
    target = claim["target"]
    return Event(
        "PowersDetected",
        {"seat": claim["seat"], "piece": claim["piece"], "target": target, "detect_version": claim["version"]},
        secret=detected_powers(state, target),
        audience=(claim["seat"],),
    )


def reassignment_roll_public(state: BoardState) -> dict | None:
    """The public part of the die a true claim's reassignment waits for (after the ruling): who rolls, for what."""
    for step in [state["step"]] + state["queue"]:
        if step is not None and step["kind"] == "reassign" and step["roll"] is None:
            return {
                "seat": step["seat"],
                "power_type": step["type"],
                "call_version": step["call_version"],
                "chance": {"draw": "roll", "n": DIE_SIDES},
            }
    return None


def loss_public(state: BoardState, piece: str) -> dict:
    """The public part of a piece loss: whose piece, who chose it, where it stood and its powers, now shown."""
    step = step_of(state)
    where = locate(state["board"])[piece]
    return {
        "seat": step["loser"],
        "piece": piece,
        "chosen_by": step["seat"],
        "square": where[0],
        "stack_position": where[1],
        "powers": held(state["powers"][piece]),
        "call_version": step["call_version"],
    }


def reassign_public(state: BoardState) -> dict:
    """The public part of a reassignment: the type of power it replaces and the ruling it follows."""
    step = step_of(state)
    seat, kind = step["seat"], step["type"]
    followup = {
        "call_version": step["call_version"],
        "power_type": kind,
        "replaces_assignment_version": state["assignment_version"][seat],
    }
    return {"seat": seat, "power_type": kind, "bluff_call_followup": followup}


def reassigned(state: BoardState, piece: str, power: str) -> dict:
    """The part of a reassignment's secret restating the seat's whole assignment with the new power."""
    step = step_of(state)
    assignment = {p: dict(state["powers"][p]) for p in pieces_of(step["seat"])}
    assignment[piece][step["type"]] = power
    return {"assignment": assignment}


def won_public(state: BoardState) -> dict:
    """The public part of the match's end by a win: who met a winning condition and which (None, None if nobody)."""
    won = winner(state)
    seat, reason = won if won is not None else (None, None)
    return {"winner": seat, "reason": reason}


def derived_secret(state: BoardState, event: Event) -> dict | None:
    """What the replayed hidden powers and dice fix of an event's secret; None when nothing is fixed."""
    # Die rolls hold only their chance result (re-derived from the seed by the verifier); which
    # power goes on which piece, at assignment or reassignment, is the seat's own choice.
    public, secret = event.public, event.secret or {}
    if event.kind == "PowersAssigned":
        return rolled_dice(state, public["seat"]) or None
    if event.kind == "PowerReassigned":
        return reassigned(state, secret["piece"], secret["power"])
    if event.kind == "BluffRuled":
        return ruling_truth(state, public["bluff_call"]["power"])
    if event.kind == "PowersDetected":
        return detected_powers(state, public["target"])
    if event.kind == COMMITTED:
        return slot_secret(state, public["piece"], public["power_type"])
    if event.kind == "WitchDoctorSwapped":
        # A swap recorded before each piece's new powers went to its owner alone also restates
        # them; they are bound all the same by the slot records that follow it.
        return witch_doctor_secret(state, public["piece"])
    return None


def derived_public(state: BoardState, event: Event) -> dict | None:
    """What the replayed state (and a recorded die) fixes of an event's public part; None when it is all a choice."""
    # A seat chooses its assignment, its move (piece, destination, claims), detects, answers,
    # calls, the lost piece and the new power; everything else a record says publicly — who
    # acts, what a claim answers, where a lost piece stood and the powers it shows, a ruling's
    # consequences, a move's full plan, who won and why — follows from the state. The die rolls'
    # descriptors and the drawn first seat are here too (the verifier re-derives their results).
    kind, pub = event.kind, event.public
    if kind == "FirstSeatDrawn":
        return {"chance": {"draw": "draw", "n": len(SEATS)}, **first_seat_public(pub["chance_result"])}
    if kind == "PowerDieRolled":
        return {"chance": {"draw": "roll", "n": DIE_SIDES}, **(next_power_die(state["dice"], SEATS) or {})}
    if kind == "BoardSetUp":
        # A drawn first seat is not kept in the state (FirstSeatDrawn only records it), so
        # only a configured one is bound here.
        config = state["config"]
        public = board_public(config, config["first_seat"])
        return public if config["first_seat"] != "random" else {k: v for k, v in public.items() if k != "first_seat"}
    if kind == MATCH_WON:
        # A forged verdict, or a win where nobody has met a condition, differs from this.
        return won_public(state)
    # The seat the current step awaits (None outside play, where a forged record then fails to match).
    step: Any = state["step"] or {}
    actor = step.get("seat")
    if kind == "PowersAssigned":
        return {"power_mode": state["config"]["power_mode"]}
    if kind == "PieceMoved":
        plan = replanned(state, pub["plan"])
        return {"seat": actor, "plan": plan} if plan is None else moved_public(state, actor, plan)
    if kind in ("DetectClaimed", "MoatClaimed", "KamikazeClaimed"):
        pending = pending_of(state)
        return {"seat": actor, **({"against_version": pending["version"]} if kind != "DetectClaimed" else {})}
    if kind in ("ClaimAccepted", "MoatAccepted", "KamikazeAccepted"):
        return acceptance(state, actor).public
    if kind == "PowersDetected":
        # Its claim has been answered by now (the window is closed), so the record of claims names it.
        return detection(state, state["claims"][-1]).public
    if kind == "BluffRuled":
        version = event.version if event.version is not None else state["version"] + 1
        return {"bluff_call": ruling_call(state, actor, pub["bluff_call"]["power"], version)}
    if kind == "ReassignmentDieRolled":
        return reassignment_roll_public(state)
    if kind == "PieceLost":
        return loss_public(state, pub["piece"])
    if kind == "PowerReassigned":
        return reassign_public(state)
    if kind == COMMITTED:
        return committed_public(state)
    return _player_power_public(state, event, actor)


def _player_power_public(state: BoardState, event: Event, actor: str | None) -> dict | None:
    """What the state fixes of a Player Powers record (which powers a Sensei names, and whose pieces, are choices)."""
    kind, pub = event.kind, event.public
    if kind == "PlayerPowerEarned":
        # In roll mode the public die decides (5–6 wild: None); in select mode the seat names it next.
        if state["config"]["power_mode"] != "roll":
            return earned_public(state, None)
        return {"chance": {"draw": "roll", "n": DIE_SIDES}, **earned_public(state, pub["chance_result"])}
    if kind == "PlayerPowerChosen":
        step = state["step"]
        return {"seat": actor, "earned_version": step.get("earned_version") if step is not None else None}
    if kind in ("SenseiClaimed", "JuggernautDeclined"):
        return {"seat": actor}
    if kind == "MagicianSwapped":
        return magician_public(state, actor, pub["piece"], pub["target"])
    if kind == "WitchDoctorSwapped":
        return witch_doctor_public(state, actor, pub["piece"])
    if kind == "JuggernautOffered":
        return juggernaut_public(state)
    return None
