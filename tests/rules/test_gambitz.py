"""Rules of `gambitz`, one test per rule, driven through the harness; hidden information in views.

Positions are laid out by folding hand-built events (a rigged shuffle, deals, earlier plays)
through evolve — the replay path — and then played with real commands.
"""

from __future__ import annotations

import json
import random

import pytest

from domain.ruleset import ConfigError, Event, RuleViolation, Viewer, config_from_dict, copy_state
from domain.rulesets import gambitz as gz
from domain.rulesets.gambitz import PassTurn, PlayCard, RedrawHand
from domain.rulesets.gambitz.cards import rank_of
from domain.rulesets.gambitz.events import revealed_by_showing
from domain.rulesets.gambitz.table import placement_problem, queen_moves
from tests.support.harness import Game, random_playout, start


def moves(state: dict, seat: str) -> list:
    """The seat's legal moves of the game itself: its legal commands but `resign`, which the seat on turn always has."""
    return [command for command in gz.legal_commands(state, seat) if command.type != "resign"]

SPECTATOR = Viewer("spectator")
ORGANIZER = Viewer("organizer", sees_all=True)


def position(hands: dict[str, list[str]], *, stacks: dict[str, list[str]] | None = None,
             queens: dict[str, str] | None = None, deck: list[str] | None = None, rest: str = "deck",
             turn: str = "p1", config: dict | None = None) -> Game:
    """A game laid out by hand: hands, stacks (bottom first), locking queens, deck top.

    Cards not mentioned go under `deck` (rest="deck") or onto their own stacks (rest="stacks",
    which leaves the deck as exactly `deck`).
    """
    stacks, queens, top = stacks or {}, queens or {}, list(deck or [])
    cfg = config_from_dict(gz.Config, {"players": len(hands), **(config or {})})
    seats = gz.seat_names(cfg)
    placed = [card for cards in stacks.values() for card in cards] + list(queens.values())
    held = [card for seat in seats for card in hands.get(seat, [])]
    mentioned = placed + held + top
    assert len(set(mentioned)) == len(mentioned), "a card is mentioned twice"
    others = [card for card in gz.CARDS if card not in mentioned]
    if rest == "stacks":
        stacks = {rank: list(cards) for rank, cards in stacks.items()}
        for card in others:
            rank = rank_of(card)
            assert rank != "queen" and rank not in queens, f"{card} has no place on the stacks"
            stacks.setdefault(rank, []).append(card)
            assert len(stacks[rank]) <= 4
            placed.append(card)
        others = []
    order = placed + held + top + others
    perm = [gz.CARDS.index(card) for card in order]
    game = Game(gz, cfg, seats, gz.initial_state(cfg, seats))
    events = [Event("DeckShuffled", {"chance": {"draw": "permutation", "purpose": "rigged", "n": 60},
                                     "reason": "setup", "deck_size": 60}, {"chance_result": perm}, ())]
    events.append(Event("CardsDealt", {"seat": "p1", "count": len(placed), "deck_size": 0}, {"cards": placed}, ("p1",)))
    for rank, cards in stacks.items():
        for n, card in enumerate(cards, 1):
            events.append(Event("CardPlayed", {"seat": "p1", "card": card, "stack": rank, "position": n, "points": 0,
                                               "locks": False}))
    for rank, queen in queens.items():
        events.append(Event("CardPlayed", {"seat": "p1", "card": queen, "stack": rank, "position": 4, "points": 0,
                                           "locks": True}))
    for seat in seats:
        events.append(Event("CardsDealt", {"seat": seat, "count": len(hands.get(seat, [])), "deck_size": 0},
                            {"cards": list(hands.get(seat, []))}, (seat,)))
    events.append(Event("GameStarted", {"seats": seats, "first_seat": turn}))
    game.record(events)
    game.events.clear()  # the layout is the starting point; replays in these tests start from it
    game.base_version = 100
    return game


def violation(game: Game, seat: str, command) -> str:
    """The rule id decide raises for this command (the state must stay untouched)."""
    with pytest.raises(RuleViolation) as info:
        game.act(seat, command)
    return info.value.rule


def kinds(events) -> list[str]:
    """The kinds of some events."""
    return [event.kind for event in events]


def hand(game: Game, seat: str) -> list[str]:
    """A seat's hand as the seat sees it."""
    return game.view(Viewer("seat", seat))["hand"]


FILLER = {"p2": ["2-blue", "2-green", "2-red"]}


# --- config ---------------------------------------------------------------------------------------

def test_config_defaults_are_two_players_p1_first_and_the_rules_page_table():
    config = config_from_dict(gz.Config, {})
    assert (config.players, config.first_seat) == (2, "p1")
    assert config.scoring == gz.DEFAULT_SCORING
    assert config.scoring["number"] == {"1": 0, "2": 1, "3": 3, "4": 1, "hand": -1}
    assert config.scoring["knight"]["hand"] == -3 and config.scoring["king"]["1"] == 5


@pytest.mark.parametrize("raw, field", [
    ({"players": 1}, "players"), ({"players": 9}, "players"), ({"players": "2"}, "players"),
    ({"first_seat": "p3"}, "first_seat"), ({"players": 3, "first_seat": "north"}, "first_seat"),
    ({"scoring": {"jester": {"1": 1}}}, "scoring"), ({"scoring": {"king": {"5": 1}}}, "scoring"),
    ({"scoring": {"queen": {"1": 1}}}, "scoring"), ({"scoring": {"king": {"1": True}}}, "scoring"),
    ({"scoring": {"king": {"1": "5"}}}, "scoring"), ({"scoring": {"king": 5}}, "scoring"),
    ({"colour": "red"}, "colour"),
])
def test_config_rejects_what_cannot_be_played(raw, field):
    with pytest.raises(ConfigError) as info:
        config_from_dict(gz.Config, raw)
    assert info.value.field == field


def test_seats_are_p1_to_pn():
    assert gz.seat_names(config_from_dict(gz.Config, {"players": 8})) == [f"p{n}" for n in range(1, 9)]


# --- setup --------------------------------------------------------------------------------------

def test_sixty_cards_of_four_suits_and_fifteen_ranks_with_readable_ids():
    assert len(gz.CARDS) == len(set(gz.CARDS)) == 60
    assert {"7-blue", "queen-red", "castle-yellow", "10-green", "1-blue"} <= set(gz.CARDS)
    assert len(gz.STACK_RANKS) == 14 and "queen" not in gz.STACK_RANKS


