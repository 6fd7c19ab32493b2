"""The benchmark's append ceiling measures every writer, or says it could not: never a silent 0 events/s."""

from __future__ import annotations

import pytest

from bench import run
from bench.ceiling import append_ceiling
from bench.report import rows

SLOW_START = "import os, time\ntime.sleep(float(os.environ.get('GAMBIT_TEST_SLOW_START', '0')))\n"


def test_writers_slower_to_start_than_the_window_still_all_append(database_url, tmp_path, monkeypatch):
    # Under load (12-21 on two cores) a writer's start took longer than the fixed 2 s head start
    # and a 2 s window together: it appended nothing and the ceiling read "1: 0, 4: 0".
    (tmp_path / "sitecustomize.py").write_text(SLOW_START)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    monkeypatch.setenv("GAMBIT_TEST_SLOW_START", "5")
    assert append_ceiling(database_url, 2, 0.5) > 0


def test_a_failed_measurement_is_a_warning_and_not_a_rate(monkeypatch, capsys):
    def failing(url, processes, seconds):
        raise RuntimeError("append ceiling: 1 writer process(es) did not start")

    monkeypatch.setattr(run, "append_ceiling", failing)
    assert run.measured_ceiling("sqlite:///unused", 4, 1.0) is None
    assert "WARNING: append ceiling with 4 writer(s) not measured" in capsys.readouterr().err


@pytest.mark.parametrize(("ceiling", "shown"), [({"1": 577.5, "4": None}, "1: 578, 4: not measured")])
def test_the_table_shows_a_ceiling_that_was_not_measured_as_such(ceiling, shown):
    assert shown in _ceiling_row(ceiling)


def _ceiling_row(ceiling: dict) -> str:
    """The report's append-ceiling cell for a PostgreSQL result holding only `ceiling`."""
    table = rows({"backends": {"postgres": {"append_ceiling": ceiling}}})
    return next(row[1] for row in table if row[0].startswith("append ceiling"))
