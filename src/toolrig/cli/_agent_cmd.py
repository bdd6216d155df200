"""``toolrig agent PROMPT``: run an agent on a catalogue and stream what it does.

The model comes from ``--model`` / ``--provider`` / ``--base-url`` (or the environment and
config file, as `LLMConfig` reads them), or from ``--script FILE``: a
JSON list of turns played by `ScriptedModel`, for runs with no LLM at
all. Text is printed as it arrives, each tool call as it starts and finishes. ``--json`` prints
one JSON object per event instead (JSON Lines).

Calls held for approval (``--approve-tools``, ``--approve-destructive``) stop the run; it is
resumed by its session id (``--session``, with ``--log`` so the session is stored) and a
decision per call: ``--allow CALL_ID``, ``--deny CALL_ID[=REASON]`` or ``--edit CALL_ID=JSON``
(run it with these arguments instead, validated like the model's). The session keeps its
approval options, so a resume need not repeat them (it may add more). Exit code 0 when the run
finished its task, 1 when it failed, stopped with calls pending or found its calls already
decided by another run, 2 for usage errors.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from toolrig.cli._agent_script import load_script
from toolrig.cli._catalog import add_catalog_options
from toolrig.cli._numbers import at_least
from toolrig.cli._output import EXIT_FAILED, EXIT_OK, CliError, add_json_option
from toolrig.core.schema._json_data import loads_json

if TYPE_CHECKING:
    from toolrig.agent._approval import Decision
    from toolrig.agent._events import AgentEvent
    from toolrig.agent._result import AgentResult

__all__ = ["add_agent_parser", "decisions", "load_script", "run_agent"]


def add_agent_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Declare ``agent`` and its options."""
    agent = commands.add_parser(
        "agent",
        help="run an agent on a catalogue, streamed",
        description="Run an LLM agent over the catalogue's tools and stream its text and tool "
        "calls. The model comes from --model/--provider/--base-url or the environment "
        "(TOOLRIG_LLM_* variables, the config file), or from --script FILE (a JSON list of "
        "scripted turns, no LLM needed). Exit code 0 when the task was done, 1 when the run "
        "failed or stopped with calls awaiting approval, 2 for usage or input errors.",
    )
    agent.add_argument("prompt", nargs="?", metavar="PROMPT", help="the task")
    model = agent.add_argument_group("model")
    model.add_argument("--model", metavar="NAME", help="the model name")
    model.add_argument(
        "--provider", choices=("openai", "openai-responses", "anthropic"), help="the API"
    )
    model.add_argument("--base-url", metavar="URL", help="an OpenAI-compatible endpoint")
    model.add_argument(
        "--script",
        metavar="FILE",
        help='play scripted turns instead of an LLM: a JSON list such as [{"calls": '
        '[["add", {"a": 1, "b": 2}]]}, {"text": "3"}]',
    )
    agent.add_argument("--name", default="assistant", help="the agent's name")
    agent.add_argument(
        "--role", default="You complete the user's task with the tools.", help="its role"
    )
    agent.add_argument("--max-steps", type=at_least(1), default=10, metavar="N", help="model turns")
    agent.add_argument(
        "--max-tool-calls",
        type=at_least(1),
        metavar="N",
        help="stop before the run passes N tool calls",
    )
    agent.add_argument(
        "--max-tokens", type=at_least(1), metavar="N", help="stop once the run has spent N tokens"
    )
    agent.add_argument(
        "--log", metavar="URL", help="execution log (SQLite path or postgresql:// URL)"
    )
    agent.add_argument(
        "--session", metavar="ID", help="continue (and store) this conversation; needs --log"
    )
    approval = agent.add_argument_group("approval")
    approval.add_argument(
        "--approve-tools",
        action="append",
        default=[],
        metavar="TOOL",
        help="calls of this tool wait for approval; repeatable (kept with the session)",
    )
    approval.add_argument(
        "--approve-destructive",
        action="store_true",
        help="calls of tools annotated destructive wait for approval (kept with the session)",
    )
    approval.add_argument(
        "--allow", action="append", default=[], metavar="CALL_ID", help="run a held call"
    )
    approval.add_argument(
        "--deny",
        action="append",
        default=[],
        metavar="CALL_ID[=REASON]",
        help="refuse a held call (the model reads the reason)",
    )
    approval.add_argument(
        "--edit",
        action="append",
        default=[],
        metavar="CALL_ID=JSON",
        help="run a held call with these arguments (a JSON object) instead of the model's",
    )
    approval.add_argument(
        "--allow-for-session",
        action="append",
        default=[],
        metavar="CALL_ID",
        help="run a held call, and every later call of its tool in this session",
    )
    add_catalog_options(agent, demo_default=True)
    add_json_option(agent)
    agent.set_defaults(handler=run_agent)


