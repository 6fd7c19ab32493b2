"""The state of a gambit-board match (`BoardState`) and `evolve`, which folds events into it without judging.

The state is the organizers' truth (every power included); `view` filters it per viewer.
Evolve applies what decide settled, the end of the match included (`MatchWon`, `Resigned`).
Play is a sequence of steps (`state["step"]`: who must do what now) with a queue of the steps
a bluff ruling still owes (a piece loss, a reassignment, then the turn passing or the mover
moving again) or a closed turn owes (naming earned Player Powers, then the next turn). Each
declared event kind (payloads.py) has its fold here, registered on `FOLDS` by payload type; the
Player Powers' folds are player_powers.py's, the slot records' commitments.py's.
"""

# No `from __future__ import annotations`: TypedDicts read NotRequired from evaluated annotations.
import copy
from typing import Literal, cast

from domain.event_types import Folds
from domain.ruleset import Event, config_to_dict

from .board import COLUMNS, apply_move, copy_plan, undo_move
from .commitments import fold_committed, owe, owed_after_assignment, owed_after_kamikaze, owed_after_reassignment
from .config import Config
from .events import EVENTS
from .flow import SEATS, advance, end_turn, finish, lose_piece, opponent, pieces_of, send_back, start_turn
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
from .shapes import (
    BoardConfig,
    BoardState,
    Step,
)


def initial_state(config: Config, seats: list[str]) -> BoardState:
    """Pieces on their home rows, no powers yet, waiting for setup."""
    board = {}
    for i, col in enumerate(COLUMNS):
        board[f"{col}1"] = [f"S{i + 1}"]
        board[f"{col}6"] = [f"N{i + 1}"]
    return {
        "config": cast(BoardConfig, config_to_dict(config)),
        "phase": "setup",
        "version": 0,
        "first_seat": None,
        "board": board,
        "powers": {p: no_powers() for s in SEATS for p in pieces_of(s)},
        "assignment_version": {s: None for s in SEATS},
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
        "player_powers": {s: [] for s in SEATS},
        "earnings_owed": [],
    }


# ---- evolve -------------------------------------------------------------------------------

FOLDS: Folds[BoardState] = Folds(EVENTS)
# The first seat drawn is read again from the board's setup; a declined Juggernaut is followed by the win.
FOLDS.unchanged(FirstSeatDrawn, JuggernautDeclined)


def evolve(state: BoardState, event: Event) -> BoardState:
    """Fold one event into the state (never validates, never raises on recorded history)."""
    if event.kind != PowerCommitted.kind() and state.get("owed"):
        # Slot records follow the event that requires them, in the same decision, or never (a
        # match recorded before slots were committed one by one).
        state["owed"] = []
    FOLDS.fold(state, event)
    if event.version is not None:
        state["version"] = event.version
    return state


@FOLDS.on(PowerDieRolled)
def _die_rolled(state: BoardState, rolled: PowerDieRolled, event: Event) -> None:
    dice = state["dice"][rolled.seat]
    if dice is None or dice["attempt"] != rolled.attempt:
        dice = state["dice"][rolled.seat] = {"attempt": rolled.attempt, "movement": [0, 0], "action": [0, 0]}
    dice[rolled.die][rolled.index] = rolled.result


@FOLDS.on(BoardSetUp)
def _board_set_up(state: BoardState, set_up: BoardSetUp, event: Event) -> None:
    state["first_seat"] = set_up.first_seat
    state["phase"] = "assign"


@FOLDS.on(PowersAssigned)
def _powers_assigned(state: BoardState, assigned: PowersAssigned, event: Event) -> None:
    for piece, record in assigned.assignment.items():
        state["powers"][piece] = {"movement": record["movement"], "action": record["action"]}
    state["assignment_version"][assigned.seat] = event.version
    owe(state, *owed_after_assignment(assigned.seat))
    if all(v is not None for v in state["assignment_version"].values()):
        state["phase"] = "play"
        # BoardSetUp named the first seat before any assignment could be recorded.
        start_turn(state, cast(str, state["first_seat"]), 1)


@FOLDS.on(PieceMoved)
def _piece_moved(state: BoardState, moved: PieceMoved, event: Event) -> None:
    plan = copy_plan(moved.plan)  # the state must never share objects with a recorded event
    apply_move(state["board"], plan)
    state["claims"].append(
        {
            "version": event.version,
            "seat": moved.seat,
            "kind": "move",
            "piece": plan["piece"],
            "from": plan["from"],
            "to": plan["to"],
            "claims": list(plan["claims"]),
        }
    )
    if moved.needs_response:
        state["pending"] = {
            "kind": "move",
            "version": event.version,
            "seat": moved.seat,
            "piece": plan["piece"],
            "claims": list(plan["claims"]),
            "plan": plan,
            "counter": None,
        }
        state["step"] = {"kind": "respond", "seat": opponent(moved.seat)}
    else:
        end_turn(state)


@FOLDS.on(DetectClaimed)
def _detect_claimed(state: BoardState, claimed: DetectClaimed, event: Event) -> None:
    state["claims"].append(
        {
            "version": event.version,
            "seat": claimed.seat,
            "kind": "detect",
            "piece": claimed.piece,
            "target": claimed.target,
            "claims": ["detective"],
        }
    )
    state["pending"] = {
        "kind": "detect",
        "version": event.version,
        "seat": claimed.seat,
        "piece": claimed.piece,
        "target": claimed.target,
        "claims": ["detective"],
        "plan": None,
        "counter": None,
    }
    state["step"] = {"kind": "respond", "seat": opponent(claimed.seat)}


