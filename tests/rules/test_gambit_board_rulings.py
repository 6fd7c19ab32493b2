"""gambit-board: the rulings added after the first audit, on positions reached by legal commands.

What a false claim undoes (judged on the move as made), ghost and moats, the move a moat sent back
(never repeated in the same turn), one effect per move, detecting while sat on, every change of
hidden powers committed anew, and a finished match's view that names nobody to move.
"""

from __future__ import annotations

import pytest

from domain.ruleset import RuleViolation, Viewer
from domain.rulesets import gambit_board as gb
from domain.rulesets.gambit_board.commands import Accept, CallBluff, ClaimMoat, Detect, MovePiece, Resign
from domain.rulesets.gambit_board.powers import TYPES
from tests.rules.gambit_board_scenarios import new_game, settle, square_of, walk

SPECTATOR = Viewer("spectator")
MOAT_ON_N2 = {"N2": ("ghost", "moat"), "N1": ("sidewinder", "kamikaze")}


def rule_of(game, seat, command) -> str:
    """The rule a refused command breaks."""
    with pytest.raises(RuleViolation) as refused:
        game.act(seat, command)
    return refused.value.rule


def board(game) -> dict:
    """The public board."""
    return gb.view(game.state, SPECTATOR)["board"]


def call(events) -> dict:
    """The bluff_call of the ruling among some events."""
    return next(e for e in events if e.kind == "BluffRuled").public["bluff_call"]


def moves(game, seat: str) -> list[MovePiece]:
    """The moves listed for a seat."""
    return [c for c in gb.legal_commands(game.state, seat) if isinstance(c, MovePiece)]


# ---- what a false claim undoes ----------------------------------------------------------------

def _n3_next_to_s3():
    """N3 on c2, straight ahead of S3 (c1) with c3 empty behind it; south to move."""
    return settle(walk(new_game(), "S6>f3", "N3>c4", "S6>f4", "N3>c2"))


def test_a_caught_false_bulldozer_reverses_the_push_even_when_sitting_was_also_claimed():
    game = _n3_next_to_s3()
    walk(game, "S3>c2+bulldozer+sitting")  # S3 holds no bulldozer
    assert board(game)["c3"] == ["N3"] and board(game)["c2"] == ["S3"]
    ruled = call(game.act("north", CallBluff(claim="bulldozer")))
    assert ruled["verdict"] == "false" and ruled["consequences"]["effect"] == "move_undone"
    assert board(game)["c2"] == ["N3"] and board(game)["c1"] == ["S3"] and "c3" not in board(game)


def test_a_bulldozer_claim_onto_a_piece_is_a_push_never_a_sit():
    game = settle(walk(new_game(), "S6>f3", "N3>c4", "S6>f4", "N3>c2", "S6>f3", "N4>d4", "S6>f4", "N4>c4", "S6>f3",
                       "N4>c3"))
    # c3 behind N3 is taken: the push is blocked, and a bulldozer claim does not fall back to sitting.
    assert rule_of(game, "south", MovePiece(piece="S3", to="c2", claims=("bulldozer", "sitting"))) == "push_blocked"
    assert MovePiece(piece="S3", to="c2", claims=("sitting",)) in moves(game, "south")
    assert not [m for m in moves(game, "south") if m.to == "c2" and "bulldozer" in m.claims]
    game.act("south", MovePiece(piece="S3", to="c2", claims=("sitting",)))
    assert board(game)["c2"] == ["N3", "S3"]


def test_a_two_square_bulldozer_claim_onto_a_piece_is_refused_even_with_sitting():
    game = settle(walk(new_game(), "S6>f3", "N3>c4", "S6>f4", "N3>c3"))
    assert rule_of(game, "south", MovePiece(piece="S3", to="c3", claims=("bulldozer", "sitting"))) == \
        "bulldozer_means_push"
    game.act("south", MovePiece(piece="S3", to="c3", claims=("sitting",)))
    assert board(game)["c3"] == ["N3", "S3"]


