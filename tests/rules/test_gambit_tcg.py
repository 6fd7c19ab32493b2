"""Rules of `gambit-tcg`, one test per rule, driven through the harness.

Positions come from stacked decks: setup runs with a chance source whose shuffles are the
identity, so a seat's deck list is its deck order (p1 holds p1-01..p1-05, p2 holds p2-01..p2-06,
later draws follow in list order). A few positions are shortcut by folding real event kinds
(`record`), the replay path; everything else is played with real commands.
"""

from __future__ import annotations

import collections
import itertools

import pytest

from domain.chance import Drawn
from domain.ruleset import ConfigError, Event, RuleViolation, Viewer, config_from_dict
from domain.rulesets import gambit_tcg as g
from domain.rulesets.gambit_tcg.cards import CARDS, WINDOWS
from domain.rulesets.gambit_tcg.play import canonical_payment, check_play
from domain.rulesets.gambit_tcg.traps import check_activation
from tests.support.harness import Game

ActivateTrap, AssignBlockers, DeclareAttack = g.ActivateTrap, g.AssignBlockers, g.DeclareAttack
Energize, EndPhase, Pass, PlayCard, SetCard = g.Energize, g.EndPhase, g.Pass, g.PlayCard, g.SetCard

ORGANIZER = Viewer("organizer", sees_all=True)
SPECTATOR = Viewer("spectator")
P1, P2 = Viewer("seat", "p1"), Viewer("seat", "p2")

FILLER = ["G2", "N2", "G1", "N1", "W1", "B1", "N3", "W5", "G3", "G4", "N5", "N6", "B2", "W2", "G6", "B6", "W6", "B3",
          "B4", "W3", "B5", "W4", "G5", "N4"]


class Stacked:
    """A chance source whose shuffles keep the deck list's order (at no particular version)."""

    version = None

    def permutation(self, purpose: str, n: int) -> Drawn:
        return Drawn("permutation", purpose, n, list(range(n)))


def deck(top: list[str]) -> list[str]:
    """A legal 30-card list starting with `top`, filled up from FILLER."""
    out = list(top)
    counts = collections.Counter(out)
    for card in itertools.cycle(FILLER):
        if len(out) == 30:
            return out
        if counts[card] < 3:
            out.append(card)
            counts[card] += 1


def stacked(p1: list[str] = (), p2: list[str] = (), config: dict | None = None) -> Game:
    """A game whose decks are `p1` and `p2` on top (then filler), before p2's free set."""
    cfg = config_from_dict(g.Config, config)
    seats = g.seat_names(cfg)
    game = Game(g, cfg, seats, g.initial_state(cfg, seats))
    options = {s: g.join_options(cfg, s, {"deck_list": deck(list(top))}) for s, top in (("p1", p1), ("p2", p2))}
    game.record(g.setup(cfg, seats, Stacked(), options))
    return game


def c(seat: str, n: int) -> str:
    """The n-th card of a seat's stacked deck (1-based)."""
    return f"{seat}-{n:02d}"


def paid(game: Game, seat: str, card: str, command_cls=PlayCard, **choices):
    """A play/activation command with a canonical payment computed for the current position."""
    full = {k: choices.get(k) for k in ("target", "reveal", "declared_type", "sacrifice", "target_player")}
    if command_cls is PlayCard:
        _, _, cost = check_play(game.state, seat, card, full)
    else:
        _, cost = check_activation(game.state, seat, card, full, g.to_act(game.state))
    energy, discard = canonical_payment(game.state, seat, cost, card)
    return command_cls(card, energy, discard, **choices)


def play(game: Game, seat: str, card: str, **choices) -> list[Event]:
    """Play a card paying canonically."""
    return game.act(seat, paid(game, seat, card, **choices))


def activate(game: Game, seat: str, card: str, **choices) -> list[Event]:
    """Activate a set trap paying canonically."""
    return game.act(seat, paid(game, seat, card, ActivateTrap, **choices))


def finish_turn(game: Game) -> None:
    """Play out the current turn without attacking, passing every window."""
    turn = game.state["turn"]
    while g.outcome(game.state) is None and game.state["turn"] == turn:
        seat = g.to_act(game.state)[0]
        if game.state["window"] is not None or game.state["step"] == "free_set":
            game.act(seat, Pass())
        elif game.state["step"] == "main":
            game.act(seat, EndPhase())
        elif game.state["step"] == "attack":
            game.act(seat, DeclareAttack(()))
        else:
            game.act(seat, g.legal_commands(game.state, seat)[0])


def attack(game: Game, *units: str) -> list[Event]:
    """From Main 1, go to Combat and attack with `units`."""
    game.act(game.state["active"], EndPhase())
    return game.act(game.state["active"], DeclareAttack(tuple(units)))


def record(game: Game, kind: str, public: dict) -> None:
    """Fold a hand-built event of a real kind (a position shortcut)."""
    game.record([Event(kind, public)])


def put_unit(game: Game, seat: str, card: str) -> None:
    """A hand card enters play as if played for free."""
    record(game, "CardPlayed", {"seat": seat, "card": card, "id": game.state["cards"][card], "type": "unit",
                                "from": "hand", "cost": 0, "paid": {"energy": [], "discard": []}, "target": None,
                                "choices": {}})


def unit(game: Game, card: str) -> dict:
    """The view of a unit in play (as the organizer sees it)."""
    view = g.view(game.state, ORGANIZER)
    for seat in ("p1", "p2"):
        for entry in view["players"][seat]["units"]:
            if entry["card"] == card:
                return entry
    raise AssertionError(f"{card} is not in play")


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


def life(game: Game, seat: str) -> int:
    return game.state["players"][seat]["life"]


def graveyard(game: Game, seat: str) -> list[str]:
    return game.state["players"][seat]["graveyard"]


def violation(game: Game, seat: str, command) -> str:
    with pytest.raises(RuleViolation) as info:
        game.act(seat, command)
    return info.value.rule


# ----- format, decks and join options ---------------------------------------------------------

def test_each_seat_starts_at_20_life_p1_with_5_cards_p2_with_6():
    game = stacked()
    for seat, hand in (("p1", 5), ("p2", 6)):
        assert life(game, seat) == 20
        assert len(game.state["players"][seat]["hand"]) == hand
        assert len(game.state["players"][seat]["deck"]) == 30 - hand


def test_preconstructed_decks_are_the_rules_page_lists_of_30():
    expected = {"dawn": ["W1", "W2", "W3", "W4", "W5", "W6", "G1", "G2", "G3", "G5"],
                "dusk": ["B1", "B2", "B3", "B4", "B5", "B6", "N1", "N2", "N4", "N5"]}
    for name, ids in expected.items():
        cards = g.join_options(g.Config(), "p1", {"deck": name})["deck_list"]
        assert len(cards) == 30 and collections.Counter(cards) == {i: 3 for i in ids}


def test_without_options_p1_plays_dawn_and_p2_plays_dusk():
    assert g.join_options(g.Config(), "p1", {})["deck"] == "dawn"
    assert g.join_options(g.Config(), "p2", {})["deck"] == "dusk"


def test_a_custom_deck_list_is_accepted_and_recorded_secret_to_its_seat():
    game = stacked(["N1"] * 3)
    registered = [e for e in game.events if e.kind == "DeckRegistered"]
    assert [e.audience for e in registered] == [("p1",), ("p2",)]
    assert registered[0].secret["cards"][:3] == ["N1"] * 3 and "cards" not in registered[0].public