def test_setup_shuffles_in_secret_and_deals_three_private_cards_to_each_seat():
    game = start(gz, {"players": 3})
    assert kinds(game.events) == ["DeckShuffled", "CardsDealt", "CardsDealt", "CardsDealt", "GameStarted"]
    shuffle = game.events[0]
    assert shuffle.audience == () and len(shuffle.secret["chance_result"]) == 60
    assert shuffle.public["chance"]["draw"] == "permutation" and shuffle.public["chance"]["n"] == 60
    dealt = {event.public["seat"]: event for event in game.events[1:4]}
    for seat, event in dealt.items():
        assert event.audience == (seat,) and event.public["count"] == 3 and "cards" not in event.public
        assert hand(game, seat) == event.secret["cards"]
    assert len({card for event in dealt.values() for card in event.secret["cards"]}) == 9
    assert game.view(SPECTATOR)["deck_size"] == 51
    assert gz.to_act(game.state) == ["p1"]


def test_first_seat_plays_first_and_is_configurable():
    game = start(gz, {"players": 3, "first_seat": "p2"})
    assert gz.to_act(game.state) == ["p2"]
    assert violation(game, "p1", PlayCard(hand(game, "p1")[0])) == "not_your_turn"
    assert moves(game.state, "p1") == []


# --- a turn -------------------------------------------------------------------------------------

def test_a_played_card_goes_on_its_rank_stack_scores_and_the_seat_draws_one_secret_card():
    game = position({"p1": ["7-blue", "king-red", "3-green"], **FILLER}, deck=["5-red"])
    events = game.act("p1", PlayCard("7-blue"))
    assert kinds(events) == ["CardPlayed", "CardsDrawn", "TurnBegan"]
    assert events[0].public == {"seat": "p1", "card": "7-blue", "stack": "7", "position": 1, "points": 0, "locks": False}
    assert events[1].audience == ("p1",) and events[1].secret == {"cards": ["5-red"]} and "cards" not in events[1].public
    assert sorted(hand(game, "p1")) == ["3-green", "5-red", "king-red"]
    assert game.view(SPECTATOR)["stacks"]["7"]["cards"] == ["7-blue"]
    assert gz.to_act(game.state) == ["p2"]


def test_a_card_goes_only_on_its_own_stack():
    game = position({"p1": ["7-blue", "king-red", "3-green"], **FILLER})
    assert violation(game, "p1", PlayCard("7-blue", stack="8")) == "wrong_stack"
    game.act("p1", PlayCard("7-blue", stack="7"))


def test_number_cards_score_0_1_3_1():
    game = position({"p1": ["7-blue", "7-green", "king-red"], "p2": ["7-red", "7-yellow", "2-blue"]})
    scored = []
    for seat, card in [("p1", "7-blue"), ("p2", "7-red"), ("p1", "7-green"), ("p2", "7-yellow")]:
        scored.append(game.act(seat, PlayCard(card))[0].public["points"])
    assert scored == [0, 1, 3, 1]
    assert game.view(SPECTATOR)["points"] == {"p1": 3, "p2": 2}


@pytest.mark.parametrize("rank, row", [("king", [5, 5, 5, 5]), ("bishop", [1, 2, 2, 1]), ("knight", [1, 2, 2, 1]),
                                       ("castle", [1, 1, 1, 1]), ("10", [0, 1, 3, 1])])
def test_each_rank_scores_its_table_row_for_the_nth_card_on_its_stack(rank, row):
    game = position({"p1": [f"{rank}-blue", f"{rank}-green", "2-blue"], "p2": [f"{rank}-red", f"{rank}-yellow", "2-green"]})
    scored = [game.act(seat, PlayCard(f"{rank}-{suit}"))[0].public["points"]
              for seat, suit in [("p1", "blue"), ("p2", "red"), ("p1", "green"), ("p2", "yellow")]]
    assert scored == row


def test_a_stack_holds_at_most_four_cards():
    game = position({"p1": ["queen-blue", "king-red", "3-green"], **FILLER},
                    stacks={"7": ["7-blue", "7-green", "7-red", "7-yellow"]})
    assert violation(game, "p1", PlayCard("queen-blue", stack="7")) == "stack_full"
    assert placement_problem(game.state, "7", "7") == ("stack_full", "the 7 stack already holds 4 cards")


def test_queen_is_played_only_on_a_stack_of_exactly_three():
    game = position({"p1": ["queen-blue", "king-red", "3-green"], **FILLER}, stacks={"7": ["7-blue", "7-green"]})
    assert violation(game, "p1", PlayCard("queen-blue", stack="7")) == "queen_needs_three"
    assert violation(game, "p1", PlayCard("queen-blue", stack="9")) == "queen_needs_three"
    assert violation(game, "p1", PlayCard("queen-blue")) == "queen_needs_stack"
    assert violation(game, "p1", PlayCard("queen-blue", stack="queen")) == "unknown_stack"
    assert not any(command.card == "queen-blue" for command in moves(game.state, "p1"))


def test_queen_cannot_lock_the_castle_stack():
    game = position({"p1": ["queen-blue", "king-red", "3-green"], "p2": ["castle-yellow", "2-green", "2-red"]},
                    stacks={"castle": ["castle-blue", "castle-green", "castle-red"]})
    assert violation(game, "p1", PlayCard("queen-blue", stack="castle")) == "queen_on_castle"
    assert PlayCard("queen-blue", stack="castle") not in moves(game.state, "p1")
    game.act("p1", PlayCard("king-red"))
    assert PlayCard("castle-yellow") in moves(game.state, "p2")


def test_queen_scores_as_the_fourth_card_and_locks_the_stack_for_its_remaining_card():
    game = position({"p1": ["queen-blue", "king-red", "3-green"], "p2": ["7-yellow", "queen-red", "2-red"]},
                    stacks={"7": ["7-blue", "7-green", "7-red"]})
    assert PlayCard("queen-blue", stack="7") in moves(game.state, "p1")
    played = game.act("p1", PlayCard("queen-blue", stack="7"))[0]
    assert played.public["points"] == 2 and played.public["position"] == 4 and played.public["locks"]
    board = game.view(SPECTATOR)["stacks"]["7"]
    assert board == {"cards": ["7-blue", "7-green", "7-red"], "queen": "queen-blue", "locked": True, "size": 4}
    assert violation(game, "p2", PlayCard("7-yellow")) == "stack_locked"
    assert violation(game, "p2", PlayCard("queen-red", stack="7")) == "stack_locked"
    assert {command.card for command in moves(game.state, "p2")} == {"2-red"}


