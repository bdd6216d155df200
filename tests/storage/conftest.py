"""Execution-log backends under test: a SQLite file, and a fresh database on the local
PostgreSQL server (skipped, with the reason shown, when none can be reached)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from postgres_db import scratch_database
from toolrig.storage import ExecutionLog, SQLiteExecutionLog


@pytest.fixture(scope="session")
def postgres_dsn() -> Iterator[str]:
    with scratch_database("toolrig_test") as dsn:
        yield dsn


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
