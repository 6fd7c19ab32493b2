"""gambit-board: bluff calls (true and false on moves, detects, moats, kamikazes), piece loss,
reassignment in both power modes, stacks under undo, and the simultaneous-win tie-break."""

from __future__ import annotations

import pytest

from domain.ruleset import Event, RuleViolation, Viewer
from domain.rulesets import gambit_board as gb
from domain.rulesets.gambit_board.commands import (
    Accept,
    AssignPowers,
    CallBluff,
    ChooseLoss,
    ClaimKamikaze,
    ClaimMoat,
    Detect,
    MovePiece,
    Reassign,
)
from domain.rulesets.gambit_board.flow import on_board
from tests.rules.gambit_board_scenarios import arrange, kinds, new_game, slot_record, square_of
from tests.support.harness import start

MOAT_NORTH = {"N1": ("ghost", "moat"), "N2": ("sidewinder", "kamikaze")}
SPECTATOR = Viewer("spectator")


def rule_of(game, seat, command) -> str:
    """The rule a refused command breaks."""
    with pytest.raises(RuleViolation) as refused:
        game.act(seat, command)
    return refused.value.rule


def ruling(events) -> dict:
    """The bluff_call audit record of the ruling among some events."""
    return next(e for e in events if e.kind == "BluffRuled").public["bluff_call"]


def board(game) -> dict:
    """The public board."""
    return gb.view(game.state, SPECTATOR)["board"]


# ---- move claims ----------------------------------------------------------------------------

def test_a_true_move_claim_costs_the_caller_a_piece_and_reveals_the_power():
    game = new_game()
    [moved] = game.act("south", MovePiece(piece="S1", to="b2", claims=("diagonal",)))
    events = game.act("north", CallBluff(claim="diagonal"))
    [ruled] = events
    call = ruled.public["bluff_call"]
    assert call["verdict"] == "true" and call["claimant"] == "south" and call["caller"] == "north"
    assert call["claim_version"] == moved.version and call["call_version"] == ruled.version
    # A true claim shows the claimed power to everyone: the ruling opens that slot's own commitment.
    slot = slot_record(game, "S1", "movement")
    assert slot.secret == {"piece": "S1", "power_type": "movement", "power": "diagonal"}
    assert call["evidence_version"] == slot.version and ruled.opens == (slot.version,) and ruled.evidence == ()
    assert call["consequences"]["piece_lost_by"] == "north" and call["consequences"]["move_undone"] is False
    assert call["consequences"]["power_revealed"] == "diagonal"
    assert ruled.audience == () and ruled.secret["held"] == {"movement": "diagonal", "action": "sitting"}
    assert square_of(game, "S1") == "b2"
    assert {"piece": "S1", "powers": ["diagonal"], "reason": "true_claim", "version": ruled.version} \
        in gb.view(game.state, SPECTATOR)["revealed"]
    assert gb.to_act(game.state) == ["north"] and game.state["step"]["kind"] == "lose"
    [lost] = game.act("north", ChooseLoss(piece="N6"))
    assert lost.public["powers"] == [] and "N6" in gb.view(game.state, SPECTATOR)["lost"]["north"]
    assert lost.opens == (slot_record(game, "N6", "movement").version, slot_record(game, "N6", "action").version)
    assert game.state["step"] == {"kind": "reassign", "seat": "south", "type": "movement", "roll": None,
                                  "call_version": ruled.version}
    reassigned, *slots = game.act("south", Reassign(power="ghost", piece="S3"))
    assert reassigned.audience == ("south",) and reassigned.public["bluff_call_followup"]["call_version"] == ruled.version
    assert "S3" not in str(reassigned.public)
    assert game.state["assignment_version"]["south"] == reassigned.version
    # Which piece got the new power is secret: the movement slot of every south piece is committed anew.
    assert [(e.kind, e.public["piece"], e.public["power_type"], e.audience) for e in slots] == \
        [("PowerCommitted", p, "movement", ("south",)) for p in ("S1", "S2", "S3", "S4", "S5", "S6")]
    assert [e.secret["power"] for e in slots] == [None, "bulldozer", "ghost", None, None, None]
    powers = gb.view(game.state, Viewer("seat", "south"))["pieces"]
    assert powers["S1"]["powers"] == {"movement": None, "action": "sitting"}
    assert powers["S3"]["powers"] == {"movement": "ghost", "action": None}
    assert gb.to_act(game.state) == ["north"] and game.state["step"]["kind"] == "turn"


