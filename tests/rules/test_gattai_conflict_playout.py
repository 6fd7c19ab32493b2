"""Random playouts of gattai-conflict: invariants after every step, replay, and hidden information."""

from __future__ import annotations

import collections
import json
import random
import re

import pytest

from domain.ruleset import RuleViolation, Viewer, copy_state
from domain.rulesets import gattai_conflict as gc
from domain.rulesets.gattai_conflict.cards import is_joker
from tests.rules.test_gattai_conflict_support import all_cards
from tests.support.harness import Game, start

CARD_ID = re.compile(r"[PC]\.(?:10|[2-9JQKA])[SHDC]|[PC]\.JK[12]")
ANY_TIME = ("record_trigger", "spend_omen")


def random_config(rng: random.Random, mode: str, pilots: int) -> dict:
    """A config across the whole space."""
    sheets = {}
    for i in range(1, pilots + 1):
        cmax = rng.randint(0, 4)
        sheets[f"p{i}"] = {"steel": rng.randint(0, 4), "flesh": rng.randint(0, 4), "synch": rng.randint(0, 4),
                           "solo": rng.randint(0, 3), "charges_max": cmax, "buffers": rng.randint(0, 2),
                           "charges": rng.randint(0, cmax)}
    names = rng.sample(["kaiju", "drone", "mech", "swarm"], rng.randint(1, 3))
    return {
        "mode": mode, "pilots": sheets, "harmony": rng.randint(1, 7), "crisis_tier": rng.randint(1, 3),
        "threats": random_threats(rng, names),
        "threat_stacks": {n: rng.randint(0, 3) for n in names}, "started_by": rng.choice(["pilots", "coach"]),
        "commander": f"p{rng.randint(1, pilots)}", "pilot": f"p{rng.randint(1, pilots)}",
        "specialty": rng.random() < 0.3,
    }


def random_threats(rng: random.Random, names: list[str]) -> list[dict] | dict[str, int]:
    """Threats in the page's list form (now and then without a rating: 3), or in the earlier map form."""
    if rng.random() < 0.2:
        return {n: rng.randint(1, 5) for n in names}
    return [{"name": n, "rating": rng.randint(1, 5)} if rng.random() < 0.8 else {"name": n} for n in names]


def choose(rng: random.Random, options: list):
    """A random command type, then random arguments; any-time commands and Concede only now and then."""
    by_type = collections.defaultdict(list)
    for command in options:
        by_type[command.type].append(command)
    main = sorted(t for t in by_type if t not in ANY_TIME)
    # Conceding ends a Throwdown; keep it rare while other Drives exist, so fights run long.
    if "concede" in main and len(main) > 1 and rng.random() < 0.85:
        main.remove("concede")
    if main and (rng.random() < 0.9 or not set(by_type) & set(ANY_TIME)):
        return rng.choice(by_type[rng.choice(main)])
    return rng.choice(by_type[rng.choice(sorted(t for t in by_type if t in ANY_TIME))])


def play(rng: random.Random, config: dict, check, tarry: float = 0.0) -> Game:
    """One conflict of random legal commands; now and then a seat the flow does not wait for acts.

    With `tarry`, a +Tarry is fired with that probability whenever one is legal (to cycle decks).
    """
    game = start(gc, config, server_seed=rng.randbytes(32))
    check(game)
    for _ in range(3000):
        if gc.outcome(game.state) is not None:
            return game
        acting, optional = gc.to_act(game.state), gc.may_act(game.state)
        assert acting, "no seat to act but no outcome"
        roll = rng.random()
        if roll < 0.05:
            seat = rng.choice(game.seats)
        elif roll < 0.15 and optional:
            # A seat that may act at will (an Assist, a reveal, an Omen, a story trigger) now and then does.
            seat = rng.choice(optional)
        else:
            seat = rng.choice(acting)
        # Listed commands, and a random member of each choice (gifts, returns, discards, story targets).
        # Resigning ends a conflict wherever it stands: tested on its own (test_gattai_conflict_resign.py).
        options = [c for c in gc.legal_commands(game.state, seat) if c.type != "resign"]
        options += [choice.random_command(rng) for choice in gc.legal_choices(game.state, seat)]
        if not options:
            assert seat not in acting, f"{seat} is to act but has no legal command"
            continue
        tarries = [c for c in options if c.type == "record_trigger" and c.trigger == "tarry"]
        game.act(seat, rng.choice(tarries) if tarries and rng.random() < tarry else choose(rng, options))
        check(game)
    raise AssertionError("no outcome after 3000 steps")


