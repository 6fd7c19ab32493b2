"""Config declarations (domain/config_fields.py): docs/config.md is generated from them, and a
declaration that does not say what it allows is refused when the game is imported."""

from __future__ import annotations

from pathlib import Path

import pytest

from domain.config_docs import render
from domain.config_fields import INTEGER, OBJECT, STRING, Domain
from domain.ruleset import ConfigError, config_from_dict
from domain.rulesets import gambit_board, gambit_tcg, gambitz, gattai_conflict

CONFIG_MD = Path(__file__).resolve().parent.parent / "docs" / "config.md"


def test_docs_config_md_is_what_the_declarations_generate():
    assert CONFIG_MD.read_text() == render(), (
        "docs/config.md differs from the config declarations: run `python -m domain.config_docs > docs/config.md`"
    )


@pytest.mark.parametrize("domain", [
    {"type": INTEGER, "minimum": 0},
    {"type": INTEGER, "maximum": 3},
    {"type": STRING},
    {"type": OBJECT},
    {"type": OBJECT, "schema": {"type": "object", "oneOf": [{"required": ["a"]}, {"required": ["b"]}]}},
    {"type": "float", "minimum": 0, "maximum": 1},
])
def test_a_domain_that_does_not_say_what_it_allows_is_refused(domain):
    with pytest.raises(ValueError):
        Domain(**domain)


def test_refusals_name_the_whole_domain_and_the_reason_it_is_what_it_is():
    cases = [
        (gattai_conflict.Config, {"harmony": 8}, "harmony", "must be an integer from 1 (Red) to 7 (Violet)"),
        (gambit_tcg.Config, {"players": 3}, "players", "must be 2: gambit-tcg is played 1v1 by seats p1 and p2"),
        (gambit_board.Config, {"board": "longboard"}, "board", "must be one of standard, bridges"),
        (gattai_conflict.Config, {"pilots": {"p1": {}}, "commander": "p2"}, "commander", "must be one of p1"),
    ]
    for config_cls, raw, field, detail in cases:
        with pytest.raises(ConfigError) as refused:
            config_from_dict(config_cls, raw)
        assert (refused.value.field, refused.value.detail) == (field, detail)


def test_a_structured_value_is_judged_by_its_declared_schema_naming_where_inside_it_is_wrong():
    cases = [
        (gattai_conflict.Config, {"pilots": {"p1": {"steel": 11}}}, "pilots", "p1.steel must be an integer from 0 to 10"),
        (gattai_conflict.Config, {"pilots": {"p1": {"wit": 1}}}, "pilots", "p1 has an unknown key 'wit'"),
        (gattai_conflict.Config, {"threats": [{"name": "kaiju", "rating": 11}]}, "threats",
         "[0].rating must be an integer from 1 to 10"),
        (gattai_conflict.Config, {"threats": [{"name": ""}]}, "threats", "[0].name must be 1 to 40 characters"),
        (gattai_conflict.Config, {"threat_stacks": {"threat": 6}}, "threat_stacks",
         "threat must be an integer from 0 to 5"),
        (gambitz.Config, {"scoring": {"king": {"1": 101}}}, "scoring", "king.1 must be an integer from -100 to 100"),
        (gambitz.Config, {"scoring": {"queen": {"1": 1}}}, "scoring", "queen has an unknown key '1'"),
    ]
    for config_cls, raw, field, detail in cases:
        with pytest.raises(ConfigError) as refused:
            config_from_dict(config_cls, raw)
        assert refused.value.field == field
        assert refused.value.detail.startswith(detail), refused.value.detail


def test_what_a_schema_cannot_say_is_the_fields_check():
    cases = [
        (gattai_conflict.Config, {"pilots": {"p2": {}}}, "pilots", "must name one to four pilots p1..pN, in order"),
        (gattai_conflict.Config, {"pilots": {"p1": {"charges": 3, "charges_max": 2}}}, "pilots",
         "p1.charges exceeds charges_max"),
        (gattai_conflict.Config, {"threats": [{"name": "a"}, {"name": "a"}]}, "threats", "'a' is named twice"),
        (gattai_conflict.Config, {"threat_stacks": {"drone": 1}}, "threat_stacks", "'drone' is not one of the threats"),
    ]
    for config_cls, raw, field, detail in cases:
        with pytest.raises(ConfigError) as refused:
            config_from_dict(config_cls, raw)
        assert (refused.value.field, refused.value.detail) == (field, detail)
