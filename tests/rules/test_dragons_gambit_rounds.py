"""Rule tests for `dragons-gambit` beyond one turn: reshuffles, Final Gambit, scoring, the match."""

from __future__ import annotations

import json

import pytest

from domain.ruleset import Viewer, passes
from domain.rulesets import dragons_gambit as dg
from domain.rulesets.dragons_gambit import (
    CallFinalGambit,
    DiscardDrawnCard,
    DrawCard,
    PeekOwnCard,
    SkipAbility,
    SwapDrawnCard,
    TakeDiscard,
)
from domain.rulesets.dragons_gambit.rules import check_final_gambit
from tests.rules.test_dragons_gambit import HIGH, LOW, SPECTATOR, own_grid, plain_turn, rigged, seat_view, violation
from tests.support.harness import start

ORGANIZER = Viewer("organizer", sees_all=True)


def events_of(game, kind: str) -> list:
    """The recorded events of one kind."""
    return [e for e in game.events if e.kind == kind]


# --- the draw pile ------------------------------------------------------------------------------

def test_an_empty_draw_pile_is_refilled_from_the_discard_pile_except_its_top_card():
    game = start(dg)
    seats = ["p1", "p2"]
    turn = 0
    while game.state["draw_pile"]:
        plain_turn(game, seats[turn % 2])
        turn += 1
    assert turn == 52 - 8 - 1
    discard = list(game.state["discard"])
    seat = seats[turn % 2]
    reshuffled, drawn = game.act(seat, DrawCard())
    assert reshuffled.kind == "DrawPileReshuffled" and reshuffled.audience == ()
    assert reshuffled.public["chance"]["draw"] == "permutation" and reshuffled.public["chance"]["n"] == len(discard) - 1
    assert "chance_result" in reshuffled.secret and "chance_result" not in reshuffled.public
    assert sorted(reshuffled.secret["draw_pile"]) == sorted(discard[:-1])
    assert drawn.secret["card"] == reshuffled.secret["draw_pile"][0]
    board = game.view(ORGANIZER)
    assert board["discard"] == [{"card": discard[-1], "face": dg.FACE[discard[-1]]}]
    assert [c["card"] for c in board["draw_pile"]] == reshuffled.secret["draw_pile"][1:]
    assert game.view(SPECTATOR)["draw_pile_count"] == len(discard) - 2 and "draw_pile" not in game.view(SPECTATOR)
    assert game.replayed_state() == game.state


def test_a_reshuffle_follows_the_drawn_permutation():
    reverse = list(range(42, -1, -1))
    game = rigged(grids={"p1": LOW, "p2": LOW}, reshuffles=(reverse,))
    turn = 0
    while game.state["draw_pile"]:
        plain_turn(game, "p1" if turn % 2 == 0 else "p2")
        turn += 1
    below_top = game.state["discard"][:-1]
    reshuffled, _ = game.act("p2", DrawCard())
    assert reshuffled.secret["draw_pile"] == below_top[::-1]


# --- Final Gambit -------------------------------------------------------------------------------

def test_final_gambit_waits_until_every_seat_has_taken_a_turn():
    game = start(dg, {"players": 3})
    assert violation(game, "p1", CallFinalGambit()) == "final_gambit_too_early"
    plain_turn(game, "p1")
    plain_turn(game, "p2")
    assert violation(game, "p3", CallFinalGambit()) == "final_gambit_too_early"
    assert CallFinalGambit() not in dg.legal_commands(game.state, "p3")
    plain_turn(game, "p3")
    assert CallFinalGambit() in dg.legal_commands(game.state, "p1")


def test_final_gambit_gives_every_other_seat_exactly_one_more_turn():
    game = start(dg, {"players": 3})
    for seat in ("p1", "p2", "p3", "p1"):
        plain_turn(game, seat)
    [called] = game.act("p2", CallFinalGambit())
    assert called.kind == "FinalGambitCalled" and called.public == {"seat": "p2", "round": 1}
    board = game.view(SPECTATOR)
    assert board["caller"] == "p2" and board["final_turns_left"] == ["p3", "p1"] and board["current"] == "p3"
    assert violation(game, "p3", CallFinalGambit()) == "final_gambit_already_called"
    plain_turn(game, "p3")
    assert dg.to_act(game.state) == ["p1"]
    game.act("p1", DrawCard())
    game.act("p1", DiscardDrawnCard())
    if game.state["pending_ability"] is not None:
        assert events_of(game, "RoundEnded") == []
        game.act("p1", SkipAbility())
    [ended] = events_of(game, "RoundEnded")
    assert ended.public["round"] == 1 and ended.public["caller"] == "p2"
    # The caller never acts again: the next round has begun, opened by the next seat.
    board = game.view(SPECTATOR)
    assert board["round"] == 2 and board["caller"] is None and board["round_first_seat"] == "p2"
    assert dg.to_act(game.state) == ["p2"]


