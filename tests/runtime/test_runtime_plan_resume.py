"""Resuming a plan re-uses a step only when it would run the same tool, at the same version,
with the same resolved arguments; anything else runs again, and so do the steps reading it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from toolrig import ToolExecutor, tool
from toolrig.runtime import Plan, PlanRunner, StepEvent, StepStatus
from toolrig.storage import SQLiteExecutionLog

RAN: list[str] = []


@tool(version="1.0.0")
def double(n: int) -> int:
    """Twice ``n``."""
    RAN.append(f"double({n})")
    return 2 * n


@tool(version="1.0.0")
def label(value: int, prefix: str = "n=") -> str:
    """``value`` with a prefix."""
    RAN.append(f"label({value})")
    return f"{prefix}{value}"


def plan(n: int, prefix: str = "n=") -> Plan:
    return Plan.from_data(
        {
            "id": "resumable",
            "steps": [
                {"id": "twice", "tool": "double", "params": {"n": n}},
                {
                    "id": "name",
                    "tool": "label",
                    "params": {"value": "${twice.output}", "prefix": prefix},
                },
            ],
        }
    )


@pytest.fixture
def log(tmp_path: Path) -> Iterator[SQLiteExecutionLog]:
    opened = SQLiteExecutionLog(tmp_path / "runs.sqlite3")
    yield opened
    opened.close()


def test_changed_arguments_run_again(log: SQLiteExecutionLog) -> None:
    # the reproducer: changing a step's arguments used to re-use every step anyway
    runner = PlanRunner(ToolExecutor([double, label]), store=log)
    RAN.clear()
    first = runner.run_sync(plan(2))
    assert first.outputs == {"twice": 4, "name": "n=4"} and first.reused == ()
    again = runner.run_sync(plan(2))
    assert again.reused == ("twice", "name") and RAN == ["double(2)", "label(4)"]
    changed = runner.run_sync(plan(3))
    assert changed.reused == () and changed.outputs == {"twice": 6, "name": "n=6"}
    assert RAN[2:] == ["double(3)", "label(6)"]  # the dependant's resolved input changed too
    relabelled = runner.run_sync(plan(3, prefix="#"))
    assert relabelled.reused == ("twice",) and relabelled.outputs["name"] == "#6"
    records = log.get_run("resumable")
    assert records[-1].input_data == {"value": 6, "prefix": "#"}  # resolved, as it ran
    assert records[-1].tool_version == "1.0.0"


def test_a_new_tool_version_runs_again(log: SQLiteExecutionLog) -> None:
    RAN.clear()
    PlanRunner(ToolExecutor([double, label]), store=log).run_sync(plan(5))

    @tool(name="double", version="2.0.0")
    def double_v2(n: int) -> int:
        """Twice ``n``, version 2."""
        RAN.append(f"double_v2({n})")
        return 2 * n

    events: list[StepEvent] = []
    runner = PlanRunner(ToolExecutor([double_v2, label]), store=log, on_step=events.append)
    result = runner.run_sync(plan(5))
    assert result.reused == ("name",)  # same output, so the dependant's arguments are the same
    assert RAN[-1] == "double_v2(5)"
    assert [(e.step_id, e.status) for e in events if e.status is not StepStatus.STARTED] == [
        ("twice", StepStatus.SUCCEEDED),
        ("name", StepStatus.REUSED),
    ]


def test_a_different_tool_under_the_same_step_runs_again(log: SQLiteExecutionLog) -> None:
    RAN.clear()
    runner = PlanRunner(ToolExecutor([double, label]), store=log)
    runner.run_sync(plan(1))
    swapped = Plan.from_data(
        {"id": "resumable", "steps": [{"id": "twice", "tool": "label", "params": {"value": 1}}]}
    )
    assert runner.run_sync(swapped).reused == ()
    assert RAN[-1] == "label(1)"
