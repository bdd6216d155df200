"""Fixtures of the CLI tests: a fresh PostgreSQL database for ``toolrig log`` (skipped, with
the reason shown, when no server can be reached)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

ADMIN_DSN = os.environ.get("TOOLRIG_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres")


@pytest.fixture
def postgres_url() -> Iterator[str]:
    try:
        import psycopg
    except ImportError:
        pytest.skip("psycopg is not installed (pip install 'toolrig[postgres]')")
    name = f"toolrig_cli_{uuid.uuid4().hex[:10]}"
    try:
        with psycopg.connect(ADMIN_DSN, autocommit=True, connect_timeout=5) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
    except psycopg.OperationalError as exc:
        pytest.skip(f"no PostgreSQL server reachable at {ADMIN_DSN}: {exc}")
    yield ADMIN_DSN.rsplit("/", 1)[0] + "/" + name
    with psycopg.connect(ADMIN_DSN, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
