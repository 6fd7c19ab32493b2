"""`gambit verify` on finished gambit-tcg and gattai-conflict matches played over HTTP.

An honest organizer's export with calls in it verifies, its rulings re-adjudicated and its
draws re-derived; a dealer holding the key who swaps a dealt card with a later draw, or flips a
verdict, then rebuilds the chain and re-signs, is caught by the rules at the forged version.
"""

from __future__ import annotations

import io
import json
import random

import pytest

from service.app import create_app
from service.signing import Signer
from service.verify_cli import EXIT_FAILED, EXIT_VERIFIED, run_verify
from tests.store.test_verify_tampering import failed, rechain_and_resign, recommit
from tests.support.api import auth, join_all, play_to_end

ATTEMPTS = 6  # the server seed is random: a tcg match may, rarely, end without a type call


def _tcg_prefer(command: dict) -> bool:
    # Sets give a Truthseeker targets, energy pays for it, and its type call is always taken.
    return command["type"] in ("set_card", "energize") or command.get("declared_type") is not None


GAMES = {
    "gambit-tcg": ({"turn_limit": 24}, _tcg_prefer),
    "gattai-gambit": ({"mode": "gambit", "pilots": {"p1": {}, "p2": {}}, "pilot": "p2"}, None),
    "gattai-throwdown": ({"mode": "throwdown", "pilots": {"p1": {}, "p2": {}}, "threats": {"kaiju": 3},
                          "threat_stacks": {"kaiju": 2}, "commander": "p2"}, None),
}


class Finished:
    """A finished match with at least one call, its organizer's export and the service's key."""

    def __init__(self, settings, tmp_path, name: str) -> None:
        self.settings, self.tmp_path = settings, tmp_path
        ruleset = "gambit-tcg" if name == "gambit-tcg" else "gattai-conflict"
        config, prefer = GAMES[name]
        client = create_app(settings).test_client()
        rng = random.Random(name)
        for _ in range(ATTEMPTS):
            tournament = client.post("/tournaments", json={"name": "t"}).get_json()
            organizer = tournament["organizer_key"]
            match = client.post("/matches", json={"ruleset": ruleset, "config": config,
                                                  "tournament_id": tournament["tournament_id"]},
                                headers=auth(organizer)).get_json()
            play_to_end(client, match["match_id"], join_all(client, match), rng, prefer=prefer)
            text = client.get(f"/matches/{match['match_id']}/export", headers=auth(organizer)).get_data(as_text=True)
            self.lines = [json.loads(line) for line in text.splitlines() if line.strip()]
            if any("bluff_call" in r["public"] for r in self.records):
                break
        self.key = client.get("/.well-known/gambit-signing-key").get_json()["public_key"]

    @property
    def records(self) -> list[dict]:
        """The export's records (between header and trailer)."""
        return self.lines[1:-1]

    def verify(self, lines: list[dict]) -> tuple[int, dict]:
        """Run `gambit verify` on the lines with the service key; (exit code, JSON report)."""
        path = self.tmp_path / "export.ndjson"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        out = io.StringIO()
        code = run_verify(str(path), self.key, as_json=True, out=out, err=io.StringIO())
        return code, json.loads(out.getvalue())

    def resigned(self, lines: list[dict]) -> list[dict]:
        """The lines rechained and signed with the service's own key, as a dishonest dealer can."""
        return rechain_and_resign(lines, Signer.load(self.settings.data_dir, self.settings.signing_key))


def _checks(report: dict) -> dict:
    return {c["check"]: c for c in report["reports"][0]["checks"]}


def _hand_of(secret: dict) -> list[str]:
    """The cards a draw's secret names: gambit-tcg's card ids by instance, gattai's cards."""
    return list(secret["ids"].values()) if "ids" in secret else secret["cards"]


def _swap_deal(lines: list[dict]) -> int:
    """Swap a card of the first deal with a different one of a later draw off the same deck; the deal's version."""
    draws = [r for r in lines[1:-1] if r["kind"] == "CardsDrawn"]
    first = draws[0]
    deck = first["public"].get("deck", first["public"]["seat"])  # gattai names the deck, gambit-tcg the seat
    later = next(r for r in draws[1:] if r["public"].get("deck", r["public"]["seat"]) == deck
                 and set(_hand_of(r["secret"])) - set(_hand_of(first["secret"])))
    dealt, drawn = first["secret"], later["secret"]
    if "ids" in dealt:
        x = next(iter(dealt["ids"]))
        y = next(c for c in drawn["ids"] if drawn["ids"][c] != dealt["ids"][x])
        dealt["ids"][x], drawn["ids"][y] = drawn["ids"][y], dealt["ids"][x]
    else:
        y = next(i for i, c in enumerate(drawn["cards"]) if c not in dealt["cards"])
        dealt["cards"][0], drawn["cards"][y] = drawn["cards"][y], dealt["cards"][0]
    recommit(first)
    recommit(later)
    return first["version"]


@pytest.fixture(params=sorted(GAMES))
def finished(request, settings, tmp_path):
    """A finished match of each card game, with calls in its record."""
    return Finished(settings, tmp_path, request.param)


def test_an_honest_card_game_export_with_calls_verifies_and_forgeries_are_caught_by_the_rules(finished):
    assert any("bluff_call" in r["public"] for r in finished.records), "no call in any attempt"
    code, report = finished.verify(finished.lines)
    checks = _checks(report)
    assert code == EXIT_VERIFIED, {k: c["detail"] for k, c in checks.items() if c["status"] != "pass"}
    for name in ("replay", "dealt secrets", "verdicts", "outcome", "evidence"):
        assert checks[name]["status"] == "pass", checks[name]

    dealt = json.loads(json.dumps(finished.lines))
    version = _swap_deal(dealt)
    code, report = finished.verify(finished.resigned(dealt))
    assert code == EXIT_FAILED and f"version {version}" in failed(report)["dealt secrets"], failed(report)
    assert {"chain", "commitments", "receipt", "signature"}.isdisjoint(failed(report)), "only the rules catch it"

    flipped = json.loads(json.dumps(finished.lines))
    ruling = next(r for r in flipped[1:-1] if "bluff_call" in r["public"])
    call = ruling["public"]["bluff_call"]
    call["verdict"] = "false" if call["verdict"] == "true" else "true"
    code, report = finished.verify(finished.resigned(flipped))
    assert code == EXIT_FAILED and f"ruling {ruling['version']} differs" in failed(report)["verdicts"], failed(report)
