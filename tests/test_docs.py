"""The documentation a user reads is complete, self-contained and true to the running API.

1. Every relative link in README.md and docs/ resolves to a file of the repository (and an
   anchor to a heading of it); docs/README.md indexes every page under docs/.
2. No file of the repository sends its reader to files a user of it does not have (the
   developers' shared notes), by path or by name.
3. Every ruleset of the registry has `docs/rules/<id>.md`, naming each of its command types, its
   config keys and every rule code its package raises. Every status and problem code a page
   names ("422 `invalid_body`") is one the service's code can send (tests/support/sent_problems.py);
   docs/clocks.md names every clock refusal's code, and the one the service answers for seconds
   out of range.
4. The walkthrough's shell blocks run, command by command, against the app: each curl becomes a
   request to the test client, each `gambit verify` runs the real command line, and each shown
   response must match what the app answers (status, field names, verdicts and checks). A
   renamed path, field or check makes this fail.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from domain import clock
from domain.rulesets import RULESETS

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
WALKTHROUGH = DOCS / "walkthrough.md"
# Directories of tools, environments and build output: not part of what the repository says.
SKIPPED_DIRS = {
    ".git",
    ".venv",
    "venv",
    "__pycache__",
    ".ruff_cache",
    ".mypy_cache",
    ".pytest_cache",
    "var",
    "node_modules",
    "build",
    "dist",
}
FORBIDDEN = re.compile(r"\.\./shared|/work/shared|\bDESIGN\.md\b|\bAPI\.md\b")
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.DOTALL | re.MULTILINE)


def markdown_pages() -> list[Path]:
    """README.md and every Markdown page under docs/."""
    return [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]


def heading_anchors(page: Path) -> set[str]:
    """The anchors a Markdown renderer gives the page's headings (lower case, punctuation dropped)."""
    anchors = set()
    for line in page.read_text(encoding="utf-8").splitlines():
        match = re.match(r"#{1,6} (.+)", line)
        if match:
            text = re.sub(r"[^\w\- ]", "", match.group(1).strip().lower())
            anchors.add(text.replace(" ", "-"))
    return anchors


def repository_text_files():
    """Every text file of the repository, outside tool and build directories."""
    for directory, subdirectories, files in os.walk(ROOT):
        subdirectories[:] = sorted(d for d in subdirectories if d not in SKIPPED_DIRS and not d.endswith(".egg-info"))
        for name in sorted(files):
            path = Path(directory) / name
            try:
                yield path.relative_to(ROOT), path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue  # images and other binary files say nothing to a reader


def link_is_broken(page: Path, target: str) -> bool:
    """Whether a relative link of `page` misses its file in the repository, or a heading of it."""
    path_part, _, anchor = target.partition("#")
    linked = (page.parent / path_part).resolve() if path_part else page
    if not linked.exists() or (linked != ROOT and ROOT not in linked.parents):
        return True
    return bool(anchor) and linked.suffix == ".md" and anchor not in heading_anchors(linked)


# ----- 1. links ------------------------------------------------------------------------------


