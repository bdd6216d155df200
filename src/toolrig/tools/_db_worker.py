"""The worker side of ``db_tool`` on SQLite: what a query worker process runs.

A worker is forked by the fork server (`toolrig.tools._fork_call`), which unpickles
`QueriesInWorker` from the tool's class (pickled by reference) and settings alone: the tool
is rebuilt there, once, so each worker starts with it built and opens its own read-only
connection. A tool made in such a process runs its queries itself (`queries_run_here`): it is
the worker.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

__all__ = ["QueriesInWorker", "queries_run_here"]

queries_run_here = False
"""True in a query worker's process, whose tools run their queries themselves."""


class QueriesInWorker:
    """Answers ``(sql, values, cap)`` with the tool (a ``DbTool``) rebuilt from its settings
    where it is unpickled (the fork server)."""

    def __init__(self, tool_class: type[Any], settings: dict[str, Any]) -> None:
        self.tool_class = tool_class
        self.settings = settings
        self._tool: Any = None

    def __getstate__(self) -> dict[str, Any]:
        return {"tool_class": self.tool_class, "settings": self.settings}

    def __setstate__(self, state: dict[str, Any]) -> None:
        global queries_run_here
        queries_run_here = True
        self.tool_class = state["tool_class"]
        self.settings = state["settings"]
        self._tool = self.tool_class(**self.settings)

    def __call__(self, request: tuple[str, dict[str, Any], int]) -> Any:
        if self._tool is None:  # pragma: no cover - always built when unpickled
            raise RuntimeError("a query worker's tool is built where it is unpickled")
        sql, values, cap = request
        return self._tool._query(sa.text(sql), values, cap, names=None, stream=False)