def test_second_bishop_may_move_a_locking_queen():
    game = position({"p1": ["bishop-green", "king-red", "3-green"], "p2": ["7-yellow", "2-green", "2-red"]},
                    stacks={"7": ["7-blue", "7-green", "7-red"], "5": ["5-blue", "5-green", "5-red"],
                            "bishop": ["bishop-blue"]}, queens={"7": "queen-blue"})
    move = PlayCard("bishop-green", move_queen_from="7", move_queen_to="5")
    assert move in moves(game.state, "p1")
    events = game.act("p1", move)
    assert kinds(events)[:2] == ["CardPlayed", "QueenMoved"]
    assert events[0].public["points"] == 2 and game.view(SPECTATOR)["points"]["p1"] == 2  # the move scores nothing
    assert events[1].public == {"seat": "p1", "queen": "queen-blue", "from": "7", "to": "5"}
    stacks = game.view(SPECTATOR)["stacks"]
    assert not stacks["7"]["locked"] and stacks["5"]["queen"] == "queen-blue"
    assert PlayCard("7-yellow") in moves(game.state, "p2")


def test_third_bishop_may_move_a_queen_onto_the_bishop_stack_it_completes():
    game = position({"p1": ["bishop-green", "king-red", "3-green"], **FILLER},
                    stacks={"7": ["7-blue", "7-green", "7-red"], "bishop": ["bishop-blue", "bishop-red"]},
                    queens={"7": "queen-blue"})
    assert queen_moves(game.state) == [("7", "bishop")]
    game.act("p1", PlayCard("bishop-green", move_queen_from="7", move_queen_to="bishop"))
    assert game.view(SPECTATOR)["stacks"]["bishop"]["locked"]


def test_bishop_power_is_optional():
    game = position({"p1": ["bishop-green", "king-red", "3-green"], **FILLER},
                    stacks={"7": ["7-blue", "7-green", "7-red"], "5": ["5-blue", "5-green", "5-red"],
                            "bishop": ["bishop-blue"]}, queens={"7": "queen-blue"})
    events = game.act("p1", PlayCard("bishop-green"))
    assert "QueenMoved" not in kinds(events)
    assert game.view(SPECTATOR)["stacks"]["7"]["queen"] == "queen-blue"


@pytest.mark.parametrize("bishops_down", [0, 3])
def test_only_the_second_and_third_bishop_have_the_power(bishops_down):
    bishop_stack = ["bishop-blue", "bishop-red", "bishop-yellow"][:bishops_down]
    game = position({"p1": ["bishop-green", "king-red", "3-green"], **FILLER},
                    stacks={"7": ["7-blue", "7-green", "7-red"], "5": ["5-blue", "5-green", "5-red"],
                            "bishop": bishop_stack}, queens={"7": "queen-blue"})
    assert violation(game, "p1", PlayCard("bishop-green", move_queen_from="7", move_queen_to="5")) == \
        "bishop_power_unavailable"
    assert violation(game, "p1", PlayCard("king-red", move_queen_from="7", move_queen_to="5")) == \
        "bishop_power_unavailable"
    assert all(command.move_queen_from is None for command in moves(game.state, "p1"))


@pytest.mark.parametrize("source, target", [
    ("5", "7"),          # the source stack is not locked
    ("7", "castle"),     # never onto the Castles
    ("7", "9"),          # the target holds two cards
    ("7", "8"),          # the target is already locked
    ("7", "7"),          # another stack
    ("7", None), (None, "5"),
    ("7", "dragon"),
])
def test_a_queen_moves_from_a_locked_stack_to_another_non_castle_stack_of_three(source, target):
    game = position({"p1": ["bishop-green", "king-red", "3-green"], **FILLER},
                    stacks={"7": ["7-blue", "7-green", "7-red"], "5": ["5-blue", "5-green", "5-red"],
                            "8": ["8-blue", "8-green", "8-red"], "9": ["9-blue", "9-green"],
                            "castle": ["castle-blue", "castle-green", "castle-red"], "bishop": ["bishop-blue"]},
                    queens={"7": "queen-blue", "8": "queen-red"})
    assert violation(game, "p1", PlayCard("bishop-green", move_queen_from=source, move_queen_to=target)) == \
        "invalid_queen_move"
    assert sorted(queen_moves(game.state)) == [("7", "5"), ("8", "5")]


def test_knight_returns_cards_to_the_bottom_and_draws_replacements():
    game = position({"p1": ["knight-green", "7-blue", "king-red"], **FILLER}, stacks={"knight": ["knight-blue"]},
                    deck=["5-red", "6-red", "8-red"])
    legal = moves(game.state, "p1")
    for returned in [("7-blue",), ("king-red",), ("7-blue", "king-red"), ("king-red", "7-blue")]:
        assert PlayCard("knight-green", knight_return=returned) in legal
    size_before = game.view(SPECTATOR)["deck_size"]
    events = game.act("p1", PlayCard("knight-green", knight_return=("7-blue", "king-red")))
    assert kinds(events) == ["CardPlayed", "CardsReturned", "CardsDrawn", "TurnBegan"]
    assert events[0].public["points"] == 2
    assert events[1].audience == ("p1",) and events[1].secret == {"cards": ["7-blue", "king-red"]}
    assert "cards" not in events[1].public and events[1].public["count"] == 2
    assert events[2].secret == {"cards": ["5-red", "6-red", "8-red"]}
    assert sorted(hand(game, "p1")) == ["5-red", "6-red", "8-red"]
    assert game.view(ORGANIZER)["deck"][-2:] == ["7-blue", "king-red"]
    assert game.view(SPECTATOR)["deck_size"] == size_before - 1


def test_knight_may_return_just_one_card():
    game = position({"p1": ["knight-green", "7-blue", "king-red"], **FILLER},
                    stacks={"knight": ["knight-blue", "knight-red"]}, deck=["5-red", "6-red"])
    game.act("p1", PlayCard("knight-green", knight_return=("king-red",)))
    assert sorted(hand(game, "p1")) == ["5-red", "6-red", "7-blue"]
    assert game.view(ORGANIZER)["deck"][-1] == "king-red"


@pytest.mark.parametrize("returned", [("knight-green",), ("5-red",), ("7-blue", "7-blue"),
                                      ("7-blue", "king-red", "3-green"), ("ace-of-spades",)])
def test_knight_returns_only_the_other_cards_it_was_played_with(returned):
    game = position({"p1": ["knight-green", "7-blue", "king-red"], **FILLER}, stacks={"knight": ["knight-blue"]},
                    deck=["5-red"])
    assert violation(game, "p1", PlayCard("knight-green", knight_return=returned)) == "invalid_knight_return"


