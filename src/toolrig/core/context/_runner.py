"""The seam through which a tool object runs a call of its own (``Tool.run``, ``BaseTool.execute``).

The core defines tools but not how calls run: timeouts, retries, hooks and middleware belong to
the one call pipeline in :mod:`toolrig.runtime`, which installs itself here when it is imported
(``import toolrig`` always imports it). So a tool called directly gets exactly the guarantees of
a call through an executor, and the core never imports the layer above it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from toolrig.core.result._result import ToolResult

__all__ = ["ToolRunner", "default_runner", "install_runner"]


class ToolRunner(Protocol):
    """Runs one call of a given tool object through the call pipeline.

    ``tool`` is a :class:`~toolrig.BaseTool` (typed loosely here: the tool class depends on this
    seam, not the other way round).
    """

    def run_tool_sync(
        self,
        tool: Any,
        action: str,
        arguments: Mapping[str, Any] | str | None,
        *,
        strict: bool | None = None,
        tool_call_id: str | None = None,
    ) -> ToolResult:
        """Blocking: the call's result."""
        ...

    async def run_tool(
        self,
        tool: Any,
        action: str,
        arguments: Mapping[str, Any] | str | None,
        *,
        strict: bool | None = None,
        tool_call_id: str | None = None,
    ) -> ToolResult:
        """The call's result, awaited."""
        ...


_runner: ToolRunner | None = None


def install_runner(runner: ToolRunner) -> None:
    """Make ``runner`` the one tool objects use to run their own calls."""
    global _runner
    _runner = runner


def default_runner() -> ToolRunner:
    """The installed runner (the runtime's default executor)."""
    if _runner is None:
        # ``toolrig/__init__`` imports the runtime, so this only happens when the core is loaded
        # by a path that bypasses the package (such as a bare ``importlib`` of a core module).
        raise RuntimeError("no call pipeline is installed: `import toolrig` first")
    return _runner
