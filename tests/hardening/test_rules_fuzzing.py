"""Rules fuzzing: random (not only legal) commands from every seat at random moments, per ruleset.

A match of each ruleset is played over HTTP (on SQLite and on PostgreSQL); between legal moves,
and now and then after a fast-forward through the domain, every seat — and callers with no,
malformed or foreign credentials — posts commands drawn from:

- legal commands of another seat (sent by the wrong seat), commands that were legal earlier
  (stale), legal commands with a stale or malformed `If-Match`;
- every command type of the ruleset with random field values of the right JSON types (drawn
  from what the match shows: card ids, pieces, seats, slots …, and random ones), with wrong
  JSON types, missing or extra fields, and legal commands with one field mutated;
- garbage: non-JSON, JSON that is not an object, bodies nested deeper than the limit, bodies
  over the size limit, a wrong content type, an over-long Idempotency-Key.

Every answer must be 201 or a 4xx application/problem+json (never a 5xx), and after every
answer that is not a 2xx the match summary (its version) and the view of every seat and of a
spectator must be exactly what they were before the command.
"""

from __future__ import annotations

import dataclasses
import json
import random
import typing
from collections import Counter

import pytest

from domain import rulesets
from tests.hardening.play import ENDERS, RULESETS, advance, legal_http_move, new_match
from tests.support.api import auth

# Fuzzed commands per ruleset and store (legal moves come on top).
FUZZED = 70
# A bound on the matches played to reach FUZZED (a loop that cannot end is a hang, not a failure).
MAX_MATCHES = 40
LEGAL_RATE = 0.3
FAST_FORWARD_RATE = 0.08

SENT: Counter = Counter()