@pytest.mark.parametrize("knights_down", [0, 3])
def test_only_the_second_and_third_knight_have_the_power(knights_down):
    game = position({"p1": ["knight-green", "7-blue", "king-red"], **FILLER},
                    stacks={"knight": ["knight-blue", "knight-red", "knight-yellow"][:knights_down]})
    assert violation(game, "p1", PlayCard("knight-green", knight_return=("7-blue",))) == "knight_power_unavailable"
    assert violation(game, "p1", PlayCard("7-blue", knight_return=("king-red",))) == "knight_power_unavailable"
    assert not any(command.knight_return for command in moves(game.state, "p1"))
    game.act("p1", PlayCard("knight-green", knight_return=()))  # an empty return is no return


def test_knight_returning_cards_to_an_empty_deck_draws_the_same_cards_back():
    game = position({"p1": ["knight-green", "7-blue", "queen-red"], "p2": ["knight-yellow", "queen-blue"],
                     "p3": ["queen-green", "queen-yellow"]},
                    stacks={"knight": ["knight-blue", "knight-red"]}, rest="stacks")
    assert game.view(SPECTATOR)["deck_size"] == 0
    events = game.act("p1", PlayCard("knight-green", knight_return=("7-blue", "queen-red")))
    assert kinds(events) == ["CardPlayed", "CardsReturned", "CardsDrawn", "TurnBegan"]
    assert events[2].secret == {"cards": ["7-blue", "queen-red"]}
    assert game.view(SPECTATOR)["deck_size"] == 0


# --- when a seat cannot play --------------------------------------------------------------------

def test_a_seat_with_no_playable_card_passes():
    game = position({"p1": ["queen-blue", "7-red", "8-red"], **FILLER},
                    stacks={"7": ["7-blue", "7-green", "7-yellow"], "8": ["8-blue", "8-green", "8-yellow"]},
                    queens={"7": "queen-green", "8": "queen-yellow"})
    assert moves(game.state, "p1") == [PassTurn()]
    assert violation(game, "p1", PlayCard("7-red")) == "stack_locked"
    assert violation(game, "p1", RedrawHand()) == "redraw_not_allowed"
    events = game.act("p1", PassTurn())
    assert kinds(events) == ["TurnPassed", "TurnBegan"] and gz.outcome(game.state) is None
    assert game.view(SPECTATOR)["passed"] == ["p1"] and gz.to_act(game.state) == ["p2"]


def test_a_seat_that_can_play_cannot_pass():
    game = start(gz)
    assert violation(game, "p1", PassTurn()) == "cannot_pass_with_playable_card"


def test_three_queens_force_a_redraw():
    game = position({"p1": ["queen-blue", "queen-green", "queen-red"], **FILLER},
                    stacks={"7": ["7-blue", "7-green"]})
    assert moves(game.state, "p1") == [RedrawHand()]
    assert violation(game, "p1", PassTurn()) == "must_redraw"
    assert violation(game, "p1", PlayCard("queen-blue", stack="7")) == "must_redraw"
    events = game.act("p1", RedrawHand())
    assert kinds(events) == ["HandShown", "DeckShuffled", "CardsDrawn"]
    shown, shuffled, drawn = events
    assert shown.secret is None and shown.public["cards"] == ["queen-blue", "queen-green", "queen-red"]
    assert shuffled.audience == () and shuffled.public["reason"] == "redraw"
    assert drawn.audience == ("p1",) and len(drawn.secret["cards"]) == 3
    assert game.view(SPECTATOR)["shown_hands"] == [{"seat": "p1", "cards": shown.public["cards"]}]
    assert game.view(SPECTATOR)["deck_size"] == 60 - 2 - 6
    # The same turn goes on: the seat now plays a card.
    assert gz.to_act(game.state) == ["p1"] and game.view(SPECTATOR)["redrew"]
    legal = moves(game.state, "p1")
    assert legal and all(isinstance(command, PlayCard) for command in legal)
    assert violation(game, "p1", RedrawHand()) == "redraw_not_allowed"
    game.act("p1", legal[0])
    assert gz.to_act(game.state) == ["p2"] and not game.view(SPECTATOR)["redrew"]


def test_a_shown_hand_reveals_the_records_that_dealt_and_drew_it():
    game = position({"p1": ["queen-blue", "queen-green", "queen-red"], **FILLER})
    [dealt] = game.state["received"]["p1"]
    shown = game.act("p1", RedrawHand())[0]
    # The deal's cards are all face up now, so its commitment is opened to everyone at once.
    assert shown.opens == (dealt["version"],)
    assert game.state["received"]["p1"] == [{"version": shown.version + 2, "pending": hand(game, "p1"),
                                             "tainted": False}]


def test_a_card_a_knight_sent_back_unseen_keeps_its_record_sealed_when_the_hand_is_shown():
    state = gz.initial_state(config_from_dict(gz.Config, {}), ["p1", "p2"])
    for event in (Event("CardsDealt", {"seat": "p1", "count": 3, "deck_size": 57},
                        {"cards": ["1-blue", "2-blue", "3-blue"]}, ("p1",), (), 5),
                  Event("CardsDrawn", {"seat": "p1", "count": 1, "deck_size": 56}, {"cards": ["4-blue"]}, ("p1",), (), 7),
                  Event("CardPlayed", {"seat": "p1", "card": "4-blue", "stack": "4", "position": 1, "points": 0,
                                       "locks": False}, None, None, (), 8),
                  Event("CardsReturned", {"seat": "p1", "count": 1, "deck_size": 57}, {"cards": ["2-blue"]},
                        ("p1",), (), 9),
                  Event("CardsDrawn", {"seat": "p1", "count": 1, "deck_size": 56}, {"cards": ["5-blue"]}, ("p1",), (), 10)):
        gz.evolve(state, event)
    # The played card's record has nothing left to show; the deal lost a card to the deck unseen.
    assert revealed_by_showing(state, "p1") == (10,)


def test_two_queens_and_a_locked_card_force_a_redraw():
    game = position({"p1": ["queen-blue", "queen-green", "7-red"], **FILLER},
                    stacks={"7": ["7-blue", "7-green", "7-yellow"]}, queens={"7": "queen-yellow"})
    assert moves(game.state, "p1") == [RedrawHand()]
    events = game.act("p1", RedrawHand())
    assert events[0].public["cards"] == ["queen-blue", "queen-green", "7-red"] and len(hand(game, "p1")) == 3