def check_invariants(game: Game) -> None:
    """108 cards conserved, Jokers only in decks or Omens, decks settled, gauges within their ranges."""
    s = game.state
    cards = all_cards(s)
    assert len(cards) == 108 and set(cards) == gc.ALL_CARDS
    for d in s["decks"].values():
        assert not any(is_joker(c) for c in d["trash"]) and len(d["omens"]) <= 2
        assert not (d["draw"] and is_joker(d["draw"][0])), "a Joker on top is set out at once"
        assert d["draw"] or not d["trash"], "an empty deck takes its reshuffled Trash"
    for hand in s["hands"].values():
        assert not any(is_joker(c) for c in hand)
    assert 1 <= s["harmony"] <= 7
    for g in s["team"].values():
        assert 0 <= g["charges"] <= g["charges_max"] and 0 <= g["buffers"] <= g["buffers_max"]
        assert min(g["steel"], g["flesh"], g["synch"], g["solo"]) >= 0
    assert all(r >= 0 for r in s["threats"].values())
    if s["throwdown"] is not None and s["phase"] == "turns":
        assert 1 <= s["throwdown"]["stage"] <= 7
    assert (gc.outcome(s) is None) == bool(gc.to_act(s))
    check_who_acts(game)


def check_who_acts(game: Game) -> None:
    """to_act and may_act never share a seat, and together they are exactly the seats with a legal move."""
    waiting, optional = gc.to_act(game.state), gc.may_act(game.state)
    assert not set(waiting) & set(optional), f"{waiting} must and {optional} may act"
    for seat in game.seats:
        moves = gc.legal_commands(game.state, seat) or gc.legal_choices(game.state, seat)
        assert (seat in waiting or seat in optional) == bool(moves), f"{seat}: {waiting} / {optional} / {moves}"


def check_every_legal_command_is_accepted(game: Game) -> None:
    """Decide every listed command on one copy of the state (decide never mutates it)."""
    state = copy_state(game.state)
    assert json.loads(json.dumps(state)) == state
    for seat in game.seats:
        for command in gc.legal_commands(state, seat):
            assert gc.decide(state, seat, command, game.chance()) is not None
    assert state == game.state


def garbage(rng: random.Random, state: dict) -> list:
    """Commands of every type with arguments drawn from valid and invalid values."""
    cards = ["P.AS", "C.AS", "P.JK1", "C.10H", "X.2Z", "", *rng.sample(sorted(gc.ALL_CARDS), 3)]
    words = ["hand", "deck", "p1", "p4", "coach", "threat", "kaiju", "yes_but", "yes_and", "purge", "steel",
             "tarry", "self_full", "crisis", "x" * 50]
    card, word = rng.choice(cards), rng.choice(words)
    return [
        gc.PlayThreshold(word, rng.choice([None, card])), gc.PlayCard(card), gc.FlipCard(), gc.ChooseOutcome(word),
        gc.PickBoon(word), gc.NameComplication(word), gc.SealInitiative(card), gc.RevealInitiative(),
        gc.AnswerQuestion(rng.random() < 0.5), gc.GiveCards((card, card)), gc.GiveCards((card,)),
        gc.ReturnCards(word, (card,)), gc.Assist(card), gc.ThreatAssist(word, card), gc.Counter(card),
        gc.Block(card), gc.Escalate(card), gc.Rumble(card), gc.Concede(),
        gc.ResolveTrigger(rng.random() < 0.5, rng.choice([None, word])), gc.SpendOmen(card, word),
        gc.RecordTrigger(word, rng.choice(words)), gc.DiscardToMax((card,)),
    ]


def check_garbage_is_refused_cleanly(game: Game, rng: random.Random) -> None:
    """Any command at all either decides or raises RuleViolation, and never touches the state."""
    state = copy_state(game.state)
    for seat in [*game.seats, "p9"]:
        for command in garbage(rng, state):
            try:
                gc.decide(state, seat, command, game.chance())
            except RuleViolation as err:
                assert re.fullmatch(r"[a-z_0-9]+", err.rule)
    assert state == game.state


PLAYOUTS = [(mode, pilots) for mode in ("gambit", "throwdown") for pilots in (1, 2, 3, 4)]


