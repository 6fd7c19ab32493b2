"""Every forged move fails `gambit verify`, for every ruleset, on both stores; honest matches verify.

The forger holds the service: its database and its signing key. Whatever it records, it rebuilds the chain
and signs the trailer with the service's own key, so only the rules and the seats' keys can catch it:

- an illegal move (a seat moving again right after its own move: the write copied, re-versioned), signed by
  the seat's own key (a keyed seat) or by no one (an unkeyed seat): `commands`, the rules refuse it;
- a legal move the seat never sent: `seat signatures` (test_verify_seat_signatures.py, every ruleset);
- a seat's genuine command whose chance the forger draws under another purpose name (the results re-derived
  from the seed under that name, so the chance check holds): `commands`, the rules draw under their own;
- a command body changed after the seat signed it: `seat signatures` (and `commands`, for an unkeyed seat);
- a seat's signature taken from another version or another match: `seat signatures`.

Each (ruleset, backend, keys) match is played once for the module and every test gets its own copy of the
export's lines.
"""

from __future__ import annotations

import copy
import hashlib
import io
import json
import random
import secrets
import uuid
from dataclasses import dataclass
from types import SimpleNamespace

import pytest

import domain.partitions
import domain.store
from domain import application, rulesets
from domain.chance import Chance, RecordedChance
from domain.command_records import BODY, SIGNATURE
from domain.match_options import ruleset_part
from domain.records import COMMAND_RECEIVED, EVIDENCE_FIELDS, MATCH_FINISHED
from domain.redecide import MATCH_KINDS
from domain.ruleset import Event, RuleViolation, command_of_body, config_from_dict
from service.signing import Signer
from service.verify_cli import EXIT_FAILED, EXIT_VERIFIED, run_verify
from tests.store.test_verify_seat_signatures import Signed
from tests.store.test_verify_tampering import failed, rechain_and_resign, recommit
from tests.support.api import going_on, legal_options
from tests.support.seat_keys import signed_post

SIGNATURES, COMMANDS = "seat signatures", "commands"
RULESETS = rulesets.available()
KEYS = {"ed25519": lambda n: ["ed25519"] * n, "p256": lambda n: ["p256"] * n, "unsigned": lambda n: [None] * n}
SEED = 3
# A draw in a command's write, for the chance forgery: the config under which random play (preferring what
# leads there) meets a command whose rules draw: gambitz's redraw of a hand stuck with Queens (kept by playing
# every other card), gambit-board's die re-rolling powers after a true call, dragons-gambit's deal of a new
# round, gattai-conflict's reshuffle once both Omens of a deck are spent (a Throwdown lasts long enough). Not
# every match gets there (gambitz about one in eight): each match tried is pinned (its server seed and id fixed
# by its number, so every run plays the same), from the first number known to get there; a change of the rules
# or of the records before the first command moves the draws, and the next numbers are tried. gambit-tcg draws
# only in its setup (checked below).
DRAWING = {
    "gambitz": ({"players": 2}, lambda body: body["type"] == "play" and not body["card"].startswith("queen"), 1),
    "gambit-board": ({"power_mode": "roll"}, lambda body: body["type"] == "call_bluff", 2),
    "dragons-gambit": ({"players": 3, "target_score": 40}, None, 0),
    "gattai-conflict": ({"mode": "throwdown"}, lambda body: body["type"] == "spend_omen", 2),
}
ATTEMPTS = 40
DRAWS_ONLY_IN_SETUP = {"gambit-tcg"}
MAX_STEPS = 600


@dataclass
class Kept:
    """A finished match as the forger holds it: its organizer's export, the service's keys, the seats' keys."""

    lines: list[dict]
    service_key: str
    signer: Signer
    seat_keys: dict


class Forgery:
    """A fresh copy of a kept match's export to forge, and `gambit verify` to run on it."""

    def __init__(self, kept: Kept, tmp_path) -> None:
        self.kept, self.tmp_path = kept, tmp_path
        self.lines = copy.deepcopy(kept.lines)
        self.match_id = self.lines[0]["match_id"]

    @property
    def records(self) -> list[dict]:
        """The export's records, between header and trailer."""
        return self.lines[1:-1]

    def verify(self, lines: list[dict]) -> tuple[int, dict]:
        """`gambit verify --json --key <service key>` on the lines; (exit code, report)."""
        path = self.tmp_path / "forged.ndjson"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        out = io.StringIO()
        code = run_verify(str(path), self.kept.service_key, as_json=True, out=out, err=io.StringIO())
        return code, json.loads(out.getvalue())

    def resigned(self, records: list[dict]) -> list[dict]:
        """The header, these records and a trailer, the chain rebuilt and signed with the service's key."""
        return rechain_and_resign([self.lines[0], *records, self.lines[-1]], self.kept.signer)