def test_two_queens_and_a_playable_card_play_that_card():
    game = position({"p1": ["queen-blue", "queen-green", "7-red"], **FILLER})
    assert moves(game.state, "p1") == [PlayCard("7-red")]
    assert violation(game, "p1", RedrawHand()) == "redraw_not_allowed"


def test_queens_that_can_lock_a_stack_are_played_not_redrawn():
    game = position({"p1": ["queen-blue", "queen-green", "queen-red"], **FILLER},
                    stacks={"7": ["7-blue", "7-green", "7-red"]})
    assert RedrawHand() not in moves(game.state, "p1")
    assert PlayCard("queen-blue", stack="7") in moves(game.state, "p1")


def stuck_endgame() -> Game:
    """p1 holds three dead Queens, the deck is only the dead 7, p2 holds the last Castle."""
    return position({"p1": ["queen-blue", "queen-green", "queen-red"], "p2": ["castle-blue"]},
                    stacks={"7": ["7-blue", "7-green", "7-yellow"]}, queens={"7": "queen-yellow"},
                    deck=["7-red"], rest="stacks")


def test_a_seat_still_stuck_after_its_redraw_passes_and_redraws_at_most_once_a_turn():
    game = stuck_endgame()
    assert moves(game.state, "p1") == [RedrawHand()]
    game.act("p1", RedrawHand())
    assert game.view(SPECTATOR)["deck_size"] == 1
    assert moves(game.state, "p1") == [PassTurn()]
    assert violation(game, "p1", RedrawHand()) == "redraw_not_allowed"
    game.act("p1", PassTurn())
    game.act("p2", PlayCard("castle-blue"))
    assert game.view(SPECTATOR)["deck_size"] == 0 and game.view(SPECTATOR)["passed"] == []


def test_with_an_empty_deck_a_stuck_hand_of_queens_passes_instead_of_redrawing():
    game = stuck_endgame()
    game.act("p1", RedrawHand())
    game.act("p1", PassTurn())
    game.act("p2", PlayCard("castle-blue"))
    assert moves(game.state, "p1") == [PassTurn()]
    assert violation(game, "p1", RedrawHand()) == "redraw_not_allowed"
    stuck = hand(game, "p1")
    events = game.act("p1", PassTurn())
    assert kinds(events) == ["HandShown", "TurnPassed", "TurnBegan"]
    assert events[0].public == {"seat": "p1", "cards": stuck, "deck_size": 0, "kept": True}


def stuck_with_an_empty_deck() -> Game:
    """An empty deck; p1 holds two dead Queens and a card of the locked 7 stack; p2 can still play two Castles."""
    return position({"p1": ["queen-blue", "queen-green", "7-red"], "p2": ["castle-blue", "castle-green", "queen-red"]},
                    stacks={"7": ["7-blue", "7-green", "7-yellow"]}, queens={"7": "queen-yellow"}, rest="stacks")


def test_a_stuck_hand_with_an_empty_deck_is_shown_to_everyone_as_the_seat_passes_and_nothing_is_drawn():
    game = stuck_with_an_empty_deck()
    assert game.view(SPECTATOR)["deck_size"] == 0
    assert moves(game.state, "p1") == [PassTurn()]
    assert violation(game, "p1", RedrawHand()) == "redraw_not_allowed"
    [dealt] = game.state["received"]["p1"]
    shown, passed, began = game.act("p1", PassTurn())
    assert (shown.kind, passed.kind, began.kind) == ("HandShown", "TurnPassed", "TurnBegan")
    assert shown.secret is None and shown.audience is None
    assert shown.public == {"seat": "p1", "cards": ["queen-blue", "queen-green", "7-red"], "deck_size": 0,
                            "kept": True}
    # The record that dealt the hand is opened to everyone at once, as a redraw's is.
    assert shown.opens == (dealt["version"],)
    # Nothing is drawn and nothing goes back: the seat keeps its hand, face up.
    assert hand(game, "p1") == ["queen-blue", "queen-green", "7-red"]
    for viewer in (SPECTATOR, Viewer("seat", "p2")):
        view = game.view(viewer)
        assert view["shown_hands"] == [{"seat": "p1", "cards": ["queen-blue", "queen-green", "7-red"], "kept": True}]
        assert view["hand_sizes"]["p1"] == 3 and view["deck_size"] == 0 and view["passed"] == ["p1"]
    assert gz.to_act(game.state) == ["p2"]


def test_the_verifier_binds_a_shown_hand_kept_with_an_empty_deck():
    game = stuck_with_an_empty_deck()
    start_state = copy_state(game.state)
    events = game.act("p1", PassTurn())
    # What the replayed state fixes of each record is what was recorded, and the fold agrees.
    state = copy_state(start_state)
    for event in events:
        fixed = gz.derived_public(state, event)
        assert fixed == {key: event.public.get(key) for key in fixed}, event.kind
        state = gz.evolve(state, event)
    assert state == game.state
    # A record that returned the hand to the empty deck instead (no `kept`) is not the one the rules give.
    returned = Event("HandShown", {key: value for key, value in events[0].public.items() if key != "kept"})
    fixed = gz.derived_public(start_state, returned)
    assert fixed != {key: returned.public.get(key) for key in fixed}


def test_a_stuck_hand_already_lying_face_up_is_not_shown_again_and_the_game_ends_as_before():
    game = stuck_with_an_empty_deck()
    game.act("p1", PassTurn())
    game.act("p2", PlayCard("castle-blue"))
    assert kinds(game.act("p1", PassTurn())) == ["TurnPassed", "TurnBegan"]
    game.act("p2", PlayCard("castle-green"))
    assert kinds(game.act("p1", PassTurn())) == ["TurnPassed", "TurnBegan"]
    assert kinds(game.act("p2", PassTurn())) == ["TurnPassed", "GameEnded"]
    assert len(game.view(SPECTATOR)["shown_hands"]) == 1
    assert gz.outcome(game.state)["scores"] == {"p1": -5, "p2": 0}


def test_a_hand_that_is_not_stuck_passes_unseen_with_an_empty_deck():
    game = locked_out(["queen-blue", "7-red"], ["queen-green", "8-red"])
    assert kinds(game.act("p1", PassTurn())) == ["TurnPassed", "TurnBegan"]
    assert game.view(SPECTATOR)["shown_hands"] == []


# --- what the view says about the turn and the scores -------------------------------------------

