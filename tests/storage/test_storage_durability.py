"""The SQLite log's durability settings, on the connections it writes with: write-ahead log,
``synchronous`` at least ``NORMAL`` (a crash of the process loses nothing committed; ``FULL`` and
``EXTRA`` also survive a power loss), and nothing weaker accepted."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolrig.storage import SQLiteExecutionLog

LEVELS = {"NORMAL": 1, "FULL": 2, "EXTRA": 3}


@pytest.mark.parametrize("level", [None, "NORMAL", "full", "EXTRA"])
def test_every_writing_connection_has_the_chosen_synchronous_level(
    tmp_path: Path, level: str | None
) -> None:
    log = (
        SQLiteExecutionLog(tmp_path / "log.sqlite3")
        if level is None
        else SQLiteExecutionLog(tmp_path / "log.sqlite3", synchronous=level)
    )
    try:
        log.add_result("t", "tool", None, {"i": 1}, "ok", "success", run_id="r1")
        conn = log._conn()  # the connection this thread writes with
        expected = LEVELS[(level or "NORMAL").upper()]
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == expected
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.in_transaction is False  # committed when add_result returned
    finally:
        log.close()


@pytest.mark.parametrize("level", ["OFF", "off", "0", "sometimes"])
def test_weaker_levels_are_refused(tmp_path: Path, level: str) -> None:
    with pytest.raises(ValueError, match="synchronous must be NORMAL"):
        SQLiteExecutionLog(tmp_path / "log.sqlite3", synchronous=level)