@pytest.fixture(scope="module")
def kept_matches() -> dict:
    """(backend, ruleset, keys) → Kept: each match is played once for the module."""
    return {}


@pytest.fixture
def finished(kept_matches, settings_for, tmp_path, monkeypatch):
    """`finished(ruleset, keys)`: a Forgery of a finished match of the ruleset, every seat keyed as `keys` says
    (`ed25519`, `p256` or `unsigned`), on this test's backend; pinned, so every run forges the same match."""

    def get(ruleset: str, keys: str) -> Forgery:
        wanted = (settings_for.database_url.split(":", 1)[0], ruleset, keys)
        if wanted not in kept_matches:
            played = _pinned(monkeypatch, f"{ruleset}/{keys}",
                             lambda: Signed(settings_for, tmp_path, ruleset, KEYS[keys], seed=SEED))
            kept_matches[wanted] = Kept(played.export_lines(), played.key, played.signer(), played.keys)
            played.app.extensions["gambit"].close()
        return Forgery(kept_matches[wanted], tmp_path)

    return get


def _writes(records: list[dict]):
    """(start, end) of every command's write that the match goes on after: its CommandReceived at `start`, its
    events up to `end` (exclusive), the next write's first record at `end`."""
    for start, record in enumerate(records):
        if record["kind"] != COMMAND_RECEIVED:
            continue
        end = next((i for i in range(start + 1, len(records)) if records[i]["kind"] in MATCH_KINDS), len(records))
        if end < len(records) and records[end]["kind"] != MATCH_FINISHED:
            yield start, end


def _replayed(header: dict, records: list[dict]):
    """The game's state after the records, folded by its ruleset (as the verifier folds them)."""
    ruleset = rulesets.get(header["ruleset"])
    state = ruleset.initial_state(config_from_dict(ruleset.Config, ruleset_part(header["config"])), header["seats"])
    for r in records:
        if r["kind"] in MATCH_KINDS:
            continue
        secret = {k: v for k, v in (r.get("secret") or {}).items() if k not in {c for _, c in EVIDENCE_FIELDS}}
        audience = None if r.get("audience") is None else tuple(r["audience"])
        state = ruleset.evolve(state, Event(r["kind"], r["public"], secret or None, audience, (), r["version"]))
    return state


def _refused_again(header: dict, records: list[dict], start: int, end: int) -> bool:
    """Whether the rules refuse the command at `start` sent again by its seat right after its own write."""
    ruleset, command = rulesets.get(header["ruleset"]), records[start]
    body = command["public"].get(BODY, (command.get("secret") or {}).get(BODY))
    version = records[end - 1]["version"] + 1
    try:
        ruleset.decide(_replayed(header, records[:end]), command["public"]["seat"],
                       command_of_body(ruleset, body), RecordedChance({}, scope=f"v{version + 1}", version=version))
    except RuleViolation:
        return True
    except Exception:  # noqa: BLE001 - it would draw chance, or not read: not the clean illegal move wanted
        return False
    return False


def _sign_into(record: dict, signature: str | None) -> None:
    """Put a command's signature (or none) where its record keeps it: beside its public or its secret body."""
    holder = record["public"] if BODY in record["public"] else record["secret"]
    holder.pop(SIGNATURE, None)
    if signature is not None:
        holder[SIGNATURE] = signature
    if holder is record.get("secret"):
        recommit(record)


def _body(record: dict) -> dict:
    return record["public"][BODY] if BODY in record["public"] else record["secret"][BODY]


# --- honest matches ----------------------------------------------------------------------------

@pytest.mark.parametrize("keys", sorted(KEYS))
@pytest.mark.parametrize("ruleset", RULESETS)
def test_an_honest_match_verifies_signed_or_unsigned_for_every_ruleset(finished, ruleset, keys):
    match = finished(ruleset, keys)
    code, report = match.verify(match.lines)
    assert code == EXIT_VERIFIED, failed(report)
    checks = {c["check"]: c for c in report["reports"][0]["checks"]}
    assert checks[COMMANDS]["status"] == "pass", checks[COMMANDS]
    if keys == "unsigned":
        assert SIGNATURES not in checks and report["reports"][0]["unsigned_seats"] == sorted(match.lines[0]["seats"])
    else:
        assert checks[SIGNATURES]["status"] == "pass" and report["reports"][0]["unsigned_seats"] == []


