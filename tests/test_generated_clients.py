"""Clients generated from api-spec/openapi.yaml, as it is in the repository, play every ruleset.

A client developer generates a client from the spec and plays: this test does the same with the
two generators the spec is written for, with no edit to the spec or to what they generate.
- openapi-python-client (pinned in the `dev` extras) generates a Python client; it may warn only
  that it leaves out the NDJSON export's body (it reads no `application/x-ndjson`; the raw
  response still carries it). The client creates and joins without credentials, reads
  legal-commands, reads each listed body as a command of its match's ruleset (the classes are
  named per ruleset: `CmdGambitTcgPass`), posts with If-Match and an Idempotency-Key (twice: the
  second answer repeats the first) and exports.
- openapi-typescript 7 types and openapi-fetch calls, in tests/support/generated_clients/play.ts,
  type-checked by `tsc --strict` (TypeScript 5) and then run with node, play the same way.
- Spectral's OpenAPI ruleset (`spectral:oas`) finds no error in the spec.
Every match is played to the end on a service listening on a free port, and each export passes
`gambit verify` with the service's key. The npm packages are pinned here and installed once into a
cache directory (`$XDG_CACHE_HOME` or ~/.cache), so later runs start at once.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib
import json
import os
import random
import shutil
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from werkzeug.serving import WSGIRequestHandler, make_server

from domain import rulesets
from domain.choices import random_body
from service.app import create_app
from service.settings import Settings

pytestmark = pytest.mark.generated_clients

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "api-spec" / "openapi.yaml"
TYPESCRIPT_DRIVER = ROOT / "tests" / "support" / "generated_clients" / "play.ts"
# The npm tools, pinned: TypeScript 5 (7 is another compiler), openapi-typescript 7 and the
# openapi-fetch it is made for, Node 20's types, and Spectral's command line.
NODE_PACKAGES = {
    "@stoplight/spectral-cli": "6.16.3",
    "@types/node": "20.19.25",
    "openapi-fetch": "0.17.0",
    "openapi-typescript": "7.13.0",
    "typescript": "5.9.3",
}
# What openapi-python-client may say it left out: the export's NDJSON body and the tournament export's zip
# (bytes it has no type for; read raw instead).
TOLERATED_GENERATOR_WARNINGS = (
    "Unsupported content_type application/x-ndjson",
    "Unsupported content_type application/zip",
)
SEED = 29


# ----- the service and the tools --------------------------------------------------------------


class QuietHandler(WSGIRequestHandler):
    """Werkzeug's handler without its line per request (thousands of them here)."""

    def log_request(self, *args, **kwargs) -> None:
        """Log nothing."""


