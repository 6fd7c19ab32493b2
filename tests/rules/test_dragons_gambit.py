"""Rule tests for `dragons-gambit`, one per rule, driven through the harness.

Positions are arranged by rigging the chance source (the deck order), never by editing state:
every event is still decided by the ruleset and folded by `evolve`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pytest

from domain.chance import Chance, Drawn
from domain.ruleset import ConfigError, RuleViolation, Viewer, config_from_dict, copy_state
from domain.rulesets import dragons_gambit as dg
from domain.rulesets.dragons_gambit import (
    AddToken,
    BlindSwap,
    CallFinalGambit,
    DiscardDrawnCard,
    DrawCard,
    PeekCards,
    PeekOtherCard,
    PeekOwnCard,
    SkipAbility,
    SwapDrawnCard,
    TakeDiscard,
)
from tests.support.harness import Game, start

SPECTATOR = Viewer("spectator")


def seat_view(seat: str) -> Viewer:
    """The view role of a seat."""
    return Viewer("seat", seat)


# --- rigging the deck ---------------------------------------------------------------------------

class RiggedChance:
    """The match's chance source, except that chosen shuffles come out in a chosen order."""

    def __init__(self, real: Chance, rigs: dict[str, list[list[int]]]) -> None:
        self.real = real
        self.rigs = rigs

    def permutation(self, purpose: str, n: int) -> Drawn:
        """A rigged permutation when one is queued for this purpose and size, else a real one."""
        drawn = self.real.permutation(purpose, n)
        queue = self.rigs.get(purpose, [])
        if queue and len(queue[0]) == n:
            return Drawn(drawn.draw, drawn.purpose, n, queue.pop(0))
        return drawn

    def __getattr__(self, name):
        return getattr(self.real, name)


@dataclass
class RiggedGame(Game):
    """A harness game whose deals (and reshuffles) follow queued permutations."""

    rigs: dict = field(default_factory=dict)

    def chance(self):
        """The scoped chance source with the rigged shuffles."""
        return RiggedChance(super().chance(), self.rigs)


def deal_order(players: int, grids: dict[str, list[int]], flip: int = 5, draws: tuple[int, ...] = ()) -> list[int]:
    """A deck permutation: these faces in each seat's slots 0..3, `flip` face up, then `draws` in order."""
    pool = {face: [i for i, c in enumerate(dg.CARD_IDS) if dg.FACE[c] == face] for face in range(14)}
    order: list[int | None] = [None] * 52
    for index in range(players):
        for slot, face in enumerate(grids.get(f"p{index + 1}", [])):
            order[slot * players + index] = pool[face].pop(0)
    order[4 * players] = pool[flip].pop(0)
    for k, face in enumerate(draws):
        order[4 * players + 1 + k] = pool[face].pop(0)
    used = {i for i in order if i is not None}
    rest = iter(i for i in range(52) if i not in used)
    return [i if i is not None else next(rest) for i in order]


def rigged(config: dict | None = None, grids: dict[str, list[int]] | None = None, flip: int = 5,
           draws: tuple[int, ...] = (), reshuffles: tuple[list[int], ...] = (), more_deals=()) -> RiggedGame:
    """A started game whose first round is dealt as described."""
    cfg = config_from_dict(dg.Config, config)
    seats = dg.seat_names(cfg)
    first = deal_order(cfg.players, grids or {}, flip, draws)
    game = RiggedGame(dg, cfg, seats, dg.initial_state(cfg, seats),
                      rigs={"deal": [first, *more_deals], "reshuffle": list(reshuffles)})
    game.record(dg.setup(cfg, list(seats), game.chance()))
    return game


def plain_turn(game: Game, seat: str) -> None:
    """Draw and discard, skipping any ability: a turn that changes no grid."""
    game.act(seat, DrawCard())
    game.act(seat, DiscardDrawnCard())
    if game.state["pending_ability"] is not None:
        game.act(seat, SkipAbility())


