"""`setup`, `decide` and its named checks, and `outcome` of gambit-board.

Every command first passes `require_step` (is this seat to act, and is this command what the
current step awaits?); each command then has one check function that raises RuleViolation or
returns what the events need. legal.py lists candidates that pass those same checks. Decide
folds what it emits into a scratch copy (`Play`), follows the events with the slot records they
require, and ends the match (`MatchWon`) when a turn closes or a piece is lost with a seat
meeting a winning condition.
"""

from __future__ import annotations

from typing import Any

from domain.chance import Chance
from domain.decision import Decision, GameEnded
from domain.ruleset import (
    Event,
    RuleViolation,
    chance_event,
    check_game_running,
    check_seat_in_match,
    config_to_dict,
)

from .bluffs import ruling
from .board import impassable, locate, neighbours, plan_move
from .commands import (
    Accept,
    AssignPowers,
    CallBluff,
    ChooseLoss,
    ChoosePlayerPower,
    ClaimKamikaze,
    ClaimMoat,
    DeclineJuggernaut,
    Detect,
    MovePiece,
    Reassign,
    Resign,
    UseMagician,
    UseSensei,
    UseWitchDoctor,
)
from .commitments import piece_slots, record_owed_slots
from .config import Config
from .events import (
    MATCH_WON,
    acceptance,
    board_public,
    detection,
    first_seat_public,
    loss_public,
    moved_public,
    reassign_public,
    reassigned,
    reassignment_roll_public,
    rolled_dice,
    won_public,
)
from .flow import (
    SEATS,
    STEP_OF,
    check_opposing_piece,
    check_own_piece,
    effect_of,
    match_over,
    pending_of,
    pending_plan,
    pieces_of,
    require_step,
    step_of,
    turn_of,
    winner,
)
from .payloads import DetectClaimed, JuggernautDeclined, Resigned
from .player_powers import (
    check_decline,
    check_magician,
    check_player_power_choice,
    check_sensei,
    check_whole_turn,
    check_witch_doctor,
    juggernaut_holder,
    juggernaut_public,
    magician_public,
    record_owed_earnings,
    sensei_public,
    witch_doctor_public,
    witch_doctor_secret,
)
from .powers import (
    DIE_SIDES,
    MOVE_CLAIMS,
    SENSEI,
    TYPES,
    check_named_powers,
    faces,
    fits_dice,
    no_powers,
    power_type,
    powers_of_type,
)
from .shapes import BoardState
from .state import evolve

# ---- setup -------------------------------------------------------------------------------


def setup(config: Config, seats: list[str], chance: Chance, seat_options: dict[str, dict] | None = None) -> list[Event]:
    """Draw the first seat if random, roll each seat's secret power dice in roll mode, open assignment."""
    events = []
    first = config.first_seat
    if first == "random":
        drawn = chance.draw("first-seat", len(SEATS))
        public = first_seat_public(drawn.result)
        first = public["first_seat"]
        events.append(chance_event("FirstSeatDrawn", drawn, public))
    if config.power_mode == "roll":
        for seat in SEATS:
            events += _roll_powers(seat, chance)
    events.append(Event("BoardSetUp", board_public(config_to_dict(config), first)))
    return events


def _roll_powers(seat: str, chance: Chance) -> list[Event]:
    """Two movement and two action dice, secret to the seat; a rolled double moat re-rolls all four."""
    events = []
    attempt = 1
    while True:
        action = []
        for kind in ("movement", "action"):
            for index in range(2):
                drawn = chance.roll(f"powers/{seat}/{attempt}/{kind}-{index + 1}", DIE_SIDES)
                events.append(
                    chance_event(
                        "PowerDieRolled",
                        drawn,
                        {"seat": seat, "die": kind, "index": index, "attempt": attempt},
                        hidden_from_all_but=(seat,),
                    )
                )
                if kind == "action":
                    action.append(drawn.result)
        if action != [1, 1]:
            return events
        attempt += 1


# ---- checks shared by decide and legal_commands -------------------------------------------


