"""Tools defined in a Python file, for ``toolrig serve tools.py``.

The file is imported as a module (once per path). It defines ``tools``: a list of tools (or a
catalogue); it may also define ``resources``, an MCP server (the SDK's ``MCPServer``) whose
resources, prompts and completions are served beside the tools, and ``completers``
(``{tool: {argument: completer}}``) for completing tool arguments, and ``tasks`` (a
``toolrig.mcp.TaskPolicy``: which tools MCP clients call as tasks).
"""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolrig.cli._output import CliError

__all__ = ["PythonTools", "is_python_file", "load_python_tools", "python_server_options"]

_LOADED: dict[Path, PythonTools] = {}


@dataclass(frozen=True, slots=True, kw_only=True)
class PythonTools:
    """What a Python tools file offers."""

    tools: list[Any]
    resources: Any = None
    completers: dict[str, Any] = field(default_factory=dict)
    tasks: Any = None


def is_python_file(path: str | Path) -> bool:
    """True for a ``.py`` file."""
    return Path(path).suffix == ".py" and Path(path).is_file()


def load_python_tools(path: str | Path) -> PythonTools:
    """Import ``path`` (once) and return what it defines; `CliError` when it cannot be
    imported or defines no ``tools``."""
    resolved = Path(path).resolve()
    if resolved in _LOADED:
        return _LOADED[resolved]
    name = f"toolrig_tools_{abs(hash(resolved))}"
    spec = importlib.util.spec_from_file_location(name, resolved)
    if spec is None or spec.loader is None:
        raise CliError(f"{path}: cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise CliError(f"{path}: importing it failed: {type(exc).__name__}: {exc}") from exc
    tools = getattr(module, "tools", None)
    if tools is None:
        raise CliError(f"{path}: defines no `tools` (a list of tools, or a catalogue)")
    listed = list(tools.tools()) if hasattr(tools, "tools") else list(tools)
    loaded = PythonTools(
        tools=listed,
        resources=getattr(module, "resources", None),
        completers=dict(getattr(module, "completers", None) or {}),
        tasks=getattr(module, "tasks", None),
    )
    _LOADED[resolved] = loaded
    return loaded


def python_server_options(paths: list[str]) -> dict[str, Any]:
    """The ``ToolServer`` keywords (``resources``, ``completers``) the Python files among
    ``paths`` define (the first ``resources`` given wins)."""
    options: dict[str, Any] = {}
    completers: dict[str, Any] = {}
    for raw in paths:
        if not is_python_file(raw):
            continue
        loaded = load_python_tools(raw)
        if loaded.resources is not None and "resources" not in options:
            options["resources"] = loaded.resources
        completers.update(loaded.completers)
        if loaded.tasks is not None and "tasks" not in options:
            options["tasks"] = loaded.tasks
    if completers:
        options["completers"] = completers
    return options
