"""`decide` and `legal_commands` of gambit-board, built on the same named checks so they agree.

Every command first passes `require_step` (is this seat to act, and is this command what the
current step awaits?); each command then has one check function that raises RuleViolation or
returns what the events need. `legal_commands` lists candidates that pass those same checks.
"""

from __future__ import annotations

import copy
from functools import cache

from domain.ruleset import Event, RuleViolation, passes

from . import board as geo
from .bluffs import detected_powers, detection, reassignment_roll_public, rule_call, ruling_call, ruling_truth
from .commitments import COMMITTED, committed_public, piece_slots, slot_records, slot_secret
from .state import evolve
from .commands import (Accept, AssignPowers, CallBluff, ChooseLoss, ClaimKamikaze, ClaimMoat, Detect, MovePiece,
                       Reassign, Resign)
from .flow import SEATS, on_board, opponent, pieces_of, seat_of
from .powers import (DIE_SIDES, MOVE_CLAIMS, MOVEMENT, assignment_choices, check_assignment, faces, held,
                     next_power_die, power_type, powers_of_type)

# Which step each command answers. A move or detect sent at another step is refused with what the
# game is busy with; any other command sent out of its step is refused with what is missing.
STEP_OF = {AssignPowers: "assign", MovePiece: "turn", Detect: "turn", Accept: "respond", CallBluff: "respond",
           ClaimMoat: "respond", ClaimKamikaze: "respond", ChooseLoss: "lose", Reassign: "reassign"}
BUSY = {"assign": "assignment_pending", "respond": "response_pending", "counter": "response_pending",
        "lose": "loss_choice_pending", "reassign": "reassignment_pending"}
MISSING = {"assign": "assignment_closed", "respond": "no_response_pending", "lose": "no_loss_pending",
           "reassign": "no_reassignment_pending"}


def to_act(state: dict) -> list[str]:
    """Seats that may act now: both while assigning, else the seat of the current step."""
    if state["result"] is not None:
        return []
    if state["phase"] == "assign":
        return [s for s in SEATS if state["assignment_version"][s] is None]
    step = state["step"]
    return [step["seat"]] if step is not None else []


def current_step(state: dict) -> str | None:
    """The kind of step now awaited (`assign` while powers are being placed)."""
    if state["phase"] == "assign":
        return "assign"
    return state["step"]["kind"] if state["step"] is not None else None


def require_step(state: dict, seat: str, command) -> None:
    """Check that `seat` is to act and that the command answers the current step."""
    if state["result"] is not None:
        raise RuleViolation("game_over", "the match is over")
    if seat not in SEATS:
        raise RuleViolation("unknown_seat", f"{seat!r} is not a seat")
    wanted = STEP_OF[type(command)]
    step = current_step(state)
    if seat not in to_act(state):
        if wanted == "assign" and step == "assign":
            raise RuleViolation("already_assigned", "your powers are already assigned")
        raise RuleViolation("not_your_turn", f"{seat} is not to act now")
    if step == "counter" and isinstance(command, (Accept, CallBluff)):
        return
    if step == "counter" and isinstance(command, (ClaimMoat, ClaimKamikaze)):
        raise RuleViolation("counter_response_only", "answer the moat or kamikaze claim with accept or call_bluff")
    if step != wanted:
        rule = MISSING[wanted] if wanted != "turn" else BUSY[step]
        raise RuleViolation(rule, f"the game awaits a {step} step, not {command.type}")


# ---- checks shared by decide and legal_commands -------------------------------------------

def check_own_piece(state: dict, seat: str, piece: str) -> None:
    """The piece exists, belongs to `seat` and is still on the board."""
    if not isinstance(piece, str) or piece not in state["powers"]:
        raise RuleViolation("unknown_piece", f"{piece!r} is not a piece")
    if seat_of(piece) != seat:
        raise RuleViolation("not_your_piece", f"{piece} belongs to {seat_of(piece)}")
    if piece in state["lost"][seat]:
        raise RuleViolation("piece_lost", f"{piece} has been lost")


