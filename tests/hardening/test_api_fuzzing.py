"""API fuzzing: schemathesis against api-spec/openapi.yaml and the live Flask app (in-process WSGI).

Every operation of the spec gets a bounded, derandomized number of generated requests (valid
and invalid per the spec: `GenerationMode.POSITIVE` and `NEGATIVE`). Path ids are drawn from a
seeded store — open, active and finished matches of every ruleset, tournaments, a dispute — as
well as generated at random, and the caller is drawn from: spectator, a seat of the match, the
tournament's organizer, another tournament's organizer, a forged token. Every response must:

- not be a server error (`not_a_server_error`);
- have a status declared for the operation (`status_code_conformance`), a declared content type
  (`content_type_conformance`), the declared headers (`response_headers_conformance`) and a body
  valid against the declared schema — error bodies included, as problem+json
  (`response_schema_conformance`);
- reject invalid input with a 4xx (`negative_data_rejection`, any 4xx being a rejection).

SQLite only: this is about the HTTP contract, not the store. Statuses and counts per operation
are printed in the terminal summary.
"""

from __future__ import annotations

import random
import uuid
from collections import Counter
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from service.app import create_app
from service.settings import Settings
from tests.hardening.play import RULESETS, advance, finish, new_match
from tests.support.api import auth

SPEC = Path(__file__).resolve().parents[2] / "api-spec" / "openapi.yaml"
MAX_EXAMPLES = 25
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_headers_conformance,
          response_schema_conformance, negative_data_rejection]

# Any 4xx is a rejection of invalid input (401 before the body is read, 404 for an unknown match …).
SCHEMA = schemathesis.openapi.from_path(
    SPEC, config=SchemathesisConfig.from_dict({"checks": {"negative_data_rejection": {"expected-statuses": ["4XX"]}}}))
OPERATIONS = {result.ok().label: result.ok() for result in SCHEMA.get_all_operations()}

EXAMPLES: Counter = Counter()
STATUSES: Counter = Counter()


class World:
    """A store with something behind every id: matches in every state, tournaments, a dispute."""

    def __init__(self, app) -> None:
        self.app = app
        client = app.test_client()
        matches = app.extensions["gambit"].matches
        rng = random.Random("api-fuzzing")
        home = client.post("/tournaments", json={"name": "Home"}).get_json()
        away = client.post("/tournaments", json={"name": "Away"}).get_json()
        self.tournament_ids = [home["tournament_id"], away["tournament_id"], str(uuid.uuid4())]
        self.organizer_key, self.foreign_key = home["organizer_key"], away["organizer_key"]
        self.tokens: dict[str, list[str]] = {}
        for ruleset in RULESETS:
            opened = client.post("/matches", json={"ruleset": ruleset, "tournament_id": home["tournament_id"]},
                                 headers=auth(home["organizer_key"])).get_json()
            self.tokens[opened["match_id"]] = []
            active, tokens = new_match(client, ruleset, rng, tournament_id=home["tournament_id"],
                                       organizer_key=home["organizer_key"])
            advance(matches, active, rng, 6)
            self.tokens[active] = list(tokens.values())
            done, tokens = new_match(client, ruleset, rng)
            finish(matches, done, rng, tokens, client)
            self.tokens[done] = list(tokens.values())
        # A ruled Final Gambit call with a dispute on it, so dispute numbers and call versions exist.
        disputed, tokens = new_match(client, "dragons-gambit", rng, tournament_id=home["tournament_id"],
                                       organizer_key=home["organizer_key"])
        def rulings() -> list[int]:
            return [r.originator_version for r in matches.records(disputed) if isinstance(r.public.get("bluff_call"), dict)]

        for _ in range(400):
            match = matches.match(disputed)
            if rulings() or match.status != "active":
                break
            seat = min(match.to_act())
            options = match.ruleset.legal_commands(match.state, seat)
            calls = [o for o in options if o.type == "call_final_gambit"]
            matches.act(disputed, seat, calls[0] if calls else rng.choice(options))
        if rulings():
            call_version = rulings()[0]
            filed = client.post(f"/matches/{disputed}/disputes", json={"call_version": call_version, "reason": "recount"},
                                headers=auth(tokens["p1"]))
            assert filed.status_code == 201, filed.get_json()
        self.tokens[disputed] = list(tokens.values())
        self.match_ids = [*self.tokens, str(uuid.uuid4())]


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("api-fuzzing")
    with pytest.MonkeyPatch.context() as patch:
        # A live SSE stream of an active match would stay open for ~a minute: bound it for the fuzzer.
        patch.setattr("service.events.STREAM_SECONDS", 0.5)
        app = create_app(Settings(database_url=f"sqlite:///{data_dir / 'store.sqlite3'}", data_dir=str(data_dir)))
        app.testing = True
        yield World(app)
        app.extensions["gambit"].close()