def test_a_caught_false_sitting_on_a_push_lets_the_push_stand():
    game = _n3_next_to_s3()
    walk(game, "S2>b2", "N6>f5", "S3>c2+sitting+bulldozer")
    ruled = call(game.act("north", CallBluff(claim="sitting")))
    assert ruled["verdict"] == "false" and ruled["consequences"]["effect"] == "move_stands"
    assert board(game)["c2"] == ["S3"] and board(game)["c3"] == ["N3"]


def test_a_false_diagonal_or_sidewinder_was_needed_for_the_shape_of_the_move():
    game = new_game()
    walk(game, "S3>d2+diagonal")
    assert call(game.act("north", CallBluff(claim="diagonal")))["consequences"]["effect"] == "move_undone"
    settle(walk(settle(game.act("south", gb.ChooseLoss(piece="S6")) and game), "N5>e5"))
    walk(game, "S1>a2", "N5>e4", "S1>f2+sidewinder")
    assert call(game.act("north", CallBluff(claim="sidewinder")))["consequences"]["effect"] == "move_undone"
    assert square_of(game, "S1") == "a2"


# ---- ghost and moats --------------------------------------------------------------------------

def test_a_caught_false_ghost_into_a_true_moats_zone_is_undone():
    game = walk(new_game(north=MOAT_ON_N2), "S6>f3", "N2>b4", "S3>c3+ghost")  # c3 is next to N2, a real moat
    ruled = call(game.act("north", CallBluff(claim="ghost")))
    assert ruled["verdict"] == "false" and ruled["consequences"]["effect"] == "move_undone"
    assert square_of(game, "S3") == "c1"


def test_a_caught_false_ghost_next_to_a_piece_without_moat_stands():
    game = walk(new_game(north=MOAT_ON_N2), "S6>f3", "N4>d4", "S3>c3+ghost")  # N4 holds no moat
    ruled = call(game.act("north", CallBluff(claim="ghost")))
    assert ruled["verdict"] == "false" and ruled["consequences"]["effect"] == "move_stands"
    assert square_of(game, "S3") == "c3"


def test_a_caught_false_ghost_that_passed_a_piece_is_undone():
    game = _n3_next_to_s3()  # N3 (no moat) on c2
    walk(game, "S3>c3+ghost")  # passes N3 (S3 holds no ghost)
    assert call(game.act("north", CallBluff(claim="ghost")))["consequences"]["effect"] == "move_undone"
    assert square_of(game, "S3") == "c1"


# ---- the move a moat sent back ----------------------------------------------------------------

def _moat_sent_back_a_push():
    """S2 (bulldozer) pushed N2 (a moat) from b2 to b3; north claimed the moat and south accepted."""
    game = settle(walk(new_game(north=MOAT_ON_N2), "S6>f3", "N2>b4", "S6>f4", "N2>b2"))
    walk(game, "S2>b2+bulldozer")
    assert board(game)["b3"] == ["N2"]
    game.act("north", ClaimMoat(piece="N2"))
    game.act("south", Accept())
    assert board(game)["b2"] == ["N2"] and board(game)["b1"] == ["S2"]
    return game


def test_after_an_accepted_moat_the_same_push_is_neither_listed_nor_accepted_again():
    game = _moat_sent_back_a_push()
    for claims in (("bulldozer",), ("bulldozer", "sitting"), ("sitting", "bulldozer")):
        assert MovePiece(piece="S2", to="b2", claims=claims) not in moves(game, "south")
        assert rule_of(game, "south", MovePiece(piece="S2", to="b2", claims=claims)) == "move_sent_back"
    assert gb.view(game.state, SPECTATOR)["turn"]["sent_back"] == [{"piece": "S2", "to": "b2", "effect": "push"}]
    # Another effect onto the moat piece's own square (outside its zone) is still a different move.
    game.act("south", MovePiece(piece="S2", to="b2", claims=("sitting",)))
    assert board(game)["b2"] == ["N2", "S2"]


