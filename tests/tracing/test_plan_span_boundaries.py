"""The boundaries of a plan's workflow span: it says which steps failed and how many were
re-used, and says nothing of either when there is none.

| promise | boundary | test |
|---|---|---|
| failure | the failed steps, in plan order, in the span's error status | ``..._failed_steps`` |
| re-use | the number of steps re-used; none: no attribute | ``..._reused_steps`` |
| success | no error status, no re-use attribute | ``..._reused_steps`` |
"""

from __future__ import annotations

from pathlib import Path

from opentelemetry.trace import StatusCode
from tracing_support import Spans

from toolrig import ToolExecutor, tool
from toolrig.runtime import Plan, PlanRunner
from toolrig.storage import SQLiteExecutionLog


@tool
def double(n: int) -> int:
    """Twice ``n``."""
    return 2 * n


@tool
def explode(why: str) -> int:
    """Always fails."""
    raise RuntimeError(why)


def test_the_span_names_the_failed_steps(spans: Spans) -> None:
    plan = Plan.from_data(
        {
            "id": "p",
            "steps": [
                {"id": "ok", "tool": "double", "params": {"n": 1}},
                {"id": "bad", "tool": "explode", "params": {"why": "no"}},
                {"id": "after", "tool": "double", "params": {"n": "${bad.output}"}},
            ],
        }
    )
    PlanRunner(ToolExecutor([double, explode])).run_sync(plan)
    workflow = spans.one("invoke_workflow p")
    assert workflow.status.status_code == StatusCode.ERROR
    assert workflow.status.description == "failed steps: bad, after"
    assert (workflow.attributes or {})["error.type"] == "step_failed"
    assert "toolrig.plan.reused" not in (workflow.attributes or {})


def test_the_span_counts_the_reused_steps(spans: Spans, tmp_path: Path) -> None:
    plan = Plan.from_data(
        {
            "id": "q",
            "steps": [
                {"id": "a", "tool": "double", "params": {"n": 1}},
                {"id": "b", "tool": "double", "params": {"n": "${a.output}"}},
            ],
        }
    )
    log = SQLiteExecutionLog(tmp_path / "runs.sqlite3")
    runner = PlanRunner(ToolExecutor([double]), store=log)
    runner.run_sync(plan)
    first = spans.one("invoke_workflow q")
    assert "toolrig.plan.reused" not in (first.attributes or {})
    assert first.status.status_code != StatusCode.ERROR
    spans.clear()
    runner.run_sync(plan)
    again = spans.one("invoke_workflow q")
    assert (again.attributes or {})["toolrig.plan.reused"] == 2
    assert (again.attributes or {})["toolrig.plan.steps"] == 2
    log.close()
