"""The seam between toolrig's durable runs and the engine that keeps them.

A durable run is a workflow: a function the engine may drive again from its start in another
process after a crash, whose steps' results it recorded, so a replay gets each finished step's
result back instead of running it again. toolrig needs five things of an engine and nothing
more; DBOS gives them (`DBOSEngine`), and an adapter for another engine (Temporal, Prefect) is
one class with these methods (see docs/agent/durable.md).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

__all__ = ["DurableEngine", "Workflow"]

T = TypeVar("T")

Workflow = Callable[..., Awaitable[Any]]
"""A workflow's body: ``await body(*args)``; deterministic but for its steps."""


class DurableEngine(Protocol):
    """What the durable runner asks of an engine."""

    def register(self, name: str, body: Workflow) -> None:
        """Know ``body`` as the workflow ``name`` (every worker registers the same ones,
        before `recover`)."""
        ...

    async def start(self, name: str, run_id: str, *args: Any) -> None:
        """Start workflow ``name`` with id ``run_id`` (starting an id twice starts it once)."""
        ...

    async def result(self, run_id: str) -> Any:
        """Wait for the workflow ``run_id`` to end; what its body returned."""
        ...

    async def step(self, name: str, body: Callable[[], Awaitable[T]]) -> tuple[T, bool]:
        """Run ``body`` as the workflow's next step, or give back its recorded result; the
        flag says whether it ran now."""
        ...

    def step_key(self) -> str:
        """Inside a step: a key for it that a replay of the workflow gives again."""
        ...

    async def wait_signal(self, topic: str) -> Any:
        """Inside a workflow: the next signal sent to it on ``topic`` (kept while no process
        runs the workflow, and received once)."""
        ...

    async def signal(self, run_id: str, topic: str, value: Any) -> None:
        """Send ``value`` to the workflow ``run_id`` on ``topic``."""
        ...

    def recover(self) -> None:
        """Take over the workflows whose process died, and drive them on (in the background)."""
        ...