@pytest.mark.parametrize("raw, field, words", [
    ({"deck_list": ["N1"] * 3 + ["N2"] * 3}, "deck_list", "exactly 30"),
    ({"deck_list": deck(["N1"] * 3)[:29] + ["N1"]}, "deck_list", "at most 3 copies"),
    ({"deck_list": deck([])[:29] + ["Z9"]}, "deck_list", "unknown card id"),
    ({"deck_list": "dawn"}, "deck_list", "list"),
    ({"deck": "noon"}, "deck", "unknown deck"),
    ({"deck": "dawn", "deck_list": deck([])}, "deck", "either"),
    ({"sleeves": "red"}, "sleeves", "unknown join option"),
])
def test_a_bad_deck_choice_is_refused_naming_the_problem(raw, field, words):
    with pytest.raises(ConfigError) as info:
        g.join_options(g.Config(), "p1", raw)
    assert info.value.field == field and words in info.value.detail


def test_card_data_is_validated_when_loaded():
    from domain.rulesets.gambit_tcg.cards import CardDataError, load
    good = {"id": "X1", "name": "X", "color": None, "type": "spell", "cost": 1, "keywords": [],
            "effects": [{"do": "draw", "count": 1}], "text": ""}
    import json
    assert "X1" in load(json.dumps({"cards": [good]}))[0]
    for bad in ({**good, "type": "planet"}, {**good, "cost": -1}, {**good, "effects": [{"do": "teleport"}]},
                {**good, "effects": [{"do": "draw", "count": "two"}]}, {**good, "keywords": ["flying"]},
                {**good, "effects": []}, {**good, "type": "unit", "might": 1}):
        with pytest.raises(CardDataError):
            load(json.dumps({"cards": [bad]}))
    with pytest.raises(CardDataError):
        load(json.dumps({"cards": [good, good]}))
    trap = {**good, "type": "trap", "windows": ["attack_declared"]}
    assert load(json.dumps({"cards": [trap]}))[0]["X1"]["windows"] == ["attack_declared"]
    for bad in ({**trap, "windows": []}, {**trap, "windows": ["teatime"]}, {**trap, "windows": "main1"},
                {**trap, "windows": ["end", "end"]}, {k: v for k, v in trap.items() if k != "windows"},
                {**good, "windows": ["main1"]}):
        with pytest.raises(CardDataError):
            load(json.dumps({"cards": [bad]}))
    with pytest.raises(CardDataError):
        load(json.dumps({"cards": [good], "decks": {"tiny": {"X1": 3}}}))


def test_every_card_draws_its_effects_from_the_fixed_vocabulary():
    from domain.rulesets.gambit_tcg.cards import EFFECT_PARAMS
    assert len(CARDS) == 24
    for card in CARDS.values():
        for effect in card["effects"]:
            assert effect["do"] in EFFECT_PARAMS


def test_turn_limit_is_validated():
    with pytest.raises(ConfigError):
        config_from_dict(g.Config, {"turn_limit": 1})


def test_players_is_accepted_and_must_be_2():
    assert config_from_dict(g.Config, {"players": 2}) == config_from_dict(g.Config, {}) == g.Config(2, 100)
    assert stacked(config={"players": 2}).state["config"] == {"players": 2, "turn_limit": 100}
    for bad in (1, 3, 4, 0):
        with pytest.raises(ConfigError) as info:
            config_from_dict(g.Config, {"players": bad})
        assert info.value.field == "players" and "must be 2" in info.value.detail
    with pytest.raises(ConfigError):
        config_from_dict(g.Config, {"players": "2"})


# ----- first-player balance -------------------------------------------------------------------

def test_p2_may_set_one_card_for_free_before_the_first_turn():
    game = stacked(p2=["B5"])
    assert g.to_act(game.state) == ["p2"]
    assert violation(game, "p1", EndPhase()) == "not_your_turn"
    events = game.act("p2", SetCard(c("p2", 1), "attack_declared"))
    assert kinds(events)[:3] == ["CardSet", "TurnBegan", "PhaseBegan"]
    assert events[0].public["free"] is True and events[0].public["ready_turn"] == 2
    assert game.state["turn"] == 1 and g.to_act(game.state) == ["p1"]
    assert len(game.state["players"]["p2"]["hand"]) == 5


def test_p2_may_decline_the_free_set():
    game = stacked()
    assert kinds(game.act("p2", Pass()))[:2] == ["FreeSetDeclined", "TurnBegan"]
    assert game.state["players"]["p2"]["set"] == []


def test_the_free_set_is_only_a_set():
    game = stacked(p2=["N1"])
    assert violation(game, "p2", PlayCard(c("p2", 1), discard=(c("p2", 2),))) == "wrong_step"


# ----- turn structure, energy, payment -------------------------------------------------------

def test_a_turn_runs_main1_combat_main2_draw_end():
    game = stacked(["N1"])
    game.act("p2", Pass())
    play(game, "p1", c("p1", 1))
    events = game.act("p1", EndPhase())
    assert [e.public["phase"] for e in events if e.kind == "PhaseBegan"] == ["combat"]
    events = game.act("p1", DeclareAttack(()))
    assert [e.public["phase"] for e in events if e.kind == "PhaseBegan"] == ["main2"]
    events = game.act("p1", EndPhase())
    assert [e.public["phase"] for e in events if e.kind == "PhaseBegan"] == ["draw", "end", "main1"]
    assert kinds(events).index("TurnEnded") < kinds(events).index("TurnBegan")
    assert game.state["active"] == "p2" and game.state["turn"] == 2


def test_draw_phase_draws_up_to_the_max_hand_size_of_5():
    game = stacked(["W1", "W1"])
    game.act("p2", Pass())
    play(game, "p1", c("p1", 1))  # pays by discarding p1-05: 3 cards left
    events = game.act("p1", EndPhase())
    events = game.act("p1", EndPhase())
    drawn = next(e for e in events if e.kind == "CardsDrawn")
    assert drawn.public["cards"] == [c("p1", 6), c("p1", 7)] and drawn.audience == ("p1",)
    assert len(game.state["players"]["p1"]["hand"]) == 5


def test_a_seat_energizes_at_most_once_per_turn():
    game = stacked()
    game.act("p2", Pass())
    game.act("p1", Energize(c("p1", 1)))
    assert violation(game, "p1", Energize(c("p1", 2))) == "already_energized"


def test_energy_pays_once_and_stays_exhausted_until_the_owner_next_turn():
    game = stacked(["N1", "N1", "G2"])
    game.act("p2", Pass())
    game.act("p1", Energize(c("p1", 3)))
    game.act("p1", PlayCard(c("p1", 1), energy=(c("p1", 3),)))
    assert violation(game, "p1", PlayCard(c("p1", 2), energy=(c("p1", 3),))) == "energy_exhausted"
    finish_turn(game)
    finish_turn(game)
    assert game.state["players"]["p1"]["energy"][0]["ready"] is True
    game.act("p1", PlayCard(c("p1", 2), energy=(c("p1", 3),)))


def test_conduit_counts_as_two_energy():
    game = stacked(["N2", "G1"])
    game.act("p2", Pass())
    events = game.act("p1", Energize(c("p1", 2)))
    assert events[0].public["value"] == 2
    game.act("p1", PlayCard(c("p1", 1), energy=(c("p1", 2),)))
    assert unit(game, c("p1", 1))["id"] == "N2"


def test_the_rest_of_a_cost_is_paid_by_discarding_from_hand():
    game = stacked(["N2", "W1", "W1", "W1", "G2"])
    game.act("p2", Pass())
    assert violation(game, "p1", PlayCard(c("p1", 1), discard=(c("p1", 2),))) == "insufficient_payment"
    assert violation(game, "p1", PlayCard(c("p1", 1), discard=(c("p1", 2), c("p1", 3), c("p1", 4)))) == "overpayment"
    assert violation(game, "p1", PlayCard(c("p1", 1), discard=(c("p1", 1), c("p1", 2)))) == "bad_payment"
    events = game.act("p1", PlayCard(c("p1", 1), discard=(c("p1", 2), c("p1", 3))))
    assert events[0].public["paid"]["discard"] == [{"card": c("p1", 2), "id": "W1"}, {"card": c("p1", 3), "id": "W1"}]
    assert graveyard(game, "p1") == [c("p1", 2), c("p1", 3)]