def test_call_version_is_the_ruling_records_own_version_after_the_matchs_own_records():
    game = start(gb, base_version=4)
    game.act("south", AssignPowers(powers={"S1": ("diagonal", "sitting"), "S2": ("bulldozer", "moat")}))
    game.act("north", AssignPowers(powers={"N1": ("ghost", "kamikaze"), "N2": ("sidewinder", "detective")}))
    [moved] = game.act("south", MovePiece(piece="S3", to="d2", claims=("diagonal",)))
    [ruled] = game.act("north", CallBluff(claim="diagonal"))
    call = ruled.public["bluff_call"]
    assert (call["claim_version"], call["call_version"]) == (moved.version, ruled.version) == (32, 33)
    # A false claim's evidence (the slot shows what S3 really holds) stays sealed: nothing is opened.
    assert ruled.evidence == (call["evidence_version"],) == (11,) and ruled.opens == ()


def test_a_later_ruling_opens_the_slot_the_reassignment_committed():
    game = new_game()
    game.act("south", MovePiece(piece="S1", to="b2", claims=("diagonal",)))
    game.act("north", CallBluff(claim="diagonal"))
    game.act("north", ChooseLoss(piece="N6"))
    _, *slots = game.act("south", Reassign(power="ghost", piece="S3"))
    game.act("north", MovePiece(piece="N5", to="e4"))
    game.act("south", MovePiece(piece="S3", to="c3", claims=("ghost",)))
    [ruled] = game.act("north", CallBluff(claim="ghost"))
    committed = next(e for e in slots if e.public["piece"] == "S3")
    assert committed.secret["power"] == "ghost"
    assert ruled.public["bluff_call"]["verdict"] == "true" and ruled.opens == (committed.version,)


def test_a_false_move_claim_undoes_the_move_and_costs_the_bluffer_a_piece():
    game = new_game()
    game.act("south", MovePiece(piece="S3", to="d2", claims=("diagonal",)))
    [ruled] = game.act("north", CallBluff(claim="diagonal"))
    call = ruled.public["bluff_call"]
    assert call["verdict"] == "false" and call["consequences"]["piece_lost_by"] == "south"
    assert call["consequences"]["move_undone"] is True and call["consequences"]["power_revealed"] is None
    assert square_of(game, "S3") == "c1"
    assert gb.to_act(game.state) == ["south"]
    assert rule_of(game, "south", MovePiece(piece="S4", to="d3")) == "loss_choice_pending"
    game.act("south", ChooseLoss(piece="S6"))
    assert gb.to_act(game.state) == ["north"] and game.state["powers"]["S3"] == {"movement": None, "action": None}


def test_a_false_claim_the_move_did_not_need_lets_the_move_stand():
    game = new_game()
    game.act("south", MovePiece(piece="S3", to="c3", claims=("ghost",)))
    call = ruling(game.act("north", CallBluff(claim="ghost")))
    assert call["verdict"] == "false" and call["consequences"]["effect"] == "move_stands"
    assert square_of(game, "S3") == "c3"


def test_a_true_sitting_call_leaves_the_sitter_where_it_is():
    game = arrange(new_game(), [("N3", "b2")])
    game.act("south", MovePiece(piece="S1", to="b2", claims=("diagonal", "sitting")))
    call = ruling(game.act("north", CallBluff(claim="sitting")))
    assert call["verdict"] == "true"
    assert board(game)["b2"] == ["N3", "S1"] and game.state["powers"]["S1"]["action"] is None


def test_a_false_push_is_reversed_with_the_whole_stack():
    game = arrange(new_game(), [("N3", "c2"), ("N4", "c2")])
    game.act("south", MovePiece(piece="S3", to="c2", claims=("bulldozer",)))
    assert board(game)["c3"] == ["N3", "N4"]
    call = ruling(game.act("north", CallBluff(claim="bulldozer")))
    assert call["verdict"] == "false" and call["consequences"]["move_undone"]
    assert board(game)["c2"] == ["N3", "N4"] and board(game)["c1"] == ["S3"] and "c3" not in board(game)


