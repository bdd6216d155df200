"""A destructive tool whose every run leaves a line in a ledger file, so that a test can count
how often it ran across threads and processes; and the agent the claim tests build in each."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

from toolrig import ToolAnnotations, tool
from toolrig.agent import Agent, ApprovalPolicy
from toolrig.storage import open_log
from toolrig.testing import ModelTurn, ScriptedModel


@tool(annotations=ToolAnnotations(read_only=False, destructive=True))
def launch(ledger: str) -> str:
    """Launch the rocket (once only, ever)."""
    with Path(ledger).open("a", encoding="utf-8") as out:
        out.write(f"{os.getpid()}:{threading.get_ident()}\n")
    time.sleep(0.2)  # a slow side effect: runs that race overlap in it
    return "launched"


def launcher(url: str, turns: list[Any], *, policy: bool = True) -> Agent[Any, Any]:
    """An agent that may launch, on the log at ``url``, playing ``turns``."""
    script = [ModelTurn(**t) if isinstance(t, dict) else t for t in turns]
    return Agent(
        "Controller",
        "You run launches.",
        ScriptedModel(script),
        [launch],
        approval=ApprovalPolicy(destructive=True) if policy else None,
        log=open_log(url),
    )
