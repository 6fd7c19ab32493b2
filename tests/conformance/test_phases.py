"""Every game's phases own its commands (`PHASES` in commands.py), and its rules keep to the declaration.

The declaration names every value the state's `phase` takes (the `phase` Literal of the state type in
shapes.py) and puts every command class in some phase. Random playouts of every game in the registry
(its defaults, the hardening playouts' config and the legal-moves kit's configs) then hold it to the
rules at every step, from the state before the deal to the end: every command a seat may send
(listed, or formed from a choice) is of a type the current phase owns, and a command of a type the
phase does not own — taken from those seen legal at other steps and in other phases — is refused by
`decide` with a RuleViolation.
"""

from __future__ import annotations

import copy
import json
import random
import types
import typing
from dataclasses import dataclass
from functools import cache
from typing import Any

import pytest

from domain import rulesets
from domain.chance import Chance
from domain.choices import Choice, random_legal_command
from domain.ruleset import Command, Phases, RuleViolation, config_from_dict
from tests.conformance.test_legal_moves import ENDERS, KITS
from tests.hardening.play import config_for, join_options
from tests.support.harness import SEED, start

RULESET_IDS = rulesets.available()
SEEDS = 4
# Instances kept per command type to try against the phases that do not own it.
KEPT_PER_TYPE = 4
MAX_STEPS = 5000


def literal_values(hint: Any) -> list[str]:
    """The strings a Literal (or a union of Literals, nested or not) admits, in order."""
    if typing.get_origin(hint) in (typing.Literal, typing.Union) or isinstance(hint, types.UnionType):
        return [value for arg in typing.get_args(hint) for value in literal_values(arg)]
    return [hint] if isinstance(hint, str) else []


def state_phases(ruleset_id: str) -> list[str]:
    """The values of `phase` the game's state type (what initial_state returns) declares."""
    state_type = typing.get_type_hints(rulesets.get(ruleset_id).initial_state)["return"]
    return literal_values(typing.get_type_hints(state_type)["phase"])


@dataclass
class Position:
    """A state reached by random play (deep-copied), with every seat's legal commands and choices there."""

    config: str
    step: int
    state: dict
    legal: dict[str, list[Command | Choice]]


def _configs(ruleset_id: str) -> list[tuple[dict | None, dict | None]]:
    """(config, seat options per seat or None) for the playouts: defaults, hardening's, the kit's."""
    kit = KITS.get(ruleset_id)
    out: list[tuple[dict | None, dict | None]] = [(None, None), (config_for(ruleset_id), None)]
    out += [(config, kit.seat_options) for config in (kit.configs if kit else ())]
    unique: dict[str, tuple[dict | None, dict | None]] = {}
    for config, options in out:
        unique.setdefault(json.dumps([config or {}, options], sort_keys=True), (config, options))
    return list(unique.values())


def _position(ruleset: Any, label: str, step: int, state: dict, seats: list[str]) -> Position:
    legal = {seat: [*ruleset.legal_commands(state, seat), *ruleset.legal_choices(state, seat)] for seat in seats}
    return Position(label, step, copy.deepcopy(state), legal)


@cache
def positions(ruleset_id: str) -> tuple[Position, ...]:
    """Every step of the playouts: the state before the deal, each state a seat acts in, and each end."""
    ruleset = rulesets.get(ruleset_id)
    found: list[Position] = []
    enders_rate = KITS[ruleset_id].enders_rate if ruleset_id in KITS else 0.02
    for config, options in _configs(ruleset_id):
        label = json.dumps(config or {}, sort_keys=True)
        for seed in range(SEEDS):
            rng = random.Random(f"phases/{ruleset_id}/{label}/{seed}")
            seats = ruleset.seat_names(config_from_dict(ruleset.Config, config))
            seat_options = options if options is not None else join_options(ruleset_id, seats, rng)
            before = ruleset.initial_state(config_from_dict(ruleset.Config, config), list(seats))
            found.append(_position(ruleset, label, -1, before, seats))
            game = start(ruleset, config, server_seed=rng.randbytes(32), seat_options=seat_options)
            for step in range(MAX_STEPS):
                found.append(_position(ruleset, label, step, game.state, seats))
                if ruleset.outcome(game.state) is not None:
                    break
                # Now and then a seat that may act at will does; commands that end the game at once are
                # rare (as in the legal-moves kit), so games run long enough to reach every phase.
                optional = ruleset.may_act(game.state)
                seat = rng.choice(sorted(optional if optional and rng.random() < 0.2 else ruleset.to_act(game.state)))
                prefer = None if rng.random() < enders_rate else (lambda kind: kind not in ENDERS)
                command = random_legal_command(ruleset, game.state, seat, rng, prefer)
                if prefer is not None and command.type in ENDERS:  # a seat whose one option at will ends it
                    seat = rng.choice(sorted(ruleset.to_act(game.state)))
                    command = random_legal_command(ruleset, game.state, seat, rng, prefer)
                game.act(seat, command)
            else:
                raise AssertionError(f"{ruleset_id} {label}: no outcome after {MAX_STEPS} steps")
    return tuple(found)


