"""Seeded random calls through every entry point, every result rendered every way, every
answer checked; the promise is "validated, and nothing escapes".

Entry points: ``ToolExecutor.execute_sync`` and ``execute``, ``Tool.run``,
``BaseTool.execute``, ``run_tool_calls`` for each provider (OpenAI Chat, OpenAI Responses,
Anthropic, Gemini), the MCP server (an in-memory client session), and a ``Registry`` of YAML
definitions. Arguments: valid ones built from each tool's schema, then mutated (wrong types,
huge numbers, NaN, deep nesting, huge and unencodable text, extra keys, JSON text, missing keys).

Counted (each must be 0):

* escaped exceptions: an entry point raised instead of answering;
* wrong error codes: a call valid for the exported schema refused, an invalid one accepted in
  strict mode, or a code the tool never gives (``execution_error`` of a tool that never raises);
* rendering failures: ``to_text`` / ``to_json`` / ``to_dict`` / ``to_pretty`` / ``str`` and the
  providers' messages must not raise, must be valid JSON where JSON is promised, and UTF-8;
* accepted calls that break the exported schema: the arguments a tool received, checked against
  the schema it exports by an independent validator (``jsonschema``, draft 2020-12);
* log records lost: finished calls minus records in the execution log that recorded them.

    python bench/fuzz.py                  # 100,000 calls, seed 0
    python bench/fuzz.py --calls 5000 --seed 7
    python bench/fuzz.py --quick          # 2,000 calls (CI)
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import random
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import fuzz_tools as ft
import jsonschema
from fuzz_values import INVALID, VALID, Values, as_data, conforms, verdict
from mcp import Client
from mcp.shared.exceptions import MCPError

from toolrig import ToolExecutor, ToolResult
from toolrig.core import Action
from toolrig.mcp import ToolServer
from toolrig.providers import run_tool_calls
from toolrig.runtime import EventKind, ToolEvent, default_executor
from toolrig.storage import SQLiteExecutionLog

PROVIDERS = ("openai", "openai-responses", "anthropic", "gemini")
ENTRIES = (
    "executor.execute_sync",
    "executor.execute",
    "Tool.run",
    "BaseTool.execute",
    *(f"run_tool_calls/{p}" for p in PROVIDERS),
    "mcp server",
    "registry",
)
RUN_ID = "fuzz"


def closed(schema: dict[str, Any]) -> jsonschema.protocols.Validator:
    """A validator of the exported schema, its top level closed (unknown parameters are
    refused, as documented)."""
    top = dict(schema)
    top.setdefault("additionalProperties", False)
    cls = jsonschema.validators.validator_for(top, default=jsonschema.Draft202012Validator)
    cls.check_schema(top)
    return cls(top, format_checker=jsonschema.FormatChecker())


class Tally:
    """What went wrong, by kind, with a few examples of each."""

    def __init__(self) -> None:
        self.calls: collections.Counter[str] = collections.Counter()
        self.counts: dict[str, collections.Counter[str]] = collections.defaultdict(
            collections.Counter
        )
        self.examples: dict[str, list[str]] = collections.defaultdict(list)

    def add(self, kind: str, detail: str, example: str = "") -> None:
        self.counts[kind][detail] += 1
        if len(self.examples[kind]) < 8 and example:
            self.examples[kind].append(f"{detail}: {example[:300]}")

    def total(self, kind: str) -> int:
        return sum(self.counts[kind].values())


def _short(value: Any) -> str:
    from toolrig.core.result._jsonable import safe_repr, to_jsonable

    text = safe_repr(to_jsonable(value))
    return text if len(text) < 200 else text[:200] + "..."


def render_problems(result: ToolResult) -> list[str]:
    """The renderings of ``result`` that raise or break their promise."""
    problems = []
    checks: list[tuple[str, Callable[[], Any]]] = [
        ("to_text", result.to_text),
        ("to_pretty", result.to_pretty),
        ("str", lambda: str(result)),
        ("to_json", lambda: json.loads(result.to_json())),
        ("to_json(full)", lambda: json.loads(result.to_json(drop_empty=False))),
        ("to_dict", lambda: json.dumps(result.to_dict(), allow_nan=False)),
    ]
    for name, render in checks:
        try:
            out = render()
            if isinstance(out, str):
                out.encode("utf-8")
        except Exception as exc:
            problems.append(f"{name}: {type(exc).__name__}")
    return problems


def code_in_messages(messages: Any) -> str | None:
    """The error code a provider's messages carry (``None``: a success)."""
    stack = [messages]
    while stack:
        item = stack.pop()
        if isinstance(item, str) and item.startswith("Error ["):
            return item[7 : item.index("]")]
        if isinstance(item, dict):
            error = item.get("error")
            if isinstance(error, dict) and isinstance(error.get("code"), str):
                return str(error["code"])
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def provider_response(provider: str, name: str, arguments: Any, call_id: str) -> Any:
    """A response of ``provider`` holding one call, its arguments as that provider sends them."""
    if provider in ("openai", "openai-responses"):
        try:
            text = arguments if isinstance(arguments, str) else json.dumps(arguments)
        except (TypeError, ValueError, RecursionError):
            text = arguments  # not JSON-able: handed over as the object itself
        if provider == "openai":
            function = {"name": name, "arguments": text}
            return {"tool_calls": [{"id": call_id, "type": "function", "function": function}]}
        return [{"type": "function_call", "name": name, "arguments": text, "call_id": call_id}]
    if provider == "anthropic":
        block = {"type": "tool_use", "id": call_id, "name": name, "input": arguments}
        return {"content": [block]}
    return {
        "candidates": [
            {
                "content": {
                    "parts": [{"functionCall": {"name": name, "args": arguments, "id": call_id}}]
                }
            }
        ]
    }


