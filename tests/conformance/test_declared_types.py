"""Every game declares its events, views and catalogue once, and what it records and shows is exactly that.

The declarations (`EVENTS` in events.py, the folds in state.py, `VIEWS` and `CATALOGUE` in view.py) are what mypy
checks `evolve` against and what the spec's event and view schemas are generated from. These
tests hold the other side: every event `setup`, `decide` and `time_out` emit in random playouts
has exactly the declared public and secret parts, with the declared types; every declared kind
is folded or declared unchanged; and every view, for every kind of viewer at every step, fits
the type declared for that viewer, and the catalogue fits its declared type — so a key added to an
event, a view or the catalogue without its declaration fails here, in every game of the registry.
"""

from __future__ import annotations

import random
import typing
from functools import cache

import pytest
from jsonschema import Draft202012Validator

from domain import rulesets
from domain.event_types import EventTypes, Folds
from domain.json_types import schema_of
from domain.ruleset import ORGANIZER, SPECTATOR, Event, Viewer
from tests.hardening.play import config_for, join_options
from tests.support.harness import random_playout

RULESET_IDS = rulesets.available()
PLAYOUTS = 3


@cache
def _validator(schema_key: tuple) -> Draft202012Validator:
    ruleset_id, kind, part = schema_key
    events: EventTypes = rulesets.get(ruleset_id).EVENTS
    public, secret = events.schemas(events.by_kind[kind])
    return Draft202012Validator(public if part == "public" else (secret or {"type": "null"}))


def _part_errors(ruleset_id: str, event: Event) -> list[str]:
    events: EventTypes = rulesets.get(ruleset_id).EVENTS
    if event.kind not in events.by_kind:
        return [f"{event.kind} is not declared in {ruleset_id}'s EVENTS"]
    problems = []
    for part, value in (("public", event.public), ("secret", event.secret)):
        for error in _validator((ruleset_id, event.kind, part)).iter_errors(value):
            problems.append(f"{event.kind}.{part}: {error.message} at {list(error.absolute_path)}")
    return problems


def _playouts(ruleset_id: str):
    ruleset = rulesets.get(ruleset_id)
    for seed in range(PLAYOUTS):
        rng = random.Random(f"declared/{ruleset_id}/{seed}")
        seats = ruleset.seat_names(ruleset.Config())
        yield random_playout(ruleset, config_for(ruleset_id), rng, seat_options=join_options(ruleset_id, seats, rng))


def _viewers(seats: list[str], over: bool) -> list[Viewer]:
    viewers = [Viewer("seat", seat, sees_all=over) for seat in seats]
    return viewers + [Viewer(SPECTATOR, sees_all=over), Viewer(ORGANIZER, sees_all=True)]


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_every_recorded_event_has_exactly_its_declared_parts(ruleset_id):
    ruleset = rulesets.get(ruleset_id)
    problems: list[str] = []
    kinds = set()
    for game in _playouts(ruleset_id):
        for event in game.events:
            kinds.add(event.kind)
            problems += _part_errors(ruleset_id, event)
    assert not problems, "\n".join(sorted(set(problems))[:20])
    assert kinds <= set(ruleset.EVENTS.kinds())


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_a_time_out_records_declared_events(ruleset_id):
    ruleset = rulesets.get(ruleset_id)
    problems: list[str] = []
    for game in _playouts(ruleset_id):
        # Replay to a midpoint and time out each seat the game waits for there.
        state = ruleset.initial_state(game.config, list(game.seats))
        for event in game.events[: len(game.events) // 2]:
            state = ruleset.evolve(state, event)
        for seat in ruleset.to_act(state):
            for event in ruleset.time_out(state, seat, game.chance()):
                problems += _part_errors(ruleset_id, event)
    assert not problems, "\n".join(sorted(set(problems))[:20])


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_every_declared_event_kind_is_folded_or_declared_unchanged(ruleset_id):
    ruleset = rulesets.get(ruleset_id)
    folds = ruleset.FOLDS
    assert isinstance(folds, Folds) and folds.events is ruleset.EVENTS
    assert folds.unaccounted() == []


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_a_record_parses_into_its_payload_type_and_back_unchanged(ruleset_id):
    ruleset = rulesets.get(ruleset_id)
    for game in _playouts(ruleset_id):
        for event in game.events:
            payload = ruleset.EVENTS.parse(event)
            public, secret = payload.parts()
            assert public == {k: v for k, v in event.public.items()}, event.kind
            assert secret == event.secret or (secret == {} and event.secret is None) or (
                secret is None and not event.secret), event.kind


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_every_view_fits_the_type_declared_for_its_viewer(ruleset_id):
    ruleset = rulesets.get(ruleset_id)
    validators = {name: Draft202012Validator(schema_of(cls)) for name, cls in ruleset.VIEWS.by_audience().items()}
    problems: list[str] = []
    checked = 0
    for game in _playouts(ruleset_id):
        state = ruleset.initial_state(game.config, list(game.seats))
        for event in game.events:
            state = ruleset.evolve(state, event)
            over = ruleset.outcome(state) is not None
            for viewer in _viewers(game.seats, over):
                declared = ruleset.VIEWS.for_viewer(viewer)
                name = next(n for n, cls in ruleset.VIEWS.by_audience().items() if cls is declared)
                for error in validators[name].iter_errors(ruleset.view(state, viewer)):
                    problems.append(f"{name} view: {error.message} at {list(error.absolute_path)}")
                checked += 1
    assert checked > 0
    assert not problems, "\n".join(sorted(set(problems))[:20])


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_the_catalogue_fits_the_type_declared_for_it(ruleset_id):
    ruleset = rulesets.get(ruleset_id)
    catalogue = ruleset.catalogue()
    if ruleset.CATALOGUE is None:
        assert catalogue is None, f"{ruleset_id} serves a catalogue but declares no CATALOGUE type"
        return
    assert typing.is_typeddict(ruleset.CATALOGUE), f"{ruleset_id}.CATALOGUE is not a TypedDict"
    problems = [f"{error.message} at {list(error.absolute_path)}"
                for error in Draft202012Validator(schema_of(ruleset.CATALOGUE)).iter_errors(catalogue)]
    assert not problems, "\n".join(problems[:20])
