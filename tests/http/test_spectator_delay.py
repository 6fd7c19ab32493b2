"""Spectator delay: while a match runs, a spectator sees every resource as of the delayed version;
seats and the organizer see the latest, and everyone sees everything once the match has finished."""

from __future__ import annotations

import json
import random

import pytest

from domain.ruleset import SPECTATOR, Viewer
from projections.views import view_of
from service import events as events_resource
from tests.support.api import auth, create_match, join_all, legal_options, play_until_a_bluff_call
from tests.support.independent_verifier import verify_export
from tests.support.leaks import endpoint_bodies, hidden_from
from tests.test_openapi_contract import component, schema_errors

DELAY = 3
HEADER = "Gambit-Spectator-Delay"


def _delayed_match(client, ruleset: str = "gambitz", config: dict | None = None, organizer: tuple | None = None):
    """A match with a spectator delay, every seat joined; returns (match id, seat → token)."""
    body = {"ruleset": ruleset, "config": {**(config or {"players": 2}), "spectator_delay": DELAY}}
    headers = {}
    if organizer is not None:
        body["tournament_id"], key = organizer
        headers = auth(key)
    response = client.post("/matches", json=body, headers=headers)
    assert response.status_code == 201, response.get_json()
    match = response.get_json()
    return match["match_id"], join_all(client, match)


def _play(client, match_id: str, tokens: dict, rng: random.Random, commands: int) -> list[dict]:
    """Play up to `commands` random legal commands, reading whose turn it is as a seat; returns the responses."""
    responses = []
    reader = auth(next(iter(tokens.values())))
    for _ in range(commands):
        summary = client.get(f"/matches/{match_id}", headers=reader).get_json()
        if summary["status"] != "active":
            break
        seat = rng.choice(sorted(summary["to_act"]))
        options = [o for o in legal_options(client, match_id, tokens[seat], rng) if o["type"] != "resign"]
        response = client.post(f"/matches/{match_id}/commands", json=rng.choice(options), headers=auth(tokens[seat]))
        assert response.status_code == 201, response.get_json()
        responses.append(response.get_json())
    return responses


def _finish(app, match_id: str, rng: random.Random) -> None:
    """Play the match to its end through the domain."""
    matches = app.extensions["gambit"].matches
    for _ in range(20_000):
        match = matches.match(match_id)
        if match.status != "active":
            return
        seat = rng.choice(sorted(match.to_act()))
        options = match.ruleset.legal_commands(match.state, seat) + [
            choice.random_command(rng) for choice in match.ruleset.legal_choices(match.state, seat)
        ]
        matches.act(match_id, seat, rng.choice(options))
    raise AssertionError("the match did not finish")


def _delayed_version(app, match_id: str) -> int:
    """The delayed version by its definition: the newest write's last record at or before latest − DELAY."""
    records = app.extensions["gambit"].matches.records(match_id)
    target = max(1, len(records) - DELAY)
    return max(r.originator_version for r in records[:target] if "receipt" in r.meta)


def _ndjson(response) -> list[dict]:
    return [json.loads(line) for line in response.get_data(as_text=True).splitlines()]


