"""The match options every ruleset takes (`spectator_delay`, `time_control`): validated, echoed and
stored in the first record, and never handed to the ruleset's own config."""

from __future__ import annotations

import pytest

from domain import rulesets
from tests.support.api import create_match


@pytest.mark.parametrize("ruleset", rulesets.available())
def test_a_match_created_without_options_echoes_only_the_rulesets_config(client, ruleset):
    match = create_match(client, ruleset)
    default = client.get(f"/rulesets/{ruleset}").get_json()["default_config"]
    assert match["config"] == default
    assert "spectator_delay" not in match["config"] and "time_control" not in match["config"]


@pytest.mark.parametrize("ruleset", rulesets.available())
def test_every_ruleset_takes_and_echoes_the_match_options(client, ruleset):
    options = {"spectator_delay": 2, "time_control": {"kind": "per_decision", "per_decision_s": 45}}
    match = create_match(client, ruleset, options)
    assert match["config"]["spectator_delay"] == 2
    assert match["config"]["time_control"] == {"kind": "per_decision", "per_decision_s": 45}


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ({"initial_s": 300, "increment_s": 5}, {"kind": "fischer", "initial_s": 300, "increment_s": 5}),
        ({"kind": "fischer", "initial_s": 90}, {"kind": "fischer", "initial_s": 90, "increment_s": 0}),
        ({"per_decision_s": 30}, {"kind": "per_decision", "per_decision_s": 30}),
        ({"kind": "none"}, None),
        (None, None),
    ],
)
def test_a_time_control_is_taken_in_any_of_its_forms_and_stored_in_full(client, given, stored):
    match = create_match(client, "gambitz", {"time_control": given, "spectator_delay": 3})
    assert match["config"].get("time_control") == stored
    assert match["config"]["spectator_delay"] == 3
    first = client.get(f"/matches/{match['match_id']}/events?limit=1").get_json()["events"][0]
    assert first["kind"] == "MatchCreated"
    assert first["public"]["config"].get("time_control") == stored


@pytest.mark.parametrize(
    "config",
    [
        {"spectator_delay": -1},
        {"spectator_delay": "3"},
        {"spectator_delay": True},
        {"spectator_delay": 10_001},
        {"time_control": "blitz"},
        {"time_control": {"kind": "hourglass"}},
        {"time_control": {"kind": "fischer"}},
        {"time_control": {"initial_s": 0}},
        {"time_control": {"initial_s": 60, "increment_s": -1}},
        {"time_control": {"per_decision_s": 700_000}},
        {"time_control": {"per_decision_s": 30, "initial_s": 60}},
        {"time_control": {"kind": "none", "initial_s": 60}},
    ],
)
def test_a_bad_match_option_is_refused_with_its_field_and_creates_nothing(client, config):
    before = client.get("/matches").get_json()["matches"]
    response = client.post("/matches", json={"ruleset": "gambit-board", "config": config})
    assert response.status_code == 422
    problem = response.get_json()
    assert problem["code"] == "invalid_config"
    assert problem["field"] == next(iter(config))
    assert client.get("/matches").get_json()["matches"] == before
