"""``toolrig call TOOL [key=value ...] [--args JSON]``: run one call through the executor and
print its structured result, errors worded exactly as a model would read them.

Arguments: ``key=value`` gives the text ``value`` (validation converts it as it would a
model's ``"5"``: safely, and only where the schema asks for a number, a boolean, a list...);
``key:=JSON`` gives a JSON value (``n:=5``, ``tags:='["a","b"]'``); ``--args`` gives a whole
JSON object, and the ``key`` forms override its keys. Exit code 0 when the call succeeded,
1 when it failed (the result says why), 2 when the arguments cannot be read.
"""

from __future__ import annotations

import argparse
import contextlib
import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from toolrig.cli._catalog import add_catalog_options
from toolrig.cli._numbers import seconds
from toolrig.cli._output import EXIT_FAILED, EXIT_OK, CliError, add_json_option
from toolrig.cli._remote_opts import add_broker_options, attach_remote
from toolrig.core.model._names import ActionRef
from toolrig.core.schema._json_data import loads_json

if TYPE_CHECKING:
    from toolrig.core.result._result import ToolResult

__all__ = ["add_call_parser", "parse_arguments", "run_call"]


def add_call_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Declare ``call`` and its options."""
    call = commands.add_parser(
        "call",
        help="call a tool and print its structured result",
        description="Call a tool through the executor (validation, time limit, retries) and "
        "print its result. Arguments: key=value (text, converted as a model's would be), "
        "key:=JSON (a JSON value), or --args with a JSON object. Exit code 0 when the call "
        "succeeded, 1 when it failed, 2 when the arguments cannot be read.",
    )
    call.add_argument("tool", metavar="TOOL", help="the call name (tool, or tool.action)")
    call.add_argument(
        "pairs", nargs="*", metavar="key=value | key:=JSON", help="the call's arguments"
    )
    call.add_argument("--args", metavar="JSON", help="the arguments as one JSON object")
    call.add_argument(
        "--strict", action="store_true", help="refuse arguments that would need converting"
    )
    call.add_argument("--timeout", type=seconds, metavar="SECONDS", help="override the time limit")
    call.add_argument(
        "--log",
        metavar="URL",
        help="record the call (as a run of its own) in this execution log: SQLite path or "
        "postgresql:// URL",
    )
    add_broker_options(call)
    add_catalog_options(call, demo_default=True)
    add_json_option(call)
    call.set_defaults(handler=run_call)


def parse_arguments(pairs: Sequence[str], given: str | None) -> dict[str, Any]:
    """The call's arguments from ``--args`` and the ``key=value`` / ``key:=JSON`` pairs;
    `CliError` (exit 2) for text that cannot be read."""
    arguments: dict[str, Any] = {}
    if given is not None:
        try:
            loaded = loads_json(given)
        except ValueError as exc:  # also NaN, and nesting past the decoder
            raise CliError(f"--args is not JSON: {exc}") from None
        if not isinstance(loaded, dict):
            raise CliError(f"--args must be a JSON object, got {type(loaded).__name__}")
        arguments.update(loaded)
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key or key == ":":
            raise CliError(f"argument {pair!r}: write key=value or key:=JSON")
        if key.endswith(":"):
            key = key[:-1]
            try:
                arguments[key] = loads_json(value)
            except ValueError as exc:
                raise CliError(f"argument {key!r}: {_quoted(value)} is not JSON ({exc})") from None
        else:
            arguments[key] = value
    return arguments


def _quoted(value: str, limit: int = 60) -> str:
    """``value`` as an error quotes it: whole when short, else its start and its length."""
    if len(value) <= limit:
        return repr(value)
    return f"{value[:limit]!r}... ({len(value):,} characters)"


def run_call(args: argparse.Namespace) -> int:
    """Run the call; 0 when it succeeded, 1 when it failed."""
    from toolrig.cli._catalog import open_catalog
    from toolrig.runtime._executor import UNSET, ToolExecutor

    arguments = parse_arguments(args.pairs, args.args)
    with contextlib.ExitStack() as stack:
        registry = stack.enter_context(open_catalog(args, "call"))
        executor = stack.enter_context(ToolExecutor(registry))
        attach_remote(executor, args)
        if args.log:  # the call is recorded as a run of its own, ``cli-...``
            from toolrig.cli._log_cmd import open_log_for_writing

            log = stack.enter_context(open_log_for_writing(args.log))
            stack.enter_context(log.run(f"cli-{uuid.uuid4().hex[:12]}", kind="cli", name="call"))
        timeout = UNSET if args.timeout is None else args.timeout
        result = executor.execute_sync(
            args.tool, arguments, strict=args.strict or None, timeout=timeout
        )
    if args.json:
        print(result.render("json"))
    else:
        print_result(result)
    return EXIT_OK if result.success else EXIT_FAILED


def print_result(result: ToolResult) -> None:
    """A result for people: the output (JSON, highlighted) or the error a model would read,
    in a green or red panel, with the call's timing."""
    from rich.json import JSON
    from rich.markup import escape
    from rich.panel import Panel
    from rich.text import Text

    from toolrig.cli._output import out_console

    meta = result.metadata
    name = "?" if meta is None else ActionRef.of_record(meta.tool, meta.action).call_name
    footer = "" if meta is None else f"{meta.duration_ms:.2f} ms, attempts {meta.attempts}"
    if result.success:
        body: Any = (
            Text(result.output)
            if isinstance(result.output, str)
            else JSON.from_data(result.render("dict")["output"])  # non-ASCII kept
        )
        title, style = f"[bold green]ok[/] {escape(name)}", "green"
    else:
        body = Text(result.to_text())
        code = result.error.code if result.error else "error"
        title, style = f"[bold red]{escape(code)}[/] {escape(name)}", "red"
    panel = Panel(body, title=title, title_align="left", subtitle=footer, subtitle_align="right")
    panel.border_style = style
    out_console().print(panel)