def check_claims(claims) -> None:
    """Claims of a move: known powers a move can rely on, at most one of each type, no repeats."""
    for claim in claims:
        if power_type(claim) is None:
            raise RuleViolation("unknown_power", f"{claim!r} is not a power")
    if len(set(claims)) != len(claims):
        raise RuleViolation("duplicate_claim", "a power is claimed twice")
    for kind in ("movement", "action"):
        if sum(1 for c in claims if power_type(c) == kind) > 1:
            raise RuleViolation("too_many_claims", f"at most one {kind} power may be claimed in one move")
    for claim in claims:
        if claim not in MOVE_CLAIMS:
            raise RuleViolation("claim_not_applicable", f"{claim} is not claimed by moving")


def check_move(state: dict, seat: str, piece: str, to: str, claims) -> dict:
    """The plan of a legal move by `seat`; RuleViolation naming the broken rule otherwise."""
    check_own_piece(state, seat, piece)
    check_claims(claims)
    square, index = geo.locate(state["board"])[piece]
    if index != len(state["board"][square]) - 1:
        raise RuleViolation("piece_is_sat_on", f"{piece} has a piece on top of it")
    plan = geo.plan_move(state["board"], geo.impassable(state["config"]["board"]), piece, square, to, claims)
    if to in state["turn"]["forbidden"]:
        raise RuleViolation("moat_zone_forbidden", f"{to} is in a moat zone that sent this turn's move back")
    return plan


def needs_response(state: dict, plan: dict, seat: str) -> bool:
    """A move with no claims, ending next to no opposing piece and on no piece, needs no answer."""
    if plan["claims"] or plan["sat_on"] is not None:
        return True
    # Without claims nothing is pushed, so the opposing pieces stand where they stood before the move.
    where = geo.locate(state["board"])
    return any(where.get(p, (None,))[0] in geo.neighbours(plan["to"]) for p in on_board(state, opponent(seat)))


def check_detect(state: dict, seat: str, piece: str, target: str) -> None:
    """Detect: your piece, an opposing piece in the 8 squares around it."""
    check_own_piece(state, seat, piece)
    if not isinstance(target, str) or target not in state["powers"]:
        raise RuleViolation("unknown_piece", f"{target!r} is not a piece")
    if seat_of(target) == seat:
        raise RuleViolation("not_opposing_piece", f"{target} is your own piece")
    if target in state["lost"][seat_of(target)]:
        raise RuleViolation("piece_lost", f"{target} has been lost")
    where = geo.locate(state["board"])
    if where[target][0] not in geo.neighbours(where[piece][0]):
        raise RuleViolation("not_adjacent", f"{target} is not in the 8 squares around {piece}")


def check_moat_claim(state: dict, seat: str, piece: str) -> None:
    """A moat answers an opposing move (not a ghost's) with your piece next to its destination."""
    pending = state["pending"]
    if pending["kind"] != "move":
        raise RuleViolation("not_a_move", "a moat can only answer a move")
    if "ghost" in pending["claims"]:
        raise RuleViolation("cannot_claim_moat_against_ghost", "ghosts ignore moats")
    check_own_piece(state, seat, piece)
    if geo.locate(state["board"])[piece][0] not in geo.neighbours(pending["plan"]["to"]):
        raise RuleViolation("not_adjacent", f"{piece} is not next to {pending['plan']['to']}")


def check_kamikaze_claim(state: dict, seat: str, piece: str) -> None:
    """A kamikaze answers a sit on your piece: the piece the mover just sat on."""
    pending = state["pending"]
    if pending["kind"] != "move":
        raise RuleViolation("not_a_move", "a kamikaze can only answer a move")
    check_own_piece(state, seat, piece)
    if pending["plan"]["sat_on"] != piece:
        raise RuleViolation("not_sat_on", f"{piece} was not just sat on")


def check_loss(state: dict, piece: str) -> None:
    """The lost piece is one of the losing seat's pieces still on the board."""
    check_own_piece(state, state["step"]["loser"], piece)


def reassign_choices(state: dict) -> tuple[str, ...]:
    """Powers the reassigning seat may take: any of the type, or the rolled face in roll mode."""
    step = state["step"]
    options = powers_of_type(step["type"])
    if state["config"]["power_mode"] == "roll" and step["roll"] is not None and step["roll"] <= 4:
        return (options[step["roll"] - 1],)
    return options