def test_final_gambit_can_be_called_once_per_round():
    game = start(dg, {"players": 2})
    plain_turn(game, "p1")
    plain_turn(game, "p2")
    game.act("p1", CallFinalGambit())
    assert violation(game, "p2", CallFinalGambit()) == "final_gambit_already_called"
    assert CallFinalGambit() not in dg.legal_commands(game.state, "p2")


def play_called_round(game, caller: str = "p1", other: str = "p2") -> dict:
    """Both seats play a plain turn, `caller` calls, the other takes its last turn; the RoundEnded public."""
    plain_turn(game, caller)
    plain_turn(game, other)
    game.act(caller, CallFinalGambit())
    plain_turn(game, other)
    return events_of(game, "RoundEnded")[-1].public


def test_a_caller_without_the_lowest_hand_pays_the_penalty():
    game = rigged(grids={"p1": HIGH, "p2": LOW}, draws=(5, 5, 5))
    ended = play_called_round(game)
    assert ended["totals"] == {"p1": 39, "p2": 10} and ended["round_winners"] == ["p2"]
    assert ended["penalties"] == {"p1": 10, "p2": 0} and ended["scores"] == {"p1": 49, "p2": 10}
    assert game.view(SPECTATOR)["scores"] == {"p1": 49, "p2": 10}


@pytest.mark.parametrize("penalty", [0, 25])
def test_the_caller_penalty_is_configurable(penalty):
    game = rigged({"caller_penalty": penalty}, grids={"p1": HIGH, "p2": LOW}, draws=(5, 5, 5))
    ended = play_called_round(game)
    assert ended["penalties"]["p1"] == penalty and ended["scores"]["p1"] == 39 + penalty
    assert ended["bluff_call"]["consequences"] == {"penalty": penalty} and ended["bluff_call"]["verdict"] == "false"


def test_a_tie_for_lowest_counts_as_lowest_for_the_caller():
    game = rigged(grids={"p1": LOW, "p2": LOW}, draws=(5, 5, 5))
    ended = play_called_round(game)
    assert ended["totals"] == {"p1": 10, "p2": 10} and ended["round_winners"] == ["p1", "p2"]
    assert ended["penalties"] == {"p1": 0, "p2": 0} and ended["bluff_call"]["verdict"] == "true"


def test_tokens_count_in_the_round_total():
    game = rigged(grids={"p1": LOW, "p2": LOW}, draws=(8, 5, 5))
    game.act("p1", DrawCard())
    game.act("p1", DiscardDrawnCard())
    game.act("p1", dg.AddToken("p2", 0))
    plain_turn(game, "p2")
    game.act("p1", CallFinalGambit())
    plain_turn(game, "p2")
    ended = events_of(game, "RoundEnded")[-1].public
    assert ended["hands"]["p2"][0] | {"card": None} == {"slot": 0, "card": None, "face": 1, "tokens": 1, "value": 2}
    assert ended["totals"] == {"p1": 10, "p2": 11} and ended["penalties"]["p1"] == 0


def test_the_round_end_is_a_bluff_ruling_that_opens_the_rounds_hidden_chance_to_everyone():
    game = start(dg)
    turn = 0
    while game.state["draw_pile"]:
        plain_turn(game, ("p1", "p2")[turn % 2])
        turn += 1
    plain_turn(game, ("p1", "p2")[turn % 2])
    caller = dg.to_act(game.state)[0]
    [called] = game.act(caller, CallFinalGambit())
    other = dg.to_act(game.state)[0]
    plain_turn(game, other)
    ended = events_of(game, "RoundEnded")[0]
    deal, reshuffle = events_of(game, "RoundDealt")[0], events_of(game, "DrawPileReshuffled")[0]
    # The shuffles prove the hands; the next round is dealt afresh, so the pile's undrawn order they
    # also fix hides nothing any more: they are opened to everyone, not sealed, and the ruling can
    # be checked by every viewer at once.
    assert ended.evidence == ()
    # Every card shown to one seat is face up now: those records are revealed, once each (a drawn
    # card discarded face up was revealed by its discard already).
    shown = [e.version for e in game.events
             if e.kind in ("InitialCardsPeeked", "CardDrawn", "CardPeeked") and e.version < ended.version]
    discards = [v for e in game.events if e.kind == "DrawnCardDiscarded" and e.version < ended.version for v in e.opens]
    assert set(discards) <= set(shown)
    assert list(ended.opens) == sorted([deal.version, reshuffle.version] + [v for v in shown if v not in discards])
    totals = ended.public["totals"]
    call = ended.public["bluff_call"]
    assert call == {
        "claim_version": called.version, "claimant": caller, "caller": caller, "call_version": called.version,
        "claim": "lowest_hand", "verdict": "true" if totals[caller] <= min(totals.values()) else "false",
        "consequences": {"penalty": ended.public["penalties"][caller]}, "hand_totals": totals, "round": 1,
    }
    assert ended.secret is None and ended.audience is None