def check_assignment(pieces: list[str], requested: dict, mode: str, dice: dict | None) -> dict:
    """The seat's pieces mapped to their power records; RuleViolation when the request breaks a rule.

    `select`: two different movement and two different action powers. `roll`: the rolled faces,
    each wild face replaced by any power of its type.
    """
    out = {p: no_powers() for p in pieces}
    chosen: dict[str, list[str]] = {"movement": [], "action": []}
    for piece, powers in requested.items():
        if piece not in out:
            raise RuleViolation("unknown_piece", f"{piece!r} is not one of your pieces")
        for power in powers:
            kind = power_type(power)
            if kind is None:
                raise RuleViolation("unknown_power", f"{power!r} is not a power")
            if out[piece][kind] is not None:
                raise RuleViolation("invalid_assignment", f"{piece} would hold two {kind} powers")
            out[piece][kind] = power
            chosen[kind].append(power)
    for kind in TYPES:
        if len(chosen[kind]) != 2:
            raise RuleViolation("invalid_assignment", f"assign exactly two {kind} powers")
        if mode == "select" and len(set(chosen[kind])) != 2:
            raise RuleViolation("invalid_assignment", f"the two {kind} powers must differ")
        if mode == "roll" and dice is not None and not fits_dice(chosen[kind], dice[kind]):
            raise RuleViolation("invalid_assignment", f"{kind} powers do not match the dice {dice[kind]}")
    return out


def check_claims(claims: tuple[str, ...]) -> None:
    """Claims of a move: known powers a move can rely on, at most one of each type, no repeats."""
    check_named_powers(claims, "claimed")
    for claim in claims:
        if claim not in MOVE_CLAIMS:
            raise RuleViolation("claim_not_applicable", f"{claim} is not claimed by moving")


def check_move(state: BoardState, seat: str, piece: str, to: str, claims: tuple[str, ...]) -> dict:
    """The plan of a legal move by `seat`; RuleViolation naming the broken rule otherwise."""
    check_own_piece(state, seat, piece)
    check_claims(claims)
    square, index = locate(state["board"])[piece]
    if index != len(state["board"][square]) - 1:
        raise RuleViolation("piece_is_sat_on", f"{piece} has a piece on top of it")
    plan = plan_move(state["board"], impassable(state["config"]["board"]), piece, square, to, claims)
    if to in turn_of(state)["forbidden"]:
        raise RuleViolation("moat_zone_forbidden", f"{to} is in a moat zone that sent this turn's move back")
    if [piece, to, effect_of(plan)] in turn_of(state).get("rejected", []):
        raise RuleViolation("move_sent_back", f"a moat sent this very move of {piece} to {to} back this turn")
    return plan


def check_detect(state: BoardState, seat: str, piece: str, target: str) -> None:
    """Detect: your piece (sat on or not: detecting is not moving), an opposing piece in the 8 squares around it."""
    check_whole_turn(state)
    check_own_piece(state, seat, piece)
    check_opposing_piece(state, seat, target)
    where = locate(state["board"])
    if where[target][0] not in neighbours(where[piece][0]):
        raise RuleViolation("not_adjacent", f"{target} is not in the 8 squares around {piece}")


def check_claimed_power(claim: str) -> None:
    """A call names a power, or `sensei` (whether it was claimed is the ruling's first question)."""
    if power_type(claim) is None and claim != SENSEI:
        raise RuleViolation("unknown_power", f"{claim!r} is not a power")


def check_moat_claim(state: BoardState, seat: str, piece: str) -> None:
    """A moat answers an opposing move (not a ghost's) with your piece next to its destination."""
    pending = pending_of(state)
    if pending["kind"] != "move":
        raise RuleViolation("not_a_move", "a moat can only answer a move")
    if "ghost" in pending["claims"]:
        raise RuleViolation("cannot_claim_moat_against_ghost", "ghosts ignore moats")
    check_own_piece(state, seat, piece)
    if locate(state["board"])[piece][0] not in neighbours(pending_plan(state)["to"]):
        raise RuleViolation("not_adjacent", f"{piece} is not next to {pending_plan(state)['to']}")


def check_kamikaze_claim(state: BoardState, seat: str, piece: str) -> None:
    """A kamikaze answers a sit on your piece: the piece the mover just sat on."""
    pending = pending_of(state)
    if pending["kind"] != "move":
        raise RuleViolation("not_a_move", "a kamikaze can only answer a move")
    check_own_piece(state, seat, piece)
    if pending_plan(state)["sat_on"] != piece:
        raise RuleViolation("not_sat_on", f"{piece} was not just sat on")


def check_loss(state: BoardState, piece: str) -> None:
    """The lost piece is one of the losing seat's pieces still on the board."""
    check_own_piece(state, step_of(state)["loser"], piece)


def reassign_choices(state: BoardState) -> tuple[str, ...]:
    """Powers the reassigning seat may take: any of the type, or the rolled face in roll mode."""
    step = step_of(state)
    options = powers_of_type(step["type"])
    if state["config"]["power_mode"] == "roll" and step["roll"] is not None and step["roll"] <= 4:
        return (options[step["roll"] - 1],)
    return options


