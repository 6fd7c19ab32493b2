"""docs/adding-a-game.md holds: a sixth game, declared in its own package, is picked up everywhere.

The toy game (tests/support/toy_game, the guide's worked example) is registered here, in these
tests only, and nothing else is edited: the layout checks, the conformance kit's playouts, the
declared-types and phase checks, the spec generator, an HTTP match that the verifier confirms, the leak hunt
and the rules fuzzer all take it from the registry and pass with it (the viewer's generic board
draws it: tests/browser/test_generic_board.py). tests/conformance/test_every_game_is_checked.py
holds the other half: every test that plays every game is parametrized over the registry.
"""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest
import yaml
from openapi_spec_validator import validate as validate_spec

from domain import rulesets
from service.spec import SPEC_PATH, generated_schemas, render
from service.verify_cli import EXIT_VERIFIED, run_verify
from tests.conformance import test_declared_types, test_every_ruleset, test_giving_up, test_layout, test_phases
from tests.hardening import test_leak_hunt, test_rules_fuzzing
from tests.support import toy_game

TOY = toy_game.RULESET_ID
ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "adding-a-game.md"


@pytest.fixture
def toy(monkeypatch):
    """The registry with the toy game added after the five real ones (nothing else changes)."""
    monkeypatch.setattr(rulesets, "RULESETS", {**rulesets.RULESETS, TOY: toy_game})
    return toy_game


def test_the_toy_is_laid_out_as_every_game_is(toy):
    test_layout.test_every_game_is_a_package_with_one_file_per_role(TOY)
    test_layout.test_every_contract_member_is_defined_in_the_file_of_its_role(TOY)


def test_the_conformance_kit_plays_the_toy_and_it_passes(toy):
    test_every_ruleset.test_the_ruleset_implements_the_whole_contract(TOY)
    test_every_ruleset.test_replaying_the_recorded_events_rebuilds_the_same_state(TOY)
    test_every_ruleset.test_every_listed_command_is_accepted_and_deciding_changes_nothing(TOY)
    test_every_ruleset.test_to_act_names_who_the_match_waits_for_and_may_act_who_may_act_at_will(TOY)


def test_the_toy_lets_a_seat_give_up_as_the_kit_requires(toy):
    test_giving_up.test_a_seat_that_may_give_up_always_has_resign_listed_and_no_other_seat_has(TOY)
    test_giving_up.test_a_seat_that_could_not_act_is_refused_a_resignation(TOY)
    test_giving_up.test_a_resignation_ends_the_match_as_a_resignation_the_resigning_seat_not_among_the_winners(TOY)
    test_giving_up.test_nobody_may_resign_once_the_match_is_over(TOY)


def test_the_toy_records_and_shows_exactly_what_it_declares(toy):
    test_declared_types.test_every_recorded_event_has_exactly_its_declared_parts(TOY)
    test_declared_types.test_a_time_out_records_declared_events(TOY)
    test_declared_types.test_every_declared_event_kind_is_folded_or_declared_unchanged(TOY)
    test_declared_types.test_a_record_parses_into_its_payload_type_and_back_unchanged(TOY)
    test_declared_types.test_every_view_fits_the_type_declared_for_its_viewer(TOY)
    test_declared_types.test_the_catalogue_fits_the_type_declared_for_it(TOY)


def test_the_toys_phases_own_its_commands_and_its_rules_keep_to_them(toy):
    test_phases.test_every_phase_the_state_declares_is_declared_with_its_commands(TOY)
    test_phases.test_every_command_belongs_to_some_phase_and_every_phase_names_only_the_games_commands(TOY)
    test_phases.test_every_legal_command_and_choice_is_of_a_type_its_phase_owns(TOY)
    test_phases.test_a_command_its_phase_does_not_own_is_refused_by_decide(TOY)


def test_the_spec_generator_writes_the_toys_config_commands_events_and_views(toy):
    schemas = generated_schemas()
    assert {"ToyGameConfig", "ToyGameCommand", "cmd.toy-game.hold", "cmd.toy-game.swap", "ToyGameEvent",
            "evt.toy-game.CardDealt", "ToyGameSeatView", "ToyGameSpectatorView"} <= set(schemas)
    assert {"$ref": "#/components/schemas/ToyGameCommand"} in schemas["Command"]["anyOf"]
    assert {"$ref": "#/components/schemas/ToyGameConfig"} in schemas["CreateMatch"]["properties"]["config"]["anyOf"]
    # A spectator's view type has no room for a seat's card: the contract documents what it never sees.
    assert "card" not in schemas["ToyGameSpectatorView"]["properties"]
    assert schemas["evt.toy-game.CardDealt"]["properties"]["secret"]["required"] == ["card"]
    validate_spec(yaml.safe_load(render(SPEC_PATH.read_text(encoding="utf-8"))))


def test_a_toy_match_played_over_http_verifies(toy, client, tmp_path):
    tournament = client.post("/tournaments", json={"name": "Toy Cup"}).get_json()
    key = client.get("/.well-known/gambit-signing-key").get_json()["public_key"]
    played = test_every_ruleset._play_over_http(client, tournament["organizer_key"], tournament["tournament_id"], TOY,
                                                random.Random("toy"))
    listing = client.get("/rulesets").get_json()["rulesets"]
    assert {"ruleset": TOY, "seats": ["p1", "p2"], "events": toy_game.EVENTS.kinds()}.items() <= next(
        entry for entry in listing if entry["ruleset"] == TOY).items()
    export = client.get(f"/matches/{played['match_id']}/export").get_data(as_text=True)
    path = tmp_path / "toy.ndjson"
    path.write_text(export)
    out = io.StringIO()
    assert run_verify(str(path), [key], as_json=False, out=out, err=io.StringIO()) == EXIT_VERIFIED, out.getvalue()


def test_the_leak_hunt_hunts_through_a_toy_match(toy, client, app, record_property):
    test_leak_hunt.test_no_viewer_receives_an_unrevealed_secret_on_any_endpoint(client, app, TOY, record_property)


def test_the_rules_fuzzer_fuzzes_a_toy_match(toy, client, app):
    test_rules_fuzzing.test_random_commands_from_every_seat_get_201_or_a_problem_and_rejections_change_nothing(
        client, app, TOY)


def test_the_guide_names_every_file_and_step_a_new_game_needs():
    guide = GUIDE.read_text(encoding="utf-8")
    for role in test_layout.ROLES:
        assert f"`{role}.py`" in guide, f"the guide does not say what {role}.py holds"
    for step in ("EVENTS", "FOLDS", "VIEWS", "COMMANDS", "Config", "domain/rulesets/__init__.py", "make spec",
                 "docs/config.md", "tests/support/toy_game", "docs/rules/"):
        assert step in guide, f"the guide does not mention {step}"
