#!/usr/bin/env python3
# Copied from the peer benchmark shared with this project (../shared/bench/peers.py), with one
# adapter added: `_make_toolrig` and its ADAPTERS entry, so toolrig is measured side by side; the
# toolrig/TypeAdapter ratio and the first-call section (2b); and the salt of generated functions
# in their docstrings too, so no repeat parses a docstring an earlier repeat parsed.
"""Measure the overhead of peer Python libraries that invoke LLM-agent "tools".

Run (in a venv with the peers installed):  python peers.py [--quick] [--only a,b] [--json out.json]

For every available peer the same two tools are defined through the peer's own
public API:

    add(a: int, b: int, note: str = "") -> int
    search(query: str, max_results: int = 5 (1..100), tags: list[str] = [],
           mode: Literal["fast", "deep"] = "fast") -> dict

and measured with time.perf_counter_ns:

  1. per-call overhead (validate a JSON-ish args dict + run a trivial function),
     sync and async paths, against bare-Python / pydantic / JSON-Schema baselines;
  2. schema export of 1,000 generated tools (5 mixed-type params each), cold and warm, with
     toolrig's cold time as a multiple of pydantic's TypeAdapter(fn).json_schema() in the same
     run; 2b. (toolrig) the first call of a freshly defined tool, next to the second;
  3. 10,000 concurrent async calls of a tool that awaits asyncio.sleep(0.01);
  4. a bad-input call ({"a": "not a number"}): raise or structured error, and its text;
  5. import cost of each peer in a fresh subprocess: peak RSS and import time.

All in-process measurements run in ONE process on ONE event loop.  Every
measurement is repeated (default 5x) with the peers interleaved inside each
repeat ("side by side"), so machine noise hits all peers alike; medians are
reported, with +-half-range/median as a noise indicator.

Adding a peer = write one ``_make_<peer>`` function returning Variants (and,
optionally, a SchemaAdapter) and add one entry to ADAPTERS.
"""

import argparse
import asyncio
import gc
import importlib.metadata as md
import inspect
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import warnings
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Optional, get_type_hints

from pydantic import Field, TypeAdapter, create_model, validate_call

perf_ns = time.perf_counter_ns

# ---------------------------------------------------------------------------
# The tools under test (identical definitions for every peer)
# ---------------------------------------------------------------------------

MaxResults = Annotated[int, Field(ge=1, le=100)]


def add(a: int, b: int, note: str = "") -> int:
    """Add two integers.

    Args:
        a: First addend.
        b: Second addend.
        note: Free-form note, ignored.
    """
    return a + b


async def add_async(a: int, b: int, note: str = "") -> int:
    """Add two integers.

    Args:
        a: First addend.
        b: Second addend.
        note: Free-form note, ignored.
    """
    return a + b


def search(
    query: str,
    max_results: MaxResults = 5,
    tags: list[str] = [],  # noqa: B006 - the spec asks for this default
    mode: Literal["fast", "deep"] = "fast",
) -> dict:
    """Search the corpus.

    Args:
        query: Text to look for.
        max_results: How many hits to return (1..100).
        tags: Only hits with one of these tags.
        mode: Search strategy.
    """
    return {"query": query, "max_results": max_results, "tags": tags, "mode": mode}


async def search_async(
    query: str,
    max_results: MaxResults = 5,
    tags: list[str] = [],  # noqa: B006
    mode: Literal["fast", "deep"] = "fast",
) -> dict:
    """Search the corpus.

    Args:
        query: Text to look for.
        max_results: How many hits to return (1..100).
        tags: Only hits with one of these tags.
        mode: Search strategy.
    """
    return {"query": query, "max_results": max_results, "tags": tags, "mode": mode}


async def sleepy(a: int, b: int) -> int:
    """Wait 10 ms, then add.

    Args:
        a: First addend.
        b: Second addend.
    """
    await asyncio.sleep(0.01)
    return a + b


# Logical tool name -> (sync implementation, async implementation)
TOOLS: dict[str, tuple[Callable | None, Callable | None]] = {
    "add": (add, add_async),
    "search": (search, search_async),
    "sleepy": (None, sleepy),
}
ARGS: dict[str, dict[str, Any]] = {
    "add": {"a": 1, "b": 2},
    "search": {"query": "tool overhead", "max_results": 10, "tags": ["x", "y"], "mode": "deep"},
    "sleepy": {"a": 1, "b": 2},
    "add_syncdef": {"a": 1, "b": 2},
}
BAD_ARGS = {"a": "not a number", "b": 2}

# "add_syncdef" is the plain `def add` exposed through a peer's *async* path,
# i.e. what happens when a user hands a sync function to an async-first peer
# (most of them then hop to a worker thread).


# ---------------------------------------------------------------------------
# Adapter plumbing
# ---------------------------------------------------------------------------


@dataclass
class Env:
    """Shared state: the one event loop every async measurement runs on."""

    loop: asyncio.AbstractEventLoop
    closers: list[Callable[[], None]] = field(default_factory=list)

    def run(self, coro: Awaitable[Any]) -> Any:
        return self.loop.run_until_complete(coro)

    def hold(self, cm_factory: Callable[[], Any]) -> Any:
        """Open an async context manager in its own long-lived task and keep it open.

        anyio-based clients (MCP) must be entered and exited in the same task, so the
        context lives in a holder task; calls are made from other tasks.
        """
        box: dict[str, Any] = {}
        ready, stop = asyncio.Event(), asyncio.Event()

        async def holder() -> None:
            async with cm_factory() as value:
                box["value"] = value
                ready.set()
                await stop.wait()

        task = self.loop.create_task(holder())

        async def wait_ready() -> None:
            waiter = asyncio.ensure_future(ready.wait())
            await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
            if task.done():
                waiter.cancel()
                task.result()  # re-raise the failure

        self.run(wait_ready())

        def close() -> None:
            stop.set()
            self.run(task)

        self.closers.append(close)
        return box["value"]


@dataclass
class Variant:
    """One way of calling tools through one peer (a row in the per-call table).

    ``sync`` / ``async_`` map a logical tool name to a callable taking the payload
    produced by ``prepare`` (or return None when that tool isn't offered).
    """

    label: str
    prepare: Callable[[str, dict], Any] = lambda tool, args: args
    sync: Callable[[str], Callable[[Any], Any] | None] | None = None
    async_: Callable[[str], Callable[[Any], Awaitable[Any]] | None] | None = None
    is_error: Callable[[Any], bool] = lambda result: False
    error_text: Callable[[BaseException], str] | None = None  # extra text for raised errors
    bench: bool = True  # False: only used for the bad-input report
    note: str = ""


