"""``toolrig demo``: define tools the three ways, run good and bad calls, print the results.

Runs offline on embedded defaults; every call answers with a structured ``ToolResult``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from toolrig import ToolExecutor, render_tools
from toolrig.cli._demo_tools import build_executor

__all__ = ["add_demo_parser", "run_demo"]


def add_demo_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Declare ``demo``."""
    demo = commands.add_parser(
        "demo",
        help="tools defined three ways, good and bad calls, a plan over the example catalogue",
    )
    demo.add_argument("--no-prompt", action="store_true", help="do not print the tools' prompt")
    demo.set_defaults(handler=lambda args: run_demo(show_prompt=not args.no_prompt))


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
