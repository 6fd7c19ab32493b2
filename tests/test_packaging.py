"""What can be checked of the distribution and the image without Docker.

The Dockerfile copies files that exist and builds a regular (non-editable) install of them; the
same install, made here from the same files in a fresh virtual environment, starts `gambit` and
`python -m gambit` and serves. The compose file's services, volumes, variables and ports agree
with each other and with the image. One version, one licence, a changelog.
"""

from __future__ import annotations

import ast
import importlib.metadata
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import time
import tomllib
import urllib.request
from pathlib import Path

import pytest
import yaml

from tests.e2e.conftest import free_port

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = ROOT / "deploy" / "Dockerfile"
COMPOSE = ROOT / "deploy" / "compose.yaml"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
VERSION = PYPROJECT["project"]["version"]


def _instructions() -> list[tuple[str, str]]:
    """The Dockerfile's instructions as (KEYWORD, arguments), continuation lines joined."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    found = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, arguments = line.partition(" ")
            found.append((keyword.upper(), arguments.strip()))
    return found


def _copied_sources() -> list[tuple[str, str]]:
    """(source, destination) of every COPY from the build context (not from another stage)."""
    pairs = []
    for keyword, arguments in _instructions():
        if keyword != "COPY" or "--from=" in arguments:
            continue
        parts = [part for part in shlex.split(arguments) if not part.startswith("--")]
        pairs += [(source, parts[-1]) for source in parts[:-1]]
    return pairs


def test_every_file_the_dockerfile_copies_is_in_the_repository():
    sources = [source for source, _ in _copied_sources()]
    assert {"pyproject.toml", "README.md", "LICENSE", "domain", "service", "gambit"} <= set(sources)
    missing = [source for source in sources if not (ROOT / source).exists()]
    assert missing == []


def test_the_docker_ignore_file_lets_every_copied_file_through():
    kept = {
        line[1:].rstrip("/")
        for line in (ROOT / "deploy" / "Dockerfile.dockerignore").read_text().splitlines()
        if line.startswith("!")
    }
    assert {source for source, _ in _copied_sources()} <= kept


def test_the_image_installs_the_repository_as_a_regular_package():
    runs = [arguments for keyword, arguments in _instructions() if keyword == "RUN"]
    installs = [run for run in runs if "pip install" in run]
    assert installs and all(re.search(r"pip install \.( |$)", run) for run in installs)
    assert not any(re.search(r"pip install[^&]* (-e|--editable)\b", run) for run in runs)
    packages = set(PYPROJECT["tool"]["setuptools"]["packages"]["find"]["include"])
    copied = {source for source, _ in _copied_sources()}
    assert {pattern.rstrip("*") for pattern in packages} <= copied, "every package of the distribution is copied"


def test_the_image_runs_gambit_serve_as_a_non_root_user_and_checks_health_on_the_configured_port():
    instructions = dict(_instructions())
    user = instructions["USER"].split(":")[0]
    assert user.isdigit() and int(user) != 0
    healthcheck = instructions["HEALTHCHECK"]
    assert "GAMBIT_PORT" in healthcheck and ":8000" not in healthcheck and "/healthz" in healthcheck
    assert yaml.safe_load(instructions["ENTRYPOINT"]) == ["gambit"]
    assert yaml.safe_load(instructions["CMD"]) == ["serve"]
    env = instructions["ENV"]
    config = re.search(r"GAMBIT_GUNICORN_CONFIG=(\S+)", env).group(1)
    assert (config, "deploy/gunicorn.conf.py") in {(dest, src) for src, dest in _copied_sources()}


def _read_variables() -> set[str]:
    """Every GAMBIT_* variable the product or its gunicorn settings read."""
    names: set[str] = set()
    for path in [*ROOT.glob("service/**/*.py"), *ROOT.glob("domain/**/*.py"), ROOT / "deploy" / "gunicorn.conf.py"]:
        names |= set(re.findall(r"GAMBIT_[A-Z_]+", path.read_text()))
    return names


def test_the_compose_file_wires_services_volumes_variables_and_ports_that_exist():
    compose = yaml.safe_load(COMPOSE.read_text())
    services = compose["services"]
    assert {"postgres", "redis", "api", "projector", "signing-key"} <= set(services)
    volumes = set(compose["volumes"])
    known = _read_variables()
    for name, service in services.items():
        assert set(service.get("depends_on", {})) <= set(services) - {name}, name
        for mount in service.get("volumes", []):
            assert mount.split(":")[0] in volumes, (name, mount)
        for variable in service.get("environment", {}):
            if variable.startswith("GAMBIT_"):
                assert variable in known, (name, variable)
        if "build" in service:
            assert (
                COMPOSE.parent / service["build"]["context"] / service["build"]["dockerfile"]
            ).resolve() == DOCKERFILE
            assert "user" not in service, "the services run as the image's non-root user"
    api, projector = services["api"], services["projector"]
    assert api["ports"] == [f"{api['environment']['GAMBIT_PORT']}:{api['environment']['GAMBIT_PORT']}"]
    assert "healthcheck" not in api, "the image's HEALTHCHECK (on GAMBIT_PORT) applies"
    assert api["environment"]["GAMBIT_DATABASE_URL"].startswith("postgresql://")
    assert api["environment"]["GAMBIT_RATE_LIMIT_STORAGE"].startswith("redis://redis:")
    assert projector["command"] == ["project"] and projector["environment"] == {
        key: value for key, value in api["environment"].items() if key in projector["environment"]
    }
    for dependency in ("postgres", "redis"):
        assert "healthcheck" in services[dependency]
        assert api["depends_on"][dependency] == {"condition": "service_healthy"}


def test_the_signing_key_is_made_once_where_the_api_and_the_projector_read_it():
    services = yaml.safe_load(COMPOSE.read_text())["services"]
    keygen = services["signing-key"]
    data_dir = keygen["environment"]["GAMBIT_DATA_DIR"]
    assert "GAMBIT_DATA_DIR" in " ".join(keygen["command"])
    for name in ("api", "projector"):
        service = services[name]
        assert service["environment"]["GAMBIT_DATA_DIR"] == data_dir
        assert set(keygen["volumes"]) <= set(service["volumes"])
        assert service["depends_on"]["signing-key"] == {"condition": "service_completed_successfully"}
        assert "GAMBIT_SIGNING_KEY" not in service["environment"], "a key file the image's user cannot read"
    # The image creates the data directory for its user, so a fresh volume mounted there is theirs.
    chown = " ".join(arguments for keyword, arguments in _instructions() if keyword == "RUN")
    user = dict(_instructions())["USER"]
    assert f"chown {user} {data_dir}" in chown


def _mounts(service: dict) -> dict[str, str]:
    """A service's volumes: volume name → where it is mounted."""
    return dict(mount.split(":")[:2] for mount in service.get("volumes", []))


