"""Execution-log backends for the agent's session tests: a SQLite file, and a fresh database on
the local PostgreSQL server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from postgres_db import scratch_database


@pytest.fixture(scope="session")
def postgres_dsn() -> Iterator[str]:
    with scratch_database("toolrig_agent") as dsn:
        yield dsn


@pytest.fixture(params=["sqlite", "postgres"])
def log_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "log.sqlite3")
    return str(request.getfixturevalue("postgres_dsn"))