def check_reassign(state: BoardState, seat: str, power: str, piece: str) -> None:
    """The new power is of the revealed power's type (the rolled one unless wild) on a piece you still have."""
    if power_type(power) is None:
        raise RuleViolation("unknown_power", f"{power!r} is not a power")
    if power not in reassign_choices(state):
        raise RuleViolation("power_not_allowed", f"choose one of {list(reassign_choices(state))}")
    check_own_piece(state, seat, piece)


# ---- decide ------------------------------------------------------------------------------


class Play(Decision[BoardState]):
    """Decide's scratch pad for gambit-board: a Decision that also declares a win when the rules end the match."""

    def __init__(self, state: BoardState, chance: Chance) -> None:
        super().__init__(state, chance, evolve, ended=match_over)
        turn = state["turn"]
        self._turn_at_start = turn["number"] if turn is not None else None
        self._juggernaut_turn = bool(turn is not None and turn.get("juggernaut"))
        self._lost_at_start = _lost_count(state)
        self._offered = False

    @property
    def game(self) -> BoardState:
        """The scratch state as the events decided so far left it."""
        return self.state

    def declare_winner(self) -> None:
        """After a turn closes or a piece is lost, emit `MatchWon` if a seat has met a winning condition.

        A far-row win whose loser holds a Juggernaut (Player Powers) is answered instead: offered
        when the turn closes (a loss earlier in it waits for that), unless the turn that closed was
        the Juggernaut move itself — then the win, if it still holds, ends the match.
        """
        # Only then: a move waiting for its answer may stand on the far row until the answer comes.
        closed = self._turn_at_start is not None and turn_of(self.game)["number"] != self._turn_at_start
        lost = _lost_count(self.game) != self._lost_at_start
        won = winner(self.game)
        if not (closed or lost) or won is None or self._offered:
            return
        if not self._juggernaut_turn and juggernaut_holder(self.game, won) is not None:
            if closed:
                self._offered = True
                self.emit("JuggernautOffered", juggernaut_public(self.game))
            return
        self.emit(MATCH_WON, won_public(self.game))


def _lost_count(state: BoardState) -> int:
    return sum(len(state["lost"][s]) for s in SEATS)


def decide(state: BoardState, seat: str, command: Any, chance: Chance) -> list[Event]:
    """The events a command produces; RuleViolation when the rules forbid it."""
    if isinstance(command, Resign):
        check_game_running(match_over(state))
        check_seat_in_match(list(SEATS), seat)
        return [Resigned(seat=seat).event()]
    if type(command) not in STEP_OF:
        raise RuleViolation("unknown_command", f"{command!r} is not a gambit-board command")
    require_step(state, seat, command)
    play = Play(state, chance)
    try:
        _DECIDERS[type(command)](play, seat, command)
        record_owed_slots(play)
        record_owed_earnings(play)
        play.declare_winner()
    except GameEnded:
        pass
    return play.events


def _assign(play: Play, seat: str, command: AssignPowers) -> None:
    state = play.game
    dice = state["dice"][seat]
    record = check_assignment(
        pieces_of(seat), dict(command.powers), state["config"]["power_mode"], faces(dice) if dice else None
    )
    play.emit(
        "PowersAssigned",
        {"seat": seat, "power_mode": state["config"]["power_mode"]},
        {"assignment": record, **rolled_dice(state, seat)},
        (seat,),
    )


def _move(play: Play, seat: str, command: MovePiece) -> None:
    plan = check_move(play.game, seat, command.piece, command.to, tuple(command.claims))
    play.emit("PieceMoved", moved_public(play.game, seat, plan))


def _detect(play: Play, seat: str, command: Detect) -> None:
    check_detect(play.game, seat, command.piece, command.target)
    play.add(DetectClaimed(seat=seat, piece=command.piece, target=command.target).event())


def _accept(play: Play, seat: str, command: Accept) -> None:
    pending = pending_of(play.game)
    # A detect that stands shows the target's powers as they are when it is accepted.
    shown = detection(play.game, pending) if pending["counter"] is None and pending["kind"] == "detect" else None
    play.add(acceptance(play.game, seat))
    if shown is not None:
        play.add(shown)