def test_a_turn_cannot_loop_on_moat_claims():
    """However often north claims a moat, south's turn ends: each sent-back move is barred."""
    game = _moat_sent_back_a_push()
    for _ in range(40):
        if game.state["turn"]["seat"] != "south":
            break
        step = game.state["step"]
        if step["kind"] == "respond" and ClaimMoat(piece="N2") in gb.legal_commands(game.state, "north"):
            game.act("north", ClaimMoat(piece="N2"))
            game.act("south", Accept())
        elif step["kind"] == "respond":
            game.act("north", Accept())
        else:
            # South insists on the push whenever it is offered, else any move of S2.
            push = MovePiece(piece="S2", to="b2", claims=("bulldozer",))
            listed = moves(game, "south")
            game.act("south", push if push in listed else ([m for m in listed if m.piece == "S2"] or listed)[0])
    assert game.state["turn"]["seat"] == "north"


# ---- detect while sat on ------------------------------------------------------------------------

def test_a_sat_on_piece_may_detect_and_the_detect_is_listed():
    game = settle(walk(new_game(), "S6>f3", "N3>c4", "S6>f4", "N4>d4", "S6>f5", "N3>c2", "S5>e3", "N4>d2"))
    walk(game, "S5>e4", "N3>c1+sitting")
    settle(game)
    assert gb.view(game.state, SPECTATOR)["pieces"]["S3"]["sat_on"]
    assert Detect(piece="S3", target="N4") in gb.legal_commands(game.state, "south")
    assert rule_of(game, "south", MovePiece(piece="S3", to="c2")) == "piece_is_sat_on"
    game.act("south", Detect(piece="S3", target="N4"))
    assert game.state["pending"]["kind"] == "detect"


# ---- hidden powers are committed whenever they change ------------------------------------------

def newest_slots(game) -> dict:
    """Each (piece, type) slot's newest committed power."""
    out = {}
    for event in game.events:
        if event.kind == "PowerCommitted":
            out[(event.secret["piece"], event.secret["power_type"])] = event.secret["power"]
    return out


@pytest.mark.parametrize("config", [{}, {"power_mode": "roll"}, {"player_powers": True},
                                    {"player_powers": True, "power_mode": "roll", "loss_choice": "winner"}])
def test_whenever_a_seat_is_to_move_every_slots_newest_commitment_holds_what_the_piece_holds(config):
    from tests.rules.test_gambit_board_player_powers import pp_playout
    checked = 0
    for seed in range(6):
        for game in pp_playout(dict(config), seed, every_step=True):
            if game.state["step"] is None or game.state["step"]["kind"] != "turn":
                continue
            slots = newest_slots(game)
            lost = game.state["lost"]["south"] + game.state["lost"]["north"]
            for piece in (p for p in game.state["powers"] if p not in lost):
                for kind in TYPES:
                    assert slots[(piece, kind)] == game.state["powers"][piece][kind], (seed, piece, kind)
                    checked += 1
    assert checked > 1000


# ---- the end of the match -------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(3))
def test_a_finished_matchs_view_names_nobody_to_move(seed):
    from tests.rules.test_gambit_board_player_powers import pp_playout
    *_, game = pp_playout({"player_powers": True}, seed)
    assert gb.outcome(game.state) is not None
    for viewer in (SPECTATOR, Viewer("seat", "south", sees_all=True)):
        view = gb.view(game.state, viewer)
        assert view["turn"] is None and view["step"] is None and view["pending"] is None
        assert view["result"]["winners"] and view["phase"] == "over"


def test_a_resignation_in_an_open_window_leaves_no_claim_awaiting_an_answer_in_the_view():
    game = walk(new_game(), "S1>b2+diagonal")
    game.act("north", Resign())
    view = gb.view(game.state, SPECTATOR)
    assert (view["turn"], view["step"], view["pending"]) == (None, None, None)
    assert view["claims"][-1]["claims"] == ["diagonal"]  # the record of claims keeps it
