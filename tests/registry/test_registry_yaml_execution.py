"""Code named in YAML runs as the pipeline runs any action: an async executor on the caller's
loop, cancelled at its time limit; a sync one on a worker thread, abandoned at its limit as a
``@tool`` is; one validation and one output check; the action is plain once its code is found."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from registry_helpers import write

from toolrig import ToolExecutor, tool
from toolrig.core.define._action import Action
from toolrig.core.schema._schema_arguments import SchemaArgumentValidator
from toolrig.core.schema._schema_output import SchemaOutputValidator
from toolrig.core.schema._validation import ArgumentValidator, OutputValidator
from toolrig.registry import Registry

ModuleDir = Callable[[str, str], Path]

NAPS = """
import asyncio

seen = []


async def nap(seconds: float) -> str:
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        seen.append("cancelled")
        raise
    seen.append("woke")  # never reached when the call is cancelled
    return "woke"
"""


def _load(registry: Registry, folder: Path, text: str) -> None:
    report = registry.load(write(folder / "tool.yaml", text))
    assert report.ok, report


@pytest.mark.parametrize("entry", ["awaited", "blocking"])
def test_an_async_yaml_executor_is_cancelled_at_its_time_limit(
    registry: Registry, executor: ToolExecutor, tmp_path: Path, module_dir: ModuleDir, entry: str
) -> None:
    name = f"naps_{entry}"
    module_dir(name, NAPS)
    _load(
        registry,
        tmp_path,
        f"""
        name: nap
        description: Sleeps.
        timeout: 0.1
        parameters: [{{name: seconds, type: number}}]
        executor: {name}.nap
        """,
    )
    if entry == "awaited":
        result = asyncio.run(executor.execute("nap", {"seconds": 60}))
    else:
        result = executor.execute_sync("nap", {"seconds": 60})
    assert result.code == "timeout"
    # the coroutine was stopped inside its await, before the call answered
    assert sys.modules[name].seen == ["cancelled"]


def test_a_sync_yaml_executor_times_out_as_the_same_function_under_tool_does(
    registry: Registry, tmp_path: Path, module_dir: ModuleDir
) -> None:
    module_dir(
        "gate_mod",
        """
        import threading

        release = threading.Event()


        def wait(text: str) -> str:
            release.wait(60)
            return text
        """,
    )
    _load(
        registry,
        tmp_path,
        """
        name: wait
        description: Waits.
        timeout: 0.1
        parameters: [{name: text, type: string}]
        executor: gate_mod.wait
        """,
    )
    import gate_mod  # type: ignore[import-not-found]

    try:
        with (
            ToolExecutor(registry) as from_yaml,
            ToolExecutor([tool(timeout=0.1)(gate_mod.wait)]) as typed,
        ):
            answers = [ex.execute_sync("wait", {"text": "x"}) for ex in (from_yaml, typed)]
    finally:
        gate_mod.release.set()
    (yaml_error, tool_error) = (a.error for a in answers)
    assert yaml_error is not None and tool_error is not None
    assert yaml_error.code == "timeout"
    seen = [(e.code, e.message, e.hint, e.retryable) for e in (yaml_error, tool_error)]
    assert seen[0] == seen[1]


@pytest.mark.parametrize("limit", ["", "timeout: 5"])
def test_an_async_yaml_executor_runs_on_the_callers_loop_with_its_context(
    registry: Registry, executor: ToolExecutor, tmp_path: Path, module_dir: ModuleDir, limit: str
) -> None:
    module_dir(
        f"where_mod_{bool(limit)}",
        """
        import asyncio

        from toolrig import ToolContext


        async def where(ctx: ToolContext) -> list:
            return [id(asyncio.get_running_loop()), ctx.tool_call_id]
        """,
    )
    _load(
        registry,
        tmp_path,
        f"""
        name: where
        description: Says where it runs.
        {limit}
        executor: where_mod_{bool(limit)}.where
        """,
    )

    async def caller() -> tuple[int, Any]:
        result = await executor.execute("where", {}, tool_call_id="call_w")
        assert result.success, result.error
        return id(asyncio.get_running_loop()), result.output

    loop_id, output = asyncio.run(caller())  # the first call is the one that finds the code
    assert output == [loop_id, "call_w"]


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How many argument validations and output checks run, of every kind."""
    counts = {"validated": 0, "checked": 0}

    def counting(cls: type, method: str, key: str) -> None:
        original = getattr(cls, method)

        def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
            counts[key] += 1
            return original(self, *args, **kwargs)

        monkeypatch.setattr(cls, method, wrapper)

    for cls in (ArgumentValidator, SchemaArgumentValidator):
        counting(cls, "validate", "validated")
    for cls in (OutputValidator, SchemaOutputValidator):
        counting(cls, "check", "checked")
    return counts


SHOUT = """
from toolrig import BaseTool, action


class Shout(BaseTool):
    '''Shouts.'''

    @action
    def shout(self, text: str) -> str:
        '''Shout the text.'''
        return text.upper()
"""


