"""The boundaries of running and resuming a plan: each step is recorded with what it ran with,
a failure reaches exactly its dependants (or, under ``stop``, every step not started yet), a
resumed run re-uses only what it may and gives an unfinished call the same id again, and a store
that cannot record does not stop the plan.

| promise | boundary | test |
|---|---|---|
| recorded | run id, step id, resolved arguments, cost, tool version | ``..._recorded_as_run`` |
| recorded | a step never started: arguments as written; a bad reference | ``..._never_started`` |
| failure path | a store that refuses: logged, the plan goes on | ``..._store_that_refuses`` |
| absent values | no store: nothing recorded, nothing logged | ``..._without_a_store...`` |
| skip | dependants skipped, naming the first failed dependency; others run | ``..._skip_...`` |
| stop | the first real failure stops; a skipped step is not a failure | ``..._stop_...`` |
| events | each status once per step; done counts finished steps; listeners | ``..._events...`` |
| events | skipped (a dependency, a stop), else failed; a removed listener | ``..._events...`` |
| resume | a reused step feeds its dependants; its result keeps the call id | ``..._resume_...`` |
| resume | the call id: stable until recorded, none without a store | ``..._call_ids`` |
| result | plan order; outputs and failed; timings of steps run here only | ``..._result...`` |
| settings | an unknown failure policy; a plan with problems runs nothing | ``..._settings`` |
| actions | a step not run or re-used names its action | ``..._their_action``, ``..._reused_...`` |
| resume | another plan's records; a store without call ids; the id's hash | ``test_resume_...`` |
| catalogue | a tool removed while its plan runs: recorded, no version | ``..._tool_removed...`` |
| cost | the cost function prices the plan and each record | ``..._cost_function...`` |
| concurrency | a dependant starts when its dependency ends; the duration | ``..._dependant_...`` |
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from toolrig import BaseTool, ToolCost, ToolExecutor, action, tool
from toolrig.core.context._recording import Recording
from toolrig.registry import Registry
from toolrig.runtime import Plan, PlanError, PlanRunner, StepEvent
from toolrig.storage import LogWriteWarning, SQLiteExecutionLog

RAN: list[str] = []
IDS: list[str] = []


@tool(version="2.1.0", cost=ToolCost(base_cost=0.5))
async def double(n: int) -> int:
    """Twice ``n``."""
    RAN.append(f"double({n})")
    await asyncio.sleep(0.1 * (n % 3))
    return 2 * n


@tool
def explode(why: str) -> int:
    """Always fails."""
    RAN.append("explode")
    raise RuntimeError(why)


@tool
def whoami(n: int) -> int:
    """Records its call id (through the pipeline's listener)."""
    RAN.append(f"whoami({n})")
    return n


def _executor() -> ToolExecutor:
    executor = ToolExecutor([double, explode, whoami])
    executor.add_listener(
        lambda e: IDS.append(e.tool_call_id) if e.tool == "whoami" and e.kind == "started" else None
    )
    return executor


@pytest.fixture
def log(tmp_path: Path) -> Any:
    RAN.clear()
    IDS.clear()
    opened = SQLiteExecutionLog(tmp_path / "runs.sqlite3")
    yield opened
    opened.close()


def _plan(plan_id: str, steps: list[dict[str, Any]]) -> Plan:
    return Plan.from_data({"id": plan_id, "steps": steps})


def test_each_step_is_recorded_as_run(log: SQLiteExecutionLog) -> None:
    plan = _plan(
        "p",
        [
            {"id": "a", "tool": "double", "params": {"n": 2}},
            {"id": "b", "tool": "double", "params": {"n": "${a.output}"}},
        ],
    )
    PlanRunner(_executor(), store=log).run_sync(plan)
    records = log.get_run("p")
    assert [(r.step_id, r.input_data, r.output, r.status) for r in records] == [
        ("a", {"n": 2}, 4, "succeeded"),
        ("b", {"n": 4}, 8, "succeeded"),  # the resolved arguments, not "${a.output}"
    ]
    assert {(r.cost, r.tool_version, r.executor) for r in records} == {(0.5, "2.1.0", "double")}


def test_a_step_never_started_is_recorded_with_its_written_arguments(
    log: SQLiteExecutionLog,
) -> None:
    plan = _plan(
        "p",
        [
            {"id": "bad", "tool": "explode", "params": {"why": "no"}},
            {"id": "after", "tool": "double", "params": {"n": "${bad.output}"}},
            {"id": "a", "tool": "double", "params": {"n": 1}},
            {"id": "lost", "tool": "double", "params": {"n": "${a.output.missing}"}},
        ],
    )
    result = PlanRunner(_executor(), store=log).run_sync(plan)
    by_step = {r.step_id: r for r in log.get_run("p")}
    assert by_step["after"].input_data == {"n": "${bad.output}"}
    assert by_step["after"].error_code == "dependency_failed"
    assert by_step["lost"].error_code == "invalid_arguments"
    assert by_step["lost"].input_data == {"n": "${a.output.missing}"}
    lost = result.results["lost"]
    assert lost.error is not None and lost.error.hint == (
        "The referenced output does not have that shape."
    )
    assert lost.metadata is not None and lost.metadata.tool == "double"
    assert sorted(RAN) == ["double(1)", "explode"]


def test_a_store_that_refuses_is_counted_and_warned_about_and_the_plan_goes_on(
    log: SQLiteExecutionLog,
) -> None:
    def refuse(*args: Any, **kwargs: Any) -> int:
        raise OSError("disk full")

    log._insert = refuse  # type: ignore[method-assign]
    plan = _plan(
        "p",
        [
            {"id": "a", "tool": "double", "params": {"n": 1}},
            {"id": "b", "tool": "double", "params": {"n": "${a.output}"}},
        ],
    )
    with pytest.warns(LogWriteWarning, match="could not record a call of 'double'"):
        result = PlanRunner(_executor(), store=log).run_sync(plan)
    assert result.success and result.outputs == {"a": 2, "b": 4}
    assert log.failed_writes("p") == 2


def test_skip_fails_exactly_the_dependants_naming_the_first_failed_dependency() -> None:
    plan = _plan(
        "p",
        [
            {"id": "ok", "tool": "double", "params": {"n": 1}},
            {"id": "bad", "tool": "explode", "params": {"why": "no"}},
            {
                "id": "both",
                "tool": "double",
                "params": {"n": "${bad.output}"},
                "depends_on": ["ok"],
            },
            {"id": "free", "tool": "double", "params": {"n": 5}},
        ],
    )
    RAN.clear()
    result = PlanRunner(_executor()).run_sync(plan)
    assert result.failed == ["bad", "both"] and result.outputs == {"ok": 2, "free": 10}
    both = result.results["both"]
    assert both.code == "dependency_failed" and both.error is not None
    assert both.error.message == (
        "Step 'both' was not run: step 'bad' it depends on failed (execution_error)."
    )
    assert both.metadata is not None and both.metadata.tool == "double"


def test_stop_starts_nothing_after_the_first_real_failure() -> None:
    plan = _plan(
        "p",
        [
            {"id": "bad", "tool": "explode", "params": {"why": "no"}},
            {"id": "after", "tool": "double", "params": {"n": "${bad.output}"}},
            {"id": "other", "tool": "double", "params": {"n": 3}, "depends_on": ["after"]},
        ],
    )
    RAN.clear()
    result = PlanRunner(_executor(), on_failure="stop").run_sync(plan)
    assert result.results["after"].code == "dependency_failed"  # its own dependency first
    other = result.results["other"]
    assert other.code == "dependency_failed"  # "after" is not a success either
    assert RAN == ["explode"]
    stopped = _plan(
        "q",
        [
            {"id": "a", "tool": "double", "params": {"n": 3}},
            {"id": "bad", "tool": "explode", "params": {"why": "no"}, "depends_on": ["a"]},
            {"id": "late", "tool": "double", "params": {"n": 4}, "depends_on": ["bad", "a"]},
            {"id": "later", "tool": "whoami", "params": {"n": 1}, "depends_on": ["a"]},
        ],
    )
    result = PlanRunner(_executor(), on_failure="stop").run_sync(stopped)
    assert result.results["late"].code == "dependency_failed"
    assert result.results["later"].success  # started with "bad", before it failed
    skip = PlanRunner(_executor()).run_sync(
        _plan(
            "r",
            [
                {"id": "bad", "tool": "explode", "params": {"why": "no"}},
                {"id": "b", "tool": "double", "params": {"n": 1}, "depends_on": ["bad"]},
                {"id": "c", "tool": "double", "params": {"n": 1}, "depends_on": ["b"]},
                {"id": "d", "tool": "double", "params": {"n": 2}, "depends_on": ["c"]},
            ],
        )
    )
    assert skip.failed == ["bad", "b", "c", "d"]


def test_stop_cancels_what_a_skipped_step_would_not() -> None:
    runner = PlanRunner(_executor(), on_failure="stop")
    plan = _plan(
        "p",
        [
            {"id": "bad", "tool": "explode", "params": {"why": "no"}},
            {"id": "slow", "tool": "double", "params": {"n": 2}},
            {"id": "next", "tool": "double", "params": {"n": 1}, "depends_on": ["slow"]},
        ],
    )
    result = runner.run_sync(plan)
    nxt = result.results["next"]
    assert nxt.code == "cancelled" and nxt.error is not None
    assert nxt.error.message == (
        "Step 'next' was not run: the plan stopped after step 'bad' failed."
    )
    assert nxt.metadata is not None and nxt.metadata.tool == "double"


def test_events_tell_each_state_once_with_counts() -> None:
    seen: list[StepEvent] = []
    told: list[StepEvent] = []
    runner = PlanRunner(_executor(), on_step=seen.append, on_failure="stop")
    runner.add_listener(told.append)
    plan = _plan(
        "p",
        [
            {"id": "ok", "tool": "double", "params": {"n": 0}},
            {"id": "bad", "tool": "explode", "params": {"why": "no"}, "depends_on": ["ok"]},
            {"id": "dep", "tool": "double", "params": {"n": "${bad.output}"}},
            {"id": "cut", "tool": "double", "params": {"n": 1}, "depends_on": ["ok"]},
        ],
    )
    runner.run_sync(plan)
    assert told == seen
    states = [(e.step_id, e.status, e.done, e.total, e.plan_id) for e in seen]
    assert states[:2] == [("ok", "started", 0, 4, "p"), ("ok", "succeeded", 1, 4, "p")]
    assert ("dep", "skipped", 4, 4, "p") in states or ("dep", "skipped", 3, 4, "p") in states
    finished = {e.step_id: e.status for e in seen if e.status != "started"}
    assert finished == {"ok": "succeeded", "bad": "failed", "dep": "skipped", "cut": "succeeded"}
    assert all(e.result is not None for e in seen if e.status != "started")
    assert all(e.result is None for e in seen if e.status == "started")
    runner.remove_listener(told.append)
    runner.run_sync(_plan("q", [{"id": "x", "tool": "double", "params": {"n": 1}}]))
    assert len(told) == len(states) and len(seen) == len(states) + 2


def test_events_skip_a_stopped_step() -> None:
    seen: list[StepEvent] = []
    runner = PlanRunner(_executor(), on_step=seen.append, on_failure="stop")
    plan = _plan(
        "p",
        [
            {"id": "bad", "tool": "explode", "params": {"why": "no"}},
            {"id": "slow", "tool": "double", "params": {"n": 2}},
            {"id": "next", "tool": "double", "params": {"n": 1}, "depends_on": ["slow"]},
        ],
    )
    runner.run_sync(plan)
    finished = {e.step_id: e.status for e in seen if e.status != "started"}
    assert finished == {"bad": "failed", "slow": "succeeded", "next": "skipped"}


def test_resume_feeds_a_reused_step_to_its_dependants(log: SQLiteExecutionLog) -> None:
    runner = PlanRunner(_executor(), store=log)
    plan = _plan(
        "p",
        [
            {"id": "a", "tool": "whoami", "params": {"n": 7}},
            {"id": "b", "tool": "double", "params": {"n": "${a.output}"}},
        ],
    )
    first = runner.run_sync(plan)
    seen: list[StepEvent] = []
    runner.add_listener(seen.append)
    RAN.clear()
    again = runner.run_sync(plan)
    assert RAN == [] and again.reused == ("a", "b") and again.outputs == {"a": 7, "b": 14}
    a = again.results["a"]
    assert a.metadata is not None and first.results["a"].metadata is not None
    assert a.metadata.tool_call_id == first.results["a"].metadata.tool_call_id == IDS[0]
    assert (a.metadata.tool, a.metadata.action) == ("whoami", None)  # as the step names it
    assert [(e.step_id, e.status, e.done) for e in seen] == [("a", "reused", 1), ("b", "reused", 2)]
    assert again.timings == {} and set(first.timings) == {"a", "b"}


def test_resume_call_ids(log: SQLiteExecutionLog) -> None:
    plan = _plan("p", [{"id": "a", "tool": "whoami", "params": {"n": 1}}])
    PlanRunner(_executor()).run_sync(plan)
    PlanRunner(_executor()).run_sync(plan)
    assert IDS[0] != IDS[1]  # without a store, every call is new
    IDS.clear()
    with_store = PlanRunner(_executor(), store=log)
    with_store.run_sync(plan)
    assert IDS[0].startswith("p.a.0.")  # the step's first call
    other = _plan("p", [{"id": "a", "tool": "whoami", "params": {"n": 2}}])
    with_store.run_sync(other)
    assert IDS[1].startswith("p.a.1.") and IDS[1][-12:] != IDS[0][-12:]


def test_result_in_plan_order_whatever_finishes_first() -> None:
    plan = _plan(
        "p",
        [
            {"id": "slow", "tool": "double", "params": {"n": 2}},
            {"id": "fast", "tool": "double", "params": {"n": 3}},
            {"id": "bad", "tool": "explode", "params": {"why": "no"}},
        ],
    )
    result = PlanRunner(_executor()).run_sync(plan)
    assert list(result.results) == ["slow", "fast", "bad"]
    assert result.outputs == {"slow": 4, "fast": 6} and result.failed == ["bad"]
    assert not result.success and result.estimated_cost == pytest.approx(1.0)
    assert result.duration_ms > 0 and result.reused == ()
    start, end = result.timings["slow"]
    assert 0 < start < end
    assert result.timings["fast"][1] < end  # ran at the same time, finished first


def test_settings() -> None:
    with pytest.raises(ValueError, match=r"^on_failure must be 'skip_dependants' or 'stop'$"):
        PlanRunner(_executor(), on_failure="ignore")  # type: ignore[arg-type]
    RAN.clear()
    with pytest.raises(PlanError):
        PlanRunner(_executor()).run_sync(
            _plan(
                "p",
                [
                    {"id": "a", "tool": "double", "params": {"n": 1}},
                    {"id": "b", "tool": "nothing_by_that_name", "params": {}},
                ],
            )
        )
    assert RAN == []


class Shelf(BaseTool):
    """Books, by action."""

    name = "shelf"

    @action
    def count(self, n: int) -> int:
        """Count."""
        return n

    @action
    def fail(self, why: str) -> int:
        """Fail."""
        raise RuntimeError(why)

    @action
    async def slow(self, n: int) -> int:
        """Count, slowly."""
        await asyncio.sleep(0.2)
        return n


def test_results_of_steps_not_run_name_their_action() -> None:
    plan = _plan(
        "p",
        [
            {"id": "bad", "tool": "shelf", "action": "fail", "params": {"why": "no"}},
            {"id": "dep", "tool": "shelf", "action": "count", "params": {"n": "${bad.output}"}},
            {"id": "ok", "tool": "shelf", "action": "count", "params": {"n": 1}},
            {"id": "ref", "tool": "shelf", "action": "count", "params": {"n": "${ok.output.x}"}},
        ],
    )
    result = PlanRunner(ToolExecutor([Shelf])).run_sync(plan)
    stopped = PlanRunner(ToolExecutor([Shelf]), on_failure="stop").run_sync(
        _plan(
            "q",
            [
                {"id": "bad", "tool": "shelf", "action": "fail", "params": {"why": "no"}},
                {"id": "ok", "tool": "shelf", "action": "slow", "params": {"n": 1}},
                {
                    "id": "cut",
                    "tool": "shelf",
                    "action": "count",
                    "params": {"n": 1},
                    "depends_on": ["ok"],
                },
            ],
        )
    )
    for step in (result.results["dep"], result.results["ref"], stopped.results["cut"]):
        assert step.metadata is not None
        assert (step.metadata.tool, step.metadata.action) == ("shelf", "count")
    assert stopped.results["cut"].code == "cancelled"


def test_a_reused_step_of_an_action_names_it_and_its_event_has_the_result(
    log: SQLiteExecutionLog,
) -> None:
    plan = _plan("p", [{"id": "a", "tool": "shelf", "action": "count", "params": {"n": 3}}])
    runner = PlanRunner(ToolExecutor([Shelf]), store=log)
    runner.run_sync(plan)
    seen: list[StepEvent] = []
    runner.add_listener(seen.append)
    again = runner.run_sync(plan)
    reused = again.results["a"]
    assert again.reused == ("a",) and reused.metadata is not None
    assert (reused.metadata.tool, reused.metadata.action) == ("shelf", "count")
    assert [(e.status, e.result) for e in seen] == [("reused", reused)]


def test_resume_reads_its_own_plans_records_only(log: SQLiteExecutionLog) -> None:
    step = [{"id": "a", "tool": "whoami", "params": {"n": 1}}]
    PlanRunner(_executor(), store=log).run_sync(_plan("first", step))
    RAN.clear()
    other = PlanRunner(_executor(), store=log).run_sync(_plan("second", step))
    assert other.reused == () and RAN == ["whoami(1)"]
    assert IDS[-1].startswith("second.a.0.")


def test_resume_from_a_store_whose_records_have_no_call_id() -> None:
    class Store:
        """A store of plain records, without call ids."""

        def __init__(self) -> None:
            self.records: list[Any] = []

        def start_run(self, run_id: str, kind: str, **fields: Any) -> Recording:
            return Recording(sink=self, run_id=run_id)

        def finish_run(self, run_id: str, status: Any, **fields: Any) -> None:
            pass

        def record_call(
            self, scope: Recording, result: Any, arguments: Any, version: Any, status: Any = None
        ) -> None:
            meta = result.metadata
            self.records.append(
                SimpleNamespace(
                    run_id=scope.run_id,
                    step_id=scope.step_id,
                    executor=meta.tool,
                    action=meta.action,
                    tool_version=version,
                    input_data=arguments,
                    output=result.output,
                    ok=result.success,
                )
            )

        def query(self, *, run_id: str | None = None, status: str | None = None) -> list[Any]:
            return [r for r in self.records if r.run_id == run_id]

    store = Store()
    plan = _plan("p", [{"id": "a", "tool": "double", "params": {"n": 2}}])
    PlanRunner(_executor(), store=store).run_sync(plan)
    again = PlanRunner(_executor(), store=store).run_sync(plan)
    assert again.reused == ("a",) and again.outputs == {"a": 4}
    assert again.results["a"].metadata is not None


def test_resume_call_ids_hash_the_tools_version_and_arguments(log: SQLiteExecutionLog) -> None:
    PlanRunner(_executor(), store=log).run_sync(
        _plan("p", [{"id": "a", "tool": "whoami", "params": {"n": 5}}])
    )
    digest = hashlib.sha256(b'0.1.0\n{"n":5}').hexdigest()[:12]
    (call_id,) = IDS
    assert call_id == f"p.a.0.{digest}"


def test_a_tool_removed_while_its_plan_runs_is_recorded_with_the_version_that_ran(
    log: SQLiteExecutionLog,
) -> None:
    registry = Registry()

    @tool(version="3.0.0")
    def vanish(n: int) -> int:
        """Leaves the catalogue while it runs."""
        registry.remove("vanish")
        return n

    registry.add(vanish)
    result = PlanRunner(ToolExecutor(registry), store=log).run_sync(
        _plan("p", [{"id": "a", "tool": "vanish", "params": {"n": 1}}])
    )
    assert result.outputs == {"a": 1}
    (record,) = log.get_run("p")
    assert record.tool_version == "3.0.0" and record.output == 1


def test_the_cost_function_prices_the_plan_and_its_records(log: SQLiteExecutionLog) -> None:
    runner = PlanRunner(_executor(), store=log, cost_of=lambda step, args: 7.0)
    plan = _plan("p", [{"id": "a", "tool": "whoami", "params": {"n": 1}}])
    assert runner.check(plan).estimated_cost == 7.0
    assert runner.run_sync(plan).estimated_cost == 7.0
    assert [r.cost for r in log.get_run("p")] == [7.0]


def test_a_dependant_starts_when_its_dependency_ends_not_when_all_do() -> None:
    plan = _plan(
        "p",
        [
            {"id": "slow", "tool": "sleepy", "params": {"seconds": 0.4}},
            {"id": "fast", "tool": "sleepy", "params": {"seconds": 0.0}},
            {"id": "next", "tool": "sleepy", "params": {"seconds": 0.0}, "depends_on": ["fast"]},
        ],
    )
    started = time.perf_counter()
    result = PlanRunner(ToolExecutor([sleepy])).run_sync(plan)
    elapsed = time.perf_counter() - started
    assert result.plan_id == "p" and result.success
    assert result.timings["next"][0] < result.timings["slow"][1]
    assert 400 <= result.duration_ms <= elapsed * 1000


@tool
async def sleepy(seconds: float) -> float:
    """Sleep."""
    await asyncio.sleep(seconds)
    return seconds


def test_without_a_store_nothing_is_recorded_or_complained_about(
    caplog: pytest.LogCaptureFixture,
) -> None:
    plan = _plan("p", [{"id": "a", "tool": "double", "params": {"n": 1}}])
    with caplog.at_level(logging.DEBUG, logger="toolrig.plans"):
        result = PlanRunner(_executor()).run_sync(plan)
    assert result.outputs == {"a": 2} and caplog.records == []


def test_a_step_recorded_with_coerced_values_is_reused(
    log: SQLiteExecutionLog,
) -> None:
    # a call is recorded with its validated arguments ("3" made 3): a re-run compares the
    # step's arguments validated the same way, not as written
    @tool
    def scale(n: int, factor: int = 2) -> int:
        """``n`` times ``factor``."""
        RAN.append(f"scale({n})")
        return n * factor

    RAN.clear()
    plan = _plan("p", [{"id": "a", "tool": "scale", "params": {"n": "3"}}])
    runner = PlanRunner(ToolExecutor([scale]), store=log)
    assert runner.run_sync(plan).outputs == {"a": 6}
    (record,) = log.get_run("p")
    assert record.input_data == {"n": 3}
    again = runner.run_sync(plan)
    assert again.reused == ("a",) and RAN == ["scale(3)"]
