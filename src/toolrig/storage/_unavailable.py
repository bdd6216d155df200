"""A log whose database fails: telling the driver's errors from any other, and naming the
database in a message, whichever backend the log is on.

Neither loads psycopg: a psycopg error can only have been raised once psycopg is imported, and
a PostgreSQL log only exists once ``storage._postgres`` is, so both are looked up among the
modules already loaded.
"""

from __future__ import annotations

import sqlite3
import sys
from typing import Any
from urllib.parse import quote

from toolrig.storage._log import ExecutionLog
from toolrig.storage._sqlite import SQLiteExecutionLog

__all__ = ["database_errors", "log_name"]


def database_errors() -> tuple[type[Exception], ...]:
    """The errors a log's database raises when it fails (gone, unreachable, locked, closed
    by the server, refusing a statement): ``sqlite3.DatabaseError``, and
    ``psycopg.DatabaseError`` once psycopg is loaded. For ``except database_errors():``."""
    errors: list[type[Exception]] = [sqlite3.DatabaseError]
    psycopg = sys.modules.get("psycopg")
    if psycopg is not None:
        errors.append(psycopg.DatabaseError)
    return tuple(errors)


def log_name(log: ExecutionLog) -> str:
    """What ``log`` is, for a message: ``log file PATH``, ``in-memory log``, or ``log
    database postgresql://USER@HOST:PORT/NAME`` (never its password, nor its options, which
    may carry one); ``log`` for another backend."""
    if isinstance(log, SQLiteExecutionLog):
        return "in-memory log" if str(log.path) == ":memory:" else f"log file {log.path}"
    postgres = sys.modules.get("toolrig.storage._postgres")
    if postgres is not None and isinstance(log, postgres.PostgresExecutionLog):
        return f"log database {_address(log.dsn)}"
    return "log"


def _address(dsn: str) -> str:
    """``dsn`` (a URL or ``key=value`` pairs) as a URL of its user, host, port and database."""
    from psycopg.conninfo import conninfo_to_dict  # loaded: the log connected with it

    try:
        parts: dict[str, Any] = conninfo_to_dict(dsn)
    except Exception:  # not readable as a DSN (the log would not have opened): say no more
        return "postgresql://"
    user, host = parts.get("user"), str(parts.get("host") or parts.get("hostaddr") or "")
    port, name = parts.get("port"), parts.get("dbname")
    if host.startswith("/"):  # a socket directory
        host = quote(host, safe="")
    elif ":" in host and "," not in host:  # an IPv6 address
        host = f"[{host}]"
    where = (f"{quote(str(user), safe='')}@" if user else "") + host
    where += f":{port}" if port else ""
    return f"postgresql://{where}/{quote(str(name), safe='') if name else ''}"