@dataclass
class SchemaAdapter:
    """Schema export: ``cold(fns)`` builds tools from functions and exports them,
    returning (state, schemas); ``warm(state)`` exports again from the built state."""

    label: str
    cold: Callable[[list[Callable]], tuple[Any, list[dict]]]
    warm: Callable[[Any], list[dict]]
    note: str = ""
    dispose: Callable[[Any], None] = lambda state: None


@dataclass
class Adapter:
    key: str
    dists: tuple[str, ...]  # PyPI distributions whose versions we report
    import_stmt: str  # what a user writes; measured in a subprocess
    make: Callable[[Env], tuple[list[Variant], list[SchemaAdapter]]] | None = None


def _openai_fn(name: str, description: str | None, parameters: dict) -> dict:
    """Chat Completions function-tool shape, for peers without their own exporter."""
    return {"type": "function", "function": {"name": name, "description": description or "", "parameters": parameters}}


def _args_model(fn: Callable) -> Any:
    """A pydantic model of fn's parameters (what most peers build internally)."""
    hints = get_type_hints(fn, include_extras=True)
    fields = {}
    for p in inspect.signature(fn).parameters.values():
        default = ... if p.default is inspect.Parameter.empty else p.default
        fields[p.name] = (hints.get(p.name, Any), default)
    return create_model(f"{fn.__name__}_args", **fields)


def _sync_impl(tool: str) -> Callable | None:
    return TOOLS.get(tool, (None, None))[0]


def _async_impl(tool: str) -> Callable | None:
    return TOOLS.get(tool, (None, None))[1]


# ---------------------------------------------------------------------------
# Baselines (not peers: reference points for a tool layer's own overhead)
# ---------------------------------------------------------------------------


def _callers(impl: Callable[[str], Callable | None], wrap: Callable[[Callable], Callable] = lambda f: f):
    """Logical tool name -> callable(args) running wrap(impl(tool))(**args)."""
    table: dict[str, Callable] = {}
    for t in TOOLS:
        fn = impl(t)
        if fn is not None:
            w = wrap(fn)
            table[t] = lambda args, w=w: w(**args)
    return table.get


def _make_baseline(env: Env) -> tuple[list[Variant], list[SchemaAdapter]]:
    variants: list[Variant] = []

    async def to_thread_add(args: dict) -> int:
        return await asyncio.to_thread(add, **args)

    bare_async = _callers(_async_impl)
    variants.append(
        Variant(
            "baseline: bare Python call",
            sync=_callers(_sync_impl),
            async_=lambda t: to_thread_add if t == "add_syncdef" else bare_async(t),
            note="fn(**args); plain-def column = await asyncio.to_thread(fn, **args)",
        )
    )
    variants.append(
        Variant(
            "baseline: pydantic @validate_call",
            sync=_callers(_sync_impl, validate_call),
            async_=_callers(_async_impl, validate_call),
        )
    )

    # BaseModel.model_validate(dict) then fn(**fields): the core of most peers.
    def model_caller(impl: Callable[[str], Callable | None], json_input: bool):
        table: dict[str, Callable] = {}
        for t in TOOLS:
            fn = impl(t)
            if fn is None:
                continue
            model = _args_model(fn)
            validate = model.model_validate_json if json_input else model.model_validate
            table[t] = lambda payload, fn=fn, validate=validate: fn(**validate(payload).__dict__)
        return table.get

    variants.append(
        Variant(
            "baseline: pydantic model_validate + call",
            sync=model_caller(_sync_impl, False),
            async_=model_caller(_async_impl, False),
        )
    )
    variants.append(
        Variant(
            "baseline: pydantic model_validate_json(str) + call",
            prepare=lambda tool, args: json.dumps(args),
            sync=model_caller(_sync_impl, True),
            async_=model_caller(_async_impl, True),
            note="input is the raw JSON string, like openai-agents",
        )
    )

    # JSON-Schema validators over the pydantic-generated schema, then fn(**args).
    def schema_validators() -> list[tuple[str, Callable[[dict], Callable[[Any], Any]]]]:
        out = []
        try:
            import jsonschema

            def mk_js(schema):
                v = jsonschema.validators.validator_for(schema)(schema)
                return v.validate

            out.append(("jsonschema", mk_js))
        except ImportError:
            pass
        try:
            import fastjsonschema

            out.append(("fastjsonschema", fastjsonschema.compile))
        except ImportError:
            pass
        try:
            import jsonschema_rs

            out.append(("jsonschema-rs", lambda schema: jsonschema_rs.validator_for(schema).validate))
        except ImportError:
            pass
        return out

    for vname, mk in schema_validators():

        def caller(impl, mk=mk):
            table: dict[str, Callable] = {}
            for t in TOOLS:
                fn = impl(t)
                if fn is None:
                    continue
                validate = mk(TypeAdapter(fn).json_schema())

                def call(args, fn=fn, validate=validate):
                    validate(args)
                    return fn(**args)

                table[t] = call
            return table.get

        variants.append(
            Variant(
                f"baseline: {vname} validate + call",
                sync=caller(_sync_impl),
                async_=caller(_async_impl),
                note="JSON Schema from pydantic; no coercion, defaults from Python",
            )
        )

    def cold(fns):
        adapters = [(fn.__name__, fn.__doc__, TypeAdapter(fn)) for fn in fns]
        return adapters, warm(adapters)

    def warm(adapters):
        return [_openai_fn(n, d, ta.json_schema()) for n, d, ta in adapters]

    schemas = [SchemaAdapter(BASELINE_SCHEMA_LABEL, cold, warm)]
    return variants, schemas


# ---------------------------------------------------------------------------
# Peers
# ---------------------------------------------------------------------------