def test_the_view_says_when_a_redraw_is_due():
    game = position({"p1": ["queen-blue", "queen-green", "queen-red"], **FILLER})
    viewers = (SPECTATOR, ORGANIZER, Viewer("seat", "p1"), Viewer("seat", "p2"))
    assert all(game.view(viewer)["redraw_due"] is True for viewer in viewers)
    game.act("p1", RedrawHand())
    assert all(game.view(viewer)["redraw_due"] is False for viewer in viewers)


def test_no_redraw_is_due_when_the_hand_can_be_played_or_the_deck_is_empty():
    assert game_view_redraw_due(position({"p1": ["queen-blue", "queen-green", "7-red"], **FILLER})) is False
    assert game_view_redraw_due(stuck_with_an_empty_deck()) is False
    assert game_view_redraw_due(stuck_endgame()) is True


def game_view_redraw_due(game: Game) -> bool:
    """What a spectator's view says of a due redraw."""
    return game.view(SPECTATOR)["redraw_due"]


def test_the_view_shows_each_seat_s_running_score_and_the_final_score_at_the_end():
    game = stuck_with_an_empty_deck()
    assert game.view(SPECTATOR)["scores"] == {"p1": 0, "p2": 0}
    game.act("p1", PassTurn())
    game.act("p2", PlayCard("castle-blue"))
    # Cards in hand are secret while the game runs: the running score is what was scored so far.
    for viewer in (SPECTATOR, Viewer("seat", "p1"), Viewer("seat", "p2")):
        assert game.view(viewer)["scores"] == {"p1": 0, "p2": 1}
    game.act("p1", PassTurn())
    game.act("p2", PlayCard("castle-green"))
    game.act("p1", PassTurn())
    game.act("p2", PassTurn())
    # At the end it is the final score: points minus the penalties for cards left in hand.
    view = game.view(Viewer("spectator", sees_all=True))
    assert view["scores"] == gz.outcome(game.state)["scores"] == {"p1": -5, "p2": 0}
    assert view["points"] == {"p1": 0, "p2": 2}


def test_running_scores_follow_the_points_through_random_games():
    def check(game: Game) -> None:
        view = game.view(SPECTATOR)
        result = gz.outcome(game.state)
        assert view["scores"] == (result["scores"] if result else game.state["points"])
        assert view["redraw_due"] == (RedrawHand() in gz.legal_commands(game.state, game.state["turn"] or "p1"))
    rng = random.Random(16)
    for players in (2, 3, 5):
        random_playout(gz, {"players": players}, rng, check=check)


# --- the end ------------------------------------------------------------------------------------

def test_game_ends_when_the_deck_is_empty_and_every_seat_with_cards_has_passed():
    game = stuck_endgame()
    game.act("p1", RedrawHand())
    game.act("p1", PassTurn())
    game.act("p2", PlayCard("castle-blue"))
    game.act("p1", PassTurn())
    assert gz.outcome(game.state) is None and gz.to_act(game.state) == ["p2"]
    events = game.act("p2", PassTurn())
    assert kinds(events) == ["TurnPassed", "GameEnded"]
    result = gz.outcome(game.state)
    assert result["reason"] == "no_card_can_be_played"
    assert gz.to_act(game.state) == [] and moves(game.state, "p1") == []
    assert violation(game, "p1", PassTurn()) == "game_over"


def test_a_pass_while_the_deck_has_cards_does_not_end_the_game():
    game = stuck_endgame()
    game.act("p1", RedrawHand())
    game.act("p1", PassTurn())
    assert gz.outcome(game.state) is None and game.view(SPECTATOR)["deck_size"] == 1


def test_seats_with_empty_hands_are_skipped():
    game = position({"p1": ["castle-blue", "queen-blue", "7-red"], "p2": [], "p3": ["queen-green", "queen-red"]},
                    stacks={"7": ["7-blue", "7-green", "7-yellow"]}, queens={"7": "queen-yellow"}, rest="stacks")
    game.act("p1", PlayCard("castle-blue"))
    assert gz.to_act(game.state) == ["p3"]


def locked_out(p1: list[str], p2: list[str], config: dict | None = None) -> Game:
    """An empty deck, every stack full but the locked 7 and 8 stacks; p1 and p2 hold dead cards."""
    return position({"p1": p1, "p2": p2}, stacks={"7": ["7-blue", "7-green", "7-yellow"],
                                                  "8": ["8-blue", "8-green", "8-yellow"]},
                    queens={"7": "queen-red", "8": "queen-yellow"}, rest="stacks", config=config)


def play_out_passes(game: Game) -> dict:
    """Both seats pass until the game ends; the outcome."""
    while gz.outcome(game.state) is None:
        seat = gz.to_act(game.state)[0]
        game.act(seat, PassTurn())
    return gz.outcome(game.state)


def test_cards_left_in_hand_cost_their_penalty():
    game = locked_out(["queen-blue", "7-red"], ["queen-green", "8-red"])
    result = play_out_passes(game)
    assert result["penalties"] == {"p1": 3, "p2": 3}  # Queen 2 + number card 1
    assert result["scores"] == {"p1": -3, "p2": -3} and result["points"] == {"p1": 0, "p2": 0}


def test_a_knight_left_in_hand_costs_three():
    game = position({"p1": ["queen-blue", "knight-red"], "p2": ["queen-green", "7-red"]},
                    stacks={"7": ["7-blue", "7-green", "7-yellow"], "knight": ["knight-blue", "knight-green",
                                                                               "knight-yellow"]},
                    queens={"7": "queen-red", "knight": "queen-yellow"}, rest="stacks")
    result = play_out_passes(game)
    assert result["penalties"] == {"p1": 5, "p2": 3} and result["winners"] == ["p2"]


def test_final_score_is_points_minus_penalties_and_the_highest_wins():
    game = position({"p1": ["queen-blue", "7-red"], "p2": ["queen-green", "8-red", "castle-yellow"]},
                    stacks={"7": ["7-blue", "7-green", "7-yellow"], "8": ["8-blue", "8-green", "8-yellow"],
                            "castle": ["castle-blue", "castle-green", "castle-red"]},
                    queens={"7": "queen-red", "8": "queen-yellow"}, rest="stacks")
    game.act("p1", PassTurn())
    game.act("p2", PlayCard("castle-yellow"))
    result = play_out_passes(game)
    assert result["points"] == {"p1": 0, "p2": 1} and result["scores"] == {"p1": -3, "p2": -2}
    assert result["winners"] == ["p2"]


def test_ties_share_the_win():
    result = play_out_passes(locked_out(["queen-blue", "7-red"], ["queen-green", "8-red"]))
    assert result["winners"] == ["p1", "p2"]