def check_reassign(state: dict, seat: str, power: str, piece: str) -> None:
    """The new power is of the revealed power's type (the rolled one unless wild) on a piece you still have."""
    if power_type(power) is None:
        raise RuleViolation("unknown_power", f"{power!r} is not a power")
    if power not in reassign_choices(state):
        raise RuleViolation("power_not_allowed", f"choose one of {list(reassign_choices(state))}")
    check_own_piece(state, seat, piece)


# ---- decide ------------------------------------------------------------------------------

def decide(state: dict, seat: str, command, chance) -> list[Event]:
    """The events a command produces; RuleViolation when the rules forbid it."""
    if isinstance(command, Resign):
        if state["result"] is not None:
            raise RuleViolation("game_over", "the match is over")
        if seat not in SEATS:
            raise RuleViolation("unknown_seat", f"{seat!r} is not a seat")
        return [Event("Resigned", {"seat": seat})]
    if type(command) not in STEP_OF:
        raise RuleViolation("unknown_command", f"{command!r} is not a gambit-board command")
    require_step(state, seat, command)
    return _DECIDERS[type(command)](state, seat, command, chance)


def _assign(state, seat, command, chance):
    dice = state["dice"][seat]
    record = check_assignment(pieces_of(seat), dict(command.powers), state["config"]["power_mode"],
                              faces(dice) if dice else None)
    secret = {"assignment": record, **rolled_dice(state, seat)}
    public = {"seat": seat, "power_mode": state["config"]["power_mode"]}
    return with_slot_records(state, [Event("PowersAssigned", public, secret, (seat,))])


def with_slot_records(state: dict, events: list[Event]) -> list[Event]:
    """`events` followed by the slot commitments they require (a power placed, spent or moved)."""
    sim = copy.deepcopy(state)
    for event in events:
        evolve(sim, event)
    return events + slot_records(sim)


def _move(state, seat, command, chance):
    plan = check_move(state, seat, command.piece, command.to, tuple(command.claims))
    return [Event("PieceMoved", moved_public(state, seat, plan))]


def moved_public(state: dict, seat: str, plan: dict) -> dict:
    """The public part of a move: its plan and whether the other seat gets to answer it."""
    return {"seat": seat, "plan": plan, "needs_response": needs_response(state, plan, seat)}


def _detect(state, seat, command, chance):
    check_detect(state, seat, command.piece, command.target)
    return [Event("DetectClaimed", {"seat": seat, "piece": command.piece, "target": command.target})]


def _accept(state, seat, command, chance):
    accepted = acceptance(state, seat)
    pending = state["pending"]
    if pending["counter"] is None and pending["kind"] == "detect":
        return [accepted, detection(state, pending)]
    return with_slot_records(state, [accepted]) if accepted.kind == "KamikazeAccepted" else [accepted]


def acceptance(state: dict, seat: str) -> Event:
    """The event of accepting what awaits an answer: the claim, or the moat or kamikaze countering it."""
    pending = state["pending"]
    counter = pending["counter"]
    if counter is None:
        return Event("ClaimAccepted", {"seat": seat, "claim_version": pending["version"]})
    if counter["kind"] == "moat":
        return Event("MoatAccepted", {"seat": seat, "claim_version": counter["version"],
                                      "moat_piece": counter["piece"]})
    sitter = pending["piece"]
    # The sitter is lost and its powers shown: its slot commitments are revealed with it.
    return Event("KamikazeAccepted", {"seat": seat, "claim_version": counter["version"], "sitter": sitter,
                                      "kamikaze_piece": counter["piece"],
                                      "sitter_powers": held(state["powers"][sitter])},
                 opens=piece_slots(state, sitter))


def _call(state, seat, command, chance):
    if power_type(command.claim) is None:
        raise RuleViolation("unknown_power", f"{command.claim!r} is not a power")
    return rule_call(state, seat, command.claim, chance)


def _claim_moat(state, seat, command, chance):
    check_moat_claim(state, seat, command.piece)
    return [Event("MoatClaimed", {"seat": seat, "piece": command.piece, "against_version": state["pending"]["version"]})]


