"""``toolrig demo``: define tools the three ways, run good and bad calls, print the results.

Runs offline on embedded defaults; every call answers with a structured ``ToolResult``.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field

from toolrig import (
    ActionSchema,
    BaseTool,
    Tool,
    ToolAnnotations,
    ToolError,
    ToolExecutor,
    ToolParameter,
    action,
    render_tools,
    tool,
)

__all__ = ["build_executor", "demo_tools", "run_demo"]


@tool(when_to_use="When numbers must be added exactly.")
def add(a: int, b: int, note: str = "") -> int:
    """Add two integers.

    Args:
        a: First addend.
        b: Second addend.
        note: Free-form note, ignored.
    """
    return a + b


@tool(timeout=0.2)
async def search(
    query: str,
    max_results: Annotated[int, Field(ge=1, le=20)] = 5,
    mode: Literal["fast", "deep"] = "fast",
) -> list[str]:
    """Search a small built-in catalogue of tool names.

    Args:
        query: Words to look for.
        max_results: How many names at most.
        mode: "deep" also matches inside words.
    """
    catalogue = ["file_tool", "shell", "web_fetch", "sql_query", "rag_search", "todo"]
    words = query.lower().split()
    hits = [
        c for c in catalogue if any(w in c if mode == "deep" else c.startswith(w) for w in words)
    ]
    if "slow" in words:
        await asyncio.sleep(1)
    return hits[:max_results]


class Notes(BaseTool):
    """An in-memory notebook: add, read and delete notes."""

    name = "notes"
    annotations = ToolAnnotations(destructive=False)
    actions = (
        ActionSchema(
            name="delete",
            description="Delete a note by id.",
            parameters=[
                ToolParameter(name="note_id", type="integer", min=1, description="Note id")
            ],
            output_type="boolean",
            output_description="True when the note existed.",
            annotations=ToolAnnotations(destructive=True),
        ),
    )

    def __init__(self) -> None:
        super().__init__()
        self.items: dict[int, str] = {}

    @action(output_description="The new note's id.")
    def add(self, text: Annotated[str, Field(min_length=1, max_length=200)]) -> int:
        """Add a note.

        Args:
            text: The note's text.
        """
        note_id = len(self.items) + 1
        self.items[note_id] = text
        return note_id

    @action(annotations=ToolAnnotations(read_only=True))
    def read(self, note_id: int) -> str:
        """Read a note by id."""
        if note_id not in self.items:
            raise ToolError(
                f"no note {note_id}", code="not_found", hint=f"Ids: {sorted(self.items)}"
            )
        return self.items[note_id]

    def delete(self, note_id: int) -> bool:
        return self.items.pop(note_id, None) is not None


def _shout(text: str, times: int = 1) -> str:
    return " ".join([text.upper()] * times)


def demo_tools() -> list[BaseTool]:
    """The demo's tools: a decorated function, an async function, a class and a runtime object."""
    shout = Tool(
        name="shout",
        description="Repeat a text in capitals.",
        parameters=[
            ToolParameter(name="text", type="string", description="What to shout"),
            ToolParameter(name="times", type="integer", default=1, min=1, max=5),
        ],
        func=_shout,
    )
    return [add, search, Notes(), shout]


def build_executor() -> ToolExecutor:
    """An executor over the demo's tools."""
    return ToolExecutor(demo_tools())


CALLS: list[tuple[str, dict[str, Any]]] = [
    ("add", {"a": 2, "b": "40"}),
    ("add", {"a": "two", "bb": 3}),
    ("search", {"query": "file sql", "max_results": 3}),
    ("search", {"query": "slow"}),
    ("notes.add", {"text": "buy milk"}),
    ("notes.read", {"note_id": 7}),
    ("notes.delete", {"note_id": 1}),
    ("shout", {"text": "hello", "times": 2}),
    ("shout", {"text": "hello", "times": 9}),
    ("sarch", {"query": "x"}),
]