def test_two_witnesses_each_keep_their_own_key_and_state_and_the_api_asks_both_for_a_quorum_of_two():
    services = yaml.safe_load(COMPOSE.read_text())["services"]
    witnesses = [name for name, service in services.items() if service.get("command", [None])[0] == "witness"]
    assert witnesses == ["witness-1", "witness-2"]
    assert services["api"]["environment"]["GAMBIT_WITNESS_QUORUM"] == str(len(witnesses))
    states = set()
    for name in witnesses:
        service, key_step = services[name], services[f"{name}-key"]
        environment = service["environment"]
        assert environment["GAMBIT_WITNESS_NAME"] == name and key_step["environment"]["GAMBIT_WITNESS_NAME"] == name
        state = next(volume for volume, path in _mounts(service).items() if path == environment["GAMBIT_WITNESS_STATE"])
        states.add(state)
        assert _mounts(key_step) == _mounts(service), "the key step makes the key where the witness keeps it"
        assert "gambit-data" not in _mounts(service), "a witness never holds the service's signing key"
        others = [other for other in services if other not in (name, f"{name}-key")]
        assert all(state not in _mounts(services[other]) for other in others), "nothing else reads a witness's state"
        assert service["depends_on"] == {step: {"condition": "service_completed_successfully"}
                                         for step in ("log-vkey", f"{name}-key")}
        assert "GAMBIT_WITNESS_PORT" in " ".join(service["healthcheck"]["test"]), "its health is asked on its port"
        assert services["api"]["depends_on"][f"{name}-key"] == {"condition": "service_completed_successfully"}
        assert name not in services["api"]["depends_on"], "writes never wait for a witness to run"
    assert len(states) == len(witnesses)


