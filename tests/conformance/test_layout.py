"""Every game is laid out the same way: a newcomer who knows one ruleset package knows all five.

Each role of the contract lives in the file of that name in every game (domain/ruleset.py lists
them); no ruleset module imports another in a cycle; the shared scratch pad and state copy are
`domain.decision`, not per-game copies; the contract is reached by name, never by `hasattr`.
"""

from __future__ import annotations

import ast
import importlib
import pathlib

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


def test_every_ruleset_file_is_sized_to_read_in_one_sitting():
    long = {str(path.relative_to(ROOT)): n for path in (ROOT / "domain" / "rulesets").rglob("*.py")
            if (n := len(path.read_text().splitlines())) > MAX_LINES}
    assert not long, f"files over {MAX_LINES} lines: {long}"


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


@pytest.mark.parametrize("layer", ["domain", "projections", "service"])
def test_the_contract_is_reached_by_name_never_probed(layer):
    probing = [str(p.relative_to(ROOT)) for p in (ROOT / layer).rglob("*.py")
               if "hasattr(" in p.read_text() or "import importlib" in p.read_text()]
    assert not probing, f"hasattr/importlib in {probing}"
