"""Fixtures for the outside-world tools: a web site served on 127.0.0.1, and a fresh database on
the local PostgreSQL server (skipped, with the reason shown, when none answers)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
from local_site import Site, serve_site

ADMIN_DSN = os.environ.get("TOOLRIG_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres")


@pytest.fixture(scope="session")
def site() -> Iterator[Site]:
    with serve_site() as running:
        yield running


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A SQLAlchemy URL of a throw-away database on the local PostgreSQL server."""
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
    yield "postgresql+psycopg://" + dsn.split("://", 1)[1]
    with psycopg.connect(ADMIN_DSN, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
