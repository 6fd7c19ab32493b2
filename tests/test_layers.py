"""The import direction is service → projections → domain; domain uses only stdlib + eventsourcing.

Above `service` sits only the entry point `gambit` (`python -m gambit`): it may import `service`,
and nothing else may.
"""

from __future__ import annotations

import ast
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENTRY_POINT_PACKAGES = {"gambit"}


def _product_packages() -> set[str]:
    """The top-level packages the distribution ships (pyproject's package list, without wildcards)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return {pattern.rstrip("*") for pattern in config["tool"]["setuptools"]["packages"]["find"]["include"]}


def _imports(package: str) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in (ROOT / package).rglob("*.py"):
        tree = ast.parse(path.read_text(), filename=str(path))
        names = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
        found[str(path.relative_to(ROOT))] = names
    return found


def test_domain_imports_only_the_standard_library_and_eventsourcing():
    allowed = set(sys.stdlib_module_names) | {"eventsourcing", "domain", "__future__"}
    offenders = {path: names - allowed for path, names in _imports("domain").items() if names - allowed}
    assert offenders == {}


def test_projections_never_import_the_web_layer():
    forbidden = {"service", "flask", "marshmallow", "gunicorn", "werkzeug"}
    offenders = {path: names & forbidden for path, names in _imports("projections").items() if names & forbidden}
    assert offenders == {}


def test_nothing_but_the_entry_point_imports_service():
    packages = _product_packages() - {"service"} - ENTRY_POINT_PACKAGES
    assert {"domain", "projections"} <= packages
    for package in packages:
        offenders = {path for path, names in _imports(package).items() if "service" in names}
        assert offenders == set(), package


def test_the_entry_point_only_starts_the_service():
    assert ENTRY_POINT_PACKAGES <= _product_packages(), "the entry point ships with the distribution"
    allowed = set(sys.stdlib_module_names) | {"service", "__future__"} | ENTRY_POINT_PACKAGES
    for package in ENTRY_POINT_PACKAGES:
        offenders = {path: names - allowed for path, names in _imports(package).items() if names - allowed}
        assert offenders == {}, package
