"""Execution-log backends under test: a SQLite file, and a fresh database on the local
PostgreSQL server (skipped, with the reason shown, when none can be reached)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolrig.storage import ExecutionLog, SQLiteExecutionLog

ADMIN_DSN = os.environ.get("TOOLRIG_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres")


@pytest.fixture(scope="session")
def postgres_dsn() -> Iterator[str]:
    try:
        import psycopg
    except ImportError:
        pytest.skip("psycopg is not installed (pip install 'toolrig[postgres]')")
    name = f"toolrig_test_{uuid.uuid4().hex[:10]}"
    try:
        with psycopg.connect(ADMIN_DSN, autocommit=True, connect_timeout=5) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
    except psycopg.OperationalError as exc:
        pytest.skip(f"no PostgreSQL server reachable at {ADMIN_DSN}: {exc}")
    dsn = ADMIN_DSN.rsplit("/", 1)[0] + "/" + name
    yield dsn
    with psycopg.connect(ADMIN_DSN, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", "postgres"])
def log_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "log.sqlite3")
    return str(request.getfixturevalue("postgres_dsn"))


@pytest.fixture
def log(log_url: str) -> Iterator[ExecutionLog]:
    from toolrig.storage import open_log

    opened = open_log(log_url)
    yield opened
    opened.close()


@pytest.fixture
def sqlite_log(tmp_path: Path) -> Iterator[SQLiteExecutionLog]:
    opened = SQLiteExecutionLog(tmp_path / "log.sqlite3")
    yield opened
    opened.close()
