"""The registry is checked by a type checker: every game implements the whole Ruleset protocol.

mypy reads `domain/rulesets/__init__.py`, where each game module is put in a
`dict[str, Ruleset]`; a module missing a member, or with a member of the wrong shape, is a type
error there (imports of other files are followed for their types only, so their own typing
debts do not count here).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_registered_ruleset_implements_the_protocol_in_full(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--follow-imports=silent", "--no-incremental", "--cache-dir", str(tmp_path),
         "domain/rulesets/__init__.py"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_registry_names_each_game_by_its_own_id():
    from domain import rulesets

    assert rulesets.available() == ["gambitz", "gambit-board", "dragons-gambit", "gambit-tcg", "gattai-conflict"]
    for ruleset_id, ruleset in rulesets.RULESETS.items():
        assert ruleset.RULESET_ID == ruleset_id
