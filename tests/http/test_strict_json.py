"""Strict JSON at the door and in the chain; every config number has a range.

NaN/Infinity, lone UTF-16 surrogates and integers beyond ±(2**53 - 1) parse in Python but not
in every other JSON reader. Over HTTP they are a 422 `invalid_json_value` naming the field (never
a 500) and record nothing; `canonical` refuses them so no chained record can hold them; and every
integer of every ruleset's config has a range its `validate()` enforces.
"""

from __future__ import annotations

import dataclasses
import json
import random
import typing

import pytest

from domain import rulesets
from domain.records import canonical
from domain.ruleset import ConfigError, config_from_dict
from tests.support.api import auth, create_match, join_all, play_to_end

MAX_SAFE = 2**53 - 1
NOT_FINITE = ["NaN", "Infinity", "-Infinity", "1e400", "-1e400"]


def _post(client, url: str, text: str, headers: dict | None = None):
    """POST a JSON text as it is (the Flask client's json= could not send NaN or a lone surrogate)."""
    return client.post(url, data=text, content_type="application/json", headers=headers)


def _refused(response, field: str) -> dict:
    assert response.status_code == 422, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["code"] == "invalid_json_value" and body["status"] == 422, body
    assert body["field"] == field, body
    assert body["type"].endswith("/invalid_json_value")
    assert body["detail"].startswith("the body" if field == "(body)" else field), body
    return body


def _match_count(client) -> int:
    return len(client.get("/matches?limit=200").get_json()["matches"])


@pytest.fixture
def started(client):
    """A 2-seat gambitz match with both seats joined: (match_id, tokens)."""
    match = create_match(client, "gambitz", {"players": 2})
    return match["match_id"], join_all(client, match)


# ----- NaN and Infinity --------------------------------------------------------------------------

@pytest.mark.parametrize("constant", NOT_FINITE)
def test_a_non_finite_number_in_a_command_body_is_422_and_records_nothing(client, started, constant):
    mid, tokens = started
    before = client.get(f"/matches/{mid}").get_json()
    seat = before["to_act"][0]
    body = _refused(_post(client, f"/matches/{mid}/commands", f'{{"type": "play", "card": {constant}}}',
                          auth(tokens[seat])), "card")
    assert "NaN, Infinity and -Infinity" in body["detail"]
    assert client.get(f"/matches/{mid}").get_json() == before


@pytest.mark.parametrize("text, field", [
    ('{"ruleset": "gambitz", "config": {"players": NaN}}', "config.players"),
    ('{"ruleset": "gambitz", "config": {"scoring": {"king": {"1": Infinity}}}}', "config.scoring.king[\"1\"]"),
    ('{"ruleset": "gattai-conflict", "config": {"pilots": {"p1": {"steel": -Infinity}}}}', "config.pilots.p1.steel"),
    ('{"ruleset": "dragons-gambit", "config": {"target_score": 1e999}}', "config.target_score"),
    ('NaN', "(body)"),
])
def test_a_non_finite_number_in_a_config_is_422_naming_its_path(client, text, field):
    before = _match_count(client)
    _refused(_post(client, "/matches", text), field)
    assert _match_count(client) == before


# ----- lone surrogates ---------------------------------------------------------------------------

def test_a_lone_surrogate_in_a_seat_name_is_422_and_takes_no_seat(client):
    match = create_match(client, "gambitz", {"players": 2})
    mid = match["match_id"]
    for name in ('"\\ud800"', '"ok \\udfff"', '"\\ude00\\ud83d"'):
        _refused(_post(client, f"/matches/{mid}/seats", f'{{"name": {name}}}'), "name")
    after = client.get(f"/matches/{mid}").get_json()
    assert after["version"] == match["version"] and not any(s["joined"] for s in after["seats"])
    # A proper pair is one character (U+1F600) and is welcome.
    joined = _post(client, f"/matches/{mid}/seats", '{"name": "\\ud83d\\ude00"}')
    assert joined.status_code == 201
    assert client.get(f"/matches/{mid}").get_json()["seats"][0]["name"] == "\U0001F600"


