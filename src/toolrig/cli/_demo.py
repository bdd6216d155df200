"""``toolrig demo``: the offline tour, one screen per section.

1. the demo tools, defined the three ways, and what a model reads about one of them;
2. good and bad calls: each answers with a structured result, errors worded for the model;
3. a hundred concurrent calls;
4. a plan over the example catalogue, recorded in the execution log (``_demo_plan``);
5. the agent loop, when an LLM is configured.

Runs on embedded defaults, without network or keys; nothing raises.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

    from rich.console import Console

    from toolrig import ToolExecutor, ToolResult

__all__ = ["CALLS", "add_demo_parser", "run_demo"]

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
"""The demo's calls: good ones, and the mistakes models make (a wrong type, a misspelt
argument, a value out of range, a slow call, a missing note, a misspelt tool)."""

_DEFINED_BY = {
    "add": "@tool on a function",
    "search": "@tool on an async function, with constraints and a timeout",
    "notes": "a BaseTool class: decorated and declared actions",
    "shout": "Tool(...) built from data at run time",
}


def add_demo_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Declare ``demo``."""
    demo = commands.add_parser(
        "demo",
        help="the offline tour: tools, good and bad calls, a plan, the execution log",
        description="Tools defined three ways, good and bad calls with their structured "
        "results, 100 concurrent calls, a plan over the example catalogue recorded in the "
        "execution log, and the agent loop when an LLM is configured. Offline.",
    )
    demo.add_argument("--no-prompt", action="store_true", help="do not show what the model reads")
    demo.set_defaults(handler=lambda args: run_demo(show_prompt=not args.no_prompt))


def run_demo(*, show_prompt: bool = True) -> int:
    """Run the tour; 0 when everything behaved as shown (bad calls failing is expected)."""
    from toolrig.cli._demo_plan import examples_dir, run_agent_if_configured, run_catalog_plan
    from toolrig.cli._demo_tools import build_executor
    from toolrig.cli._output import out_console

    console = out_console()
    console.rule("[bold cyan]toolrig demo[/]: the tool layer for LLM agents, offline")
    with build_executor() as executor:
        _show_tools(console, executor, show_prompt=show_prompt)
        _show_calls(console, executor)
        _show_concurrency(console, executor)
    examples = examples_dir()
    if examples is None:
        console.print(
            "\n[dim](the example catalogue is not installed with this copy: no plan demo)[/]"
        )
        return 0
    from rich.markup import escape  # `[console]` in the install line is not a style

    ok = run_catalog_plan(console, examples)
    run_agent_if_configured(console, examples)
    console.print(
        "\n[bold]See it in the web console[/] (the log above, the example catalogue, "
        "a try-it form per tool):\n"
        + "".join(f"  {escape(line)}\n" for line in console_commands(examples))
        + "  then open http://127.0.0.1:8765/",
        soft_wrap=True,  # each command stays one line, to copy
    )
    return 0 if ok else 1


def console_commands(examples: Path) -> list[str]:
    """The commands that open the console over the demo's log: ``toolrig console ...``,
    after the install of the ``console`` extra when it is missing (the console is a web
    server, kept out of the base install; the demo says how to add it)."""
    import importlib.util

    command = f"toolrig console --catalog {examples / 'catalog'} --import-path {examples}"
    if all(importlib.util.find_spec(m) for m in ("starlette", "jinja2", "uvicorn")):
        return [command]
    root = examples.parent
    if (root / "pyproject.toml").is_file():  # a checkout: the editable install, with the extra
        install = f"{sys.executable} -m pip install -e '{root}[console]'"
    else:
        install = f"{sys.executable} -m pip install 'toolrig[console]'"
    return [install, command]


def _show_tools(console: Console, executor: ToolExecutor, *, show_prompt: bool) -> None:
    from rich.markup import escape
    from rich.panel import Panel
    from rich.table import Column, Table

    from toolrig.core.model._names import ActionRef
    from toolrig.core.model._prompt import render_tools

    console.rule("[bold]1. Tools, defined three ways[/]", align="left")
    table = Table(
        Column("tool", style="bold cyan", no_wrap=True),
        "defined by",
        Column("call names (parameters)", style="green"),
        box=None,
        padding=(0, 2, 0, 0),
    )
    for tool in executor.catalog.tools():
        spec = tool.spec
        calls = []
        for name, action in spec.actions.items():
            props = action.parameters.get("properties") or {}
            required = set(action.parameters.get("required") or ())
            args = ", ".join(p if p in required else f"{p}?" for p in props)
            call = ActionRef(spec.name, name, spec.is_multi_action).call_name
            calls.append(f"{call}({args})")
        table.add_row(spec.name, _DEFINED_BY.get(spec.name, ""), escape("  ".join(calls)))
    console.print(table)
    if show_prompt:
        add = executor.catalog.get("add")
        prompt = Panel(
            escape(render_tools([add])),
            title="what a model reads of [cyan]add[/] (`toolrig show add`)",
            title_align="left",
            border_style="dim",
        )
        console.print(prompt)


def _show_calls(console: Console, executor: ToolExecutor) -> list[ToolResult]:
    from rich.markup import escape
    from rich.table import Column, Table

    console.print()
    console.rule("[bold]2. Good and bad calls: every answer is a ToolResult[/]", align="left")
    table = Table(
        Column("call", no_wrap=True, max_width=38, overflow="ellipsis"),
        Column("", no_wrap=True),
        Column("output, or what the model reads", overflow="fold", ratio=1),
        box=None,
        padding=(0, 2, 0, 0),
        expand=True,
    )
    results = []
    for name, arguments in CALLS:
        result = executor.execute_sync(name, arguments)
        results.append(result)
        call = f"[cyan]{escape(name)}[/]({escape(_arguments(arguments))})"
        if result.success:
            table.add_row(call, "[green]ok[/]", escape(result.to_text()))
        else:
            lines = result.to_text().split("\nHint:")[0].splitlines()
            shown = "\n".join(lines[:2]) + (" …" if len(lines) > 2 else "")
            table.add_row(call, "[red]error[/]", f"[red]{escape(shown)}[/]")
    console.print(table)
    failures = sum(not r.success for r in results)
    console.print(
        f"[green]{len(results) - failures} succeeded[/], [red]{failures} failed[/] as "
        "expected; nothing raised."
    )
    return results


def _arguments(arguments: dict[str, Any]) -> str:
    """``a=2, b="40"``: a call's arguments as a person writes them."""
    import json

    return ", ".join(f"{key}={json.dumps(value)}" for key, value in arguments.items())


def _show_concurrency(console: Console, executor: ToolExecutor) -> None:
    import time

    console.print()
    console.rule("[bold]3. A hundred concurrent calls[/]", align="left")
    started = time.perf_counter()
    batch = executor.execute_many_sync([("search", {"query": "web rag", "mode": "deep"})] * 100)
    took = (time.perf_counter() - started) * 1000
    slowest = max(r.metadata.duration_ms for r in batch if r.metadata)
    ok = all(r.success for r in batch)
    console.print(
        f"100 searches at once: {'[green]all succeeded[/]' if ok else '[red]some failed[/]'} "
        f"in {took:.1f} ms; the slowest call took {slowest:.2f} ms."
    )
