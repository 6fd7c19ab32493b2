"""Shared fixtures: an app on a fresh store per test (SQLite and PostgreSQL), and the run's own reports.

The suite runs in parallel under pytest-xdist (`make test`): every test has its own tmp_path,
its own PostgreSQL schema (tests/stores.py) and free ports. Each module runs whole on one worker
(`--dist loadfile`): module fixtures that build something costly (a venv with the package
installed, a finished match's export, a fuzzing schema) are built once, and a module's last
test may check what its other tests did (tests/test_openapi_contract.py). `--dist loadgroup`
is not used: with pytest 9, xdist 3.8 ignores `xdist_group` marks (the tests spread anyway).
"""

from __future__ import annotations

import os
import random
from collections import Counter

import pytest

from service.app import create_app
from service.settings import Settings
from tests.hardening.conftest import add_totals, hardening_totals, summary_lines
from tests.stores import BACKENDS, database_url_for, partitioned_urls_for, wanted_partitions

LEGAL_MOVES_SEED = "GAMBIT_LEGAL_MOVES_SEED"
_HARDENING_FROM_WORKERS: dict[str, Counter] = {}


def pytest_configure(config) -> None:
    """Draw the legal-move brute force's seed once, before xdist starts its workers (they inherit it)."""
    if not os.environ.get(LEGAL_MOVES_SEED):
        os.environ[LEGAL_MOVES_SEED] = str(random.SystemRandom().randrange(10**6))


def pytest_report_header(config) -> str:
    """Say the seed, so a failure of a sampled check can be run again exactly."""
    return f"legal-move sample seed: {LEGAL_MOVES_SEED}={os.environ[LEGAL_MOVES_SEED]}"


def pytest_sessionfinish(session) -> None:
    """In an xdist worker, hand the hardening totals back to the controller."""
    if hasattr(session.config, "workeroutput"):
        session.config.workeroutput["hardening"] = hardening_totals()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    """In the xdist controller, add up a finished worker's hardening totals."""
    add_totals(_HARDENING_FROM_WORKERS, getattr(node, "workeroutput", {}).get("hardening", {}))


def pytest_terminal_summary(terminalreporter) -> None:
    """The hardening section: responses checked, requests generated, commands sent (over all workers)."""
    totals = dict(_HARDENING_FROM_WORKERS)
    add_totals(totals, hardening_totals())
    lines = summary_lines(totals)
    if lines:
        terminalreporter.section("hardening")
        for line in lines:
            terminalreporter.write_line(line)


@pytest.fixture(autouse=True)
def partitioned_when_asked(monkeypatch, tmp_path):
    """With GAMBIT_TEST_PARTITIONS=N (N > 1), every app the tests build on PostgreSQL spreads its matches over N
    partitions (issue 34): the test's store is the shared one and the first partition, the others fresh schemas
    (half on the second server, GAMBIT_TEST_SECOND_POSTGRES_URL, when given). An app built again on the same
    store finds the same partitions."""
    count = wanted_partitions()
    if count <= 1:
        yield
        return
    import dataclasses

    import service.app as app_module

    original = app_module.build_gambit
    made: dict[str, tuple[tuple[str, ...], callable]] = {}

    def build(settings):
        if settings.partition_urls or not settings.database_url.startswith("postgres"):
            return original(settings)
        if settings.database_url not in made:
            _, urls, drop = partitioned_urls_for("postgres", tmp_path, count, shared=settings.database_url)
            made[settings.database_url] = (urls, drop)
        return original(dataclasses.replace(settings, partition_urls=made[settings.database_url][0]))

    monkeypatch.setattr(app_module, "build_gambit", build)
    yield
    for _, drop in made.values():
        drop()


@pytest.fixture(params=BACKENDS)
def database_url(request, tmp_path):
    """A fresh event store, once on SQLite and once on PostgreSQL."""
    url, drop = database_url_for(request.param, tmp_path)
    yield url
    drop()


@pytest.fixture
def settings(database_url, tmp_path) -> Settings:
    """Settings for an app on its own fresh store."""
    return Settings(database_url=database_url, data_dir=str(tmp_path))


@pytest.fixture
def app(settings):
    """A fresh app."""
    flask_app = create_app(settings)
    flask_app.testing = True
    yield flask_app
    flask_app.extensions["gambit"].close()


@pytest.fixture
def client(app):
    """A test client of the fresh app."""
    return app.test_client()
