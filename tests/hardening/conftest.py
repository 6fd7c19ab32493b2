"""Totals of the hardening tests, printed in the terminal summary (responses checked, examples run)."""

from __future__ import annotations

import sys


def pytest_terminal_summary(terminalreporter) -> None:
    lines = []
    leak_hunt = sys.modules.get("tests.hardening.test_leak_hunt")
    if leak_hunt is not None and leak_hunt.RESPONSES_CHECKED:
        total = sum(leak_hunt.RESPONSES_CHECKED.values())
        by_viewer = ", ".join(f"{k} {v}" for k, v in sorted(leak_hunt.RESPONSES_CHECKED.items()))
        lines.append(f"leak hunt: {total} responses checked for unrevealed secrets ({by_viewer})")
    fuzzing = sys.modules.get("tests.hardening.test_api_fuzzing")
    if fuzzing is not None and fuzzing.EXAMPLES:
        total = sum(fuzzing.EXAMPLES.values())
        lines.append(f"API fuzzing: {total} generated requests over {len(fuzzing.EXAMPLES)} operations, "
                     f"statuses {dict(sorted(fuzzing.STATUSES.items()))}")
    rules = sys.modules.get("tests.hardening.test_rules_fuzzing")
    if rules is not None and rules.SENT:
        lines.append(f"rules fuzzing: {sum(rules.SENT.values())} commands sent, answers {dict(sorted(rules.SENT.items()))}")
    if lines:
        terminalreporter.section("hardening")
        for line in lines:
            terminalreporter.write_line(line)
