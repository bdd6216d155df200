"""How a finished agent run stands in the execution log's ``runs`` row."""

from __future__ import annotations

from typing import Any

from toolrig.agent._run import AgentRun
from toolrig.storage._runs import RunStatus

__all__ = ["run_status"]


def run_status(run: AgentRun[Any]) -> RunStatus:
    """How a finished run stands: held, output rejected, failed, denied (ended normally after
    a person denied calls, and no call failed) or succeeded."""
    result = run.result
    assert result is not None
    if result.stop_reason == "approval":
        return RunStatus.HELD
    if run.output_rejected:
        return RunStatus.OUTPUT_REJECTED
    if result.stop_reason not in ("answer", "completion"):
        return RunStatus.FAILED
    decisions = [
        r.metadata.decision if r.metadata is not None else None
        for step in result.steps
        for r in step.results
    ]
    return RunStatus.DENIED if "denied" in decisions else RunStatus.SUCCEEDED