@pytest.fixture(scope="module")
def service_url(tmp_path_factory) -> Iterator[str]:
    """The app on a free port of 127.0.0.1, on a fresh SQLite store, for the clients to call."""
    directory = tmp_path_factory.mktemp("service")
    app = create_app(Settings(database_url=f"sqlite:///{directory}/store.sqlite3", data_dir=str(directory)))
    server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=QuietHandler)
    thread = threading.Thread(target=server.serve_forever, name="generated-clients-service", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join()
        app.extensions["gambit"].close()


@pytest.fixture(scope="session")
def node_tools() -> Path:
    """A directory whose node_modules holds NODE_PACKAGES, installed by npm once and then reused."""
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("node and npm are needed to check the generated TypeScript client and run Spectral")
        pytest.skip("node and npm are not installed: the TypeScript client and Spectral are not checked")
    pins = json.dumps(NODE_PACKAGES, sort_keys=True)
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gambit-match-service"
    directory = cache / f"npm-{hashlib.sha256(pins.encode()).hexdigest()[:16]}"
    directory.mkdir(parents=True, exist_ok=True)
    installed = directory / "installed"
    # One installer at a time (parallel test workers share the cache).
    with open(directory / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not installed.exists():
            manifest = {"name": "gambit-generated-clients", "private": True, "dependencies": NODE_PACKAGES}
            (directory / "package.json").write_text(json.dumps(manifest, indent=2))
            ran = subprocess.run(
                [npm, "install", "--no-audit", "--no-fund", "--ignore-scripts"],
                cwd=directory,
                capture_output=True,
                text=True,
                timeout=900,
                check=False,
            )
            assert ran.returncode == 0, f"npm install failed:\n{ran.stdout}\n{ran.stderr}"
            installed.write_text(pins)
    return directory


def run_tool(arguments: list, cwd: Path, what: str, timeout: int = 600) -> str:
    """Run a tool; fail with its output unless it exits 0. Returns its stdout."""
    ran = subprocess.run(
        [str(a) for a in arguments], cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False
    )
    assert ran.returncode == 0, f"{what} failed ({ran.returncode}):\n{ran.stdout[-8000:]}\n{ran.stderr[-8000:]}"
    return ran.stdout


def verify_exports(base: str, directory: Path, count: int) -> None:
    """`gambit verify` with the service's signing key passes every export in the directory."""
    key = directory.parent / "signing-key.json"
    with urllib.request.urlopen(f"{base}/.well-known/gambit-signing-key") as response:
        key.write_bytes(response.read())
    report = run_tool(
        [sys.executable, "-m", "service.cli", "verify", str(directory), "--key", str(key)], ROOT, "gambit verify"
    )
    assert report.count("VERIFIED") == count, report


def pascal(name: str) -> str:
    """`gambit-tcg` → `GambitTcg`, `play_card` → `PlayCard` (how the generator names classes)."""
    return "".join(word.capitalize() for word in name.replace("-", "_").split("_"))


# ----- Spectral ---------------------------------------------------------------------------------


def test_the_spec_passes_spectrals_openapi_ruleset_without_errors(node_tools, tmp_path):
    ruleset = tmp_path / ".spectral.yaml"
    ruleset.write_text('extends: ["spectral:oas"]\n')
    spectral = node_tools / "node_modules" / ".bin" / "spectral"
    run_tool([spectral, "lint", "--ruleset", ruleset, "--fail-severity", "error", SPEC], tmp_path, "spectral lint")


# ----- the Python client ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def python_client(tmp_path_factory) -> Iterator[ModuleType]:
    """The package openapi-python-client generates from the spec, imported."""
    directory = tmp_path_factory.mktemp("python-client")
    package = "gambit_generated_client"
    generator = Path(sys.executable).with_name("openapi-python-client")
    ran = subprocess.run(
        [str(generator), "generate", "--path", str(SPEC), "--output-path", str(directory / package), "--meta", "none"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    output = ran.stdout + ran.stderr
    assert ran.returncode == 0, output
    left_out = [line for line in output.splitlines() if line.startswith(("Unable to", "Cannot parse"))]
    untolerated = [line for line in left_out if not any(w in line for w in TOLERATED_GENERATOR_WARNINGS)]
    assert not untolerated, "openapi-python-client left parts of the spec out:\n" + output
    sys.path.insert(0, str(directory))
    try:
        yield importlib.import_module(package)
    finally:
        sys.path.remove(str(directory))
        for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
            del sys.modules[name]


def as_ruleset_command(client: ModuleType, ruleset: str, body: dict):
    """A body read as a command of its match's ruleset: `pass` of gambit-tcg is a `CmdGambitTcgPass`."""
    models = importlib.import_module(f"{client.__name__}.models")
    return getattr(models, f"Cmd{pascal(ruleset)}{pascal(body['type'])}").from_dict(body)


def play_with_the_python_client(client: ModuleType, base: str, ruleset: str, rng: random.Random, out: Path) -> int:
    """One match of a ruleset to the end through the generated Python client; returns the commands posted."""
    api = importlib.import_module(f"{client.__name__}.api")
    models = importlib.import_module(f"{client.__name__}.models")
    matches, playing, reading = (
        importlib.import_module(f"{api.__name__}.{tag}") for tag in ("matches", "playing", "reading")
    )
    for name in ("create_match", "join_match", "get_match"):
        importlib.import_module(f"{matches.__name__}.{name}")
    for name in ("get_legal_commands", "post_command"):
        importlib.import_module(f"{playing.__name__}.{name}")
    importlib.import_module(f"{reading.__name__}.export_match")

    # Creating and joining take no credentials: the plain Client does both.
    anonymous = client.Client(base_url=base, raise_on_unexpected_status=True)
    config = getattr(models, f"{pascal(ruleset)}Config").from_dict({})  # each ruleset's config is its own type
    body = models.CreateMatch(ruleset=ruleset, config=config)
    summary = matches.create_match.sync(client=anonymous, body=body)
    assert isinstance(summary, models.Summary), summary
    seats = {}
    for seat in summary.seats:
        joined = matches.join_match.sync(
            summary.match_id, client=anonymous, body=models.Join(name=f"py-{seat.seat}", seat=seat.seat)
        )
        assert isinstance(joined, models.JoinResult), joined
        seats[seat.seat] = client.AuthenticatedClient(
            base_url=base, token=joined.token, raise_on_unexpected_status=True
        )

    posted = 0
    for step in range(5000):
        summary = matches.get_match.sync(summary.match_id, client=anonymous)
        assert isinstance(summary, models.Summary), summary
        if summary.status == "finished":
            break
        seat = rng.choice(sorted(summary.to_act))
        legal = playing.get_legal_commands.sync(summary.match_id, client=seats[seat])
        assert isinstance(legal, models.LegalCommands), legal
        options = [as_ruleset_command(client, ruleset, command.to_dict()) for command in legal.commands]
        options += [as_ruleset_command(client, ruleset, random_body(choice.to_dict(), rng)) for choice in legal.choices]
        assert options, f"{seat} is to act but has no legal command"
        assert all(type(o).__name__.startswith(f"Cmd{pascal(ruleset)}") for o in options), options
        command = rng.choice(options)
        headers = {"if_match": f'"{legal.version}"', "idempotency_key": f"py-{ruleset}-{step}"}
        answer = playing.post_command.sync_detailed(summary.match_id, client=seats[seat], body=command, **headers)
        assert answer.status_code == 201 and isinstance(answer.parsed, models.CommandResult), answer.content
        again = playing.post_command.sync(summary.match_id, client=seats[seat], body=command, **headers)
        assert isinstance(again, models.CommandResult) and again.version == answer.parsed.version, again
        posted += 1
    else:
        pytest.fail(f"the {ruleset} match did not finish")
    # The generator leaves the NDJSON body out of the operation (a 200 it does not expect), so a
    # client that does not raise on it reads the body raw.
    export = reading.export_match.sync_detailed(summary.match_id, client=client.Client(base_url=base))
    assert export.status_code == 200
    (out / f"{ruleset}.ndjson").write_bytes(export.content)
    return posted


def test_a_generated_python_client_plays_a_match_of_every_ruleset_to_the_end(python_client, service_url, tmp_path):
    exports = tmp_path / "exports"
    exports.mkdir()
    rng = random.Random(SEED)
    for ruleset in rulesets.available():
        assert play_with_the_python_client(python_client, service_url, ruleset, rng, exports) > 0, ruleset
    verify_exports(service_url, exports, len(rulesets.available()))


# ----- the TypeScript client --------------------------------------------------------------------


def test_a_generated_typescript_client_type_checks_and_plays_a_match_of_every_ruleset_to_the_end(
    node_tools, service_url, tmp_path
):
    driver = TYPESCRIPT_DRIVER.read_text()
    untyped = [r for r in rulesets.available() if f'Schemas["{pascal(r)}Command"]' not in driver]
    assert not untyped, f"play.ts's CommandOf does not type the commands of {untyped}"
    work = tmp_path / "typescript"
    work.mkdir()
    (work / "node_modules").symlink_to(node_tools / "node_modules", target_is_directory=True)
    (work / "package.json").write_text('{"type": "module"}\n')
    shutil.copy(TYPESCRIPT_DRIVER, work / "play.ts")
    tools = node_tools / "node_modules" / ".bin"
    # Defaults describe what the service fills in, not fields a request must carry: without this
    # flag openapi-typescript makes every field with a default required in request bodies too.
    run_tool(
        [tools / "openapi-typescript", SPEC, "--default-non-nullable", "false", "-o", work / "schema.d.ts"],
        work,
        "openapi-typescript",
    )
    run_tool(
        [
            tools / "tsc",
            "--strict",
            "--noUnusedLocals",
            "--target",
            "es2022",
            "--module",
            "nodenext",
            "--moduleResolution",
            "nodenext",
            "--lib",
            "es2022,dom",
            "--types",
            "node",
            "--outDir",
            "out",
            "play.ts",
        ],
        work,
        "tsc",
    )
    exports = tmp_path / "exports"
    exports.mkdir()
    report = json.loads(
        run_tool(
            ["node", work / "out" / "play.js", service_url, exports, SEED, *rulesets.available()],
            work,
            "the TypeScript client",
        )
    )
    assert [entry["ruleset"] for entry in report] == list(rulesets.available())
    assert all(entry["commands"] > 0 for entry in report), report
    verify_exports(service_url, exports, len(rulesets.available()))


def test_the_generated_python_client_reads_a_timed_matchs_clock(python_client, service_url):
    """A summary with a clock parses into `Clock` and its seats' `SeatClock`s (a nullable object once dropped)."""
    models = importlib.import_module(f"{python_client.__name__}.models")
    matches = importlib.import_module(f"{python_client.__name__}.api.matches")
    for name in ("create_match", "join_match", "get_match"):
        importlib.import_module(f"{matches.__name__}.{name}")
    anonymous = python_client.Client(base_url=service_url, raise_on_unexpected_status=True)
    config = models.GambitzConfig.from_dict({"time_control": {"kind": "fischer", "initial_s": 600}})
    created = matches.create_match.sync(client=anonymous, body=models.CreateMatch(ruleset="gambitz", config=config))
    for seat in ("p1", "p2"):
        matches.join_match.sync(created.match_id, client=anonymous, body=models.Join(name=seat, seat=seat))
    summary = matches.get_match.sync(created.match_id, client=anonymous)
    assert isinstance(summary.clock, models.Clock), summary
    assert summary.clock.seats["p1"].running and summary.clock.seats["p1"].remaining_ms == 600_000
    assert not summary.clock.seats["p2"].running
