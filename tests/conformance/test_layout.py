"""Every game is laid out the same way: a newcomer who knows one ruleset package knows all five.

Each role of the contract lives in the file of that name in every game (domain/ruleset.py lists
them); no ruleset module imports another in a cycle; the shared scratch pad and state copy are
`domain.decision`, not per-game copies; the contract (and every other attribute in the product) is
reached by name, never probed with `hasattr` or a `getattr` of a literal name.
"""

from __future__ import annotations

import ast
import importlib
import pathlib
import sys
import tomllib

import pytest

from domain import rulesets

ROOT = pathlib.Path(__file__).resolve().parents[2]

# role file -> the contract members defined there
ROLES = {
    "config": ["Config", "seat_names", "join_options"],
    "commands": ["COMMANDS"],
    "events": ["derived_secret", "derived_public"],
    "state": ["initial_state", "evolve"],
    "rules": ["setup", "decide", "outcome", "time_out"],
    "legal": ["legal_commands", "legal_choices", "to_act", "may_act"],
    "view": ["view", "catalogue"],
    "readjudicate": ["readjudicate"],
}

# A file longer than this is split by role or mechanism (each file is read in one sitting).
MAX_LINES = 520


@pytest.fixture(params=sorted(rulesets.RULESETS), name="ruleset_id")
def _ruleset_id(request):
    return request.param


def test_every_game_is_a_package_with_one_file_per_role(ruleset_id):
    package = rulesets.get(ruleset_id)
    folder = pathlib.Path(package.__file__).parent
    assert pathlib.Path(package.__file__).name == "__init__.py", f"{ruleset_id} is a single module, not a package"
    missing = [role for role in ROLES if not (folder / f"{role}.py").exists()]
    assert not missing, f"{ruleset_id} lacks {missing}"


def test_every_contract_member_is_defined_in_the_file_of_its_role(ruleset_id):
    package = rulesets.get(ruleset_id)
    for role, members in ROLES.items():
        module = importlib.import_module(f"{package.__name__}.{role}")
        for member in members:
            exported = getattr(package, member)
            if member == "COMMANDS":
                assert exported is module.COMMANDS, f"{ruleset_id}.COMMANDS is not {role}.COMMANDS"
                continue
            assert exported.__module__ == module.__name__, (
                f"{ruleset_id}.{member} is defined in {exported.__module__}, not {module.__name__}")


def _imports(path: pathlib.Path, module: str) -> set[str]:
    """The domain modules a file imports (relative imports resolved; a package's own submodules included)."""
    tree = ast.parse(path.read_text())
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - (node.level - 1)]
                base = ".".join(parts + ([node.module] if node.module else []))
            for alias in node.names:
                found.add(f"{base}.{alias.name}")
            found.add(base)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def _domain_modules() -> dict[str, pathlib.Path]:
    out = {}
    for path in (ROOT / "domain").rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def test_no_domain_module_imports_itself_through_a_cycle():
    modules = _domain_modules()
    graph = {name: {dep for dep in _imports(path, name) if dep in modules and dep != name}
             for name, path in modules.items()}
    # A package's __init__ importing its own submodules is how it exports them, not a cycle: only
    # a submodule importing its package (or a sibling that leads back) closes one.
    for name, deps in graph.items():
        graph[name] = {dep for dep in deps if not (dep.startswith(name + ".") and modules[name].name == "__init__.py")}
    state: dict[str, int] = {}
    cycle: list[str] = []

    def visit(node: str, trail: list[str]) -> bool:
        state[node] = 1
        for dep in sorted(graph[node]):
            if state.get(dep) == 1:
                cycle.extend(trail[trail.index(dep):] + [node, dep] if dep in trail else [node, dep])
                return True
            if dep not in state and visit(dep, trail + [node]):
                return True
        state[node] = 2
        return False

    for name in sorted(graph):
        if name not in state and visit(name, []):
            break
    assert not cycle, f"import cycle: {' -> '.join(cycle)}"


def test_the_scratch_pad_and_state_copy_live_once():
    copies = [str(p.relative_to(ROOT)) for p in (ROOT / "domain" / "rulesets").rglob("*.py")
              if "def fast_copy" in p.read_text() or "json.loads(json.dumps(" in p.read_text()]
    assert not copies, f"rulesets copying state their own way (use domain.decision): {copies}"


# `getattr` with a literal attribute name that the product keeps on purpose: (file, name) -> why.
# Everything else is reached by name, so a type checker sees it (a missing member fails mypy, not
# a match in play).
PROBES_ALLOWED = {
    # The limits library's private sweep, under its mangled name (a name mypy cannot see).
    ("service/ratelimit.py", "_MemoryStorage__expire_events"),
}


def _product_files() -> list[pathlib.Path]:
    """Every Python file of the packages the distribution ships (pyproject's package list)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    packages = [p.rstrip("*") for p in config["tool"]["setuptools"]["packages"]["find"]["include"]]
    return sorted(path for package in packages for path in (ROOT / package).rglob("*.py"))


def _probes(path: pathlib.Path) -> list[str]:
    """Every `hasattr(...)` and every `getattr(obj, "literal", ...)` in a file, as `file:line: call`."""
    relative = str(path.relative_to(ROOT))
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=relative)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        if node.func.id == "hasattr":
            found.append(f"{relative}:{node.lineno}: hasattr")
        elif node.func.id == "getattr" and len(node.args) >= 2:
            name = node.args[1]
            if isinstance(name, ast.Constant) and isinstance(name.value, str) and (
                    (relative, name.value) not in PROBES_ALLOWED):
                found.append(f"{relative}:{node.lineno}: getattr(..., {name.value!r})")
    return found


def test_the_product_reaches_attributes_by_name_never_by_probing():
    probing = [probe for path in _product_files() for probe in _probes(path)]
    assert not probing, "attributes probed instead of reached by name (a type checker cannot follow them):\n" + (
        "\n".join(probing))


def test_the_probe_check_finds_hasattr_and_literal_getattr_but_not_a_computed_name(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    sample = tmp_path / "sample.py"
    sample.write_text("hasattr(a, 'b')\ngetattr(a, 'b', None)\ngetattr(a, name)\nx.getattr(a, 'b')\n")
    assert _probes(sample) == ["sample.py:1: hasattr", "sample.py:2: getattr(..., 'b')"]


def test_every_allowed_probe_is_still_there():
    kept = {(str(path.relative_to(ROOT)), node.args[1].value) for path in _product_files()
            for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name) and node.func.id == "getattr" and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)}
    assert kept >= PROBES_ALLOWED, f"allowed probes that are gone (drop them from the list): {PROBES_ALLOWED - kept}"


@pytest.mark.parametrize("layer", ["domain", "projections", "service"])
def test_no_module_is_imported_by_a_computed_name(layer):
    dynamic = [str(p.relative_to(ROOT)) for p in (ROOT / layer).rglob("*.py") if "import importlib" in p.read_text()]
    assert not dynamic, f"importlib in {dynamic}"


def _product_scripts() -> list[pathlib.Path]:
    """Every JavaScript module the viewer serves (service/static, shipped as package data)."""
    return sorted((ROOT / "service" / "static").rglob("*.js"))


def test_every_product_file_is_sized_to_read_in_one_sitting():
    long = {str(path.relative_to(ROOT)): n for path in _product_files() + _product_scripts()
            if (n := len(path.read_text().splitlines())) > MAX_LINES}
    assert not long, f"product files over {MAX_LINES} lines (split them by responsibility): " + ", ".join(
        f"{name} ({n} lines)" for name, n in long.items())
