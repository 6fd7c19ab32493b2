"""Totals of the hardening tests (responses checked, examples run), summed for the terminal summary.

The summary itself is printed by tests/conftest.py: under pytest-xdist the tests run in worker
processes, so each worker hands its totals back and the controller adds them up.
"""

from __future__ import annotations

import sys
from collections import Counter

# (module, counter) pairs whose values the summary adds up.
COUNTERS = (("tests.hardening.test_leak_hunt", "RESPONSES_CHECKED"), ("tests.hardening.test_api_fuzzing", "EXAMPLES"),
            ("tests.hardening.test_api_fuzzing", "STATUSES"), ("tests.hardening.test_rules_fuzzing", "SENT"))


def hardening_totals() -> dict[str, dict]:
    """This process's counters, by 'module.COUNTER' (empty where a module did not run)."""
    totals = {}
    for module_name, counter in COUNTERS:
        module = sys.modules.get(module_name)
        if module is not None and getattr(module, counter):
            totals[f"{module_name}.{counter}"] = dict(getattr(module, counter))
    return totals


def add_totals(into: dict[str, Counter], totals: dict[str, dict]) -> None:
    """Add one process's counters to the running sums."""
    for name, counts in totals.items():
        into.setdefault(name, Counter()).update(counts)


def summary_lines(totals: dict[str, Counter]) -> list[str]:
    """The hardening section's lines for the summed counters."""
    lines = []
    checked = totals.get("tests.hardening.test_leak_hunt.RESPONSES_CHECKED")
    if checked:
        by_viewer = ", ".join(f"{k} {v}" for k, v in sorted(checked.items()))
        lines.append(f"leak hunt: {sum(checked.values())} responses checked for unrevealed secrets ({by_viewer})")
    examples = totals.get("tests.hardening.test_api_fuzzing.EXAMPLES")
    if examples:
        statuses = totals.get("tests.hardening.test_api_fuzzing.STATUSES", Counter())
        lines.append(f"API fuzzing: {sum(examples.values())} generated requests over {len(examples)} operations, "
                     f"statuses {dict(sorted(statuses.items()))}")
    sent = totals.get("tests.hardening.test_rules_fuzzing.SENT")
    if sent:
        lines.append(f"rules fuzzing: {sum(sent.values())} commands sent, answers {dict(sorted(sent.items()))}")
    return lines
