"""A secret command body opens when its secret does, on both stores (docs/verification.md, sections 2 and 4).

A body of a type the game keeps secret is public at once when its write hides nothing; otherwise it
opens, to every viewer, with the record that opens the last still-sealed secret its write caused
(that record names the command's version in its `opens`, after the rules' own). `gambit verify`
expects exactly that: a body moved out of or into its secret, or an `opens` without the command it
should name, fails the `commands` check.
"""

from __future__ import annotations

import copy
import json
import random

import pytest

from domain.records import COMMAND_RECEIVED
from service.verify_cli import EXIT_FAILED, EXIT_VERIFIED
from tests.store.test_verify_tampering import Played, failed, rechain_and_resign, recommit
from tests.support.api import auth, going_on, legal_options

# Games whose secrets open mid-match: gattai-conflict's sealed Initiative and Threshold, gambit-tcg's set cards.
REVEALING = {
    "gattai-conflict": {"mode": "throwdown", "pilots": {"p1": {}, "p2": {}}, "threats": {"kaiju": 3},
                        "threat_stacks": {"kaiju": 2}, "commander": "p2"},
    "gambit-tcg": {"turn_limit": 24},
}


def _records(lines: list[dict]) -> list[dict]:
    return lines[1:-1]


def _opened_commands(records: list[dict]) -> list[tuple[dict, int]]:
    """(the revealing record, the command version it opens), for every command a ruleset record opens."""
    by_version = {r["version"]: r for r in records}
    return [(r, v) for r in records if r["kind"] != "MatchFinished" for v in r["public"].get("opens", [])
            if by_version[v]["kind"] == COMMAND_RECEIVED]


def _forged(played: Played, lines: list[dict], version: int) -> str:
    code, report = played.verify(rechain_and_resign(lines, played.signer()))
    found = failed(report)
    assert code == EXIT_FAILED and f"version {version}" in found.get("commands", ""), found
    return found["commands"]


@pytest.mark.parametrize("ruleset", sorted(REVEALING))
def test_a_sealed_command_body_opens_with_its_writes_last_secret_and_the_export_verifies(settings, tmp_path,
                                                                                         ruleset):
    played = Played(settings, tmp_path, ruleset, REVEALING[ruleset], seed=3)
    lines = played.export_lines()
    opened = _opened_commands(_records(lines))
    assert opened, "no command body opened before the end"
    for revealing, command in opened:
        copies = {item["version"]: item for item in revealing["secret"]["opened"]}
        assert "body" in copies[command]["secret"], "the revealing record carries the body it opens"
    code, report = played.verify(lines)
    assert code == EXIT_VERIFIED, failed(report)


@pytest.mark.parametrize("ruleset", sorted(REVEALING))
def test_a_spectator_sees_a_sealed_command_body_from_its_reveal_on_and_never_before(settings, tmp_path, ruleset):
    played = Played(settings, tmp_path, ruleset, REVEALING[ruleset], seed=3, finish=False, upto=1)
    client, match_id, rng = played.client, played.match_id, random.Random(3)
    seen_opened = 0
    for _ in range(400):
        summary = client.get(f"/matches/{match_id}").get_json()
        if summary["status"] != "active":
            break
        export = client.get(f"/matches/{match_id}/export").get_data(as_text=True)  # as a spectator
        records = _records([json.loads(line) for line in export.splitlines() if line.strip()])
        opened = {v for r in records for v in r["public"].get("opens", [])}
        for record in records:
            if record["kind"] == COMMAND_RECEIVED and record["commitment"] is not None:
                assert ("secret" in record) == (record["version"] in opened), record["version"]
                seen_opened += record["version"] in opened
        seat = rng.choice(sorted(summary["to_act"]))
        body = rng.choice(going_on(legal_options(client, match_id, played.tokens[seat], rng)))
        response = client.post(f"/matches/{match_id}/commands", json=body, headers=auth(played.tokens[seat]))
        assert response.status_code == 201, response.get_json()
    assert seen_opened, "no command body opened while the match ran"


def test_an_opens_without_the_command_it_opens_fails(settings, tmp_path):
    played = Played(settings, tmp_path, "gattai-conflict", REVEALING["gattai-conflict"], seed=3)
    lines = played.export_lines()
    revealing, command = _opened_commands(_records(lines))[0]
    revealing["public"]["opens"].remove(command)
    revealing["secret"]["opened"] = [item for item in revealing["secret"]["opened"] if item["version"] != command]
    recommit(revealing)
    detail = _forged(played, lines, revealing["version"])
    assert "is not what the rules decide" in detail


def test_a_body_recorded_public_while_its_write_hides_something_fails_and_one_that_hides_nothing_verifies(
        settings, tmp_path):
    played = Played(settings, tmp_path, "gambitz", {"players": 3}, seed=3)
    lines = played.export_lines()
    records = _records(lines)
    public_plays = [r for r in records if r["kind"] == COMMAND_RECEIVED and r["public"]["type"] == "play"
                    and "body" in r["public"]]
    assert public_plays, "no play hid nothing (a play that draws no card)"
    assert played.verify(lines)[0] == EXIT_VERIFIED
    hidden = copy.deepcopy(lines)
    sealed = next(r for r in _records(hidden) if r["kind"] == COMMAND_RECEIVED and r["commitment"] is not None)
    sealed["public"]["body"] = sealed.pop("secret")["body"]
    sealed.pop("salt")
    sealed["commitment"] = sealed["audience"] = None
    assert "is public, not as the rules keep it" in _forged(played, hidden, sealed["version"])
    moved = next(r for r in _records(lines) if r["version"] == public_plays[0]["version"])
    moved["secret"], moved["audience"] = {"body": moved["public"].pop("body")}, [moved["public"]["seat"]]
    recommit(moved)
    assert "is secret, not as the rules keep it" in _forged(played, lines, moved["version"])


def test_an_opens_naming_a_command_whose_write_still_hides_something_fails(settings, tmp_path):
    for seed in range(3, 9):  # the server seed is random: find a body still sealed when a later reveal comes
        played = Played(settings, tmp_path, "gambit-tcg", REVEALING["gambit-tcg"], seed=seed)
        lines = played.export_lines()
        records = _records(lines)
        opened = {v for r in records if r["kind"] != "MatchFinished" for v in r["public"].get("opens", [])}
        pairs = [(waiting, revealing) for waiting in records
                 if waiting["kind"] == COMMAND_RECEIVED and waiting["commitment"] is not None
                 and waiting["version"] not in opened
                 for revealing in records if revealing["version"] > waiting["version"]
                 and revealing["kind"] != "MatchFinished" and revealing["public"].get("opens")]
        if pairs:
            break
    assert pairs, "no sealed body outlived a later reveal in six matches"
    waiting, revealing = pairs[0]
    revealing["public"]["opens"].append(waiting["version"])
    revealing["secret"]["opened"].append({"version": waiting["version"], "secret": waiting["secret"],
                                          "salt": waiting["salt"], "commitment": waiting["commitment"]})
    recommit(revealing)
    assert "is not what the rules decide" in _forged(played, lines, revealing["version"])
