"""gambit-board: config, setup, assignment, move geometry, responses and winning — one test per rule."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

import pytest

from domain.ruleset import Command, ConfigError, RuleViolation, Viewer, config_from_dict
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
    Resign,
)
from domain.verification import verify_export
from tests.rules.gambit_board_scenarios import (
    NORTH,
    SOUTH,
    arrange,
    kinds,
    new_game,
    slot_record,
    square_of,
    state_before,
)
from tests.rules.test_derived_secrets import export_lines, playout
from tests.support.harness import start


def rule_of(game, seat, command) -> str:
    """The rule a refused command breaks."""
    with pytest.raises(RuleViolation) as refused:
        game.act(seat, command)
    return refused.value.rule


# ---- config and setup ---------------------------------------------------------------------

def test_config_defaults_are_select_loser_south_standard():
    config = config_from_dict(gb.Config, {})
    assert (config.power_mode, config.loss_choice, config.first_seat, config.board) == ("select", "loser", "south", "standard")


@pytest.mark.parametrize("raw, field", [
    ({"power_mode": "draft"}, "power_mode"), ({"loss_choice": "judge"}, "loss_choice"),
    ({"first_seat": "east"}, "first_seat"), ({"board": "longboard"}, "board"),
    ({"players": 4}, "players"), ({"speed": 1}, "speed"), ({"player_powers": "yes"}, "player_powers"),
])
def test_unsupported_config_values_are_refused(raw, field):
    with pytest.raises(ConfigError) as refused:
        config_from_dict(gb.Config, raw)
    assert refused.value.field == field


def test_seats_are_south_then_north():
    assert gb.seat_names(config_from_dict(gb.Config, {})) == ["south", "north"]


def test_pieces_start_left_to_right_on_home_rows():
    board = gb.view(start(gb).state, Viewer("spectator"))["board"]
    assert board["a1"] == ["S1"] and board["f1"] == ["S6"] and board["a6"] == ["N1"] and board["f6"] == ["N6"]
    assert len(board) == 12


def test_south_moves_first_by_default():
    assert new_game().state["turn"]["seat"] == "south"


def test_north_moves_first_when_configured():
    game = new_game({"first_seat": "north"})
    assert gb.to_act(game.state) == ["north"]
    assert rule_of(game, "south", MovePiece(piece="S1", to="a2")) == "not_your_turn"


def test_random_first_seat_is_a_public_chance_event():
    seen = set()
    for seed in range(8):
        game = start(gb, {"first_seat": "random"}, server_seed=bytes([seed]) * 32)
        drawn = game.events[0]
        assert drawn.kind == "FirstSeatDrawn" and drawn.secret is None
        assert drawn.public["chance"]["draw"] == "draw" and drawn.public["chance"]["n"] == 2
        seen.add(game.state["first_seat"])
        assert game.state["first_seat"] == ["south", "north"][drawn.public["chance_result"]]
    assert seen == {"south", "north"}


def test_both_seats_assign_in_secret_before_play_starts():
    game = start(gb)
    assert gb.to_act(game.state) == ["south", "north"]
    assert rule_of(game, "south", MovePiece(piece="S1", to="a2")) == "assignment_pending"
    assigned, *slots = game.act("north", AssignPowers(powers=NORTH))
    assert assigned.audience == ("north",) and "assignment" in assigned.secret
    assert "N1" not in str(assigned.public)
    # Each power slot gets its own commitment, secret to the seat, so a reveal can open just one.
    assert [(e.kind, e.public["piece"], e.public["power_type"]) for e in slots] == \
        [("PowerCommitted", f"N{i}", kind) for i in range(1, 7) for kind in ("movement", "action")]
    assert all(e.audience == ("north",) for e in slots)
    assert slots[0].secret == {"piece": "N1", "power_type": "movement", "power": "ghost"}
    assert gb.to_act(game.state) == ["south"]
    assert rule_of(game, "north", AssignPowers(powers=NORTH)) == "already_assigned"
    game.act("south", AssignPowers(powers=SOUTH))
    assert gb.to_act(game.state) == ["south"]
    assert rule_of(game, "north", AssignPowers(powers=NORTH)) == "not_your_turn"


def test_assignment_version_is_recorded_as_bluff_evidence():
    game = new_game()
    versions = {e.public["seat"]: e.version for e in game.events if e.kind == "PowersAssigned"}
    assert game.state["assignment_version"] == versions == {"south": 2, "north": 15}
    slots = {(e.public["piece"], e.public["power_type"]): e.version for e in game.events if e.kind == "PowerCommitted"}
    assert {(p, k): game.state["slots"][p][k] for p, k in slots} == slots and len(slots) == 24


@pytest.mark.parametrize("powers", [
    {"S1": ("diagonal", "moat"), "S2": ("diagonal", "sitting")},                # same movement twice
    {"S1": ("diagonal", "moat"), "S2": ("ghost", "moat")},                      # same action twice
    {"S1": ("diagonal", "moat"), "S2": ("ghost",)},                             # only one action power
    {"S1": ("diagonal", "moat"), "S2": ("ghost", "sitting"), "S3": ("detective",)},  # five powers
])
def test_select_mode_takes_two_different_powers_of_each_type(powers):
    assert rule_of(start(gb), "south", AssignPowers(powers=powers)) == "invalid_assignment"


def test_a_piece_holds_at_most_one_power_of_each_type():
    powers = {"S1": ("diagonal", "ghost"), "S2": ("moat", "sitting")}
    assert rule_of(start(gb), "south", AssignPowers(powers=powers)) == "invalid_assignment"


def test_assignment_names_real_powers_and_own_pieces():
    game = start(gb)
    assert rule_of(game, "south", AssignPowers(powers={"S1": ("teleport", "moat")})) == "unknown_power"
    assert rule_of(game, "south", AssignPowers(powers={"N1": ("diagonal", "moat"), "S2": ("ghost", "sitting")})) == "unknown_piece"


def test_every_valid_assignment_is_formed_from_exactly_one_choice_and_accepted():
    game = start(gb)
    odd = {"S6": ("sidewinder", "kamikaze"), "S3": ("bulldozer",), "S5": ("detective",)}
    assert gb.legal_commands(game.state, "south") == [Resign()]
    choices = gb.legal_choices(game.state, "south")
    assert len(choices) == 6 * 6  # a pair of movement powers and a pair of action powers
    assert sum(choice.admits(AssignPowers(powers=odd)) for choice in choices) == 1
    game.act("south", AssignPowers(powers=odd))
    assert game.state["powers"]["S6"] == {"movement": "sidewinder", "action": "kamikaze"}


def _roll_game(predicate):
    """The first roll-mode game (by server seed) whose south dice satisfy `predicate(faces, events)`."""
    for seed in range(400):
        game = start(gb, {"power_mode": "roll"}, server_seed=seed.to_bytes(32, "big"))
        faces = gb.view(game.state, Viewer("seat", "south"))["dice"]["south"]
        if predicate(faces, game.events):
            return game, faces
    raise AssertionError("no seed found")


def test_roll_mode_rolls_two_movement_and_two_action_dice_secret_to_the_seat():
    game = start(gb, {"power_mode": "roll"})
    rolls = [e for e in game.events if e.kind == "PowerDieRolled"]
    assert {e.public["seat"] for e in rolls} == {"south", "north"}
    for e in rolls:
        assert e.audience == (e.public["seat"],) and 1 <= e.secret["chance_result"] <= 6
        assert "chance_result" not in e.public and e.public["chance"]["n"] == 6
    view = gb.view(game.state, Viewer("seat", "south"))
    assert set(view["dice"]) == {"south"} and len(view["dice"]["south"]["movement"]) == 2


def test_rolled_double_moat_rerolls_all_four_dice():
    game, faces = _roll_game(lambda f, events: any(e.public["attempt"] == 2 and e.public["seat"] == "south"
                                                   for e in events if e.kind == "PowerDieRolled"))
    first = [e for e in game.events if e.kind == "PowerDieRolled" and e.public["seat"] == "south"
             and e.public["attempt"] == 1]
    assert len(first) == 4 and [e.secret["chance_result"] for e in first if e.public["die"] == "action"] == [1, 1]
    assert faces["action"] != ["moat", "moat"]


def test_roll_mode_assignment_must_use_the_rolled_faces_and_wilds_are_free():
    game, faces = _roll_game(lambda f, events: f["movement"].count("wild") == 1 and "wild" not in f["action"])
    [fixed] = [p for p in faces["movement"] if p != "wild"]
    other = next(p for p in ("diagonal", "ghost", "sidewinder", "bulldozer") if p != fixed)
    actions = {"S3": (faces["action"][0],), "S4": (faces["action"][1],)}
    assert rule_of(game, "south", AssignPowers(powers={"S1": (other,), "S2": (other,), **actions})) == "invalid_assignment"
    game.act("south", AssignPowers(powers={"S1": (fixed,), "S2": (other,), **actions}))
    assert game.state["powers"]["S2"]["movement"] == other


def test_roll_mode_duplicate_powers_stand_on_different_pieces():
    game, faces = _roll_game(lambda f, events: f["movement"][0] == f["movement"][1] != "wild"
                             and "wild" not in f["action"])
    same = faces["movement"][0]
    game.act("south", AssignPowers(powers={"S1": (same, faces["action"][0]), "S2": (same, faces["action"][1])}))
    assert game.state["powers"]["S1"]["movement"] == game.state["powers"]["S2"]["movement"] == same


# ---- moves ------------------------------------------------------------------------------

def test_plain_move_goes_one_or_two_squares_orthogonally():
    game = new_game()
    game.act("south", MovePiece(piece="S3", to="c3"))
    assert square_of(game, "S3") == "c3"
    game.act("north", MovePiece(piece="N3", to="c5"))
    assert rule_of(game, "south", MovePiece(piece="S4", to="d4")) == "illegal_geometry"
    assert rule_of(game, "south", MovePiece(piece="S4", to="e2")) == "illegal_geometry"


def test_a_move_with_no_claims_far_from_opponents_passes_the_turn_at_once():
    game = new_game()
    events = game.act("south", MovePiece(piece="S3", to="c3"))
    assert kinds(events) == ["PieceMoved"] and gb.to_act(game.state) == ["north"]


def test_a_move_ending_next_to_an_opposing_piece_opens_the_response_window():
    game = arrange(new_game(), [("N3", "c4")])
    game.act("south", MovePiece(piece="S3", to="c3"))
    assert gb.to_act(game.state) == ["north"] and game.state["step"]["kind"] == "respond"
    assert gb.view(game.state, Viewer("spectator"))["pending"]["plan"]["to"] == "c3"


def test_a_claimed_move_always_opens_the_response_window():
    game = new_game()
    game.act("south", MovePiece(piece="S1", to="b2", claims=("diagonal",)))
    assert game.state["step"] == {"kind": "respond", "seat": "north"}


def test_plain_move_cannot_pass_a_piece():
    game = arrange(new_game(), [("N3", "c2")])
    assert rule_of(game, "south", MovePiece(piece="S3", to="c3")) == "path_blocked"


def test_plain_move_cannot_end_on_a_piece():
    game = arrange(new_game(), [("N3", "c3")])
    assert rule_of(game, "south", MovePiece(piece="S3", to="c3")) == "square_occupied"
    assert rule_of(game, "south", MovePiece(piece="S3", to="d1")) == "square_occupied"


def test_move_off_the_board_is_refused():
    game = new_game()
    assert rule_of(game, "south", MovePiece(piece="S1", to="a0")) == "off_board"
    assert rule_of(game, "south", MovePiece(piece="S1", to="z9")) == "off_board"


def test_move_names_one_of_your_pieces_on_the_board():
    game = new_game()
    assert rule_of(game, "south", MovePiece(piece="X9", to="a2")) == "unknown_piece"
    assert rule_of(game, "south", MovePiece(piece="N1", to="a5")) == "not_your_piece"


def test_not_your_turn():
    assert rule_of(new_game(), "north", MovePiece(piece="N1", to="a5")) == "not_your_turn"


def test_diagonal_claim_moves_one_or_two_squares_diagonally():
    game = new_game()
    assert rule_of(game, "south", MovePiece(piece="S2", to="c2")) == "illegal_geometry"
    game.act("south", MovePiece(piece="S2", to="d3", claims=("diagonal",)))
    assert square_of(game, "S2") == "d3"


def test_diagonal_cannot_jump_a_piece():
    game = arrange(new_game(), [("N3", "c2")])
    assert rule_of(game, "south", MovePiece(piece="S2", to="d3", claims=("diagonal",))) == "path_blocked"


def test_ghost_passes_through_pieces_but_cannot_end_on_one():
    game = arrange(new_game(), [("N3", "c2"), ("N4", "d3")])
    game.act("south", MovePiece(piece="S3", to="c3", claims=("ghost",)))
    assert square_of(game, "S3") == "c3"
    game = arrange(new_game(), [("N3", "c2")])
    assert rule_of(game, "south", MovePiece(piece="S3", to="c2", claims=("ghost",))) == "square_occupied"


def test_ghost_with_sitting_may_end_on_a_piece():
    game = arrange(new_game(), [("N3", "c2"), ("N4", "c3")])
    game.act("south", MovePiece(piece="S3", to="c3", claims=("ghost", "sitting")))
    assert gb.view(game.state, Viewer("spectator"))["board"]["c3"] == ["N4", "S3"]


def test_sidewinder_joins_the_left_and_right_edges_for_horizontal_moves():
    game = arrange(new_game(), [("S1", "a2")])
    assert rule_of(game, "south", MovePiece(piece="S1", to="f2")) == "illegal_geometry"
    game.act("south", MovePiece(piece="S1", to="e2", claims=("sidewinder",)))
    assert square_of(game, "S1") == "e2"


def test_sidewinder_does_not_wrap_vertically():
    game = new_game()
    assert rule_of(game, "south", MovePiece(piece="S1", to="a6", claims=("sidewinder",))) == "illegal_geometry"


def test_bulldozer_pushes_an_adjacent_piece_one_square_further():
    game = arrange(new_game(), [("N3", "c2")])
    game.act("south", MovePiece(piece="S3", to="c2", claims=("bulldozer",)))
    board = gb.view(game.state, Viewer("spectator"))["board"]
    assert board["c2"] == ["S3"] and board["c3"] == ["N3"] and "c1" not in board


def test_bulldozer_pushes_own_pieces_too():
    game = arrange(new_game(), [("S4", "c2")])
    game.act("south", MovePiece(piece="S3", to="c2", claims=("bulldozer",)))
    assert square_of(game, "S4") == "c3"


def test_bulldozer_push_needs_an_empty_square_on_the_board_beyond():
    game = arrange(new_game(), [("N3", "c2"), ("N4", "c3")])
    assert rule_of(game, "south", MovePiece(piece="S3", to="c2", claims=("bulldozer",))) == "push_blocked"
    game = new_game()
    assert rule_of(game, "south", MovePiece(piece="S2", to="a1", claims=("bulldozer",))) == "push_blocked"  # off board
    assert rule_of(game, "south", MovePiece(piece="S2", to="c1", claims=("bulldozer",))) == "push_blocked"  # occupied


def test_bulldozer_pushes_a_whole_stack():
    game = arrange(new_game(), [("N3", "c2"), ("N4", "c2")])
    game.act("south", MovePiece(piece="S3", to="c2", claims=("bulldozer",)))
    board = gb.view(game.state, Viewer("spectator"))["board"]
    assert board["c3"] == ["N3", "N4"] and board["c2"] == ["S3"]


def test_sitting_ends_on_a_piece_and_the_piece_below_cannot_move():
    game = arrange(new_game(), [("N3", "c2")])
    game.act("south", MovePiece(piece="S3", to="c2", claims=("sitting",)))
    game.act("north", Accept())
    view = gb.view(game.state, Viewer("spectator"))
    assert view["board"]["c2"] == ["N3", "S3"]
    assert view["pieces"]["N3"]["sat_on"] and view["pieces"]["N3"]["stack_position"] == 0
    assert view["pieces"]["S3"]["stack_position"] == 1
    assert rule_of(game, "north", MovePiece(piece="N3", to="c3")) == "piece_is_sat_on"


def test_sitting_on_a_stack_puts_the_mover_on_top():
    game = arrange(new_game(), [("N3", "c2"), ("N4", "c2")])
    game.act("south", MovePiece(piece="S3", to="c2", claims=("sitting",)))
    assert gb.view(game.state, Viewer("spectator"))["board"]["c2"] == ["N3", "N4", "S3"]


def test_at_most_one_movement_and_one_action_power_per_claim():
    game = arrange(new_game(), [("N3", "c3")])
    assert rule_of(game, "south", MovePiece(piece="S2", to="d3", claims=("diagonal", "ghost"))) == "too_many_claims"
    assert rule_of(game, "south", MovePiece(piece="S3", to="c3", claims=("sitting", "sitting"))) == "duplicate_claim"


def test_claims_name_real_powers():
    assert rule_of(new_game(), "south", MovePiece(piece="S1", to="b2", claims=("flying",))) == "unknown_power"


def test_moat_kamikaze_and_detective_are_not_claimed_by_moving():
    for power in ("moat", "kamikaze", "detective"):
        assert rule_of(new_game(), "south", MovePiece(piece="S1", to="a2", claims=(power,))) == "claim_not_applicable"


def test_bridges_squares_are_impassable_even_for_a_ghost():
    game = arrange(new_game({"board": "bridges"}), [("S3", "c2"), ("S1", "a2"), ("S2", "b3")])
    assert rule_of(game, "south", MovePiece(piece="S3", to="c3")) == "impassable_square"
    assert rule_of(game, "south", MovePiece(piece="S3", to="c3", claims=("ghost",))) == "impassable_square"
    assert rule_of(game, "south", MovePiece(piece="S1", to="a4", claims=("ghost",))) == "impassable_square"
    assert rule_of(game, "south", MovePiece(piece="S2", to="c4", claims=("diagonal",))) == "impassable_square"
    game.act("south", MovePiece(piece="S2", to="b5"))
    assert square_of(game, "S2") == "b5"
    assert "c3" in gb.view(game.state, Viewer("spectator"))["impassable"]


def test_bridges_block_pushes_into_impassable_squares():
    game = arrange(new_game({"board": "bridges"}), [("N3", "c2"), ("S3", "c1")])
    assert rule_of(game, "south", MovePiece(piece="S3", to="c2", claims=("bulldozer",))) == "push_blocked"


def test_legal_moves_are_all_accepted_and_cover_every_claim_set():
    game = arrange(new_game(), [("N3", "c2")])
    moves = [c for c in gb.legal_commands(game.state, "south") if isinstance(c, MovePiece)]
    assert MovePiece(piece="S3", to="c2", claims=("bulldozer",)) in moves
    assert MovePiece(piece="S1", to="e1", claims=("sidewinder",)) not in moves  # e1 is occupied
    for move in moves:
        gb.decide(game.state, "south", move, game.chance())


# ---- detect --------------------------------------------------------------------------------

def test_detect_needs_an_opposing_piece_in_the_eight_squares_around():
    game = arrange(new_game(), [("N3", "c3"), ("S2", "b2")])
    assert rule_of(game, "south", Detect(piece="S2", target="N4")) == "not_adjacent"
    assert rule_of(game, "south", Detect(piece="S2", target="S3")) == "not_opposing_piece"
    assert rule_of(game, "south", Detect(piece="S2", target="Q1")) == "unknown_piece"
    events = game.act("south", Detect(piece="S2", target="N3"))
    assert kinds(events) == ["DetectClaimed"] and game.state["step"]["kind"] == "respond"


def test_a_sat_on_piece_may_still_detect():
    game = arrange(new_game(), [("N3", "b3"), ("S1", "b2"), ("N4", "b2")])
    game.act("south", Detect(piece="S1", target="N3"))
    assert game.state["pending"]["kind"] == "detect"


# ---- the response window ----------------------------------------------------------------

def test_accept_lets_the_move_stand_and_passes_the_turn():
    game = new_game()
    game.act("south", MovePiece(piece="S1", to="b2", claims=("diagonal",)))
    events = game.act("north", Accept())
    assert kinds(events) == ["ClaimAccepted"] and square_of(game, "S1") == "b2"
    assert gb.to_act(game.state) == ["north"] and game.state["step"]["kind"] == "turn"


def test_no_response_pending():
    game = new_game()
    assert rule_of(game, "south", Accept()) == "no_response_pending"
    assert rule_of(game, "south", CallBluff(claim="ghost")) == "no_response_pending"


def test_only_the_opponent_answers_a_move():
    game = new_game()
    game.act("south", MovePiece(piece="S1", to="b2", claims=("diagonal",)))
    assert rule_of(game, "south", Accept()) == "not_your_turn"
    assert rule_of(game, "north", MovePiece(piece="N1", to="a5")) == "response_pending"


def test_a_call_names_a_claim_that_was_made():
    game = new_game()
    game.act("south", MovePiece(piece="S1", to="b2", claims=("diagonal",)))
    assert rule_of(game, "north", CallBluff(claim="ghost")) == "claim_not_made"
    assert rule_of(game, "north", CallBluff(claim="magic")) == "unknown_power"


def test_moat_claim_needs_a_piece_next_to_the_destination():
    game = arrange(new_game(), [("N3", "c4")])
    game.act("south", MovePiece(piece="S3", to="c3"))
    assert rule_of(game, "north", ClaimMoat(piece="N1")) == "not_adjacent"
    assert rule_of(game, "north", ClaimMoat(piece="S3")) == "not_your_piece"


def test_cannot_claim_moat_against_ghost():
    game = arrange(new_game(), [("N3", "c4")])
    game.act("south", MovePiece(piece="S3", to="c3", claims=("ghost",)))
    assert rule_of(game, "north", ClaimMoat(piece="N3")) == "cannot_claim_moat_against_ghost"
    assert ClaimMoat(piece="N3") not in gb.legal_commands(game.state, "north")


def test_moat_cannot_answer_a_detect():
    game = arrange(new_game(), [("N3", "c3"), ("S2", "b2")])
    game.act("south", Detect(piece="S2", target="N3"))
    assert rule_of(game, "north", ClaimMoat(piece="N3")) == "not_a_move"


def test_accepted_moat_takes_the_move_back_and_forbids_that_zone_this_turn():
    game = arrange(new_game(), [("N3", "c4")])
    game.act("south", MovePiece(piece="S3", to="c3"))
    game.act("north", ClaimMoat(piece="N3"))
    assert gb.to_act(game.state) == ["south"] and game.state["step"]["kind"] == "counter"
    events = game.act("south", Accept())
    assert kinds(events) == ["MoatAccepted"] and square_of(game, "S3") == "c1"
    assert gb.to_act(game.state) == ["south"]
    assert rule_of(game, "south", MovePiece(piece="S3", to="c3")) == "moat_zone_forbidden"
    assert rule_of(game, "south", MovePiece(piece="S4", to="d3")) == "moat_zone_forbidden"
    assert all(c.to not in ("b3", "c3", "d3") for c in gb.legal_commands(game.state, "south") if isinstance(c, MovePiece))
    game.act("south", MovePiece(piece="S4", to="d2"))
    assert gb.to_act(game.state) == ["north"] and game.state["turn"]["forbidden"] == []


def test_only_accept_or_call_answers_a_moat_claim():
    game = arrange(new_game(), [("N3", "c4")])
    game.act("south", MovePiece(piece="S3", to="c3"))
    game.act("north", ClaimMoat(piece="N3"))
    assert rule_of(game, "south", ClaimMoat(piece="S2")) == "counter_response_only"
    assert rule_of(game, "south", CallBluff(claim="kamikaze")) == "claim_not_made"
    assert set(gb.legal_commands(game.state, "south")) == {Accept(), CallBluff(claim="moat"), Resign()}


def test_kamikaze_claim_names_the_piece_just_sat_on():
    game = arrange(new_game(), [("N3", "c2"), ("N4", "d3")])
    game.act("south", MovePiece(piece="S3", to="c2", claims=("sitting",)))
    assert rule_of(game, "north", ClaimKamikaze(piece="N4")) == "not_sat_on"
    game = arrange(new_game(), [("N4", "d3")])
    game.act("south", MovePiece(piece="S3", to="c3"))
    assert rule_of(game, "north", ClaimKamikaze(piece="N4")) == "not_sat_on"


def test_accepted_kamikaze_removes_the_sitter_and_spends_the_power():
    game = arrange(new_game(), [("N1", "c2")])
    game.act("south", MovePiece(piece="S3", to="c2", claims=("sitting",)))
    game.act("north", ClaimKamikaze(piece="N1"))
    events = game.act("south", Accept())
    assert kinds(events) == ["KamikazeAccepted", "PowerCommitted"]
    # The sitter's powers are shown (its slots opened); the spent kamikaze is committed anew.
    accepted, spent = events
    assert accepted.opens == (slot_record(game, "S3", "movement").version, slot_record(game, "S3", "action").version)
    assert spent.public == {"seat": "north", "piece": "N1", "power_type": "action", "reason": "kamikaze_spent"}
    assert spent.secret == {"piece": "N1", "power_type": "action", "power": None} and spent.audience == ("north",)
    view = gb.view(game.state, Viewer("seat", "north"))
    assert view["lost"]["south"] == ["S3"] and view["board"]["c2"] == ["N1"]
    assert view["pieces"]["N1"]["powers"] == {"movement": "ghost", "action": None}
    assert gb.to_act(game.state) == ["north"]


def test_a_kamikaze_given_while_sat_on_spares_the_current_sitter():
    """Only the piece the mover just sat on can be claimed; an older sitter is never answered."""
    game = arrange(new_game(), [("N1", "c2"), ("S3", "c2")], to_move="south")
    game.act("south", MovePiece(piece="S4", to="d2"))
    assert ClaimKamikaze(piece="N1") not in gb.legal_commands(game.state, "north")
    assert rule_of(game, "north", ClaimKamikaze(piece="N1")) == "not_sat_on"


# ---- winning --------------------------------------------------------------------------------

def test_three_unsat_pieces_on_the_far_row_win():
    game = arrange(new_game(), [("N1", "a4"), ("N2", "b4"), ("N3", "c4"), ("S1", "a5"), ("S2", "b6"), ("S3", "c6")],
                   to_move="south")
    assert gb.outcome(game.state) is None
    game.act("south", MovePiece(piece="S1", to="a6"))
    assert gb.outcome(game.state)["winners"] == ["south"] and gb.outcome(game.state)["reason"] == "far_row"
    assert gb.to_act(game.state) == []


def test_a_win_is_decided_and_recorded_as_its_own_event_that_evolve_applies():
    game = arrange(new_game(), [("N1", "a4"), ("N2", "b4"), ("N3", "c4"), ("S1", "a5"), ("S2", "b6"), ("S3", "c6")],
                   to_move="south")
    events = game.act("south", MovePiece(piece="S1", to="a6"))
    assert kinds(events) == ["PieceMoved", "MatchWon"]
    assert events[-1].public == {"winner": "south", "reason": "far_row"}
    assert gb.derived_public(state_before(game, events[-1].version), events[-1]) == events[-1].public


def test_evolve_never_declares_a_win_by_itself():
    """A position folded from recorded moves alone stays running: only a recorded MatchWon ends it."""
    game = arrange(new_game(), [("N1", "a4"), ("N2", "b4"), ("N3", "c4"), ("S1", "a6"), ("S2", "b6"), ("S3", "c6")],
                   to_move="north")
    assert gb.view(game.state, Viewer("spectator"))["far_row"]["south"] == 3
    assert gb.outcome(game.state) is None and gb.to_act(game.state) == ["north"]


def test_a_claimed_move_onto_the_far_row_wins_only_once_it_is_accepted():
    game = arrange(new_game(), [("N1", "a4"), ("N2", "b4"), ("N3", "c4"), ("S1", "a6"), ("S2", "b6"), ("S3", "c5")],
                   to_move="south")
    assert kinds(game.act("south", MovePiece(piece="S3", to="c6", claims=("sitting",)))) == ["PieceMoved"]
    assert gb.outcome(game.state) is None and gb.to_act(game.state) == ["north"]
    assert kinds(game.act("north", Accept())) == ["ClaimAccepted", "MatchWon"]
    assert gb.outcome(game.state) == {"winners": ["south"], "reason": "far_row", "lost": {"south": 0, "north": 0}}


def test_a_forged_verdict_in_an_export_fails_verification():
    game = playout("gambit-board", {"power_mode": "select"}, 1)
    won = game.events[-1]
    assert won.kind == "MatchWon" and won.public["reason"] == "captures", won.public
    winner = won.public["winner"]
    loser = "south" if winner == "north" else "north"
    honest = verify_export(export_lines(game, game.events))
    assert [c.name for c in honest.checks if c.status == "fail"] == []
    for forged in ({"winner": loser, "reason": "captures"}, {"winner": winner, "reason": "far_row"}):
        events = [dataclasses.replace(e, public=forged) if e is won else e for e in game.events]
        report = verify_export(export_lines(game, events))
        failed = [c for c in report.checks if c.status == "fail"]
        assert report.verdict == "FAILED" and [c.name for c in failed] == ["public parts"], forged
        assert failed[0].detail.startswith(f"version {won.version}:")


def test_the_seat_not_waited_for_may_resign_and_nothing_else():
    game = start(gb)
    assert (gb.to_act(game.state), gb.may_act(game.state)) == (["south", "north"], [])
    game.act("south", AssignPowers(powers=SOUTH))
    assert (gb.to_act(game.state), gb.may_act(game.state)) == (["north"], ["south"])
    assert gb.legal_commands(game.state, "south") == [Resign()] and gb.legal_choices(game.state, "south") == []
    game.act("north", AssignPowers(powers=NORTH))
    assert (gb.to_act(game.state), gb.may_act(game.state)) == (["south"], ["north"])
    game.act("south", MovePiece(piece="S1", to="b2", claims=("diagonal",)))
    assert (gb.to_act(game.state), gb.may_act(game.state)) == (["north"], ["south"])
    assert gb.legal_commands(game.state, "south") == [Resign()]
    game.act("south", Resign())
    assert (gb.to_act(game.state), gb.may_act(game.state)) == ([], [])


def test_a_sat_on_piece_does_not_count_toward_the_far_row():
    game = arrange(new_game(), [("N1", "a4"), ("N2", "b4"), ("N3", "c4"), ("S1", "a5"), ("S2", "b6"),
                                ("S3", "c6"), ("N3", "c6")], to_move="south")
    game.act("south", MovePiece(piece="S1", to="a6"))
    assert gb.outcome(game.state) is None and gb.to_act(game.state) == ["north"]


def test_a_seat_may_resign_at_any_time():
    game = start(gb)
    game.act("north", Resign())
    assert gb.outcome(game.state) == {"winners": ["south"], "reason": "resignation", "resigned": "north",
                                      "lost": {"south": 0, "north": 0}}
    game = new_game()
    game.act("north", Resign())
    assert gb.outcome(game.state)["winners"] == ["south"]


def test_game_over_refuses_every_command():
    game = new_game()
    game.act("south", Resign())
    assert rule_of(game, "north", MovePiece(piece="N1", to="a5")) == "game_over"
    assert rule_of(game, "north", Resign()) == "game_over"
    assert gb.legal_commands(game.state, "north") == []


def test_unknown_commands_and_seats_are_refused():
    @dataclass(frozen=True)
    class Dance(Command):
        type: ClassVar[str] = "dance"

    game = new_game()
    assert rule_of(game, "south", Dance()) == "unknown_command"
    assert rule_of(game, "east", MovePiece(piece="S1", to="a2")) == "unknown_seat"
    assert rule_of(game, "east", Resign()) == "unknown_seat"


def test_commands_of_another_step_are_refused_by_name():
    game = new_game()
    assert rule_of(game, "south", ChooseLoss(piece="S1")) == "no_loss_pending"
    assert rule_of(game, "south", Reassign(power="ghost", piece="S1")) == "no_reassignment_pending"
    assert rule_of(game, "south", AssignPowers(powers=SOUTH)) == "assignment_closed"
    assert rule_of(game, "south", ClaimMoat(piece="S1")) == "no_response_pending"