def _claim_kamikaze(state, seat, command, chance):
    check_kamikaze_claim(state, seat, command.piece)
    return [Event("KamikazeClaimed", {"seat": seat, "piece": command.piece,
                                      "against_version": state["pending"]["version"]})]


def _choose_loss(state, seat, command, chance):
    check_loss(state, command.piece)
    # A lost piece's powers are shown to everyone, so both of its slot commitments are revealed.
    return [Event("PieceLost", loss_public(state, command.piece), opens=piece_slots(state, command.piece))]


def loss_public(state: dict, piece: str) -> dict:
    """The public part of a piece loss: whose piece, who chose it, where it stood and its powers, now shown."""
    step = state["step"]
    where = geo.locate(state["board"])[piece]
    return {"seat": step["loser"], "piece": piece, "chosen_by": step["seat"], "square": where[0],
            "stack_position": where[1], "powers": held(state["powers"][piece]), "call_version": step["call_version"]}


def _reassign(state, seat, command, chance):
    check_reassign(state, seat, command.power, command.piece)
    assignment = reassigned(state, command.piece, command.power)["assignment"]
    return with_slot_records(state, [Event("PowerReassigned", reassign_public(state),
                                           {"piece": command.piece, "power": command.power, "assignment": assignment},
                                           (seat,))])


def reassign_public(state: dict) -> dict:
    """The public part of a reassignment: the type of power it replaces and the ruling it follows."""
    step = state["step"]
    seat, kind = step["seat"], step["type"]
    followup = {"call_version": step["call_version"], "power_type": kind,
                "replaces_assignment_version": state["assignment_version"][seat]}
    return {"seat": seat, "power_type": kind, "bluff_call_followup": followup}


_DECIDERS = {AssignPowers: _assign, MovePiece: _move, Detect: _detect, Accept: _accept, CallBluff: _call,
             ClaimMoat: _claim_moat, ClaimKamikaze: _claim_kamikaze, ChooseLoss: _choose_loss, Reassign: _reassign}


# ---- secrets fixed by the state (what the verifier re-derives) ------------------------------

def rolled_dice(state: dict, seat: str) -> dict:
    """The part of an assignment's secret restating the seat's rolled power dice ({} in select mode)."""
    dice = state["dice"][seat]
    if not dice:
        return {}
    return {"dice": {"movement": list(dice["movement"]), "action": list(dice["action"])}}


def reassigned(state: dict, piece: str, power: str) -> dict:
    """The part of a reassignment's secret restating the seat's whole assignment with the new power."""
    step = state["step"]
    assignment = {p: dict(state["powers"][p]) for p in pieces_of(step["seat"])}
    assignment[piece][step["type"]] = power
    return {"assignment": assignment}


def derived_secret(state: dict, event: Event) -> dict | None:
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
    return None


def first_seat_public(index: int) -> dict:
    """The public part of drawing the first seat: the seats drawn from and the one drawn."""
    return {"seats": list(SEATS), "first_seat": SEATS[index]}


def board_public(config: dict, first_seat: str) -> dict:
    """The public part of setting the board up: who opens, the board, its impassable squares, the home rows."""
    return {"first_seat": first_seat, "board": config["board"], "impassable": sorted(geo.impassable(config["board"])),
            "pieces": {f"{c}{r}": f"{'S' if r == 1 else 'N'}{i + 1}"
                       for i, c in enumerate(geo.COLUMNS) for r in (1, 6)}}


def replanned(state: dict, plan: dict) -> dict | None:
    """The plan the rules give for a recorded move's piece, destination and claims; None when none is legal."""
    where = geo.locate(state["board"]).get(plan["piece"])
    if where is None:
        return None
    try:
        return geo.plan_move(state["board"], geo.impassable(state["config"]["board"]), plan["piece"], where[0],
                             plan["to"], tuple(plan["claims"]))
    except RuleViolation:
        return None


