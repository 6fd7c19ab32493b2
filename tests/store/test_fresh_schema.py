"""`GAMBIT_DATABASE_URL=postgresql://…?schema=NAME` on a database without that schema: the service creates it,
or, when its user may not, refuses with one clear line."""

from __future__ import annotations

import uuid
from urllib.parse import urlparse, urlunparse

import pytest

from projections.sqlstore import MissingSchema
from service.app import create_app
from service.settings import Settings
from tests.stores import _connect, postgres_url

pytestmark = pytest.mark.postgres


@pytest.fixture
def absent_schema():
    """A schema name the test server does not have (dropped after the test, whatever it made)."""
    base = postgres_url()
    try:
        _connect(base).close()
    except Exception as exc:  # noqa: BLE001 - any connection failure: the server is not there
        pytest.skip(f"no PostgreSQL server at {base}: {exc}")
    name = f"fresh_{uuid.uuid4().hex[:12]}"
    yield name
    with _connect(base) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')


def _url(schema: str, user: str | None = None) -> str:
    """The test server's URL with `?schema=`, as `user` when one is named."""
    parsed = urlparse(postgres_url())
    if user is not None:
        parsed = parsed._replace(netloc=f"{user}@{parsed.hostname}:{parsed.port or 5432}")
    return f"{urlunparse(parsed)}{'&' if parsed.query else '?'}schema={schema}"


def _schema_exists(name: str) -> bool:
    with _connect(postgres_url()) as conn:
        return conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", (name,)).fetchone() is not None


def test_a_schema_the_database_does_not_have_is_created_at_boot_and_used(absent_schema, tmp_path):
    assert not _schema_exists(absent_schema)
    app = create_app(Settings(database_url=_url(absent_schema), data_dir=str(tmp_path)))
    try:
        client = app.test_client()
        created = client.post("/matches", json={"ruleset": "gambitz"})
        assert created.status_code == 201, created.get_json()
        assert [m["match_id"] for m in client.get("/matches").get_json()["matches"]] == [created.get_json()["match_id"]]
    finally:
        app.extensions["gambit"].close()
    assert _schema_exists(absent_schema)


@pytest.fixture
def unprivileged_user():
    """A login role that may not create schemas in the test database (dropped after the test)."""
    name = f"gambit_ro_{uuid.uuid4().hex[:8]}"
    with _connect(postgres_url()) as conn:
        conn.execute(f'CREATE ROLE "{name}" LOGIN')
    yield name
    with _connect(postgres_url()) as conn:
        conn.execute(f'DROP ROLE IF EXISTS "{name}"')


def test_a_missing_schema_its_user_may_not_create_is_refused_with_one_clear_line(
    absent_schema, unprivileged_user, tmp_path
):
    with pytest.raises(MissingSchema) as refused:
        create_app(Settings(database_url=_url(absent_schema, unprivileged_user), data_dir=str(tmp_path)))
    message = str(refused.value)
    assert "\n" not in message and absent_schema in message and "may not create it" in message
    assert not _schema_exists(absent_schema)