def violation(game: Game, seat: str, command) -> str:
    """The rule id a rejected command breaks."""
    with pytest.raises(RuleViolation) as caught:
        game.act(seat, command)
    return caught.value.rule


def own_grid(game: Game, seat: str, viewer: str | None = None) -> list[dict]:
    """A seat's grid as `viewer` (default: the seat itself) sees it."""
    return game.view(seat_view(viewer or seat))["grids"][seat]


LOW = [1, 2, 3, 4]
HIGH = [13, 13, 7, 6]


# --- config and deck ----------------------------------------------------------------------------

def test_config_defaults_follow_the_rules_page():
    assert dg.Config() == dg.Config(players=2, first_seat="p1", initial_peek="near", caller_penalty=10,
                                    target_score=100, memory_aid=True)


@pytest.mark.parametrize("raw, bad_field", [
    ({"players": 1}, "players"), ({"players": 7}, "players"), ({"first_seat": "p3"}, "first_seat"),
    ({"initial_peek": "far"}, "initial_peek"), ({"caller_penalty": -1}, "caller_penalty"),
    ({"target_score": 0}, "target_score"), ({"memory_aid": "yes"}, "memory_aid"), ({"colour": 1}, "colour"),
])
def test_config_rejects_unplayable_values(raw, bad_field):
    with pytest.raises(ConfigError) as caught:
        config_from_dict(dg.Config, raw)
    assert caught.value.field == bad_field


def test_seats_are_p1_to_pn():
    assert dg.seat_names(dg.Config(players=6)) == ["p1", "p2", "p3", "p4", "p5", "p6"]


def test_deck_has_0_and_13_twice_and_1_to_12_four_times():
    faces = sorted(dg.FACE.values())
    assert len(dg.CARD_IDS) == len(set(dg.CARD_IDS)) == 52
    assert faces.count(0) == faces.count(13) == 2
    assert all(faces.count(v) == 4 for v in range(1, 13))


# --- setup --------------------------------------------------------------------------------------

def test_each_seat_is_dealt_a_2x2_grid_and_one_card_is_flipped_to_the_discard_pile():
    game = start(dg, {"players": 3})
    kinds = [e.kind for e in game.events]
    assert kinds == ["RoundDealt", "InitialCardsPeeked", "InitialCardsPeeked", "InitialCardsPeeked", "DiscardStarted"]
    deal = game.events[0]
    assert deal.audience == () and deal.public["chance"]["draw"] == "permutation" and deal.public["chance"]["n"] == 52
    assert "chance_result" in deal.secret and "chance_result" not in deal.public
    board = game.view(SPECTATOR)
    assert all(len(board["grids"][s]) == 4 for s in ("p1", "p2", "p3"))
    assert len(board["discard"]) == 1 and board["draw_pile_count"] == 52 - 12 - 1
    assert board["discard"][0]["face"] == game.events[-1].public["face"]
    assert dg.to_act(game.state) == ["p1"]


def test_near_peek_tells_each_seat_its_near_row_alone():
    game = start(dg, {"players": 2})
    for event in game.events[1:3]:
        seat = event.public["seat"]
        assert event.audience == (seat,) and event.public["slots"] == [2, 3]
        assert [c["card"] for c in event.secret["cards"]] == game.state["grids"][seat][2:]
    grid = own_grid(game, "p1")
    assert [c["face"] is None for c in grid] == [True, True, False, False]
    assert all(c["face"] is None for c in own_grid(game, "p2", viewer="p1"))


def test_choose_peek_lets_every_seat_name_two_slots_at_once():
    game = start(dg, {"players": 3, "initial_peek": "choose"})
    assert [e.kind for e in game.events] == ["RoundDealt"]
    assert dg.to_act(game.state) == ["p1", "p2", "p3"]
    assert len(dg.legal_commands(game.state, "p2")) == 12 + 1  # two distinct slots, in either order; resign
    game.act("p2", PeekCards(0, 3))
    assert dg.to_act(game.state) == ["p1", "p3"]
    assert game.view(SPECTATOR)["discard"] == []
    game.act("p3", PeekCards(1, 0))
    events = game.act("p1", PeekCards(2, 1))
    assert [e.kind for e in events] == ["InitialCardsPeeked", "DiscardStarted"]
    assert [c["face"] is not None for c in own_grid(game, "p2")] == [True, False, False, True]
    assert dg.to_act(game.state) == ["p1"]


