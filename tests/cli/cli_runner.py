"""Run the real ``toolrig`` command in a subprocess, as a user's shell would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
CATALOG = EXAMPLES / "catalog"
PLAN = EXAMPLES / "plans" / "review_report.yaml"
WAIT = 60.0
"""Seconds any one command may take."""


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
    return subprocess.run(
        [sys.executable, "-m", "toolrig.cli.main", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd or ROOT,
        env=env(**extra_env),
        stdin=subprocess.DEVNULL,
    )


def one_line_error(done: subprocess.CompletedProcess[str], command: str) -> str:
    """The single stderr line of a failed command (asserting there is one and no traceback)."""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"toolrig {command}: "), lines[0]
    assert "Traceback" not in done.stderr
    return lines[0]
