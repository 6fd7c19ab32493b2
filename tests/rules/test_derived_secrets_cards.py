"""gambit-tcg and gattai-conflict bind their dealt secrets to chance and re-adjudicate their calls.

Random playouts are replayed from the initial state the way the offline verifier does: before
each event, `derived_secret` must give exactly the recorded secret's keys it names, and every
record carrying a `bluff_call` must be the ruling `readjudicate` gives from the hidden state.
Then the dealer's forgeries — a dealt card swapped with a later draw, a flipped verdict — must be
caught at the forged version.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import json
import random

import pytest

from domain.ruleset import Event, copy_state
from domain.rulesets import gambit_tcg as tcg
from domain.rulesets import gattai_conflict as gattai
from domain.rulesets.gambit_tcg.cards import CARDS, MAX_COPIES
from tests.support.harness import Game, random_playout, start

# Events whose secret is, by design, none of the state's business (see each ruleset's hidden.py):
# DeckShuffled holds the chance result itself; a custom deck list and cards given away are choices.
FREE = {"gambit-tcg": {"DeckShuffled", "DeckRegistered"},
        "gattai-conflict": {"DeckShuffled", "CardsGiven", "CardsReturned"}}
BOUND = {"gambit-tcg": {"DeckRegistered", "CardsDrawn", "CardSet", "SetCardRevealed", "TrapActivated", "CardPlayed"},
         "gattai-conflict": {"CardsDrawn", "ThreatStackDealt", "ThreatStacksDrawn", "ThresholdSealed",
                             "InitiativeSealed"}}
THROWDOWN = {"mode": "throwdown", "pilots": {"p1": {}, "p2": {}, "p3": {"synch": 4, "solo": 3}}, "crisis_tier": 5,
             "threats": {"kaiju": 3, "drone": 2}, "threat_stacks": {"kaiju": 2, "drone": 1}, "commander": "p2"}
GAMBIT = {"mode": "gambit", "pilots": {"p1": {}, "p2": {}}, "crisis_tier": 5, "pilot": "p2", "specialty": True}


def _custom_deck(seed: int) -> list[str]:
    return random.Random(seed).sample([card for card in CARDS for _ in range(MAX_COPIES)], 30)


def _tarry_or_blind(command) -> bool:
    # Tarries mill the Coach Deck until its Trash is reshuffled; a blind Threshold takes its top.
    return getattr(command, "trigger", None) == "tarry" or getattr(command, "source", None) == "deck"


# (ruleset, config, seat options, preferred commands) for each playout family.
CASES = {
    "tcg-default": (tcg, {"turn_limit": 40}, None, None),
    "tcg-swapped": (tcg, {}, {"p1": {"deck": "dusk"}, "p2": {"deck": "dawn"}}, None),
    "tcg-custom": (tcg, {"turn_limit": 60}, {"p1": {"deck_list": _custom_deck(1)}, "p2": {"deck": "dawn"}}, None),
    "gattai-gambit": (gattai, GAMBIT, None, None),
    "gattai-throwdown": (gattai, THROWDOWN, None, None),
    "gattai-reshuffles": (gattai, THROWDOWN, None, _tarry_or_blind),
    "gattai-blind": (gattai, GAMBIT, None, _tarry_or_blind),
}
SEEDS = range(4)


@functools.cache
def played(case: str, seed: int) -> Game:
    """One finished random playout of a case (cached: several tests read the same games)."""
    ruleset, config, options, prefer = CASES[case]
    rng = random.Random(seed)
    if prefer is None:
        return random_playout(ruleset, config, rng, seat_options=options)
    game = start(ruleset, config, server_seed=rng.randbytes(32), seat_options=options)
    while ruleset.outcome(game.state) is None:
        seat = rng.choice(sorted(ruleset.to_act(game.state)))
        options_now = ruleset.legal_commands(game.state, seat)
        options_now += [choice.random_command(rng) for choice in ruleset.legal_choices(game.state, seat)]
        preferred = [c for c in options_now if prefer(c)]
        game.act(seat, rng.choice(preferred if preferred and rng.random() < 0.9 else options_now))
    return game


@dataclasses.dataclass
class Replay:
    """What replaying a record as the verifier does found."""

    failure: tuple[str, int] | None = None
    bound: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    unbound: set = dataclasses.field(default_factory=set)
    calls: int = 0
    bound_after_reshuffle: int = 0


def replay(game: Game, events: list[Event] | None = None) -> Replay:
    """Fold the events from the initial state, checking derived secrets and rulings before each one."""
    ruleset = game.ruleset
    state = ruleset.initial_state(game.config, list(game.seats))
    out = Replay()
    reshuffled = False
    for event in game.events if events is None else events:
        before = json.dumps(state, sort_keys=True)
        derived = ruleset.derived_secret(state, event)
        assert json.dumps(state, sort_keys=True) == before, f"derived_secret mutated the state at {event.kind}"
        if derived is not None:
            if json.loads(json.dumps(derived)) != {k: (event.secret or {}).get(k) for k in derived}:
                out.failure = ("dealt secrets", event.version)
                return out  # the verifier stops at the first finding, as nothing after it means anything
            out.bound[event.kind] += 1
            out.bound_after_reshuffle += reshuffled
        elif event.secret is not None:
            out.unbound.add(event.kind)
        call = event.public.get("bluff_call")
        if call is not None:
            expected = json.loads(json.dumps(ruleset.readjudicate(copy_state(state), event)))
            assert expected, "a ruling with nothing to compare"
            if any(call.get(k) != v for k, v in expected.items()):
                out.failure = ("verdicts", event.version)
                return out
            out.calls += 1
        reshuffled = reshuffled or event.public.get("reason") == "trash_reshuffled"
        state = ruleset.evolve(state, event)
    return out


def forged(event: Event, **changes) -> Event:
    """A copy of a recorded event with its secret or public part replaced (as a dealer re-commits it)."""
    return dataclasses.replace(event, **changes)


def deep(value):
    """An independent JSON copy."""
    return json.loads(json.dumps(value))


# ----- honest records ---------------------------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_every_derived_secret_and_every_ruling_of_an_honest_playout_agrees_with_the_record(case, seed):
    game = played(case, seed)
    result = replay(game)
    assert result.failure is None, result.failure
    assert sum(result.bound.values()) > 0, "no event of the playout was bound"
    assert result.unbound <= FREE[game.ruleset.RULESET_ID], result.unbound


@pytest.mark.parametrize("ruleset", [tcg, gattai])
def test_every_kind_of_bound_secret_and_of_call_occurs_in_the_playouts(ruleset):
    results = [replay(played(case, seed)) for case in sorted(CASES) for seed in SEEDS
               if CASES[case][0] is ruleset]
    kinds = set().union(*(r.bound for r in results))
    assert kinds == BOUND[ruleset.RULESET_ID], kinds
    assert sum(r.calls for r in results) >= len(SEEDS), "calls are rare enough to make the check vacuous"
    if ruleset is gattai:
        assert sum(r.bound_after_reshuffle for r in results) > 0, "no draw came off a reshuffled Trash"


def test_derived_secret_is_none_for_an_event_without_a_secret():
    game = played("tcg-default", 0)
    state = tcg.initial_state(game.config, list(game.seats))
    assert tcg.derived_secret(state, Event("TurnBegan", {"seat": "p1", "turn": 1})) is None
    assert gattai.derived_secret(gattai.initial_state(gattai.Config(), ["coach", "p1"]),
                                 Event("ConflictStarted", {"mode": "gambit", "harmony": 4})) is None


# ----- a dealer's forgeries ---------------------------------------------------------------------

def _swap_tcg_ids(game: Game) -> tuple[list[Event], int]:
    events = list(game.events)
    opening = next(i for i, e in enumerate(events) if e.kind == "CardsDrawn" and e.public["reason"] == "opening")
    seat = events[opening].public["seat"]
    dealt = events[opening].secret["ids"]
    later = next(i for i, e in enumerate(events) if i > opening and e.kind == "CardsDrawn"
                 and e.public["seat"] == seat and set(e.secret["ids"].values()) - set(dealt.values()))
    drawn = events[later].secret["ids"]
    a = next(iter(dealt))
    b = next(c for c in drawn if drawn[c] != dealt[a])
    dealt, drawn = deep(dealt), deep(drawn)
    dealt[a], drawn[b] = drawn[b], dealt[a]
    events[opening] = forged(events[opening], secret={"ids": dealt})
    events[later] = forged(events[later], secret={"ids": drawn})
    return events, events[opening].version


def _swap_gattai_cards(game: Game) -> tuple[list[Event], int]:
    events = list(game.events)
    deal = next(i for i, e in enumerate(events) if e.kind == "CardsDrawn" and e.public["why"] == "deal")
    deck = events[deal].public["deck"]
    later = next(i for i, e in enumerate(events) if i > deal and e.kind == "CardsDrawn" and e.public["why"] != "deal"
                 and e.public["deck"] == deck)
    dealt, drawn = deep(events[deal].secret["cards"]), deep(events[later].secret["cards"])
    dealt[0], drawn[0] = drawn[0], dealt[0]
    events[deal] = forged(events[deal], secret={"cards": dealt})
    events[later] = forged(events[later], secret={"cards": drawn})
    return events, events[deal].version


@pytest.mark.parametrize("case, swap", [("tcg-default", _swap_tcg_ids), ("gattai-throwdown", _swap_gattai_cards),
                                        ("gattai-gambit", _swap_gattai_cards)])
def test_a_dealt_card_swapped_with_a_later_draw_in_both_secrets_is_caught_at_the_deal(case, swap):
    game = played(case, 0)
    events, version = swap(game)
    assert replay(game, events).failure == ("dealt secrets", version)


def test_a_reordered_preconstructed_deck_list_is_caught_where_it_is_registered():
    game = played("tcg-default", 1)
    events = list(game.events)
    index = next(i for i, e in enumerate(events) if e.kind == "DeckRegistered")
    cards = deep(events[index].secret["cards"])
    other = next(i for i, c in enumerate(cards) if c != cards[0])
    cards[0], cards[other] = cards[other], cards[0]
    events[index] = forged(events[index], secret={**events[index].secret, "cards": cards})
    assert replay(game, events).failure == ("dealt secrets", events[index].version)


def test_a_set_card_committed_as_another_card_is_caught_at_the_set():
    game = played("tcg-default", 2)
    events = list(game.events)
    index = next(i for i, e in enumerate(events) if e.kind == "CardSet")
    secret = events[index].secret
    lie = next(c for c in CARDS if CARDS[c]["type"] != secret["type"])
    events[index] = forged(events[index], secret={**secret, "id": lie, "type": CARDS[lie]["type"]})
    assert replay(game, events).failure == ("dealt secrets", events[index].version)


def test_a_blind_threshold_that_is_not_the_deck_top_is_caught_at_the_sealing():
    game = next(g for g in (played("gattai-blind", seed) for seed in SEEDS)
                if any(e.kind == "ThresholdSealed" and e.public["source"] == "deck" for e in g.events))
    events = list(game.events)
    index = next(i for i, e in enumerate(events) if e.kind == "ThresholdSealed")
    dealt = next(e for e in events if e.kind == "CardsDrawn" and e.public["deck"] == "coach")
    events[index] = forged(events[index], secret={**events[index].secret, "card": dealt.secret["cards"][0]})
    assert replay(game, events).failure == ("dealt secrets", events[index].version)


def _flip(call: dict, ruleset_id: str) -> dict:
    """The call with its verdict flipped and, where the verdict carries one, its consequence too."""
    call = deep(call)
    call["verdict"] = "false" if call["verdict"] == "true" else "true"
    if ruleset_id == "gambit-tcg":
        call["consequences"]["life_gained"] = 1 if call["verdict"] == "true" else 0
    return call


def _forge_calls(game: Game, change) -> list[tuple[list[Event], int]]:
    out = []
    for index, event in enumerate(game.events):
        if "bluff_call" in event.public:
            events = list(game.events)
            public = {**deep(event.public), "bluff_call": change(event.public["bluff_call"])}
            events[index] = forged(event, public=public)
            out.append((events, event.version))
    return out


@pytest.mark.parametrize("case", ["tcg-default", "gattai-gambit", "gattai-throwdown"])
def test_a_flipped_verdict_is_not_the_ruling_the_rules_give(case):
    game = played(case, 0)
    forgeries = _forge_calls(game, lambda call: _flip(call, game.ruleset.RULESET_ID))
    assert forgeries, "the playout made no call"
    for events, version in forgeries:
        assert replay(game, events).failure == ("verdicts", version)


@pytest.mark.parametrize("case, key", [("tcg-default", "returned_to_hand"), ("gattai-gambit", "pilot_higher"),
                                       ("gattai-throwdown", "identical")])
def test_a_forged_consequence_is_not_the_ruling_the_rules_give(case, key):
    game = played(case, 0)

    def change(call: dict) -> dict:
        call = deep(call)
        call["consequences"][key] = not call["consequences"][key]
        return call
    for events, version in _forge_calls(game, change):
        assert replay(game, events).failure == ("verdicts", version)


def test_a_type_call_on_a_set_card_is_judged_on_what_the_card_is():
    game = played("tcg-default", 0)
    event = next(e for e in game.events if "bluff_call" in e.public)
    state = tcg.initial_state(game.config, list(game.seats))
    for earlier in game.events[:game.events.index(event)]:
        state = tcg.evolve(state, earlier)
    call = event.public["bluff_call"]
    for declared in ("unit", "spell", "trap", "item", "field"):
        ruling = tcg.readjudicate(copy_state(state), forged(event, public={**event.public, "bluff_call": {
            **call, "declared_type": declared}}))
        right = declared == CARDS[state["cards"][call["card"]]]["type"]
        assert ruling["verdict"] == ("true" if right else "false")
        assert ruling["consequences"]["life_gained"] == (1 if right else 0)