def test_scoring_table_is_configurable():
    scoring = {"number": {"3": 7, "hand": -4}, "queen": {"4": 10, "hand": -9}, "king": {"1": 2}}
    config = config_from_dict(gz.Config, {"scoring": scoring})
    assert config.scoring["number"] == {"1": 0, "2": 1, "3": 7, "4": 1, "hand": -4}
    assert config.scoring["knight"] == gz.DEFAULT_SCORING["knight"]
    game = position({"p1": ["7-red", "king-red", "3-green"], "p2": ["queen-blue", "2-green", "2-red"]},
                    stacks={"7": ["7-blue", "7-green"]}, config={"scoring": scoring})
    assert game.act("p1", PlayCard("7-red"))[0].public["points"] == 7
    assert game.act("p2", PlayCard("queen-blue", stack="7"))[0].public["points"] == 10
    assert game.act("p1", PlayCard("king-red"))[0].public["points"] == 2
    ended = play_out_passes(locked_out(["queen-blue", "7-red"], ["queen-green", "8-red"], {"scoring": scoring}))
    assert ended["penalties"] == {"p1": 13, "p2": 13}


# --- commands that do not fit -------------------------------------------------------------------

def test_commands_name_real_cards_from_the_own_hand():
    game = position({"p1": ["7-blue", "king-red", "3-green"], **FILLER})
    assert violation(game, "p1", PlayCard("ace-of-spades")) == "unknown_card"
    assert violation(game, "p1", PlayCard("2-blue")) == "card_not_in_hand"
    assert violation(game, "p2", PlayCard("2-blue")) == "not_your_turn"
    assert violation(game, "p9", PassTurn()) == "not_your_turn"


def test_nothing_can_be_done_before_the_deal():
    config = config_from_dict(gz.Config, {})
    state = gz.initial_state(config, gz.seat_names(config))
    assert gz.to_act(state) == [] and moves(state, "p1") == [] and gz.outcome(state) is None
    with pytest.raises(RuleViolation) as info:
        gz.decide(state, "p1", PassTurn(), None)
    assert info.value.rule == "not_started"


def test_a_malformed_knight_return_is_refused_as_a_rule_violation():
    game = position({"p1": ["knight-green", "7-blue", "king-red"], **FILLER}, stacks={"knight": ["knight-blue"]})
    assert violation(game, "p1", PlayCard("knight-green", knight_return=5)) == "invalid_knight_return"
    assert violation(game, "p1", PlayCard(["7-blue"])) == "unknown_card"


def test_a_command_of_another_game_is_refused():
    from dataclasses import dataclass
    from typing import ClassVar

    from domain.ruleset import Command

    @dataclass(frozen=True)
    class CallBluff(Command):
        type: ClassVar[str] = "call_bluff"

    game = start(gz)
    assert violation(game, "p1", CallBluff()) == "unknown_command"


def test_every_legal_command_is_accepted_and_nothing_else_in_a_crafted_position():
    game = position({"p1": ["bishop-green", "knight-green", "queen-red"], **FILLER},
                    stacks={"7": ["7-blue", "7-green", "7-red"], "5": ["5-blue", "5-green", "5-red"],
                            "bishop": ["bishop-blue"], "knight": ["knight-blue"]}, queens={"7": "queen-blue"})
    legal = moves(game.state, "p1")
    # queen on 5; bishop, bishop moving 7->5; knight, and its 4 returns (2 single, 1 pair in both orders).
    assert [command.body() for command in legal] == [
        {"type": "play", "card": "bishop-green"},
        {"type": "play", "card": "bishop-green", "move_queen_from": "7", "move_queen_to": "5"},
        {"type": "play", "card": "knight-green"},
        {"type": "play", "card": "knight-green", "knight_return": ["bishop-green"]},
        {"type": "play", "card": "knight-green", "knight_return": ["queen-red"]},
        {"type": "play", "card": "knight-green", "knight_return": ["bishop-green", "queen-red"]},
        {"type": "play", "card": "knight-green", "knight_return": ["queen-red", "bishop-green"]},
        {"type": "play", "card": "queen-red", "stack": "5"},
    ]
    for command in legal:
        gz.decide(copy_state(game.state), "p1", command, game.chance())


# --- every move listed once -----------------------------------------------------------------------

def same_move(body: dict) -> str:
    """A listed body as the move it stands for: spellings decide reads alike made one.

    A card's own stack named (every card but a Queen goes only there) and an empty Knight's return
    change nothing. No Gambitz field is order-free: a Knight's two returned cards go under the deck
    in the listed order, which decides which one a short deck hands back (see the next test).
    """
    move = dict(body)
    if "card" in move and rank_of(move["card"]) != "queen" and move.get("stack") == rank_of(move["card"]):
        del move["stack"]
    if move.get("knight_return") == []:
        del move["knight_return"]
    return json.dumps(move, sort_keys=True)


def assert_each_move_listed_once(state: dict) -> None:
    """No two listed bodies are equal, nor the same move spelled two ways."""
    for seat in state["seats"]:
        bodies = [command.body() for command in gz.legal_commands(state, seat)]
        assert len({json.dumps(body, sort_keys=True) for body in bodies}) == len(bodies), bodies
        assert len({same_move(body) for body in bodies}) == len(bodies), bodies


def crafted_positions() -> list[Game]:
    """Positions with every kind of play: Queens, a Bishop with a Queen to move, a Knight with returns."""
    return [
        position({"p1": ["bishop-green", "knight-green", "queen-red"], **FILLER},
                 stacks={"7": ["7-blue", "7-green", "7-red"], "5": ["5-blue", "5-green", "5-red"],
                         "bishop": ["bishop-blue"], "knight": ["knight-blue"]}, queens={"7": "queen-blue"}),
        position({"p1": ["queen-blue", "queen-green", "7-red"], **FILLER},
                 stacks={"5": ["5-blue", "5-green", "5-red"], "9": ["9-blue", "9-green", "9-red"]}),
        position({"p1": ["knight-green", "7-blue", "king-red"], **FILLER}, stacks={"knight": ["knight-blue"]}),
        stuck_endgame(),
        stuck_with_an_empty_deck(),
    ]


def test_no_move_is_listed_twice():
    for game in crafted_positions():
        assert_each_move_listed_once(game.state)
    rng = random.Random(11)
    for players in (2, 3, 5):
        random_playout(gz, {"players": players}, rng, check=lambda game: assert_each_move_listed_once(game.state))


