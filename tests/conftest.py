"""Shared fixtures: an app on a fresh SQLite store per test, and HTTP helpers that play by the API."""

from __future__ import annotations

import pytest

from service.app import create_app
from service.settings import Settings


@pytest.fixture
def settings(tmp_path) -> Settings:
    """Settings for an app on its own SQLite file."""
    return Settings(database_url=f"sqlite:///{tmp_path / 'store.sqlite3'}", data_dir=str(tmp_path))


@pytest.fixture
def app(settings):
    """A fresh app."""
    flask_app = create_app(settings)
    flask_app.testing = True
    return flask_app


@pytest.fixture
def client(app):
    """A test client of the fresh app."""
    return app.test_client()