def test_a_spectator_of_a_running_delayed_match_sees_every_resource_as_of_the_delayed_version(client, app):
    mid, tokens = _delayed_match(client)
    _play(client, mid, tokens, random.Random(1), 6)
    latest = app.extensions["gambit"].matches.match(mid)
    shown = _delayed_version(app, mid)
    assert latest.status == "active" and shown <= latest.version - DELAY
    as_of = app.extensions["gambit"].matches.match(mid, version=shown)

    summary = client.get(f"/matches/{mid}")
    body = summary.get_json()
    assert (body["version"], summary.headers["ETag"], summary.headers[HEADER]) == (shown, f'"{shown}"', str(DELAY))
    assert body["delay"] == {"records": DELAY, "as_of": shown}
    assert (body["status"], body["to_act"]) == (as_of.status, as_of.to_act())
    assert schema_errors(component("Summary"), body) == []

    view = client.get(f"/matches/{mid}/view")
    expected = view_of(as_of, Viewer(SPECTATOR))
    got = view.get_json()
    assert got["delay"] == {"records": DELAY, "as_of": shown} and view.headers[HEADER] == str(DELAY)
    assert {k: got[k] for k in ("version", "status", "to_act", "may_act", "state")} == {
        k: expected[k] for k in ("version", "status", "to_act", "may_act", "state")
    }
    assert schema_errors(component("View"), got) == []

    page = client.get(f"/matches/{mid}/events?limit=500")
    assert [e["version"] for e in page.get_json()["events"]] == list(range(1, shown + 1))
    assert page.get_json()["next_after"] is None and page.headers[HEADER] == str(DELAY)
    assert client.get(f"/matches/{mid}/events?after={shown}").get_json()["events"] == []

    replay = client.get(f"/matches/{mid}/replay?from=1")
    assert replay.get_json()["frames"][-1]["version"] == shown and replay.headers[HEADER] == str(DELAY)

    audit = client.get(f"/matches/{mid}/audit/bluffs")
    assert audit.get_json()["version"] == shown and audit.headers[HEADER] == str(DELAY)

    export = client.get(f"/matches/{mid}/export")
    lines = _ndjson(export)
    assert export.headers[HEADER] == str(DELAY)
    assert lines[0]["version"] == shown and [r["version"] for r in lines[1:-1]] == list(range(1, shown + 1))
    assert lines[-1]["version"] == shown and "unreceipted" not in lines[-1], "it ends on the write's receipt"
    verify_export(export.get_data(as_text=True))


@pytest.mark.parametrize(
    "path, parameter",
    [
        ("view?at={later}", "at"),
        ("view?at={latest}", "at"),
        ("replay?from=1&to={later}", "to"),
        ("replay?from={later}", "from"),
    ],
)
def test_a_version_past_the_delayed_one_is_refused_without_naming_a_later_version(client, app, path, parameter):
    mid, tokens = _delayed_match(client)
    _play(client, mid, tokens, random.Random(2), 4)
    latest = app.extensions["gambit"].matches.match(mid).version
    shown = _delayed_version(app, mid)
    response = client.get(f"/matches/{mid}/" + path.format(later=shown + 1, latest=latest))
    problem = response.get_json()
    assert (response.status_code, problem["code"], problem["parameter"]) == (400, "invalid_parameter", parameter)
    assert str(shown) in problem["detail"] and str(latest) not in problem["detail"]
    assert client.get(f"/matches/{mid}/view?at={shown}").status_code == 200


def test_seats_and_the_organizer_are_never_held_back(client, app):
    tournament = client.post("/tournaments", json={"name": "Delayed Open"}).get_json()
    key = tournament["organizer_key"]
    mid, tokens = _delayed_match(client, organizer=(tournament["tournament_id"], key))
    _play(client, mid, tokens, random.Random(3), 5)
    latest = app.extensions["gambit"].matches.match(mid).version
    for headers in (auth(tokens["p1"]), auth(tokens["p2"]), auth(key)):
        summary = client.get(f"/matches/{mid}", headers=headers)
        view = client.get(f"/matches/{mid}/view", headers=headers)
        page = client.get(f"/matches/{mid}/events?limit=500", headers=headers)
        replay = client.get(f"/matches/{mid}/replay", headers=headers)
        audit = client.get(f"/matches/{mid}/audit/bluffs", headers=headers)
        export = client.get(f"/matches/{mid}/export", headers=headers)
        assert summary.get_json()["version"] == view.get_json()["version"] == latest
        assert page.get_json()["events"][-1]["version"] == replay.get_json()["frames"][-1]["version"] == latest
        assert audit.get_json()["version"] == _ndjson(export)[0]["version"] == latest
        assert "delay" not in summary.get_json() and "delay" not in view.get_json()
        assert all(HEADER not in r.headers for r in (summary, view, page, replay, audit, export))
    listed = client.get("/matches", headers=auth(key)).get_json()["matches"]
    assert [m["version"] for m in listed if m["match_id"] == mid] == [latest]
    tournament_page = client.get(f"/tournaments/{tournament['tournament_id']}", headers=auth(key)).get_json()
    assert [m["version"] for m in tournament_page["matches"]] == [latest]
    public_page = client.get(f"/tournaments/{tournament['tournament_id']}").get_json()
    assert [m["version"] for m in public_page["matches"]] == [_delayed_version(app, mid)]