def derived_public(state: dict, event: Event) -> dict | None:
    """What the replayed state (and a recorded die) fixes of an event's public part; None when it is all a choice."""
    # A seat chooses its assignment, its move (piece, destination, claims), detects, answers,
    # calls, the lost piece and the new power; everything else a record says publicly — who
    # acts, what a claim answers, where a lost piece stood and the powers it shows, a ruling's
    # consequences, a move's full plan — follows from the state. The die rolls' descriptors
    # and the drawn first seat are here too (the verifier re-derives their results).
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
    step = state["step"] or {}
    actor = step.get("seat")
    if kind == "PowersAssigned":
        return {"power_mode": state["config"]["power_mode"]}
    if kind == "PieceMoved":
        plan = replanned(state, pub["plan"])
        return {"seat": actor, "plan": plan} if plan is None else moved_public(state, actor, plan)
    if kind in ("DetectClaimed", "MoatClaimed", "KamikazeClaimed"):
        pending = state["pending"]
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
    return None


# ---- legal_commands ------------------------------------------------------------------------



def legal_commands(state: dict, seat: str) -> list:
    """Every whole command `seat` may send now, and `resign`, which a seat may send at any time.

    Assignments are too many to list (thousands in select mode): legal_choices describes them.
    """
    if state["result"] is not None or seat not in SEATS:
        return []
    out = list(_LISTERS[current_step(state)](state, seat)) if seat in to_act(state) else []
    out.append(Resign())
    return out


def legal_choices(state: dict, seat: str) -> list:
    """The `assign` families of a seat still placing its powers (powers.assignment_choices)."""
    if state["result"] is not None or current_step(state) != "assign" or seat not in to_act(state):
        return []
    return assignment_choices(pieces_of(seat), state["config"]["power_mode"], state["dice"][seat])


def _list_assign(state, seat):
    # Assignments are families too large to list: legal_choices offers them.
    return []


def _list_turn(state, seat):
    board = state["board"]
    blocked = geo.impassable(state["config"]["board"])
    forbidden = state["turn"]["forbidden"]
    where = geo.locate(board)
    out = []
    for piece in on_board(state, seat):
        square, index = where[piece]
        if index == len(board[square]) - 1:
            for movement in (None,) + MOVEMENT:
                claims = (movement,) if movement else ()
                for to, needs_sitting in sorted(geo.reachable(board, blocked, square, movement).items()):
                    if to not in forbidden:
                        if not needs_sitting:
                            out.append(_move_command(piece, to, claims))
                        # Claims may come in either order; both spellings are the same move.
                        out.append(_move_command(piece, to, claims + ("sitting",)))
                        if claims:
                            out.append(_move_command(piece, to, ("sitting",) + claims))
        around = geo.neighbours(square)
        out += [Detect(piece=piece, target=target) for target in on_board(state, opponent(seat))
                if where[target][0] in around and passes(check_detect, state, seat, piece, target)]
    return out


@cache
def _move_command(piece: str, to: str, claims: tuple[str, ...]) -> MovePiece:
    """Commands are immutable, so the listing reuses one object per distinct move (it runs every turn)."""
    return MovePiece(piece=piece, to=to, claims=claims)


def _list_respond(state, seat):
    pending = state["pending"]
    out: list = [Accept()] + [CallBluff(claim=c) for c in pending["claims"]]
    mine = on_board(state, seat)
    out += [ClaimMoat(piece=p) for p in mine if passes(check_moat_claim, state, seat, p)]
    out += [ClaimKamikaze(piece=p) for p in mine if passes(check_kamikaze_claim, state, seat, p)]
    return out


def _list_counter(state, seat):
    return [Accept(), CallBluff(claim=state["pending"]["counter"]["kind"])]


def _list_lose(state, seat):
    return [ChooseLoss(piece=p) for p in pieces_of(state["step"]["loser"]) if passes(check_loss, state, p)]


def _list_reassign(state, seat):
    return [Reassign(power=power, piece=p) for power in reassign_choices(state) for p in pieces_of(seat)
            if passes(check_reassign, state, seat, power, p)]


_LISTERS = {"assign": _list_assign, "turn": _list_turn, "respond": _list_respond, "counter": _list_counter,
            "lose": _list_lose, "reassign": _list_reassign}

