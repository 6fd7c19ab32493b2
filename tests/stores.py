"""The two event stores every store-touching test runs against: SQLite and PostgreSQL.

PostgreSQL comes from GAMBIT_TEST_POSTGRES_URL (default: the server the project's machines
provide). Each test gets its own schema, dropped afterwards. Without a server the PostgreSQL
tests skip with the reason — except in CI (CI=true), where a missing server is a failure.

Every PostgreSQL run carries the `postgres` mark, so `-m "not postgres"` (make test-fast) leaves
them out; GAMBIT_TEST_BACKENDS=sqlite (a comma-separated list) does not even collect them.
"""

from __future__ import annotations

import os
import uuid
from urllib.parse import urlparse

import pytest

DEFAULT_POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test"
KNOWN_BACKENDS = ("sqlite", "postgres")


def backend_param(backend: str, *values):
    """One parametrization value for `backend`, marked `postgres` when it needs the server."""
    marks = [pytest.mark.postgres] if backend == "postgres" else []
    return pytest.param(*(values or (backend,)), marks=marks, id="-".join([backend, *map(str, values[1:])]))


def chosen_backends() -> list[str]:
    """The stores to run on: both, unless GAMBIT_TEST_BACKENDS names fewer."""
    wanted = os.environ.get("GAMBIT_TEST_BACKENDS", ",".join(KNOWN_BACKENDS))
    chosen = [name.strip() for name in wanted.split(",") if name.strip()]
    unknown = sorted(set(chosen) - set(KNOWN_BACKENDS))
    if unknown or not chosen:
        raise ValueError(f"GAMBIT_TEST_BACKENDS names {unknown or 'nothing'}; choose from {', '.join(KNOWN_BACKENDS)}")
    return chosen


BACKENDS = [backend_param(name) for name in chosen_backends()]


def postgres_url() -> str:
    """The PostgreSQL server tests use."""
    return os.environ.get("GAMBIT_TEST_POSTGRES_URL", DEFAULT_POSTGRES_URL)


def _connect(url: str):
    import psycopg

    parsed = urlparse(url)
    return psycopg.connect(host=parsed.hostname or "127.0.0.1", port=parsed.port or 5432,
                           user=parsed.username or "postgres", password=parsed.password or "",
                           dbname=parsed.path.lstrip("/") or "postgres", autocommit=True, connect_timeout=3)


def second_postgres_url() -> str | None:
    """A second PostgreSQL server for partitions across servers (GAMBIT_TEST_SECOND_POSTGRES_URL; .ci/run starts one)."""
    return os.environ.get("GAMBIT_TEST_SECOND_POSTGRES_URL") or None


def wanted_partitions() -> int:
    """How many partitions the tests' app spreads matches over (GAMBIT_TEST_PARTITIONS; 1: one store, as deployed)."""
    text = os.environ.get("GAMBIT_TEST_PARTITIONS", "1").strip() or "1"
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"GAMBIT_TEST_PARTITIONS must be a whole number from 1, not {text!r}")
    return int(text)


def postgres_schema_url(base: str | None = None) -> tuple[str, callable]:
    """A URL to a fresh schema on the test server (or on `base`), and a function that drops it."""
    base = base or postgres_url()
    try:
        conn = _connect(base)
    except Exception as exc:  # noqa: BLE001 - any connection failure: the server is not there
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run the PostgreSQL tests, but no server answers at {base}: {exc}")
        pytest.skip(f"no PostgreSQL server at {base} (set GAMBIT_TEST_POSTGRES_URL): {exc}")
    schema = f"t_{uuid.uuid4().hex[:16]}"
    conn.execute(f'CREATE SCHEMA "{schema}"')
    conn.close()

    def drop() -> None:
        with _connect(base) as cleanup:
            cleanup.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')

    separator = "&" if "?" in base else "?"
    return f"{base}{separator}schema={schema}", drop


def database_url_for(backend: str, tmp_path) -> tuple[str, callable]:
    """A fresh store of that backend for one test, and its clean-up."""
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / 'store.sqlite3'}", lambda: None
    return postgres_schema_url()


def partitioned_urls_for(backend: str, tmp_path, count: int, shared: str | None = None
                         ) -> tuple[str, tuple[str, ...], callable]:
    """A shared store and `count` partitions of that backend (the shared store is the first partition), and the
    clean-up: SQLite files side by side, or PostgreSQL schemas — spread over the test server and the second one
    (GAMBIT_TEST_SECOND_POSTGRES_URL) when it is given, half on each. `shared` is a store already made."""
    if backend == "sqlite":
        first = shared or f"sqlite:///{tmp_path / 'store.sqlite3'}"
        others = tuple(f"sqlite:///{tmp_path / f'partition-{n}.sqlite3'}" for n in range(1, count))
        return first, (first, *others), lambda: None
    servers = [postgres_url(), *([second_postgres_url()] if second_postgres_url() else [])]
    made = [] if shared else [postgres_schema_url()]
    for number in range(1, count):
        made.append(postgres_schema_url(servers[number * len(servers) // count]))
    urls = ([shared] if shared else []) + [url for url, _ in made]

    def drop_all() -> None:
        for _, drop in made:
            drop()

    return urls[0], tuple(urls), drop_all
