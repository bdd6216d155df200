"""Durable plan runs survive ``kill -9``: parallel steps, each side effect once.

Plan ``plan1`` (``plan_worker.py``): ``a`` and ``b`` append at once (not idempotent), ``p``
reads after both (read-only). The worker is killed at a point the test chose; another takes
the plan over: steps recorded as done are reused, a read-only step in flight runs again, a
non-idempotent one in flight is reported lost, never run twice.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from postgres_db import scratch_database
from toolrig.storage import open_log

pytest.importorskip("dbos", reason="durable runs need the dbos extra")

WORKER = Path(__file__).with_name("plan_worker.py")
TIMEOUT = 180.0
"""Generous: two cores shared by many; nothing below is a measure of speed."""


@pytest.fixture
def dsn() -> Iterator[str]:
    with scratch_database("toolrig_durable_plan") as url:
        yield url


def _spawn(dsn: str, work: Path, mode: str) -> subprocess.Popen[bytes]:
    err = (work / f"{mode}.err").open("ab")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    return subprocess.Popen(
        [sys.executable, str(WORKER), dsn, str(work), mode], stderr=err, env=env
    )


def _killed_at(dsn: str, work: Path, point: str, *, recorded: str | None = None) -> None:
    """Kill the worker once it stopped at ``point`` (and step ``recorded`` is in the log)."""
    (work / f"block_{point}").write_text("1")
    proc = _spawn(dsn, work, "start")
    deadline = time.monotonic() + TIMEOUT

    def ready() -> bool:
        if not (work / f"at_{point}").exists():
            return False
        return recorded is None or _records(work)[recorded] == 1

    while not ready():
        if proc.poll() is not None:
            pytest.fail(f"the worker ended before {point}:\n{(work / 'start.err').read_text()}")
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"no stop at {point} within {TIMEOUT} s")
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(TIMEOUT)
    (work / "release").write_text("1")


def _finish(dsn: str, work: Path) -> dict[str, dict[str, object]]:
    proc = _spawn(dsn, work, "recover")
    assert proc.wait(TIMEOUT) == 0, (work / "recover.err").read_text()
    outcome: dict[str, dict[str, object]] = json.loads((work / "result.json").read_text())
    return outcome


def _effects(work: Path) -> list[str]:
    return sorted((work / "effects.txt").read_text().splitlines())


def _records(work: Path) -> Counter[str | None]:
    log = open_log(str(work / "log.sqlite3"))
    try:
        return Counter(r.step_id for r in log.get_run("plan1"))
    finally:
        log.close()


def test_read_only_step_in_flight_runs_again(dsn: str, tmp_path: Path) -> None:
    _killed_at(dsn, tmp_path, "peek")  # both appends done and recorded
    outcome = _finish(dsn, tmp_path)
    assert {s: o["success"] for s, o in outcome.items()} == {"a": True, "b": True, "p": True}
    assert outcome["p"]["output"] == 2
    assert _effects(tmp_path) == ["a", "b"]  # the appends were reused, not run again
    assert _records(tmp_path) == {"a": 1, "b": 1, "p": 1}


def test_non_idempotent_step_in_flight_is_not_run_again(dsn: str, tmp_path: Path) -> None:
    # b's effect happened and its result never came; a, at the same time, finished
    _killed_at(dsn, tmp_path, "append_b", recorded="a")
    outcome = _finish(dsn, tmp_path)
    assert outcome["a"]["success"] is True
    assert outcome["b"]["success"] is False
    assert "died mid-call" in str(outcome["b"]["error"])
    assert outcome["p"]["success"] is False  # skipped: a dependency failed
    assert _effects(tmp_path) == ["a", "b"]  # b appended once, before the kill
    assert _records(tmp_path) == {"a": 1, "b": 1, "p": 1}