def test_once_the_match_has_finished_nobody_is_held_back(client, app):
    mid, tokens = _delayed_match(client)
    _play(client, mid, tokens, random.Random(4), 3)
    _finish(app, mid, random.Random(4))
    latest = app.extensions["gambit"].matches.match(mid).version
    summary = client.get(f"/matches/{mid}")
    view = client.get(f"/matches/{mid}/view")
    page = client.get(f"/matches/{mid}/events?limit=500")
    export = client.get(f"/matches/{mid}/export")
    assert summary.get_json()["version"] == view.get_json()["version"] == latest
    assert summary.get_json()["status"] == "finished" and summary.get_json()["receipt"]["version"] == latest
    assert page.get_json()["events"][-1]["version"] == _ndjson(export)[-2]["version"] == latest
    assert "delay" not in summary.get_json() and "delay" not in view.get_json()
    assert all(HEADER not in r.headers for r in (summary, view, page, export))
    assert client.get(f"/matches/{mid}/view?at={latest}").status_code == 200


def test_a_match_without_a_delay_holds_nobody_back_and_says_nothing_of_one(client):
    match = create_match(client, "gambitz", {"players": 2})
    tokens = join_all(client, match)
    mid = match["match_id"]
    _play(client, mid, tokens, random.Random(5), 3)
    for path in ("", "/view", "/events", "/replay", "/audit/bluffs", "/export"):
        response = client.get(f"/matches/{mid}{path}")
        assert response.status_code == 200 and HEADER not in response.headers
    assert "delay" not in client.get(f"/matches/{mid}").get_json()
    assert "delay" not in client.get(f"/matches/{mid}/view").get_json()


def test_a_spectator_learns_no_verdict_until_the_delay_has_passed_the_ruling(client, app):
    mid, tokens = _delayed_match(client, "gambit-board", {})
    rng = random.Random(0)
    ruling = play_until_a_bluff_call(client, mid, tokens, rng, viewer=tokens["south"], tries=200)
    assert app.extensions["gambit"].matches.match(mid).status == "active"

    def rulings(headers: dict) -> tuple[list, list, list]:
        audit = client.get(f"/matches/{mid}/audit/bluffs", headers=headers).get_json()["calls"]
        index = client.get(f"/bluff-calls?match_id={mid}", headers=headers).get_json()["bluff_calls"]
        everywhere = [
            c for c in client.get("/bluff-calls", headers=headers).get_json()["bluff_calls"] if c["match_id"] == mid
        ]
        return (
            [e.get("ruling_version") for e in audit],
            [c["ruling_version"] for c in index],
            [c["ruling_version"] for c in everywhere],
        )

    assert rulings({}) == ([], [], [])
    held = client.get(f"/bluff-calls?match_id={mid}")
    assert held.headers[HEADER] == str(DELAY) and "Authorization" in held.headers["Vary"]
    for seat in ("south", "north"):
        assert rulings(auth(tokens[seat])) == ([ruling], [ruling], [ruling])
    assert ruling not in [e["version"] for e in client.get(f"/matches/{mid}/events").get_json()["events"]]
    # Later writes move the delayed version past the ruling: then spectators see it too.
    while _delayed_version(app, mid) < ruling and app.extensions["gambit"].matches.match(mid).status == "active":
        _play(client, mid, tokens, rng, 1)
    assert ruling in rulings({})[0] and ruling in rulings({})[1]


def test_a_held_back_spectators_match_list_shows_each_match_as_of_its_delayed_version(client, app):
    mid, tokens = _delayed_match(client, config={"players": 2})
    # Just after the last seat joined, the delayed version is still before the joins.
    shown = _delayed_version(app, mid)
    listed = client.get("/matches").get_json()["matches"]
    [summary] = [m for m in listed if m["match_id"] == mid]
    assert (summary["version"], summary["status"], summary["delay"]) == (
        shown,
        "open",
        {"records": DELAY, "as_of": shown},
    )
    active = client.get("/matches?status=active").get_json()["matches"]
    assert mid not in [m["match_id"] for m in active], "never listed under a status it does not show"
    assert mid in [
        m["match_id"] for m in client.get("/matches?status=active", headers=auth(tokens["p1"])).get_json()["matches"]
    ]