def _make_langchain(env: Env) -> tuple[list[Variant], list[SchemaAdapter]]:
    from langchain_core.tools import StructuredTool, tool
    from langchain_core.utils.function_calling import convert_to_openai_tool

    tools = {
        # func= serves .invoke, coroutine= serves .ainvoke (no thread hop)
        "add": StructuredTool.from_function(func=add, coroutine=add_async, name="add"),
        "search": StructuredTool.from_function(func=search, coroutine=search_async, name="search"),
        "sleepy": tool(sleepy),
        "add_syncdef": tool(add),  # sync-only tool; ainvoke runs it in an executor
    }
    lenient = StructuredTool.from_function(func=add, coroutine=add_async, name="add", handle_validation_error=True)

    def tool_call(name: str, args: dict) -> dict:
        return {"type": "tool_call", "name": name, "args": args, "id": "call_0"}

    def status_error(r: Any) -> bool:
        return getattr(r, "status", "success") == "error"

    variants = [
        Variant(
            "langchain-core: StructuredTool.invoke/ainvoke(dict)",
            sync=lambda t: tools[t].invoke if t != "add_syncdef" else None,
            async_=lambda t: tools[t].ainvoke,
        ),
        Variant(
            "langchain-core: invoke/ainvoke(ToolCall) -> ToolMessage",
            prepare=tool_call,
            sync=lambda t: tools[t].invoke if t != "add_syncdef" else None,
            async_=lambda t: tools[t].ainvoke,
            is_error=status_error,
            note="the agent path (LangGraph ToolNode style)",
        ),
        Variant(
            "langchain-core: handle_validation_error=True, dict input",
            sync=lambda t: lenient.invoke if t == "add" else None,
            bench=False,
        ),
        Variant(
            "langchain-core: handle_validation_error=True, ToolCall input",
            prepare=tool_call,
            sync=lambda t: lenient.invoke if t == "add" else None,
            is_error=status_error,
            bench=False,
        ),
    ]

    def cold(fns):
        built = [StructuredTool.from_function(fn) for fn in fns]
        return built, warm(built)

    def warm(built):
        return [convert_to_openai_tool(t) for t in built]

    return variants, [SchemaAdapter("langchain-core: StructuredTool.from_function + convert_to_openai_tool", cold, warm)]


def _make_openai_agents(env: Env) -> tuple[list[Variant], list[SchemaAdapter]]:
    from agents import function_tool
    from agents.models.chatcmpl_converter import Converter
    from agents.tool_context import ToolContext

    tools = {
        "add": function_tool(add_async, name_override="add"),
        "search": function_tool(search_async, name_override="search"),
        "sleepy": function_tool(sleepy),
        "add_syncdef": function_tool(add),  # sync def -> asyncio.to_thread inside the SDK
    }
    raising = function_tool(add_async, name_override="add", failure_error_function=None)

    def invoker(t):
        async def call(payload: str, t=t):
            # The Runner builds one ToolContext per tool call; so do we.
            ctx = ToolContext(context=None, tool_name=t.name, tool_call_id="call_0", tool_arguments=payload)
            return await t.on_invoke_tool(ctx, payload)

        return call

    calls = {name: invoker(t) for name, t in tools.items()}
    default_msg = "An error occurred while running the tool"
    variants = [
        Variant(
            "openai-agents: FunctionTool.on_invoke_tool(ctx, json)",
            prepare=lambda tool, args: json.dumps(args),
            async_=lambda t: calls[t],
            is_error=lambda r: isinstance(r, str) and r.startswith(default_msg),
            note="async-only API; input is the model's JSON string",
        ),
        Variant(
            "openai-agents: failure_error_function=None",
            prepare=lambda tool, args: json.dumps(args),
            async_=lambda t: invoker(raising) if t == "add" else None,
            bench=False,
        ),
    ]

    def cold(fns):
        built = [function_tool(fn) for fn in fns]
        return built, warm(built)

    def warm(built):
        return [Converter.tool_to_openai(t) for t in built]

    return variants, [
        SchemaAdapter(
            "openai-agents: function_tool + chatcmpl Converter.tool_to_openai",
            cold,
            warm,
            note="strict mode (default): every param listed in required",
        )
    ]


def _make_pydantic_ai(env: Env) -> tuple[list[Variant], list[SchemaAdapter]]:
    from pydantic_ai import RunContext, Tool
    from pydantic_ai.exceptions import ToolRetryError
    from pydantic_ai.messages import ToolCallPart
    from pydantic_ai.models.test import TestModel
    from pydantic_ai.tool_manager import ToolManager
    from pydantic_ai.toolsets import FunctionToolset
    from pydantic_ai.usage import RunUsage

    toolset = FunctionToolset(
        [
            Tool(add_async, name="add"),
            Tool(search_async, name="search"),
            Tool(sleepy),
            Tool(add, name="add_syncdef"),  # sync def -> run_in_executor inside the SDK
        ],
        max_retries=1,  # the Agent default
    )
    ctx = RunContext(deps=None, model=TestModel(), usage=RunUsage())
    manager = env.run(ToolManager(toolset).for_run_step(ctx))

    def handle(name: str):
        return manager.handle_call

    def error_text(e: BaseException) -> str:
        if isinstance(e, ToolRetryError):
            part = e.tool_retry
            text = part.model_response_str() if hasattr(part, "model_response_str") else part.model_response()
            return f"-- what the model is sent ({type(part).__name__}):\n{text}"
        return ""

    # Lower bound: the pydantic-core validator pydantic-ai builds for the tool, then a direct call.
    validators = {t: Tool(f).function_schema.validator for t, (f, _) in TOOLS.items() if f is not None}
    avalidators = {t: Tool(f).function_schema.validator for t, (_, f) in TOOLS.items() if f is not None}

    def v_sync(t):
        if t not in validators:
            return None
        fn, v = TOOLS[t][0], validators[t]
        return lambda args: fn(**v.validate_python(args))

    def v_async(t):
        if t not in avalidators:
            return None
        fn, v = TOOLS[t][1], avalidators[t]
        return lambda args: fn(**v.validate_python(args))

    variants = [
        Variant(
            "pydantic-ai: FunctionToolset via ToolManager.handle_call",
            prepare=lambda tool, args: ToolCallPart(tool_name=tool, args=args, tool_call_id="call_0"),
            async_=handle,
            error_text=error_text,
            note="async-only; the path Agent runs use",
        ),
        Variant(
            "pydantic-ai: Tool args validator + direct call",
            sync=v_sync,
            async_=v_async,
            note="lower bound: tool.function_schema.validator.validate_python(args)",
        ),
    ]

    def cold(fns):
        built = [Tool(fn) for fn in fns]
        return built, warm(built)

    def warm(built):
        out = []
        for t in built:
            d = t.tool_def
            out.append(_openai_fn(d.name, d.description, d.parameters_json_schema))
        return out

    return variants, [
        SchemaAdapter(
            "pydantic-ai: Tool(fn) + tool_def",
            cold,
            warm,
            note="OpenAI dict wrapped by hand from ToolDefinition (no public exporter)",
        )
    ]


