"""Replace many tools of a :class:`~toolrig.ToolExecutor` in one atomic step.

Loading a folder or a file that holds several tools needs all of them swapped in at once;
:meth:`ToolExecutor.swap` does it, and calls already running keep the tool they looked up.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from toolrig.core.base import BaseTool
from toolrig.runtime.executor import ToolExecutor

__all__ = ["swap_tools"]


def swap_tools(
    executor: ToolExecutor, add: Sequence[BaseTool], remove: Collection[str] = ()
) -> None:
    """Register ``add`` (replacing tools of the same names) and drop ``remove``, atomically."""
    executor.swap(add, remove)