def test_a_lone_surrogate_in_a_tournament_name_is_422(client):
    _refused(_post(client, "/tournaments", '{"name": "Autumn \\ud800 Open"}'), "name")
    assert _post(client, "/tournaments", '{"name": "Autumn Open"}').status_code == 201


def test_a_lone_surrogate_in_a_command_or_config_string_or_key_is_422(client, started):
    mid, tokens = started
    before = client.get(f"/matches/{mid}").get_json()
    seat = before["to_act"][0]
    _refused(_post(client, f"/matches/{mid}/commands", '{"type": "play", "card": "7-red\\udc00"}', auth(tokens[seat])),
             "card")
    assert client.get(f"/matches/{mid}").get_json() == before
    count = _match_count(client)
    _refused(_post(client, "/matches", '{"ruleset": "gambitz", "config": {"first_seat": "\\udbff"}}'),
             "config.first_seat")
    # The offending key is quoted in the path, its surrogate spelled as an escape (plain ASCII).
    body = _refused(_post(client, "/matches", '{"ruleset": "gambitz", "config": {"\\ud800": 1}}'),
                    'config["\\ud800"]')
    assert "key" in body["detail"]
    _refused(_post(client, "/matches", '{"ruleset": "gambitz\\ud800"}'), "ruleset")
    assert _match_count(client) == count


# ----- integers beyond the JSON-safe range -------------------------------------------------------

@pytest.mark.parametrize("number", [str(2**53), str(-2**53), "9" * 4300, "-" + "9" * 4300, "1" * 5000, str(2**64)])
def test_an_integer_beyond_2_53_in_a_config_is_422_and_the_service_answers_on(client, number):
    other = create_match(client, "dragons-gambit", {"players": 2})
    before = _match_count(client)
    for key in ("players", "caller_penalty", "target_score"):
        body = _refused(_post(client, "/matches", f'{{"ruleset": "dragons-gambit", "config": {{"{key}": {number}}}}}'),
                        f"config.{key}")
        assert str(MAX_SAFE) in body["detail"] and "2**53" in body["detail"]
    assert _match_count(client) == before
    assert client.get(f"/matches/{other['match_id']}").status_code == 200
    assert create_match(client, "dragons-gambit", {"players": 2, "target_score": 50})["config"]["target_score"] == 50
    assert client.get("/matches").status_code == 200


def test_the_largest_safe_integer_parses_and_meets_the_config_range(client):
    body = client.post("/matches", json={"ruleset": "dragons-gambit", "config": {"target_score": MAX_SAFE}}).get_json()
    assert body["code"] == "invalid_config" and body["field"] == "target_score"
    assert "1000000" in body["detail"]


def test_an_integer_beyond_2_53_in_a_command_body_is_422_and_records_nothing(client):
    match = create_match(client, "dragons-gambit", {"players": 2, "initial_peek": "choose"})
    tokens = join_all(client, match)
    mid = match["match_id"]
    before = client.get(f"/matches/{mid}").get_json()
    seat = before["to_act"][0]
    _refused(_post(client, f"/matches/{mid}/commands", f'{{"type": "peek", "first_slot": {2**53}, "second_slot": 1}}',
                   auth(tokens[seat])), "first_slot")
    assert client.get(f"/matches/{mid}").get_json() == before


def test_malformed_json_is_still_400(client):
    for text in ('{"name": NaN', '{"name": "\\ud800', "{", '{"name": Nan}'):
        response = _post(client, "/tournaments", text)
        assert response.status_code == 400 and response.get_json()["code"] == "invalid_json", text


# ----- a dispute ruling: the amended outcome goes in the chain -----------------------------------