def decisions(
    allow: Sequence[str],
    deny: Sequence[str],
    edit: Sequence[str] = (),
    for_session: Sequence[str] = (),
) -> dict[str, Decision] | None:
    """The decisions ``--allow`` / ``--deny`` / ``--edit`` / ``--allow-for-session`` give, by
    call id (``None`` when none); `CliError` for an edit that is not ``CALL_ID=`` and a JSON
    object, or a call decided twice."""
    from toolrig.agent._approval import AllowForSession, Deny, Edit

    if not allow and not deny and not edit and not for_session:
        return None
    chosen: dict[str, Decision] = {}

    def add(call_id: str, decision: Decision) -> None:
        if call_id in chosen:
            raise CliError(f"call {call_id} is decided twice: give it one decision")
        chosen[call_id] = decision

    for call_id in allow:
        add(call_id, True)
    for call_id in for_session:
        add(call_id, AllowForSession())
    for item in deny:
        call_id, sep, reason = item.partition("=")
        add(call_id, Deny(reason=reason) if sep and reason else Deny())
    for item in edit:
        call_id, sep, text = item.partition("=")
        try:
            arguments = loads_json(text) if sep else None
        except ValueError as exc:  # also NaN, and nesting past the decoder
            raise CliError(f"--edit {call_id}: the arguments are not JSON ({exc})") from None
        if not call_id or not isinstance(arguments, dict):
            raise CliError(f"--edit takes CALL_ID=JSON with a JSON object, not {item!r}")
        add(call_id, Edit(arguments=arguments))
    return chosen


def run_agent(args: argparse.Namespace) -> int:
    """Run (or resume) the agent; 0 when the task was done, 1 otherwise."""
    from toolrig.agent._approval import ApprovalPolicy
    from toolrig.agent._claim import AlreadyDecided
    from toolrig.agent._config import LLMConfigError
    from toolrig.agent._loop import Agent
    from toolrig.agent._result import AgentRunError
    from toolrig.cli._catalog import open_catalog
    from toolrig.core.context._background import run_sync
    from toolrig.runtime._executor import ToolExecutor
    from toolrig.storage._open import open_log

    if args.session and not args.log:
        raise CliError("--session keeps the conversation in an execution log: add --log")
    if args.prompt is None and not args.session:
        raise CliError("give a PROMPT, or --session to continue a stored conversation")
    limits = _limits(args)
    chosen = decisions(args.allow, args.deny, args.edit, args.allow_for_session)
    if chosen and not args.session:
        raise CliError(
            "--allow/--deny/--edit/--allow-for-session decide the calls a stored run holds: "
            "add --session"
        )
    model: Any
    if args.script:
        if args.model or args.base_url or args.provider:
            raise CliError("--script plays its own turns: drop --model/--provider/--base-url")
        model = load_script(args.script)
    else:
        from toolrig.agent._factory import make_client

        try:
            model = make_client(model=args.model, provider=args.provider, base_url=args.base_url)
        except LLMConfigError as exc:
            raise CliError(f"no model to run: {exc} (or play turns with --script FILE)") from None
    policy = None
    if args.approve_tools or args.approve_destructive:
        policy = ApprovalPolicy(
            tools=tuple(args.approve_tools), destructive=args.approve_destructive
        )
    log = open_log(args.log) if args.log else None
    try:
        with open_catalog(args, "agent") as registry, ToolExecutor(registry) as executor:
            agent: Agent[Any, Any] = Agent(
                args.name,
                args.role,
                model,
                executor,
                approval=policy,
                max_steps=args.max_steps,
                limits=limits,
                log=log,
            )
            try:
                result = run_sync(_stream(agent, args, chosen))
            except AgentRunError as exc:
                result = exc.result
            except AlreadyDecided as exc:  # another run claimed these calls: nothing ran here
                _print_already_decided(exc, args.json)
                return EXIT_FAILED
            except ValueError as exc:  # a session that cannot continue, an unknown call id
                raise CliError(str(exc)) from None
    finally:
        if log is not None:
            log.close()
    if not args.json:
        _print_end(result, args)
    return EXIT_OK if result.completed else EXIT_FAILED


async def _stream(
    agent: Any, args: argparse.Namespace, chosen: dict[str, Decision] | None
) -> AgentResult[Any]:
    """Run the agent, printing each event; the final result."""
    from toolrig.agent._events import FinalOutput

    result: AgentResult[Any] | None = None
    show = _JsonLines() if args.json else _Screen()
    async for event in agent.stream(
        args.prompt, session_id=args.session, approvals=chosen, raise_on_error=False
    ):
        show(event)
        if isinstance(event, FinalOutput):
            result = event.result
    assert result is not None
    return result


class _JsonLines:
    """Each event as one JSON object on stdout."""

    def __call__(self, event: AgentEvent) -> None:
        from toolrig.agent._client import TextDelta
        from toolrig.agent._events import (
            ApprovalRequired,
            FinalOutput,
            ToolCallFinished,
            ToolCallStarted,
        )

        data: dict[str, Any]
        if isinstance(event, TextDelta):
            data = {"event": "text", "text": event.text}
        elif isinstance(event, ToolCallStarted):
            data = {
                "event": "tool_call_started",
                "id": event.tool_call_id,
                "name": event.name,
                "arguments": event.arguments,
            }
        elif isinstance(event, ToolCallFinished):
            data = {
                "event": "tool_call_finished",
                "id": event.tool_call_id,
                "name": event.name,
                "result": event.result.render("dict"),
            }
        elif isinstance(event, ApprovalRequired):
            data = {"event": "approval_required", "pending": [_pending(p) for p in event.pending]}
        elif isinstance(event, FinalOutput):
            result = event.result
            data = {
                "event": "final",
                "session_id": result.session_id,
                "run_id": result.run_id,
                "stop_reason": result.stop_reason,
                "output": _jsonable(result.output),
                "error": result.error,
                "usage": {
                    "input_tokens": result.usage.input_tokens,
                    "output_tokens": result.usage.output_tokens,
                },
            }
        else:
            return
        print(json.dumps(data, ensure_ascii=False, default=str), flush=True)


