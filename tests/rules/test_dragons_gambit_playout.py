"""Random playouts of `dragons-gambit`: invariants after every step, replay, and hidden information."""

from __future__ import annotations

import collections
import json
import random
import re

import pytest

from domain.ruleset import Viewer, copy_state
from domain.rulesets import dragons_gambit as dg
from domain.rulesets.dragons_gambit.cards import card_value
from tests.support.harness import Game, random_playout, start

CARD_ID = re.compile(r'"(c\d\d)"')


def random_config(rng: random.Random) -> dict:
    """A config across the whole space; most matches use a low target to stay quick."""
    players = rng.randint(2, 6)
    return {
        "players": players,
        "first_seat": f"p{rng.randint(1, players)}",
        "initial_peek": rng.choice(["near", "choose"]),
        "caller_penalty": rng.choice([0, 5, 10, 10, 25]),
        "target_score": 100 if rng.random() < 0.1 else rng.randint(30, 60),
        "memory_aid": rng.random() < 0.7,
    }


def choose(rng: random.Random, options: list, call_weight: float):
    """A command: Final Gambit with `call_weight`, else a random command type, then random arguments."""
    by_type = collections.defaultdict(list)
    for command in options:
        by_type[command.type].append(command)
    if "call_final_gambit" in by_type and (rng.random() < call_weight or len(by_type) == 1):
        return by_type["call_final_gambit"][0]
    by_type.pop("call_final_gambit", None)
    return rng.choice(by_type[rng.choice(sorted(by_type))])


def play(rng: random.Random, check, call_weight: float) -> Game:
    """One match of random legal commands, `check(game)` after each step."""
    game = start(dg, random_config(rng), server_seed=rng.randbytes(32))
    check(game)
    for _ in range(20000):
        if dg.outcome(game.state) is not None:
            return game
        acting = dg.to_act(game.state)
        assert acting, "no seat to act but no outcome"
        seat = rng.choice(acting)
        # Giving up is tested on its own (test_dragons_gambit.py): these matches play to the target score.
        options = [c for c in dg.legal_commands(game.state, seat) if c.type != "resign"]
        assert options, f"{seat} is to act but has no legal command"
        game.act(seat, choose(rng, options, call_weight))
        check(game)
    raise AssertionError("no outcome after 20000 steps")


def check_invariants(game: Game) -> None:
    """Cards conserved, tokens only on grid cards, knowledge only of trackable cards, scores are sums."""
    s = game.state
    drawn = [s["drawn"]["card"]] if s["drawn"] else []
    grid_cards = [c for grid in s["grids"].values() for c in grid]
    assert sorted(s["draw_pile"] + s["discard"] + grid_cards + drawn) == list(dg.CARD_IDS)
    assert all(len(grid) == 4 for grid in s["grids"].values())
    assert set(s["tokens"]) <= set(grid_cards) and 0 not in s["tokens"].values()
    for seat, known in s["seen"].items():
        mine = drawn if s["drawn"] and s["drawn"]["seat"] == seat else []
        assert set(known) <= set(grid_cards) | set(mine)
    rounds = [e.public for e in game.events if e.kind == "RoundEnded"]
    assert s["rounds_played"] == len(rounds)
    for seat, score in s["scores"].items():
        assert score == sum(r["totals"][seat] + r["penalties"][seat] for r in rounds)
    if s["phase"] == "turn":
        assert s["discard"] and not (s["drawn"] and s["pending_ability"])
    assert (dg.outcome(s) is None) == bool(dg.to_act(s))


def check_every_legal_command_is_accepted(game: Game) -> None:
    """Decide every listed command on a copy of the state (one copy: decide never mutates it)."""
    state = copy_state(game.state)
    assert json.loads(json.dumps(state)) == state
    for seat in game.seats:
        for command in dg.legal_commands(state, seat):
            assert dg.decide(state, seat, command, game.chance())
    assert state == game.state


@pytest.mark.slow
def test_random_playouts_keep_the_invariants_and_replay_exactly():
    rng = random.Random(20261122)
    seen = collections.Counter()
    for match in range(1000):
        step = [0]

        def check(game: Game, step: list[int] = step) -> None:
            check_invariants(game)
            step[0] += 1
            if step[0] % 23 == 0:
                check_every_legal_command_is_accepted(game)

        # A quarter of the matches call rarely, so rounds run long enough to exhaust the draw pile.
        game = play(rng, check, 0.02 if match % 4 == 0 else 0.3)
        assert game.replayed_state() == game.state
        outcome = dg.outcome(game.state)
        assert outcome["rounds"] == game.state["rounds_played"] and outcome["reason"] == "target_score"
        assert max(outcome["scores"].values()) >= game.config.target_score
        seen.update(e.kind for e in game.events)
        seen.update(f"players={game.config.players}" for _ in [0])
        seen.update("multi_round" for _ in [0] if outcome["rounds"] > 1)
        seen.update(e.public["bluff_call"]["verdict"] for e in game.events if e.kind == "RoundEnded")
    # The playouts really reached every corner of the game.
    for kind in dg.EVENT_KINDS:
        assert seen[kind] > 0, kind
    assert seen["DrawPileReshuffled"] >= 50 and seen["multi_round"] >= 500
    assert seen["true"] > 0 and seen["false"] > 0
    assert all(seen[f"players={n}"] > 100 for n in range(2, 7))


