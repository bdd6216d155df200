"""Where one attempt of a call runs: a `Runner` per kind.

The pipeline picks one per call (`Placement.runner_for`): a queue when a dispatcher
claims the call, a child process for ``isolation="process"``, the event loop for async
actions, a worker thread for sync ones, or the caller's own thread on the blocking path. A
runner runs one attempt and nothing else: the time limit, retries and output checks are the
pipeline's, the same for every runner.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, Protocol

from toolrig.core.context._context import ToolContext
from toolrig.core.model._on_first_use import lazy_logger
from toolrig.runtime._call import Call, Runner
from toolrig.runtime._threads import WorkerPool, grace_for

if TYPE_CHECKING:
    from toolrig.runtime._process import ProcessRunner

__all__ = [
    "INLINE",
    "AsyncRunner",
    "Dispatcher",
    "InlineRunner",
    "Placement",
    "ThreadRunner",
]

logger = lazy_logger("toolrig.executor")


class InlineRunner:
    """Calls a sync action in the caller's thread (the blocking path: nothing suspends)."""

    inline = True
    bounded = False

    async def attempt(self, call: Call, ctx: ToolContext | None) -> Any:
        return call.target.call(call.arguments, ctx)


class AsyncRunner:
    """Awaits an async action on the caller's event loop."""

    inline = False
    bounded = False

    async def attempt(self, call: Call, ctx: ToolContext | None) -> Any:
        return await call.target.call(call.arguments, ctx)


class ThreadRunner:
    """Runs a sync action on a worker thread of ``pool`` (an overdue one is abandoned)."""

    inline = False
    bounded = False

    def __init__(self, pool: WorkerPool) -> None:
        self.pool = pool

    async def attempt(self, call: Call, ctx: ToolContext | None) -> Any:
        return await self.pool.call(call.target.call, call.arguments, ctx, grace=grace_for(ctx))


INLINE: Final = InlineRunner()
_ASYNC: Final = AsyncRunner()


class Dispatcher(Protocol):
    """Sends calls to other machines: the runner of the calls it claims."""

    def queue_of(self, call: Call) -> str | None:
        """The queue ``call`` runs on, or ``None`` to run it here."""
        ...

    def runner(self, queue: str) -> Runner:
        """The runner sending attempts to ``queue``."""
        ...


class Placement:
    """Chooses each call's runner; owns the worker threads and child processes.

    A tool runs where its spec says (``isolation``, ``runs_on``, as YAML and ``@tool`` declare
    it) unless ``overrides`` names it: ``{"tool": "thread" | "process" | "queue:NAME"}``, the
    executor's own decision about where its calls run.
    """

    def __init__(self, max_workers: int, overrides: Mapping[str, str] | None = None) -> None:
        self.threads = WorkerPool(max_workers)
        self.thread_runner = ThreadRunner(self.threads)
        self._max_workers = max_workers
        self._processes: ProcessRunner | None = None
        self._making = threading.Lock()
        self.dispatcher: Dispatcher | None = None
        self.overrides: dict[str, str] = dict(overrides or {})
        for tool, where in self.overrides.items():
            if where not in ("thread", "process") and not (
                where.startswith("queue:") and len(where) > len("queue:")
            ):
                raise ValueError(
                    f"placement of {tool!r} must be 'thread', 'process' or 'queue:NAME', "
                    f"not {where!r}"
                )
        self._unserved: set[str] = set()

    @property
    def processes(self) -> ProcessRunner:
        """The child processes of ``isolation="process"`` calls, made on the first such call
        (the module forking them imports ``concurrent.futures``, ``signal`` and ``queue``)."""
        with self._making:  # one runner, whichever thread asks first: it caps the children
            if self._processes is None:
                from toolrig.runtime._process import ProcessRunner

                self._processes = ProcessRunner(self._max_workers)
            return self._processes

    def runner_for(self, call: Call) -> Runner:
        """Where ``call``'s attempts run."""
        spec = call.owner.spec
        if self.dispatcher is None and not self.overrides and spec.runs_on is None:
            if spec.isolation == "process":  # the common case, decided from the spec alone
                return self.processes
            return _ASYNC if call.target.is_async else self.thread_runner
        where = self.overrides.get(spec.name)
        queue = where[len("queue:") :] if where and where.startswith("queue:") else None
        if where is None:
            queue = spec.runs_on
        if self.dispatcher is not None:
            claimed = self.dispatcher.queue_of(call) if where is None else queue
            if claimed is not None:
                return self.dispatcher.runner(claimed)
        elif queue is not None:
            self._warn_unserved(spec.name, queue)
        if where == "process" or (where is None and spec.isolation == "process"):
            return self.processes
        if where == "thread" and not call.target.is_async:
            return self.thread_runner
        if call.target.is_async:
            return _ASYNC
        return self.thread_runner

    def _warn_unserved(self, tool: str, queue: str) -> None:
        """Say once per tool that its queue has no dispatcher, so it runs here."""
        if tool not in self._unserved:
            self._unserved.add(tool)
            logger.warning(
                "tool %r asks to run on queue %r, but no dispatcher is installed on this "
                "executor: it runs here (install one with executor.dispatch_with(...))",
                tool,
                queue,
            )


def pause_inline(delay: float) -> None:
    """Wait in the caller's thread (retries on the blocking path have no loop to yield to)."""
    time.sleep(delay)
