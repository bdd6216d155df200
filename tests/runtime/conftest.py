"""Fixtures of the runtime tests: the execution-log backends (the result budget keeps whole
outputs in either)."""

from __future__ import annotations

from postgres_db import log_url, postgres_dsn  # noqa: F401 - fixtures used here