# ----- zones and their caps -------------------------------------------------------------------

def test_the_unit_zone_holds_5_units():
    game = stacked(["N1", "N1", "N1", "N2", "N2", "N2", "G2"])
    game.act("p2", Pass())
    for n in range(1, 6):
        put_unit(game, "p1", c("p1", n))
    finish_turn(game)
    finish_turn(game)
    assert violation(game, "p1", PlayCard(c("p1", 6), discard=(c("p1", 7), c("p1", 8)))) == "unit_zone_full"


def test_the_set_zone_holds_5_cards():
    game = stacked()
    game.act("p2", Pass())
    for n in range(1, 6):
        game.act("p1", SetCard(c("p1", n)))
    finish_turn(game)
    finish_turn(game)
    assert violation(game, "p1", SetCard(c("p1", 6))) == "set_zone_full"


def test_the_energy_zone_holds_as_many_cards_as_the_max_hand_size():
    game = stacked()
    game.act("p2", Pass())
    for _ in range(5):
        game.act("p1", Energize(game.state["players"]["p1"]["hand"][0]))
        finish_turn(game)
        finish_turn(game)
    assert len(game.state["players"]["p1"]["energy"]) == 5
    assert violation(game, "p1", Energize(game.state["players"]["p1"]["hand"][0])) == "energy_zone_full"
    assert all(not isinstance(cmd, Energize) for cmd in g.legal_commands(game.state, "p1"))


def test_a_new_field_card_replaces_the_old_which_goes_to_its_owner_graveyard():
    game = stacked(["G6", "G2"], ["B6", "G2"])
    game.act("p2", Pass())
    play(game, "p1", c("p1", 1))
    assert game.state["field"] == {"card": c("p1", 1), "owner": "p1"}
    finish_turn(game)
    events = play(game, "p2", c("p2", 1))
    assert events[0].public["replaced"] == {"card": c("p1", 1), "id": "G6", "owner": "p1"}
    assert game.state["field"] == {"card": c("p2", 1), "owner": "p2"}
    assert c("p1", 1) in graveyard(game, "p1")


def test_a_unit_carries_one_item():
    game = stacked(["N2", "N3", "N3"])
    game.act("p2", Pass())
    put_unit(game, "p1", c("p1", 1))
    play(game, "p1", c("p1", 2), target=c("p1", 1))
    assert violation(game, "p1", PlayCard(c("p1", 3), discard=(c("p1", 4),), target=c("p1", 1))) == "item_slot_taken"


def test_an_item_is_destroyed_with_its_host():
    game = stacked(["N2", "N3", "B4", "G1", "G2"])
    game.act("p2", Pass())
    put_unit(game, "p1", c("p1", 1))
    play(game, "p1", c("p1", 2), target=c("p1", 1))
    game.act("p1", Energize(c("p1", 4)))
    events = play(game, "p1", c("p1", 3), sacrifice=c("p1", 1))
    assert "UnitSacrificed" in kinds(events)
    assert {c("p1", 1), c("p1", 2)} <= set(graveyard(game, "p1"))


def test_an_item_goes_on_a_unit_in_play():
    game = stacked(["N3"])
    game.act("p2", Pass())
    assert violation(game, "p1", PlayCard(c("p1", 1), discard=(c("p1", 2),))) == "bad_target"


def test_a_revealed_set_card_stays_in_the_set_zone_face_up_and_can_be_played_later():
    game = stacked(["W1"], ["N2", "G2"])
    game.act("p2", SetCard(c("p2", 1)))
    play(game, "p1", c("p1", 1), reveal=c("p2", 1))
    entry = game.state["players"]["p2"]["set"][0]
    assert entry["card"] == c("p2", 1) and entry["revealed"] is True
    finish_turn(game)
    play(game, "p2", c("p2", 1))
    assert unit(game, c("p2", 1))["id"] == "N2"


# ----- set, flip and activate -----------------------------------------------------------------

def test_setting_costs_nothing_and_commits_the_card_secretly():
    game = stacked(["G2"])
    game.act("p2", Pass())
    events = game.act("p1", SetCard(c("p1", 1)))
    assert events[0].kind == "CardSet" and events[0].audience == ("p1",)
    assert events[0].secret == {"card": c("p1", 1), "id": "G2", "type": "unit", "window": None}
    assert "id" not in events[0].public and "window" not in events[0].public
    assert game.state["players"]["p1"]["energy"] == [] and len(game.state["players"]["p1"]["hand"]) == 4


def test_only_a_trap_is_set_with_a_window_so_a_reveal_opens_nothing_it_does_not_show():
    game = stacked(["G2"])
    game.act("p2", Pass())
    assert violation(game, "p1", SetCard(c("p1", 1), "attack_declared")) == "window_not_allowed"


def test_a_set_unit_is_flipped_and_paid_on_its_owner_turn_opening_its_commitment():
    game = stacked(["N2"])
    game.act("p2", Pass())
    set_version = game.act("p1", SetCard(c("p1", 1)))[0].version
    events = play(game, "p1", c("p1", 1))
    assert events[0].kind == "CardPlayed" and events[0].public["from"] == "set" and events[0].opens == (set_version,)
    assert unit(game, c("p1", 1))["id"] == "N2"


def test_a_set_spell_is_activated_from_the_set_zone():
    game = stacked(["G3", "N2"])
    game.act("p2", Pass())
    game.act("p1", SetCard(c("p1", 1)))
    put_unit(game, "p1", c("p1", 2))
    play(game, "p1", c("p1", 1), target=c("p1", 2))
    assert unit(game, c("p1", 2))["might"] == 3


def test_set_cards_are_played_only_on_their_owner_turn():
    game = stacked(p2=["N2"])
    game.act("p2", SetCard(c("p2", 1)))
    assert violation(game, "p2", PlayCard(c("p2", 1), discard=(c("p2", 2), c("p2", 3)))) == "not_your_turn"


def test_a_trap_cannot_be_played_from_hand():
    game = stacked(["B5"])
    game.act("p2", Pass())
    assert violation(game, "p1", PlayCard(c("p1", 1), discard=(c("p1", 2),))) == "traps_must_be_set"


def test_a_trap_is_set_with_a_declared_window():
    game = stacked(["B5"])
    game.act("p2", Pass())
    assert violation(game, "p1", SetCard(c("p1", 1))) == "window_required"
    assert violation(game, "p1", SetCard(c("p1", 1), "teatime")) == "unknown_window"
    events = game.act("p1", SetCard(c("p1", 1), "attack_declared"))
    assert events[0].secret["window"] == "attack_declared"
    assert violation(game, "p1", PlayCard(c("p1", 1), discard=(c("p1", 2),))) == "trap_needs_window"


def test_every_trap_names_in_its_card_data_the_windows_its_effect_can_apply_in():
    traps = {card_id: card["windows"] for card_id, card in CARDS.items() if card["type"] == "trap"}
    assert traps == {"W4": ["attack_declared"], "B5": ["attack_declared"], "G5": ["attack_declared"],
                     "N4": ["spell_activated"]}
    assert all("windows" not in card for card in CARDS.values() if card["type"] != "trap")
    catalogue = {card["id"]: card for card in g.catalogue()["cards"]}
    assert all(catalogue[card_id]["windows"] == windows for card_id, windows in traps.items())


@pytest.mark.parametrize("trap", ["W4", "B5", "G5", "N4"])
def test_a_trap_may_be_set_only_for_one_of_its_own_windows(trap):
    game = stacked([trap])
    game.act("p2", Pass())
    own = CARDS[trap]["windows"]
    for window in (w for w in WINDOWS if w not in own):
        assert violation(game, "p1", SetCard(c("p1", 1), window)) == "window_not_on_card"
    # Each pool trap names one window, so its set is a whole listed command, not a choice.
    listed = [cmd for cmd in g.legal_commands(game.state, "p1") if isinstance(cmd, SetCard) and cmd.card == c("p1", 1)]
    assert listed == [SetCard(c("p1", 1), window) for window in own]
    assert not [ch for ch in g.legal_choices(game.state, "p1") if ch.command is SetCard and ch.fixed["card"] == c("p1", 1)]
    assert game.act("p1", SetCard(c("p1", 1), own[0]))[0].secret["window"] == own[0]


