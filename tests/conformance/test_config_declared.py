"""Every ruleset declares its config once, as data (domain/config_fields.py), and everything follows from it.

Each field of a ruleset's `Config` (and of the shared match options) has a type, a default and
a domain; the default config validates and fits each field's JSON Schema; a value outside each
field's domain is refused with `invalid_config` naming the field, in the domain and over HTTP;
and `GET /rulesets/{id}` serves exactly the declared fields. A game added to the registry is
checked here with no list to edit.
"""

from __future__ import annotations

import dataclasses

import pytest
from jsonschema import Draft202012Validator

from domain import rulesets
from domain.config_fields import ARRAY, BOOLEAN, FIELD_TYPES, INTEGER, OBJECT, STRING, DeclaredField, declared_fields
from domain.match_options import MatchOptions, split_config
from domain.ruleset import ConfigError, config_from_dict, config_to_dict

RULESET_IDS = rulesets.available()


def outside_values(declared: DeclaredField) -> list:
    """Values just outside a field's declared domain: past each bound, not a choice, the wrong shape."""
    domain = declared.domain
    if domain.type == INTEGER:
        assert domain.minimum is not None and domain.maximum is not None
        return [domain.minimum - 1, domain.maximum + 1, str(domain.minimum), True]
    if domain.type == STRING:
        return ["no-such-choice", 1, None]
    if domain.type == BOOLEAN:
        return ["true", 1, None]
    if domain.type == OBJECT:
        return [[], "x", {"no-such-key": {"no-such-key": 1}}]
    assert domain.type == ARRAY
    return [[], "x", [{"no-such-key": 1}]]


def _fields(ruleset_id: str) -> list[DeclaredField]:
    return declared_fields(rulesets.get(ruleset_id).Config)


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_every_config_field_declares_a_type_a_default_and_a_domain(ruleset_id):
    config_cls = rulesets.get(ruleset_id).Config
    declared = declared_fields(config_cls)  # raises for a field without a domain
    assert [d.name for d in declared] == [f.name for f in dataclasses.fields(config_cls)]
    for field in declared:
        assert field.domain.type in FIELD_TYPES, field.name
        assert field.default is not dataclasses.MISSING, f"{ruleset_id}.{field.name} has no default"
        assert field.domain.json_schema(), field.name
        if field.domain.type == INTEGER:
            assert field.domain.minimum is not None and field.domain.maximum is not None
        if field.domain.type == STRING:
            assert field.domain.choices


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_the_default_config_validates_and_fits_every_fields_schema(ruleset_id):
    config_cls = rulesets.get(ruleset_id).Config
    default = config_cls()
    default.validate()
    assert config_from_dict(config_cls, {}) == default
    assert config_from_dict(config_cls, config_to_dict(default)) == default
    for field in _fields(ruleset_id):
        errors = list(Draft202012Validator(field.domain.json_schema()).iter_errors(field.default_json()))
        assert not errors, (ruleset_id, field.name, errors)


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_a_value_outside_each_fields_domain_is_refused_naming_the_field(ruleset_id):
    config_cls = rulesets.get(ruleset_id).Config
    for field in _fields(ruleset_id):
        for value in outside_values(field):
            with pytest.raises(ConfigError) as refused:
                config_from_dict(config_cls, {field.name: value})
            assert refused.value.field == field.name, (field.name, value)
            schema = Draft202012Validator(field.domain.json_schema())
            assert not schema.is_valid(value), f"the schema of {ruleset_id}.{field.name} takes {value!r}"


def test_a_value_outside_each_match_options_domain_is_refused_naming_the_option():
    for field in declared_fields(MatchOptions):
        for value in outside_values(field):
            with pytest.raises(ConfigError) as refused:
                split_config({field.name: value})
            assert refused.value.field == field.name, (field.name, value)
            assert not Draft202012Validator(field.domain.json_schema()).is_valid(value), (field.name, value)


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_creating_a_match_with_a_value_outside_a_fields_domain_is_422_invalid_config(client, ruleset_id):
    before = client.get("/matches").get_json()["matches"]
    for field in _fields(ruleset_id):
        value = outside_values(field)[0]
        response = client.post("/matches", json={"ruleset": ruleset_id, "config": {field.name: value}})
        assert response.status_code == 422, (field.name, value)
        problem = response.get_json()
        assert (problem["code"], problem["field"]) == ("invalid_config", field.name), problem
    assert client.get("/matches").get_json()["matches"] == before


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_get_ruleset_serves_exactly_the_declared_fields_with_their_defaults_and_domains(client, ruleset_id):
    served = client.get(f"/rulesets/{ruleset_id}").get_json()
    declared = _fields(ruleset_id)
    assert [f["name"] for f in served["config_fields"]] == [d.name for d in declared]
    assert {f["name"]: f["default"] for f in served["config_fields"]} == served["default_config"]
    for entry, field in zip(served["config_fields"], declared, strict=True):
        assert entry["type"] == field.domain.type
        assert entry["schema"] == field.domain.json_schema()
        if field.domain.type == INTEGER:
            assert (entry["minimum"], entry["maximum"]) == (field.domain.minimum, field.domain.maximum)
        if field.domain.type == STRING:
            assert entry["choices"] == list(field.domain.choices or ())
    options = [(f["name"], f["default"]) for f in served["match_options"]]
    assert options == [("spectator_delay", 0), ("time_control", {"kind": "none"})]
