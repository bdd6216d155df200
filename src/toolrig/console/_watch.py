"""Following the log: a SQLite file that was deleted, replaced or corrupted is noticed, and
whether anything was written is told by one cheap query per tick.

For a SQLite file, each check compares the file's device, inode and size with what was seen
before (a ``stat``, no query), then asks ``PRAGMA data_version`` on a connection of its own,
opened read-only (it never creates a file): the number changes whenever another connection
commits, so a tick with nothing written reads no table. A deleted file closes the log's
connections and is reported until a file is back at the path; a replaced one (another inode,
or a smaller size) closes them so that every thread reopens on the new file; a file SQLite
cannot read is reported in one line. Other backends have no file: their version is the
newest record id.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from toolrig.storage import SQLiteExecutionLog
from toolrig.storage._log import ExecutionLog
from toolrig.storage._unavailable import log_name

__all__ = ["LogWatch", "Pulse", "cannot_read", "not_written", "unreadable"]

_EVERY: Final = 0.25
"""Seconds the database's answer is reused for while the file stays the same (every page
and event stream checks)."""


@dataclass(frozen=True, slots=True)
class Pulse:
    """What a check found: a one-line ``problem`` when the log cannot be read, and a
    ``version`` that changes whenever the log may have been written."""

    problem: str | None
    version: str


class LogWatch:
    """Watches one log for the console (safe to share between threads)."""

    def __init__(self, log: ExecutionLog) -> None:
        self.log = log
        path = log.path if isinstance(log, SQLiteExecutionLog) else None
        self.path: Path | None = None if path is None or str(path) == ":memory:" else path
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._identity = self._stat()
        self._generation = 0
        self._last: Pulse | None = None
        self._at = 0.0

    def check(self) -> Pulse:
        """The log's state now: the file is looked at every time, the database is asked at
        most every quarter second while the file stays the same."""
        with self._lock:
            now = time.monotonic()
            same = self.path is None or self._stat() == self._identity
            if self._last is None or now - self._at >= _EVERY or not same:
                self._last = self._check()
                self._at = now
            return self._last

    def recent(self) -> Pulse | None:
        """The last check when it still holds (the file unchanged, the database asked less
        than a quarter second ago), without waiting for the lock; ``None`` when a new check
        is due. Cheap enough for the event loop: one ``stat``."""
        last = self._last
        if last is None or time.monotonic() - self._at >= _EVERY:
            return None
        if self.path is not None and self._stat() != self._identity:
            return None
        return last

    def close(self) -> None:
        """Close the watch's own connection."""
        with self._lock:
            self._drop()

    # -- the checks --------------------------------------------------------------------------
    def _check(self) -> Pulse:
        if self.path is None:
            return self._other()
        identity = self._stat()
        if identity is None:
            if self._identity is not None:  # just deleted: stop reading the old file
                self._identity = None
                self._follow()
            return Pulse(f"The log file {self.path} was deleted or moved; waiting for it.", "")
        before = self._identity
        if before is None or identity[:2] != before[:2] or identity[2] < before[2]:
            self._identity = identity
            self._follow()
            problem = self._migrate()
            if problem is not None:
                return Pulse(problem, "")
        else:
            self._identity = identity
        try:
            if self._conn is None:
                self._conn = sqlite3.connect(
                    f"{self.path.resolve().as_uri()}?mode=ro",
                    uri=True,
                    timeout=1.0,
                    check_same_thread=False,
                )
            row = self._conn.execute("PRAGMA data_version").fetchone()
            self._conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        except sqlite3.Error as exc:
            self._drop()
            return Pulse(unreadable(self.path, exc), "")
        return Pulse(None, f"{self._generation}:{row[0]}")

    def _other(self) -> Pulse:
        """A log without a file (PostgreSQL, ``:memory:``): the newest record id."""
        try:
            row = self.log._conn().execute(f"SELECT MAX(id) FROM {self.log.table}").fetchone()
        except Exception as exc:
            return Pulse(cannot_read(self.log, exc), "")
        return Pulse(None, str(row[0] or 0))

    def _stat(self) -> tuple[int, int, int] | None:
        if self.path is None:
            return None
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (st.st_dev, st.st_ino, st.st_size)

    def _follow(self) -> None:
        """The file at the path is not the one the connections have open: close them all."""
        self._generation += 1
        self._drop()
        with contextlib.suppress(Exception):
            self.log.close()

    def _migrate(self) -> str | None:
        """Bring a file that took the old one's place to this schema, as opening it would;
        a one-line problem when it cannot be."""
        log = self.log
        assert isinstance(log, SQLiteExecutionLog)
        try:
            log._migrate(log._conn())
        except Exception as exc:
            with contextlib.suppress(Exception):
                log.close()
            return unreadable(log.path, exc)
        return None

    def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()


def unreadable(path: Any, exc: BaseException) -> str:
    """The one line that says a log file cannot be read, and why."""
    return f"The log file {path} cannot be read ({_first_line(exc)}); waiting for a readable one."


def cannot_read(log: ExecutionLog, exc: BaseException) -> str:
    """The one line that says ``log`` cannot be read, and why: a file's as `unreadable`
    says it, a database by its address (never its password)."""
    if isinstance(log, SQLiteExecutionLog) and str(log.path) != ":memory:":
        return unreadable(log.path, exc)
    return f"The {log_name(log)} cannot be read ({_first_line(exc)}); waiting for it to answer."


def not_written(what: str, log: ExecutionLog, exc: BaseException) -> str:
    """The one line that says ``what`` (``The decision``) could not be written to ``log``,
    why, and that nothing of it was recorded."""
    return (
        f"{what} could not be written to the {log_name(log)}: {_first_line(exc)}; "
        "nothing was recorded, try again."
    )


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
