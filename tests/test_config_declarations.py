"""Config declarations (domain/config_fields.py): docs/config.md is generated from them, and a
declaration that does not say what it allows is refused when the game is imported."""

from __future__ import annotations

from pathlib import Path

import pytest

from domain.config_docs import render
from domain.config_fields import INTEGER, OBJECT, STRING, Domain
from domain.ruleset import ConfigError, config_from_dict
from domain.rulesets import gambit_board, gambit_tcg, gattai_conflict

CONFIG_MD = Path(__file__).resolve().parent.parent / "docs" / "config.md"


def test_docs_config_md_is_what_the_declarations_generate():
    assert CONFIG_MD.read_text() == render(), (
        "docs/config.md differs from the config declarations: run `python -m domain.config_docs > docs/config.md`"
    )


@pytest.mark.parametrize("domain", [
    {"type": INTEGER, "minimum": 0},
    {"type": INTEGER, "maximum": 3},
    {"type": STRING},
    {"type": OBJECT, "schema": {"type": "object"}},
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