def test_nobody_is_current_while_the_seats_of_a_later_round_peek_at_once():
    game = start(dg, {"players": 3, "initial_peek": "choose"})
    for seat in ("p1", "p2", "p3"):
        game.act(seat, PeekCards(0, 1))
    for seat in ("p1", "p2", "p3"):
        plain_turn(game, seat)
    game.act("p1", CallFinalGambit())
    plain_turn(game, "p2")
    plain_turn(game, "p3")
    # Round 2 is dealt: every seat peeks again, none of them on turn; its opener is p2.
    for viewer in (SPECTATOR, *(seat_view(s) for s in ("p1", "p2", "p3"))):
        board = game.view(viewer)
        assert (board["round"], board["phase"], board["current"]) == (2, "peek", None)
    assert dg.to_act(game.state) == ["p1", "p2", "p3"] and dg.may_act(game.state) == []
    for seat in ("p3", "p1", "p2"):
        assert game.view(SPECTATOR)["current"] is None
        game.act(seat, PeekCards(2, 3))
    assert game.view(SPECTATOR)["current"] == "p2" and dg.to_act(game.state) == ["p2"]
    assert game.replayed_state() == game.state


def test_peek_needs_two_distinct_slots():
    game = start(dg, {"initial_peek": "choose"})
    assert violation(game, "p1", PeekCards(2, 2)) == "peek_needs_two_distinct_slots"
    assert violation(game, "p1", PeekCards(0, 4)) == "invalid_slot"


def test_a_seat_peeks_only_once():
    game = start(dg, {"players": 3, "initial_peek": "choose"})
    game.act("p1", PeekCards(0, 1))
    assert violation(game, "p1", PeekCards(2, 3)) == "already_peeked"
    assert dg.legal_commands(game.state, "p1") == []


def test_no_turn_starts_before_every_seat_has_peeked():
    game = start(dg, {"initial_peek": "choose"})
    game.act("p1", PeekCards(0, 1))
    assert violation(game, "p1", DrawCard()) == "initial_peek_pending"


def test_peek_command_exists_only_in_the_choose_peek():
    game = start(dg)
    assert violation(game, "p1", PeekCards(0, 1)) == "peek_not_available"


# --- turns --------------------------------------------------------------------------------------

def test_only_the_seat_on_turn_may_act():
    game = start(dg)
    assert violation(game, "p2", DrawCard()) == "not_your_turn"
    assert dg.legal_commands(game.state, "p2") == []


def test_unknown_seats_are_rejected():
    game = start(dg)
    assert violation(game, "p9", DrawCard()) == "unknown_seat"


def test_a_turn_starts_with_draw_take_or_call():
    game = rigged(grids={"p1": LOW, "p2": LOW}, draws=(5, 5))
    assert [c.body() for c in dg.legal_commands(game.state, "p1")] == [
        {"type": "draw"}, *({"type": "take_discard", "slot": s} for s in range(4)), {"type": "resign"}]
    assert violation(game, "p1", SwapDrawnCard(0)) == "no_drawn_card"
    assert violation(game, "p1", DiscardDrawnCard()) == "no_drawn_card"
    assert violation(game, "p1", SkipAbility()) == "ability_not_available"
    assert violation(game, "p1", AddToken("p2", 0)) == "ability_not_available"


def test_the_drawn_card_is_seen_by_the_drawer_alone():
    game = rigged(grids={"p1": LOW, "p2": LOW}, draws=(6,))
    [drawn] = game.act("p1", DrawCard())
    assert drawn.kind == "CardDrawn" and drawn.audience == ("p1",) and drawn.secret["face"] == 6
    assert drawn.secret["card"] not in json.dumps(drawn.public)
    assert game.view(seat_view("p1"))["drawn"] == {"seat": "p1", "card": drawn.secret["card"], "face": 6}
    for other in (seat_view("p2"), SPECTATOR):
        assert game.view(other)["drawn"] == {"seat": "p1", "card": None, "face": None}
        assert drawn.secret["card"] not in json.dumps(game.view(other))


