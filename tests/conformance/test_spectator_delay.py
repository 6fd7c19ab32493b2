"""The spectator-delay promise, for every ruleset in the registry: while a match created with
`spectator_delay` runs, a spectator sees every resource as of the delayed version — the newest
write's last record at least that many records back — and its export of that version verifies;
seats see the latest; once the match has finished, the spectator sees everything."""

from __future__ import annotations

import io
import json
import random

import pytest

from domain import rulesets
from domain.ruleset import SPECTATOR, Viewer
from projections.records import viewer_for
from projections.views import as_json, export_lines, view_of
from service.verify_cli import EXIT_VERIFIED, _write_export, run_verify
from tests.hardening.play import advance, config_for, finish, join_options
from tests.support.api import auth

DELAY = 5
HEADER = "Gambit-Spectator-Delay"
COMMANDS_BEFORE_LOOKING = 12


def _start(client, ruleset_id: str, rng: random.Random) -> tuple[str, dict]:
    """A match of the ruleset with a spectator delay, every seat joined; (match id, seat → token)."""
    config = {**config_for(ruleset_id), "spectator_delay": DELAY}
    match = client.post("/matches", json={"ruleset": ruleset_id, "config": config}).get_json()
    seats = [s["seat"] for s in match["seats"]]
    options = join_options(ruleset_id, seats, rng) or {}
    tokens = {}
    for seat in seats:
        body = {"name": f"player-{seat}", "seat": seat, **({"options": options[seat]} if seat in options else {})}
        joined = client.post(f"/matches/{match['match_id']}/seats", json=body)
        assert joined.status_code == 201, joined.get_json()
        tokens[seat] = joined.get_json()["token"]
    return match["match_id"], tokens


def _verifies(tmp_path, text: str, key: str) -> bool:
    path = tmp_path / "spectator.ndjson"
    path.write_text(text)
    return run_verify(str(path), key, as_json=False, out=io.StringIO(), err=io.StringIO()) == EXIT_VERIFIED


def _cli_export(app, match_id: str, role: str) -> str:
    """What `gambit export MATCH --as ROLE` writes for this app's store."""
    out = io.StringIO()
    _write_export(app.extensions["gambit"], match_id, role, out, viewer_for, export_lines, as_json)
    return out.getvalue()


def _without_export_time(text: str) -> list:
    """An export's lines as JSON, its header without the moment it was taken."""
    lines = [json.loads(line) for line in text.splitlines()]
    lines[0].pop("exported_at")
    return lines


def _shown_versions(client, match_id: str, headers: dict) -> dict[str, int]:
    """The newest version each resource shows this caller."""
    export = client.get(f"/matches/{match_id}/export", headers=headers).get_data(as_text=True).splitlines()
    audit = client.get(f"/matches/{match_id}/audit/bluffs", headers=headers).get_json()
    named = [v for entry in audit["calls"] for v in (entry.get("ruling_version"), entry.get("claim_version")) if v]
    return {
        "summary": client.get(f"/matches/{match_id}", headers=headers).get_json()["version"],
        "view": client.get(f"/matches/{match_id}/view", headers=headers).get_json()["version"],
        "events": client.get(f"/matches/{match_id}/events?limit=500", headers=headers).get_json()["events"][-1][
            "version"
        ],
        "replay": client.get(f"/matches/{match_id}/replay", headers=headers).get_json()["frames"][-1]["version"],
        "audit": max([audit["version"], *named]),
        "export": len(export) - 2,
    }


@pytest.mark.parametrize("ruleset_id", rulesets.available())
def test_a_spectator_is_held_at_the_delayed_version_until_the_match_ends(client, app, tmp_path, ruleset_id):
    matches = app.extensions["gambit"].matches
    key = client.get("/.well-known/gambit-signing-key").get_json()["public_key"]
    rng = random.Random(f"delay/{ruleset_id}")
    match_id, tokens = _start(client, ruleset_id, rng)
    # No random resign before the look: the match must still run for the delay to hold anything back.
    advance(matches, match_id, rng, COMMANDS_BEFORE_LOOKING, enders_rate=0)
    latest = matches.match(match_id)
    assert latest.status == "active", "the seed leaves the match running, so there is something to hold back"
    records = matches.records(match_id)
    shown = max(r.originator_version for r in records[: max(1, latest.version - DELAY)] if "receipt" in r.meta)
    assert shown <= latest.version - DELAY
    assert set(_shown_versions(client, match_id, {}).values()) == {shown}
    view = client.get(f"/matches/{match_id}/view")
    assert view.headers[HEADER] == str(DELAY) and view.get_json()["delay"] == {"records": DELAY, "as_of": shown}
    assert view.get_json()["state"] == view_of(matches.match(match_id, version=shown), Viewer(SPECTATOR))["state"]
    assert _verifies(tmp_path, client.get(f"/matches/{match_id}/export").get_data(as_text=True), key)
    # `gambit export --as spectator` holds the same line as GET /export; an organizer's export does not.
    assert _without_export_time(_cli_export(app, match_id, "spectator")) == _without_export_time(
        client.get(f"/matches/{match_id}/export").get_data(as_text=True)
    )
    assert len(_cli_export(app, match_id, "organizer").splitlines()) - 2 == latest.version
    seat = next(iter(tokens))
    assert set(_shown_versions(client, match_id, auth(tokens[seat])).values()) == {latest.version}
    finish(matches, match_id, rng, tokens, client)
    latest = matches.match(match_id)
    assert set(_shown_versions(client, match_id, {}).values()) == {latest.version}
    assert HEADER not in client.get(f"/matches/{match_id}/view").headers
    assert _verifies(tmp_path, client.get(f"/matches/{match_id}/export").get_data(as_text=True), key)