@pytest.fixture
def disputed(client):
    """A finished dragons-gambit tournament match with a dispute filed: (match_id, organizer key, tokens)."""
    made = client.post("/tournaments", json={"name": "Autumn Open"}).get_json()
    key = made["organizer_key"]
    match = client.post("/matches", json={"ruleset": "dragons-gambit", "config": {"players": 3, "target_score": 30},
                                          "tournament_id": made["tournament_id"]}, headers=auth(key)).get_json()
    tokens = join_all(client, match)
    mid = match["match_id"]
    play_to_end(client, mid, tokens, random.Random(3))
    call = client.get(f"/matches/{mid}/audit/bluffs").get_json()["calls"][0]
    filed = client.post(f"/matches/{mid}/disputes", json={"call_version": call["call_version"], "reason": "miscount"},
                        headers=auth(tokens["p2"]))
    assert filed.status_code == 201
    return mid, key, tokens, call


def test_an_amended_outcome_with_nan_infinity_or_a_huge_integer_is_422_and_nothing_is_chained(client, disputed):
    mid, key, tokens, call = disputed
    ruling = f"/matches/{mid}/disputes/1/ruling"
    before = client.get(f"/matches/{mid}").get_json()
    cases = [
        ('{"winners": ["p2"], "scores": {"p1": NaN}}', "amended_outcome.scores.p1"),
        ('{"winners": [-Infinity]}', "amended_outcome.winners[0]"),
        ('{"winners": ["p2"], "margin": Infinity}', "amended_outcome.margin"),
        (f'{{"winners": ["p2"], "rounds": [{{"total": {2**60}}}]}}', "amended_outcome.rounds[0].total"),
        ('{"winners": ["p2"], "reason": "recount \\udfff"}', "amended_outcome.reason"),
    ]
    for outcome, field in cases:
        _refused(_post(client, ruling, f'{{"decision": "upheld", "note": "recount", "amended_outcome": {outcome}}}',
                       auth(key)), field)
    _refused(_post(client, ruling, '{"decision": "upheld", "note": "re\\ud800count"}', auth(key)), "note")
    dispute = f'{{"call_version": {call["call_version"]}, "reason": "\\ud800"}}'
    _refused(_post(client, f"/matches/{mid}/disputes", dispute, auth(tokens["p1"])), "reason")
    after = client.get(f"/matches/{mid}").get_json()
    assert after["version"] == before["version"] and after["outcome"] == before["outcome"]
    assert [d["status"] for d in client.get(f"/matches/{mid}/disputes").get_json()["disputes"]] == ["open"]
    # The dispute is still open to a ruling the rest of the world can read.
    amended = {"winners": ["p2"], "reason": "dispute 1 upheld", "scores": {"p1": 31, "p2": -2}}
    ruled = client.post(ruling, json={"decision": "upheld", "note": "recount", "amended_outcome": amended},
                        headers=auth(key))
    assert ruled.status_code == 201
    export = client.get(f"/matches/{mid}/export").get_data(as_text=True)
    for line in export.splitlines():
        json.loads(line, parse_constant=lambda name: pytest.fail(f"{name} in an export"))


# ----- canonical: the chain's encoding refuses them too ------------------------------------------

@pytest.mark.parametrize("value", [
    float("nan"), float("inf"), -float("inf"), {"outcome": {"scores": [1, float("nan")]}},
    "\ud800", {"name": "a\udfffb"}, {"\ud800": 1}, ["ok", ["\udc00"]],
    2**60, -2**60, 2**53, {"a": [{"b": 2**53}]}, (1, 2**64),
])
def test_canonical_refuses_what_json_cannot_carry(value):
    with pytest.raises(ValueError):
        canonical(value)


def test_canonical_keeps_safe_values_and_digit_strings():
    assert canonical({"b": MAX_SAFE, "a": -MAX_SAFE}) == b'{"a":-9007199254740991,"b":9007199254740991}'
    assert canonical({"hex": "1234567890123456789012", "n": 1.5, "t": True}) == \
        b'{"hex":"1234567890123456789012","n":1.5,"t":true}'
    assert canonical({"name": "\U0001F600"}) == '{"name":"\U0001F600"}'.encode()


