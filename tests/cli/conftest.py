"""Fixtures of the CLI tests: a fresh PostgreSQL database for ``toolrig log`` (skipped, with
the reason shown, when no server can be reached)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from postgres_db import scratch_database


@pytest.fixture
def postgres_url() -> Iterator[str]:
    with scratch_database("toolrig_cli") as dsn:
        yield dsn