def test_a_yaml_tool_class_validates_and_checks_once(
    registry: Registry,
    executor: ToolExecutor,
    tmp_path: Path,
    module_dir: ModuleDir,
    counted: dict[str, int],
) -> None:
    module_dir("shout_mod", SHOUT)
    _load(
        registry,
        tmp_path,
        """
        name: shout
        description: Shouts.
        parameters: [{name: text, type: string, max_length: 5}]
        output_schema: {type: string}
        executor: shout_mod.Shout
        """,
    )
    done = executor.execute_sync("shout", {"text": "hey"})
    assert done.output == "HEY"
    assert counted == {"validated": 1, "checked": 1}
    refused = executor.execute_sync("shout", {"text": "too long"})  # the definition's rule
    assert refused.code == "invalid_arguments"
    assert counted == {"validated": 2, "checked": 1}


def test_a_yaml_tool_class_keeps_its_output_check_when_the_definition_has_none(
    registry: Registry, executor: ToolExecutor, tmp_path: Path, module_dir: ModuleDir
) -> None:
    module_dir(
        "miscount_mod",
        """
        from toolrig import BaseTool, action


        class Count(BaseTool):
            '''Counts.'''

            @action
            def count(self, text: str) -> int:
                '''Count, wrongly.'''
                return text
        """,
    )
    _load(
        registry,
        tmp_path,
        """
        name: count
        description: Counts.
        parameters: [{name: text, type: string}]
        executor: miscount_mod.Count
        """,
    )
    assert executor.execute_sync("count", {"text": "abc"}).code == "invalid_output"


def test_the_action_is_pending_until_first_use_then_plain(
    registry: Registry, executor: ToolExecutor, tmp_path: Path, module_dir: ModuleDir
) -> None:
    module_dir("pending_mod", NAPS)
    _load(
        registry,
        tmp_path,
        """
        name: nap
        description: Sleeps.
        parameters: [{name: seconds, type: number}]
        executor: pending_mod.nap
        """,
    )
    from toolrig.core.define._action import PendingAction

    action = registry.get("nap").get_action("nap")
    assert type(action) is PendingAction and "pending_mod" not in sys.modules
    # the first call is blocking: it must learn the code is async before choosing a path
    assert executor.execute_sync("nap", {"seconds": 0}).output == "woke"
    assert type(action) is Action and action.is_async
    assert action.func is sys.modules["pending_mod"].nap


def test_missing_code_answers_on_every_path(
    registry: Registry, executor: ToolExecutor, tmp_path: Path
) -> None:
    _load(
        registry,
        tmp_path,
        """
        name: gone
        description: Nowhere.
        timeout: 5
        executor: no_such_module_for_gone.run
        """,
    )
    for result in (
        executor.execute_sync("gone", {}),
        asyncio.run(executor.execute("gone", {})),
        executor.execute_sync("gone", {}, timeout=None),  # the straight line
    ):
        assert result.code == "not_found"
        assert result.error is not None and "no_such_module_for_gone" in result.error.message


@pytest.mark.skipif(not hasattr(os, "fork"), reason="process isolation needs os.fork")
@pytest.mark.parametrize("kind", ["def", "async def"])
def test_a_yaml_executor_may_run_in_its_own_process(
    registry: Registry, executor: ToolExecutor, tmp_path: Path, module_dir: ModuleDir, kind: str
) -> None:
    name = f"pid_mod_{kind.replace(' ', '_')}"
    module_dir(name, f"import os\n\n\n{kind} pid() -> int:\n    return os.getpid()\n")
    _load(
        registry,
        tmp_path,
        f"""
        name: pid
        description: Its process.
        isolation: process
        executor: {name}.pid
        """,
    )
    result = executor.execute_sync("pid", {})
    assert result.success, result.error
    assert isinstance(result.output, int) and result.output != os.getpid()


def test_an_executor_object_with_an_async_call_is_awaited_on_the_callers_loop(
    registry: Registry, executor: ToolExecutor, tmp_path: Path, module_dir: ModuleDir
) -> None:
    module_dir(
        "caller_obj_mod",
        """
        import asyncio


        class Where:
            async def __call__(self) -> int:
                return id(asyncio.get_running_loop())
        """,
    )
    _load(
        registry,
        tmp_path,
        """
        name: where
        description: Says where it runs.
        executor: caller_obj_mod.Where
        """,
    )

    async def caller() -> tuple[int, Any]:
        return id(asyncio.get_running_loop()), (await executor.execute("where", {})).output

    loop_id, output = asyncio.run(caller())
    assert output == loop_id


def test_concurrent_first_calls_all_find_the_code(
    registry: Registry, executor: ToolExecutor, tmp_path: Path, module_dir: ModuleDir
) -> None:
    module_dir(
        "first_mod",
        """
        import asyncio

        from toolrig import ToolContext


        async def tag(n: int, ctx: ToolContext) -> str:
            await asyncio.sleep(0)
            return f"{n} {ctx.tool_call_id}"
        """,
    )
    _load(
        registry,
        tmp_path,
        """
        name: tag
        description: Tags.
        parameters: [{name: n, type: integer}]
        executor: first_mod.tag
        """,
    )

    async def burst() -> list[Any]:
        calls = [executor.execute("tag", {"n": n}, tool_call_id=f"c{n}") for n in range(50)]
        return [r.output for r in await asyncio.gather(*calls)]

    assert asyncio.run(burst()) == [f"{n} c{n}" for n in range(50)]