# --- an illegal move -----------------------------------------------------------------------------

@pytest.mark.parametrize("signed_by", ["the seat's own key", "no key (an unkeyed seat)"])
@pytest.mark.parametrize("ruleset", RULESETS)
def test_an_illegal_move_recorded_and_resigned_by_a_key_holder_fails_the_rules(finished, ruleset, signed_by):
    keyed = signed_by == "the seat's own key"
    match = finished(ruleset, "ed25519" if keyed else "unsigned")
    header, records = match.lines[0], match.records
    start, end = next(((s, e) for s, e in _writes(records)
                       if not any({"chance", "opens", "sealed_evidence"} & set(r["public"]) for r in records[s:e])
                       and _refused_again(header, records, s, e)), (None, None))
    assert start is not None, "no write whose command the rules refuse straight after it"
    # The forger cuts the match after that write (an honest, re-signed history) ...
    honest = match.resigned(records[:end])
    assert match.verify(honest)[0] == EXIT_VERIFIED, failed(match.verify(honest)[1])
    # ... and records the seat's command once more, with the events it gave, as the seat's next move.
    last = records[end - 1]["version"]
    again = copy.deepcopy(records[start:end])
    for offset, record in enumerate(again, start=1):
        record["version"] = last + offset
    command = again[0]
    command["public"]["decided_on"], command["public"]["idempotency_key"] = last, None
    seat = command["public"]["seat"]
    key = match.kept.seat_keys[seat] if keyed else None
    _sign_into(command, None if key is None else key.sign(match.match_id, last, _body(command)))
    code, report = match.verify(match.resigned([*records[:end], *again]))
    assert code == EXIT_FAILED
    assert set(failed(report)) == {COMMANDS}, failed(report)
    assert f"version {last + 1}: the rules refuse {seat}'s" in failed(report)[COMMANDS]


# --- chance drawn under another purpose ----------------------------------------------------------

class _Probe(Chance):
    """A chance source that notes whether the rules drew at all."""

    drew = False

    def _purpose(self, purpose: str) -> str:
        self.drew = True
        return super()._purpose(purpose)


def _draws(match, seat: str, body: dict) -> bool:
    """Whether the rules draw chance deciding `body` for `seat` now (deciding changes nothing)."""
    probe = _Probe(bytes(32), match.match_id, [], scope="v1", version=1)
    try:
        match.ruleset.decide(match.state, seat, command_of_body(match.ruleset, body), probe)
    except Exception:  # noqa: BLE001 - a body this probe cannot decide draws nothing worth forging
        return False
    return probe.drew


def _pinned(monkeypatch, name: str, create):
    """What `create` makes, its match given a server seed and an id fixed by `name` (and so its chance)."""
    fixed = hashlib.sha256(name.encode()).digest()
    with monkeypatch.context() as patch:
        patch.setattr(application, "secrets", SimpleNamespace(token_bytes=lambda n: fixed[:n],
                                                              token_urlsafe=secrets.token_urlsafe))
        pinned_id = lambda: uuid.UUID(bytes=fixed[:16], version=4)
        patch.setattr(domain.store, "uuid4", pinned_id)  # match ids: one store, or partitioned
        patch.setattr(domain.partitions, "uuid4", pinned_id)
        return create()


def _to_a_drawing_command(played: Signed, rng: random.Random, prefer) -> tuple[str, dict] | None:
    """Play signed random moves (those `prefer` picks, where it picks any) until a seat to act has a command whose
    rules draw chance; (seat, body), or None when the match ends first."""
    matches = played.app.extensions["gambit"].matches
    for _ in range(MAX_STEPS):
        summary = played.client.get(f"/matches/{played.match_id}").get_json()
        if summary["status"] == "finished":
            return None
        seat = rng.choice(sorted(summary["to_act"]))
        options = going_on(legal_options(played.client, played.match_id, played.tokens[seat], rng))
        match = matches.match(played.match_id)
        drawing = next((body for body in options if _draws(match, seat, body)), None)
        if drawing is not None:
            return seat, drawing
        body = rng.choice([b for b in options if prefer is None or prefer(b)] or options)
        response = signed_post(played.client, played.match_id, played.tokens[seat], played.keys[seat], body,
                               summary["version"])
        assert response.status_code == 201, response.get_json()
    return None


