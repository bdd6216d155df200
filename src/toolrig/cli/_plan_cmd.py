"""``toolrig plan check|run``: check a plan, or run it with a progress bar, recorded in the log."""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["add_plan_parser", "run_plan_command"]


def add_plan_parser(commands: Any) -> None:
    """Register ``plan`` and its options on the CLI's subcommands."""
    plan = commands.add_parser("plan", help="check or run a plan of tool calls (YAML or JSON)")
    plan.add_argument("action", choices=["check", "run"])
    plan.add_argument("plan", help="the plan file (.yaml, .yml or .json)")
    plan.add_argument(
        "--catalog",
        action="append",
        default=[],
        metavar="PATH",
        help="YAML tool definitions (file or folder); repeatable",
    )
    plan.add_argument(
        "--import-path",
        action="append",
        default=[],
        metavar="DIR",
        help="folder to import executors from (like PYTHONPATH); repeatable",
    )
    plan.add_argument(
        "--log",
        metavar="PATH",
        help="execution log (SQLite path or postgresql:// URL); default: the user "
        "data folder, or $TOOLRIG_LOG",
    )
    plan.add_argument(
        "--on-failure", choices=["skip_dependants", "stop"], default="skip_dependants"
    )
    plan.add_argument("--id", dest="plan_id", help="run under this plan id (same id resumes)")
    plan.add_argument("--no-progress", action="store_true", help="no progress bar")


def run_plan_command(args: argparse.Namespace) -> int:
    """Run ``toolrig plan ...``; the exit code is 0 when the plan checks (or runs) cleanly."""
    from rich.console import Console

    from toolrig.cli._catalog import load_registry
    from toolrig.runtime._executor import ToolExecutor
    from toolrig.runtime._plan import Plan, PlanError
    from toolrig.runtime._plan_run import PlanRunner
    from toolrig.storage._open import open_log

    console = Console()
    try:
        plan = Plan.load(args.plan)
    except (OSError, PlanError) as exc:
        console.print(f"[red]cannot read the plan:[/red] {exc}")
        return 2
    if args.plan_id:
        plan = Plan(id=args.plan_id, steps=plan.steps)
    with (
        load_registry(args.catalog, args.import_path) as registry,
        ToolExecutor(registry) as executor,
    ):
        if args.action == "check":
            report = PlanRunner(executor).check(plan)
            for problem in report.problems:
                console.print(f"[red]-[/red] {problem}")
            console.print(
                f"{len(plan.steps)} steps in {len(report.layers)} layers; estimated cost "
                f"{report.estimated_cost:.4f}"
            )
            return 0 if report.ok else 1
        with open_log(args.log) as log:
            runner = PlanRunner(executor, store=log, on_failure=args.on_failure)
            try:
                result = _run_with_progress(runner, plan, console, show=not args.no_progress)
            except PlanError as exc:
                for problem in exc.problems:
                    console.print(f"[red]-[/red] {problem}")
                return 1
            _print_result(console, result, log)
    return 0 if result.success else 1


def _run_with_progress(runner: Any, plan: Any, console: Any, *, show: bool) -> Any:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from toolrig.runtime._plan_run import StepEvent, StepStatus

    if not show:
        return runner.run_sync(plan)
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    ) as progress:
        task = progress.add_task(f"plan {plan.id}", total=len(plan.steps))

        def on_step(event: StepEvent) -> None:
            if event.status != StepStatus.STARTED:
                progress.update(
                    task,
                    completed=event.done,
                    description=f"plan {plan.id}: {event.step_id} {event.status}",
                )

        runner.add_listener(on_step)
        return runner.run_sync(plan)


def _print_result(console: Any, result: Any, log: Any) -> None:
    from rich.table import Table

    table = Table(
        title=f"plan {result.plan_id}: "
        f"{'succeeded' if result.success else 'failed'} in {result.duration_ms:.0f} ms"
    )
    table.add_column("step")
    table.add_column("status")
    table.add_column("output or error", overflow="fold")
    for step_id, step in result.results.items():
        status = "reused" if step_id in result.reused else ("ok" if step.success else step.code)
        text = step.to_text()
        table.add_row(step_id, status, text if len(text) <= 160 else text[:157] + "...")
    console.print(table)
    console.print(f"estimated cost {result.estimated_cost:.4f}; recorded in {log!r}")
