"""gambit-board: what each viewer sees — own powers, own detects and dice, never an unrevealed
assignment of the other seat; everything once the match has ended or for organizers."""

from __future__ import annotations

import json

from domain.ruleset import Viewer
from domain.rulesets import gambit_board as gb
from domain.rulesets.gambit_board.commands import Accept, AssignPowers, CallBluff, ChooseLoss, Detect, MovePiece, Resign
from tests.rules.gambit_board_scenarios import NORTH, SOUTH, arrange, new_game
from tests.rules.test_gambit_board_playouts import check_hidden_information
from tests.support.harness import start

SOUTH_SEAT, NORTH_SEAT, SPECTATOR = Viewer("seat", "south"), Viewer("seat", "north"), Viewer("spectator")


def secret_pairs(assignment: dict) -> list[str]:
    """JSON fragments that would betray an assignment: a piece next to its power record."""
    return [json.dumps({piece: record})[1:-1] for piece, record in assignment.items() if any(record.values())]


def test_a_seat_sees_its_own_powers_and_only_its_own():
    game = new_game()
    view = gb.view(game.state, SOUTH_SEAT)
    assert view["pieces"]["S1"]["powers"] == {"movement": "diagonal", "action": "sitting"}
    assert "powers" not in view["pieces"]["N1"]
    assert "powers" not in gb.view(game.state, SPECTATOR)["pieces"]["S1"]


def test_no_opponent_or_spectator_view_contains_an_unrevealed_assignment():
    game = new_game()
    game.act("south", MovePiece(piece="S1", to="b2", claims=("diagonal",)))
    for viewer in (NORTH_SEAT, SPECTATOR):
        text = json.dumps(gb.view(game.state, viewer))
        for fragment in secret_pairs(game.events[1].secret["assignment"]):
            assert fragment not in text
        assert "sitting" not in text  # S1's action power was never claimed
    check_hidden_information(game.state)


def test_views_hide_dice_rolls_from_everyone_but_the_roller():
    game = start(gb, {"power_mode": "roll"})
    assert set(gb.view(game.state, SOUTH_SEAT)["dice"]) == {"south"}
    assert gb.view(game.state, SPECTATOR)["dice"] == {}
    check_hidden_information(game.state)


def test_detect_results_are_seen_only_by_the_detecting_seat():
    game = arrange(new_game(), [("S1", "b5")], to_move="north")
    game.act("north", Detect(piece="N2", target="S1"))
    game.act("south", Accept())
    assert gb.view(game.state, NORTH_SEAT)["detections"]["north"][0]["powers"]["action"] == "sitting"
    assert "north" not in gb.view(game.state, SOUTH_SEAT)["detections"]
    assert gb.view(game.state, SPECTATOR)["detections"] == {}
    check_hidden_information(game.state)


def test_public_rulings_and_revealed_powers_are_seen_by_everyone():
    game = new_game()
    game.act("south", MovePiece(piece="S1", to="b2", claims=("diagonal",)))
    game.act("north", CallBluff(claim="diagonal"))
    game.act("north", ChooseLoss(piece="N1"))
    for viewer in (SOUTH_SEAT, NORTH_SEAT, SPECTATOR):
        view = gb.view(game.state, viewer)
        assert view["rulings"][0]["verdict"] == "true" and view["rulings"][0]["power"] == "diagonal"
        assert {r["piece"] for r in view["revealed"]} == {"S1", "N1"}
        assert view["lost"]["north"] == ["N1"] and view["step"]["kind"] == "reassign"
    check_hidden_information(game.state)


def test_the_view_shows_the_pending_window_and_stack_positions():
    game = arrange(new_game(), [("N3", "c2")])
    game.act("south", MovePiece(piece="S3", to="c2", claims=("sitting",)))
    view = gb.view(game.state, SPECTATOR)
    assert view["pending"]["kind"] == "move" and view["pending"]["claims"] == ["sitting"]
    assert view["pending"]["plan"]["sat_on"] == "N3" and view["step"] == {"kind": "respond", "seat": "north"}
    assert (view["pieces"]["S3"]["stack_position"], view["pieces"]["S3"]["stack_height"]) == (1, 2)


def test_everything_is_visible_after_the_end_and_to_organizers():
    game = new_game()
    organizer = gb.view(game.state, Viewer("organizer", None, sees_all=True))
    assert organizer["pieces"]["N1"]["powers"] == {"movement": "ghost", "action": "kamikaze"}
    game.act("north", Resign())
    after = gb.view(game.state, Viewer("seat", "south", sees_all=True))
    assert after["pieces"]["N2"]["powers"] == {"movement": "sidewinder", "action": "detective"}
    assert set(after["detections"]) == {"south", "north"}


def test_views_are_fresh_copies():
    game = new_game()
    view = gb.view(game.state, SOUTH_SEAT)
    view["board"]["a1"].append("X")
    view["pieces"]["S1"]["powers"]["movement"] = "ghost"
    assert game.state["board"]["a1"] == ["S1"] and game.state["powers"]["S1"]["movement"] == "diagonal"


def test_assignment_commitments_are_public_but_their_contents_are_not():
    game = start(gb)
    game.act("south", AssignPowers(powers=SOUTH))
    view = gb.view(game.state, NORTH_SEAT)
    assert view["assigned"] == {"south": True, "north": False}
    assert "powers" not in view["pieces"]["S1"]
    game.act("north", AssignPowers(powers=NORTH))
    assert gb.view(game.state, SPECTATOR)["assignment_versions"] == {"south": 2, "north": 15}
