"""Execution-log backends for the agent's session tests: a SQLite file, and a fresh database on
the local PostgreSQL server."""

from __future__ import annotations

from postgres_db import log_url, postgres_dsn  # noqa: F401 - fixtures used here