def test_a_card_s_own_stack_and_an_empty_return_are_the_same_command_as_leaving_them_out():
    assert PlayCard("7-red", stack="7", knight_return=()) == PlayCard("7-red")
    assert PlayCard("7-red", stack="7").body() == {"type": "play", "card": "7-red"}
    assert PlayCard("queen-red", stack="7").body() == {"type": "play", "card": "queen-red", "stack": "7"}
    game = position({"p1": ["7-red", "king-red", "3-green"], **FILLER}, deck=["5-red"])
    spelled = gz.decide(game.state, "p1", PlayCard("7-red", stack="7", knight_return=()), game.chance())
    assert spelled == gz.decide(game.state, "p1", PlayCard("7-red"), game.chance())


def test_the_order_of_a_knight_s_two_returned_cards_is_part_of_the_move():
    # The deck holds 2 cards after the play: "draw 1 + 2" takes them and the first card returned.
    def drawn_back(returned: tuple[str, ...]) -> list[str]:
        game = position({"p1": ["knight-green", "7-blue", "king-red"],
                         "p2": ["knight-red", "knight-yellow", "queen-blue"],
                         "p3": ["queen-green", "queen-red", "queen-yellow"]},
                        stacks={"knight": ["knight-blue"]}, deck=["5-red", "6-red"], rest="stacks")
        game.act("p1", PlayCard("knight-green", knight_return=returned))
        return sorted(hand(game, "p1"))
    assert drawn_back(("7-blue", "king-red")) == ["5-red", "6-red", "7-blue"]
    assert drawn_back(("king-red", "7-blue")) == ["5-red", "6-red", "king-red"]


# --- who is waited for ----------------------------------------------------------------------------

def test_only_the_seat_to_play_may_act_and_it_always_has_a_legal_command():
    def check(game: Game) -> None:
        state = game.state
        assert gz.may_act(state) == []
        for seat in game.seats:
            assert (seat in gz.to_act(state)) == bool(gz.legal_commands(state, seat) + gz.legal_choices(state, seat))
    rng = random.Random(12)
    for players in (2, 4, 8):
        random_playout(gz, {"players": players}, rng, check=check)
    for game in crafted_positions():
        check(game)


# --- what each viewer sees ----------------------------------------------------------------------

def scan(view: dict) -> str:
    """The view as JSON text, to look for card ids that must not be there."""
    return json.dumps(view)


def assert_view_hides(game: Game, viewer: Viewer, allowed_hand: list[str]) -> None:
    """The view names no card of another hand or of the deck (unless public: stacks, shown hands)."""
    state = game.state
    public = {card for pile in state["stacks"].values() for card in pile["cards"] + [pile["queen"]] if card}
    public |= {card for shown in state["shown"] for card in shown["cards"]}
    hidden = {card for seat, cards in state["hands"].items() for card in cards} | set(state["deck"])
    text = scan(game.view(viewer))
    for card in hidden - public - set(allowed_hand):
        assert f'"{card}"' not in text, f"{viewer.label} sees {card}"


def test_a_seat_sees_its_own_hand_but_no_other_hand_nor_the_deck():
    game = start(gz, {"players": 4})
    for _ in range(12):
        seat = gz.to_act(game.state)[0]
        game.act(seat, moves(game.state, seat)[-1])
        for viewer_seat in game.seats:
            viewer = Viewer("seat", viewer_seat)
            view = game.view(viewer)
            assert view["hand"] == game.state["hands"][viewer_seat]
            assert "hands" not in view and "deck" not in view
            assert_view_hides(game, viewer, view["hand"])


def test_spectators_see_stacks_scores_hand_sizes_and_deck_size_only():
    game = start(gz, {"players": 3})
    for _ in range(6):
        seat = gz.to_act(game.state)[0]
        game.act(seat, moves(game.state, seat)[0])
    view = game.view(SPECTATOR)
    assert {"stacks", "points", "hand_sizes", "deck_size", "shown_hands", "turn"} <= set(view)
    assert "hand" not in view and "hands" not in view and "deck" not in view
    assert view["hand_sizes"] == {"p1": 3, "p2": 3, "p3": 3} and view["deck_size"] == 60 - 9 - 6
    assert_view_hides(game, SPECTATOR, [])


def test_a_shown_hand_is_public_but_the_redrawn_hand_is_not():
    game = position({"p1": ["queen-blue", "queen-green", "queen-red"], **FILLER})
    game.act("p1", RedrawHand())
    new_hand = hand(game, "p1")
    for viewer in (SPECTATOR, Viewer("seat", "p2")):
        view = game.view(viewer)
        assert view["shown_hands"][0]["cards"] == ["queen-blue", "queen-green", "queen-red"]
        assert_view_hides(game, viewer, view.get("hand", []))
        for card in new_hand:
            if card not in ("queen-blue", "queen-green", "queen-red"):
                assert f'"{card}"' not in scan(view)


def test_organizers_see_everything_including_the_deck_order():
    game = start(gz, {"players": 3})
    view = game.view(ORGANIZER)
    assert view["deck"] == game.state["deck"] and len(view["deck"]) == 51
    assert view["hands"] == game.state["hands"]


def test_everyone_sees_everything_after_the_end():
    game = locked_out(["queen-blue", "7-red"], ["queen-green", "8-red"])
    play_out_passes(game)
    for viewer in (Viewer("spectator", sees_all=True), Viewer("seat", "p2", sees_all=True)):
        view = game.view(viewer)
        assert view["hands"] == {"p1": ["queen-blue", "7-red"], "p2": ["queen-green", "8-red"]}
        assert view["deck"] == []


def test_views_are_copies_not_references_into_the_state():
    game = start(gz)
    view = game.view(ORGANIZER)
    before = json.dumps(game.state, sort_keys=True)
    view["hands"]["p1"].append("x")
    view["deck"].clear()
    view["stacks"]["7"]["cards"].append("x")
    view["shown_hands"].append("x")
    assert json.dumps(game.state, sort_keys=True) == before


def test_no_public_event_part_names_a_hidden_card():
    game = start(gz, {"players": 3})
    for _ in range(30):
        seat = gz.to_act(game.state)[0]
        game.act(seat, moves(game.state, seat)[-1])
    for event in game.events:
        if event.kind in ("CardPlayed", "QueenMoved", "HandShown"):
            continue  # these cards are face up on the table
        text = json.dumps(event.public)
        assert not any(f'"{card}"' in text for card in gz.CARDS), event
        if event.secret is not None:
            assert event.audience in ((), (event.public.get("seat"),))
