"""Each subpackage's public surface is deliberate: adding or removing a name must be a visible
change here.

Modules are private (``_name.py``) and each subpackage exposes its API only through its
``__init__``: its ``__all__`` is pinned below, every name in it resolves, no module path is
public except the ones listed, and every public name the package binds is in ``__all__``
(names loaded on first use too).
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import toolrig

SURFACES: dict[str, set[str]] = {
    "toolrig.registry": {
        "ActionDefinition",
        "Catalog",
        "ChangeEvent",
        "ChangeKind",
        "DependencyCycleError",
        "DependencyError",
        "IntentMap",
        "IntentNotFoundError",
        "LoadError",
        "LoadReport",
        "MissingDependencyError",
        "PlanCost",
        "Registry",
        "RegistryLoadError",
        "ToolDefinition",
        "Watcher",
        "YamlSource",
        "default_registry",
        "register_tool",
    },
    "toolrig.runtime": {
        "DEFAULT_RESULT_CHARS",
        "UNSET",
        "Call",
        "CallNext",
        "CallPolicy",
        "DEFAULT_TIMEOUT",
        "TIMEOUT_ENV",
        "EventKind",
        "GuardrailOutcome",
        "GuardrailScope",
        "InputGuardrail",
        "OutputGuardrail",
        "Verdict",
        "secret_scanner",
        "size_check",
        "Listener",
        "Middleware",
        "Pipeline",
        "Plan",
        "PlanCheck",
        "PlanError",
        "PlanResult",
        "PlanRunner",
        "PlanStep",
        "PostHook",
        "PreHook",
        "RetryPolicy",
        "StepEvent",
        "StepStatus",
        "ToolCall",
        "ToolEvent",
        "ToolExecutor",
        "Unset",
        "default_executor",
        "disable_tracing",
        "enable_tracing",
        "read_result",
        "result_budget",
    },
    "toolrig.providers": {
        "ExportedAction",
        "NameMap",
        "ParsedCall",
        "Provider",
        "SchemaNormalizedWarning",
        "SchemaRewriteError",
        "StrictSchemaError",
        "ToolSource",
        "assistant_turn",
        "execute_calls",
        "execute_calls_sync",
        "format_anthropic_results",
        "format_gemini_results",
        "format_mcp_result",
        "format_openai_chat_results",
        "format_openai_responses_results",
        "from_langchain_tool",
        "mcp_output_schema",
        "parse_anthropic_calls",
        "parse_gemini_calls",
        "parse_mcp_call",
        "parse_openai_chat_calls",
        "parse_openai_responses_calls",
        "parse_tool_calls",
        "provider_safe_name",
        "run_tool_calls",
        "run_tool_calls_sync",
        "to_anthropic_tools",
        "to_gemini_declarations",
        "to_gemini_tool",
        "to_langchain_tools",
        "to_mcp_tools",
        "to_openai_chat_tools",
        "to_openai_responses_tools",
        "to_strict_schema",
        "tool_from_function_definition",
        "tools_from_function_definitions",
    },
    "toolrig.storage": {
        "ExecutionLog",
        "ExecutionRecord",
        "LogSessionStore",
        "LogWriteWarning",
        "MemorySessionStore",
        "PostgresExecutionLog",
        "RecordStatus",
        "RequestLog",
        "RequestPair",
        "RunInfo",
        "RunStatus",
        "StoredDecision",
        "SQLiteExecutionLog",
        "SessionConflict",
        "SessionState",
        "SessionStore",
        "WriteFailure",
        "default_log_path",
        "open_log",
    },
    "toolrig.search": {
        "BM25FParams",
        "SearchConfig",
        "SearchFilters",
        "SearchHit",
        "ToolIndex",
        "attach",
        "detach",
        "meta_tools",
        "select_tools_for_intent",
        "tools_for_turn",
    },
    "toolrig.agent": {
        "Agent",
        "AgentEvent",
        "AgentResult",
        "GuardrailTripped",
        "AgentRunError",
        "AgentStep",
        "AllowForSession",
        "AlreadyDecided",
        "Answer",
        "ApprovalPolicy",
        "ApprovalRequired",
        "CatalogToolset",
        "Conversation",
        "Decision",
        "Deny",
        "Edit",
        "FallbackModel",
        "FinalOutput",
        "LLMClient",
        "LLMConfig",
        "LLMConfigError",
        "LLMTurn",
        "ModelPrice",
        "ModelsFailed",
        "NextAction",
        "PartialOutput",
        "PendingCall",
        "RunContext",
        "RunLimits",
        "StreamEvent",
        "TextDelta",
        "ToolCallFinished",
        "ToolCallStarted",
        "ToolEntry",
        "Toolset",
        "Usage",
        "attempt_completion",
        "decide_next_action",
        "make_client",
    },
    "toolrig.testing": {
        "FunctionModel",
        "ModelRequest",
        "ModelScriptError",
        "ModelTurn",
        "ScriptedModel",
        "TurnFunction",
    },
    "toolrig.distributed": {
        "CeleryEngine",
        "EngineUnavailable",
        "QueueRule",
        "RemoteCall",
        "RemoteDispatch",
        "RemoteEngine",
        "catalog_version",
        "celery_app",
        "tool_fingerprint",
    },
    "toolrig.durable": {
        "DECISION",
        "DBOSEngine",
        "DurableAgent",
        "DurableEngine",
        "DurablePlan",
        "DurableSteps",
        "StepLedger",
        "Workflow",
        "may_repeat",
    },
    "toolrig.mcp": {
        "ERROR_META_KEY",
        "BearerTokenMiddleware",
        "InMemoryEventStore",
        "InputRounds",
        "MCPToolSource",
        "MemoryTokenStorage",
        "ResourceAuth",
        "ScopePolicy",
        "ServeOptions",
        "ServerParams",
        "TASK_FAILED",
        "TaskPolicy",
        "ToolServer",
        "UnsafeBindError",
        "add_mcp_server",
        "add_mcp_server_async",
        "check_bind",
        "http_app",
        "serve",
        "serve_async",
        "serve_http",
        "serve_stdio",
    },
    "toolrig.tools": {
        # local work
        "DocumentTool",
        "DownloadTool",
        "FileTool",
        "Sandbox",
        "SearchReplaceTool",
        "SearchTool",
        "ShellTool",
        "TodoTool",
        "attempt_completion",
        "Budget",
        # the outside world (loaded on first use)
        "BrowserTool",
        "DbTool",
        "LLMTool",
        "NetPolicy",
        "WebTool",
        "SearchBackend",
        "BraveBackend",
        "DuckDuckGoBackend",
        "SearxngBackend",
        "TavilyBackend",
        "HeaderAuth",
        "openapi_tool",
    },
    "toolrig.tools.rag": {
        "Chunk",
        "Embedder",
        "IndexOutput",
        "RagStore",
        "RagTool",
        "SearchRagOutput",
        "StoredHit",
        "chunk_text",
        "search_model_embedder",
    },
    "toolrig.cli": set(),
    "toolrig.console": {
        "UnsafeConsoleBind",
        "app",
        "stored_decisions",
        "wait_for_decisions",
    },
    # The everyday core names are re-exported by ``toolrig``; the package adds a few more.
    # the core's rooms: internal packages, entered only through their private modules (their
    # faces toward other layers are pinned in tests/layer_faces.py); nothing public
    "toolrig.core.context": set(),
    "toolrig.core.define": set(),
    "toolrig.core.model": set(),
    "toolrig.core.result": set(),
    "toolrig.core.schema": set(),
    "toolrig.core": {
        "Action",
        "ActionOptions",
        "Audio",
        "Content",
        "Elicitation",
        "Elicitor",
        "EmbeddedResource",
        "Image",
        "ResourceLink",
        "Interaction",
        "Listeners",
        "LogLevel",
        "LogSink",
        "Outcome",
        "Sampler",
        "TextContent",
        "ToolOptions",
        "ToolRunner",
        "tool_interaction",
    },
}
"""Each subpackage's ``__all__``."""

