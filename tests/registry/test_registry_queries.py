"""Queries, and execution through an executor over the registry (timeouts, retries, output
checks)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from registry_helpers import write

from toolrig import RetryPolicy, ToolExecutor
from toolrig.registry import Registry

ModuleDir = Callable[[str, str], Path]

TOOLS = {
    "loader": "type: data\nlayer: io\ntags: [csv, input]\n",
    "cleaner": "type: data\nlayer: nlp\ntags: [nlp, input]\n",
    "scorer": "type: analysis\nlayer: nlp\ntags: [nlp, ml]\n",
    "writer": "type: content\ntags: [report]\n",
}


def _catalogue(registry: Registry, tmp_path: Path) -> None:
    for name, extra in TOOLS.items():
        write(tmp_path / f"{name}.yaml", f"name: {name}\ndescription: The {name}.\n{extra}")
    assert registry.load(tmp_path).ok


def test_queries_by_type_layer_tags_and_name(registry: Registry, tmp_path: Path) -> None:
    _catalogue(registry, tmp_path)

    def names(**filters: object) -> list[str]:
        return [s.name for s in registry.specs(**filters)]  # type: ignore[arg-type]

    assert names() == ["cleaner", "loader", "scorer", "writer"]
    assert names(type="data") == ["cleaner", "loader"]
    assert names(layer="nlp") == ["cleaner", "scorer"]
    assert names(tags=["input", "ml"]) == ["cleaner", "loader", "scorer"]
    assert names(tags=["nlp", "input"], match="all") == ["cleaner"]
    assert names(name="*er", type="data", layer="nlp") == ["cleaner"]
    assert names(name="scorer") == ["scorer"]
    assert names(type="business") == []
    described = registry.describe("scorer")
    assert described["type"] == "analysis" and described["source"] == str(tmp_path / "scorer.yaml")
    assert described["actions"]["scorer"]["parameters"]["type"] == "object"
    assert len(registry) == 4 and "writer" in registry


def test_validate_params(registry: Registry, tmp_path: Path) -> None:
    write(
        tmp_path / "t.yaml",
        """
        name: t
        description: T.
        parameters:
          - {name: n, type: integer, min: 1}
        """,
    )
    assert registry.load(tmp_path).ok
    assert registry.validate_params("t", {"n": 2}) == (True, "")
    ok, message = registry.validate_params("t", {"n": 0, "x": 1})
    assert not ok
    assert re.search(r"^- n: expected .*greater than or equal to 1, received 0\b", message, re.M)
    assert "- x: unknown parameter" in message
    ok, message = registry.validate_params("nope", {})
    assert not ok and message == registry.missing_message("nope")
    assert message.startswith("Tool 'nope' not found.") and "Available tools: t." in message


def test_execute_applies_timeout_retries_and_output_schema(
    registry: Registry, tmp_path: Path, module_dir: ModuleDir
) -> None:
    module_dir(
        "exec_mod",
        """
        import time
        from toolrig import RetryableToolError
        CALLS = {"flaky": 0}
        def slow(text):
            time.sleep(2)
            return {"ok": True}
        def flaky(text):
            CALLS["flaky"] += 1
            if CALLS["flaky"] < 3:
                raise RetryableToolError("busy, try again")
            return {"label": "positive"}
        def wrong(text):
            return {"label": 42}
        async def asynchronous(text):
            return {"label": text}
        """,
    )
    head = "description: X.\nparameters: [{name: text, type: string}]\n"
    out = "output_schema: {type: object, properties: {label: {type: string}}, required: [label]}\n"
    write(tmp_path / "slow.yaml", f"name: slow\n{head}executor: exec_mod.slow\ntimeout: 0.2\n")
    write(
        tmp_path / "flaky.yaml",
        f"name: flaky\n{head}{out}executor: exec_mod.flaky\nmax_retries: 3\n",
    )
    write(tmp_path / "wrong.yaml", f"name: wrong\n{head}{out}executor: exec_mod.wrong\n")
    write(tmp_path / "asy.yaml", f"name: asy\n{head}{out}executor: exec_mod.asynchronous\n")
    assert registry.load(tmp_path).ok
    executor = ToolExecutor(registry, retry=RetryPolicy(initial_delay=0.001, jitter=False))

    slow = executor.execute_sync("slow", {"text": "x"})
    assert slow.error is not None and slow.error.code == "timeout"
    flaky = executor.execute_sync("flaky", {"text": "x"})
    assert flaky.success and flaky.metadata is not None and flaky.metadata.attempts == 3
    wrong = executor.execute_sync("wrong", {"text": "x"})
    assert wrong.error is not None and wrong.error.code == "invalid_output"
    assert executor.execute_sync("asy", {"text": "hi"}).output == {"label": "hi"}
    bad_args = executor.execute_sync("wrong", {"text": 5})
    assert bad_args.error is not None and bad_args.error.code == "invalid_arguments"
    executor.close()


async def test_an_executor_follows_the_registry_it_was_built_on(
    registry: Registry, executor: ToolExecutor, tmp_path: Path
) -> None:
    assert executor.catalog is registry and len(executor) == 0

    @registry.bind("echo")
    async def echo(text: str) -> str:
        return text

    write(tmp_path / "e.yaml", "name: echo\ndescription: E.\nparameters: [{name: text}]\n")
    assert registry.load(tmp_path).ok  # loaded after the executor was built
    assert "echo" in executor and executor.catalog.names() == ["echo"]
    assert (await executor.execute("echo", {"text": "hi"})).output == "hi"
    registry.remove("echo")
    gone = await executor.execute("echo", {"text": "hi"})
    assert gone.code == "not_found" and gone.error is not None
    assert gone.error.message == registry.missing_message("echo")