# ----- traps: the declared window, the wait, off-turn payment ----------------------------------

def trap_position() -> Game:
    """p2 free-set Ambush Pit (attack_declared); on turn 2 p2 set Ambush Pit and Snare Vines (both attack_declared),
    energized and spent its energy on a Shield Bearer; turn 3, p1 attacks with a Rushing Scout."""
    game = stacked(["N1", "N1", "N1", "G2", "G2"], ["B5", "B5", "G5", "W4", "N2", "G2"])
    game.act("p2", SetCard(c("p2", 1), "attack_declared"))
    play(game, "p1", c("p1", 1))
    events = attack(game, c("p1", 1))
    assert "WindowOpened" not in kinds(events)  # p2's trap is not ready on turn 1: nobody is asked
    finish_turn(game)
    game.act("p2", SetCard(c("p2", 2), "attack_declared"))
    game.act("p2", SetCard(c("p2", 3), "attack_declared"))
    game.act("p2", Energize(c("p2", 4)))
    game.act("p2", PlayCard(c("p2", 5), energy=(c("p2", 4),), discard=(c("p2", 6),)))
    finish_turn(game)
    events = attack(game, c("p1", 1))
    opened = [e for e in events if e.kind == "WindowOpened"]
    assert opened and opened[0].public["window"] == "attack_declared" and opened[0].public["responders"] == ["p2"]
    return game


def test_a_trap_waits_one_full_turn_after_it_is_set():
    game = trap_position()
    assert violation(game, "p2", ActivateTrap(c("p2", 2), discard=(c("p2", 7),), target=c("p1", 1))) == "trap_not_ready"


def test_a_trap_fires_only_in_the_window_declared_when_it_was_set():
    game = stacked(["W3", "G2"], ["G5", "G2"])
    game.act("p2", SetCard(c("p2", 1), "attack_declared"))
    finish_turn(game)
    finish_turn(game)
    play(game, "p1", c("p1", 1), reveal=c("p2", 1))
    # A face-down card could be a Null Snare, so p2 is asked in the spell_activated window...
    assert game.state["window"] == {"name": "spell_activated", "responders": ["p2"], "turn": 3}
    # ...but its Snare Vines was declared for attack_declared.
    assert violation(game, "p2", ActivateTrap(c("p2", 1), discard=(c("p2", 2),))) == "wrong_window"
    assert not [cmd for cmd in g.legal_commands(game.state, "p2") if isinstance(cmd, ActivateTrap)]


def test_a_trap_fires_in_its_declared_window_on_the_opponent_turn_and_opens_its_commitment():
    game = trap_position()
    set_event = next(e for e in game.events if e.kind == "CardSet" and e.public["card"] == c("p2", 1))
    events = game.act("p2", ActivateTrap(c("p2", 1), discard=(c("p2", 7),), target=c("p1", 1)))
    fired = events[0]
    assert fired.kind == "TrapActivated" and fired.opens == (set_event.version,)
    assert fired.public["window"] == set_event.secret["window"] == "attack_declared"
    assert fired.public["set_version"] == set_event.version and fired.public["on_turn_of"] == "p1"
    assert "bluff_call" not in fired.public
    assert ("UnitDamaged", c("p1", 1)) in [(e.kind, e.public.get("unit")) for e in events]
    assert c("p1", 1) in graveyard(game, "p1") and c("p2", 1) in graveyard(game, "p2")


def test_off_turn_trap_costs_are_paid_from_hand_while_energy_is_exhausted():
    game = trap_position()
    exhausted = ActivateTrap(c("p2", 1), energy=(c("p2", 4),), target=c("p1", 1))
    assert violation(game, "p2", exhausted) == "energy_exhausted"
    assert violation(game, "p2", ActivateTrap(c("p2", 1), target=c("p1", 1))) == "insufficient_payment"
    events = game.act("p2", ActivateTrap(c("p2", 1), discard=(c("p2", 7),), target=c("p1", 1)))
    discarded = {"card": c("p2", 7), "id": game.state["cards"][c("p2", 7)]}
    assert events[0].public["paid"] == {"energy": [], "discard": [discarded]}


def test_a_trap_is_activated_only_in_an_open_window():
    game = stacked(p2=["B5"])
    game.act("p2", SetCard(c("p2", 1), "attack_declared"))
    finish_turn(game)
    assert violation(game, "p2", ActivateTrap(c("p2", 1), discard=(c("p2", 2),))) == "no_open_window"


def test_who_is_asked_in_a_trap_window_gives_nothing_away():
    game = stacked(["N1", "N1"], ["N2"])
    game.act("p2", SetCard(c("p2", 1)))  # a unit, set face down: it could be a trap for all p1 knows
    finish_turn(game)
    finish_turn(game)
    play(game, "p1", c("p1", 1))
    events = attack(game, c("p1", 1))
    assert [e.public["responders"] for e in events if e.kind == "WindowOpened"] == [["p2"]]
    assert violation(game, "p2", ActivateTrap(c("p2", 1), discard=(c("p2", 2),))) == "not_a_trap"
    events = game.act("p2", Pass())
    assert kinds(events)[:2] == ["WindowPassed", "WindowClosed"]


def own_attack_position(trap: str, attacker: str) -> Game:
    """p2 set a unit face down before the first turn; p1 set `trap` (attack_declared) on turn 1; on turn 3 p1
    attacks with `attacker`, so the attack_declared window opens (asking p2, whose set card could be a trap)."""
    game = stacked([trap, attacker, "N2", "N2", "N2"], ["N2", "N1", "G2"])
    game.act("p2", SetCard(c("p2", 1)))
    game.act("p1", SetCard(c("p1", 1), "attack_declared"))
    put_unit(game, "p1", c("p1", 2))
    finish_turn(game)
    finish_turn(game)
    attack(game, c("p1", 2))
    assert game.state["window"] == {"name": "attack_declared", "responders": ["p2"], "turn": 3}
    return game


@pytest.mark.parametrize("trap", ["B5", "W4", "G5"])
def test_a_seat_cannot_spring_its_own_attack_trap_on_its_own_attacker(trap):
    game = own_attack_position(trap, "G2")  # a 4/5 Thornback Brute: Judgment Ward's Might 3 or more
    assert g.to_act(game.state) == ["p2"]  # no attack trap answers its own seat's attack: p1 is never asked
    command = ActivateTrap(c("p1", 1), discard=(c("p1", 3), c("p1", 4)), target=c("p1", 2))
    assert violation(game, "p1", command) == "own_unit"
    events = game.act("p2", Pass())
    assert kinds(events)[:2] == ["WindowPassed", "WindowClosed"] and game.state["window"] is None
    assert c("p1", 2) not in graveyard(game, "p1") and c("p1", 1) in [e["card"] for e in game.state["players"]["p1"]["set"]]


def test_attack_traps_target_opposing_attackers_only():
    from domain.rulesets.gambit_tcg.effects import attacking_targets, choice_options
    game = own_attack_position("B5", "G2")
    assert attacking_targets(game.state, "p1") == [] and attacking_targets(game.state, "p2") == [c("p1", 2)]
    assert choice_options(game.state, "p1", c("p1", 1)) == []


def test_a_trap_window_asks_no_seat_that_no_trap_could_serve():
    game = stacked(["B5", "N1", "G2", "G2", "G2"], ["N2", "N1"])
    game.act("p2", Pass())
    game.act("p1", SetCard(c("p1", 1), "attack_declared"))
    finish_turn(game)
    finish_turn(game)
    play(game, "p1", c("p1", 2))
    events = attack(game, c("p1", 2))
    # p2 holds no set card and p1's attack traps cannot answer p1's own attack: no window opens.
    assert "WindowOpened" not in kinds(events) and "CombatResolved" in kinds(events)


