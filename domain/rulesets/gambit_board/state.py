"""The state of a gambit-board match and `evolve`, which folds events into it without judging.

The state is the organizers' truth (every power included); `view` filters it per viewer.
Evolve applies what decide settled, the end of the match included (`MatchWon`, `Resigned`).
Play is a sequence of steps (`state["step"]`: who must do what now) with a queue of the steps
a bluff ruling still owes (a piece loss, a reassignment, then the turn passing or the mover
moving again) or a closed turn owes (naming earned Player Powers, then the next turn). The
Player Powers' folds are player_powers.py's.
"""

from __future__ import annotations

import copy

from domain.ruleset import Event, config_to_dict

from .board import COLUMNS, apply_move, copy_plan, undo_move
from .commitments import (
    COMMITTED,
    fold_committed,
    owe,
    owed_after_assignment,
    owed_after_kamikaze,
    owed_after_reassignment,
)
from .config import Config
from .events import MATCH_WON
from .flow import SEATS, advance, end_turn, finish, lose_piece, opponent, pieces_of, send_back, start_turn
from .player_powers import (
    apply_transfer,
    fold_chosen,
    fold_earned,
    fold_juggernaut_offered,
    fold_magician,
    fold_sensei_claimed,
    fold_witch_doctor,
)
from .powers import POWER_TYPES, SENSEI, no_powers


def initial_state(config: Config, seats: list[str]) -> dict:
    """Pieces on their home rows, no powers yet, waiting for setup."""
    board = {}
    for i, col in enumerate(COLUMNS):
        board[f"{col}1"] = [f"S{i + 1}"]
        board[f"{col}6"] = [f"N{i + 1}"]
    return {
        "config": config_to_dict(config),
        "phase": "setup",
        "version": 0,
        "first_seat": None,
        "board": board,
        "powers": {p: no_powers() for s in SEATS for p in pieces_of(s)},
        "assignment_version": {s: None for s in SEATS},
        # The newest commitment of each power slot, and the slot records the last event requires
        # (commitments.py).
        "slots": {p: {"movement": None, "action": None} for s in SEATS for p in pieces_of(s)},
        "owed": [],
        "dice": {s: None for s in SEATS},
        "turn": None,
        "step": None,
        "queue": [],
        "pending": None,
        "lost": {s: [] for s in SEATS},
        "revealed": [],
        "rulings": [],
        "claims": [],
        "detections": {s: [] for s in SEATS},
        "result": None,
        # Player Powers: each seat's unspent ones (public), and the earnings the last closed turn owes.
        "player_powers": {s: [] for s in SEATS},
        "earnings_owed": [],
    }


# ---- evolve -------------------------------------------------------------------------------


def evolve(state: dict, event: Event) -> dict:
    """Fold one event into the state (never validates, never raises on recorded history)."""
    handler = _HANDLERS.get(event.kind)
    if event.kind != COMMITTED and state.get("owed"):
        # Slot records follow the event that requires them, in the same decision, or never (a
        # match recorded before slots were committed one by one).
        state["owed"] = []
    if handler is not None:
        handler(state, event)
    if event.version is not None:
        state["version"] = event.version
    return state


def _secret(event: Event) -> dict:
    """The secret of an event kind that always carries one (a die, an assignment, a detect's result)."""
    return event.secret or {}


def _die_rolled(state: dict, event: Event) -> None:
    pub = event.public
    dice = state["dice"][pub["seat"]]
    if dice is None or dice["attempt"] != pub["attempt"]:
        dice = state["dice"][pub["seat"]] = {"attempt": pub["attempt"], "movement": [0, 0], "action": [0, 0]}
    dice[pub["die"]][pub["index"]] = _secret(event)["chance_result"]


def _board_set_up(state: dict, event: Event) -> None:
    state["first_seat"] = event.public["first_seat"]
    state["phase"] = "assign"


def _powers_assigned(state: dict, event: Event) -> None:
    seat = event.public["seat"]
    for piece, record in _secret(event)["assignment"].items():
        state["powers"][piece] = dict(record)
    state["assignment_version"][seat] = event.version
    owe(state, *owed_after_assignment(seat))
    if all(v is not None for v in state["assignment_version"].values()):
        state["phase"] = "play"
        start_turn(state, state["first_seat"], 1)


def _piece_moved(state: dict, event: Event) -> None:
    pub = event.public
    plan = copy_plan(pub["plan"])  # the state must never share objects with a recorded event
    apply_move(state["board"], plan)
    state["claims"].append(
        {
            "version": event.version,
            "seat": pub["seat"],
            "kind": "move",
            "piece": plan["piece"],
            "from": plan["from"],
            "to": plan["to"],
            "claims": list(plan["claims"]),
        }
    )
    if pub["needs_response"]:
        state["pending"] = {
            "kind": "move",
            "version": event.version,
            "seat": pub["seat"],
            "piece": plan["piece"],
            "claims": list(plan["claims"]),
            "plan": plan,
            "counter": None,
        }
        state["step"] = {"kind": "respond", "seat": opponent(pub["seat"])}
    else:
        end_turn(state)


def _detect_claimed(state: dict, event: Event) -> None:
    pub = event.public
    state["claims"].append(
        {
            "version": event.version,
            "seat": pub["seat"],
            "kind": "detect",
            "piece": pub["piece"],
            "target": pub["target"],
            "claims": ["detective"],
        }
    )
    state["pending"] = {
        "kind": "detect",
        "version": event.version,
        "seat": pub["seat"],
        "piece": pub["piece"],
        "target": pub["target"],
        "claims": ["detective"],
        "plan": None,
        "counter": None,
    }
    state["step"] = {"kind": "respond", "seat": opponent(pub["seat"])}