def _record_frames(response, until: int) -> list[str]:
    """Read a live stream until the record with version `until` arrived; returns every frame read."""
    frames, buffer = [], ""
    for chunk in response.response:
        buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buffer:
            frame, buffer = buffer.split("\n\n", 1)
            frames.append(frame)
            if frame.startswith(f"id: {until}\n"):
                return frames
    raise AssertionError(f"the stream ended before record {until}")


def _next_frame(response) -> str:
    buffer = ""
    for chunk in response.response:
        buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        if "\n\n" in buffer:
            return buffer.split("\n\n", 1)[0]
    return ""


def _versions(frames: list[str]) -> list[int]:
    return [int(f.split("\n", 1)[0][4:]) for f in frames if f.startswith("id: ")]


def test_the_live_stream_releases_records_only_as_later_writes_move_the_delayed_version(client, app, monkeypatch):
    monkeypatch.setattr(events_resource, "HEARTBEAT_SECONDS", 0.3)
    mid, tokens = _delayed_match(client)
    rng = random.Random(6)
    _play(client, mid, tokens, rng, 2)
    stream = client.get(f"/matches/{mid}/events", headers={"Accept": "text/event-stream"}, buffered=False)
    try:
        assert stream.headers[HEADER] == str(DELAY)
        first = _delayed_version(app, mid)
        seen = _versions(_record_frames(stream, first))
        assert seen == list(range(1, first + 1))
        assert _next_frame(stream) == ": keep-alive", "nothing past the delayed version is sent"
        for _ in range(3):
            _play(client, mid, tokens, rng, 1)
            now = _delayed_version(app, mid)
            later = _versions(_record_frames(stream, now))
            assert later == list(range(seen[-1] + 1, now + 1)), "released in order, up to the delayed version"
            assert later[-1] < app.extensions["gambit"].matches.match(mid).version
            seen += later
            assert _next_frame(stream) == ": keep-alive"
        _finish(app, mid, rng)
        latest = app.extensions["gambit"].matches.match(mid).version
        rest = _record_frames(stream, latest)
        assert _versions(rest) == list(range(seen[-1] + 1, latest + 1)), "the finish releases the rest"
        assert _next_frame(stream).startswith("event: end")
    finally:
        stream.close()


def test_no_resource_shows_a_spectator_a_record_past_the_delayed_version(client, app):
    matches = app.extensions["gambit"].matches
    mid, tokens = _delayed_match(client, "gambit-board", {})
    rng = random.Random(7)
    for _ in range(4):
        _play(client, mid, tokens, rng, 3)
        if matches.match(mid).status != "active":
            break
        shown = _delayed_version(app, mid)
        later = [r for r in matches.records(mid) if r.originator_version > shown]
        assert later, "the last write is always held back"
        hidden = hidden_from(matches, mid, None)
        for name, text in endpoint_bodies(client, mid, None, shown).items():
            for record in later:
                assert record.chain not in text, f"record {record.originator_version} reached a spectator via {name}"
            for version, salt in hidden:
                assert salt not in text, f"record {version}'s secret reached a spectator via {name}"
            assert matches.match(mid).server_seed not in text


def test_a_spectator_sees_no_dispute_filed_after_the_delayed_version(client, app):
    tournament = client.post("/tournaments", json={"name": "delayed cup"}).get_json()
    mid, tokens = _delayed_match(
        client, "gambit-board", {}, organizer=(tournament["tournament_id"], tournament["organizer_key"])
    )
    rng = random.Random(0)
    ruling = play_until_a_bluff_call(client, mid, tokens, rng, viewer=tokens["south"], tries=200)
    assert app.extensions["gambit"].matches.match(mid).status == "active"
    filed = client.post(
        f"/matches/{mid}/disputes", json={"call_version": ruling, "reason": "recount"}, headers=auth(tokens["north"])
    )
    assert filed.status_code == 201, filed.get_json()
    spectator = client.get(f"/matches/{mid}/disputes")
    assert spectator.get_json()["disputes"] == [] and spectator.headers[HEADER] == str(DELAY)
    for headers in (auth(tokens["south"]), auth(tournament["organizer_key"])):
        seen = client.get(f"/matches/{mid}/disputes", headers=headers)
        assert [d["call_version"] for d in seen.get_json()["disputes"]] == [ruling]
        assert HEADER not in seen.headers
