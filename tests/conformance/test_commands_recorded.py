"""The conformance kit's rules for recorded commands: `decide` is deterministic, and every ruleset declares
exactly which command types hold a secret (`SECRET_COMMANDS`), since the match records those bodies as a
committed secret for the seat and every other body in public (docs/verification.md, section 2).

The verifier re-decides every recorded command (domain/redecide.py): a `decide` that gave other events
for the same state, command and chance would fail honest matches, and a secret body recorded in public
would leak what the game hides.
"""

from __future__ import annotations

import json
import random
from dataclasses import fields

import pytest

from domain import rulesets
from domain.chance import Chance
from domain.choices import random_legal_command
from domain.ruleset import Event
from tests.conformance.test_every_ruleset import _domain_options
from tests.support.harness import random_playout, start

RULESET_IDS = rulesets.available()
# Playouts per ruleset: enough that every kind of command a game's random play reaches is seen several times.
PLAYOUTS = 6


def _as_json(events: list[Event]) -> str:
    return json.dumps(
        [[e.kind, e.public, e.secret, e.audience, list(e.opens), list(e.evidence)] for e in events], sort_keys=True
    )


def _strings(value) -> set[str]:
    """Every string leaf of a JSON value."""
    if isinstance(value, dict):
        return set().union(*map(_strings, value.values())) if value else set()
    if isinstance(value, (list, tuple)):
        return set().union(*map(_strings, value)) if value else set()
    return {value} if isinstance(value, str) else set()


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_deciding_twice_on_the_same_state_command_and_chance_gives_the_same_events(ruleset_id):
    ruleset = rulesets.get(ruleset_id)
    rng = random.Random(f"deterministic/{ruleset_id}")
    decided = 0

    def check(game) -> None:
        nonlocal decided
        if ruleset.outcome(game.state) is not None:
            return
        for seat in game.seats:
            listed = ruleset.legal_commands(game.state, seat)
            for command in rng.sample(listed, min(len(listed), 2)):
                first = ruleset.decide(game.state, seat, command, game.chance())
                again = ruleset.decide(game.state, seat, command, game.chance())
                assert _as_json(first) == _as_json(again), f"{command.type} decided twice gives other events"
                decided += 1

    for seed in range(2):
        random_playout(ruleset, None, rng, check=check, seat_options=_domain_options(ruleset_id, seed))
    assert decided > 0


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_setting_up_twice_with_the_same_join_options_and_chance_gives_the_same_events(ruleset_id):
    # The verifier sets a match up again from the join options its joins record (docs/verification.md, 8.8).
    ruleset = rulesets.get(ruleset_id)
    config = ruleset.Config()
    seats = list(ruleset.seat_names(config))
    for seed in range(3):
        given = _domain_options(ruleset_id, seed) or {}
        options = {seat: ruleset.join_options(config, seat, given.get(seat, {})) for seat in seats}
        server_seed = random.Random(f"setup/{ruleset_id}/{seed}").randbytes(32)
        first, again = (
            ruleset.setup(config, list(seats), _setup_chance(server_seed, seats), json.loads(json.dumps(options)))
            for _ in range(2)
        )
        assert first, f"{ruleset_id} sets a match up with no event"
        assert _as_json(first) == _as_json(again)