# ----- every config number has a range -----------------------------------------------------------

# Every registered game, so a new one is checked without being named here.
RULESETS = rulesets.available()


def _int_fields(config_cls: type) -> list[str]:
    hints = typing.get_type_hints(config_cls)
    return [f.name for f in dataclasses.fields(config_cls) if hints[f.name] is int]


def _int_leaves(value, path=()):
    """Paths to every integer inside a default config value (nested dicts of ints)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _int_leaves(item, path + (key,))
    elif isinstance(value, int) and not isinstance(value, bool):
        yield path


def _with_leaf(value, path, leaf):
    if not path:
        return leaf
    return {**value, path[0]: _with_leaf(value[path[0]], path[1:], leaf)}


@pytest.mark.parametrize("ruleset_id", RULESETS)
@pytest.mark.parametrize("number", [10**9, -10**9])
def test_every_int_config_field_has_a_range(ruleset_id, number):
    config_cls = rulesets.get(ruleset_id).Config
    names = _int_fields(config_cls)
    assert names, f"{ruleset_id} has no int config field"
    for name in names:
        with pytest.raises(ConfigError) as info:
            config_from_dict(config_cls, {name: number})
        assert info.value.field == name
        assert any(ch.isdigit() for ch in info.value.detail), f"{ruleset_id}.{name}: the detail names no range"


# Ints nested in dict-valued config fields: every leaf of the defaults, and keyed maps that are
# empty by default (set on a key the rest of the default config accepts).
NESTED = {
    "gattai-conflict": [("threat_stacks", {"threat": 1})],
}


@pytest.mark.parametrize("ruleset_id", RULESETS)
@pytest.mark.parametrize("number", [10**9, -10**9])
def test_every_nested_int_config_value_has_a_range(ruleset_id, number):
    config_cls = rulesets.get(ruleset_id).Config
    default = config_cls()
    cases = []
    for f in dataclasses.fields(config_cls):
        value = getattr(default, f.name)
        if isinstance(value, dict):
            cases += [(f.name, _with_leaf(value, path, number)) for path in _int_leaves(value)]
    for name, raw in NESTED.get(ruleset_id, []):
        cases += [(name, _with_leaf(raw, path, number)) for path in _int_leaves(raw)]
    for name, raw in cases:
        with pytest.raises(ConfigError) as info:
            config_from_dict(config_cls, {name: raw})
        assert info.value.field == name, (name, raw)
        assert any(ch.isdigit() for ch in info.value.detail), f"{ruleset_id}.{name}: the detail names no range"


def test_config_from_dict_bounds_ints_even_where_a_ruleset_sets_no_range():
    @dataclasses.dataclass(frozen=True)
    class Unranged:
        count: int = 1
        table: dict[str, int] = dataclasses.field(default_factory=dict)

        def validate(self) -> None:
            """Sets no range of its own: only config_from_dict's JSON-safe bound applies."""

    assert config_from_dict(Unranged, {"count": MAX_SAFE, "table": {"a": -MAX_SAFE}}).count == MAX_SAFE
    for raw, field in [({"count": 2**53}, "count"), ({"count": -2**53}, "count"), ({"count": 10**4400}, "count"),
                       ({"table": {"a": 2**60}}, "table")]:
        with pytest.raises(ConfigError) as info:
            config_from_dict(Unranged, raw)
        assert info.value.field == field and "2**53" in info.value.detail
    with pytest.raises(ConfigError):
        config_from_dict(Unranged, {"count": True})


@pytest.mark.parametrize("number", ["1.5", "1.0", "1e16", "-0.0"])
def test_a_fraction_or_exponent_anywhere_is_422_since_no_field_takes_one(client, number):
    created = client.post("/matches", data='{"ruleset": "gambitz", "config": {"players": ' + number + '}}',
                          content_type="application/json")
    assert created.status_code == 422, created.get_json()
    assert created.get_json()["code"] == "invalid_json_value" and created.get_json()["field"] == "config.players"