def _make_mcp(env: Env) -> tuple[list[Variant], list[SchemaAdapter]]:
    from mcp import Client
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("bench")
    server.add_tool(add_async, name="add")
    server.add_tool(search_async, name="search")
    server.add_tool(sleepy)
    server.add_tool(add, name="add_syncdef")  # sync def -> anyio.to_thread inside the SDK

    def is_error(r: Any) -> bool:
        return bool(getattr(r, "is_error", False))

    variants = [
        Variant(
            "mcp: MCPServer.call_tool (in-process, no transport)",
            async_=lambda t: (lambda args, t=t: server.call_tool(t, args)),
            is_error=is_error,
            note="async-only",
        )
    ]
    for mode, what in (("auto", "direct dispatcher"), ("legacy", "JSON-RPC over memory streams")):
        try:
            client = env.hold(lambda mode=mode: Client(server, mode=mode))
        except Exception as e:  # pragma: no cover - depends on the SDK version
            print(f"  ! mcp Client(mode={mode!r}) unavailable: {e!r}", file=sys.stderr)
            continue
        variants.append(
            Variant(
                f"mcp: in-memory Client(mode={mode!r}).call_tool",
                async_=lambda t, c=client: (lambda args, t=t: c.call_tool(t, args)),
                is_error=is_error,
                note=what,
            )
        )

    def cold(fns):
        srv = MCPServer("schemas")
        for fn in fns:
            srv.add_tool(fn)
        return srv, warm(srv)

    def warm(srv):
        return [_openai_fn(t.name, t.description, t.input_schema) for t in env.run(srv.list_tools())]

    return variants, [
        SchemaAdapter(
            "mcp: MCPServer.add_tool + list_tools",
            cold,
            warm,
            note="OpenAI dict wrapped by hand from the MCP Tool's input_schema",
        )
    ]


def _make_toolregistry(env: Env) -> tuple[list[Variant], list[SchemaAdapter]]:
    from toolregistry import ToolRegistry

    reg = ToolRegistry()
    # One name per implementation: sync path gets the plain defs, async path the async defs.
    reg.register(add, name="add")
    reg.register(search, name="search")
    reg.register(add_async, name="add_a")
    reg.register(search_async, name="search_a")
    reg.register(sleepy, name="sleepy")
    env.closers.append(reg.close)
    sync_names = {"add": "add", "search": "search"}
    async_names = {"add": "add_a", "search": "search_a", "sleepy": "sleepy", "add_syncdef": "add"}

    def is_error(r: Any) -> bool:
        return type(r).__name__ == "ErrorResult"

    variants = [
        Variant(
            "toolregistry: ToolRegistry.invoke/ainvoke",
            sync=lambda t: (lambda args, n=sync_names[t]: reg.invoke(n, args)) if t in sync_names else None,
            async_=lambda t: (lambda args, n=async_names[t]: reg.ainvoke(n, args)),
            is_error=is_error,
            note="sync invoke runs the tool on a thread-pool backend",
        )
    ]

    def cold(fns):
        r = ToolRegistry()
        for fn in fns:
            r.register(fn)
        return r, warm(r)

    def warm(r):
        return r.get_schemas(api_format="openai-chat")

    return variants, [
        SchemaAdapter("toolregistry: register + get_schemas('openai-chat')", cold, warm, dispose=lambda r: r.close())
    ]


def _make_toolrig(env: Env) -> tuple[list[Variant], list[SchemaAdapter]]:
    from toolrig import ToolExecutor, tool

    # Sync defs for the sync path (they run inline in the caller's thread), async defs for the
    # async path; "add_syncdef" is the plain `def add` awaited (it runs on a worker thread).
    sync_ex = ToolExecutor([tool(add), tool(search)])
    async_ex = ToolExecutor([tool(name="add")(add_async), tool(name="search")(search_async), tool(sleepy)])
    env.closers.append(sync_ex.close)
    env.closers.append(async_ex.close)

    def sync_call(t: str):
        if t not in ("add", "search"):
            return None
        return lambda args, t=t: sync_ex.execute_sync(t, args)

    def async_call(t: str):
        if t == "add_syncdef":
            return lambda args: sync_ex.execute("add", args)
        return lambda args, t=t: async_ex.execute(t, args)

    variants = [
        Variant(
            "toolrig: ToolExecutor.execute_sync/execute(name, dict) -> ToolResult",
            sync=sync_call,
            async_=async_call,
            is_error=lambda r: not r.success,
            note="validates args and output; failures come back as ToolResult(success=False)",
        )
    ]

    def cold(fns):
        built = [tool(fn) for fn in fns]
        return built, warm(built)

    def warm(built):
        return [_openai_fn(t.spec.name, t.spec.description, t.action.spec.parameters) for t in built]

    def cold_export(fns):
        built = [tool(fn) for fn in fns]
        return built, warm_export(built)

    def warm_export(built):
        from toolrig.providers import to_openai_chat_tools

        return to_openai_chat_tools(built)

    return variants, [
        SchemaAdapter(
            TOOLRIG_SCHEMA_LABEL,
            cold,
            warm,
            note="OpenAI dict wrapped by hand from the action's parameter schema",
        ),
        SchemaAdapter(
            TOOLRIG_EXPORT_LABEL,
            cold_export,
            warm_export,
            note="the library's exporter (keeps a list's export per list of specs)",
        ),
    ]


TOOLRIG_SCHEMA_LABEL = "toolrig: tool(fn) + action spec parameters"
TOOLRIG_EXPORT_LABEL = "toolrig: tool(fn) + providers.to_openai_chat_tools"
BASELINE_SCHEMA_LABEL = "baseline: pydantic TypeAdapter(fn).json_schema()"