def _setup_chance(server_seed: bytes, seats: list[str]) -> Chance:
    """The chance of a setup's write, as a match of these seats draws it (after MatchCreated and every join)."""
    return Chance(server_seed, "m", [], scope=f"v{len(seats) + 2}", version=len(seats) + 2)


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_every_declared_secret_command_is_a_command_with_fields_and_the_game_has_hidden_event_fields(ruleset_id):
    ruleset = rulesets.get(ruleset_id)
    by_type = {cls.type: cls for cls in ruleset.COMMANDS}
    assert isinstance(ruleset.SECRET_COMMANDS, frozenset)
    for command_type in ruleset.SECRET_COMMANDS:
        assert command_type in by_type, f"{command_type} is declared secret but is no command of {ruleset_id}"
        assert fields(by_type[command_type]), f"{command_type} has no field, so its body can hold no secret"
    if ruleset.SECRET_COMMANDS:
        hidden = [cls for cls in ruleset.EVENTS if ruleset.EVENTS.schemas(cls)[1] is not None]
        assert hidden, f"{ruleset_id} declares secret commands but no event of it has a secret part"


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_a_command_whose_events_hide_a_seats_choice_is_declared_secret(ruleset_id):
    # A seat's choice hidden in an event (a secret part the rules do not derive from chance and the state),
    # or a body value that the events hold only in a secret, makes the body a secret: the command's type
    # must be declared, or its record would show in public what the events hide.
    ruleset = rulesets.get(ruleset_id)
    undeclared: dict[str, str] = {}

    def decided_with_hidden_choice(state, seat, command, chance) -> bool:
        events = ruleset.decide(state, seat, command, chance)
        in_public: set[str] = set()
        in_secret: set[str] = set()
        choice = False
        replayed = json.loads(json.dumps(state))
        for event in events:
            in_public |= _strings(event.public)
            if event.secret is not None and event.audience != tuple(state_seats):
                in_secret |= _strings(event.secret)
                derived = ruleset.derived_secret(replayed, event) or {}
                choice = choice or bool(set(event.secret) - {"chance_result"} - set(derived))
            replayed = ruleset.evolve(replayed, event)
        body = _strings({k: v for k, v in command.body().items() if k != "type"})
        return choice or bool((body & in_secret) - in_public)

    state_seats: list[str] = []
    for game, seat, command in _random_steps(ruleset_id, "secret-commands"):
        state_seats[:] = game.seats
        hides = decided_with_hidden_choice(game.state, seat, command, game.chance())
        if hides and command.type not in ruleset.SECRET_COMMANDS:
            undeclared.setdefault(command.type, json.dumps(command.body()))
    assert not undeclared, f"{ruleset_id}: commands hide a seat's choice but are not in SECRET_COMMANDS: {undeclared}"


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_a_secret_type_command_whose_events_hide_nothing_says_nothing_its_public_events_do_not(ruleset_id):
    # Such a body is recorded in public at once (docs/verification.md, section 2): a body that hides
    # nothing the events keep secret must say nothing beyond what its events show everyone.
    ruleset = rulesets.get(ruleset_id)
    unshown: dict[str, str] = {}
    for game, seat, command in _random_steps(ruleset_id, "public-secret-commands"):
        if command.type in ruleset.SECRET_COMMANDS:
            events = ruleset.decide(game.state, seat, command, game.chance())
            if all(event.secret is None for event in events):
                shown = set().union(*(_strings(event.public) for event in events))
                said = _strings({k: v for k, v in command.body().items() if k != "type"})
                if said - shown:
                    unshown.setdefault(command.type, json.dumps(command.body()))
    assert not unshown, f"{ruleset_id}: bodies recorded in public would say what no event shows: {unshown}"


def _random_steps(ruleset_id: str, label: str):
    """Random playouts of a game: (the game, a seat, a legal command of it) before each move, which is then made."""
    ruleset = rulesets.get(ruleset_id)
    for seed in range(PLAYOUTS):
        rng = random.Random(f"{label}/{ruleset_id}/{seed}")
        game = start(ruleset, None, server_seed=rng.randbytes(32), seat_options=_domain_options(ruleset_id, seed))
        for _ in range(5000):
            if ruleset.outcome(game.state) is not None:
                break
            acting, optional = ruleset.to_act(game.state), ruleset.may_act(game.state)
            seat = rng.choice(sorted(optional if optional and rng.random() < 0.2 else acting))
            command = random_legal_command(ruleset, game.state, seat, rng)
            yield game, seat, command
            game.act(seat, command)