# ----- Reveal and type declarations -----------------------------------------------------------

def test_lantern_acolyte_reveals_a_set_card_opening_its_commitment():
    game = stacked(["W1"], ["B5"])
    set_version = game.act("p2", SetCard(c("p2", 1), "attack_declared"))[0].version
    assert violation(game, "p1", PlayCard(c("p1", 1), discard=(c("p1", 2),))) == "choice_required"
    events = play(game, "p1", c("p1", 1), reveal=c("p2", 1))
    revealed = next(e for e in events if e.kind == "SetCardRevealed")
    assert revealed.opens == (set_version,) and "bluff_call" not in revealed.public
    assert revealed.public["id"] == "B5" and revealed.public["window"] == "attack_declared"
    assert g.view(game.state, SPECTATOR)["players"]["p2"]["set"][0]["id"] == "B5"


def test_lantern_acolyte_needs_no_target_when_nothing_is_set():
    game = stacked(["W1"])
    game.act("p2", Pass())
    play(game, "p1", c("p1", 1))
    assert unit(game, c("p1", 1))["id"] == "W1"


def test_reveal_targets_an_opponent_face_down_card_only():
    game = stacked(["W1", "N1"], ["B5"])
    game.act("p2", SetCard(c("p2", 1), "attack_declared"))
    game.act("p1", SetCard(c("p1", 2)))
    own = PlayCard(c("p1", 1), discard=(c("p1", 3),), reveal=c("p1", 2))
    assert violation(game, "p1", own) == "not_a_reveal_target"


def truthseeker(declared: str) -> tuple[Game, list[Event], int]:
    game = stacked(["W2", "G2", "G2", "G2", "N1"], ["B5"])
    set_version = game.act("p2", SetCard(c("p2", 1), "attack_declared"))[0].version
    return game, play(game, "p1", c("p1", 1), reveal=c("p2", 1), declared_type=declared), set_version


def test_truthseeker_right_type_declaration_gains_a_life_and_is_an_audited_call():
    game, events, set_version = truthseeker("trap")
    played = events[0]
    ruling = next(e for e in events if e.kind == "SetCardRevealed")
    call = ruling.public["bluff_call"]
    assert ruling.opens == (set_version,)
    assert call["claim_version"] == set_version and call["claimant"] == "p2" and call["caller"] == "p1"
    assert call["call_version"] == played.version and call["verdict"] == "true" and call["declared_type"] == "trap"
    assert call["consequences"]["life_gained"] == 1 and life(game, "p1") == 21


def test_truthseeker_wrong_type_declaration_gains_nothing():
    game, events, _ = truthseeker("unit")
    call = next(e for e in events if e.kind == "SetCardRevealed").public["bluff_call"]
    assert call["verdict"] == "false" and call["actual_type"] == "trap" and call["consequences"]["life_gained"] == 0
    assert life(game, "p1") == 20


def test_truthseeker_declares_a_known_type():
    game = stacked(["W2", "G2", "G2", "G2", "N1"], ["B5"])
    game.act("p2", SetCard(c("p2", 1), "attack_declared"))
    discard = (c("p1", 2), c("p1", 3), c("p1", 4))
    assert violation(game, "p1", PlayCard(c("p1", 1), discard=discard, reveal=c("p2", 1))) == "choice_required"
    assert violation(game, "p1", PlayCard(c("p1", 1), discard=discard, reveal=c("p2", 1),
                                          declared_type="dragon")) == "unknown_type"


def test_truthseeker_is_a_2_3_guard_unit():
    game, _, _ = truthseeker("trap")
    assert (unit(game, c("p1", 1))["might"], unit(game, c("p1", 1))["endurance"]) == (2, 3)
    assert "guard" in unit(game, c("p1", 1))["keywords"]


def test_unmasking_light_returns_a_revealed_trap_to_its_owner_hand():
    game = stacked(["W3"], ["G5"])
    game.act("p2", SetCard(c("p2", 1), "attack_declared"))
    events = play(game, "p1", c("p1", 1), reveal=c("p2", 1))
    revealed = next(e for e in events if e.kind == "SetCardRevealed")
    assert revealed.public["returned_to_hand"] is True
    assert c("p2", 1) in game.state["players"]["p2"]["hand"] and game.state["players"]["p2"]["set"] == []


def test_unmasking_light_leaves_a_revealed_non_trap_in_the_set_zone():
    game = stacked(["W3"], ["N2"])
    game.act("p2", SetCard(c("p2", 1)))
    play(game, "p1", c("p1", 1), reveal=c("p2", 1))
    assert game.state["players"]["p2"]["set"][0]["revealed"] is True


def test_unmasking_light_needs_a_face_down_card():
    game = stacked(["W3"])
    game.act("p2", Pass())
    assert violation(game, "p1", PlayCard(c("p1", 1), discard=(c("p1", 2),))) == "no_target"


# ----- Black ----------------------------------------------------------------------------------

def test_grave_tithe_may_sacrifice_another_unit_to_draw_two():
    game = stacked(["N1", "B1", "G2", "G2", "G2"])
    game.act("p2", Pass())
    put_unit(game, "p1", c("p1", 1))
    assert violation(game, "p1", PlayCard(c("p1", 2), discard=(c("p1", 5),), sacrifice=c("p1", 2))) == "bad_sacrifice"
    events = play(game, "p1", c("p1", 2), sacrifice=c("p1", 1))
    assert kinds(events)[:3] == ["CardPlayed", "UnitSacrificed", "CardsDrawn"]
    assert len(next(e for e in events if e.kind == "CardsDrawn").public["cards"]) == 2
    assert (unit(game, c("p1", 2))["might"], unit(game, c("p1", 2))["endurance"]) == (2, 1)


def test_grave_tithe_sacrifice_is_optional():
    game = stacked(["N1", "B1"])
    game.act("p2", Pass())
    put_unit(game, "p1", c("p1", 1))
    events = play(game, "p1", c("p1", 2))
    assert "UnitSacrificed" not in kinds(events) and unit(game, c("p1", 1))


def test_bone_harvester_may_sacrifice_a_unit_to_deal_two_damage_to_a_player():
    game = stacked(["N1", "B2", "G2", "G2", "G2"])
    game.act("p2", Pass())
    put_unit(game, "p1", c("p1", 1))
    assert violation(game, "p1", PlayCard(c("p1", 2), discard=(c("p1", 3), c("p1", 4), c("p1", 5)),
                                          sacrifice=c("p1", 1))) == "choice_required"
    events = play(game, "p1", c("p1", 2), sacrifice=c("p1", 1), target_player="p2")
    assert ("PlayerDamaged", 2) in [(e.kind, e.public.get("amount")) for e in events]
    assert life(game, "p2") == 18


def test_cursed_circlet_is_equipped_to_an_opponent_unit_for_minus_two_might():
    game = stacked(["N2"], ["B3", "G2"])
    game.act("p2", Pass())
    put_unit(game, "p1", c("p1", 1))
    finish_turn(game)
    put_unit(game, "p2", c("p2", 2))
    assert violation(game, "p2", PlayCard(c("p2", 1), discard=(c("p2", 3),), target=c("p2", 2))) == "item_host_invalid"
    play(game, "p2", c("p2", 1), target=c("p1", 1))
    assert unit(game, c("p1", 1))["might"] == 0 and unit(game, c("p1", 1))["item"] == {"card": c("p2", 1), "id": "B3"}


