"""``bench/agent.py`` runs: every framework completes its scripted two-turn runs against the
local server (the bench asserts each run's answer and the server's request count)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "agent.py"


def test_the_agent_bench_measures_every_framework() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--runs", "1", "--rounds", "1"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = {line.split("  ")[0] for line in done.stdout.splitlines() if line.endswith("ms")}
    assert rows == {"toolrig", "pydantic-ai", "openai-agents", "toolrig, tracing on"}, done.stdout