class Fuzz:
    def __init__(self, seed: int, folder: Path) -> None:
        self.rng = random.Random(seed)
        self.values = Values(self.rng)
        self.tally = Tally()
        self.executor = ToolExecutor(ft.TOOLS)
        self.notes = ft.Notes()
        self.registry = ft.yaml_registry(folder / "yaml")
        self.registry_executor = ToolExecutor(self.registry)
        self.server = ToolServer(self.executor)
        self.log = SQLiteExecutionLog(folder / "log.sqlite3")
        self.finished = 0
        self.validators: dict[tuple[str, str], jsonschema.protocols.Validator] = {}
        self.actions: dict[str, tuple[str, Action]] = {}
        for tool in [*ft.TOOLS, self.notes, self.registry.get("yaml_note")]:
            for action_name in tool.get_action_names():
                action = tool.get_action(action_name)
                assert action is not None
                self.validators[(tool.spec.name, action_name)] = closed(action.spec.parameters)
        for executor in (self.executor, default_executor(), self.registry_executor):
            executor.add_listener(self.on_event)

    # -- what every call is checked against ------------------------------------------------
    def on_event(self, event: ToolEvent) -> None:
        if event.kind is EventKind.STARTED:
            validator = self.validators.get((event.tool, event.action))
            if validator is not None:
                try:
                    data = as_data(dict(event.arguments or {}))
                except RecursionError:
                    return  # too deep to check here (and to have been accepted as valid)
                ok = conforms(data, validator)
                if ok is False:
                    self.tally.add(
                        "accepted calls that break the exported schema",
                        f"{event.tool}.{event.action}",
                        _short(dict(event.arguments or {})),
                    )
        elif event.kind in (EventKind.SUCCEEDED, EventKind.FAILED) and event.result is not None:
            self.finished += 1

    def check_code(
        self, entry: str, tool: str, action: str, args: Any, code: str | None, strict: bool | None
    ) -> None:
        """Count ``code`` as wrong when the verdict on ``args`` rules it out."""
        if tool == "nope":
            provider = entry.startswith("run_tool_calls")  # broken JSON text is seen first
            if code != "not_found" and not (provider and code == "invalid_arguments"):
                self.tally.add("wrong error codes", f"{entry}: unknown tool answered {code}")
            return
        decoded = args
        if isinstance(args, str):
            try:
                decoded = json.loads(args)
            except (ValueError, RecursionError):
                decoded = None
        mine = ft.own_codes(tool, decoded)
        found = verdict(args, self.validators[(tool, action)])
        if entry.startswith(("run_tool_calls", "mcp")):
            allowed = {"invalid_arguments"} | ft.own_codes(tool, {"mode": "tool_error"})
            allowed |= ft.own_codes(tool, {"mode": "crash"}) | {None}
        elif found == VALID:
            allowed = mine
        elif found == INVALID and strict:
            allowed = {"invalid_arguments"}
        else:  # lax mode may coerce; what was accepted is checked against the schema
            allowed = {"invalid_arguments"} | mine
        if code not in allowed:
            mode = "strict" if strict else "lax"
            shape = "JSON text" if isinstance(args, str) else type(args).__name__
            detail = f"{tool}.{action} ({mode}, arguments as {shape}): {found} call answered {code}"
            self.tally.add("wrong error codes", detail, f"{entry}: {_short(args)}")

    def check_result(self, entry: str, result: ToolResult) -> None:
        for problem in render_problems(result):
            self.tally.add("rendering failures", f"{entry}: {problem}", _short(result.output))

    # -- one call ------------------------------------------------------------------------------
    def pick(self, entry: str) -> tuple[str, str, Any]:
        """(tool, action, arguments) for a call through ``entry``."""
        rng = self.rng
        if entry == "BaseTool.execute":
            tool, action = "notes", rng.choice(["write", "count"])
        elif entry == "registry":
            tool = action = "yaml_note"
        else:
            spec = rng.choice(ft.TOOLS).spec
            tool = action = spec.name
        schema = self.validators[(tool, action)].schema
        defs = schema.get("$defs", {})
        args: Any = self.values.valid(schema, defs)
        if rng.random() < 0.7:
            args = self.values.mutate(args, schema, defs)
        if rng.random() < 0.02:
            tool = "nope"
        return tool, action, args

    async def call(self, entry: str, client: Client, number: int) -> None:
        tool, action, args = self.pick(entry)
        strict = self.rng.choice([True, False, None])
        call_id = f"c{number}"
        result: ToolResult | None = None
        code: str | None
        try:
            if entry == "executor.execute_sync":
                result = self.executor.execute_sync(tool, args, strict=strict, tool_call_id=call_id)
            elif entry == "executor.execute":
                result = await self.executor.execute(
                    tool, args, strict=strict, tool_call_id=call_id
                )
            elif entry == "Tool.run":
                target = next((t for t in ft.TOOLS if t.spec.name == tool), None)
                if target is None:
                    result = self.executor.execute_sync(tool, args)
                else:
                    result = target.run(args, strict=bool(strict))
            elif entry == "BaseTool.execute":
                result = self.notes.execute(
                    action if tool != "nope" else "nope", args, strict=strict
                )
            elif entry == "registry":
                name = "yaml_note" if tool != "nope" else "nope"
                result = self.registry_executor.execute_sync(name, args, strict=strict)
                if isinstance(args, dict) and tool != "nope":
                    agreed, _ = self.registry.validate_params(name, args)
                    if agreed != (result.code != "invalid_arguments") and not strict:
                        self.tally.add(
                            "wrong error codes", "registry.validate_params disagrees", _short(args)
                        )
            elif entry.startswith("run_tool_calls/"):
                response = provider_response(entry.split("/", 1)[1], tool, args, call_id)
                messages = await run_tool_calls(
                    response,
                    self.executor,
                    provider=entry.split("/", 1)[1],  # type: ignore[arg-type]
                    strict=False,
                )
                try:
                    json.dumps(messages, allow_nan=False).encode("utf-8")
                except Exception as exc:
                    self.tally.add("rendering failures", f"{entry}: {type(exc).__name__}", tool)
                self.check_code(entry, tool, action, args, code_in_messages(messages), None)
                return
            else:
                await self.call_mcp(client, tool, action, args)
                return
        except Exception as exc:
            self.tally.add(
                "escaped exceptions",
                f"{entry}: {type(exc).__name__}",
                f"{tool} {_short(args)}: {exc!s:.200}",
            )
            return
        code = result.code
        self.check_code(entry, tool, action, args, code, strict)
        self.check_result(entry, result)

    async def call_mcp(self, client: Client, tool: str, action: str, args: Any) -> None:
        if not isinstance(args, dict):
            args = {"value": args} if tool == "echo" else {}
        try:
            json.dumps(args, allow_nan=False).encode("utf-8")
        except (TypeError, ValueError, RecursionError):
            self.tally.add("not sendable by an MCP client (skipped)", "arguments are not JSON")
            return
        try:
            answer = await client.call_tool(tool, args)
        except MCPError as exc:
            if tool == "nope" and exc.error.code == -32602:
                return  # the protocol's answer to an unknown tool
            self.tally.add(
                "escaped exceptions",
                f"mcp server: MCPError {exc.error.code}",
                f"{tool} {_short(args)}: {exc.error.message:.200}",
            )
            return
        except Exception as exc:  # raised by the client itself: it cannot send these arguments
            self.tally.add(
                "not sendable by an MCP client (skipped)",
                type(exc).__name__,
                f"{tool} {_short(args)}: {exc!s:.200}",
            )
            return
        try:
            answer.model_dump_json().encode("utf-8")
        except Exception as exc:
            self.tally.add("rendering failures", f"mcp server: {type(exc).__name__}", tool)
        text = next((c.text for c in answer.content if getattr(c, "type", "") == "text"), "")
        code = code_in_messages(text) if answer.is_error else None
        self.check_code("mcp server", tool, action, args, code, None)

    async def run(self, calls: int, progress: bool) -> None:
        t0 = time.perf_counter()
        # the handshake-era protocol: the server does not speak 2026-07-28 yet
        async with Client(self.server.server, mode="legacy") as client:
            for number in range(calls):
                entry = ENTRIES[number % len(ENTRIES)]
                self.tally.calls[entry] += 1
                await self.call(entry, client, number)
                if progress and number and number % 10_000 == 0:
                    print(f"  {number:,} calls, {time.perf_counter() - t0:.0f} s", file=sys.stderr)

    def report(self, seconds: float) -> int:
        records = len(self.log.query(run_id=RUN_ID))
        lost = self.finished - records
        calls = sum(self.tally.calls.values())
        print(f"# fuzz: {calls:,} calls in {seconds:.0f} s\n")
        for entry in ENTRIES:
            print(f"  {entry:<32} {self.tally.calls[entry]:>8,}")
        print()
        kinds = (
            "escaped exceptions",
            "wrong error codes",
            "rendering failures",
            "accepted calls that break the exported schema",
        )
        for kind in kinds:
            print(f"{kind}: {self.tally.total(kind)}")
        print(
            f"log records lost: {lost} (of {self.finished:,} finished calls; {self.log.failed_writes()} writes failed)"
        )
        skipped = self.tally.total("not sendable by an MCP client (skipped)")
        if skipped:
            print(f"(MCP calls skipped: arguments a client cannot send as JSON: {skipped})")
        for kind in kinds:
            if self.tally.counts[kind]:
                print(f"\n## {kind}")
                for detail, count in self.tally.counts[kind].most_common(25):
                    print(f"  {count:>6}  {detail}")
                for example in self.tally.examples[kind]:
                    print(f"      e.g. {example}")
        return sum(self.tally.total(k) for k in kinds) + abs(lost)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quiet", action="store_true", help="no progress lines")
    ap.add_argument("--quick", action="store_true", help="smoke run: 2,000 calls, no progress")
    ns = ap.parse_args()
    if ns.quick:
        ns.calls, ns.quiet = 2_000, True
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))
    with tempfile.TemporaryDirectory() as folder, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fuzz = Fuzz(ns.seed, Path(folder))
        t0 = time.perf_counter()
        with fuzz.log.run(RUN_ID):  # every call of every entry is recorded in this run
            asyncio.run(fuzz.run(ns.calls, not ns.quiet))
        bad = fuzz.report(time.perf_counter() - t0)
        fuzz.log.close()
    raise SystemExit(1 if bad else 0)


if __name__ == "__main__":
    main()