def _credentials(data, world: World, match_id: str | None) -> dict:
    caller = data.draw(st.sampled_from(["spectator", "seat", "organizer", "foreign organizer", "forged"]), label="caller")
    if caller == "seat" and match_id in world.tokens and world.tokens[match_id]:
        return auth(data.draw(st.sampled_from(world.tokens[match_id]), label="seat token"))
    if caller == "organizer":
        return auth(world.organizer_key)
    if caller == "foreign organizer":
        return auth(world.foreign_key)
    if caller == "forged":
        return auth("forged-" + data.draw(st.text("abcdef0123456789", min_size=0, max_size=43), label="forged"))
    return {}


@pytest.mark.slow
@pytest.mark.parametrize("label", sorted(OPERATIONS))
@settings(max_examples=MAX_EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_every_operation_answers_within_the_spec_and_never_with_a_server_error(world, label, data):
    operation = OPERATIONS[label]
    mode = data.draw(st.sampled_from([GenerationMode.POSITIVE, GenerationMode.NEGATIVE]), label="mode")
    path_parameters: dict = {}
    names = {p.name for p in operation.path_parameters}
    # Mostly ids that exist (so the handlers run past the lookup), sometimes generated ones.
    if "match_id" in names and data.draw(st.booleans(), label="known match") | data.draw(st.booleans()):
        path_parameters["match_id"] = data.draw(st.sampled_from(world.match_ids), label="match_id")
    if "tournament_id" in names and data.draw(st.booleans(), label="known tournament") | data.draw(st.booleans()):
        path_parameters["tournament_id"] = data.draw(st.sampled_from(world.tournament_ids), label="tournament_id")
    if "number" in names and data.draw(st.booleans(), label="known dispute"):
        path_parameters["number"] = data.draw(st.sampled_from([1, 2]), label="number")
    headers = _credentials(data, world, path_parameters.get("match_id"))
    case = data.draw(operation.as_strategy(generation_mode=mode, path_parameters=path_parameters or None,
                                           headers=headers or None), label="case")
    response = case.call(app=world.app)
    EXAMPLES[label] += 1
    STATUSES[str(response.status_code)] += 1
    case.validate_response(response, checks=CHECKS)


def test_every_operation_of_the_spec_is_fuzzed():
    """The parametrization covers the whole spec (a new operation is fuzzed without editing this file)."""
    spec_operations = {f"{method.upper()} {path}" for path, item in SCHEMA.raw_schema["paths"].items()
                       for method in item if method in ("get", "post", "put", "patch", "delete")}
    assert spec_operations == set(OPERATIONS)


# Integer parameters beyond what the store can hold (found by the fuzzer: `after` has no upper
# bound and reaches the database driver; SQLite raises OverflowError → 500, PostgreSQL copes).
# Each must be refused as a 400 problem (`invalid_parameter`) or served (nothing lies beyond),
# never a 500 — nor an exception inside an already-started SSE stream.
HUGE = str(2**70)


@pytest.mark.parametrize("path", [
    f"/matches?after={HUGE}",
    f"/matches?after={2**63}",
    f"/bluff-calls?after={HUGE}",
    "/matches/{finished}/events?after=" + HUGE,
    "/tournaments/{tournament}/access-log?after=" + HUGE,
])
def test_integer_parameters_beyond_64_bits_are_refused_or_served_never_a_server_error(world, path):
    client = world.app.test_client()
    headers = auth(world.organizer_key) if path.startswith("/tournaments") else {}
    response = client.get(path.format(finished=_finished(world), tournament=world.tournament_ids[0]), headers=headers)
    assert response.status_code in (200, 400), response.get_data(as_text=True)[:300]
    if response.status_code == 400:
        assert response.mimetype == "application/problem+json" and response.get_json()["code"] == "invalid_parameter"


@pytest.mark.parametrize("headers", [{"Last-Event-ID": HUGE}, {}], ids=["Last-Event-ID", "after"])
def test_an_sse_resume_point_beyond_64_bits_is_refused_or_ends_cleanly(world, headers):
    client = world.app.test_client()
    query = "" if headers else f"?after={HUGE}"
    response = client.get(f"/matches/{_finished(world)}/events{query}",
                          headers={"Accept": "text/event-stream", **headers})
    # Either refused up front (400 problem) or a stream that ends normally (nothing after the end).
    if response.status_code == 400:
        assert response.mimetype == "application/problem+json"
    else:
        assert response.status_code == 200
        assert "event: end" in response.get_data(as_text=True)


def _finished(world: World) -> str:
    matches = world.app.extensions["gambit"].matches
    return next(m for m in world.tokens if matches.match(m).status == "finished")