PUBLIC_MODULES: dict[str, set[str]] = {
    "toolrig.cli": {"main"},  # the ``toolrig`` script's entry point; ``python -m toolrig.cli.main``
    "toolrig.tools": {"rag"},  # a subpackage with a surface of its own
}
"""The only module paths users may import in each subpackage, besides the package itself."""

ROOMS: dict[str, set[str]] = {"toolrig.core": {"context", "define", "model", "result", "schema"}}
"""Packages that only group private modules (the core's rooms): no public name, no public
module; pinned above with empty surfaces."""

PRIVATE_MODULES = sorted(SURFACES)
"""The subpackages whose modules are all private but for :data:`PUBLIC_MODULES`."""

LAZY: dict[str, set[str]] = {
    "toolrig.core": {"ActionOptions", "ToolOptions"},
    "toolrig.registry": {
        "ActionDefinition",
        "DependencyCycleError",
        "DependencyError",
        "IntentMap",
        "IntentNotFoundError",
        "LoadError",
        "LoadReport",
        "MissingDependencyError",
        "PlanCost",
        "Registry",
        "RegistryLoadError",
        "ToolDefinition",
        "Watcher",
        "YamlSource",
        "default_registry",
        "register_tool",
    },
    "toolrig.runtime": {
        "read_result",
        "Plan",
        "PlanCheck",
        "PlanError",
        "PlanResult",
        "PlanRunner",
        "PlanStep",
        "StepEvent",
        "StepStatus",
    },
    "toolrig.storage": {"PostgresExecutionLog"},
    "toolrig.tools": {
        "BraveBackend",
        "BrowserTool",
        "DbTool",
        "DuckDuckGoBackend",
        "LLMTool",
        "SearchBackend",
        "SearxngBackend",
        "TavilyBackend",
        "WebTool",
        "HeaderAuth",
        "openapi_tool",
    },
}
"""The names each package loads on first use (its ``_LAZY`` table)."""

