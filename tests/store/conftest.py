"""Fixtures of the store tests."""

from __future__ import annotations

import pytest

from service.settings import Settings


@pytest.fixture
def settings_for(database_url, tmp_path) -> Settings:
    """Settings on a fresh store of each backend (`database_url`), the service's key in the test's directory."""
    return Settings(database_url=database_url, data_dir=str(tmp_path))