class Fuzzer:
    """Random commands against one match, checking every answer and that rejections change nothing."""

    def __init__(self, client, matches, ruleset: str, rng: random.Random) -> None:
        self.client = client
        self.matches = matches
        self.ruleset_id = ruleset
        self.module = rulesets.get(ruleset)
        self.rng = rng
        self.match_id, self.tokens = new_match(client, ruleset, rng)
        self.base = f"/matches/{self.match_id}"
        # A seat token of another match: valid somewhere, not here.
        _, other_tokens = new_match(client, ruleset, rng)
        self.foreign_token = next(iter(other_tokens.values()))
        self.history: list[tuple[str, dict]] = []
        self.vocabulary: set = set(self.tokens) | {"", "x", "p9", "🂡", "a" * 200}
        self.numbers = [0, 1, 2, 3, -1, 7, 99, 2**31, -(2**63), 2**70]
        self.before = self.snapshot()

    # ----- observation ---------------------------------------------------------------------------
    def snapshot(self) -> dict:
        """The summary and every viewer's view: what a rejected command must leave untouched."""
        out = {"summary": self.client.get(self.base).get_json()}
        for seat, token in self.tokens.items():
            view = self.client.get(f"{self.base}/view", headers=auth(token))
            assert view.status_code == 200
            out[seat] = view.get_json()
            self._learn(out[seat])
        out["spectator"] = self.client.get(f"{self.base}/view").get_json()
        return out

    def _learn(self, value) -> None:
        """Collect strings and small numbers the match shows, to build plausible bodies from."""
        if isinstance(value, dict):
            for key, item in value.items():
                if len(self.vocabulary) < 400:
                    self.vocabulary.add(key)
                self._learn(item)
        elif isinstance(value, list):
            for item in value:
                self._learn(item)
        elif isinstance(value, str) and len(value) <= 40 and len(self.vocabulary) < 400:
            self.vocabulary.add(value)

    def legal(self, seat: str) -> list[dict]:
        response = self.client.get(f"{self.base}/legal-commands", headers=auth(self.tokens[seat]))
        assert response.status_code == 200
        # Commands that end the match at once (resign, concede) are left to legal play: fuzzing
        # them would only end matches early.
        commands = [c for c in response.get_json()["commands"] if c["type"] not in ENDERS]
        for body in commands:
            self.history.append((seat, body))
            self._learn(body)
        return commands

    @property
    def active(self) -> bool:
        return self.before["summary"]["status"] == "active"

    # ----- one step ----------------------------------------------------------------------------
    def step(self) -> None:
        roll = self.rng.random()
        if roll < FAST_FORWARD_RATE:
            advance(self.matches, self.match_id, self.rng, self.rng.randint(1, 15))
            self.before = self.snapshot()
        elif roll < FAST_FORWARD_RATE + LEGAL_RATE:
            for seat in self.before["summary"]["to_act"]:
                self.legal(seat)
            legal_http_move(self.client, self.match_id, self.tokens, self.rng)
            self.before = self.snapshot()
        else:
            self.fuzz()

    def fuzz(self) -> None:
        kind, seat, data, headers = self.generate()
        if isinstance(data, (bytes, str)):
            response = self.client.post(f"{self.base}/commands", data=data, headers=headers,
                                        content_type=headers.pop("Content-Type", "application/json"))
        else:
            response = self.client.post(f"{self.base}/commands", json=data, headers=headers)
        status = response.status_code
        SENT[str(status)] += 1
        what = f"{kind} by {seat}: {str(data)[:300]!r}"
        assert status == 201 or 400 <= status < 500, f"{what} → {status} {response.get_data(as_text=True)[:500]}"
        if status == 201:
            self.before = self.snapshot()
            return
        assert response.mimetype == "application/problem+json", f"{what} → {status} as {response.mimetype}"
        problem = response.get_json()
        assert problem["status"] == status and problem["code"] and problem["type"] and problem["title"], problem
        after = self.snapshot()
        for name in self.before:
            assert after[name] == self.before[name], f"{what} → {status} {problem['code']} changed the {name} view"

    # ----- generators --------------------------------------------------------------------------
    def generate(self) -> tuple[str, str, object, dict]:
        rng = self.rng
        seat = rng.choice(sorted(self.tokens))
        headers = auth(self.tokens[seat])
        kind = rng.choice(["wrong seat", "stale", "stale If-Match", "random fields", "random fields", "wrong types",
                           "mutated legal", "mutated legal", "garbage", "credentials", "headers"])
        if kind == "wrong seat":
            acting = [s for s in self.before["summary"]["to_act"]] or sorted(self.tokens)
            owner = rng.choice(acting)
            options = self.legal(owner)
            others = [s for s in self.tokens if s != owner]
            if options and others:
                return kind, rng.choice(others), rng.choice(options), auth(self.tokens[rng.choice(others)])
            kind = "stale"
        if kind == "stale" and self.history:
            owner, body = rng.choice(self.history)
            return kind, owner, body, auth(self.tokens[owner])
        if kind == "stale If-Match":
            acting = self.before["summary"]["to_act"]
            if acting:
                owner = rng.choice(acting)
                options = self.legal(owner)
                if options:
                    version = self.before["summary"]["version"]
                    stale = rng.choice([f'"{rng.randint(1, max(1, version - 1))}"', f'"{version + 1}"', "yesterday",
                                        'W/"-3"', '"' + "9" * 30 + '"'])
                    return kind, owner, rng.choice(options), {**auth(self.tokens[owner]), "If-Match": stale}
            kind = "random fields"
        if kind == "random fields":
            return kind, seat, self.random_body(right_types=True), headers
        if kind == "wrong types":
            return kind, seat, self.random_body(right_types=False), headers
        if kind == "mutated legal":
            owner = rng.choice(sorted(self.tokens))
            options = self.legal(owner) or [body for _, body in self.history[-50:]]
            if options:
                return kind, owner, self.mutate(dict(rng.choice(options))), auth(self.tokens[owner])
            return kind, seat, self.random_body(right_types=True), headers
        if kind == "garbage":
            return (kind, seat, *self.garbage(headers))
        if kind == "credentials":
            body = self.random_body(right_types=True)
            bad = rng.choice([{}, {"Authorization": "Bearer "}, {"Authorization": "Basic dXNlcjpwYXNz"},
                              {"Authorization": "Bearer " + "A" * 43}, auth(self.foreign_token),
                              {"Authorization": "Bearer " + self.tokens[seat][:-1]}])
            return kind, "nobody", body, bad
        # headers
        body = self.random_body(right_types=True)
        extra = rng.choice([{"Idempotency-Key": "k" * 201}, {"Idempotency-Key": ""}, {"If-Match": ""},
                            {"If-Match": "*"}, {"Idempotency-Key": "same-key"}])
        return "headers", seat, body, {**headers, **extra}

    def value(self, annotation, right: bool):
        rng = self.rng
        if isinstance(annotation, typing._UnionGenericAlias) or typing.get_origin(annotation) in (typing.Union,) or \
                type(annotation).__name__ == "UnionType":
            args = [a for a in typing.get_args(annotation) if a is not type(None)]
            if rng.random() < 0.2:
                return None
            annotation = args[0]
        strings = sorted(self.vocabulary)
        origin = typing.get_origin(annotation)
        if not right:
            return rng.choice([17, -2.5, True, None, ["a", 1], {"x": {"y": [None]}}, "", "string"])
        if annotation is str:
            return rng.choice(strings)
        if annotation is int:
            return rng.choice(self.numbers)
        if annotation is bool:
            return rng.random() < 0.5
        if origin is tuple:
            return [rng.choice(strings) for _ in range(rng.randint(0, 4))]
        if origin is dict:
            _, value_type = typing.get_args(annotation)
            if typing.get_origin(value_type) is tuple:
                return {rng.choice(strings): [rng.choice(strings) for _ in range(rng.randint(0, 3))]
                        for _ in range(rng.randint(0, 4))}
            return {rng.choice(strings): rng.choice(strings) for _ in range(rng.randint(0, 4))}
        return rng.choice(strings)

    def random_body(self, right_types: bool) -> dict:
        rng = self.rng
        cls = rng.choice([c for c in self.module.COMMANDS if c.type not in ENDERS])
        hints = typing.get_type_hints(cls)
        body: dict = {"type": cls.type}
        for f in dataclasses.fields(cls):
            if rng.random() < 0.85:
                body[f.name] = self.value(hints[f.name], right_types or rng.random() < 0.5)
        if rng.random() < 0.15:
            body[rng.choice(["flourish", "seat", "version", "__proto__", "type2"])] = rng.choice([1, "x", None])
        if rng.random() < 0.05:
            body["type"] = rng.choice([None, 3, "", "PLAY", cls.type.upper(), "pass ", ["pass"]])
        return body

    def mutate(self, body: dict) -> dict:
        rng = self.rng
        fields = [k for k in body if k != "type"]
        choice = rng.random()
        if fields and choice < 0.5:
            name = rng.choice(fields)
            current = body[name]
            if isinstance(current, bool):
                body[name] = not current
            elif isinstance(current, int):
                body[name] = current + rng.choice([-1, 1, 5, -100])
            elif isinstance(current, str):
                body[name] = rng.choice(sorted(self.vocabulary))
            elif isinstance(current, list):
                body[name] = current[:-1] if current and rng.random() < 0.5 else current + [rng.choice(sorted(self.vocabulary))]
            elif isinstance(current, dict):
                body[name] = {k: rng.choice(sorted(self.vocabulary)) for k in current} or {"x": "y"}
            else:
                body[name] = rng.choice(sorted(self.vocabulary))
        elif fields and choice < 0.7:
            body.pop(rng.choice(fields))
        elif choice < 0.85:
            body[rng.choice(["extra", "seat", "card2"])] = "x"
        else:
            body["type"] = rng.choice([c.type for c in self.module.COMMANDS if c.type not in ENDERS])
        return body

    def garbage(self, headers: dict) -> tuple[object, dict]:
        rng = self.rng
        choice = rng.randrange(10)
        if choice == 0:
            return b"{not json", headers
        if choice == 1:
            return rng.choice([[1, 2], "pass", 42, None, True, []]), headers
        if choice == 2:
            depth = rng.choice([33, 100, 5000])
            return ("[" * depth + "]" * depth).encode(), headers
        if choice == 3:
            return json.dumps({"type": "pass", "pad": "x" * 70_000}).encode(), headers
        if choice == 4:
            return b"type=pass", {**headers, "Content-Type": "application/x-www-form-urlencoded"}
        if choice == 5:
            return b"", headers
        if choice == 6:
            return json.dumps({"type": "pass"}).encode(), {**headers, "Content-Type": "text/plain"}
        if choice == 7:
            return b"\xff\xfe\x00garbage", headers
        if choice == 8:
            return json.dumps({"type": rng.choice([c.type for c in self.module.COMMANDS]),
                               "card": "x" * 5000}).encode(), headers
        return json.dumps({"type": "\u0000\ud7ff", "\u202e": "\u0000"}).encode(), headers


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", RULESETS)
def test_random_commands_from_every_seat_get_201_or_a_problem_and_rejections_change_nothing(client, app, ruleset):
    matches = app.extensions["gambit"].matches
    rng = random.Random(f"rules-fuzzing/{ruleset}")
    fuzzed = matches_played = 0
    # Matches end on their own after a random number of commands (the deal is the server's), so
    # enough of them are played to send FUZZED commands however short each one happens to be.
    while fuzzed < FUZZED and matches_played < MAX_MATCHES:
        matches_played += 1
        fuzzer = Fuzzer(client, matches, ruleset, rng)
        while fuzzed < FUZZED and fuzzer.active:
            before = sum(SENT.values())
            fuzzer.step()
            fuzzed += sum(SENT.values()) - before
    assert fuzzed >= FUZZED, f"only {fuzzed} fuzzed commands in {matches_played} matches"