ROOT = Path(toolrig.__file__).parent


def _package(name: str) -> ModuleType:
    return importlib.import_module(name)


def _public_bound(module: ModuleType) -> set[str]:
    """The public names bound in ``module`` that are not modules."""
    return {
        name
        for name, value in vars(module).items()
        if not name.startswith("_") and not isinstance(value, ModuleType)
    }


def test_every_subpackage_is_pinned() -> None:
    found = {
        "toolrig." + ".".join(init.parent.relative_to(ROOT).parts)
        for init in ROOT.rglob("__init__.py")
        if init.parent != ROOT
    }
    assert found == set(SURFACES)


@pytest.mark.parametrize("name", sorted(SURFACES))
def test_exported_members(name: str) -> None:
    package = _package(name)
    exported = list(getattr(package, "__all__", []))
    assert len(exported) == len(set(exported)), f"{name}.__all__ lists a name twice"
    assert set(exported) == SURFACES[name]
    for member in exported:
        assert getattr(package, member) is not None, f"{name}.{member}"


@pytest.mark.parametrize("name", PRIVATE_MODULES)
def test_modules_are_private(name: str) -> None:
    folder = ROOT.joinpath(*name.split(".")[1:])
    public = {
        path.stem if path.is_file() else path.name
        for path in folder.iterdir()
        if not path.name.startswith("_")
        and ((path.is_file() and path.suffix == ".py") or (path / "__init__.py").is_file())
    }
    assert public - ROOMS.get(name, set()) == PUBLIC_MODULES.get(name, set())


@pytest.mark.parametrize("name", sorted(SURFACES))
def test_every_public_name_is_exported(name: str) -> None:
    package = _package(name)
    exported = set(getattr(package, "__all__", []))
    assert _public_bound(package) <= exported
    lazy = set(getattr(package, "_LAZY", {}))
    assert lazy == LAZY.get(name, set())
    assert lazy <= exported
    for member in sorted(lazy):  # once loaded, a lazy name is bound like the others
        getattr(package, member)
    assert _public_bound(package) == exported


def test_the_public_modules_import() -> None:
    for package, modules in PUBLIC_MODULES.items():
        for module in modules:
            assert isinstance(importlib.import_module(f"{package}.{module}"), ModuleType)


def test_names_loaded_on_first_use_stay_unloaded_on_import() -> None:
    code = (
        "import sys, toolrig, toolrig.tools;"
        "assert 'toolrig.runtime._plan_run' not in sys.modules;"
        "assert 'toolrig.tools._db' not in sys.modules and 'sqlalchemy' not in sys.modules;"
        "assert 'toolrig.tools._browser' not in sys.modules;"
        "from toolrig.tools import DbTool; from toolrig.runtime import PlanRunner;"
        "assert 'toolrig.tools._db' in sys.modules and 'toolrig.runtime._plan_run' in sys.modules;"
        "print(DbTool.__name__, PlanRunner.__name__)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["DbTool", "PlanRunner"]
