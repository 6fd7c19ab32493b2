"""Fresh stores for one benchmark: a SQLite file in a directory, or a PostgreSQL schema (dropped after)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlparse

POSTGRES_URL = os.environ.get("GAMBIT_BENCH_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")


def pg_connect(url: str = POSTGRES_URL):
    """An autocommit connection to the benchmark's PostgreSQL database."""
    import psycopg

    parsed = urlparse(url)
    return psycopg.connect(host=parsed.hostname or "127.0.0.1", port=parsed.port or 5432,
                           user=parsed.username or "postgres", password=parsed.password or "",
                           dbname=parsed.path.lstrip("/").split("?")[0] or "postgres", autocommit=True,
                           connect_timeout=5)


@contextmanager
def pg_schema(prefix: str = "bench", server: str = POSTGRES_URL) -> Iterator[tuple[str, str]]:
    """A fresh schema `bench_<hex>` on `server`: yields (database URL with ?schema=, schema name); dropped afterwards."""
    schema = f"{prefix}_{uuid.uuid4().hex[:10]}"
    with pg_connect(server) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        sep = "&" if "?" in server else "?"
        yield f"{server}{sep}schema={schema}", schema
    finally:
        with pg_connect(server) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@contextmanager
def store_url(backend: str, directory: str) -> Iterator[str]:
    """A database URL for a fresh store of this backend."""
    if backend == "sqlite":
        yield f"sqlite:///{os.path.join(directory, 'gambit.sqlite3')}"
    else:
        with pg_schema() as (url, _):
            yield url


def store_bytes(backend: str, url: str) -> int:
    """Bytes the event store takes on disk: the SQLite file (+WAL), or the schema's relations."""
    if backend == "sqlite":
        path = url[len("sqlite:///"):]
        return sum(os.path.getsize(p) for p in (path, path + "-wal") if os.path.exists(p))
    schema = url.split("schema=")[1].split("&")[0]
    with pg_connect() as conn:
        row = conn.execute("SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
                           "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s AND c.relkind = 'r'",
                           (schema,)).fetchone()
    return int(row[0])
