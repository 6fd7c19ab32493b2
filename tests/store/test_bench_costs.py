"""The costs benchmark (bench/costs.py) runs end to end in its quick mode and measures what it says it does.

No figure is asserted (timings are the benchmark's to report): only that each variant ran as named.
"""

from __future__ import annotations

import io
import json

import pytest

from bench import costs
from bench.costs_report import END, START, spliced
from service.verify_cli import run_verify
from tests.stores import BACKENDS


@pytest.fixture
def results_in(tmp_path, monkeypatch):
    """bench/results redirected to a temporary directory; returns a reader of one label's results."""
    monkeypatch.setattr(costs, "RESULTS", str(tmp_path))
    return lambda label: json.loads((tmp_path / f"{label}.json").read_text())


def _checks(path: str, key_path: str, redecide: bool) -> dict[str, str]:
    out = io.StringIO()
    run_verify(path, key_path, True, out=out, err=io.StringIO(), redecide=redecide)
    return {check["check"]: check["status"] for check in json.loads(out.getvalue())["reports"][0]["checks"]}


def test_verify_without_redeciding_leaves_out_the_commands_check_and_nothing_else(tmp_path):
    exports, key_path = costs.grow_exports(str(tmp_path), (("dragons-gambit", 300),))
    with_check = _checks(exports[0]["path"], key_path, True)
    without = _checks(exports[0]["path"], key_path, False)
    assert with_check["commands"] == "pass"
    assert without == {**with_check, "commands": "skip"}


def test_gambit_verify_has_no_option_to_skip_redeciding(capsys):
    from service.cli import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args(["verify", "--help"])
    assert "decid" not in capsys.readouterr().out


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_verify_and_proof_costs_run_in_quick_mode(backend, results_in, capsys):
    assert costs.main(["--quick", "--only", "redecide,proofs", "--backends", backend]) == 0
    parts = results_in("costs-quick")["parts"]
    for export in parts["redecide"]["exports"]:
        assert export["exit_codes"] == [0]
        assert None not in export["end_to_end"]["ratios"] + export["one_process"]["ratios"]
    proofs = parts["proofs"]["backends"][backend]
    assert proofs["inclusion"]["hashes"]["max"] > 0 and proofs["consistency"]["hashes"]["max"] > 0
    printed = capsys.readouterr().out
    assert "### Re-deciding every command in `gambit verify` (issue 32)" in printed
    assert "### Log proofs at 1,000,000 leaves (issue 33)" in printed


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_the_throughput_pairs_run_each_variant_as_named(backend, results_in):
    assert costs.main(["--quick", "--only", "signed,log", "--backends", backend]) == 0
    parts = results_in("costs-quick")["parts"]
    for part in ("signed", "log"):
        runs = parts[part]["backends"][backend]["runs"]
        assert all(r["commands_per_s"] > 0 and r["errors"] == 0 for name in runs for r in runs[name])
    log_runs = parts["log"]["backends"][backend]["runs"]
    assert all(r["log_leaves_settled"] > 0 for r in log_runs["with"])  # when the load stopped it may still lag
    assert all(r["log_leaves_after"] == 0 for r in log_runs["without"])


def test_the_costs_section_replaces_its_last_version_in_the_page():
    page = "# Benchmarks\n\nfigures\n\n## Machine\n\n- 2 cores\n"
    once = spliced(page, "## Costs\n\nfirst\n")
    twice = spliced(once, "## Costs\n\nsecond\n")
    assert twice.count(START) == twice.count(END) == 1
    assert "second" in twice and "first" not in twice
    assert twice.index(END) < twice.index("## Machine")
