"""``import toolrig`` loads what a first call needs and nothing more: the modules below are
imported on first use. Checked in a fresh interpreter (``sys.modules`` after the import)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

LAZY = (
    # standard library only some calls need
    "pickle",  # results of process-isolated calls (runtime/_process.py, before its fork)
    "ctypes",  # abandoning a thread at its timeout (runtime/_threads.py)
    "sqlite3",  # the execution log
    "multiprocessing",
    "asyncio",  # an async call runs where asyncio is loaded already; sync calls never need it
    "concurrent.futures",
    "ssl",
    "socket",
    "subprocess",
    "logging",  # the executor's loggers are made when a call first writes to one
    "traceback",
    "toolrig.runtime._process",  # the first process-isolated call
    # the models of specs, options and declared parameters, and pydantic's ``Field``
    # machinery behind them (annotated_types, pydantic.types): the first tool defined
    "pydantic.fields",
    "annotated_types",
    "toolrig.core.model._options",
    "toolrig.core.model._spec",
    "toolrig.core.schema._params",
    "toolrig.core.define._action_schema",
    "toolrig.core.define._signature",  # reading a function's signature: the first @tool
    # third-party parts of schema-defined tools and YAML catalogues
    "jsonschema_rs",  # the first JSON-Schema-defined tool
    "yaml",  # the first YAML definition
    # the layers above the core, each imported on first use of its names
    "toolrig.registry._registry",
    "toolrig.registry._yamlsrc",
    "toolrig.agent",
    "toolrig.providers",
    "toolrig.storage",
    "toolrig.mcp",
    "toolrig.search",
    "toolrig.tools",
    "toolrig.runtime._plan",
    # SDKs and clients
    "httpx",
    "mcp",
    "openai",
    "anthropic",
    "numpy",
    "opentelemetry",
)


def loaded_after(statement: str) -> set[str]:
    code = f"import json, sys\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout))


def test_import_toolrig_leaves_the_lazy_modules_unloaded() -> None:
    assert sorted(set(LAZY) & loaded_after("import toolrig")) == []


def test_a_first_sync_call_loads_neither_asyncio_nor_logging() -> None:
    loaded = loaded_after(
        "from toolrig import ToolExecutor, tool\n"
        "def add(a: int, b: int) -> int:\n"
        "    return a + b\n"
        "assert ToolExecutor([tool(add)]).execute_sync('add', {'a': 1, 'b': 2}).output == 3"
    )
    assert sorted({"asyncio", "logging"} & loaded) == []


@pytest.mark.parametrize(
    ("statement", "module"),
    [
        ("import toolrig; toolrig.Registry", "toolrig.registry._registry"),
        ("import toolrig; toolrig.ToolSpec", "toolrig.core.model._spec"),
        ("import toolrig; toolrig.ActionSchema", "toolrig.core.define._action_schema"),
        ("import toolrig; toolrig.ToolParameter", "toolrig.core.schema._params"),
        ("from toolrig import tool\ntool(lambda: 1, name='one')", "toolrig.core.define._signature"),
        ("from toolrig import tool\ntool(lambda: 1, name='one')", "pydantic.fields"),
        (
            "from toolrig import Tool\n"
            "Tool('t', 'd', {'type': 'object', 'properties': {}}, lambda: 1)",
            "jsonschema_rs",
        ),
        (
            "from toolrig import ToolExecutor, tool\n"
            "def boom() -> int:\n"
            "    raise ValueError('no')\n"
            "assert ToolExecutor([tool(boom)]).execute_sync('boom', {}).code == 'execution_error'",
            "logging",
        ),
        (
            "from toolrig import ToolExecutor, tool\n"
            "async def add(a: int, b: int) -> int:\n"
            "    return a + b\n"
            "ToolExecutor([tool(add)]).execute_many_sync([('add', {'a': 1, 'b': 2})])",
            "asyncio",
        ),
        (
            "from toolrig import ToolExecutor, tool\n"
            "def add(a: int, b: int) -> int:\n"
            "    return a + b\n"
            "ToolExecutor([tool(isolation='process')(add)]).execute_sync('add', {'a': 1, 'b': 2})",
            "toolrig.runtime._process",
        ),
        (
            "import threading, toolrig\n"
            "from toolrig.runtime._threads import _clear_interrupt\n"
            "_clear_interrupt(threading.get_ident())",
            "ctypes",
        ),
    ],
)
def test_each_lazy_module_arrives_with_its_first_use(statement: str, module: str) -> None:
    assert module in loaded_after(statement)  # the list above names modules that do load


def test_logging_configured_after_the_first_call_is_followed() -> None:
    code = (
        "from toolrig import ToolExecutor, tool\n"
        "def add(a: int, b: int) -> int:\n"
        "    return a + b\n"
        "executor = ToolExecutor([tool(add)])\n"
        "executor.execute_sync('add', {'a': 1, 'b': 2})\n"  # before logging is imported
        "import logging\n"
        "logging.basicConfig(level=logging.DEBUG, format='%(name)s %(message)s')\n"
        "executor.execute_sync('add', {'a': 1, 'b': 2})\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stderr.splitlines() == ["toolrig.executor add succeeded"]