ADAPTERS: dict[str, Adapter] = {
    a.key: a
    for a in [
        Adapter("baseline", (), "pass", _make_baseline),
        Adapter("langchain-core", ("langchain-core",), "from langchain_core.tools import tool", _make_langchain),
        Adapter("openai-agents", ("openai-agents",), "from agents import function_tool", _make_openai_agents),
        Adapter("pydantic-ai-slim", ("pydantic-ai-slim",), "from pydantic_ai import Tool", _make_pydantic_ai),
        Adapter("mcp", ("mcp",), "from mcp.server.mcpserver import MCPServer", _make_mcp),
        Adapter("toolregistry", ("toolregistry",), "from toolregistry import ToolRegistry", _make_toolregistry),
        Adapter("toolrig", ("toolrig",), "from toolrig import ToolExecutor, tool", _make_toolrig),
        # Import-cost rows only (their call paths are baselines above).
        Adapter("pydantic", ("pydantic", "pydantic-core"), "from pydantic import BaseModel, TypeAdapter, validate_call"),
        Adapter("jsonschema", ("jsonschema",), "import jsonschema; jsonschema.Draft202012Validator"),
        Adapter("fastjsonschema", ("fastjsonschema",), "import fastjsonschema"),
        Adapter("jsonschema-rs", ("jsonschema-rs",), "import jsonschema_rs"),
    ]
}

# ---------------------------------------------------------------------------
# Measurement helpers
# ---------------------------------------------------------------------------


def settle_heap() -> None:
    """Collect, then move every surviving object to the permanent generation.

    Without this, the cost of the cyclic GC inside a timed block depends on how
    many long-lived objects earlier sections left behind (a 10k-task burst of the
    bare baseline measured ~90 ms after the schema section vs ~210 ms without it).
    Freezing makes each section pay only for the garbage it creates itself.
    """
    gc.collect()
    gc.freeze()


def fmt_stat(samples: list[float], digits: int = 1) -> str:
    if not samples:
        return "n/a"
    med = statistics.median(samples)
    spread = (max(samples) - min(samples)) / 2 / med * 100 if med else 0.0
    return f"{med:.{digits}f} ±{spread:.0f}%"


def median(samples: list[float]) -> float:
    return statistics.median(samples)


def time_sync(call: Callable[[Any], Any], payload: Any, n: int) -> float:
    """Mean ns per call over n calls."""
    gc.collect()
    t0 = perf_ns()
    for _ in range(n):
        call(payload)
    return (perf_ns() - t0) / n


async def _time_async(call: Callable[[Any], Awaitable[Any]], payload: Any, n: int) -> float:
    gc.collect()
    t0 = perf_ns()
    for _ in range(n):
        await call(payload)
    return (perf_ns() - t0) / n


def calibrate(run_batch: Callable[[int], float], target_s: float) -> int:
    """Warm up, then choose n so one timed batch lasts about target_s."""
    n = 16
    while True:
        per_call_ns = run_batch(n)
        if per_call_ns * n >= 0.05e9 or n >= 1 << 20:
            break
        n *= 4
    return max(20, int(target_s * 1e9 / per_call_ns))


def outcome_of(thunk: Callable[[], Any], variant: Variant) -> dict[str, str]:
    """Call thunk once; describe whether the peer raised or returned, and the text."""
    try:
        result = thunk()
    except Exception as e:  # noqa: BLE001 - reporting what the peer does
        extra = variant.error_text(e) if variant.error_text else ""
        text = str(e) + (f"\n{extra}" if extra else "")
        return {"kind": "raises", "type": f"{type(e).__module__}.{type(e).__qualname__}", "text": text}
    kind = "returns an error value" if variant.is_error(result) else "returns (no error flag)"
    return {"kind": kind, "type": f"{type(result).__module__}.{type(result).__qualname__}", "text": render(result)}


def render(result: Any) -> str:
    """Readable text of a peer's returned (error) object."""
    content = getattr(result, "content", None)
    if isinstance(content, list):  # MCP CallToolResult
        texts = [getattr(c, "text", repr(c)) for c in content]
        return f"is_error={getattr(result, 'is_error', None)} text=" + " | ".join(texts)
    if content is not None and hasattr(result, "status"):  # LangChain ToolMessage
        return f"status={result.status} content={content}"
    if hasattr(result, "message") and hasattr(result, "id"):  # toolregistry ErrorResult
        return f"message={result.message}"
    return repr(result)


def gen_functions(n: int, salt: str) -> list[Callable]:
    """n distinct tool functions, 5 params of mixed types (2 required, 3 defaulted)."""
    kinds = [
        ("int", "7"),
        ("str", "'x'"),
        ("float", "1.5"),
        ("bool", "False"),
        ("list[str]", "None"),  # written as Optional below
        ("Literal['red', 'green', 'blue']", "'red'"),
        ("Optional[int]", "None"),
    ]
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lam"]
    fns = []
    ns_globals = {"Literal": Literal, "Optional": Optional, "__name__": "generated_tools"}
    for i in range(n):
        params, docs = [], []
        for j in range(5):
            ann, default = kinds[(i + 3 * j) % len(kinds)]
            if ann == "list[str]":
                ann = "Optional[list[str]]"
            pname = f"{words[(i + j) % len(words)]}_{j}"
            params.append(f"{pname}: {ann}" + (f" = {default}" if j >= 2 else ""))
            docs.append(f"        {pname}: Parameter {j} of tool {i}.")
        name = f"tool_{salt}_{i:04d}"
        src = (  # the salt in the docstring too: no repeat reuses an earlier repeat's text
            f"def {name}({', '.join(params)}) -> dict:\n"
            f'    """Generated tool number {i} ({salt}).\n\n    Args:\n' + "\n".join(docs) + '\n    """\n'
            "    return {}\n"
        )
        ns: dict[str, Any] = {}
        exec(src, ns_globals, ns)  # noqa: S102 - generating benchmark fixtures
        fns.append(ns[name])
    return fns


def gen_call_functions(n: int, salt: str) -> list[tuple[Callable, dict]]:
    """n tool functions like gen_functions', each with parameter names of its own (so no two
    can share a compiled validator), and valid arguments for each."""
    kinds = [
        ("int", "7", 7),
        ("str", "'x'", "x"),
        ("float", "1.5", 1.5),
        ("bool", "False", False),
        ("Optional[list[str]]", "None", ["a"]),
        ("Literal['red', 'green', 'blue']", "'red'", "green"),
        ("Optional[int]", "None", None),
    ]
    ns_globals = {"Literal": Literal, "Optional": Optional, "__name__": "generated_tools"}
    out = []
    for i in range(n):
        params, docs, args = [], [], {}
        for j in range(5):
            ann, default, value = kinds[(i + 3 * j) % len(kinds)]
            pname = f"p{j}_{salt}_{i}"
            params.append(f"{pname}: {ann}" + (f" = {default}" if j >= 2 else ""))
            docs.append(f"        {pname}: Parameter {j} of tool {i}.")
            if j < 2:
                args[pname] = value
        name = f"call_{salt}_{i:04d}"
        src = (
            f"def {name}({', '.join(params)}) -> dict:\n"
            f'    """Callable tool number {i} ({salt}).\n\n    Args:\n' + "\n".join(docs) + '\n    """\n'
            "    return {}\n"
        )
        ns: dict[str, Any] = {}
        exec(src, ns_globals, ns)  # noqa: S102 - generating benchmark fixtures
        out.append((ns[name], args))
    return out