def test_a_true_push_of_a_stack_stands():
    game = arrange(new_game(), [("N3", "b2"), ("N4", "b2")])
    game.act("south", MovePiece(piece="S2", to="b2", claims=("bulldozer",)))
    call = ruling(game.act("north", CallBluff(claim="bulldozer")))
    assert call["verdict"] == "true" and board(game)["b3"] == ["N3", "N4"] and board(game)["b2"] == ["S2"]


def test_a_false_sit_is_reversed():
    game = arrange(new_game(), [("N3", "c2"), ("N4", "c2")])
    game.act("south", MovePiece(piece="S3", to="c2", claims=("sitting",)))
    call = ruling(game.act("north", CallBluff(claim="sitting")))
    assert call["verdict"] == "false" and board(game)["c2"] == ["N3", "N4"] and board(game)["c1"] == ["S3"]


def test_a_lost_sat_on_piece_leaves_its_stack_in_place():
    game = arrange(new_game(), [("N3", "b2"), ("N4", "b2")])
    game.act("south", MovePiece(piece="S1", to="b2", claims=("diagonal", "sitting")))
    game.act("north", CallBluff(claim="sitting"))
    [lost] = game.act("north", ChooseLoss(piece="N4"))
    assert lost.public["stack_position"] == 1 and lost.public["square"] == "b2"
    assert board(game)["b2"] == ["N3", "S1"]
    view = gb.view(game.state, SPECTATOR)
    assert view["pieces"]["S1"]["stack_position"] == 1 and view["pieces"]["N4"]["lost"]


def test_a_lost_piece_reveals_its_powers_to_everyone():
    game = new_game()
    game.act("south", MovePiece(piece="S1", to="b2", claims=("diagonal",)))
    game.act("north", CallBluff(claim="diagonal"))
    [lost] = game.act("north", ChooseLoss(piece="N1"))
    assert lost.secret is None and lost.public["powers"] == ["ghost", "kamikaze"]
    assert {"piece": "N1", "powers": ["ghost", "kamikaze"], "reason": "lost", "version": lost.version} \
        in gb.view(game.state, Viewer("seat", "south"))["revealed"]


# ---- detects ---------------------------------------------------------------------------------

def _detect_position():
    return arrange(new_game(), [("S1", "b5"), ("N3", "c5")], to_move="north")


def test_a_true_detect_call_costs_the_caller_and_the_detective_learns_privately():
    game = _detect_position()
    game.act("north", Detect(piece="N2", target="S1"))
    events = game.act("south", CallBluff(claim="detective"))
    assert kinds(events) == ["BluffRuled", "PowersDetected"]
    assert ruling(events)["consequences"]["effect"] == "detect_stands"
    detected = events[1]
    assert detected.audience == ("north",) and detected.secret["powers"] == {"movement": "diagonal", "action": "sitting"}
    assert "diagonal" not in str(detected.public)
    assert gb.view(game.state, Viewer("seat", "north"))["detections"]["north"][0]["target"] == "S1"
    assert "north" not in gb.view(game.state, Viewer("seat", "south"))["detections"]
    game.act("south", ChooseLoss(piece="S6"))
    assert game.state["step"]["kind"] == "reassign" and game.state["step"]["type"] == "action"


def test_a_false_detect_call_yields_nothing():
    game = _detect_position()
    game.act("north", Detect(piece="N3", target="S1"))
    events = game.act("south", CallBluff(claim="detective"))
    assert kinds(events) == ["BluffRuled"] and ruling(events)["consequences"]["effect"] == "detect_void"
    game.act("north", ChooseLoss(piece="N6"))
    assert game.state["detections"]["north"] == [] and gb.to_act(game.state) == ["south"]


def test_an_uncalled_detect_bluff_still_learns():
    game = _detect_position()
    game.act("north", Detect(piece="N3", target="S1"))
    events = game.act("south", Accept())
    assert kinds(events) == ["ClaimAccepted", "PowersDetected"] and events[1].audience == ("north",)
    assert gb.view(game.state, Viewer("seat", "north"))["detections"]["north"][0]["powers"]["movement"] == "diagonal"