def test_a_cursed_item_occupies_the_only_item_slot_and_goes_to_its_owner_graveyard():
    game = stacked(["N2", "N3", "B4", "G1"], ["B3"])
    game.act("p2", Pass())
    put_unit(game, "p1", c("p1", 1))
    finish_turn(game)
    play(game, "p2", c("p2", 1), target=c("p1", 1))
    finish_turn(game)
    assert violation(game, "p1", PlayCard(c("p1", 2), discard=(c("p1", 5),), target=c("p1", 1))) == "item_slot_taken"
    game.act("p1", Energize(c("p1", 4)))
    play(game, "p1", c("p1", 3), sacrifice=c("p1", 1))
    assert c("p2", 1) in graveyard(game, "p2") and c("p1", 1) in graveyard(game, "p1")


def test_dark_pact_sacrifices_a_unit_to_draw_two():
    game = stacked(["N1", "B4", "G2", "G2", "G2"])
    game.act("p2", Pass())
    assert violation(game, "p1", PlayCard(c("p1", 2), discard=(c("p1", 4), c("p1", 5)))) == "no_target"
    put_unit(game, "p1", c("p1", 1))
    events = play(game, "p1", c("p1", 2), sacrifice=c("p1", 1))
    assert kinds(events)[:3] == ["CardPlayed", "UnitSacrificed", "CardsDrawn"]
    assert kinds(events)[3] == "SpellResolved" and c("p1", 2) in graveyard(game, "p1")


def test_sacrifice_is_the_only_way_to_destroy_your_own_unit():
    game = stacked(["B4", "G2", "G2"], ["N1"])
    game.act("p2", Pass())
    finish_turn(game)
    put_unit(game, "p2", c("p2", 1))
    finish_turn(game)
    assert violation(game, "p1", PlayCard(c("p1", 1), discard=(c("p1", 2), c("p1", 3)),
                                          sacrifice=c("p2", 1))) == "no_target"
    assert {cls.type for cls in g.COMMANDS} == {"set_card", "energize", "play_card", "activate_trap", "end_phase",
                                                "declare_attack", "assign_blockers", "pass", "resign"}


def test_ambush_pit_deals_two_damage_to_an_attacking_unit():
    game = trap_position()
    events = activate(game, "p2", c("p2", 1), target=c("p1", 1))
    assert ("UnitDamaged", 2) in [(e.kind, e.public.get("amount")) for e in events]
    assert "UnitDestroyed" in kinds(events)


def test_crypt_sanctum_gains_its_owner_a_life_per_sacrifice():
    game = stacked(["B6", "N1", "B1", "G1", "G2"])
    game.act("p2", Pass())
    game.act("p1", Energize(c("p1", 4)))
    game.act("p1", PlayCard(c("p1", 1), energy=(c("p1", 4),)))
    put_unit(game, "p1", c("p1", 2))
    events = play(game, "p1", c("p1", 3), sacrifice=c("p1", 2))
    sacrificed = next(e for e in events if e.kind == "UnitSacrificed")
    assert sacrificed.public["life_gained"] == 1 and life(game, "p1") == 21


# ----- Green ----------------------------------------------------------------------------------

def test_rootweaver_is_a_1_3_unit_with_conduit():
    game = stacked(["G1", "G1", "N2"])
    game.act("p2", Pass())
    game.act("p1", Energize(c("p1", 2)))
    play(game, "p1", c("p1", 1))
    assert (unit(game, c("p1", 1))["might"], unit(game, c("p1", 1))["endurance"]) == (1, 3)
    assert g.view(game.state, P1)["players"]["p1"]["energy"][0]["value"] == 2


def test_thornback_brute_is_a_4_5_unit():
    game = stacked(["G2", "N1", "N1", "N1", "W1"])
    game.act("p2", Pass())
    play(game, "p1", c("p1", 1))
    assert (unit(game, c("p1", 1))["might"], unit(game, c("p1", 1))["endurance"]) == (4, 5)


def test_wild_surge_gives_a_unit_plus_two_plus_two_until_end_of_turn():
    game = stacked(["G3", "N2"])
    game.act("p2", Pass())
    put_unit(game, "p1", c("p1", 2))
    play(game, "p1", c("p1", 1), target=c("p1", 2))
    assert (unit(game, c("p1", 2))["might"], unit(game, c("p1", 2))["endurance"]) == (3, 6)
    finish_turn(game)
    assert (unit(game, c("p1", 2))["might"], unit(game, c("p1", 2))["endurance"]) == (1, 4)


def test_seed_charm_gives_plus_zero_plus_two_and_is_a_conduit():
    game = stacked(["G4", "N2", "G4"])
    game.act("p2", Pass())
    put_unit(game, "p1", c("p1", 2))
    play(game, "p1", c("p1", 1), target=c("p1", 2))
    assert unit(game, c("p1", 2))["endurance"] == 6
    assert game.act("p1", Energize(c("p1", 3)))[0].public["value"] == 2


def test_snare_vines_makes_an_attacker_deal_no_damage_this_combat():
    game = stacked(["N1"], ["G5"])
    game.act("p2", SetCard(c("p2", 1), "attack_declared"))
    finish_turn(game)
    finish_turn(game)
    play(game, "p1", c("p1", 1))
    attack(game, c("p1", 1))
    events = activate(game, "p2", c("p2", 1), target=c("p1", 1))
    resolved = next(e for e in events if e.kind == "CombatResolved")
    assert resolved.public["player_damage"] == {} and life(game, "p2") == 20


def test_overgrown_grove_gives_its_owner_units_plus_zero_plus_one():
    game = stacked(["G6", "N2", "G2"], ["N2"])
    game.act("p2", Pass())
    put_unit(game, "p1", c("p1", 2))
    play(game, "p1", c("p1", 1))
    finish_turn(game)
    put_unit(game, "p2", c("p2", 1))
    assert unit(game, c("p1", 2))["endurance"] == 5 and unit(game, c("p2", 1))["endurance"] == 4


# ----- neutral --------------------------------------------------------------------------------

def test_rushing_scout_may_attack_the_turn_it_is_played():
    game = stacked(["N1"])
    game.act("p2", Pass())
    play(game, "p1", c("p1", 1))
    events = attack(game, c("p1", 1))
    assert next(e for e in events if e.kind == "CombatResolved").public["player_damage"] == {"p2": 1}


def test_summoning_weakness_keeps_a_new_unit_from_attacking():
    game = stacked(["N1", "N2", "G2", "G2", "G2"])
    game.act("p2", Pass())
    play(game, "p1", c("p1", 1))
    play(game, "p1", c("p1", 2))
    game.act("p1", EndPhase())
    assert violation(game, "p1", DeclareAttack((c("p1", 2),))) == "summoning_weakness"
    assert DeclareAttack((c("p1", 2),)) not in g.legal_commands(game.state, "p1")


def test_shield_bearer_guard_must_be_chosen_as_blocker_first():
    game = stacked(["N1"], ["N2", "N1"])
    game.act("p2", Pass())
    finish_turn(game)
    put_unit(game, "p2", c("p2", 1))
    put_unit(game, "p2", c("p2", 2))
    finish_turn(game)
    play(game, "p1", c("p1", 1))
    attack(game, c("p1", 1))
    assert g.to_act(game.state) == ["p2"] and game.state["step"] == "blocks"
    assert violation(game, "p2", AssignBlockers({})) == "guard_must_block"
    assert violation(game, "p2", AssignBlockers({c("p2", 2): c("p1", 1)})) == "guard_must_block"
    assert (unit(game, c("p2", 1))["might"], unit(game, c("p2", 1))["endurance"]) == (1, 4)
    game.act("p2", AssignBlockers({c("p2", 1): c("p1", 1)}))
    assert c("p1", 1) in graveyard(game, "p1")


def test_battle_standard_gives_plus_one_might():
    game = stacked(["N3", "N2"])
    game.act("p2", Pass())
    put_unit(game, "p1", c("p1", 2))
    play(game, "p1", c("p1", 1), target=c("p1", 2))
    assert (unit(game, c("p1", 2))["might"], unit(game, c("p1", 2))["endurance"]) == (2, 4)