# ---------------------------------------------------------------------------
# Benchmarks
# ---------------------------------------------------------------------------

PER_CALL_COLS = [
    ("add", "sync"),
    ("add", "async"),
    ("search", "sync"),
    ("search", "async"),
    ("add_syncdef", "async"),
]


def bench_per_call(env: Env, variants: list[Variant], repeats: int, target_s: float) -> dict:
    jobs = []  # (label, tool, path, timed batch(n) -> ns/call, n)
    for v in variants:
        for tool, path in PER_CALL_COLS:
            getter = v.sync if path == "sync" else v.async_
            call = getter(tool) if getter else None
            if call is None:
                continue
            payload = v.prepare(tool, ARGS[tool])
            # sanity: one real call must succeed
            result = call(payload) if path == "sync" else env.run(call(payload))
            if v.is_error(result):
                raise RuntimeError(f"{v.label} {tool}/{path} returned an error: {render(result)}")
            if path == "sync":
                batch = lambda n, c=call, p=payload: time_sync(c, p, n)  # noqa: E731
            else:
                batch = lambda n, c=call, p=payload: env.run(_time_async(c, p, n))  # noqa: E731
            n = calibrate(batch, target_s)
            jobs.append((v.label, tool, path, batch, n))
    samples: dict[tuple[str, str, str], list[float]] = {}
    settle_heap()
    for r in range(repeats):
        for label, tool, path, batch, n in jobs:  # interleaved: every peer once per repeat
            samples.setdefault((label, tool, path), []).append(batch(n) / 1000.0)  # µs
        print(f"  per-call repeat {r + 1}/{repeats} done", file=sys.stderr)
    return samples


def bench_concurrency(env: Env, variants: list[Variant], repeats: int, n_calls: int) -> dict:
    async def burst(call, payload, n):
        gc.collect()
        t0 = perf_ns()
        results = await asyncio.gather(*(call(payload) for _ in range(n)))
        return (perf_ns() - t0) / 1e9, results

    jobs = []
    for v in variants:
        call = v.async_("sleepy") if v.async_ else None
        if call is None:
            continue
        payload = v.prepare("sleepy", ARGS["sleepy"])
        env.run(burst(call, payload, min(200, n_calls)))  # warm-up
        jobs.append((v, call, payload))
    out: dict[str, dict[str, Any]] = {}
    settle_heap()
    for r in range(repeats):
        for v, call, payload in jobs:
            wall, results = env.run(burst(call, payload, n_calls))
            rec = out.setdefault(v.label, {"wall_s": [], "errors": 0})
            rec["wall_s"].append(wall)
            rec["errors"] += sum(1 for x in results if v.is_error(x))
        print(f"  concurrency repeat {r + 1}/{repeats} done", file=sys.stderr)
    return out


def bench_schemas(schema_adapters: list[SchemaAdapter], repeats: int, n_tools: int) -> dict:
    # Warm each peer's lazy imports / caches on a small throwaway set first.
    for sa in schema_adapters:
        state, schemas = sa.cold(gen_functions(10, "warmup" + str(id(sa))))
        assert len(schemas) == 10, sa.label
        sa.warm(state)
        sa.dispose(state)
    settle_heap()
    out: dict[str, dict[str, list[float]]] = {}
    for r in range(repeats):
        for sa in schema_adapters:
            fns = gen_functions(n_tools, f"r{r}")  # fresh function objects: nothing cached
            gc.collect()
            t0 = perf_ns()
            state, schemas = sa.cold(fns)
            t1 = perf_ns()
            gc.collect()
            t2 = perf_ns()
            again = sa.warm(state)
            t3 = perf_ns()
            assert len(schemas) == n_tools and len(again) == n_tools, sa.label
            rec = out.setdefault(sa.label, {"cold_ms": [], "warm_ms": []})
            rec["cold_ms"].append((t1 - t0) / 1e6)
            rec["warm_ms"].append((t3 - t2) / 1e6)
            sa.dispose(state)
            del state, schemas, again
        print(f"  schema repeat {r + 1}/{repeats} done", file=sys.stderr)
    return out


def bench_first_call(repeats: int, n_tools: int) -> dict[str, list[float]] | None:
    """toolrig only: µs to define a fresh tool, to run it the first time (validators a tool
    compiles on first use are compiled here), and to run it again."""
    try:
        from toolrig import tool
    except ImportError:
        return None
    for fn, args in gen_call_functions(20, "warmup"):  # lazy imports, first-time code paths
        t = tool(fn)
        t.run(args)
        t.run(args)
    out: dict[str, list[float]] = {"define_us": [], "first_us": [], "second_us": []}
    for r in range(repeats):
        pairs = gen_call_functions(n_tools, f"fc{r}")
        settle_heap()
        for fn, args in pairs:
            t0 = perf_ns()
            t = tool(fn)
            t1 = perf_ns()
            first = t.run(args)
            t2 = perf_ns()
            second = t.run(args)
            t3 = perf_ns()
            assert first.success and second.success, (first, second)
            out["define_us"].append((t1 - t0) / 1e3)
            out["first_us"].append((t2 - t1) / 1e3)
            out["second_us"].append((t3 - t2) / 1e3)
        print(f"  first-call repeat {r + 1}/{repeats} done", file=sys.stderr)
    return out


def bench_bad_input(env: Env, variants: list[Variant]) -> dict[str, dict[str, str]]:
    out = {}
    for v in variants:
        call, path = (v.sync("add") if v.sync else None), "sync"
        if call is None:
            call, path = (v.async_("add") if v.async_ else None), "async"
        if call is None:
            continue
        payload = v.prepare("add", BAD_ARGS)
        if path == "sync":
            res = outcome_of(lambda: call(payload), v)
        else:
            res = outcome_of(lambda: env.run(call(payload)), v)
        res["path"] = path
        out[v.label] = res
    return out