def test_a_drawn_card_must_be_swapped_or_discarded_before_anything_else():
    game = rigged(grids={"p1": LOW, "p2": LOW}, draws=(6,))
    game.act("p1", DrawCard())
    for command in (DrawCard(), TakeDiscard(0), CallFinalGambit(), SkipAbility()):
        assert violation(game, "p1", command) == "must_resolve_drawn_card"
    assert [c.body() for c in dg.legal_commands(game.state, "p1")] == [
        *({"type": "swap", "slot": s} for s in range(4)), {"type": "discard"}, {"type": "resign"}]


def test_slots_are_0_to_3():
    game = rigged(grids={"p1": LOW, "p2": LOW}, draws=(6,))
    game.act("p1", DrawCard())
    for slot in (-1, 4, True):
        assert violation(game, "p1", SwapDrawnCard(slot)) == "invalid_slot"


def test_swapping_puts_the_old_card_face_up_on_the_discard_pile_and_ends_the_turn():
    game = rigged(grids={"p1": [9, 9, 9, 9], "p2": LOW}, draws=(6,))
    game.act("p1", DrawCard())
    old = game.state["grids"]["p1"][0]
    [swapped] = game.act("p1", SwapDrawnCard(0))
    assert swapped.public["discarded"] == {"card": old, "face": 9, "tokens": 0}
    board = game.view(SPECTATOR)
    assert board["discard"][-1] == {"card": old, "face": 9}
    assert board["pending_ability"] is None and board["current"] == "p2"
    assert own_grid(game, "p1")[0]["face"] == 6


def test_discarding_a_plain_card_ends_the_turn():
    game = rigged(grids={"p1": LOW, "p2": LOW}, draws=(0,))
    game.act("p1", DrawCard())
    [event] = game.act("p1", DiscardDrawnCard())
    assert event.public["face"] == 0 and event.public["ability"] is None
    assert dg.to_act(game.state) == ["p2"]


def test_take_discard_swaps_the_top_discard_into_a_slot_in_plain_sight():
    game = rigged({"players": 3}, grids={"p1": [9, 9, 9, 9], "p2": LOW, "p3": LOW}, flip=2)
    top = game.state["discard"][-1]
    old = game.state["grids"]["p1"][1]
    [taken] = game.act("p1", TakeDiscard(1))
    assert taken.secret is None and taken.public["card"] == top and taken.public["discarded"]["card"] == old
    assert game.view(SPECTATOR)["discard"] == [{"card": old, "face": 9}]
    # Everyone saw the card on the discard pile, so every seat's memory has it where it went.
    for seat in ("p1", "p2", "p3"):
        assert own_grid(game, "p1", viewer=seat)[1]["face"] == 2
    assert own_grid(game, "p1", viewer="p1")[1]["card"] == top
    assert game.view(SPECTATOR)["grids"]["p1"][1]["face"] is None
    assert dg.to_act(game.state) == ["p2"]


def test_taking_the_discard_needs_a_discard():
    game = start(dg)
    # The pile is never empty in play (a reshuffle keeps its top card), so this guard is defensive.
    emptied = copy_state(game.state)
    emptied["discard"] = []
    with pytest.raises(RuleViolation) as caught:
        dg.decide(emptied, "p1", TakeDiscard(0), game.chance())
    assert caught.value.rule == "empty_discard"
    assert TakeDiscard(0) not in dg.legal_commands(emptied, "p1")


def test_unknown_command_types_are_rejected():
    with pytest.raises(RuleViolation) as caught:
        dg.decide(start(dg).state, "p1", object(), None)
    assert caught.value.rule == "unknown_command"


# --- abilities ----------------------------------------------------------------------------------