@FOLDS.on(ClaimAccepted)
def _claim_accepted(state: BoardState, accepted: ClaimAccepted, event: Event) -> None:
    pending = state["pending"]
    if pending is not None and pending["kind"] == SENSEI:
        apply_transfer(state)
    end_turn(state)


@FOLDS.on(PowersDetected)
def _powers_detected(state: BoardState, detected: PowersDetected, event: Event) -> None:
    state["detections"][detected.seat].append(
        {
            "target": detected.detected,
            "powers": {"movement": detected.powers["movement"], "action": detected.powers["action"]},
            "version": event.version,
        }
    )


def _counter_claimed(
    state: BoardState, power: Literal["moat", "kamikaze"], seat: str, piece: str, event: Event
) -> None:
    state["claims"].append({"version": event.version, "seat": seat, "kind": power, "piece": piece, "claims": [power]})
    pending = state["pending"]
    if pending is not None:
        pending["counter"] = {"kind": power, "version": event.version, "seat": seat, "piece": piece}
        state["step"] = {"kind": "counter", "seat": pending["seat"]}


@FOLDS.on(MoatClaimed)
def _moat_claimed(state: BoardState, claimed: MoatClaimed, event: Event) -> None:
    _counter_claimed(state, "moat", claimed.seat, claimed.piece, event)


@FOLDS.on(KamikazeClaimed)
def _kamikaze_claimed(state: BoardState, claimed: KamikazeClaimed, event: Event) -> None:
    _counter_claimed(state, "kamikaze", claimed.seat, claimed.piece, event)


@FOLDS.on(MoatAccepted)
def _moat_accepted(state: BoardState, accepted: MoatAccepted, event: Event) -> None:
    send_back(state)
    state["pending"] = None
    if state["turn"] is not None:
        state["step"] = {"kind": "turn", "seat": state["turn"]["seat"]}


@FOLDS.on(KamikazeAccepted)
def _kamikaze_accepted(state: BoardState, accepted: KamikazeAccepted, event: Event) -> None:
    lose_piece(state, accepted.sitter, "kamikaze", event.version)
    record = state["powers"][accepted.kamikaze_piece]
    if record["action"] == "kamikaze":
        record["action"] = None
    # Whether the piece really held kamikaze stays hidden: its action slot is committed anew either way.
    owe(state, *owed_after_kamikaze(accepted.kamikaze_piece))
    end_turn(state)


@FOLDS.on(ReassignmentDieRolled)
def _die_for_reassignment(state: BoardState, rolled: ReassignmentDieRolled, event: Event) -> None:
    for step in [state["step"]] + state["queue"]:
        if step is not None and step["kind"] == "reassign" and step["roll"] is None:
            step["roll"] = rolled.result
            return


@FOLDS.on(PieceLost)
def _piece_lost(state: BoardState, lost: PieceLost, event: Event) -> None:
    lose_piece(state, lost.piece, "lost", event.version)
    advance(state)


@FOLDS.on(BluffRuled)
def _bluff_ruled(state: BoardState, ruled: BluffRuled, event: Event) -> None:
    """Reveal and strip a true power or undo a false move, then owe the loss (and reassignment)."""
    call = ruled.bluff_call
    cons = call["consequences"]
    version = event.version
    state["rulings"].append({**copy.deepcopy(call), "version": version})
    loss: Step = {
        "kind": "lose",
        "seat": cons["loss_chosen_by"],
        "loser": cons["piece_lost_by"],
        "call_version": version,
    }
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
        reassign: Step = {
            "kind": "reassign",
            "seat": call["claimant"],
            "type": kind,
            "roll": None,
            "call_version": version,
        }
        state["queue"] = [loss, reassign, {"kind": "retry" if effect == "move_sent_back" else "end_turn"}]
        if effect == "move_sent_back":
            send_back(state)
        elif effect == "sitter_removed":
            lose_piece(state, cons["sitter_removed"], "kamikaze", version)
    else:
        pending = state["pending"]
        if cons["move_undone"] and pending is not None and pending["plan"] is not None:
            undo_move(state["board"], pending["plan"])
        state["queue"] = [loss, {"kind": "end_turn"}]
    state["pending"] = None
    advance(state)


@FOLDS.on(PowerReassigned)
def _power_reassigned(state: BoardState, reassigned: PowerReassigned, event: Event) -> None:
    kind = POWER_TYPES[reassigned.power]
    state["powers"][reassigned.piece][kind] = reassigned.power
    state["assignment_version"][reassigned.seat] = event.version
    owe(state, *owed_after_reassignment(state, reassigned.seat, kind))
    advance(state)


@FOLDS.on(MatchWon)
def _match_won(state: BoardState, won: MatchWon, event: Event) -> None:
    finish(state, won.winner, won.reason)


@FOLDS.on(Resigned)
def _resigned(state: BoardState, resigned: Resigned, event: Event) -> None:
    finish(state, opponent(resigned.seat), "resignation")
    if state["result"] is not None:
        state["result"]["resigned"] = resigned.seat


FOLDS.on(PowerCommitted)(fold_committed)
FOLDS.on(PlayerPowerEarned)(fold_earned)
FOLDS.on(PlayerPowerChosen)(fold_chosen)
FOLDS.on(SenseiClaimed)(fold_sensei_claimed)
FOLDS.on(MagicianSwapped)(fold_magician)
FOLDS.on(WitchDoctorSwapped)(fold_witch_doctor)
FOLDS.on(JuggernautOffered)(fold_juggernaut_offered)
