"""`gambit verify` as a user runs it: a fresh interpreter, reporting its exit code and what it imported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def verify_in_a_fresh_process(
    path: Path, key: str | None = None, jobs: int | None = None, receipts: list[str] | None = None
) -> dict:
    """`gambit verify --json [--key KEY] [--receipt FILE]... [--jobs N] PATH` in a new interpreter:
    `{"code": exit code, "modules": imported names, "report": the JSON report}`."""
    modules = path.with_suffix(".modules.json")
    kept = [argument for receipt in receipts or [] for argument in ("--receipt", receipt)]
    arguments = ["verify", "--json", *(["--key", key] if key is not None else []), *kept, str(path)]
    if jobs is not None:
        arguments[1:1] = ["--jobs", str(jobs)]
    script = (
        "import json, sys\n"
        "from service.cli import main\n"
        f"code = main({arguments!r})\n"
        f"open({str(modules)!r}, 'w').write(json.dumps({{'code': code, 'modules': sorted(sys.modules)}}))\n"
    )
    ran = subprocess.run([sys.executable, "-c", script], cwd=ROOT, check=True, capture_output=True, timeout=120)
    return {**json.loads(modules.read_text()), "report": json.loads(ran.stdout)}


def games_imported(ran: dict) -> set[str]:
    """The game packages (`domain/rulesets/<package>`) a verification imported."""
    return {name.split(".")[2] for name in ran["modules"] if name.startswith("domain.rulesets.")}