# ---- moats -------------------------------------------------------------------------------------

def _moat_position():
    game = arrange(new_game(north=MOAT_NORTH), [("N1", "c4"), ("N3", "e4")])
    game.act("south", MovePiece(piece="S3", to="c3"))
    return game


def test_a_true_moat_call_sends_the_move_back_and_costs_the_mover():
    game = _moat_position()
    game.act("north", ClaimMoat(piece="N1"))
    [ruled] = game.act("south", CallBluff(claim="moat"))
    call = ruled.public["bluff_call"]
    assert call["verdict"] == "true" and call["claimant"] == "north" and call["piece"] == "N1"
    assert call["consequences"]["effect"] == "move_sent_back"
    assert call["evidence_version"] == slot_record(game, "N1", "action").version == ruled.opens[0]
    assert square_of(game, "S3") == "c1"
    game.act("south", ChooseLoss(piece="S6"))
    game.act("north", Reassign(power="moat", piece="N1"))
    assert game.state["powers"]["N1"]["action"] == "moat"
    assert gb.to_act(game.state) == ["south"] and game.state["step"]["kind"] == "turn"
    assert rule_of(game, "south", MovePiece(piece="S3", to="c3")) == "moat_zone_forbidden"


def test_a_false_moat_call_has_no_effect_and_costs_the_bluffer():
    game = arrange(new_game(north=MOAT_NORTH), [("N1", "a4"), ("N3", "c4")])
    game.act("south", MovePiece(piece="S3", to="c3"))
    game.act("north", ClaimMoat(piece="N3"))
    call = ruling(game.act("south", CallBluff(claim="moat")))
    assert call["verdict"] == "false" and call["consequences"]["piece_lost_by"] == "north"
    assert call["consequences"]["effect"] == "claim_void" and square_of(game, "S3") == "c3"
    game.act("north", ChooseLoss(piece="N6"))
    assert gb.to_act(game.state) == ["north"] and game.state["turn"]["forbidden"] == []


# ---- kamikazes -----------------------------------------------------------------------------------

def test_a_true_kamikaze_call_removes_the_sitter_and_costs_the_caller_another_piece():
    game = arrange(new_game(), [("N1", "c2")])
    game.act("south", MovePiece(piece="S3", to="c2", claims=("sitting",)))
    game.act("north", ClaimKamikaze(piece="N1"))
    call = ruling(game.act("south", CallBluff(claim="kamikaze")))
    assert call["verdict"] == "true" and call["consequences"]["sitter_removed"] == "S3"
    assert board(game)["c2"] == ["N1"] and gb.view(game.state, SPECTATOR)["lost"]["south"] == ["S3"]
    assert game.state["step"] == {"kind": "lose", "seat": "south", "loser": "south", "call_version": call["call_version"]}
    game.act("south", ChooseLoss(piece="S6"))
    assert len(game.state["lost"]["south"]) == 2
    game.act("north", Reassign(power="kamikaze", piece="N1"))
    assert gb.to_act(game.state) == ["north"]


def test_a_false_kamikaze_call_has_no_effect_and_the_sit_stands():
    game = arrange(new_game(), [("N3", "b2")])
    game.act("south", MovePiece(piece="S1", to="b2", claims=("diagonal", "sitting")))
    game.act("north", ClaimKamikaze(piece="N3"))
    call = ruling(game.act("south", CallBluff(claim="kamikaze")))
    assert call["verdict"] == "false" and call["consequences"]["piece_lost_by"] == "north"
    assert board(game)["b2"] == ["N3", "S1"]


# ---- loss choice -----------------------------------------------------------------------------------

def test_the_loser_picks_the_lost_piece_by_default():
    game = new_game()
    game.act("south", MovePiece(piece="S3", to="d2", claims=("diagonal",)))
    game.act("north", CallBluff(claim="diagonal"))
    assert gb.to_act(game.state) == ["south"]
    assert {c.piece for c in gb.legal_commands(game.state, "south") if isinstance(c, ChooseLoss)} == \
        {"S1", "S2", "S3", "S4", "S5", "S6"}
    assert rule_of(game, "south", ChooseLoss(piece="N1")) == "not_your_piece"


