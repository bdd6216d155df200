"""A key holding NUL, on each backend (docs/log-schema.md): what was written under it is read
back under it, and a read never fails for it.

PostgreSQL text cannot hold NUL, so every value is written with NUL as U+FFFD
(`storable_text`); the PostgreSQL log sends its text parameters the same way, so a run id, a
session id or a filter read back with NUL finds what was written under it, where it failed the
statement (the console answered "the log database cannot be read" and reloaded forever).

| promise | boundary | test |
|---|---|---|
| read back | NUL or a lone surrogate in a run id: records, run row, a filter | `..._read_back` |
| never fails | ids with NUL never written: nothing found (both) | `..._read_back` |
| the console | `/runs/ID`, `/sessions/ID`, `/results/ID`, `?tool=`: no 503 | `..._any_other` |
"""

from __future__ import annotations

import httpx
import pytest

from toolrig import ToolExecutor, tool
from toolrig.console import app
from toolrig.storage import ExecutionLog

RUN = "run-a\x00b"


@tool
def echo(text: str) -> str:
    """Echo the text."""
    return text


def _write(log: ExecutionLog) -> None:
    executor = ToolExecutor([echo])
    with log.run(RUN, kind="cli"):
        assert executor.execute_sync("echo", {"text": "x\x00y"}).success


def test_what_was_written_under_a_nul_key_is_read_back(log: ExecutionLog) -> None:
    _write(log)
    assert log.failed_writes() == 0
    (record,) = log.get_run(RUN)
    assert record.run_id == "run-a\ufffdb" and record.output == "x\x00y"
    assert [r.id for r in log.query(run_id=RUN)] == [record.id]
    with log.run("run-\ud800", kind="cli"):  # a lone surrogate: stored as U+FFFD too
        assert ToolExecutor([echo]).execute_sync("echo", {"text": "z"}).success
    assert [r.run_id for r in log.get_run("run-\ud800")] == ["run-\ufffd"]
    info = log.run_info(RUN)
    assert info is not None and info.status == "succeeded"
    assert log.query(run_id="never\x00written") == [] and log.run_info("no\x00run") is None
    assert log.query(tool="echo\x00") == []


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/runs/run-a%00b", 200),
        ("/runs/never%00written", 404),
        ("/sessions/s%00x", 404),
        ("/results/res_%00", 404),
        ("/runs?tool=a%00b", 200),
    ],
)
async def test_the_console_reads_a_nul_key_as_any_other(
    log: ExecutionLog, path: str, status: int
) -> None:
    _write(log)
    asgi = app(log=log, catalog=ToolExecutor([echo]))
    transport = httpx.ASGITransport(app=asgi, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        response = await http.get(path)
    assert response.status_code == status, response.text[-300:]
    assert "cannot be read" not in response.text
