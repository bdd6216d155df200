"""Run the real ``toolrig`` command in a subprocess, as a user's shell would.

With ``TOOLRIG_TEST_CLI_IN_PROCESS=1`` the command runs in the test process instead
(``toolrig.cli.main.main``), with the same environment, directory, empty stdin and captured
streams: mutation testing needs it, since a child process imports the unmutated package.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
CATALOG = EXAMPLES / "catalog"
PLAN = EXAMPLES / "plans" / "review_report.yaml"
WAIT = 60.0
"""Seconds any one command may take."""
IN_PROCESS = os.environ.get("TOOLRIG_TEST_CLI_IN_PROCESS") == "1"
"""Whether :func:`toolrig` calls ``main`` in the test process (for mutation testing only)."""


def env(**extra: str) -> dict[str, str]:
    """The environment of a command: no LLM configured, wide output, no colour codes."""
    values = {
        k: v
        for k, v in os.environ.items()
        if k
        not in {
            "TOOLRIG_LLM_PROVIDER",
            "TOOLRIG_LLM_MODEL",
            "OPENAI_API_KEY",
            "ANTHROPIC_API_KEY",
            "OPENAI_BASE_URL",
            "FORCE_COLOR",
        }
    }
    values.update({"COLUMNS": "160", "NO_COLOR": "1", "TERM": "dumb"})
    values.update(extra)
    return values


def toolrig(
    *args: str | Path, cwd: Path | None = None, timeout: float = WAIT, **extra_env: str
) -> subprocess.CompletedProcess[str]:
    """``toolrig ARGS`` (as ``python -m toolrig.cli.main``); its exit code and both streams."""
    argv = [*map(str, args)]
    if IN_PROCESS:
        return _in_process(argv, cwd=cwd or ROOT, environ=env(**extra_env))
    return subprocess.run(
        [sys.executable, "-m", "toolrig.cli.main", *argv],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd or ROOT,
        env=env(**extra_env),
        stdin=subprocess.DEVNULL,
    )


def _in_process(
    argv: list[str], *, cwd: Path, environ: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """``main(argv)`` here, observed as :func:`subprocess.run` observes the command: an exit
    status from ``SystemExit``, and an uncaught exception is a traceback on stderr and 1."""
    from toolrig.cli.main import main

    with _environment(environ), contextlib.chdir(cwd), _captured() as (out, err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
            if not isinstance(exc.code, int | None):
                print(exc.code, file=sys.stderr)
        except Exception:  # the interpreter would print it and exit 1
            traceback.print_exc()
            code = 1
        stdout, stderr = _text(out), _text(err)
    return subprocess.CompletedProcess(["toolrig", *argv], code, stdout, stderr)


@contextlib.contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    """``os.environ`` is ``values`` inside, and what it was after."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(values)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@contextlib.contextmanager
def _captured() -> Iterator[tuple[TextIO, TextIO]]:
    """Files 0, 1 and 2 and ``sys.stdin``/``stdout``/``stderr``: empty input, and the output
    in two temporary files (fd-level writers are caught too); everything restored after."""
    streams = (sys.stdin, sys.stdout, sys.stderr)
    for stream in streams[1:]:
        stream.flush()
    saved = [os.dup(fd) for fd in (0, 1, 2)]
    with (
        open(os.devnull, encoding="utf-8") as empty,
        tempfile.TemporaryFile("w+", encoding="utf-8") as out,
        tempfile.TemporaryFile("w+", encoding="utf-8") as err,
    ):
        try:
            for fd, file in enumerate((empty, out, err)):
                os.dup2(file.fileno(), fd)
            sys.stdin, sys.stdout, sys.stderr = empty, out, err
            yield out, err
        finally:
            for stream in (out, err):
                stream.flush()
            sys.stdin, sys.stdout, sys.stderr = streams
            for fd, copy in enumerate(saved):
                os.dup2(copy, fd)
                os.close(copy)


def _text(file: TextIO) -> str:
    """Everything written to ``file`` (by Python or at its file descriptor), from its start."""
    file.flush()
    file.seek(0)
    return file.read()


def one_line_error(done: subprocess.CompletedProcess[str], command: str) -> str:
    """The single stderr line of a failed command (asserting there is one and no traceback)."""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"toolrig {command}: "), lines[0]
    assert "Traceback" not in done.stderr
    return lines[0]