def test_null_snare_nullifies_a_spell_as_it_is_activated():
    game = stacked(["W3", "G2"], ["N4", "G2", "G2"])
    game.act("p2", SetCard(c("p2", 1), "spell_activated"))
    finish_turn(game)
    finish_turn(game)
    events = play(game, "p1", c("p1", 1), reveal=c("p2", 1))
    assert [e.public["window"] for e in events if e.kind == "WindowOpened"] == ["spell_activated"]
    events = activate(game, "p2", c("p2", 1))
    assert kinds(events)[:2] == ["TrapActivated", "SpellNullified"] and "SetCardRevealed" not in kinds(events)
    assert c("p1", 1) in graveyard(game, "p1") and game.state["pending_spell"] is None


def test_relic_breaker_destroys_the_field_relic_only():
    game = stacked(["N5", "G2", "G2", "G6", "G2"], ["B6"])
    game.act("p2", Pass())
    assert violation(game, "p1", PlayCard(c("p1", 1), discard=(c("p1", 2), c("p1", 3)))) == "no_target"
    finish_turn(game)
    play(game, "p2", c("p2", 1))
    finish_turn(game)
    events = play(game, "p1", c("p1", 1))
    assert "FieldDestroyed" in kinds(events) and game.state["field"] is None and c("p2", 1) in graveyard(game, "p2")


def test_dispel_destroys_the_field_spell_only():
    game = stacked(["N6", "G2", "G2", "G2", "N1"], ["B6", "G6", "G2"])
    game.act("p2", Pass())
    finish_turn(game)
    play(game, "p2", c("p2", 1))
    finish_turn(game)
    assert violation(game, "p1", PlayCard(c("p1", 1), discard=(c("p1", 2), c("p1", 3)))) == "no_target"
    finish_turn(game)
    play(game, "p2", c("p2", 2))
    finish_turn(game)
    events = play(game, "p1", c("p1", 1))
    assert "FieldDestroyed" in kinds(events) and game.state["field"] is None


# ----- White ----------------------------------------------------------------------------------

def test_judgment_ward_destroys_an_attacking_unit_with_might_3_or_more():
    game = stacked(["G2", "G1", "G1", "G1", "W1", "N1"], ["W4", "G2", "G2"])
    game.act("p2", SetCard(c("p2", 1), "attack_declared"))
    play(game, "p1", c("p1", 1))
    finish_turn(game)
    finish_turn(game)
    play(game, "p1", c("p1", 6))
    attack(game, c("p1", 1), c("p1", 6))
    discard = (c("p2", 2), c("p2", 3))
    assert violation(game, "p2", ActivateTrap(c("p2", 1), discard=discard, target=c("p1", 6))) == "bad_target"
    events = game.act("p2", ActivateTrap(c("p2", 1), discard=discard, target=c("p1", 1)))
    destroyed = next(e for e in events if e.kind == "UnitDestroyed")
    assert destroyed.public["unit"] == c("p1", 1) and destroyed.public["reason"] == "effect"


def test_sanctified_blade_gives_plus_one_plus_one_and_guard():
    game = stacked(["W5", "N1", "G2", "G2", "G2"])
    game.act("p2", Pass())
    put_unit(game, "p1", c("p1", 2))
    play(game, "p1", c("p1", 1), target=c("p1", 2))
    entry = unit(game, c("p1", 2))
    assert (entry["might"], entry["endurance"]) == (2, 2) and "guard" in entry["keywords"]


def test_hall_of_mirrors_makes_revealed_set_cards_cost_one_more():
    game = stacked(["W6", "W1", "G2", "G2", "G2"], ["N1", "G2", "G2"])
    game.act("p2", SetCard(c("p2", 1)))
    play(game, "p1", c("p1", 1))
    finish_turn(game)
    finish_turn(game)
    play(game, "p1", c("p1", 2), reveal=c("p2", 1))
    finish_turn(game)
    assert violation(game, "p2", PlayCard(c("p2", 1), discard=(c("p2", 2),))) == "insufficient_payment"
    events = game.act("p2", PlayCard(c("p2", 1), discard=(c("p2", 2), c("p2", 3))))
    assert events[0].public["cost"] == 2


# ----- combat ---------------------------------------------------------------------------------

def combat_position(p2_units: list[str]) -> Game:
    """p1 has Thornback Brute and a Rushing Scout ready on turn 3; p2 has `p2_units` in play."""
    game = stacked(["G2", "N1"], p2_units)
    game.act("p2", Pass())
    put_unit(game, "p1", c("p1", 1))
    put_unit(game, "p1", c("p1", 2))
    finish_turn(game)
    for n in range(1, len(p2_units) + 1):
        put_unit(game, "p2", c("p2", n))
    finish_turn(game)
    return game


def test_unblocked_attackers_deal_their_might_to_the_player():
    game = combat_position([])
    events = attack(game, c("p1", 1), c("p1", 2))
    assert next(e for e in events if e.kind == "CombatResolved").public["player_damage"] == {"p2": 5}
    assert life(game, "p2") == 15


def test_blocked_units_deal_might_to_each_other_and_lethal_damage_destroys():
    game = combat_position(["G1", "N2"])
    attack(game, c("p1", 1), c("p1", 2))
    events = game.act("p2", AssignBlockers({c("p2", 2): c("p1", 2), c("p2", 1): c("p1", 1)}))
    assert {e.public["unit"] for e in events if e.kind == "UnitDestroyed"} == {c("p2", 1), c("p1", 2)}
    assert unit(game, c("p1", 1))["damage"] == 1 and unit(game, c("p2", 2))["damage"] == 1
    assert life(game, "p2") == 20


def test_one_blocker_per_attacker():
    game = combat_position(["N1", "G1"])
    attack(game, c("p1", 1))
    double = AssignBlockers({c("p2", 1): c("p1", 1), c("p2", 2): c("p1", 1)})
    assert violation(game, "p2", double) == "attacker_already_blocked"
    assert violation(game, "p2", AssignBlockers({c("p2", 1): c("p1", 2)})) == "not_attacking"


def test_damage_on_units_resets_at_end_of_turn():
    game = combat_position(["N2"])
    attack(game, c("p1", 2))
    game.act("p2", AssignBlockers({c("p2", 1): c("p1", 2)}))
    assert unit(game, c("p2", 1))["damage"] == 1
    finish_turn(game)
    assert unit(game, c("p2", 1))["damage"] == 0


# ----- losing ---------------------------------------------------------------------------------

def test_a_seat_at_zero_life_loses():
    game = stacked(["N1"])
    game.act("p2", Pass())
    record(game, "PlayerDamaged", {"seat": "p2", "amount": 19, "source": "test"})
    play(game, "p1", c("p1", 1))
    events = attack(game, c("p1", 1))
    assert events[-1].kind == "SeatLost" and events[-1].public == {"seats": ["p2"], "reason": "zero_life"}
    assert g.outcome(game.state)["winners"] == ["p1"] and g.to_act(game.state) == []


def test_a_seat_that_must_draw_from_an_empty_deck_loses():
    game = stacked(["N1", "B1", "G2", "G2", "G2"])
    game.act("p2", Pass())
    deck_cards = game.state["players"]["p1"]["deck"][:-1]
    game.record([Event("CardsDrawn", {"seat": "p1", "cards": deck_cards, "reason": "test", "deck_size": 1},
                       {"ids": {}}, ("p1",))])
    put_unit(game, "p1", c("p1", 1))
    events = play(game, "p1", c("p1", 2), sacrifice=c("p1", 1))
    assert events[-1].kind == "SeatLost" and events[-1].public["reason"] == "deck_out"
    assert g.outcome(game.state)["winners"] == ["p2"]