def bench_imports(adapters: list[Adapter], repeats: int) -> dict:
    """Fresh interpreter per sample.

    Peak RSS is the child's own VmHWM (read from /proc/self/status at exit).  The
    parent's ru_maxrss from wait4/getrusage is not usable here: across vfork+exec
    Linux carries the *parent's* high-water mark into the child's maxrss.
    """

    def one(stmt: str) -> tuple[float, float, float]:
        code = (
            "import time as _t\n_s = _t.perf_counter()\n"
            f"{stmt}\n"
            "_e = _t.perf_counter()\n"
            "_hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM:')][0].split()[1]\n"
            "print((_e - _s) * 1000, int(_hwm))"
        )
        t0 = perf_ns()
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        wall = (perf_ns() - t0) / 1e6
        if p.returncode != 0:
            raise RuntimeError(f"{stmt!r} failed:\n{p.stdout}{p.stderr}")
        imp_ms, hwm_kib = p.stdout.strip().splitlines()[-1].split()
        return float(imp_ms), wall, int(hwm_kib) / 1024

    for a in adapters:  # warm-up: write .pyc files, warm the page cache
        one(a.import_stmt)
    res: dict[str, dict[str, list[float]]] = {}
    for _ in range(repeats):
        for a in adapters:  # interleaved
            imp_ms, wall_ms, rss_mib = one(a.import_stmt)
            rec = res.setdefault(a.key, {"import_ms": [], "wall_ms": [], "rss_mib": []})
            rec["import_ms"].append(imp_ms)
            rec["wall_ms"].append(wall_ms)
            rec["rss_mib"].append(rss_mib)
    return res


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------