def _call(play: Play, seat: str, command: CallBluff) -> None:
    check_claimed_power(command.claim)
    pending = pending_of(play.game)
    # The call and its ruling are one record: the first event of this decision, whose version the
    # match tells through the chance source (match records such as disputes may come between).
    ruled = ruling(play.game, seat, command.claim, play.next_version)
    call = ruled.public["bluff_call"]
    true = call["verdict"] == "true"
    shown = detection(play.game, pending) if true and call["subject"] == "detect" else None
    play.add(ruled)
    play.declare_winner()  # a sitter removed by a true kamikaze may be the fourth piece lost
    if shown is not None:
        play.add(shown)
    if true and play.game["config"]["power_mode"] == "roll":
        public = reassignment_roll_public(play.game)
        if public is not None:
            drawn = play.chance.roll("reassignment", public["chance"]["n"])
            play.add(
                chance_event(
                    "ReassignmentDieRolled",
                    drawn,
                    {k: v for k, v in public.items() if k != "chance"},
                    hidden_from_all_but=(call["claimant"],),
                )
            )


def _claim_moat(play: Play, seat: str, command: ClaimMoat) -> None:
    check_moat_claim(play.game, seat, command.piece)
    play.emit(
        "MoatClaimed", {"seat": seat, "piece": command.piece, "against_version": pending_of(play.game)["version"]}
    )


def _claim_kamikaze(play: Play, seat: str, command: ClaimKamikaze) -> None:
    check_kamikaze_claim(play.game, seat, command.piece)
    play.emit(
        "KamikazeClaimed", {"seat": seat, "piece": command.piece, "against_version": pending_of(play.game)["version"]}
    )


def _choose_loss(play: Play, seat: str, command: ChooseLoss) -> None:
    check_loss(play.game, command.piece)
    # A lost piece's powers are shown to everyone, so both of its slot commitments are revealed.
    play.emit("PieceLost", loss_public(play.game, command.piece), opens=piece_slots(play.game, command.piece))


def _reassign(play: Play, seat: str, command: Reassign) -> None:
    state = play.game
    check_reassign(state, seat, command.power, command.piece)
    assignment = reassigned(state, command.piece, command.power)["assignment"]
    play.emit(
        "PowerReassigned",
        reassign_public(state),
        {"piece": command.piece, "power": command.power, "assignment": assignment},
        (seat,),
    )


def _choose_player_power(play: Play, seat: str, command: ChoosePlayerPower) -> None:
    check_player_power_choice(command.power)
    play.emit(
        "PlayerPowerChosen",
        {"seat": seat, "power": command.power, "earned_version": step_of(play.game)["earned_version"]},
    )


def _sensei(play: Play, seat: str, command: UseSensei) -> None:
    powers = tuple(command.powers)
    check_sensei(play.game, seat, command.source, command.target, powers)
    play.emit("SenseiClaimed", sensei_public(seat, command.source, command.target, powers))


def _magician(play: Play, seat: str, command: UseMagician) -> None:
    check_magician(play.game, seat, command.piece, command.target)
    play.emit("MagicianSwapped", magician_public(play.game, seat, command.piece, command.target))


def _witch_doctor(play: Play, seat: str, command: UseWitchDoctor) -> None:
    state = play.game
    check_witch_doctor(state, seat, command.piece)
    # The swap's secret is what both seats know (the powers given); each piece's new powers
    # follow in slot records for its owner alone (record_owed_slots), the same four whatever
    # the mover really held, so neither their content nor their shape tells the responder.
    play.emit(
        "WitchDoctorSwapped",
        witch_doctor_public(state, seat, command.piece),
        witch_doctor_secret(state, command.piece),
        SEATS,
    )


def _decline_juggernaut(play: Play, seat: str, command: DeclineJuggernaut) -> None:
    check_decline(play.game)
    play.add(JuggernautDeclined(seat=seat).event())
    play.emit(MATCH_WON, won_public(play.game))


_DECIDERS: dict[type, Any] = {
    AssignPowers: _assign,
    MovePiece: _move,
    Detect: _detect,
    Accept: _accept,
    CallBluff: _call,
    ClaimMoat: _claim_moat,
    ClaimKamikaze: _claim_kamikaze,
    ChooseLoss: _choose_loss,
    Reassign: _reassign,
    ChoosePlayerPower: _choose_player_power,
    UseSensei: _sensei,
    UseMagician: _magician,
    UseWitchDoctor: _witch_doctor,
    DeclineJuggernaut: _decline_juggernaut,
}


# ---- outcome -----------------------------------------------------------------------------


def outcome(state: BoardState) -> dict | None:
    """None while running; then winners, reason, pieces lost and far-row counts."""
    result = state["result"]
    if result is None:
        return None
    out = dict(result)
    out["winners"] = list(result["winners"])
    out["lost"] = {s: len(state["lost"][s]) for s in SEATS}
    return out


def time_out(state: BoardState, seat: str, chance: Chance) -> list[Event]:
    """A seat whose time ran out resigns: its opponent wins (`resignation`)."""
    return decide(state, seat, Resign(), chance)