def test_the_winner_of_the_call_picks_when_configured():
    game = new_game({"loss_choice": "winner"})
    game.act("south", MovePiece(piece="S3", to="d2", claims=("diagonal",)))
    game.act("north", CallBluff(claim="diagonal"))
    assert gb.to_act(game.state) == ["north"]
    assert rule_of(game, "south", ChooseLoss(piece="S1")) == "not_your_turn"
    assert rule_of(game, "north", ChooseLoss(piece="N1")) == "not_your_piece"
    [lost] = game.act("north", ChooseLoss(piece="S2"))
    assert lost.public["chosen_by"] == "north" and lost.public["seat"] == "south"


def test_a_lost_piece_cannot_be_lost_again():
    game = new_game()
    game.act("south", MovePiece(piece="S3", to="d2", claims=("diagonal",)))
    game.act("north", CallBluff(claim="diagonal"))
    game.act("south", ChooseLoss(piece="S6"))
    game.act("north", MovePiece(piece="N3", to="c4"))
    game.act("south", MovePiece(piece="S4", to="e2", claims=("diagonal",)))
    game.act("north", CallBluff(claim="diagonal"))
    assert rule_of(game, "south", ChooseLoss(piece="S6")) == "piece_lost"


# ---- reassignment -------------------------------------------------------------------------------

def test_reassignment_takes_a_power_of_the_revealed_type_onto_an_own_piece():
    game = new_game()
    game.act("south", MovePiece(piece="S1", to="b2", claims=("diagonal",)))
    game.act("north", CallBluff(claim="diagonal"))
    game.act("north", ChooseLoss(piece="N6"))
    assert rule_of(game, "south", Reassign(power="moat", piece="S3")) == "power_not_allowed"
    assert rule_of(game, "south", Reassign(power="warp", piece="S3")) == "unknown_power"
    assert rule_of(game, "south", Reassign(power="ghost", piece="N3")) == "not_your_piece"
    assert rule_of(game, "south", MovePiece(piece="S3", to="c3")) == "reassignment_pending"
    assert len([c for c in gb.legal_commands(game.state, "south") if isinstance(c, Reassign)]) == 4 * 6
    game.act("south", Reassign(power="diagonal", piece="S2"))
    assert game.state["powers"]["S2"] == {"movement": "diagonal", "action": "moat"}  # bulldozer replaced


def _apart(choice, prefix: str) -> AssignPowers:
    """The member of an assignment choice with its movement powers on pieces 1 and 2, its action powers on 3, 4."""
    movement, action = (part["values"] for part in choice.body()["free"]["powers"]["pairs"])
    placed = zip((f"{prefix}{n}" for n in range(1, 5)), [*movement, *action])
    command = AssignPowers(powers={piece: (power,) for piece, power in placed})
    assert choice.admits(command)
    return command


def _roll_game_after_true_claim(want_wild: bool):
    """A roll-mode game where south's true movement claim was just called, with the wanted kind of die."""
    for seed in range(200):
        game = start(gb, {"power_mode": "roll"}, server_seed=seed.to_bytes(32, "big"))
        for seat in ("south", "north"):
            game.act(seat, _apart(gb.legal_choices(game.state, seat)[0], seat[0].upper()))
        piece = next(p for p in ("S1", "S2", "S3") if game.state["powers"][p]["movement"])
        power = game.state["powers"][piece]["movement"]
        move = next(c for c in gb.legal_commands(game.state, "south")
                    if isinstance(c, MovePiece) and c.piece == piece and c.claims == (power,))
        game.act("south", move)
        events = game.act("north", CallBluff(claim=power))
        roll = events[-1].secret["chance_result"]
        if (roll >= 5) == want_wild:
            return game, events
    raise AssertionError("no seed found")


