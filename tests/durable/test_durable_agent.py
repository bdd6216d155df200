"""Durable agent runs survive ``kill -9``: a second worker takes the run over where it stood.

Each test starts run ``run1`` in a worker process (``worker.py``), stops it at a point the test
chose (the process tells the test it got there, through a file), kills it with SIGKILL, starts
another worker, and checks the outcome: the right answer, each side effect of the
non-idempotent tool exactly once, one log record per call and per model turn.
"""

from __future__ import annotations

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

WORKER = Path(__file__).with_name("worker.py")
TIMEOUT = 180.0
"""Generous: two cores shared by many; nothing below is a measure of speed."""


@pytest.fixture
def dsn() -> Iterator[str]:
    with scratch_database("toolrig_durable") as url:
        yield url


def _spawn(dsn: str, work: Path, mode: str, *extra: str) -> subprocess.Popen[bytes]:
    err = (work / f"{mode}.err").open("ab")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    return subprocess.Popen(
        [sys.executable, str(WORKER), dsn, str(work), mode, *extra], stderr=err, env=env
    )


def _wait(what: str, ready: object, proc: subprocess.Popen[bytes], work: Path) -> None:
    """Wait until ``ready()`` holds; fail at once if the worker died first."""
    deadline = time.monotonic() + TIMEOUT
    while not ready():  # type: ignore[operator]
        if proc.poll() is not None:
            errors = "".join(p.read_text() for p in work.glob("*.err"))
            pytest.fail(f"the worker ended ({proc.returncode}) before {what}:\n{errors}")
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"no {what} within {TIMEOUT} s")
        time.sleep(0.05)


def _kill(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait(TIMEOUT)


def _finish(dsn: str, work: Path, *extra: str) -> str:
    """Take the run over in a new worker; the result it wrote."""
    proc = _spawn(dsn, work, "recover", *extra)
    proc.wait(TIMEOUT)
    errors = (work / "recover.err").read_text() if (work / "recover.err").exists() else ""
    assert proc.returncode == 0, errors
    return (work / "result.json").read_text()


def _effects(work: Path) -> list[str]:
    path = work / "effects.txt"
    return path.read_text().splitlines() if path.exists() else []


def _records(work: Path) -> tuple[Counter[str | None], Counter[str | None]]:
    """Tool records per call id and model-turn records per turn, of run1."""
    log = open_log(str(work / "log.sqlite3"))
    try:
        records = log.get_run("run1")
    finally:
        log.close()
    calls = Counter(r.tool_call_id for r in records if r.executor_type != "llm")
    turns = Counter(r.step_id for r in records if r.executor_type == "llm")
    return calls, turns


@pytest.mark.parametrize(
    ("point", "recorded"),
    [
        ("model_2", None),  # during a model request
        ("append_b", None),  # during a non-idempotent call: its effect happened, its result lost
        ("peek", "c2"),  # during a read-only call, once the other call of its turn finished
        ("model_3", None),  # after the calls returned, before the next turn
    ],
)
def test_killed_run_is_taken_over(
    dsn: str, tmp_path: Path, point: str, recorded: str | None
) -> None:
    (tmp_path / f"block_{point}").write_text("1")
    first = _spawn(dsn, tmp_path, "start")

    def stopped() -> bool:
        if not (tmp_path / f"at_{point}").exists():
            return False
        return recorded is None or _records(tmp_path)[0][recorded] == 1

    _wait(f"the stop at {point}", stopped, first, tmp_path)
    _kill(first)
    (tmp_path / "release").write_text("1")

    result = _finish(dsn, tmp_path)

    assert '"output": "done"' in result
    assert sorted(_effects(tmp_path)) == ["a", "b"]  # each side effect exactly once
    calls, turns = _records(tmp_path)
    assert calls == {"c1": 1, "c2": 1, "c3": 1}
    assert turns == {"turn1": 1, "turn2": 1, "turn3": 1}


def test_lost_non_idempotent_call_is_not_run_again(dsn: str, tmp_path: Path) -> None:
    (tmp_path / "block_append_b").write_text("1")
    first = _spawn(dsn, tmp_path, "start")
    _wait("the stop in append", (tmp_path / "at_append_b").exists, first, tmp_path)
    _kill(first)
    (tmp_path / "release").write_text("1")
    _finish(dsn, tmp_path)
    log = open_log(str(tmp_path / "log.sqlite3"))
    try:
        (lost,) = [r for r in log.get_run("run1") if r.tool_call_id == "c2"]
    finally:
        log.close()
    assert lost.status == "failed"
    assert "died mid-call" in (lost.error_message or "")


def test_held_run_resumes_once_after_its_decision(dsn: str, tmp_path: Path) -> None:
    first = _spawn(dsn, tmp_path, "start", "held")

    def held() -> bool:
        if not (tmp_path / "log.sqlite3").exists():
            return False
        log = open_log(str(tmp_path / "log.sqlite3"))
        try:
            info = log.run_info("run1")
        finally:
            log.close()
        return info is not None and info.status == "held"

    _wait("the held run", held, first, tmp_path)
    _kill(first)
    assert _effects(tmp_path) == []  # held: nothing ran

    decide = _spawn(dsn, tmp_path, "decide", "held")  # while no worker runs the run
    assert decide.wait(TIMEOUT) == 0, (tmp_path / "decide.err").read_text()
    assert _effects(tmp_path) == []  # sending the decision ran nothing

    result = _finish(dsn, tmp_path, "held")

    assert '"output": "done"' in result
    assert sorted(_effects(tmp_path)) == ["a", "b"]  # the approved call ran once
    calls, _ = _records(tmp_path)
    assert calls == {"c1": 1, "c2": 1, "c3": 1}