def test_the_draw_phase_decks_out_a_seat_with_too_few_cards():
    game = stacked(["N1"])
    game.act("p2", Pass())
    rest = game.state["players"]["p1"]["deck"]
    game.record([Event("CardsDrawn", {"seat": "p1", "cards": list(rest), "reason": "test", "deck_size": 0},
                       {"ids": {}}, ("p1",))])
    hand = game.state["players"]["p1"]["hand"]
    record(game, "CardPlayed", {"seat": "p1", "card": c("p1", 1), "id": "N1", "type": "unit", "from": "hand",
                                "cost": 0,
                                "paid": {"energy": [], "discard": [{"card": x, "id": "?"} for x in hand[1:-3]]},
                                "target": None, "choices": {}})
    finish_turn(game)
    assert g.outcome(game.state)["reason"] == "deck_out" and g.outcome(game.state)["winners"] == ["p2"]


def test_the_turn_limit_ends_the_game_on_life():
    game = stacked(["N1"], config={"turn_limit": 2})
    game.act("p2", Pass())
    play(game, "p1", c("p1", 1))
    attack(game, c("p1", 1))
    finish_turn(game)
    finish_turn(game)
    result = g.outcome(game.state)
    assert result["reason"] == "turn_limit" and result["winners"] == ["p1"] and result["life"] == {"p1": 20, "p2": 19}


def test_equal_life_at_the_turn_limit_is_a_draw():
    game = stacked(config={"turn_limit": 3})
    game.act("p2", Pass())
    for _ in range(3):
        finish_turn(game)
    assert g.outcome(game.state)["winners"] == [] and game.state["turn"] == 3


# ----- hidden information ---------------------------------------------------------------------

def shown(view: dict) -> dict[str, str]:
    """Every card instance the view names together with its identity."""
    out = {}

    def walk(node):
        if isinstance(node, dict):
            if isinstance(node.get("card"), str) and "id" in node:
                out[node["card"]] = node["id"]
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
    walk(view)
    return out


def test_a_set_card_and_its_declared_window_are_secret_to_its_owner():
    game = stacked(p2=["B5"])
    game.act("p2", SetCard(c("p2", 1), "attack_declared"))
    for viewer in (P1, SPECTATOR):
        view = g.view(game.state, viewer)
        entry = view["players"]["p2"]["set"][0]
        assert entry == {"card": c("p2", 1), "face": "down", "hidden": True, "set_turn": 0, "ready_turn": 2,
                         "commitment_version": game.events[-3].version}
        assert c("p2", 1) not in shown(view) and "attack_declared" not in str(view)
    assert "B5" not in str(g.view(game.state, SPECTATOR))
    own = g.view(game.state, P2)["players"]["p2"]["set"][0]
    assert own["id"] == "B5" and own["window"] == "attack_declared"


def test_the_verifier_binds_a_set_card_window_when_its_card_data_leaves_no_choice():
    game = stacked(["G2"], ["B5"])
    event = game.act("p2", SetCard(c("p2", 1), "attack_declared"))[0]
    bound = g.derived_secret(replay_to(game, event), event)
    assert bound == {"card": c("p2", 1), "id": "B5", "type": "trap", "window": "attack_declared"} == event.secret
    event = game.act("p1", SetCard(c("p1", 1)))[0]
    assert g.derived_secret(replay_to(game, event), event)["window"] is None


def replay_to(game: Game, event: Event) -> dict:
    """The state just before a recorded event, rebuilt from the record."""
    state = g.initial_state(game.config, game.seats)
    for earlier in game.events:
        if earlier.version == event.version:
            return state
        state = g.evolve(state, earlier)
    raise AssertionError("event not recorded")


def test_hands_and_deck_lists_are_secret_to_their_seat():
    game = stacked()
    game.act("p2", Pass())
    for viewer, me, other in ((P1, "p1", "p2"), (P2, "p2", "p1"), (SPECTATOR, None, None)):
        view = g.view(game.state, viewer)
        for seat in ("p1", "p2"):
            mine = seat == me
            assert ("hand" in view["players"][seat]) == mine and ("deck_list" in view["players"][seat]) == mine
            assert view["players"][seat]["hand_size"] == len(game.state["players"][seat]["hand"])
            assert "deck" not in view["players"][seat]
        assert all(card.startswith(me) for card in shown(view)) if me else shown(view) == {}


def test_deck_order_is_secret_to_organizers_and_draws_to_the_drawing_seat():
    game = stacked()
    audiences = {(e.kind, e.public.get("seat")): e.audience for e in game.events}
    assert audiences[("DeckShuffled", "p1")] == () and audiences[("DeckShuffled", "p2")] == ()
    assert audiences[("CardsDrawn", "p1")] == ("p1",) and audiences[("CardsDrawn", "p2")] == ("p2",)
    drawn = next(e for e in game.events if e.kind == "CardsDrawn")
    assert set(drawn.public) == {"seat", "cards", "reason", "deck_size"}


def test_a_revealed_trap_shows_its_card_and_window_to_everyone():
    game = stacked(["W1"], ["B5"])
    game.act("p2", SetCard(c("p2", 1), "attack_declared"))
    play(game, "p1", c("p1", 1), reveal=c("p2", 1))
    entry = g.view(game.state, SPECTATOR)["players"]["p2"]["set"][0]
    assert entry["face"] == "up" and entry["id"] == "B5" and entry["window"] == "attack_declared"


def test_organizers_always_and_everyone_after_the_end_see_everything():
    game = stacked(p2=["B5"], config={"turn_limit": 2})
    game.act("p2", SetCard(c("p2", 1), "attack_declared"))
    organizer = g.view(game.state, ORGANIZER)
    assert organizer["players"]["p2"]["set"][0]["window"] == "attack_declared"
    assert len(organizer["players"]["p1"]["deck"]) == 25
    finish_turn(game)
    finish_turn(game)
    assert g.outcome(game.state) is not None
    after = g.view(game.state, Viewer("spectator", sees_all=True))
    assert after["players"]["p2"]["set"][0]["id"] == "B5" and "hand" in after["players"]["p1"]
    assert set(shown(after)) == set(game.state["cards"])


def test_the_view_is_a_copy_of_the_state():
    game = stacked()
    view = g.view(game.state, ORGANIZER)
    view["players"]["p1"]["hand"].clear()
    view["players"]["p1"]["set"].append("x")
    assert len(game.state["players"]["p1"]["hand"]) == 5 and game.state["players"]["p1"]["set"] == []


# ----- phase-start windows (no starter trap names one, so a test card shows they open) --------

@pytest.fixture
def hidden_cache(monkeypatch):
    """A targetless trap added to the pool for one test: 'Hidden Cache — draw a card', for main1 or end."""
    from domain.rulesets.gambit_tcg import phases
    monkeypatch.setitem(CARDS, "X1", {"id": "X1", "name": "Hidden Cache", "color": None, "type": "trap", "cost": 1,
                                      "keywords": [], "windows": ["main1", "end"],
                                      "effects": [{"do": "draw", "count": 1}], "text": "Draw a card."})
    monkeypatch.setattr(phases, "TRAP_IDS", phases.TRAP_IDS + ("X1",))


def test_a_trap_declared_for_a_phase_start_fires_when_that_phase_begins(hidden_cache):
    game = stacked(p2=["X1", "X1"])
    game.act("p2", SetCard(c("p2", 1), "end"))
    events = game.act("p1", EndPhase())
    assert "WindowOpened" not in kinds(events)  # p2's trap waits for p2's turn 2
    finish_turn(game)
    assert game.state["window"] == {"name": "main1", "responders": ["p2"], "turn": 2}
    assert violation(game, "p2", ActivateTrap(c("p2", 1), discard=(c("p2", 2),))) == "wrong_window"
    while game.state["window"] is None or game.state["window"]["name"] != "end":
        game.act(g.to_act(game.state)[0], Pass() if game.state["window"] else EndPhase())
    events = game.act("p2", ActivateTrap(c("p2", 1), discard=(c("p2", 2),)))
    assert kinds(events)[:2] == ["TrapActivated", "CardsDrawn"]
    # p2 has no set card left, so it passes on its own and the end phase goes on.
    assert kinds(events)[2:5] == ["WindowPassed", "WindowClosed", "TurnEnded"] and game.state["turn"] == 3
