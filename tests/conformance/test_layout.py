"""Every game is laid out the same way: a newcomer who knows one ruleset package knows all five.

Each role of the contract lives in the file of that name in every game (domain/ruleset.py lists
them); no ruleset module imports another in a cycle; the shared scratch pad and state copy are
`domain.decision`, not per-game copies; the contract (and every other attribute in the product) is
reached by name, never probed with `hasattr` or a `getattr` of a literal name; no product file,
Python or JavaScript, is longer than one sitting. Structural facts are read from the parsed code
(`ast`), never by searching its text, so a comment or a string that mentions them does not count.
"""

from __future__ import annotations

import ast
import importlib
import pathlib
import sys
import tomllib
import typing

import pytest

from domain import rulesets

ROOT = pathlib.Path(__file__).resolve().parents[2]

# role file -> the contract members defined there
ROLES = {
    "config": ["Config", "seat_names", "join_options"],
    "shapes": [],  # the state's TypedDict (test_every_game_declares_its_state_type_in_shapes_py)
    "commands": ["COMMANDS", "PHASES"],
    "events": ["EVENTS", "derived_secret", "derived_public"],
    "state": ["initial_state", "evolve", "FOLDS"],
    "rules": ["setup", "decide", "outcome", "time_out"],
    "legal": ["legal_commands", "legal_choices", "to_act", "may_act", "resigners"],
    "view": ["VIEWS", "CATALOGUE", "view", "catalogue"],
    "readjudicate": ["readjudicate"],
}

# A product file (Python or JavaScript) longer than this is split by role or mechanism (each file is
# read in one sitting).
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


def test_every_game_declares_its_state_type_in_shapes_py(ruleset_id):
    # The state's TypedDict sits below events.py and state.py, which both read it, so no module of
    # the game needs an import cycle to name its own state's type.
    package = rulesets.get(ruleset_id)
    shapes = importlib.import_module(f"{package.__name__}.shapes")
    folds = package.FOLDS
    state_types = [value for value in vars(shapes).values() if typing.is_typeddict(value)
                   and value.__module__ == shapes.__name__ and value.__name__.endswith("State")]
    assert state_types, f"{ruleset_id}: shapes.py declares no <Game>State TypedDict"
    assert typing.get_type_hints(package.initial_state)["return"] in state_types, (
        f"{ruleset_id}: initial_state does not return the state type of shapes.py")
    assert folds.events is package.EVENTS


def test_every_contract_member_is_defined_in_the_file_of_its_role(ruleset_id):
    package = rulesets.get(ruleset_id)
    for role, members in ROLES.items():
        module = importlib.import_module(f"{package.__name__}.{role}")
        for member in members:
            exported = getattr(package, member)
            if member.isupper():  # a declaration (COMMANDS, EVENTS, FOLDS, VIEWS): the object of that file
                assert exported is vars(module).get(member), f"{ruleset_id}.{member} is not {role}.{member}"
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


def _dotted(node: ast.expr) -> str:
    """A called name as written (`json.loads`, `fast_copy`), or "" for anything computed."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and (base := _dotted(node.value)):
        return f"{base}.{node.attr}"
    return ""


def _own_state_copies(path: pathlib.Path) -> list[str]:
    """Where a file copies state its own way: a `fast_copy` of its own, or `json.loads(json.dumps(...))`."""
    relative = str(path.relative_to(ROOT))
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=relative)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == "fast_copy":
            found.append(f"{relative}:{node.lineno}: def fast_copy")
        elif (isinstance(node, ast.Call) and _dotted(node.func) in {"json.loads", "loads"} and node.args
              and isinstance(node.args[0], ast.Call) and _dotted(node.args[0].func) in {"json.dumps", "dumps"}):
            found.append(f"{relative}:{node.lineno}: json.loads(json.dumps(...))")
    return found


def test_the_scratch_pad_and_state_copy_live_once():
    copies = [copy for p in sorted((ROOT / "domain" / "rulesets").rglob("*.py")) for copy in _own_state_copies(p)]
    assert not copies, f"rulesets copying state their own way (use domain.decision): {copies}"


def test_the_copy_check_finds_a_defined_fast_copy_and_a_json_round_trip_but_not_a_call_or_a_mention(
        tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    sample = tmp_path / "sample.py"
    sample.write_text("def fast_copy(s):\n    return json.loads(json.dumps(s))\n"
                      "fast_copy(x)\njson.loads(text)\nwords = 'json.loads(json.dumps(x))'\n")
    assert _own_state_copies(sample) == ["sample.py:1: def fast_copy", "sample.py:2: json.loads(json.dumps(...))"]


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


def _computed_imports(path: pathlib.Path) -> list[str]:
    """Every import by a computed name in a file: `__import__(...)` and importlib's `import_module(...)`."""
    relative = str(path.relative_to(ROOT))
    tree = ast.parse(path.read_text(), filename=relative)
    importers = {"__import__"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            importers.update(f"{alias.asname or alias.name}.import_module" for alias in node.names
                             if alias.name == "importlib")
        elif isinstance(node, ast.ImportFrom) and node.module == "importlib":
            importers.update(alias.asname or alias.name for alias in node.names if alias.name == "import_module")
    return [f"{relative}:{node.lineno}: {_dotted(node.func)}(...)" for node in ast.walk(tree)
            if isinstance(node, ast.Call) and _dotted(node.func) in importers]


@pytest.mark.parametrize("layer", ["domain", "projections", "service"])
def test_no_module_is_imported_by_a_computed_name(layer):
    dynamic = [found for p in sorted((ROOT / layer).rglob("*.py")) for found in _computed_imports(p)]
    assert not dynamic, f"modules imported by a computed name: {dynamic}"


def test_the_import_check_finds_import_module_and_dunder_import_but_not_importlib_metadata(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    sample = tmp_path / "sample.py"
    sample.write_text("import importlib as il\nfrom importlib import import_module as load\n"
                      "from importlib.metadata import version\nil.import_module(n)\nload(n)\n__import__(n)\nversion('x')\n")
    assert _computed_imports(sample) == [
        "sample.py:4: il.import_module(...)", "sample.py:5: load(...)", "sample.py:6: __import__(...)"]


def _product_scripts() -> list[pathlib.Path]:
    """Every JavaScript module the viewer serves (service/static, shipped as package data)."""
    return sorted((ROOT / "service" / "static").rglob("*.js"))


def test_every_product_file_is_sized_to_read_in_one_sitting():
    long = {str(path.relative_to(ROOT)): n for path in _product_files() + _product_scripts()
            if (n := len(path.read_text().splitlines())) > MAX_LINES}
    assert not long, f"product files over {MAX_LINES} lines (split them by responsibility): " + ", ".join(
        f"{name} ({n} lines)" for name, n in long.items())