@pytest.mark.parametrize("ruleset", sorted(DRAWING))
def test_a_seats_command_whose_chance_the_key_holder_draws_under_another_purpose_fails(settings_for, tmp_path,
                                                                                      monkeypatch, ruleset):
    config, prefer, first_pinned = DRAWING[ruleset]
    for attempt in range(first_pinned, first_pinned + ATTEMPTS):
        played = _pinned(monkeypatch, f"{ruleset}/{attempt}",
                         lambda: Signed(settings_for, tmp_path, ruleset, KEYS["ed25519"], seed=0, until=0, config=config))
        found = _to_a_drawing_command(played, random.Random(attempt), prefer)
        if found is not None:
            break
        played.app.extensions["gambit"].close()
    assert found is not None, f"no command whose rules draw chance in {ATTEMPTS} matches"
    seat, body = found
    version = played.app.extensions["gambit"].matches.match(played.match_id).version
    signature = played.keys[seat].sign(played.match_id, version, body)  # the seat did send this command
    renamed = Chance._purpose
    with monkeypatch.context() as patch:
        # The insider draws every result of the write under a purpose of its own (still scoped by the version).
        patch.setattr(Chance, "_purpose", lambda chance, purpose: renamed(chance, f"{purpose}-again"))
        first = played.act_as_insider(seat, body, signature)
    lines = played.export_lines()
    assert any(r["public"].get("chance", {}).get("purpose", "").endswith("-again") for r in lines[1:-1])
    code, report = played.verify(lines)
    assert code == EXIT_FAILED
    assert set(failed(report)) == {COMMANDS}, failed(report)
    assert f"version {first}: chance purpose: the rules draw under" in failed(report)[COMMANDS]


@pytest.mark.parametrize("ruleset", sorted(DRAWS_ONLY_IN_SETUP))
def test_a_game_whose_rules_draw_only_in_the_setup_has_no_command_to_draw_under_another_purpose(
        settings_for, tmp_path, ruleset):
    played = Signed(settings_for, tmp_path, ruleset, KEYS["ed25519"], seed=SEED, until=0)
    assert _to_a_drawing_command(played, random.Random(SEED), None) is None
    lines = played.export_lines()
    assert lines[-2]["kind"] == MATCH_FINISHED
    setup_ends = next(i for i, r in enumerate(lines[1:-1]) if r["kind"] == COMMAND_RECEIVED)
    assert not any("chance" in r["public"] for r in lines[1 + setup_ends:-1])


# --- a tampered body, a replayed signature ---------------------------------------------------------

def _tampered(value):
    """Another value of a body's field."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, list):
        return value[1:] if value else [0]
    return {**value, "x": 1} if isinstance(value, dict) else 0


@pytest.mark.parametrize("keys", ["ed25519", "unsigned"])
@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_command_body_changed_after_it_was_sent_fails(finished, ruleset, keys):
    match = finished(ruleset, keys)
    commands = [r for r in match.records if r["kind"] == COMMAND_RECEIVED and len(_body(r)) > 1]
    assert commands, "no command with a field to change"
    target = next((r for r in commands if BODY in r["public"]), commands[0])  # a public body where there is one
    body = _body(target)
    field = next(k for k in sorted(body) if k != "type")
    body[field] = _tampered(body[field])
    if BODY not in target["public"]:
        recommit(target)
    code, report = match.verify(match.resigned(match.records))
    assert code == EXIT_FAILED
    check = SIGNATURES if keys != "unsigned" else COMMANDS
    assert f"version {target['version']}" in failed(report).get(check, ""), failed(report)


@pytest.mark.parametrize("replayed_from", ["another version", "another match"])
@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_seats_signature_replayed_from_another_version_or_match_fails(finished, ruleset, replayed_from):
    match = finished(ruleset, "ed25519")
    target = [r for r in match.records if r["kind"] == COMMAND_RECEIVED][-1]
    seat, decided_on = target["public"]["seat"], target["version"] - 1
    key = match.kept.seat_keys[seat]
    if replayed_from == "another version":
        signature = key.sign(match.match_id, decided_on - 1, _body(target))
    else:
        signature = key.sign(str(uuid.uuid4()), decided_on, _body(target))
    _sign_into(target, signature)
    code, report = match.verify(match.resigned(match.records))
    assert code == EXIT_FAILED and set(failed(report)) == {SIGNATURES}, failed(report)
    assert f"version {target['version']}" in failed(report)[SIGNATURES]