def _claim_accepted(state: dict, event: Event) -> None:
    if state["pending"]["kind"] == SENSEI:
        apply_transfer(state)
    end_turn(state)


def _powers_detected(state: dict, event: Event) -> None:
    state["detections"][event.public["seat"]].append(
        {"target": _secret(event)["target"], "powers": dict(_secret(event)["powers"]), "version": event.version}
    )


def _counter_claimed(state: dict, event: Event) -> None:
    pub = event.public
    power = "moat" if event.kind == "MoatClaimed" else "kamikaze"
    state["claims"].append(
        {"version": event.version, "seat": pub["seat"], "kind": power, "piece": pub["piece"], "claims": [power]}
    )
    state["pending"]["counter"] = {"kind": power, "version": event.version, "seat": pub["seat"], "piece": pub["piece"]}
    state["step"] = {"kind": "counter", "seat": state["pending"]["seat"]}


def _moat_accepted(state: dict, event: Event) -> None:
    send_back(state)
    state["pending"] = None
    state["step"] = {"kind": "turn", "seat": state["turn"]["seat"]}


def _kamikaze_accepted(state: dict, event: Event) -> None:
    pub = event.public
    lose_piece(state, pub["sitter"], "kamikaze", event.version)
    record = state["powers"][pub["kamikaze_piece"]]
    if record["action"] == "kamikaze":
        record["action"] = None
    # Whether the piece really held kamikaze stays hidden: its action slot is committed anew either way.
    owe(state, *owed_after_kamikaze(pub["kamikaze_piece"]))
    end_turn(state)


def _die_for_reassignment(state: dict, event: Event) -> None:
    for step in [state["step"]] + state["queue"]:
        if step is not None and step["kind"] == "reassign" and step["roll"] is None:
            step["roll"] = _secret(event)["chance_result"]
            return


def _piece_lost(state: dict, event: Event) -> None:
    lose_piece(state, event.public["piece"], "lost", event.version)
    advance(state)


def _bluff_ruled(state: dict, event: Event) -> None:
    """Reveal and strip a true power or undo a false move, then owe the loss (and reassignment)."""
    call = event.public["bluff_call"]
    cons = call["consequences"]
    version = event.version
    state["rulings"].append({**copy.deepcopy(call), "version": version})
    loss = {"kind": "lose", "seat": cons["loss_chosen_by"], "loser": cons["piece_lost_by"], "call_version": version}
    effect = cons["effect"]
    if call["subject"] == SENSEI:
        # A true transfer stands (nothing is revealed or reassigned); a false one moves nothing.
        if call["verdict"] == "true":
            apply_transfer(state)
        state["queue"] = [loss, {"kind": "end_turn"}]
    elif call["verdict"] == "true":
        kind = POWER_TYPES[call["power"]]
        state["powers"][call["piece"]][kind] = None
        state["revealed"].append(
            {"piece": call["piece"], "powers": [call["power"]], "reason": "true_claim", "version": version}
        )
        reassign = {"kind": "reassign", "seat": call["claimant"], "type": kind, "roll": None, "call_version": version}
        state["queue"] = [loss, reassign, {"kind": "retry" if effect == "move_sent_back" else "end_turn"}]
        if effect == "move_sent_back":
            send_back(state)
        elif effect == "sitter_removed":
            lose_piece(state, cons["sitter_removed"], "kamikaze", version)
    else:
        if cons["move_undone"]:
            undo_move(state["board"], state["pending"]["plan"])
        state["queue"] = [loss, {"kind": "end_turn"}]
    state["pending"] = None
    advance(state)


def _power_reassigned(state: dict, event: Event) -> None:
    seat = event.public["seat"]
    piece, power = _secret(event)["piece"], _secret(event)["power"]
    state["powers"][piece][POWER_TYPES[power]] = power
    state["assignment_version"][seat] = event.version
    owe(state, *owed_after_reassignment(state, seat, POWER_TYPES[power]))
    advance(state)


def _power_committed(state: dict, event: Event) -> None:
    fold_committed(state, event, event.version)


def _match_won(state: dict, event: Event) -> None:
    finish(state, event.public["winner"], event.public["reason"])


def _resigned(state: dict, event: Event) -> None:
    seat = event.public["seat"]
    finish(state, opponent(seat), "resignation")
    state["result"]["resigned"] = seat


_HANDLERS = {
    "PowerDieRolled": _die_rolled,
    "BoardSetUp": _board_set_up,
    "PowersAssigned": _powers_assigned,
    "PieceMoved": _piece_moved,
    "DetectClaimed": _detect_claimed,
    "ClaimAccepted": _claim_accepted,
    "PowersDetected": _powers_detected,
    "MoatClaimed": _counter_claimed,
    "KamikazeClaimed": _counter_claimed,
    "MoatAccepted": _moat_accepted,
    "KamikazeAccepted": _kamikaze_accepted,
    "BluffRuled": _bluff_ruled,
    "ReassignmentDieRolled": _die_for_reassignment,
    "PieceLost": _piece_lost,
    "PowerReassigned": _power_reassigned,
    COMMITTED: _power_committed,
    "PlayerPowerEarned": fold_earned,
    "PlayerPowerChosen": fold_chosen,
    "SenseiClaimed": fold_sensei_claimed,
    "MagicianSwapped": fold_magician,
    "WitchDoctorSwapped": fold_witch_doctor,
    "JuggernautOffered": fold_juggernaut_offered,
    MATCH_WON: _match_won,
    "Resigned": _resigned,
}
