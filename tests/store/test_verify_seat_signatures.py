"""Seat signatures in `gambit verify`, on both stores: a command the record attributes to a keyed seat is proven
that seat's only by its key's signature over this match, the version it was decided on and the body.

A match with keyed and unkeyed seats verifies, the unkeyed seats listed as unsigned. An insider holding the
service — its database and its signing key — records a legal move the seat never sent, for every ruleset, and
the receipts are the service's own: FAILED. A re-keyed seat is held to its new key from the re-key on. (The
other forgeries, for every ruleset, are in test_verify_forgeries.py.)
"""

from __future__ import annotations

import random

import pytest

from domain import clock, rulesets
from domain.ruleset import command_of_body
from service.verify_cli import EXIT_FAILED, EXIT_VERIFIED
from tests.store.test_verify_mutations import SHORTER
from tests.store.test_verify_tampering import Played, failed, rechain_and_resign, recommit
from tests.support.api import auth, going_on, legal_options
from tests.support.seat_keys import SeatKey, join_keyed, play_signed

SIGNATURES = "seat signatures"


class Signed(Played):
    """A match played with seat keys (None: that seat joins without one), in a tournament so the organizer's
    export holds every secret while it runs."""

    def __init__(self, settings, tmp_path, ruleset: str, algs, seed: int, until: int | None = None,
                 config: dict | None = None) -> None:
        self.settings, self.tmp_path = settings, tmp_path
        from service.app import create_app
        from tests.support.tamper import StoreAccess

        self.app = create_app(settings)
        self.client = self.app.test_client()
        tournament = self.client.post("/tournaments", json={"name": "t"}).get_json()
        self.organizer = tournament["organizer_key"]
        match = self.client.post("/matches", json={"ruleset": ruleset, "config": SHORTER.get(ruleset, {}) if config is None else config,
                                                   "tournament_id": tournament["tournament_id"]},
                                 headers=auth(self.organizer)).get_json()
        self.match_id = match["match_id"]
        seats = [s["seat"] for s in match["seats"]]
        self.keys = {seat: None if alg is None else SeatKey(alg) for seat, alg in zip(seats, algs(len(seats)))}
        self.tokens = join_keyed(self.client, match, self.keys)
        play_signed(self.client, self.match_id, self.tokens, self.keys, random.Random(seed), until=until)
        self.key = self.client.get("/.well-known/gambit-signing-key").get_json()["public_key"]
        self.store = StoreAccess(settings.database_url)

    def record_unsent_move(self, forge) -> int:
        """As an insider: record a legal move for a seat to act that it never sent, with `forge(seat, body,
        version)` as its signature, through the match itself (the service signs its receipt); its version."""
        summary = self.client.get(f"/matches/{self.match_id}").get_json()
        seat = min(summary["to_act"])
        body = going_on(legal_options(self.client, self.match_id, self.tokens[seat], random.Random(0)))[0]
        version = self.app.extensions["gambit"].matches.match(self.match_id).version
        return self.act_as_insider(seat, body, forge(seat, body, version))

    def act_as_insider(self, seat: str, body: dict, signature: str | None) -> int:
        """Record `body` as `seat`'s command with `signature`, straight through the match and its store (no HTTP,
        no signature check: what the service's holder can do; the service signs the write's receipt); the
        command's version."""
        g = self.app.extensions["gambit"]
        match = g.matches.match(self.match_id)
        first = match.version + 1
        with clock.at_instant(clock.fresh_now()):
            match.act(seat, command_of_body(match.ruleset, body), None,
                      evidence=lambda v: g.matches.store.evidence(match.id, v), sent=body, signature=signature)
        g.matches.store.commit(match, first)
        return first


def _every(alg):
    return lambda n: [alg] * n


def test_an_unsigned_match_verifies_and_names_its_seats_unsigned_never_proven(settings_for, tmp_path):
    played = Signed(settings_for, tmp_path, "gambitz", lambda n: ["ed25519"] + [None] * (n - 1), seed=6)
    code, report = played.verify(played.export_lines())
    assert code == EXIT_VERIFIED, failed(report)
    first = report["reports"][0]
    unkeyed = sorted(seat for seat, key in played.keys.items() if key is None)
    assert first["unsigned_seats"] == unkeyed
    checks = {c["check"]: c for c in first["checks"]}
    assert checks["unsigned seats"]["status"] == "skip" and all(s in checks["unsigned seats"]["detail"] for s in unkeyed)


@pytest.mark.parametrize("ruleset", rulesets.available())
@pytest.mark.parametrize("forgery", ["unsigned", "insiders key"])
def test_a_legal_move_the_seat_never_sent_fails_for_every_ruleset(settings_for, tmp_path, ruleset, forgery):
    played = Signed(settings_for, tmp_path, ruleset, _every("ed25519"), seed=7, until=12)
    insider = SeatKey("ed25519")
    version = played.record_unsent_move(
        lambda seat, body, decided_on: None if forgery == "unsigned" else insider.sign(played.match_id, decided_on,
                                                                                       body))
    code, report = played.verify(played.export_lines())
    assert code == EXIT_FAILED
    assert set(failed(report)) == {SIGNATURES}, failed(report)
    assert f"version {version}" in failed(report)[SIGNATURES]


def test_a_re_keyed_seat_is_checked_against_its_new_key_from_the_re_key_on(settings_for, tmp_path):
    played = Signed(settings_for, tmp_path, "gambitz", _every("ed25519"), seed=10, until=14)
    seat = min(played.keys)
    old, new = played.keys[seat], SeatKey("p256")
    rekeyed = played.client.post(f"/matches/{played.match_id}/seats/{seat}/key", headers=auth(played.organizer),
                                 json={"public_key": new.sent, "note": "a new phone"})
    assert rekeyed.status_code == 201
    played.keys[seat] = new
    play_signed(played.client, played.match_id, played.tokens, played.keys, random.Random(10))
    lines = played.export_lines()
    code, report = played.verify(lines)
    assert code == EXIT_VERIFIED, failed(report)
    rekey_version = rekeyed.get_json()["version"]
    later = [r for r in lines[1:-1] if r.get("kind") == "CommandReceived" and r["public"]["seat"] == seat
             and r["version"] > rekey_version]
    assert later, "the re-keyed seat sent a command after its re-key"
    target = later[0]
    # The old key's signature of the very command, where the record keeps it (beside a public or a secret body).
    if "body" in target["public"]:
        target["public"]["signature"] = old.sign(played.match_id, target["version"] - 1, target["public"]["body"])
    else:
        target["secret"]["signature"] = old.sign(played.match_id, target["version"] - 1, target["secret"]["body"])
        recommit(target)
    code, report = played.verify(rechain_and_resign(lines, played.signer()))
    assert code == EXIT_FAILED and set(failed(report)) == {SIGNATURES}, failed(report)