def discard_special(face: int, grids=None, **kw) -> RiggedGame:
    """A game where p1 has just drawn and discarded a card of `face`."""
    game = rigged(grids=grids or {"p1": LOW, "p2": [6, 7, 3, 2]}, draws=(face,), **kw)
    game.act("p1", DrawCard())
    [event] = game.act("p1", DiscardDrawnCard())
    assert event.public["ability"] == dg.ABILITIES[face]
    return game


def test_8_puts_a_plus_one_token_on_any_seats_card():
    game = discard_special(8)
    assert dg.to_act(game.state) == ["p1"]
    assert len(dg.legal_commands(game.state, "p1")) == 2 * 4 + 1 + 1  # each card, skip, resign
    [event] = game.act("p1", AddToken("p2", 1))
    assert event.public == {"seat": "p1", "target_seat": "p2", "slot": 1, "delta": 1, "tokens": 1}
    for viewer in (SPECTATOR, seat_view("p1"), seat_view("p2")):
        assert game.view(viewer)["grids"]["p2"][1]["tokens"] == 1
    assert dg.to_act(game.state) == ["p2"]


def test_11_puts_a_minus_one_token_and_tokens_stack():
    game = rigged(grids={"p1": LOW, "p2": LOW}, draws=(11, 5, 11))
    game.act("p1", DrawCard())
    game.act("p1", DiscardDrawnCard())
    game.act("p1", AddToken("p1", 2))
    assert own_grid(game, "p1")[2] | {"card": None} == {"slot": 2, "card": None, "face": 3, "tokens": -1, "value": 2}
    plain_turn(game, "p2")
    game.act("p1", DrawCard())
    game.act("p1", DiscardDrawnCard())
    [event] = game.act("p1", AddToken("p1", 2))
    assert event.public["delta"] == -1 and event.public["tokens"] == -2
    assert own_grid(game, "p1")[2]["value"] == 1


def test_tokens_stay_with_the_card_and_go_to_the_discard_pile_with_it():
    game = discard_special(8)
    game.act("p1", AddToken("p1", 3))
    card = game.state["grids"]["p1"][3]
    plain_turn(game, "p2")
    # p1 takes the discard into slot 3: the tokened card is discarded and loses its token.
    [event] = game.act("p1", TakeDiscard(3))
    assert event.public["discarded"] == {"card": card, "face": 4, "tokens": 1}
    board = game.view(SPECTATOR)
    assert board["discard"][-1] == {"card": card, "face": 4}
    assert board["grids"]["p1"][3]["tokens"] == 0


def test_9_peeks_at_another_seats_card_for_the_peeker_alone():
    game = discard_special(9)
    assert violation(game, "p1", PeekOtherCard("p1", 0)) == "must_target_another_seat"
    assert violation(game, "p1", PeekOtherCard("p7", 0)) == "unknown_seat"
    assert violation(game, "p1", PeekOwnCard(0)) == "ability_not_available"
    [event] = game.act("p1", PeekOtherCard("p2", 0))
    card = game.state["grids"]["p2"][0]
    assert event.kind == "CardPeeked" and event.audience == ("p1",)
    assert event.secret == {"card": card, "face": 6} and card not in json.dumps(event.public)
    assert own_grid(game, "p2", viewer="p1")[0]["face"] == 6
    assert own_grid(game, "p2", viewer="p2")[0]["face"] is None
    assert card not in json.dumps(game.view(SPECTATOR))


def test_10_peeks_at_one_of_your_own_cards():
    game = discard_special(10)
    assert violation(game, "p1", PeekOtherCard("p2", 0)) == "ability_not_available"
    assert [c.body() for c in dg.legal_commands(game.state, "p1")] == [
        *({"type": "peek_own", "slot": s} for s in range(4)), {"type": "skip_ability"}, {"type": "resign"}]
    assert own_grid(game, "p1")[0]["face"] is None
    [event] = game.act("p1", PeekOwnCard(0))
    assert event.audience == ("p1",) and event.secret["face"] == 1
    assert own_grid(game, "p1")[0]["face"] == 1
    assert own_grid(game, "p1", viewer="p2")[0]["face"] is None


