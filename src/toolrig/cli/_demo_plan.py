"""The demo's last sections: a plan over the example catalogue, recorded in the execution log,
and the agent loop when an LLM is configured."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console


__all__ = ["examples_dir", "run_agent_if_configured", "run_catalog_plan"]


def examples_dir() -> Path | None:
    """The project's ``examples`` folder (under the working directory, or beside the sources),
    else the copy of its catalogue, tools, data and plan that the wheel ships
    (``toolrig/_demo_data``); ``None`` when neither is there."""
    for root in (Path.cwd(), Path(__file__).resolve().parents[3]):
        if (root / "examples" / "catalog").is_dir():
            return root / "examples"
    shipped = Path(__file__).resolve().parents[1] / "_demo_data"
    return shipped if (shipped / "catalog").is_dir() else None


def run_catalog_plan(console: Console, examples: Path) -> bool:
    """Run the review-report plan over the example catalogue, recorded in the SQLite log;
    True when it succeeded."""
    from rich.markup import escape
    from rich.panel import Panel
    from rich.table import Column, Table

    from toolrig.cli._catalog import load_registry
    from toolrig.runtime._executor import ToolExecutor
    from toolrig.runtime._plan import Plan
    from toolrig.runtime._plan_run import PlanRunner
    from toolrig.storage._open import open_log

    console.print()
    console.rule(
        "[bold]4. A plan over the example catalogue, recorded in the execution log[/]",
        align="left",
    )
    registry = load_registry([str(examples / "catalog")], [str(examples)], command="demo")
    text = (examples / "plans" / "review_report.yaml").read_text(encoding="utf-8")
    plan = Plan.from_yaml(
        text.replace("examples/data/reviews.csv", str(examples / "data" / "reviews.csv")),
        plan_id=f"review-report-{time.strftime('%Y%m%d-%H%M%S')}",
    )
    with registry, open_log() as log, ToolExecutor(registry) as executor:
        runner = PlanRunner(executor, store=log)
        check = runner.check(plan)
        result = runner.run_sync(plan)
        verdict = "[green]succeeded[/]" if result.success else "[red]failed[/]"
        console.print(
            f"plan [cyan]{escape(plan.id)}[/]: {len(plan.steps)} steps in {len(check.layers)} "
            f"layers, estimated cost {check.estimated_cost:.4f}; {verdict} in "
            f"{result.duration_ms:.0f} ms"
        )
        table = Table(
            Column("step", style="cyan"),
            "tool",
            "",
            Column("ms", justify="right"),
            box=None,
            padding=(0, 2, 0, 0),
        )
        for step in plan.steps:
            step_result = result.results[step.id]
            meta = step_result.metadata
            mark = "[green]ok[/]" if step_result.success else f"[red]{step_result.code}[/]"
            table.add_row(step.id, step.call_name, mark, f"{meta.duration_ms:.1f}" if meta else "")
        console.print(table)
        if result.success:
            report = str(result.outputs["report"]["content"]).strip().splitlines()
            console.print(Panel(escape("\n".join(report[:8])), title="the report (first lines)"))
        summary = log.get_summary(plan.id, max_chars=420, max_output_chars=70)
        console.print(f"[bold]What an LLM is told of this run[/] ({escape(repr(log))}):")
        console.print(f"[dim]{escape(summary)}[/]")
    return result.success


def run_agent_if_configured(console: Console, examples: Path) -> None:
    """Let a configured LLM drive the same tools; say how to configure one otherwise."""
    from rich.markup import escape

    from toolrig.agent._config import LLMConfig, LLMConfigError

    console.print()
    console.rule("[bold]5. The agent loop[/]", align="left")
    try:
        config = LLMConfig.resolve()
    except LLMConfigError:
        from toolrig.cli._demo_agent import run_scripted_agent

        run_scripted_agent(console)
        console.print(
            "[dim]Set TOOLRIG_LLM_PROVIDER and TOOLRIG_LLM_MODEL with OPENAI_API_KEY or "
            "ANTHROPIC_API_KEY (or OPENAI_BASE_URL for a local OpenAI-compatible server) to "
            "watch a real model drive the example catalogue.[/]"
        )
        return
    from toolrig.agent._loop import Agent
    from toolrig.cli._catalog import load_registry
    from toolrig.core.context._background import run_sync

    registry = load_registry([str(examples / "catalog")], [str(examples)], command="demo")
    agent = Agent(
        "Review analyst",
        "You analyse customer reviews with the tools you have.",
        config,
        registry,
        max_steps=8,
        time_budget=300,
        raise_on_error=False,  # the demo reports a failed run instead of a traceback
    )
    prompt = f"Summarise the main complaints in {examples / 'data' / 'reviews.csv'}."
    from toolrig.cli._demo_agent import watch

    result = run_sync(watch(console, agent, prompt))  # streamed: text and calls as they come
    console.print(
        f"\nstopped: {result.stop_reason} after {len(result.steps)} steps, "
        f"{result.usage.total_tokens} tokens"
    )
    if result.error:
        console.print(escape(result.error))
    run_sync(agent.aclose())
    registry.close()