def _members(option: Command | Choice, rng: random.Random) -> list[Command]:
    return [option.random_command(rng) for _ in range(2)] if isinstance(option, Choice) else [option]


@cache
def pool(ruleset_id: str) -> dict[type[Command], tuple[Command, ...]]:
    """Command instances seen legal somewhere in the playouts, a few per command class (from different phases first)."""
    rng = random.Random(f"phases-pool/{ruleset_id}")
    kept: dict[type[Command], dict[str, Command]] = {}
    for position in positions(ruleset_id):
        for options in position.legal.values():
            for option in options:
                for command in _members(option, rng):
                    mine = kept.setdefault(type(command), {})
                    if len(mine) < KEPT_PER_TYPE:
                        mine.setdefault(json.dumps(command.body(), sort_keys=True), command)
    return {cls: tuple(found.values()) for cls, found in kept.items()}


def _chance(seats: int) -> Chance:
    """A fresh chance source (a decision draws each purpose once)."""
    return Chance(SEED, "phases", [""] * seats, scope="v1", version=1)


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_every_phase_the_state_declares_is_declared_with_its_commands(ruleset_id):
    ruleset = rulesets.get(ruleset_id)
    assert isinstance(ruleset.PHASES, Phases), f"{ruleset_id}.PHASES is not a domain.ruleset.Phases"
    declared = state_phases(ruleset_id)
    assert declared, f"{ruleset_id}: the state type declares no `phase` Literal"
    assert sorted(ruleset.PHASES) == sorted(declared), (
        f"{ruleset_id}: PHASES declares {sorted(ruleset.PHASES)}, the state's phase takes {sorted(declared)}")


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_every_command_belongs_to_some_phase_and_every_phase_names_only_the_games_commands(ruleset_id):
    ruleset = rulesets.get(ruleset_id)
    owned = set(ruleset.PHASES.commands())
    assert owned == set(ruleset.COMMANDS), (
        f"{ruleset_id}: in no phase: {sorted(c.type for c in set(ruleset.COMMANDS) - owned)}; "
        f"not a command of the game: {sorted(c.type for c in owned - set(ruleset.COMMANDS))}")


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_every_legal_command_and_choice_is_of_a_type_its_phase_owns(ruleset_id):
    ruleset = rulesets.get(ruleset_id)
    wrong: list[str] = []
    for position in positions(ruleset_id):
        phase = position.state["phase"]
        assert phase in ruleset.PHASES, f"{ruleset_id} reached the undeclared phase {phase!r}"
        for seat, options in position.legal.items():
            wrong += [f"{position.config} step {position.step}: {seat} may send `{option.type}` in {phase}"
                      for option in options if not ruleset.PHASES.admits(phase, option.command
                                                                        if isinstance(option, Choice) else option)]
    assert not wrong, "\n".join(sorted(set(wrong))[:20])


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_a_command_its_phase_does_not_own_is_refused_by_decide(ruleset_id):
    ruleset = rulesets.get(ruleset_id)
    instances = pool(ruleset_id)
    accepted: list[str] = []
    tried = 0
    for index, position in enumerate(positions(ruleset_id)):
        phase = position.state["phase"]
        before = json.dumps(position.state, sort_keys=True)
        for cls, commands in instances.items():
            if ruleset.PHASES.admits(phase, cls):
                continue
            # One of the kept instances per position, in turn, so each is tried across the game.
            command = commands[index % len(commands)]
            for seat in position.legal:
                tried += 1
                try:
                    ruleset.decide(position.state, seat, command, _chance(len(position.legal)))
                except RuleViolation:
                    continue
                accepted.append(f"{position.config} step {position.step}: {seat} {command.body()} in {phase}")
        assert json.dumps(position.state, sort_keys=True) == before, "decide changed the state it refused"
    assert tried > 0 or len(set(ruleset.COMMANDS)) == 1
    assert not accepted, "decided though its phase does not own it:\n" + "\n".join(sorted(set(accepted))[:20])
