"""gattai-conflict's config through the service: the page's threats list is taken, and the summary
echoes every sheet with its defaults filled in."""

from __future__ import annotations

import pytest

from tests.support.api import auth, create_match, join_all

DEFAULT_SHEET = {"steel": 2, "flesh": 2, "synch": 2, "solo": 2, "charges_max": 3, "buffers": 1, "charges": 0}


def test_threats_in_the_pages_form_are_taken_and_the_summary_echoes_every_sheet_with_its_defaults(client):
    config = {"mode": "throwdown", "pilots": {"p1": {"steel": 4}, "p2": {}},
              "threats": [{"name": "kaiju", "rating": 3}, {"name": "drone", "rating": 2}]}
    match = create_match(client, "gattai-conflict", config)
    echoed = match["config"]
    assert echoed["threats"] == [{"name": "kaiju", "rating": 3}, {"name": "drone", "rating": 2}]
    assert echoed["pilots"] == {"p1": {**DEFAULT_SHEET, "steel": 4}, "p2": DEFAULT_SHEET}
    mid = match["match_id"]
    assert client.get(f"/matches/{mid}").get_json()["config"] == echoed
    tokens = join_all(client, match)
    state = client.get(f"/matches/{mid}/view", headers=auth(tokens["p1"])).get_json()["state"]
    # The Coach's Strike: the highest rating, +1 for the other threat; hers is her Steel.
    assert state["threats"] == {"kaiju": 3, "drone": 2}
    assert state["throwdown"]["strikes"] == {"pilots": 4, "coach": 4}


def test_a_threat_without_a_rating_takes_the_default_and_the_defaults_are_echoed_in_full(client):
    match = create_match(client, "gattai-conflict", {"mode": "throwdown", "threats": [{"name": "kaiju"}]})
    assert match["config"]["threats"] == [{"name": "kaiju", "rating": 3}]
    assert match["config"]["pilots"] == {"p1": DEFAULT_SHEET}
    catalogue = client.get("/rulesets/gattai-conflict").get_json()
    assert catalogue["default_config"]["threats"] == [{"name": "threat", "rating": 3}]
    assert catalogue["default_config"]["pilots"] == {"p1": DEFAULT_SHEET}


@pytest.mark.parametrize("threats", [
    [], "kaiju", [{"name": "kaiju", "rating": 0}], [{"name": "kaiju", "rating": "3"}], [{"rating": 3}],
    [{"name": "kaiju", "rating": 3, "power": 1}], [{"name": "kaiju"}, {"name": "kaiju"}],
])
def test_threats_outside_the_rules_are_refused_with_422(client, threats):
    response = client.post("/matches", json={"ruleset": "gattai-conflict",
                                             "config": {"mode": "throwdown", "threats": threats}})
    assert response.status_code == 422
    body = response.get_json()
    assert body["code"] == "invalid_config" and body["field"] == "threats"
