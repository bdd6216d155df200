"""What the agent tests share: an LLM config pointing at the scripted server, and a second
process that runs an agent on the same execution log."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from llm_server import ScriptedLLM
from toolrig.agent import LLMConfig

ROOT = Path(__file__).resolve().parents[2]


def config(provider: str, server: ScriptedLLM, model: str = "scripted") -> LLMConfig:
    base = server.url if provider == "anthropic" else f"{server.url}/v1"
    return LLMConfig(
        provider=provider,  # type: ignore[arg-type]
        model=model,
        base_url=base,
        api_key="test-key",
        max_retries=0,
        timeout=10,
    )


def in_another_process(code: str, **values: Any) -> dict[str, Any]:
    """Run ``code`` in a fresh interpreter with ``values`` bound as names; it prints its
    answer as JSON on its last line."""
    prelude = "".join(f"{name} = {value!r}\n" for name, value in values.items())
    done = subprocess.run(
        [sys.executable, "-c", prelude + code],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    answer: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return answer
