"""gambit-board, Player Powers (`player_powers: true`): earning them on the far row, Sensei, Magician,
Juggernaut and Witch Doctor — their records, commitments, rulings, views and legal moves.

Positions are reached by legal commands (`walk`, `settle`); random play that prefers Player
Powers checks legal moves exhaustively, hidden information, and the verifier's replay.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator

import pytest

from domain.choices import Choice
from domain.ruleset import RuleViolation, Viewer, config_from_dict
from domain.rulesets import gambit_board as gb
from domain.rulesets.gambit_board.commands import (
    Accept,
    CallBluff,
    ChooseLoss,
    ChoosePlayerPower,
    DeclineJuggernaut,
    Detect,
    MovePiece,
    Resign,
    UseMagician,
    UseSensei,
    UseWitchDoctor,
)
from domain.rulesets.gambit_board.powers import ALL_POWERS, PLAYER_POWERS
from domain.verification import verify_export
from tests.rules.gambit_board_scenarios import new_game, settle, square_of, walk
from tests.rules.test_derived_public import replay
from tests.rules.test_derived_secrets import export_lines
from tests.rules.test_gambit_board_playouts import (
    check_all_listed_commands,
    check_hidden_information,
    check_invariants,
    choose,
)
from tests.support.harness import Game, start

PP = {"player_powers": True}
SPECTATOR, SOUTH_SEAT, NORTH_SEAT = Viewer("spectator"), Viewer("seat", "south"), Viewer("seat", "north")
USES = ("use_sensei", "use_magician", "use_witch_doctor", "choose_player_power")
# South's S1 walks to a6 (north clears the way): five legal moves, windows accepted.
TO_THE_FAR_ROW = ("S1>a3", "N2>b4", "S1>a5", "N1>b6", "S1>a6")


def rule_of(game, seat, command) -> str:
    """The rule a refused command breaks."""
    with pytest.raises(RuleViolation) as refused:
        game.act(seat, command)
    return refused.value.rule


def kinds(events) -> list[str]:
    """The kinds of some recorded events."""
    return [e.kind for e in events]


def holding(power: str, config: dict | None = None, **powers) -> Game:
    """A Player Powers game in which south has just earned `power` (S1 on a6); north to move."""
    game = walk(new_game({**PP, **(config or {})}, **powers), *TO_THE_FAR_ROW)
    settle(game, power)
    assert gb.view(game.state, SPECTATOR)["player_powers"]["south"] == [power]
    return game


def pp_playout(config: dict, seed: int, every_step: bool = False) -> Iterator[Game]:
    """A random game whose players use Player Powers whenever they can (the game after each step, or at the end)."""
    rng = random.Random(f"player-powers/{seed}")
    game = start(gb, config, server_seed=rng.randbytes(32), base_version=3)
    while gb.outcome(game.state) is None:
        seat = rng.choice(gb.to_act(game.state))
        options = list(gb.legal_commands(game.state, seat)) + list(gb.legal_choices(game.state, seat))
        uses = [o for o in options if o.type in USES]
        if game.state["phase"] == "assign" or (uses and rng.random() < 0.5):
            picked = rng.choice(uses or options)
        elif game.state["turn"]["number"] > 150:
            picked = Resign()
        else:
            listed = [o for o in options if not isinstance(o, Choice)]
            picked = choose(game.state, seat, listed, rng, 0.08)
            if isinstance(picked, DeclineJuggernaut) and rng.random() < 0.8:
                picked = rng.choice([o for o in listed if isinstance(o, MovePiece)] or [picked])
        game.act(seat, picked.random_command(rng) if isinstance(picked, Choice) else picked)
        if every_step:
            yield game
    if not every_step:
        yield game


# ---- the variant and earning --------------------------------------------------------------------

def test_the_variant_is_a_config_value_the_rules_page_asks_for():
    config = config_from_dict(gb.Config, PP)
    assert config.player_powers is True and gb.catalogue()["player_powers"] == list(PLAYER_POWERS)
    assert new_game(PP).state["config"]["player_powers"] is True


def test_reaching_the_far_row_earns_a_player_power_the_seat_names_in_select_mode():
    game = walk(new_game(PP), *TO_THE_FAR_ROW)
    events = game.act("north", Accept())  # the window closes: S1 ends the turn on a6
    earned = events[-1]
    assert earned.kind == "PlayerPowerEarned" and earned.secret is None
    assert earned.public == {"seat": "south", "piece": "S1", "square": "a6", "power": None}
    assert gb.to_act(game.state) == ["south"] and game.state["step"]["kind"] == "earn"
    named = {ChoosePlayerPower(power=p) for p in PLAYER_POWERS}
    assert set(gb.legal_commands(game.state, "south")) == named | {Resign()}
    assert rule_of(game, "north", MovePiece(piece="N3", to="c4")) == "not_your_turn"
    assert rule_of(game, "south", ChoosePlayerPower(power="wizard")) == "unknown_player_power"
    [chosen] = game.act("south", ChoosePlayerPower(power="juggernaut"))
    assert chosen.public == {"seat": "south", "power": "juggernaut", "earned_version": earned.version}
    for viewer in (SOUTH_SEAT, NORTH_SEAT, SPECTATOR):
        assert gb.view(game.state, viewer)["player_powers"] == {"south": ["juggernaut"], "north": []}
    assert gb.to_act(game.state) == ["north"] and game.state["step"] == {"kind": "turn", "seat": "north"}
    assert rule_of(game, "south", ChoosePlayerPower(power="sensei")) == "not_your_turn"


def test_a_piece_earns_only_when_it_arrives_not_for_staying():
    game = settle(walk(new_game(PP), *TO_THE_FAR_ROW), "sensei")
    settle(walk(game, "N3>c4", "S3>c2", "N3>c5", "S3>c3"))
    assert gb.view(game.state, SPECTATOR)["player_powers"]["south"] == ["sensei"]
    assert kinds(game.events).count("PlayerPowerEarned") == 1


def test_without_the_variant_the_far_row_earns_nothing():
    game = settle(walk(new_game(), *TO_THE_FAR_ROW))
    assert "PlayerPowerEarned" not in kinds(game.events) and game.state["step"]["seat"] == "north"
    assert rule_of(game, "north", UseMagician(piece="N3", target="S3")) == "player_powers_off"


def _apart(choice, prefix: str):
    """A member of an assignment choice with its four powers on pieces 1–4."""
    movement, action = (part["values"] for part in choice.body()["free"]["powers"]["pairs"])
    placed = zip((f"{prefix}{n}" for n in range(1, 5)), [*movement, *action])
    return gb.AssignPowers(powers={piece: (power,) for piece, power in placed})


def _rolled_earning(wild: bool) -> tuple[Game, list]:
    """A roll-mode game where S1 reached a6, with a wild die or not (the first seed that gives it)."""
    for seed in range(100):
        game = start(gb, {**PP, "power_mode": "roll"}, server_seed=seed.to_bytes(32, "big"))
        for seat in ("south", "north"):
            game.act(seat, _apart(gb.legal_choices(game.state, seat)[0], seat[0].upper()))
        events = settle(walk(game, *TO_THE_FAR_ROW[:-1])) and game.act("south", MovePiece(piece="S1", to="a6"))
        events = events + game.act("north", Accept()) if game.state["step"]["kind"] == "respond" else events
        earned = [e for e in events if e.kind == "PlayerPowerEarned"]
        if earned and (earned[0].public["chance_result"] >= 5) == wild:
            return game, earned
    raise AssertionError("no seed found")


@pytest.mark.parametrize("wild", [False, True])
def test_in_roll_mode_a_public_die_decides_the_earned_power_and_five_or_six_is_wild(wild):
    game, [earned] = _rolled_earning(wild)
    roll = earned.public["chance_result"]
    assert earned.secret is None and earned.public["chance"]["n"] == 6
    if not wild:
        assert earned.public["power"] == PLAYER_POWERS[roll - 1]
        assert gb.view(game.state, SPECTATOR)["player_powers"]["south"] == [PLAYER_POWERS[roll - 1]]
        assert game.state["step"] == {"kind": "turn", "seat": "north"}
    else:
        assert earned.public["power"] is None and game.state["step"]["kind"] == "earn"
        game.act("south", ChoosePlayerPower(power="witch_doctor"))
        assert gb.view(game.state, SPECTATOR)["player_powers"]["south"] == ["witch_doctor"]


# ---- Sensei ---------------------------------------------------------------------------------------

def _sensei_game() -> Game:
    """South holds a Sensei and is to move (north made one quiet move)."""
    return walk(holding("sensei"), "N6>f5")


def test_an_accepted_sensei_moves_the_named_powers_and_commits_both_pieces_anew():
    game = _sensei_game()
    [claimed] = game.act("south", UseSensei(source="S2", target="S3", powers=("moat", "bulldozer")))
    assert claimed.public == {"seat": "south", "source": "S2", "target": "S3", "powers": ["moat", "bulldozer"]}
    assert gb.view(game.state, SPECTATOR)["player_powers"]["south"] == []  # spent on use
    assert set(gb.legal_commands(game.state, "north")) == {Accept(), CallBluff(claim="sensei"), Resign()}
    accepted, *slots = game.act("north", Accept())
    assert accepted.kind == "ClaimAccepted"
    assert [(e.public["piece"], e.public["power_type"], e.public["reason"]) for e in slots] == \
        [(p, k, "sensei_transfer") for p in ("S2", "S3") for k in ("movement", "action")]
    assert [e.secret["power"] for e in slots] == [None, None, "bulldozer", "moat"]
    assert all(e.audience == ("south",) for e in slots)
    assert gb.view(game.state, SOUTH_SEAT)["pieces"]["S3"]["powers"] == {"movement": "bulldozer", "action": "moat"}
    assert gb.to_act(game.state) == ["north"]


def test_an_accepted_sensei_bluff_creates_no_power():
    game = _sensei_game()
    game.act("south", UseSensei(source="S4", target="S1", powers=("ghost",)))  # S4 holds nothing
    game.act("north", Accept())
    assert game.state["powers"]["S1"] == {"movement": "diagonal", "action": "sitting"}
    assert game.state["powers"]["S4"] == {"movement": None, "action": None}


def test_a_true_sensei_call_costs_the_caller_a_piece_and_the_transfer_stands():
    game = _sensei_game()
    game.act("south", UseSensei(source="S2", target="S3", powers=("bulldozer",)))
    ruled, *slots = game.act("north", CallBluff(claim="sensei"))
    call = ruled.public["bluff_call"]
    assert (call["verdict"], call["subject"], call["power"], call["claimant"]) == ("true", "sensei", "sensei", "south")
    assert call["transfer"] == {"from": "S2", "to": "S3", "powers": ["bulldozer"]}
    assert call["consequences"]["piece_lost_by"] == "north" and call["consequences"]["effect"] == "transfer_stands"
    assert call["consequences"]["reassignment_by"] is None
    # The named slot is opened: it holds exactly what the claim named.
    opened = next(e for e in game.events if e.version == ruled.opens[0])
    assert ruled.opens == (call["evidence_version"],) and opened.secret["power"] == "bulldozer"
    assert [(e.public["piece"], e.secret["power"]) for e in slots] == [("S2", None), ("S3", "bulldozer")]
    game.act("north", ChooseLoss(piece="N6"))
    assert game.state["powers"]["S3"]["movement"] == "bulldozer" and gb.to_act(game.state) == ["north"]


def test_a_false_sensei_call_costs_the_bluffer_a_piece_and_nothing_moves():
    game = _sensei_game()
    game.act("south", UseSensei(source="S2", target="S1", powers=("bulldozer", "sitting")))  # S2 holds no sitting
    [ruled] = game.act("north", CallBluff(claim="sensei"))
    call = ruled.public["bluff_call"]
    assert call["verdict"] == "false" and call["consequences"]["effect"] == "transfer_void"
    assert ruled.opens == () and len(ruled.evidence) == 2  # both named slots, sealed
    game.act("south", ChooseLoss(piece="S6"))
    assert game.state["powers"]["S2"] == {"movement": "bulldozer", "action": "moat"}
    assert game.state["powers"]["S1"] == {"movement": "diagonal", "action": "sitting"}
    assert gb.readjudicate(_state_before(game, ruled.version), ruled)["verdict"] == "false"


def _state_before(game: Game, version: int) -> dict:
    state = gb.initial_state(game.config, list(game.seats))
    for event in game.events:
        if event.version == version:
            return state
        state = gb.evolve(state, event)
    raise AssertionError(version)


def test_a_sensei_names_two_of_its_own_pieces_and_at_most_one_power_of_each_type():
    game = _sensei_game()
    assert rule_of(game, "south", UseSensei(source="S2", target="S2", powers=("moat",))) == "same_piece"
    assert rule_of(game, "south", UseSensei(source="S2", target="N2", powers=("moat",))) == "not_your_piece"
    assert rule_of(game, "south", UseSensei(source="S2", target="S3", powers=())) == "no_powers_named"
    assert rule_of(game, "south", UseSensei(source="S2", target="S3", powers=("moat", "sitting"))) == "too_many_claims"
    assert rule_of(game, "south", UseSensei(source="S2", target="S3", powers=("moat", "moat"))) == "duplicate_claim"
    assert rule_of(game, "south", UseSensei(source="S2", target="S3", powers=("flight",))) == "unknown_power"
    assert rule_of(game, "north", UseSensei(source="N2", target="N3", powers=("moat",))) == "not_your_turn"
    choices = gb.legal_choices(game.state, "south")
    assert {c.fixed["source"] for c in choices} == {f"S{i}" for i in range(1, 7)}
    assert any(c.admits(UseSensei(source="S2", target="S3", powers=("moat", "bulldozer"))) for c in choices)


# ---- Magician ------------------------------------------------------------------------------------

def test_a_magician_swaps_two_unsat_pieces_in_public_and_each_arrival_on_a_far_row_earns():
    game = walk(holding("magician"), "N6>f5")
    [swapped, south_earned, north_earned] = game.act("south", UseMagician(piece="S2", target="N5"))
    assert swapped.public == {"seat": "south", "piece": "S2", "target": "N5", "piece_square": "b1",
                              "target_square": "e6"} and swapped.secret is None
    assert square_of(game, "S2") == "e6" and square_of(game, "N5") == "b1"
    # S2 now stands on row 6 and N5 on row 1: both arrived, so both seats earn.
    assert [(e.public["seat"], e.public["piece"]) for e in (south_earned, north_earned)] == [("south", "S2"),
                                                                                           ("north", "N5")]
    settle(game, {"south": "sensei", "north": "juggernaut"})
    assert gb.view(game.state, SPECTATOR)["player_powers"] == {"south": ["sensei"], "north": ["juggernaut"]}
    assert gb.to_act(game.state) == ["north"]


def test_a_magician_needs_an_unsat_piece_of_each_side():
    game = walk(holding("magician"), "N1>a6+sitting")  # N1 sits on S1
    settle(game)
    assert rule_of(game, "south", UseMagician(piece="S1", target="N3")) == "piece_is_sat_on"
    assert rule_of(game, "south", UseMagician(piece="S2", target="S3")) == "not_opposing_piece"
    assert UseMagician(piece="S2", target="N1") in gb.legal_commands(game.state, "south")
    assert not [c for c in gb.legal_commands(game.state, "south") if isinstance(c, UseMagician) and c.piece == "S1"]
    assert rule_of(game, "north", UseMagician(piece="N3", target="S3")) == "not_your_turn"


# ---- Witch Doctor --------------------------------------------------------------------------------

def test_a_witch_doctor_swaps_held_powers_for_claimed_ones_and_the_move_stands():
    game = holding("witch_doctor")
    game.act("north", MovePiece(piece="N2", to="c5", claims=("diagonal",)))  # N2 holds sidewinder, detective
    assert UseWitchDoctor(piece="S2") in gb.legal_commands(game.state, "south")
    assert UseWitchDoctor(piece="S4") not in gb.legal_commands(game.state, "south")  # S4 holds nothing
    assert rule_of(game, "south", UseWitchDoctor(piece="S4")) == "nothing_to_swap"
    swapped, *slots = game.act("south", UseWitchDoctor(piece="S2"))  # S2 gives bulldozer, moat
    assert swapped.public == {"seat": "south", "piece": "S2", "mover": "N2", "received": ["diagonal"],
                              "against_version": swapped.version - 1}
    # Both seats know what S2 gave; each piece's new powers are in its owner's slot records alone.
    assert swapped.secret == {"given": ["bulldozer", "moat"]} and swapped.audience == ("south", "north")
    assert game.state["powers"]["S2"] == {"movement": "diagonal", "action": None}  # a bluffed power became real
    assert game.state["powers"]["N2"] == {"movement": "bulldozer", "action": "moat"}
    assert [(e.public["piece"], e.audience) for e in slots] == [("S2", ("south",))] * 2 + [("N2", ("north",))] * 2
    assert square_of(game, "N2") == "c5" and gb.to_act(game.state) == ["south"]
    check_hidden_information(game.state)


def test_a_witch_doctor_takes_a_really_held_claimed_power_off_the_mover():
    game = holding("witch_doctor", north={"N2": ("sidewinder", "sitting"), "N1": ("ghost", "moat")})
    walk(game, "N2>b3+sitting")  # N2 really holds the sitting it claims (needed or not)
    game.act("south", UseWitchDoctor(piece="S1"))  # S1 gives diagonal, sitting
    assert game.state["powers"]["N2"] == {"movement": "diagonal", "action": "sitting"}
    assert game.state["powers"]["S1"] == {"movement": None, "action": "sitting"}


def test_a_witch_doctor_answers_only_a_move_that_claimed_powers():
    game = walk(holding("witch_doctor"), "N2>b5")  # ends next to S1 with no claims: a window all the same
    assert rule_of(game, "south", UseWitchDoctor(piece="S2")) == "nothing_claimed"
    assert not [c for c in gb.legal_commands(game.state, "south") if isinstance(c, UseWitchDoctor)]
    settle(walk(settle(game), "S3>c3"))
    game.act("north", Detect(piece="N1", target="S1"))
    assert rule_of(game, "south", UseWitchDoctor(piece="S2")) == "not_a_move"
    assert rule_of(holding("sensei"), "north", UseWitchDoctor(piece="N2")) == "no_response_pending"


# ---- Juggernaut ----------------------------------------------------------------------------------

# North earns a Juggernaut (N6 sits on S6 on f1); south brings S1, S2, S3 onto row 6 by sitting on
# N1, N2, N3; N4 on d6 and N5 wait. The last sit closes with three unsat south pieces on row 6.
JUGGERNAUT_SETUP = ("S1>a3", "N6>f4", "S1>a5", "N6>f2", "S1>a6+sitting", "N6>f1+sitting", "S2>b3", "N5>e5",
                    "S2>b5", "N5>e6", "S2>b6+sitting", "N5>e5", "S3>c3", "N5>e6", "S3>c5", "N5>e5", "S3>c6+sitting")


def _juggernaut_offered() -> tuple[Game, list]:
    game = walk(new_game(PP, base_version=3), *JUGGERNAUT_SETUP, earn={"south": "magician", "north": "juggernaut"})
    events = game.act("north", Accept())
    settle(game, "magician")
    return game, events


def test_a_far_row_win_is_answered_by_the_juggernaut_holder_with_one_more_move():
    game, events = _juggernaut_offered()
    offered = next(e for e in events if e.kind == "JuggernautOffered")
    assert offered.public == {"seat": "north", "winner": "south"} and "MatchWon" not in kinds(events)
    assert gb.outcome(game.state) is None and gb.to_act(game.state) == ["north"]
    view = gb.view(game.state, SPECTATOR)
    assert view["far_row"]["south"] == 3 and view["turn"]["juggernaut"] and view["player_powers"]["north"] == []
    listed = gb.legal_commands(game.state, "north")
    assert DeclineJuggernaut() in listed and not [c for c in listed if isinstance(c, (Detect, UseMagician))]
    assert rule_of(game, "north", Detect(piece="N4", target="S3")) == "juggernaut_move_only"


def test_a_juggernaut_move_that_breaks_the_far_row_voids_the_win_and_play_goes_on():
    game, _ = _juggernaut_offered()
    walk(game, "N4>c6+sitting")  # N4 sits on S3: south has two unsat pieces on row 6
    events = game.act("south", Accept())
    assert "MatchWon" not in kinds(events) and gb.outcome(game.state) is None
    assert gb.view(game.state, SPECTATOR)["far_row"]["south"] == 2
    assert gb.to_act(game.state) == ["south"] and not game.state["turn"]["juggernaut"]


def test_a_juggernaut_move_that_leaves_the_far_row_standing_ends_the_match():
    game, _ = _juggernaut_offered()
    events = game.act("north", MovePiece(piece="N4", to="d5"))
    events += game.act("south", Accept()) if game.state["step"]["kind"] == "respond" else []
    assert events[-1].kind == "MatchWon" and events[-1].public == {"winner": "south", "reason": "far_row"}


def test_a_declined_juggernaut_ends_the_match_with_the_far_row_win():
    game, _ = _juggernaut_offered()
    events = game.act("north", DeclineJuggernaut())
    assert kinds(events) == ["JuggernautDeclined", "MatchWon"]
    assert gb.outcome(game.state)["winners"] == ["south"] and gb.outcome(game.state)["reason"] == "far_row"
    assert gb.view(game.state, SPECTATOR)["turn"] is None
    # The verifier's replay binds the offer (holder, winner) and the decline like every other record.
    result = replay(game)
    assert result.failure is None and {"JuggernautOffered", "JuggernautDeclined"} <= set(result.bound)
    assert [c.name for c in verify_export(export_lines(game, game.events)).checks if c.status == "fail"] == []


def test_declining_needs_a_juggernaut_turn():
    game = holding("juggernaut")
    assert rule_of(game, "north", DeclineJuggernaut()) == "no_juggernaut_pending"


# ---- random play: legal moves, hidden information, the verifier ----------------------------------

def pp_candidates(state: dict, seat: str):
    """Every Player Power command over every piece (and one that does not exist), power and name."""
    pieces = [*state["powers"], "X9"]
    mine = [p for p in pieces if p.startswith(seat[0].upper())]
    pairs = ("diagonal", "bulldozer", "moat", "sitting")
    names = [(), *[(p,) for p in (*ALL_POWERS, "teleport")], *[(a, b) for a in pairs for b in pairs]]
    yield DeclineJuggernaut()
    yield from (ChoosePlayerPower(power=p) for p in (*PLAYER_POWERS, "wizard"))
    yield from (CallBluff(claim=c) for c in ("sensei", "magician"))
    for piece in pieces:
        yield UseWitchDoctor(piece=piece)
        yield from (UseMagician(piece=piece, target=target) for target in pieces)
    for source in mine[:3] + ["N1" if seat == "south" else "S1"]:
        for target in mine[:3]:
            yield from (UseSensei(source=source, target=target, powers=p) for p in names)


def _offered(state: dict, seat: str) -> tuple[set, list]:
    listed = {repr(c) for c in gb.legal_commands(state, seat)}
    return listed, gb.legal_choices(state, seat)


def _accepted(game: Game, seat: str, command) -> bool:
    try:
        gb.decide(game.state, seat, command, game.chance())
    except RuleViolation:
        return False
    return True


# A brute force over every candidate command at each kind of position: the whole run checks it, `make test-fast` does not.
@pytest.mark.slow
def test_player_power_commands_are_accepted_exactly_when_listed_or_offered():
    """The conformance kit's brute force (tests/conformance/test_legal_moves.py), with the variant on."""
    from tests.conformance.test_legal_moves import board_candidates
    checked, seen = 0, set()
    for config in (PP, {**PP, "power_mode": "roll", "loss_choice": "winner"}):
        for seed in range(3):
            # The first position of each kind a game meets: the step awaited, with the Player
            # Powers its seat holds (the candidate moves too, in a Juggernaut turn or the first turn).
            met: dict = {}
            for game in pp_playout(config, seed, every_step=True):
                state = game.state
                if state["phase"] != "play":
                    continue
                step = state["step"]
                kind = (step["kind"], state["turn"]["juggernaut"], tuple(sorted(state["player_powers"][step["seat"]])))
                met[kind] = met.get(kind, 0) + 1
                if met[kind] > 1:
                    continue
                for seat in ("south", "north"):
                    listed, choices = _offered(state, seat)
                    candidates = list(pp_candidates(state, seat))
                    if step["kind"] == "turn" and (kind[1] or kind == ("turn", False, ())):
                        candidates += list(board_candidates(state, seat))
                    for command in candidates:
                        offered = repr(command) in listed or any(c.admits(command) for c in choices)
                        assert _accepted(game, seat, command) == offered, (config, seed, seat, command)
                        if offered:
                            seen.add(command.type)
                        checked += 1
    assert checked > 5000 and {"use_sensei", "use_magician", "choose_player_power", "use_witch_doctor"} <= seen