@pytest.mark.parametrize("wild", [False, True])
def test_roll_mode_reassignment_rolls_one_secret_die_and_five_or_six_is_wild(wild):
    game, events = _roll_game_after_true_claim(wild)
    rolled = events[-1]
    assert rolled.kind == "ReassignmentDieRolled" and rolled.audience == ("south",)
    assert "chance_result" not in rolled.public and rolled.public["power_type"] == "movement"
    north_loss = next(c for c in gb.legal_commands(game.state, "north") if isinstance(c, ChooseLoss))
    game.act("north", north_loss)
    assert "roll" not in gb.view(game.state, Viewer("seat", "north"))["step"]
    assert gb.view(game.state, Viewer("seat", "south"))["step"]["roll"] == rolled.secret["chance_result"]
    offered = {c.power for c in gb.legal_commands(game.state, "south") if isinstance(c, Reassign)}
    if wild:
        assert offered == {"diagonal", "ghost", "sidewinder", "bulldozer"}
    else:
        face = ("diagonal", "ghost", "sidewinder", "bulldozer")[rolled.secret["chance_result"] - 1]
        assert offered == {face}
        other = next(p for p in ("diagonal", "ghost", "sidewinder", "bulldozer") if p != face)
        assert rule_of(game, "south", Reassign(power=other, piece="S4")) == "power_not_allowed"
    reassigned, *slots = game.act("south", Reassign(power=min(offered), piece="S4"))
    assert game.state["assignment_version"]["south"] == reassigned.version
    assert {e.public["piece"] for e in slots} == set(on_board(game.state, "south"))


# ---- winning through losses -------------------------------------------------------------------

def test_a_seat_that_has_lost_four_pieces_loses():
    game = new_game()
    for piece in ("N3", "N4", "N5"):
        game.record([Event("PieceLost", {"seat": "north", "piece": piece, "chosen_by": "north", "square": None,
                                         "stack_position": 0, "powers": [], "call_version": 0})])
    game.act("south", MovePiece(piece="S1", to="b2", claims=("diagonal",)))
    game.act("north", CallBluff(claim="diagonal"))
    game.act("north", ChooseLoss(piece="N6"))
    assert gb.outcome(game.state) == {"winners": ["south"], "reason": "captures", "lost": {"south": 0, "north": 4}}
    assert gb.to_act(game.state) == []


def test_a_sitter_removed_by_a_true_kamikaze_can_be_the_fourth_loss_and_ends_the_match_at_once():
    for config in ({}, {"power_mode": "roll"}):
        game = arrange(new_game(), [("N1", "c2")])
        game.state["config"].update(config)  # in roll mode the reassignment die would follow the ruling
        for piece in ("S4", "S5", "S6"):
            game.record([Event("PieceLost", {"seat": "south", "piece": piece, "chosen_by": "south", "square": None,
                                             "stack_position": 0, "powers": [], "call_version": 0})])
        game.act("south", MovePiece(piece="S3", to="c2", claims=("sitting",)))
        game.act("north", ClaimKamikaze(piece="N1"))
        events = game.act("south", CallBluff(claim="kamikaze"))
        assert kinds(events) == ["BluffRuled", "MatchWon"] and events[-1].public == {"winner": "north",
                                                                                    "reason": "captures"}
        assert gb.outcome(game.state) == {"winners": ["north"], "reason": "captures", "lost": {"south": 4, "north": 0}}


def test_when_both_seats_win_at_once_the_seat_that_just_moved_wins():
    game = arrange(new_game({"loss_choice": "winner"}), [
        ("S1", "a4"), ("N1", "a1"), ("S1", "a6"), ("S3", "c4"), ("N3", "c1"), ("S5", "c1"),
        ("S2", "b4"), ("N2", "b1"), ("S2", "b6"), ("S3", "c5")], to_move="south")
    assert gb.outcome(game.state) is None
    game.act("south", MovePiece(piece="S3", to="c6", claims=("ghost",)))
    call = ruling(game.act("north", CallBluff(claim="ghost")))
    assert call["verdict"] == "false" and call["consequences"]["effect"] == "move_stands"
    game.act("north", ChooseLoss(piece="S5"))  # unsits N3: north now has three on row 1 as well
    view = gb.view(game.state, SPECTATOR)
    assert view["far_row"] == {"south": 3, "north": 3}
    assert gb.outcome(game.state)["winners"] == ["south"] and gb.outcome(game.state)["reason"] == "far_row"
    # The turn has passed to north before the win is declared: the verdict is still the mover's.
    assert game.events[-1].public == {"winner": "south", "reason": "far_row"}
