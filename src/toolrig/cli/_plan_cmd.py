"""``toolrig plan check|run``: check a plan, or run it with a progress bar, recorded in the log.

``check`` reports every problem at once (unknown tools, bad parameters, missing steps, cycles,
executors that do not import) and exits 1 on any; ``run`` checks the same way, runs, and exits
1 when a step failed. A ``--catalog`` that does not exist, or a plan that cannot be read,
exits 2 before anything runs.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from toolrig.cli._catalog import add_catalog_options
from toolrig.cli._output import EXIT_FAILED, EXIT_OK, CliError, add_json_option
from toolrig.cli._remote_opts import add_broker_options, attach_remote

if TYPE_CHECKING:
    from rich.console import Console

    from toolrig.runtime._plan import Plan
    from toolrig.runtime._plan_run import PlanResult, PlanRunner
    from toolrig.storage._log import ExecutionLog

__all__ = ["add_plan_parser", "run_plan_command"]


def add_plan_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``plan`` and its options on the CLI's subcommands."""
    plan = commands.add_parser("plan", help="check or run a plan of tool calls (YAML or JSON)")
    plan.add_argument("action", choices=["check", "run"])
    plan.add_argument("plan", metavar="PLAN", help="the plan file (.yaml, .yml or .json)")
    add_catalog_options(plan, demo_default=False)
    plan.add_argument(
        "--log",
        metavar="URL",
        help="execution log (SQLite path or postgresql:// URL); default: $TOOLRIG_LOG, else "
        "the user data folder",
    )
    plan.add_argument(
        "--on-failure", choices=["skip_dependants", "stop"], default="skip_dependants"
    )
    plan.add_argument("--id", dest="plan_id", help="run under this plan id (same id resumes)")
    plan.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_broker_options(plan)
    add_json_option(plan)
    plan.set_defaults(handler=run_plan_command)


def run_plan_command(args: argparse.Namespace) -> int:
    """Run ``toolrig plan ...``; 0 when the plan checks (or runs) cleanly, 1 when it does not,
    2 when its files cannot be read."""
    import os
    from pathlib import Path

    from toolrig.cli._catalog import load_registry
    from toolrig.cli._checks import executor_problems
    from toolrig.cli._output import out_console
    from toolrig.runtime._executor import ToolExecutor
    from toolrig.runtime._plan import Plan, PlanError
    from toolrig.runtime._plan_run import PlanRunner
    from toolrig.storage._open import open_log

    if not Path(args.plan).is_file():
        raise CliError(f"plan {args.plan!r}: no such file")
    try:
        plan = Plan.load(args.plan)
    except (OSError, UnicodeDecodeError, PlanError) as exc:
        raise CliError(f"cannot read the plan: {' '.join(str(exc).split())}") from None
    if args.plan_id:
        plan = Plan(id=args.plan_id, steps=plan.steps)
    console = out_console()
    with (
        load_registry(
            args.catalog, args.import_path, modules=args.module, command="plan"
        ) as registry,
        ToolExecutor(registry) as executor,
    ):
        report = PlanRunner(executor).check(plan)
        problems = [*report.problems]
        problems += [str(p) for p in executor_problems(registry, [s.tool for s in plan.steps])]
        if args.action == "check" or problems:
            _print_check(console, plan, report, problems, as_json=args.json)
            return EXIT_FAILED if problems else EXIT_OK
        attach_remote(executor, args)  # steps of tools with runs_on go to workers
        with open_log(args.log or os.environ.get("TOOLRIG_LOG")) as log:
            runner = PlanRunner(executor, store=log, on_failure=args.on_failure)
            show = not (args.no_progress or args.json)
            result = _run_with_progress(runner, plan, console, show=show)
            if args.json:
                from toolrig.cli._output import print_json

                print_json(
                    {
                        "plan_id": result.plan_id,
                        "success": result.success,
                        "duration_ms": result.duration_ms,
                        "estimated_cost": result.estimated_cost,
                        "reused": list(result.reused),
                        "steps": {k: r.render("dict") for k, r in result.results.items()},
                    }
                )
            else:
                _print_result(console, result, log)
    return EXIT_OK if result.success else EXIT_FAILED


def _print_check(
    console: Console, plan: Plan, report: Any, problems: list[str], *, as_json: bool
) -> None:
    if as_json:
        from toolrig.cli._output import print_json

        print_json(
            {
                "ok": not problems,
                "steps": len(plan.steps),
                "layers": report.layers,
                "estimated_cost": report.estimated_cost,
                "problems": problems,
            }
        )
        return
    from rich.markup import escape

    for problem in problems:
        console.print(f"[red]-[/red] {escape(problem)}", soft_wrap=True)
    console.print(
        f"{len(plan.steps)} steps in {len(report.layers)} layers; estimated cost "
        f"{report.estimated_cost:.4f}" + (f"; [red]{len(problems)} problems[/]" if problems else "")
    )


def _run_with_progress(
    runner: PlanRunner, plan: Plan, console: Console, *, show: bool
) -> PlanResult:
    from rich.markup import escape
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
        task = progress.add_task(escape(f"plan {plan.id}"), total=len(plan.steps))

        def on_step(event: StepEvent) -> None:
            if event.status != StepStatus.STARTED:
                progress.update(
                    task,
                    completed=event.done,
                    description=escape(f"plan {plan.id}: {event.step_id} {event.status}"),
                )

        runner.add_listener(on_step)
        return runner.run_sync(plan)


def _print_result(console: Console, result: PlanResult, log: ExecutionLog) -> None:
    from rich.markup import escape
    from rich.table import Table

    verdict = "[green]succeeded[/]" if result.success else "[red]failed[/]"
    table = Table(
        title=f"plan {escape(result.plan_id)}: {verdict} in {result.duration_ms:.0f} ms",
        title_justify="left",
    )
    table.add_column("step", style="bold cyan")
    table.add_column("status")
    table.add_column("output or error", overflow="fold")
    for step_id, step in result.results.items():
        if step_id in result.reused:
            status = "[dim]reused[/]"
        elif step.success:
            status = "[green]ok[/]"
        else:
            status = f"[red]{escape(step.error.code if step.error else 'failed')}[/]"
        text = step.to_text()
        shown = text if len(text) <= 160 else text[:157] + "..."
        table.add_row(escape(step_id), status, escape(shown))
    console.print(table)
    console.print(f"estimated cost {result.estimated_cost:.4f}; recorded in {escape(repr(log))}")