# The default board's games run long: the whole run plays them, `make test-fast` only the bridges board's.
@pytest.mark.parametrize(
    "config",
    [pytest.param(PP, marks=pytest.mark.slow), {**PP, "power_mode": "roll", "board": "bridges", "first_seat": "random"}],
)
def test_random_play_with_player_powers_keeps_every_invariant_and_hides_what_it_must(config):
    seen = set()
    for seed in range(5):
        for n, game in enumerate(pp_playout(config, seed, every_step=True)):
            check_invariants(game.state)
            if n % 5 == 0:
                check_all_listed_commands(game)
                check_hidden_information(game.state)
        seen |= set(kinds(game.events))
        assert game.replayed_state() == game.state
    assert {"PlayerPowerEarned", "SenseiClaimed", "MagicianSwapped", "WitchDoctorSwapped"} <= seen


NEW_KINDS = {"PlayerPowerEarned", "PlayerPowerChosen", "SenseiClaimed", "MagicianSwapped", "WitchDoctorSwapped",
             "JuggernautOffered", "JuggernautDeclined"}


@pytest.mark.parametrize("config", [PP, {**PP, "power_mode": "roll"}])
def test_every_player_power_record_is_bound_by_the_replayed_state_and_the_export_verifies(config):
    bound = set()
    for seed in range(8):
        *_, game = pp_playout(config, seed)
        result = replay(game)
        assert result.failure is None, result.failure
        bound |= {event.kind for event, fixed in result.derived if fixed is not None}
        report = verify_export(export_lines(game, game.events))
        assert [(c.name, c.detail) for c in report.checks if c.status == "fail"] == []
    assert {"PlayerPowerEarned", "SenseiClaimed", "MagicianSwapped", "WitchDoctorSwapped"} <= bound


def test_a_forged_earned_power_or_witch_doctor_swap_fails_verification():
    for seed in range(20):
        *_, game = pp_playout({**PP, "power_mode": "roll"}, seed)
        earned = next((e for e in game.events if e.kind == "PlayerPowerEarned" and e.public["power"]), None)
        swap = next((e for e in game.events if e.kind == "WitchDoctorSwapped"), None)
        if earned and swap:
            break
    else:
        raise AssertionError("no playout with both")
    other = next(p for p in PLAYER_POWERS if p != earned.public["power"])
    forged = [dataclasses.replace(e, public={**e.public, "power": other}) if e is earned else e for e in game.events]
    failed = [c.name for c in verify_export(export_lines(game, forged)).checks if c.status == "fail"]
    assert failed == ["public parts"]
    given = {**swap.secret, "given": ["ghost"]}
    forged = [dataclasses.replace(e, secret=given) if e is swap else e for e in game.events]
    failed = [c.name for c in verify_export(export_lines(game, forged)).checks if c.status == "fail"]
    assert failed == ["dealt secrets"]