def test_12_swaps_cards_unseen_so_both_seats_lose_sight_of_their_slot():
    game = discard_special(12)
    assert violation(game, "p1", BlindSwap(2, "p1", 3)) == "must_target_another_seat"
    assert violation(game, "p1", BlindSwap(2, "p2", 9)) == "invalid_slot"
    assert len(dg.legal_commands(game.state, "p1")) == 4 * 4 + 1 + 1  # each swap, skip, resign
    mine, theirs = game.state["grids"]["p1"][2], game.state["grids"]["p2"][3]
    [event] = game.act("p1", BlindSwap(2, "p2", 3))
    assert event.secret is None and mine not in json.dumps(event.public) and theirs not in json.dumps(event.public)
    # Each seat knew its own near card before; now its slot holds a card it never saw.
    assert own_grid(game, "p1")[2]["face"] is None
    assert own_grid(game, "p2")[3]["face"] is None
    # Each still knows where its old card went: the swap named both slots in public.
    assert own_grid(game, "p2", viewer="p1")[3] == {"slot": 3, "card": mine, "face": 3, "tokens": 0, "value": 3}
    assert own_grid(game, "p1", viewer="p2")[2]["face"] == 2
    assert game.view(Viewer("organizer", sees_all=True))["grids"]["p1"][2]["card"] == theirs


def test_a_card_moved_by_12_keeps_its_tokens():
    game = rigged(grids={"p1": LOW, "p2": [6, 7, 3, 2]}, draws=(8, 5, 12))
    game.act("p1", DrawCard())
    game.act("p1", DiscardDrawnCard())
    game.act("p1", AddToken("p2", 0))
    plain_turn(game, "p2")
    game.act("p1", DrawCard())
    game.act("p1", DiscardDrawnCard())
    game.act("p1", BlindSwap(0, "p2", 0))
    board = game.view(SPECTATOR)
    assert board["grids"]["p1"][0]["tokens"] == 1 and board["grids"]["p2"][0]["tokens"] == 0


def test_an_ability_must_be_used_or_skipped_before_anything_else():
    game = discard_special(10)
    for command in (DrawCard(), TakeDiscard(0), CallFinalGambit(), SwapDrawnCard(0), DiscardDrawnCard()):
        assert violation(game, "p1", command) == "must_resolve_ability"
    assert violation(game, "p2", SkipAbility()) == "not_your_turn"
    [event] = game.act("p1", SkipAbility())
    assert event.kind == "AbilitySkipped" and event.public == {"seat": "p1", "ability": 10}
    assert dg.to_act(game.state) == ["p2"]


def test_abilities_never_trigger_from_a_swapped_out_card():
    game = rigged(grids={"p1": [8, 9, 10, 12], "p2": LOW}, draws=(5,))
    game.act("p1", DrawCard())
    game.act("p1", SwapDrawnCard(3))
    assert game.view(SPECTATOR)["discard"][-1]["face"] == 12
    assert game.view(SPECTATOR)["pending_ability"] is None and dg.to_act(game.state) == ["p2"]


def test_abilities_never_trigger_from_a_taken_discard():
    game = rigged(grids={"p1": [8, 9, 10, 12], "p2": LOW}, flip=9)
    game.act("p1", TakeDiscard(0))
    # The 8 that went to the discard pile offers nothing either.
    assert game.view(SPECTATOR)["pending_ability"] is None and dg.to_act(game.state) == ["p2"]
    game.act("p2", TakeDiscard(0))
    assert game.view(SPECTATOR)["pending_ability"] is None and dg.to_act(game.state) == ["p1"]


def test_0_has_no_ability():
    game = rigged(grids={"p1": LOW, "p2": LOW}, draws=(0,))
    game.act("p1", DrawCard())
    game.act("p1", DiscardDrawnCard())
    assert violation(game, "p2", SkipAbility()) == "ability_not_available"
