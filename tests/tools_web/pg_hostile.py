"""A database on the local PostgreSQL server laid out as an attacker would like it: the
extensions that run SQL given as text (``dblink``, ``tablefunc``, ``xml2``) and reach files
(``adminpack``, ``lo``), a user function marked ``STABLE`` that takes an advisory lock, an
operator and a cast that call volatile functions, and a narrow role to connect as."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from postgres_db import ADMIN_DSN, dsn_of, scratch_database

EXTENSIONS = ("dblink", "tablefunc", "xml2", "adminpack", "lo", "pgcrypto", "uuid-ossp")

SETUP = """
CREATE TABLE hostile_items (id SERIAL PRIMARY KEY, name TEXT, body tsvector);
INSERT INTO hostile_items (name, body) VALUES
    ('a', to_tsvector('alpha')), ('b', to_tsvector('beta')), ('c', to_tsvector('gamma'));
CREATE FUNCTION public.sneaky_lock() RETURNS boolean STABLE LANGUAGE sql
    AS 'SELECT pg_try_advisory_lock(4242)';
CREATE FUNCTION public.sneaky_plpgsql() RETURNS boolean IMMUTABLE LANGUAGE plpgsql
    AS 'BEGIN PERFORM pg_advisory_lock(4243); RETURN true; END';
CREATE FUNCTION public.lock_op(integer, integer) RETURNS boolean VOLATILE LANGUAGE sql
    AS 'SELECT pg_try_advisory_lock($1, $2)';
CREATE OPERATOR public.=#= (LEFTARG = integer, RIGHTARG = integer, FUNCTION = public.lock_op);
CREATE TYPE public.boxed AS (v text);
CREATE FUNCTION public.to_boxed(text) RETURNS public.boxed VOLATILE LANGUAGE sql
    AS 'SELECT ROW(pg_try_advisory_lock(4244)::text)::public.boxed';
CREATE CAST (text AS public.boxed) WITH FUNCTION public.to_boxed(text);
CREATE FUNCTION public.sneaky_row(hostile_items) RETURNS boolean VOLATILE LANGUAGE sql
    AS 'SELECT pg_try_advisory_lock(4245)';
CREATE FUNCTION public.lock_step(integer, integer) RETURNS integer VOLATILE LANGUAGE sql
    AS 'SELECT pg_try_advisory_lock(4246)::integer';
CREATE AGGREGATE public.sneaky_agg(integer) (SFUNC = public.lock_step, STYPE = integer);
CREATE FUNCTION public.plain_double(integer) RETURNS integer IMMUTABLE LANGUAGE sql
    AS 'SELECT $1 * 2';
"""


@dataclass(frozen=True)
class HostileDb:
    admin_url: str
    reader_url: str
    extensions: tuple[str, ...]


@contextmanager
def hostile_database() -> Iterator[HostileDb]:
    """The database, its extensions (those the server has) and a narrow role."""
    import psycopg

    with scratch_database("toolrig_hostile") as dsn:
        database = dsn.rsplit("/", 1)[1]
        role = f"toolrig_narrow_{uuid.uuid4().hex[:10]}"
        with psycopg.connect(dsn, autocommit=True) as admin:
            listed = admin.execute("SELECT name FROM pg_available_extensions")
            available = {row[0] for row in listed}
            installed = tuple(name for name in EXTENSIONS if name in available)
            for name in installed:
                admin.execute(f'CREATE EXTENSION IF NOT EXISTS "{name}"')
            admin.execute(SETUP)
            admin.execute(f'CREATE ROLE "{role}" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE')
            admin.execute(f'GRANT CONNECT ON DATABASE "{database}" TO "{role}"')
            admin.execute(f'GRANT USAGE ON SCHEMA public TO "{role}"')
            admin.execute(f'GRANT SELECT ON ALL TABLES IN SCHEMA public TO "{role}"')
        rest = dsn.split("://", 1)[1]
        host = rest.split("@", 1)[1]
        try:
            yield HostileDb(
                admin_url=f"postgresql+psycopg://{rest}",
                reader_url=f"postgresql+psycopg://{role}@{host}",
                extensions=installed,
            )
        finally:
            with psycopg.connect(dsn_of(database), autocommit=True) as admin:
                admin.execute(f'DROP OWNED BY "{role}"')
            with psycopg.connect(ADMIN_DSN, autocommit=True) as admin:
                admin.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
                admin.execute(f'DROP ROLE IF EXISTS "{role}"')