def test_the_compose_steps_publish_the_keys_the_api_and_the_witnesses_are_started_with(tmp_path):
    from service.app import create_app
    from service.settings import Settings
    from service.witness import Witness
    from service.witnessing import parse_witnesses

    services = yaml.safe_load(COMPOSE.read_text())["services"]
    public = "/var/lib/gambit-public"
    here = tmp_path / "public"
    here.mkdir()
    store = {"GAMBIT_DATABASE_URL": f"sqlite:///{tmp_path}/s.sqlite3", "GAMBIT_DATA_DIR": str(tmp_path / "data")}

    def run(code: str, environment: dict) -> None:
        done = subprocess.run([sys.executable, "-c", code.replace(public, str(here))], check=False, cwd=ROOT,
                              capture_output=True, text=True, env={**os.environ, **environment}, timeout=120)
        assert done.returncode == 0, done.stderr

    run(services["log-vkey"]["command"][0], store)
    log_vkey = (here / "log.vkey").read_text().strip()
    app = create_app(Settings(database_url=store["GAMBIT_DATABASE_URL"], data_dir=store["GAMBIT_DATA_DIR"]))
    assert app.test_client().get("/log/").get_json()["logs"][0]["vkey"] == log_vkey, "the key /log/ lists"
    app.extensions["gambit"].close()
    witnesses = {}
    for name in ("witness-1", "witness-2"):
        state = tmp_path / name
        run(services[f"{name}-key"]["command"][0], {**services[f"{name}-key"]["environment"],
                                                      "GAMBIT_WITNESS_STATE": str(state)})
        witnesses[name] = Witness(str(state), name, [log_vkey])  # as `gambit witness --log FILE` starts
        assert (here / f"{name}.vkey").read_text().strip() == witnesses[name].vkey, "the key it keeps is the one published"
    start = services["api"]["command"][0].replace("$$", "$").replace(public, str(here))
    start = start.replace("exec gambit serve", 'printf %s "$GAMBIT_WITNESSES"')
    told = subprocess.run(["sh", "-c", start], capture_output=True, text=True, check=True).stdout
    configured = parse_witnesses(told)
    assert [w.name for w in configured] == list(witnesses)
    for one in configured:
        port = services[one.name]["environment"]["GAMBIT_WITNESS_PORT"]
        assert one.url == f"http://{one.name}:{port}"
        assert f"{one.name}=http://{one.name}:{port}={witnesses[one.name].vkey}" in told


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh virtual environment with `pip install .` of exactly the files the Dockerfile copies.

    The dependencies come from the test environment (a path in a .pth file, so its editable
    install of this checkout is not picked up); the project itself is built and installed as
    the image does it.
    """
    base = tmp_path_factory.mktemp("image")
    context = base / "context"
    for source, _ in _copied_sources():
        target = context / source
        target.parent.mkdir(parents=True, exist_ok=True)
        if (ROOT / source).is_dir():
            shutil.copytree(ROOT / source, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copyfile(ROOT / source, target)
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    site = Path(
        subprocess.run(
            [str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    (site / "test-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-deps", str(context)],
        check=True,
        timeout=600,
        cwd=base,
    )
    return venv


def _run(installed: Path, *command: str, **env: str) -> subprocess.CompletedProcess:
    """Run a command of the installed environment away from the checkout."""
    return subprocess.run(
        [str(installed / "bin" / command[0]), *command[1:]],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=installed.parent,
        env={**os.environ, **env},
    )


@pytest.mark.slow
def test_the_installed_command_and_python_m_gambit_start_from_the_installed_copy(installed):
    where = _run(installed, "python", "-c", "import gambit, service; print(service.__file__, gambit.__version__)")
    module_path, version = where.stdout.split()
    assert Path(module_path).is_relative_to(installed) and version == VERSION
    script = _run(installed, "gambit", "--help")
    module = _run(installed, "python", "-m", "gambit", "--help")
    assert script.returncode == module.returncode == 0, script.stderr + module.stderr
    assert script.stdout == module.stdout and "serve" in script.stdout and "verify" in script.stdout
    versions = {
        _run(installed, *command, "--version").stdout.strip() for command in (["gambit"], ["python", "-m", "gambit"])
    }
    assert versions == {f"gambit {VERSION}"}


@pytest.mark.slow
def test_the_installed_copy_serves_with_the_settings_file_the_image_uses(installed, tmp_path):
    port = free_port()
    env = {
        **os.environ,
        "GAMBIT_DATA_DIR": str(tmp_path / "data"),
        "GAMBIT_GUNICORN_CONFIG": str(installed.parent / "context" / "deploy" / "gunicorn.conf.py"),
    }
    env.pop("GAMBIT_DATABASE_URL", None)
    with open(tmp_path / "serve.log", "w") as log:
        process = subprocess.Popen(
            [str(installed / "bin" / "gambit"), "serve", "--port", str(port), "--workers", "1"],
            cwd=installed.parent,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as response:
                    assert response.status == 200
                    break
            except OSError:
                assert time.monotonic() < deadline, (tmp_path / "serve.log").read_text()
                time.sleep(0.3)
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_one_version_is_read_at_run_time_from_the_distribution():
    import gambit

    assert importlib.metadata.version("gambit-match-service") == VERSION == gambit.__version__
    spec = yaml.safe_load((ROOT / "api-spec" / "openapi.yaml").read_text())
    assert spec["info"]["version"] == VERSION, "the contract names the release it describes"


def test_the_licence_is_mit_and_the_changelog_has_the_current_release():
    licence = (ROOT / "LICENSE").read_text()
    assert licence.startswith("MIT License") and "2026 Gambit Match Service contributors" in licence
    assert PYPROJECT["project"]["license"] == "MIT"
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert "Keep a Changelog" in changelog and "## [Unreleased]" in changelog
    assert re.search(rf"^## \[{re.escape(VERSION)}\] - \d{{4}}-\d{{2}}-\d{{2}}$", changelog, re.MULTILINE)


def test_every_imported_third_party_package_is_a_declared_dependency():
    declared = {
        re.split(r"[\[<>=!~; ]", requirement, maxsplit=1)[0].lower().replace("-", "_")
        for requirement in PYPROJECT["project"]["dependencies"]
    }
    # Import names that differ from their distribution's name, or come with another distribution.
    provided_by = {"psycopg_pool": "psycopg_pool", "redis": "limits", "typing_extensions": "eventsourcing", "yaml": "pyyaml"}
    imported: set[str] = set()
    for package in ("domain", "projections", "service", "gambit"):
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Import):
                    imported |= {alias.name.split(".")[0] for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    imported.add(node.module.split(".")[0])
    local = {"domain", "projections", "service", "gambit", "__future__"}
    third_party = imported - set(sys.stdlib_module_names) - local
    undeclared = {name for name in third_party if provided_by.get(name, name) not in declared}
    assert undeclared == set()
