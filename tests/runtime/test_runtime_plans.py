"""Plans: references to earlier outputs, checks before running, concurrency, failure policies,
resume from the execution log, progress."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from toolrig import BaseTool, ToolCost, ToolExecutor, action, tool
from toolrig.runtime import Plan, PlanError, PlanRunner, StepEvent, StepStatus
from toolrig.storage import SQLiteExecutionLog

CALLS: list[str] = []


@tool(cost=ToolCost(base_cost=0.01, per_item_cost=0.001))
async def fetch(urls: list[str]) -> dict[str, Any]:
    """Fetch pages (simulated)."""
    CALLS.append("fetch")
    await asyncio.sleep(0.1)
    return {"pages": [f"<{u}>" for u in urls], "errors": ["timeout on b"], "count": len(urls)}


@tool
async def analyze(text: str, limit: int = 3) -> dict[str, Any]:
    """Analyse a text (simulated)."""
    CALLS.append("analyze")
    await asyncio.sleep(0.1)
    return {"length": len(text), "limit": limit}


@tool
def fail(reason: str) -> str:
    """Always fails."""
    CALLS.append("fail")
    raise RuntimeError(reason)


class Report(BaseTool):
    """Reports."""

    @action
    def write(self, title: str, body: Any) -> str:
        """Write a report."""
        CALLS.append("report")
        return f"{title}: {body}"


@pytest.fixture
def runner() -> PlanRunner:
    CALLS.clear()
    return PlanRunner(ToolExecutor([fetch, analyze, fail, Report()]))


PLAN_YAML = """
id: review
steps:
  - {id: get, tool: fetch, params: {urls: [a, b, c]}}
  - {id: first, tool: analyze, params: {text: "${get.output.pages[0]}"}}
  - id: problems
    tool: analyze
    params: {text: "first error: ${get.output.errors[0]}", limit: "${get.output.count}"}
  - {id: out, tool: report, action: write, params: {title: Summary, body: "${first.output}"}}
