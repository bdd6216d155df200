"""Execution-log backends under test: a SQLite file, and a fresh database on the local
PostgreSQL server (skipped, with the reason shown, when none can be reached)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from postgres_db import log_url, postgres_dsn  # noqa: F401 - fixtures used here
from toolrig.storage import ExecutionLog, SQLiteExecutionLog


@pytest.fixture
def log(log_url: str) -> Iterator[ExecutionLog]:  # noqa: F811 - the imported fixture
    from toolrig.storage import open_log

    opened = open_log(log_url)
    yield opened
    opened.close()


@pytest.fixture
def sqlite_log(tmp_path: Path) -> Iterator[SQLiteExecutionLog]:
    opened = SQLiteExecutionLog(tmp_path / "log.sqlite3")
    yield opened
    opened.close()
