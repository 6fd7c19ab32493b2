"""Shared fixtures: an app on a fresh SQLite store per test, and HTTP helpers that play by the API."""

from __future__ import annotations

import pytest

from service.app import create_app
from service.settings import Settings
from tests.stores import BACKENDS, database_url_for


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
