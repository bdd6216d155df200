"""A throw-away database on the local PostgreSQL server, for the tests of every package, and
the fixtures of the execution-log backends (a conftest imports them to use them).

The server is the one ``scripts/ensure-postgres.sh`` starts (``TOOLRIG_TEST_POSTGRES`` names
another). Without psycopg or a reachable server the test is skipped with the reason, and under
CI a PostgreSQL skip is a failure (``ci_rules``).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ADMIN_DSN = os.environ.get("TOOLRIG_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres")
"""Where databases are created and dropped."""


def dsn_of(database: str) -> str:
    """The DSN of ``database`` on the test server."""
    return ADMIN_DSN.rsplit("/", 1)[0] + "/" + database


@contextmanager
def scratch_database(prefix: str) -> Iterator[str]:
    """Create a database named ``{prefix}_{random}``, yield its DSN, drop it afterwards."""
    try:
        import psycopg
    except ImportError:
        pytest.skip("psycopg is not installed (pip install 'toolrig[postgres]')")
    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    try:
        with psycopg.connect(ADMIN_DSN, autocommit=True, connect_timeout=5) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
    except psycopg.OperationalError as exc:
        pytest.skip(f"no PostgreSQL server reachable at {ADMIN_DSN}: {exc}")
    try:
        yield dsn_of(name)
    finally:
        with psycopg.connect(ADMIN_DSN, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def postgres_dsn() -> Iterator[str]:
    """A scratch database for the whole test session."""
    with scratch_database("toolrig_test") as dsn:
        yield dsn


@pytest.fixture(params=["sqlite", "postgres"])
def log_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An execution log's URL on each backend: a SQLite file, then the scratch database."""
    if request.param == "sqlite":
        return str(tmp_path / "log.sqlite3")
    return str(request.getfixturevalue("postgres_dsn"))
