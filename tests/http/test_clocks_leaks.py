"""The clock leaks nothing: its resource, its fields in the summary and view, its adjustments and the refusals.

A timed three-seat gambitz match in a tournament (hands are secret), played a little, paused,
given time and resumed: every clock response, for every viewer, holds no salt of a record outside
the viewer's audience, no server seed and no card another seat holds.
"""

from __future__ import annotations

import random

import pytest

from tests.support.api import auth, going_on, legal_options
from tests.support.clocks import fake_time_source, fischer, timed_match, tournament
from tests.support.leaks import endpoint_bodies, hidden_from


@pytest.fixture
def now():
    """The fake time every record and deadline check of the test reads."""
    with fake_time_source() as fake:
        yield fake


def _clock_bodies(client, match_id: str, token: str | None) -> dict[str, str]:
    """Every clock response this viewer can get: the resource, the refused adjustments, the fields."""
    headers = auth(token) if token else {}
    out = {"clock": client.get(f"/matches/{match_id}/clock", headers=headers).get_data(as_text=True)}
    for path, body in (("pause", {"note": "x"}), ("resume", {}), ("add-time", {"seat": "p1", "seconds": 5})):
        out[f"refused {path}"] = client.post(f"/matches/{match_id}/clock/{path}", json=body, headers=headers).get_data(
            as_text=True
        )
    return out


def test_no_clock_response_shows_a_viewer_a_secret_outside_its_audience(client, app, now):
    matches = app.extensions["gambit"].matches
    tid, organizer = tournament(client)
    match_id, tokens = timed_match(client, "gambitz", fischer(300, 5), tid, organizer, config={"players": 3})
    rng = random.Random(3)
    for _ in range(4):
        now.advance(7)
        seat = client.get(f"/matches/{match_id}").get_json()["to_act"][0]
        body = rng.choice(going_on(legal_options(client, match_id, tokens[seat], rng)))
        assert client.post(f"/matches/{match_id}/commands", json=body, headers=auth(tokens[seat])).status_code == 201
    adjustments = {}
    for path, body in (("pause", {"note": "n"}), ("add-time", {"seat": "p2", "seconds": 9}), ("resume", {})):
        adjustments[path] = client.post(f"/matches/{match_id}/clock/{path}", json=body, headers=auth(organizer))
        assert adjustments[path].status_code == 201
    match = matches.match(match_id)
    assert match.status == "active"
    hands = match.state["hands"]
    for seat, token in [(None, None), *tokens.items()]:
        hidden = hidden_from(matches, match_id, seat)
        others = {card for holder, cards in hands.items() if holder != seat for card in cards}
        bodies = {**_clock_bodies(client, match_id, token), **endpoint_bodies(client, match_id, token, match.version)}
        for name, text in bodies.items():
            assert match.server_seed not in text, f"the server seed reached {seat or 'spectator'} via {name}"
            for version, salt in hidden:
                assert salt not in text, f"record {version}'s secret reached {seat or 'spectator'} via {name}"
            if name.startswith(("clock", "refused")):
                assert not {c for c in others if f'"{c}"' in text}, f"a hand reached {seat or 'spectator'} via {name}"
    # The organizer's own adjustment responses carry the clock records only: no secret at all.
    for path, response in adjustments.items():
        assert all(event["commitment"] is None for event in response.get_json()["events"]), path


def test_a_spectator_held_back_by_a_spectator_delay_sees_the_clock_as_of_the_delayed_version(client, now):
    match_id, tokens = timed_match(client, "gambitz", fischer(300, 5), config={"players": 2, "spectator_delay": 3})
    rng = random.Random(4)
    for _ in range(4):
        now.advance(11)
        seat = client.get(f"/matches/{match_id}", headers=auth(tokens["p1"])).get_json()["to_act"][0]
        body = rng.choice(going_on(legal_options(client, match_id, tokens[seat], rng)))
        assert client.post(f"/matches/{match_id}/commands", json=body, headers=auth(tokens[seat])).status_code == 201
    held_back = client.get(f"/matches/{match_id}/clock")
    summary = client.get(f"/matches/{match_id}").get_json()
    delayed = client.get(f"/matches/{match_id}/view?at={summary['version']}").get_json()
    latest = client.get(f"/matches/{match_id}/clock", headers=auth(tokens["p1"])).get_json()
    assert held_back.headers["Gambit-Spectator-Delay"] == "3"
    assert held_back.get_json()["version"] == summary["version"] < latest["version"]
    assert held_back.get_json()["clock"] == summary["clock"] == delayed["clock"] != latest["clock"]