"""


def test_references_resolve_whole_values_and_inside_strings(runner: PlanRunner) -> None:
    result = runner.run_sync(Plan.from_yaml(PLAN_YAML))
    assert result.success, {k: r.error for k, r in result.results.items()}
    assert list(result.results) == ["get", "first", "problems", "out"]
    assert result.outputs["first"] == {"length": 3, "limit": 3}
    assert result.outputs["problems"] == {"length": len("first error: timeout on b"), "limit": 3}
    assert result.outputs["out"] == "Summary: {'length': 3, 'limit': 3}"
    assert result.estimated_cost == pytest.approx(0.013)


def test_independent_steps_run_concurrently(runner: PlanRunner) -> None:
    result = runner.run_sync(Plan.from_yaml(PLAN_YAML))
    first, problems = result.timings["first"], result.timings["problems"]
    assert first[0] < problems[1] and problems[0] < first[1]  # the two intervals overlap
    get = result.timings["get"]
    assert first[0] >= get[1] and problems[0] >= get[1]  # both waited for their dependency
    # 3 layers, not 4 steps one after another: shorter than the steps' own durations summed
    # (a relative bound: a loaded machine stretches both sides)
    assert result.duration_ms / 1000 < sum(end - start for start, end in result.timings.values())


def test_check_reports_every_problem_at_once(runner: PlanRunner) -> None:
    plan = Plan.from_data(
        {
            "id": "broken",
            "steps": [
                {"id": "a", "tool": "fetch", "params": {"urls": "${c.output}"}},
                {"id": "b", "tool": "nope", "params": {}},
                {"id": "c", "tool": "analyze", "params": {"text": "${a.output.x}", "limt": 2}},
                {"id": "d", "tool": "report", "action": "wirte", "params": {}},
                {
                    "id": "e",
                    "tool": "analyze",
                    "params": {"text": "${ghost.output}", "limit": "many"},
                },
            ],
        }
    )
    report = runner.check(plan)
    assert not report.ok
    problems = report.problems

    def one(start: str, *words: str) -> None:
        found = [p for p in problems if p.startswith(start)]
        assert len(found) == 1, (start, problems)
        assert all(w in found[0] for w in words), (found[0], words)

    one("step 'b': Tool 'nope' not found.", "Available tools: analyze, fail, fetch, report.write")
    one("step 'c' (analyze): limt: unknown parameter; did you mean `limit`?")
    one("step 'd': Tool `report` has no action 'wirte'", "Did you mean 'report.write'?")
    one("step 'e' refers to step 'ghost', which the plan does not have")
    one("step 'e' (analyze): limit: expected a valid integer", 'received "many"')
    cycles = [p for p in problems if "cycle" in p]
    assert cycles in (
        ["the steps form a cycle: a -> c -> a"],
        ["the steps form a cycle: c -> a -> c"],
    )
    assert len(problems) == 6, problems  # step a's only problem is the cycle
    with pytest.raises(PlanError) as info:
        runner.run_sync(plan)
    assert len(info.value.problems) == len(report.problems)


def test_malformed_plan_documents() -> None:
    with pytest.raises(PlanError, match="non-empty list of steps"):
        Plan.from_data({"id": "x", "steps": []})
    with pytest.raises(PlanError) as info:
        Plan.from_data(
            [
                {"tool": 3},
                "step",
                {"id": "bad id!", "tool": "t"},
                {"id": "x", "tool": "t", "extra": 1},
            ]
        )
    assert len(info.value.problems) == 4
    with pytest.raises(PlanError, match="not valid JSON"):
        Plan.from_json("{")
    with pytest.raises(PlanError, match="not valid YAML"):
        Plan.from_yaml("steps: [")


def test_failed_step_fails_its_dependants_and_others_go_on(runner: PlanRunner) -> None:
    plan = Plan.from_data(
        [
            {"id": "bad", "tool": "fail", "params": {"reason": "disk full"}},
            {"id": "after_bad", "tool": "analyze", "params": {"text": "${bad.output}"}},
            {
                "id": "after_after",
                "tool": "report",
                "action": "write",
                "params": {"title": "t", "body": "${after_bad.output}"},
            },
            {"id": "independent", "tool": "analyze", "params": {"text": "fine"}},
        ]
    )
    result = runner.run_sync(plan)
    assert result.results["bad"].code == "execution_error"
    assert result.results["after_bad"].code == "dependency_failed"
    assert "step 'bad' it depends on failed" in result.results["after_bad"].error.message
    assert result.results["after_after"].code == "dependency_failed"
    assert result.results["independent"].success
    assert result.failed == ["bad", "after_bad", "after_after"]


def test_stop_policy_starts_nothing_after_a_failure(runner: PlanRunner) -> None:
    runner.on_failure = "stop"
    plan = Plan.from_data(
        [
            {"id": "bad", "tool": "fail", "params": {"reason": "x"}},
            {"id": "slow", "tool": "analyze", "params": {"text": "runs anyway"}},
            {"id": "later", "tool": "analyze", "params": {"text": "${slow.output.length}"}},
        ]
    )
    result = runner.run_sync(plan)
    assert result.results["slow"].success  # already running when "bad" failed
    assert result.results["later"].code == "cancelled"
    assert "the plan stopped after step 'bad' failed" in result.results["later"].error.message


def test_rerun_resumes_from_the_execution_log(tmp_path: Path) -> None:
    attempts = {"n": 0}

    @tool
    def flaky(text: str) -> str:
        attempts["n"] += 1
        if attempts["n"] == 1:
            raise RuntimeError("first try fails")
        return text.upper()

    CALLS.clear()
    log = SQLiteExecutionLog(tmp_path / "runs.sqlite3")
    runner = PlanRunner(ToolExecutor([fetch, analyze, flaky]), store=log)
    plan = Plan.from_data(
        {
            "id": "resumable",
            "steps": [
                {"id": "get", "tool": "fetch", "params": {"urls": ["a"]}},
                {"id": "shout", "tool": "flaky", "params": {"text": "${get.output.pages[0]}"}},
                {"id": "measure", "tool": "analyze", "params": {"text": "${shout.output}"}},
            ],
        }
    )
    first = runner.run_sync(plan)
    assert first.failed == ["shout", "measure"] and CALLS == ["fetch"]
    second = runner.run_sync(plan)
    assert second.success and second.reused == ("get",)
    assert CALLS == ["fetch", "analyze"]  # fetch was not run again
    assert second.outputs["measure"] == {"length": 3, "limit": 3}
    records = log.get_run("resumable")
    assert [(r.step_id, r.status) for r in records] == [
        ("get", "succeeded"),
        ("shout", "failed"),
        ("measure", "skipped"),  # never ran: its dependency failed
        ("shout", "succeeded"),
        ("measure", "succeeded"),
    ]
    assert records[0].cost == pytest.approx(0.011) and records[0].input_data == {"urls": ["a"]}
    third = runner.run_sync(plan)
    assert set(third.reused) == {"get", "shout", "measure"} and CALLS == ["fetch", "analyze"]
    log.close()


def test_progress_callbacks(runner: PlanRunner) -> None:
    events: list[StepEvent] = []
    runner.add_listener(events.append)
    runner.run_sync(Plan.from_yaml(PLAN_YAML))
    assert [e.status for e in events].count(StepStatus.STARTED) == 4
    assert [e.status for e in events].count(StepStatus.SUCCEEDED) == 4
    finished = [e for e in events if e.status == StepStatus.SUCCEEDED]
    assert [e.done for e in finished] == [1, 2, 3, 4] and all(e.total == 4 for e in events)


def test_bad_reference_path_at_run_time(runner: PlanRunner) -> None:
    plan = Plan.from_data(
        [
            {"id": "get", "tool": "fetch", "params": {"urls": ["a"]}},
            {"id": "use", "tool": "analyze", "params": {"text": "${get.output.pages[5]}"}},
        ]
    )
    result = runner.run_sync(plan)
    assert result.results["use"].code == "invalid_arguments"
    assert "has no item [5]" in result.results["use"].error.message