def run_demo(*, show_prompt: bool = True) -> int:
    """Print the tools' prompt section, then each call's result; returns a process exit code."""
    executor = build_executor()
    if show_prompt:
        print(render_tools(executor.catalog.specs()))
        print()
    print("== calls ==")
    results = []
    for name, args in CALLS:
        result = executor.execute_sync(name, args)
        results.append(result)
        print(f"\n>>> {name}({args})")
        print(result.render("pretty"))
    failures = sum(not r.success for r in results)
    print(f"\n{len(results) - failures} succeeded, {failures} failed as expected; nothing raised.")
    batch = executor.execute_many_sync([("search", {"query": "web rag", "mode": "deep"})] * 100)
    took = max(r.metadata.duration_ms for r in batch if r.metadata)
    print(
        f"100 concurrent searches: all succeeded={all(r.success for r in batch)}, "
        f"slowest call {took:.2f} ms."
    )
    executor.close()
    examples = _examples_dir()
    if examples is None:
        print("\n(examples/ not found next to this installation: the plan demo is skipped)")
        return 0
    ok = _run_catalog_plan(examples)
    _run_agent_if_configured(examples)
    return 0 if ok else 1


def _examples_dir() -> Path | None:
    """The project's ``examples`` folder: under the working directory, or beside the sources."""
    for root in (Path.cwd(), Path(__file__).resolve().parents[3]):
        if (root / "examples" / "catalog").is_dir():
            return root / "examples"
    return None


def _run_catalog_plan(examples: Path) -> bool:
    """Run the review-report plan over the example catalogue, recorded in the SQLite log."""
    from toolrig.cli._catalog import load_registry
    from toolrig.runtime._plan import Plan
    from toolrig.runtime._plan_run import PlanRunner, StepEvent
    from toolrig.storage._open import open_log

    print("\n== a plan over the example catalogue (examples/catalog), recorded in SQLite ==")
    registry = load_registry([str(examples / "catalog")], [str(examples)])
    text = (examples / "plans" / "review_report.yaml").read_text(encoding="utf-8")
    source = str(examples / "data" / "reviews.csv")
    plan = Plan.from_yaml(
        text.replace("examples/data/reviews.csv", source),
        plan_id=f"review-report-{time.strftime('%Y%m%d-%H%M%S')}",
    )

    def on_step(event: StepEvent) -> None:
        if event.status != "started":
            print(f"  [{event.done}/{event.total}] {event.step_id}: {event.status}")

    with open_log() as log, ToolExecutor(registry) as executor:
        runner = PlanRunner(executor, store=log, on_step=on_step)
        check = runner.check(plan)
        print(
            f"{len(plan.steps)} steps in {len(check.layers)} layers, "
            f"estimated cost {check.estimated_cost:.4f}"
        )
        result = runner.run_sync(plan)
        print(
            f"plan {'succeeded' if result.success else 'failed'} in {result.duration_ms:.0f} ms; "
            f"recorded in {log!r}"
        )
        if result.success:
            print("\n" + str(result.outputs["report"]["content"]).strip())
        print(
            "\nWhat an LLM would be told of this run:\n"
            + log.get_summary(plan.id, max_chars=1500, max_output_chars=110)
        )
    registry.close()
    return result.success


def _run_agent_if_configured(examples: Path) -> None:
    """Let a configured LLM drive the same tools; say how to configure one otherwise."""
    from toolrig.agent._config import LLMConfig, LLMConfigError
    from toolrig.agent._loop import Agent
    from toolrig.cli._catalog import load_registry
    from toolrig.core._background import run_sync

    print("\n== the agent loop ==")
    try:
        config = LLMConfig.resolve()
    except LLMConfigError as exc:
        print(f"skipped: {exc}")
        return
    registry = load_registry([str(examples / "catalog")], [str(examples)])
    agent = Agent(
        "Review analyst",
        "You analyse customer reviews with the tools you have.",
        config,
        registry,
        max_steps=8,
        time_budget=300,
    )
    result = agent.run(f"Summarise the main complaints in {examples / 'data' / 'reviews.csv'}.")
    print(
        f"stopped: {result.stop_reason} after {len(result.steps)} steps, "
        f"{result.usage.total_tokens} tokens"
    )
    print(result.output or result.error or "(no output)")
    run_sync(agent.aclose())
    registry.close()
