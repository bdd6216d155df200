"""The CLI streams an agent run: ``toolrig demo`` with an LLM configured (the scripted server
through the real openai SDK, streamed in its wire format) prints the model's text and each
tool call as they come."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from agent_support import ROOT

from llm_server import ScriptedLLM, Turn


def test_the_demo_streams_the_agent_run(tmp_path: Path) -> None:
    script = [
        Turn(
            text="Reading the reviews.",
            calls=[("attempt_completion", {"result": "Delivery is slow."}, "c1")],
        )
    ]
    with ScriptedLLM(script) as server:
        env = {
            **os.environ,
            "TOOLRIG_LLM_PROVIDER": "openai",
            "TOOLRIG_LLM_MODEL": "scripted",
            "OPENAI_BASE_URL": f"{server.url}/v1",
            "OPENAI_API_KEY": "k",
            "TOOLRIG_LOG": str(tmp_path / "log.sqlite3"),
            "COLUMNS": "200",
        }
        done = subprocess.run(
            [sys.executable, "-m", "toolrig.cli.main", "demo"],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            cwd=ROOT,
            check=False,
        )
    assert done.returncode == 0, done.stderr[-2000:]
    assert server.errors == [] and server.refusals == []
    assert server.requests[0]["stream"] is True
    section = done.stdout.split("5. The agent loop", 1)[1]
    assert "Reading the reviews." in section
    assert "✓ attempt_completion" in section
    assert "stopped: completion after 1 steps" in section