@pytest.mark.slow
@pytest.mark.parametrize("mode, pilots", PLAYOUTS)
def test_random_conflicts_keep_the_invariants_and_replay_exactly(mode, pilots):
    # 125 conflicts per (mode, pilots): 1,000 conflicts in all, every pilot count in both modes.
    rng = random.Random(f"gattai/{mode}/{pilots}")
    seen = collections.Counter()
    for match in range(125):
        step = [0]

        def check(game: Game, step: list[int] = step) -> None:
            """Invariants every step; legal commands and garbage on a sample of states."""
            check_invariants(game)
            step[0] += 1
            if step[0] % 17 == 0:
                check_every_legal_command_is_accepted(game)
            if step[0] % 29 == 0:
                check_garbage_is_refused_cleanly(game, rng)

        game = play(rng, random_config(rng, mode, pilots), check)
        assert game.replayed_state() == game.state
        seen.update(e.kind for e in game.events)
        seen[gc.outcome(game.state)["reason"]] += 1
    assert seen["OmenRevealed"] and seen["TriggerResolved"]
    if mode == "gambit":
        assert all(seen[f"gambit_{o}"] for o in ("yes_and", "yes_but", "no_but", "no_and"))
    else:
        for kind in ("Countered", "Blocked", "Escalated", "Rumbled", "Conceded", "DissonanceFlipped"):
            assert seen[kind], kind
        if pilots > 1:
            assert seen["CardsGiven"] and seen["Assisted"]


@pytest.mark.parametrize("mode", ["gambit", "throwdown"])
def test_tarry_storms_cycle_the_coach_deck_through_its_trash_and_omens(mode):
    rng = random.Random(f"gattai/tarry/{mode}")
    reasons = collections.Counter()
    for _ in range(15):
        config = {**random_config(rng, mode, rng.randint(1, 4)), "crisis_tier": 5}
        game = play(rng, config, check_invariants, tarry=0.6)
        assert game.replayed_state() == game.state
        reasons.update(e.public["reason"] for e in game.events if e.kind == "DeckShuffled")
    assert reasons["trash_reshuffled"] > 0


# ----- hidden information -----------------------------------------------------------------------

def knowable(game: Game, seat: str | None) -> set[str]:
    """Card ids a viewer may know: any record's public part, and secrets whose audience it is in."""
    known: set[str] = set()
    for event in game.events:
        known |= set(CARD_ID.findall(json.dumps(event.public)))
        if seat is not None and event.audience is not None and seat in event.audience:
            known |= set(CARD_ID.findall(json.dumps(event.secret)))
    return known


def check_views(game: Game) -> None:
    """No view holds a card id its viewer could not know, nor another seat's hand or the deck order."""
    s = game.state
    finished = gc.outcome(s) is not None
    viewers = [Viewer("seat", seat) for seat in game.seats] + [Viewer("spectator")]
    for viewer in viewers:
        if finished:
            break
        v = gc.view(s, viewer)
        assert set(CARD_ID.findall(json.dumps(v))) <= knowable(game, viewer.seat)
        assert all("order" not in d for d in v["decks"].values())
        for seat, hand in v["hands"].items():
            assert hand["count"] == len(s["hands"][seat])
            assert (hand["cards"] is not None) == (seat == viewer.seat)
        for entry in v["sealed"]:
            if entry["reveal_version"] is None and entry["seat"] != viewer.seat:
                assert entry["card"] is None
    everything = gc.view(s, Viewer("organizer", sees_all=True))
    assert set(CARD_ID.findall(json.dumps(everything))) == gc.ALL_CARDS
    if finished:
        for viewer in viewers:
            after = gc.view(s, Viewer(viewer.role, viewer.seat, sees_all=True))
            assert set(CARD_ID.findall(json.dumps(after))) == gc.ALL_CARDS


@pytest.mark.parametrize("mode", ["gambit", "throwdown"])
def test_views_show_each_viewer_only_what_it_may_know(mode):
    rng = random.Random(f"gattai/views/{mode}")
    for match in range(12):
        play(rng, random_config(rng, mode, 1 + match % 4), lambda game: check_views(game))


def test_a_sealed_card_is_seen_only_by_its_seat_until_revealed():
    game = start(gc, {"mode": "gambit"})
    card = game.state["hands"]["coach"][0]
    game.act("coach", gc.PlayThreshold("hand", card))
    assert gc.view(game.state, Viewer("seat", "coach"))["sealed"][0]["card"] == card
    for viewer in (Viewer("seat", "p1"), Viewer("spectator")):
        v = gc.view(game.state, viewer)
        assert v["sealed"][0]["card"] is None and card not in json.dumps(v)
        assert v["sealed"][0]["version"] == game.events[-1].version
    game.act("p1", gc.PlayCard(game.state["hands"]["p1"][0]))
    assert gc.view(game.state, Viewer("spectator"))["sealed"][0]["card"] == card