def test_all_hands_are_revealed_to_everyone_when_a_round_ends():
    game = rigged(grids={"p1": HIGH, "p2": LOW}, draws=(5, 5, 5))
    play_called_round(game)
    for viewer in (SPECTATOR, seat_view("p1"), seat_view("p2")):
        last = game.view(viewer)["last_round"]
        assert [c["face"] for c in last["hands"]["p1"]] == HIGH
        assert [c["face"] for c in last["hands"]["p2"]] == LOW
        assert last["totals"] == {"p1": 39, "p2": 10} and last["caller"] == "p1"


# --- the match ----------------------------------------------------------------------------------

def test_rounds_are_dealt_until_a_match_score_reaches_the_target_and_the_lowest_score_wins():
    game = start(dg, {"players": 3, "target_score": 80})
    starters = []
    while dg.outcome(game.state) is None:
        seat = dg.to_act(game.state)[0]
        if game.state["turns_taken"][seat] == 0 and seat == game.state["round_first_seat"]:
            starters.append(seat)
        if seat == game.state["round_first_seat"] and passes(check_final_gambit, game.state):
            game.act(seat, CallFinalGambit())
        else:
            plain_turn(game, seat)
    ended = [e.public for e in events_of(game, "RoundEnded")]
    assert len(ended) >= 2
    assert starters == ["p1", "p2", "p3", "p1", "p2", "p3"][:len(ended)]
    scores = {s: sum(r["totals"][s] + r["penalties"][s] for r in ended) for s in ("p1", "p2", "p3")}
    assert max(scores.values()) >= 80 and max(ended[-2]["scores"].values()) < 80
    assert all(not r["match_over"] for r in ended[:-1]) and ended[-1]["match_over"]
    low = min(scores.values())
    assert dg.outcome(game.state) == {"winners": [s for s in scores if scores[s] == low], "reason": "target_score",
                                      "scores": scores, "rounds": len(ended)}
    assert events_of(game, "RoundDealt")[-1].public["round"] == len(ended)
    assert game.replayed_state() == game.state


def test_tied_lowest_match_scores_share_the_win():
    game = rigged({"target_score": 5}, grids={"p1": LOW, "p2": LOW}, draws=(5, 5, 5))
    play_called_round(game)
    assert dg.outcome(game.state) == {"winners": ["p1", "p2"], "reason": "target_score",
                                      "scores": {"p1": 10, "p2": 10}, "rounds": 1}


def test_nothing_can_be_done_once_the_match_is_over():
    game = rigged({"target_score": 5}, grids={"p1": LOW, "p2": LOW}, draws=(5, 5, 5))
    play_called_round(game)
    assert dg.to_act(game.state) == []
    assert dg.legal_commands(game.state, "p1") == []
    assert violation(game, "p1", DrawCard()) == "game_over"
    board = game.view(Viewer("seat", "p2", sees_all=True))
    assert all(c["face"] is not None for s in ("p1", "p2") for c in board["grids"][s])
    assert len(board["draw_pile"]) == board["draw_pile_count"]


# --- memory aid ---------------------------------------------------------------------------------

def test_with_the_memory_aid_the_view_keeps_every_value_the_seat_has_seen():
    game = rigged(grids={"p1": LOW, "p2": LOW}, draws=(10, 5))
    game.act("p1", DrawCard())
    game.act("p1", DiscardDrawnCard())
    game.act("p1", PeekOwnCard(0))
    plain_turn(game, "p2")
    assert [c["face"] for c in own_grid(game, "p1")] == [1, None, 3, 4]


def test_without_the_memory_aid_values_show_only_in_the_revealing_events():
    game = rigged({"memory_aid": False}, grids={"p1": LOW, "p2": LOW}, draws=(10, 6))
    peeked = events_of(game, "InitialCardsPeeked")[0]
    assert [c["face"] for c in peeked.secret["cards"]] == [3, 4]
    assert all(c["face"] is None and c["card"] is None for c in own_grid(game, "p1"))
    game.act("p1", DrawCard())
    game.act("p1", DiscardDrawnCard())
    [event] = game.act("p1", PeekOwnCard(0))
    assert event.secret["face"] == 1 and event.audience == ("p1",)
    assert all(c["face"] is None for c in own_grid(game, "p1"))
    # The card in your hand is in front of you: it shows while you hold it.
    [drawn] = game.act("p2", DrawCard())
    assert game.view(seat_view("p2"))["drawn"]["face"] == 6
    game.act("p2", SwapDrawnCard(0))
    assert own_grid(game, "p2")[0]["face"] is None and game.view(seat_view("p2"))["memory_aid"] is False
    assert drawn.secret["card"] not in json.dumps(game.view(seat_view("p2")))


def test_without_the_memory_aid_a_taken_discard_is_not_shown_either():
    game = rigged({"memory_aid": False}, grids={"p1": LOW, "p2": LOW}, flip=7)
    game.act("p1", TakeDiscard(1))
    assert own_grid(game, "p1")[1]["face"] is None
