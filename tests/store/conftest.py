"""Fixtures of the store tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import pytest

from domain.application import open_matches
from domain.store import storage_env
from service.settings import Settings
from tests.stores import postgres_schema_url


@pytest.fixture
def settings_for(database_url, tmp_path) -> Settings:
    """Settings on a fresh store of each backend (`database_url`), the service's key in the test's directory."""
    return Settings(database_url=database_url, data_dir=str(tmp_path))


class Partition(NamedTuple):
    """A match store in a fresh schema of the test server: its URL, its application, and how to drop the schema."""

    url: str
    app: Any
    drop: Callable[[], None]


@pytest.fixture
def two_partitions_of_one_server() -> Iterator[tuple[Partition, Partition]]:
    """Two match stores in two fresh schemas of the test PostgreSQL server, as two partitions of one server."""
    made: list[Partition] = []
    try:
        for _ in range(2):
            url, drop = postgres_schema_url()
            made.append(Partition(url, open_matches(env=storage_env(url)), drop))
        yield made[0], made[1]
    finally:
        for partition in made:
            partition.app.close()
            partition.drop()