class _Screen:
    """Events for people: text as it streams, a line per tool call."""

    def __init__(self) -> None:
        from toolrig.cli._output import out_console

        self.console = out_console()
        self._in_text = False

    def __call__(self, event: AgentEvent) -> None:
        from rich.markup import escape

        from toolrig.agent._client import TextDelta
        from toolrig.agent._events import ApprovalRequired, ToolCallFinished, ToolCallStarted

        if isinstance(event, TextDelta):
            self.console.print(escape(event.text), end="", style="cyan")
            self._in_text = True
            return
        if self._in_text:
            self.console.print()
            self._in_text = False
        if isinstance(event, ToolCallStarted):
            arguments = json.dumps(event.arguments, ensure_ascii=False, default=str)
            self.console.print(f"[bold]→ {escape(event.name)}[/] {escape(_cut(arguments))}")
        elif isinstance(event, ToolCallFinished):
            shown = escape(_cut(" ".join(event.result.to_text().split())))
            if event.result.success:
                self.console.print(f"  [green]✓[/] {shown}")
            else:
                code = event.result.error.code if event.result.error else "error"
                self.console.print(f"  [red]✗ {escape(code)}[/] {shown}")
        elif isinstance(event, ApprovalRequired):
            for pending in event.pending:
                self.console.print(
                    f"[yellow]⏸ {escape(pending.tool_call_id)}[/] "
                    f"{escape(pending.name)} awaits approval"
                )


def _print_end(result: AgentResult[Any], args: argparse.Namespace) -> None:
    """The run's outcome, its output and how to resume it."""
    from rich.markup import escape

    from toolrig.cli._agent_resume import resume_command
    from toolrig.cli._output import err_console, out_console

    console = out_console()
    if result.completed:
        output = result.output
        if output is not None and not isinstance(output, str):
            output = json.dumps(_jsonable(output), ensure_ascii=False, indent=2)
        console.print(f"[bold green]done[/] ({result.stop_reason}): {escape(str(output or ''))}")
    elif result.pending:
        command = resume_command(args, result.session_id, [p.tool_call_id for p in result.pending])
        stored = "" if args.log else " (run it with --log FILE to store the session first)"
        err_console().print(
            f"[yellow]{len(result.pending)} call(s) await approval.[/] Resume with "
            f"(--deny ID[=REASON] refuses one, --edit ID=JSON runs it with other arguments)"
            f"{escape(stored)}: {escape(command)}",
            soft_wrap=True,
        )
    else:
        err_console().print(
            f"[bold red]stopped[/] ({result.stop_reason}): {escape(result.error or '')}"
        )
        if result.stop_reason == "usage_limit" and args.log:
            command = resume_command(args, result.session_id, [])
            err_console().print(
                f"Resume with (raising the limit): {escape(command)}", soft_wrap=True
            )
    usage = result.usage
    console.print(
        f"[dim]{len(result.steps)} turn(s), {usage.input_tokens} input and "
        f"{usage.output_tokens} output tokens, session {escape(result.session_id)}[/]"
    )


def _print_already_decided(exc: Exception, as_json: bool) -> None:
    """Say that another run decided the calls (one JSON event with ``--json``)."""
    from rich.markup import escape

    from toolrig.cli._output import err_console

    if as_json:
        print(json.dumps({"event": "already_decided", "message": str(exc)}), flush=True)
    err_console().print(f"[yellow]already decided:[/] {escape(str(exc))}")


def _limits(args: argparse.Namespace) -> Any:
    """The ``RunLimits`` that ``--max-tool-calls`` / ``--max-tokens`` give (``None``: none)."""
    from toolrig.agent._limits import RunLimits

    if args.max_tool_calls is None and args.max_tokens is None:
        return None
    return RunLimits(tool_calls=args.max_tool_calls, total_tokens=args.max_tokens)


def _cut(text: str, limit: int = 240) -> str:
    """``text``, ending in an ellipsis when longer than ``limit``."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _pending(pending: Any) -> dict[str, Any]:
    return {
        "id": pending.tool_call_id,
        "name": pending.name,
        "arguments": _jsonable(getattr(pending, "arguments", None)),
    }


def _jsonable(value: Any) -> Any:
    """``value`` as JSON data (pydantic models and dataclasses included)."""
    from pydantic import TypeAdapter

    try:
        return TypeAdapter(Any).dump_python(value, mode="json")
    except Exception:
        return str(value)