@pytest.mark.parametrize("page", markdown_pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves_to_a_file_of_the_repository(page):
    targets = LINK.findall(page.read_text(encoding="utf-8"))
    # An address with a scheme (https:, mailto:) is outside the repository by design.
    broken = [target for target in targets if not re.match(r"[a-z]+:", target) and link_is_broken(page, target)]
    assert not broken, f"{page.relative_to(ROOT)} links to what the repository lacks: {broken}"


def test_the_docs_index_links_every_page_under_docs():
    index = DOCS / "README.md"
    linked = {(DOCS / target.partition("#")[0]).resolve() for target in LINK.findall(index.read_text(encoding="utf-8"))}
    pages = {page.resolve() for page in DOCS.rglob("*.md") if page != index}
    missing = sorted(str(page.relative_to(DOCS)) for page in pages - linked)
    assert not missing, f"docs/README.md does not link {missing}"


# ----- 2. nothing points outside the repository --------------------------------------------


def test_no_file_sends_its_reader_to_notes_a_user_of_the_repository_does_not_have():
    this_file = Path(__file__).resolve().relative_to(ROOT)
    offenders = [
        f"{relative}:{number}: {line.strip()}"
        for relative, text in repository_text_files()
        if relative != this_file
        for number, line in enumerate(text.splitlines(), 1)
        if FORBIDDEN.search(line)
    ]
    assert not offenders, "point at docs/ instead:\n" + "\n".join(offenders)


# ----- 3. one rules page per game ------------------------------------------------------------


def raised_rule_codes(package_dir: Path) -> set[str]:
    """The rule codes a ruleset package raises by name: `RuleViolation("code", ...)`."""
    codes = set()
    for source in package_dir.glob("*.py"):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", None))
            if name == "RuleViolation" and isinstance(node.args[0], ast.Constant):
                codes.add(node.args[0].value)
    return codes


def rules_page(ruleset_id: str) -> str:
    """The text of the game's rules page (an empty string when it is missing)."""
    page = DOCS / "rules" / f"{ruleset_id}.md"
    return page.read_text(encoding="utf-8") if page.exists() else ""


@pytest.mark.parametrize("ruleset_id", sorted(RULESETS))
def test_each_ruleset_has_a_rules_page(ruleset_id):
    assert (DOCS / "rules" / f"{ruleset_id}.md").is_file()


@pytest.mark.parametrize("ruleset_id", sorted(RULESETS))
def test_the_rules_page_names_every_command_type_and_config_key(ruleset_id):
    page = rules_page(ruleset_id)
    module = RULESETS[ruleset_id]
    names = [command.type for command in module.COMMANDS]
    names += [field.name for field in dataclasses.fields(module.Config)]
    missing = [name for name in names if f"`{name}`" not in page]
    assert not missing, f"docs/rules/{ruleset_id}.md does not name {missing}"


@pytest.mark.parametrize("ruleset_id", sorted(RULESETS))
def test_the_rules_page_names_every_rule_code_the_game_raises(ruleset_id):
    page = rules_page(ruleset_id)
    package_dir = Path(RULESETS[ruleset_id].__file__).parent
    missing = sorted(code for code in raised_rule_codes(package_dir) if f"`{code}`" not in page)
    assert not missing, f"docs/rules/{ruleset_id}.md does not name the rule codes {missing}"


# ----- 3b. the problem codes the pages name ----------------------------------------------------

# "422 `invalid_body`", "`409 clock_expired`", "→ 503 `too_many_streams`": a status with the code it carries.
STATUS_AND_CODE = re.compile(r"`?\b([1-5]\d\d)\b`?\s*(?:→\s*)?`([a-z][a-z0-9_]*)`|`([1-5]\d\d) ([a-z][a-z0-9_]*)`")
# Answers of the routing itself, outside any route: an unknown path, a method a path does not take.
ROUTING_ANSWERS = {(404, "not_found"), (405, "method_not_allowed")}


def pages_naming_problems() -> list[Path]:
    """Every page a user reads for the API's answers: README, SECURITY, the docs, the runbook and the spec."""
    return [
        ROOT / "README.md",
        ROOT / "SECURITY.md",
        ROOT / "api-spec" / "openapi.yaml",
        *sorted(DOCS.rglob("*.md")),
        *sorted((ROOT / "deploy").glob("*.md")),
    ]


def named_status_and_codes(text: str) -> set[tuple[int, str]]:
    return {
        (int(match.group(1) or match.group(3)), match.group(2) or match.group(4))
        for match in STATUS_AND_CODE.finditer(text)
    }


def sendable_status_and_codes() -> set[tuple[int, str]]:
    """Every (status, code) some route of the service can answer, read from its code."""
    from tests.test_openapi_contract import sent_errors

    return {(a.status, a.code) for answers in sent_errors().values() for a in answers if a.code} | ROUTING_ANSWERS


@pytest.mark.parametrize("page", pages_naming_problems(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_status_and_problem_code_a_page_names_is_one_the_service_sends(page):
    unknown = sorted(named_status_and_codes(page.read_text(encoding="utf-8")) - sendable_status_and_codes())
    assert not unknown, f"{page.relative_to(ROOT)} names answers the service never sends: {unknown}"


def test_a_status_named_with_a_rule_instead_of_its_code_is_caught():
    # `dispute_limit_reached` is a rule of 422 `dispute_rejected`, not a code of its own.
    assert (422, "dispute_limit_reached") not in sendable_status_and_codes()
    assert (422, "dispute_rejected") in sendable_status_and_codes()
    assert named_status_and_codes("past it → 422 `dispute_limit_reached`") == {(422, "dispute_limit_reached")}


def test_the_clocks_page_names_every_code_a_clock_refusal_carries():
    page = (DOCS / "clocks.md").read_text(encoding="utf-8")
    codes = {cls.code for cls in _subclasses(clock.ClockError)}
    missing = sorted(code for code in codes if f"`{code}`" not in page and f" {code}`" not in page)
    assert not missing, f"docs/clocks.md does not name {missing}"


def test_the_clocks_page_names_the_code_the_service_answers_for_seconds_out_of_range(client):
    tournament = client.post("/tournaments", json={"name": "Clock Cup"}).get_json()
    key = {"Authorization": f"Bearer {tournament['organizer_key']}"}
    config = {"players": 2, "time_control": {"kind": "fischer", "initial_s": 60}}
    body = {"ruleset": "gambitz", "config": config, "tournament_id": tournament["tournament_id"]}
    match = client.post("/matches", json=body, headers=key).get_json()
    refused = client.post(f"/matches/{match['match_id']}/clock/add-time", json={"seat": "p1", "seconds": 0}, headers=key)
    answered = (refused.status_code, refused.get_json()["code"])
    page = (DOCS / "clocks.md").read_text(encoding="utf-8")
    clauses = re.split(r";|\n\n", page)
    [about_seconds] = [part for part in clauses if "`seconds`" in part and named_status_and_codes(part)]
    assert named_status_and_codes(about_seconds) == {answered}


def _subclasses(cls: type) -> set[type]:
    found = set(cls.__subclasses__())
    return found | {grand for sub in found for grand in _subclasses(sub)}


# ----- 4. the walkthrough runs ---------------------------------------------------------------


def walkthrough_steps() -> list[tuple[str, str | None, str]]:
    """Each shell block of the walkthrough with the block shown after it: (commands, language, output)."""
    blocks = FENCE.findall(WALKTHROUGH.read_text(encoding="utf-8"))
    steps = []
    for index, (language, body) in enumerate(blocks):
        if language != "sh":
            continue
        shown = blocks[index + 1] if index + 1 < len(blocks) and blocks[index + 1][0] != "sh" else (None, "")
        steps.append((body, shown[0], shown[1]))
    return steps


def logical_lines(body: str) -> list[str]:
    """The block's command lines, with backslash continuations joined."""
    return [line.strip() for line in body.replace("\\\n", " ").splitlines()]


def jq_path(value, path: str):
    """What `jq -r PATH` selects for the simple paths the walkthrough uses (`.a.b[0].c`)."""
    for key, position in re.findall(r"\.(\w+)|\[(\d+)\]", path):
        value = value[key] if key else value[int(position)]
    return value


def json_keys(value) -> set[str]:
    """Every object key anywhere in a JSON value."""
    if isinstance(value, dict):
        return set(value) | {key for item in value.values() for key in json_keys(item)}
    if isinstance(value, list):
        return {key for item in value for key in json_keys(item)}
    return set()


def verdict_and_checks(text: str) -> tuple[list[str], set[tuple[str, str]]]:
    """The verdict lines and the (mark, check) pairs of `gambit verify` output."""
    verdicts = re.findall(r"^\s*(VERIFIED|UNSIGNED|FAILED)\s", text, re.MULTILINE)
    checks = set(re.findall(r"^\s*\[(ok  |FAIL|skip)\] ([^:]+):", text, re.MULTILINE))
    return verdicts, checks


class Shell:
    """Runs the walkthrough's commands: variables, files, curl against the test client, gambit verify."""

    def __init__(self, client, directory: Path) -> None:
        self.client = client
        self.directory = directory
        # The page starts at the root of the checkout; it must leave it before it writes a file.
        self.variables: dict[str, str] = {"PWD": str(ROOT)}
        self.left_the_checkout = False
        self.shown_json: list = []
        self.shown_statuses: list[int] = []
        self.verify_output = ""

    def expand(self, text: str) -> str:
        """Text with `$NAME` and `${NAME}` replaced by the variables set so far."""

        def value(match: re.Match) -> str:
            name = match.group(1) or match.group(2)
            assert name in self.variables, f"${name} is used before the walkthrough sets it"
            return self.variables[name]

        return re.sub(r"\$\{(\w+)\}|\$(\w+)", value, text)

    def run_block(self, body: str) -> None:
        """Run every command line of one shell block."""
        self.shown_json, self.shown_statuses, self.verify_output = [], [], ""
        for line in logical_lines(body):
            if line and not line.startswith("#"):
                self.run_line(line)

    def run_line(self, line: str) -> None:
        """Run one command line, or fail on a command this runner does not know."""
        if "gambit serve" in line:
            port = re.search(r"--port (\d+)", line)
            self.variables["SERVE_PORT"] = port.group(1) if port else "8000"
            return
        capture = re.fullmatch(r"(\w+)=\$\(jq -r '?([.\w\[\]]+)'? (\S+)\)", line)
        if capture:
            name, path, file_name = capture.groups()
            try:
                selected = jq_path(json.loads((self.directory / file_name).read_text(encoding="utf-8")), path)
            except (KeyError, IndexError, TypeError):
                selected = None
            assert selected is not None, f"{line}: {path} selects nothing in {file_name}"
            self.variables[name] = str(selected)
            return
        if line == 'cd "$(mktemp -d)"':
            self.left_the_checkout = True  # this runner's files already go to a temporary directory
            return
        assignment = re.fullmatch(r'(\w+)="?([^"\s]+)"?', line)
        if assignment:
            self.variables[assignment.group(1)] = self.expand(assignment.group(2))
            return
        lexer = shlex.shlex(line, posix=True, punctuation_chars="|>")
        lexer.whitespace_split = True
        words = [self.expand(word) for word in lexer]
        command, sink, shown = self.split_pipeline(words, line)
        if command[0] == "curl":
            self.curl(command[1:], sink, shown)
        elif command[0] == str(ROOT / ".venv" / "bin" / "gambit"):
            self.gambit(command[1:])
        elif command[0] in ("head", "tail"):
            assert (self.directory / command[-1]).stat().st_size > 0, f"{line}: nothing to show"
        else:
            pytest.fail(f"the walkthrough runs {command[0]!r}, which tests/test_docs.py cannot replay: {line}")

    @staticmethod
    def split_pipeline(words: list[str], line: str) -> tuple[list[str], str | None, bool]:
        """The command, the file its output goes to, and whether the output is also shown."""
        command, rest = (words[: words.index("|")], words[words.index("|") + 1 :]) if "|" in words else (words, [])
        if ">" in command:
            at = command.index(">")
            return command[:at], command[at + 1], False
        if rest:
            assert rest[0] == "tee" and len(rest) == 2, f"unsupported pipeline: {line}"
            return command, rest[1], True
        return command, None, True

    def curl(self, arguments: list[str], sink: str | None, shown: bool) -> None:
        """A curl request, made to the test client instead of a server."""
        method, headers, data, url = None, {}, None, None
        words = iter(arguments)
        for word in words:
            if word in ("-s", "-N", "-i"):
                continue
            if word == "-X":
                method = next(words)
            elif word == "-H":
                name, _, value = next(words).partition(":")
                headers[name.strip()] = value.strip()
            elif word == "-d":
                data = next(words)
            else:
                assert not word.startswith("-"), f"curl option {word} is not replayed by this test"
                url = word
        base = self.variables["BASE"]
        assert url is not None and url.startswith(base), f"curl {url} is not a request to $BASE"
        assert base.endswith(":" + self.variables.get("SERVE_PORT", "")), "BASE is not the port the server serves"
        response = self.client.open(
            url[len(base) :], method=method or ("POST" if data is not None else "GET"), headers=headers, data=data
        )
        if sink is not None:
            assert self.left_the_checkout, f"the walkthrough writes {sink} into the checkout: cd to a temporary directory first"
            (self.directory / sink).write_bytes(response.get_data())
        if shown:
            self.shown_statuses.append(response.status_code)
            if response.is_json:
                self.shown_json.append(response.get_json())
        else:
            assert 200 <= response.status_code < 300, (url, response.status_code, response.get_data(as_text=True))

    def gambit(self, arguments: list[str]) -> None:
        """The real `gambit` command line, run in the walkthrough's directory."""
        finished = subprocess.run(
            [sys.executable, "-m", "service.cli", *arguments],
            cwd=self.directory,
            capture_output=True,
            check=False,  # the exit code is compared with the verdict below
            text=True,
            timeout=300,
        )
        verdicts, _ = verdict_and_checks(finished.stdout)
        expected_exit = {"VERIFIED": 0, "UNSIGNED": 3}.get(verdicts[0] if verdicts else "", 1)
        assert finished.returncode == expected_exit, finished.stdout + finished.stderr
        self.verify_output += finished.stdout


def check_shown_output(shell: Shell, language: str | None, shown: str, commands: str) -> None:
    """What the page shows after a block must be what the app answered to it."""
    statuses_shown = {int(s) for s in re.findall(r'^\s*"status": (\d{3}),?$', shown, re.MULTILINE)}
    for status in shell.shown_statuses:
        assert 200 <= status < 300 or status in statuses_shown, f"{commands}\nanswered {status}"
    assert statuses_shown <= set(shell.shown_statuses), (
        f"{commands}\nshows {statuses_shown}, got {shell.shown_statuses}"
    )
    if language == "json":
        keys_shown = set(re.findall(r'"([A-Za-z_][\w-]*)":', shown))
        answered = {key for value in shell.shown_json for key in json_keys(value)}
        assert keys_shown <= answered, f"{commands}\nshows fields the app does not answer: {keys_shown - answered}"
    verdicts_shown, checks_shown = verdict_and_checks(shown)
    if verdicts_shown or shell.verify_output:
        verdicts, checks = verdict_and_checks(shell.verify_output)
        assert verdicts_shown == verdicts, f"{commands}\nshows {verdicts_shown}, gambit verify said {verdicts}"
        assert checks_shown <= checks, f"{commands}\nshows checks gambit verify did not report: {checks_shown - checks}"


def test_the_walkthrough_runs_against_the_app_and_shows_what_it_answers(client, tmp_path):
    shell = Shell(client, tmp_path)
    steps = walkthrough_steps()
    assert steps, "the walkthrough has no shell blocks"
    for commands, language, shown in steps:
        shell.run_block(commands)
        check_shown_output(shell, language, shown, commands)
    assert {"MATCH", "SOUTH", "NORTH", "TOURNAMENT", "ORGANIZER", "CALL"} <= set(shell.variables)
