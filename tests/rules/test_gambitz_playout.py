"""Property test of `gambitz`: 1,000 random complete games of 2-8 seats, invariants after every step.

After every step: the 60 cards are all somewhere exactly once, stacks hold at most 4 cards, hands
at most 3 (exactly 3 while the deck has cards), and each seat's points equal the scoring table
applied to the public play history. On sampled states: decide accepts exactly the commands
legal_commands lists, and no view shows a card its viewer may not know. At the end: replay
rebuilds the state and the final score is points minus the table's penalties.
"""

from __future__ import annotations

import itertools
import json
import random

import pytest

from domain.chance import Chance
from domain.ruleset import RuleViolation, Viewer
from domain.rulesets import gambitz as gz
from domain.rulesets.gambitz import PassTurn, PlayCard, RedrawHand, Resign
from domain.rulesets.gambitz.cards import group_of, rank_of
from tests.support.harness import Game, random_playout

GAMES = 1000
SAMPLE_EVERY = 23  # steps between the expensive checks (exact legality, views)


def random_config(rng: random.Random, index: int) -> dict:
    """2-8 seats, any first seat; every tenth game a random scoring table."""
    players = rng.randint(2, 8)
    config = {"players": players, "first_seat": f"p{rng.randint(1, players)}"}
    if index % 10 == 0:
        config["scoring"] = {group: {key: rng.randint(-5, 9) for key in row} for group, row in gz.DEFAULT_SCORING.items()}
    return config


def candidate_commands(state: dict, seat: str, rng: random.Random) -> list:
    """Every well-formed command about the seat's hand (and a stranger card), legal or not."""
    hand = state["hands"][seat]
    stranger = rng.choice([card for card in gz.CARDS if card not in hand])
    commands = [PassTurn(), RedrawHand(), Resign()]
    for card in hand + [stranger]:
        rank = rank_of(card)
        if rank == "queen":
            commands.extend(PlayCard(card, stack=stack) for stack in gz.STACK_RANKS)
            continue
        commands.append(PlayCard(card))
        if rank == "bishop":
            commands.extend(PlayCard(card, move_queen_from=a, move_queen_to=b)
                            for a in gz.STACK_RANKS for b in gz.STACK_RANKS)
        if rank == "knight":
            pool = [c for c in hand if c != card] + [card, stranger]
            commands.extend(PlayCard(card, knight_return=combo)
                            for size in (1, 2, 3) for combo in itertools.permutations(pool, size))
    return commands