def table(headers: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def versions(adapters: list[Adapter]) -> dict[str, str]:
    out = {}
    for a in adapters:
        for d in a.dists:
            try:
                out[d] = md.version(d)
            except md.PackageNotFoundError:
                out[d] = "not installed"
    return out


def report_imports(imp: dict, adapters: list[Adapter]) -> str:
    base = imp["baseline"]
    b_rss, b_wall = median(base["rss_mib"]), median(base["wall_ms"])
    rows = []
    for a in adapters:
        rec = imp[a.key]
        rows.append(
            [
                "bare interpreter" if a.key == "baseline" else a.key,
                f"`{a.import_stmt}`",
                fmt_stat(rec["import_ms"]),
                fmt_stat(rec["wall_ms"]),
                f"{median(rec['wall_ms']) - b_wall:+.0f}",
                fmt_stat(rec["rss_mib"]),
                f"{median(rec['rss_mib']) - b_rss:+.1f}",
            ]
        )
    head = ["peer", "statement", "import ms (in-process)", "process wall ms", "wall Δ ms", "peak RSS MiB (VmHWM)", "RSS Δ MiB"]
    return (
        "## 5. Import cost (fresh interpreter per sample)\n\n"
        + table(head, rows)
        + "\n\nΔ = minus the bare interpreter (`python -c pass`). 'import ms' is timed inside the child"
        " around the statement; 'process wall' is spawn-to-exit.\n"
    )


def report_per_call(pc: dict, variants: list[Variant]) -> str:
    rows = []
    for v in variants:
        cells = [fmt_stat(pc[(v.label, t, p)], 2) if (v.label, t, p) in pc else "—" for t, p in PER_CALL_COLS]
        rows.append([v.label, *cells, v.note])
    head = ["variant", "add sync", "add async", "search sync", "search async", "add async, plain-def tool", "notes"]
    return (
        "## 1. Per-call overhead (µs/call: validate args + run trivial tool)\n\n"
        + table(head, rows)
        + "\n\n`—` = no such path in that peer. 'plain-def tool' = the sync `def add` called through the async"
        " path (peers hop to a worker thread; baseline row = `await asyncio.to_thread(add, **args)`).\n"
    )


def report_schemas(sc: dict, schema_adapters: list[SchemaAdapter], n_tools: int) -> str:
    rows = []
    for sa in schema_adapters:
        rec = sc[sa.label]
        rows.append(
            [
                sa.label,
                fmt_stat(rec["cold_ms"], 0),
                f"{median(rec['cold_ms']) * 1000 / n_tools:.0f}",
                fmt_stat(rec["warm_ms"], 1),
                f"{median(rec['warm_ms']) * 1000 / n_tools:.1f}",
                sa.note,
            ]
        )
    head = ["peer: build path", "cold ms (build+export)", "cold µs/tool", "warm ms (export again)", "warm µs/tool", "notes"]
    ratios = []
    base = sc.get(BASELINE_SCHEMA_LABEL)
    for label in (TOOLRIG_SCHEMA_LABEL, TOOLRIG_EXPORT_LABEL):
        rec = sc.get(label)
        if base is None or rec is None:
            continue
        per_repeat = [a / b for a, b in zip(rec["cold_ms"], base["cold_ms"], strict=True)]
        ratios.append(
            f"- {label}: **{median(rec['cold_ms']) / median(base['cold_ms']):.2f}x** the TypeAdapter"
            f" baseline (medians; per-repeat ratios {min(per_repeat):.2f}–{max(per_repeat):.2f})"
        )
    samples = []
    for sa in schema_adapters:
        _, schemas = sa.cold([search])
        samples.append(f"- {sa.label}: `{json.dumps(schemas[0], separators=(',', ':'), default=str)}`")
    return (
        f"## 2. Schema export: {n_tools:,} generated tools, 5 mixed-type params each\n\n"
        + table(head, rows)
        + ("\n\ntoolrig cold / TypeAdapter cold, same run:\n\n" + "\n".join(ratios) if ratios else "")
        + "\n\ncold = build the peer's tool objects from 1,000 fresh functions and export OpenAI-style"
        " schemas (after a 10-tool warm-up, so one-off lazy imports are excluded); warm = export again"
        " from the built objects.\n\nEach peer's exported schema for `search`:\n\n"
        + "\n".join(samples)
        + "\n"
    )


def report_first_call(fc: dict[str, list[float]], n_tools: int, repeats: int) -> str:
    define, first, second = (median(fc[k]) for k in ("define_us", "first_us", "second_us"))
    rows = [
        ["define: tool(fn)", f"{define:.1f}"],
        ["first call: tool.run(args)", f"{first:.1f}"],
        ["second call: tool.run(args)", f"{second:.1f}"],
        ["first call − second call", f"{first - second:.1f}"],
    ]
    return (
        f"## 2b. toolrig: first call of a freshly defined tool ({n_tools} tools x {repeats} repeats)\n\n"
        + table(["step", "median µs"], rows)
        + "\n\nEach tool has 5 parameters named for it alone (no compiled validator can be shared);"
        " the first call pays for whatever definition left to first use.\n"
    )


def report_concurrency(cc: dict, n_calls: int) -> str:
    rows = []
    for label, rec in cc.items():
        w = median(rec["wall_s"])
        rows.append(
            [
                label,
                fmt_stat([x * 1000 for x in rec["wall_s"]], 0),
                f"{n_calls / w:,.0f}",
                f"{(w - 0.01) / n_calls * 1e6:.1f}",
                str(rec["errors"]),
            ]
        )
    head = ["variant", "wall ms", "calls/s", "µs/call beyond the 10 ms sleep", "error results (all repeats)"]
    return (
        f"## 3. Concurrency: {n_calls:,} concurrent calls (asyncio.gather) of an `await asyncio.sleep(0.01)` tool\n\n"
        + table(head, rows)
        + "\n"
    )


def report_bad_input(bi: dict) -> str:
    rows = [[label, r["path"], r["kind"], f"`{r['type']}`"] for label, r in bi.items()]
    texts = [f"### {label}\n```\n{r['text']}\n```" for label, r in bi.items()]
    return (
        f"## 4. Bad input: `add(**{json.dumps(BAD_ARGS)})`\n\n"
        + table(["variant", "path", "behaviour", "type"], rows)
        + "\n\nError text each variant produces:\n\n"
        + "\n".join(texts)
        + "\n"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--target-s", type=float, default=0.15, help="seconds per timed per-call batch")
    ap.add_argument("--tools", type=int, default=1000, help="generated tools for schema export")
    ap.add_argument("--concurrent", type=int, default=10_000, help="concurrent calls in the sleep test")
    ap.add_argument("--only", default="", help="comma-separated adapter keys (baseline always included)")
    ap.add_argument("--skip", default="", help="comma-separated: imports,per-call,concurrency,schemas,first-call,bad-input")
    ap.add_argument("--quick", action="store_true", help="smoke run: small sizes, 2 repeats")
    ap.add_argument("--json", default="", help="also write raw samples to this file")
    ns = ap.parse_args()
    if ns.quick:
        ns.repeats, ns.target_s, ns.tools, ns.concurrent = 2, 0.02, 50, 500
    skip = set(filter(None, ns.skip.split(",")))
    only = set(filter(None, ns.only.split(",")))
    adapters = [a for k, a in ADAPTERS.items() if not only or k in only or k == "baseline"]

    warnings.simplefilter("ignore")  # deprecation chatter from peers is not what we measure
    import logging

    logging.disable(logging.CRITICAL)  # e.g. MCP logs each rejected call at INFO

    vers = versions(adapters)
    raw: dict[str, Any] = {"versions": vers, "python": platform.python_version()}
    sections: dict[float, str] = {}
    unavailable: list[str] = []

    # Imports first, while this process has imported no peer (subprocesses either way).
    if "imports" not in skip:
        print("## imports", file=sys.stderr)
        installed = [a for a in adapters if all(vers[d] != "not installed" for d in a.dists)]
        unavailable += [  # peers with tools report themselves below, when they fail to load
            f"{a.key}: not installed (no import cost)" for a in adapters if a not in installed and a.make is None
        ]
        raw["imports"] = bench_imports(installed, ns.repeats)
        sections[5] = report_imports(raw["imports"], installed)

    env = Env(asyncio.new_event_loop())
    asyncio.set_event_loop(env.loop)
    variants: list[Variant] = []
    schema_adapters: list[SchemaAdapter] = []
    for a in adapters:
        if a.make is None:
            continue
        try:
            vs, ss = a.make(env)
        except Exception as e:  # noqa: BLE001 - a missing or broken peer is reported, not fatal
            unavailable.append(f"{a.key}: {type(e).__name__}: {e}")
            print(f"  ! {a.key} unavailable: {e!r}", file=sys.stderr)
            continue
        variants += vs
        schema_adapters += ss
    bench_variants = [v for v in variants if v.bench]

    try:
        if "per-call" not in skip:
            print("## per-call", file=sys.stderr)
            pc = bench_per_call(env, bench_variants, ns.repeats, ns.target_s)
            raw["per_call_us"] = {"|".join(k): s for k, s in pc.items()}
            sections[1] = report_per_call(pc, bench_variants)
        if "concurrency" not in skip:
            print("## concurrency", file=sys.stderr)
            raw["concurrency"] = bench_concurrency(env, bench_variants, ns.repeats, ns.concurrent)
            sections[3] = report_concurrency(raw["concurrency"], ns.concurrent)
        if "schemas" not in skip:
            print("## schemas", file=sys.stderr)
            raw["schemas"] = bench_schemas(schema_adapters, ns.repeats, ns.tools)
            sections[2] = report_schemas(raw["schemas"], schema_adapters, ns.tools)
        if "first-call" not in skip and (not only or "toolrig" in only):
            print("## first call", file=sys.stderr)
            n_first = max(10, min(200, ns.tools // 5))
            fc = bench_first_call(ns.repeats, n_first)
            if fc is not None:
                raw["first_call"] = fc
                sections[2.5] = report_first_call(fc, n_first, ns.repeats)
        if "bad-input" not in skip:
            print("## bad input", file=sys.stderr)
            raw["bad_input"] = bench_bad_input(env, variants)
            sections[4] = report_bad_input(raw["bad_input"])
    finally:
        for close in reversed(env.closers):
            try:
                close()
            except Exception as e:  # noqa: BLE001
                print(f"  ! close failed: {e!r}", file=sys.stderr)
        env.loop.close()

    print("# Peer tool-layer overhead\n")
    print(f"- python {platform.python_version()} ({sys.executable}), {platform.platform()}")
    print(f"- cpus: {os.cpu_count()}; repeats: {ns.repeats}, peers interleaved within each repeat;"
          " cells are median ±(max-min)/2/median")
    print("- versions: " + ", ".join(f"{d}=={v}" for d, v in vers.items()))
    print(f"- command: {' '.join([sys.executable, *sys.argv])}\n")
    for key in sorted(sections):
        print(sections[key])
    if unavailable:
        print("## Not measured\n")
        print("\n".join(f"- {u}" for u in unavailable))
    if ns.json:
        with open(ns.json, "w") as f:
            json.dump(raw, f, indent=1, default=str)


if __name__ == "__main__":
    main()
