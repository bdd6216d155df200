"""Fixtures for the outside-world tools: a web site served on 127.0.0.1, and a fresh database on
the local PostgreSQL server (skipped, with the reason shown, when none answers) with a narrow
role to reach it as (no superuser, none of the server's file or program roles)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from local_site import Site, serve_site

from postgres_db import ADMIN_DSN, dsn_of, scratch_database


@pytest.fixture(scope="session")
def site() -> Iterator[Site]:
    with serve_site() as running:
        yield running


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A SQLAlchemy URL of a throw-away database on the local PostgreSQL server."""
    with scratch_database("toolrig_test") as dsn:
        yield "postgresql+psycopg://" + dsn.split("://", 1)[1]


@pytest.fixture(scope="session")
def postgres_role(postgres_url: str) -> Iterator[str]:
    """A login role without superuser or server roles, that may use the test database's
    ``public`` schema (select, insert, sequences); dropped at the end."""
    import psycopg

    role = f"toolrig_reader_{uuid.uuid4().hex[:10]}"
    database = postgres_url.rsplit("/", 1)[1]
    db_dsn = dsn_of(database)
    with psycopg.connect(db_dsn, autocommit=True) as admin:
        admin.execute(f'CREATE ROLE "{role}" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE')
        admin.execute(f'GRANT CONNECT ON DATABASE "{database}" TO "{role}"')
        admin.execute(f'GRANT USAGE ON SCHEMA public TO "{role}"')
        admin.execute(
            f'ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT ON TABLES TO "{role}"'
        )
        admin.execute(
            f'ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE ON SEQUENCES TO "{role}"'
        )
    yield role
    with psycopg.connect(db_dsn, autocommit=True) as admin:
        admin.execute(f'DROP OWNED BY "{role}"')
    with psycopg.connect(ADMIN_DSN, autocommit=True) as admin:
        admin.execute(f'DROP ROLE IF EXISTS "{role}"')


@pytest.fixture(scope="session")
def postgres_reader_url(postgres_url: str, postgres_role: str) -> str:
    """:func:`postgres_url` reached as :func:`postgres_role`."""
    scheme, rest = postgres_url.split("://", 1)
    return f"{scheme}://{postgres_role}@{rest.split('@', 1)[1]}"