class Checker:
    """Invariants of one game, checked after each step against the events recorded so far."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.seen = 0
        self.steps = 0
        self.natural: dict[str, int] = {}
        self.points: dict[str, int] = {}

    def __call__(self, game: Game) -> None:
        state = game.state
        table = game.config.scoring
        for event in game.events[self.seen:]:
            if event.kind == "CardPlayed":
                pub = event.public
                rank = rank_of(pub["card"])
                if rank == "queen":
                    position = 4
                else:
                    assert pub["stack"] == rank
                    position = self.natural[rank] = self.natural.get(rank, 0) + 1
                assert pub["position"] == position
                assert pub["points"] == table[group_of(rank)][str(position)]
                self.points[pub["seat"]] = self.points.get(pub["seat"], 0) + pub["points"]
        self.seen = len(game.events)
        assert state["points"] == {seat: self.points.get(seat, 0) for seat in game.seats}

        piles = state["stacks"].values()
        everywhere = state["deck"] + [c for cards in state["hands"].values() for c in cards]
        everywhere += [c for pile in piles for c in pile["cards"]] + [pile["queen"] for pile in piles if pile["queen"]]
        assert len(everywhere) == 60 and set(everywhere) == set(gz.CARDS)
        for rank, pile in state["stacks"].items():
            assert len(pile["cards"]) + (pile["queen"] is not None) <= 4
            assert pile["queen"] is None or (len(pile["cards"]) == 3 and rank != "castle")
        sizes = [len(cards) for cards in state["hands"].values()]
        assert max(sizes) <= 3 and (not state["deck"] or set(sizes) == {3})

        self.steps += 1
        if self.steps % SAMPLE_EVERY == 0 and gz.outcome(state) is None:
            for rank, pile in state["stacks"].items():
                assert all(rank_of(card) == rank for card in pile["cards"])
            self.check_exact_legality(game)
            self.check_views(game)

    def check_exact_legality(self, game: Game) -> None:
        """decide accepts a command exactly when legal_commands lists it; decide never mutates."""
        state = game.state
        before = json.dumps(state, sort_keys=True)
        seat = gz.to_act(state)[0]
        legal = set(gz.legal_commands(state, seat))
        for command in candidate_commands(state, seat, self.rng):
            chance = Chance(game.server_seed, game.match_id, [""] * len(game.seats), scope="probe")
            try:
                gz.decide(state, seat, command, chance)
                accepted = True
            except RuleViolation:
                accepted = False
            assert accepted == (command in legal), (command, accepted)
        for other in game.seats:
            if other != seat:
                assert gz.legal_commands(state, other) == []
        assert json.dumps(state, sort_keys=True) == before

    def check_views(self, game: Game) -> None:
        """No seat or spectator sees a card held by another seat or lying in the deck."""
        state = game.state
        shown = {card for pile in state["stacks"].values() for card in pile["cards"] + [pile["queen"]] if card}
        shown |= {card for entry in state["shown"] for card in entry["cards"]}
        hidden = set(state["deck"]) | {card for cards in state["hands"].values() for card in cards}
        for viewer in [Viewer("spectator")] + [Viewer("seat", seat) for seat in game.seats]:
            view = gz.view(state, viewer)
            own = set(view.get("hand", []))
            assert own == set(state["hands"].get(viewer.seat, []))
            assert "deck" not in view and "hands" not in view
            text = json.dumps(view)
            assert not any(f'"{card}"' in text for card in hidden - shown - own), viewer


def check_end(game: Game) -> None:
    """Replay equality and the final score: points minus the table's penalties, highest wins."""
    assert game.replayed_state() == game.state
    result = gz.outcome(game.state)
    assert result is not None and gz.to_act(game.state) == []
    table = game.config.scoring
    for seat in game.seats:
        penalty = -sum(table[group_of(rank_of(card))]["hand"] for card in game.state["hands"][seat])
        assert result["penalties"][seat] == penalty
        assert result["scores"][seat] == game.state["points"][seat] - penalty
    best = max(result["scores"].values())
    assert result["winners"] == [seat for seat in game.seats if result["scores"][seat] == best]
    assert not game.state["deck"]
    # Every locked stack strands its last card and every other Queen stays in hand: 4 cards remain.
    assert sum(len(cards) for cards in game.state["hands"].values()) >= 4
    assert result["reason"] == "no_card_can_be_played"
    for viewer in (Viewer("spectator", sees_all=True), Viewer("seat", "p1", sees_all=True)):
        view = gz.view(game.state, viewer)
        assert view["hands"] == game.state["hands"] and view["deck"] == game.state["deck"]


@pytest.mark.slow
def test_random_playouts_keep_every_invariant_and_replay_exactly():
    rng = random.Random(20141122)
    kinds: set[str] = set()
    for index in range(GAMES):
        game = random_playout(gz, random_config(rng, index), rng, check=Checker(rng), enders_rate=0)
        check_end(game)
        kinds.update(event.kind for event in game.events)
    # The playouts reach every kind of event, powers and redraws included.
    assert kinds == {"DeckShuffled", "CardsDealt", "GameStarted", "CardPlayed", "CardsDrawn", "TurnBegan",
                     "TurnPassed", "GameEnded", "QueenMoved", "CardsReturned", "HandShown"}