# --- hidden information -------------------------------------------------------------------------

class Witness:
    """What one seat has been shown this round, rebuilt from the records it may read."""

    def __init__(self, seat: str) -> None:
        self.seat = seat
        self.known: set[str] = set()
        self.read = 0

    def follow(self, events: list) -> None:
        """Read the records not read yet: public parts, and secrets only when in the audience."""
        for event in events[self.read:]:
            public, mine = event.public, event.audience is not None and self.seat in event.audience
            if event.kind == "RoundDealt":
                self.known = set()
            elif event.kind in ("InitialCardsPeeked",) and mine:
                self.known |= {c["card"] for c in event.secret["cards"]}
            elif event.kind in ("CardDrawn", "CardPeeked") and mine:
                self.known.add(event.secret["card"])
            elif event.kind == "DiscardTaken":
                self.known.add(public["card"])
            # A card on the discard pile can be followed no further (it may be reshuffled).
            for gone in (public.get("discarded", {}).get("card"),
                         public["card"] if event.kind == "DrawnCardDiscarded" else None):
                self.known.discard(gone)
        self.read = len(events)


def check_views(game: Game, witnesses: dict[str, Witness]) -> None:
    """No viewer's view holds a card it may not know; a seat sees exactly what it was shown."""
    s = game.state
    discard = set(s["discard"])
    running = dg.outcome(s) is None
    spectator = dg.view(s, Viewer("spectator", sees_all=not running))
    if running:
        assert set(CARD_ID.findall(json.dumps(spectator))) <= discard
        assert all(c["face"] is None for grid in spectator["grids"].values() for c in grid)
        assert "draw_pile" not in spectator
    for seat, witness in witnesses.items():
        witness.follow(game.events)
        board = dg.view(s, Viewer("seat", seat, sees_all=not running))
        if not running:
            assert all(c["face"] is not None for grid in board["grids"].values() for c in grid)
            continue
        holding = {s["drawn"]["card"]} if s["drawn"] and s["drawn"]["seat"] == seat else set()
        assert set(CARD_ID.findall(json.dumps(board))) <= discard | witness.known | holding
        shown = {c["card"] for grid in board["grids"].values() for c in grid if c["face"] is not None}
        in_grids = {c for grid in s["grids"].values() for c in grid}
        expected = witness.known & in_grids if s["config"]["memory_aid"] else set()
        assert shown == expected
        for owner, grid in board["grids"].items():
            for slot, shown_card in enumerate(grid):
                if shown_card["card"] is not None:
                    assert shown_card["card"] == s["grids"][owner][slot]
                    assert shown_card["value"] == card_value(s, shown_card["card"])


def test_views_never_show_a_card_the_viewer_may_not_know():
    rng = random.Random(7)
    for match in range(60):
        witnesses: dict[str, Witness] = {}

        def check(game: Game, witnesses: dict[str, Witness] = witnesses) -> None:
            if not witnesses:
                witnesses.update({seat: Witness(seat) for seat in game.seats})
            check_views(game, witnesses)

        play(rng, check, 0.05 if match % 3 == 0 else 0.3)


def test_public_parts_of_events_name_only_face_up_cards():
    rng = random.Random(11)
    for match in range(40):
        game = play(rng, lambda game: None, 0.05 if match % 2 else 0.3)
        state = dg.initial_state(game.config, list(game.seats))
        for event in game.events:
            before = set(state["discard"])
            state = dg.evolve(state, event)
            named = set(CARD_ID.findall(json.dumps(event.public)))
            if event.kind == "RoundEnded":
                continue  # the reveal of every hand
            assert named <= before | set(state["discard"]), event.kind


def test_organizers_see_every_card_and_the_draw_pile_order():
    game = start(dg, {"players": 4})
    board = dg.view(game.state, Viewer("organizer", sees_all=True))
    assert [c["card"] for c in board["draw_pile"]] == game.state["draw_pile"]
    for seat in game.seats:
        assert [c["card"] for c in board["grids"][seat]] == game.state["grids"][seat]


def test_a_view_is_a_copy_not_the_state():
    game = start(dg)
    before = json.dumps(game.state, sort_keys=True)
    board = dg.view(game.state, Viewer("organizer", sees_all=True))
    board["grids"]["p1"].clear()
    board["scores"]["p1"] = 99
    board["discard"].clear()
    assert json.dumps(game.state, sort_keys=True) == before


def test_the_harness_random_playout_finishes_matches_with_uniform_choices():
    rng = random.Random(3)
    for _ in range(40):
        game = random_playout(dg, random_config(rng), rng, check=check_invariants, enders_rate=0)
        assert game.replayed_state() == game.state
