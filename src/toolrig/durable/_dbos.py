"""`DurableEngine` on DBOS: workflows and their steps recorded in PostgreSQL.

DBOS is a library, not a server: each worker process holds one DBOS instance on the system
database, and on launch takes over the workflows left pending by a dead process of the same
executor id and application version (both fixed here, so any worker can take over).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from toolrig.durable._engine import Workflow

__all__ = ["DBOSEngine"]

T = TypeVar("T")

_FOREVER = 10 * 365 * 86400.0
"""How long a held run waits for its decision (DBOS asks for a bound)."""


def _dbos() -> Any:
    try:
        import dbos
    except ImportError as exc:  # pragma: no cover - the extra is installed with the tests
        raise ImportError(
            "durable runs on DBOS need the dbos package: pip install 'toolrig[dbos]'"
        ) from exc
    return dbos


class DBOSEngine:
    """DBOS with its system database at ``url`` (a PostgreSQL DSN).

    ``name`` and ``version`` name the application: workers that share them take over each
    other's workflows. DBOS keeps one instance per process, so a process holds one engine.
    """

    def __init__(self, url: str, *, name: str = "toolrig", version: str = "1") -> None:
        self._dbos = _dbos()
        dbos_class = self._dbos.DBOS
        dbos_class(
            config={
                "name": name,
                "system_database_url": url,
                "application_version": version,
                "executor_id": "toolrig",
                "log_level": "WARNING",
                "notification_listener_polling_interval_sec": 0.05,
            }
        )
        self._class = dbos_class
        self._url = url
        self._bodies: dict[str, Any] = {}
        self._started: dict[str, Any] = {}
        """Handles of the workflows started here and not yet awaited: their result is awaited
        directly, not polled from the database (DBOS polls each second)."""
        self._launched = False

    def register(self, name: str, body: Workflow) -> None:
        async def workflow(*args: Any) -> Any:  # DBOS marks the function: never a bound method
            return await body(*args)

        self._bodies[name] = self._class.workflow(name=name)(workflow)

    async def start(self, name: str, run_id: str, *args: Any) -> None:
        self.recover()
        with self._dbos.SetWorkflowID(run_id):
            handle = await self._class.start_workflow_async(self._bodies[name], *args)
        self._started[run_id] = handle

    async def result(self, run_id: str) -> Any:
        handle = self._started.pop(run_id, None)
        if handle is None:
            handle = await self._class.retrieve_workflow_async(run_id)
        return await handle.get_result()

    async def step(self, name: str, body: Callable[[], Awaitable[T]]) -> tuple[T, bool]:
        ran = False

        async def once() -> T:
            nonlocal ran
            ran = True
            return await body()

        value: T = await self._class.run_step_async({"name": name}, once)
        return value, ran

    def step_key(self) -> str:
        return f"{self._class.workflow_id}#{self._class.step_id}"

    async def wait_signal(self, topic: str) -> Any:
        return await self._class.recv_async(topic, timeout_seconds=_FOREVER)

    async def signal(self, run_id: str, topic: str, value: Any) -> None:
        if self._launched:
            await self._class.send_async(run_id, value, topic)
            return
        # a process that only decides must not take over workflows: a client, not a launch
        client = self._dbos.DBOSClient(system_database_url=self._url)
        try:
            await client.send_async(run_id, value, topic)
        finally:
            client.destroy()

    def recover(self) -> None:
        if not self._launched:
            self._launched = True
            self._class.launch()

    def close(self) -> None:
        """Stop this process's DBOS (its workflows stay pending, for another worker)."""
        self._class.destroy()
        self._launched = False
