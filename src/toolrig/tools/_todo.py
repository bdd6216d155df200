"""``todo``: a task list the agent keeps across steps, stored as JSON in the sandbox.

Each change reads the file, applies the change and writes it back atomically under an exclusive
lock (``fcntl.flock`` on a lock file beside it), so several processes sharing a workspace never
lose each other's updates.
"""

from __future__ import annotations

import fcntl
import json
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, Final, Literal, TypeVar

from typing_extensions import TypedDict

from toolrig.core.define._base import BaseTool, action
from toolrig.core.model._errors import ErrorCode, ToolError
from toolrig.core.model._spec import ToolAnnotations
from toolrig.tools._sandbox import Sandbox

__all__ = ["TodoTool"]

Status = Literal["pending", "in_progress", "done"]
T = TypeVar("T")
_STATUSES: Final = ("pending", "in_progress", "done")
_MAX_FILE_BYTES: Final = 10_000_000


class TodoItem(TypedDict):
    id: int
    title: str
    status: Status
    notes: str
    updated_at: str


class TodoList(TypedDict):
    items: list[TodoItem]
    counts: dict[str, int]
    """Number of items per status."""


class Removed(TypedDict):
    removed: int


class TodoTool(BaseTool):
    """Keep a task list across steps: add tasks, list them, mark them pending, in_progress or
    done, and remove them. Use it to plan multi-step work and track what is left."""

    name = "todo"
    tags = ("planning", "local")
    layer = "tools"
    annotations = ToolAnnotations(read_only=False, destructive=False, open_world=False)

    def __init__(
        self, root: str | os.PathLike[str] | Sandbox, *, file: str = ".toolrig/todo.json"
    ) -> None:
        super().__init__()
        self.sandbox = root if isinstance(root, Sandbox) else Sandbox(root)
        self.path = self.sandbox.resolve(file)
        self._lock = threading.Lock()

    @action(annotations=ToolAnnotations(idempotent=False), output_description="The new task.")
    def add(self, title: str, notes: str = "") -> TodoItem:
        """Add a task (status pending) to the end of the list.

        Args:
            title: What has to be done, in one line.
            notes: Optional details.
        """
        if not title.strip():
            raise ToolError(
                "the title is empty", code=ErrorCode.INVALID_ARGUMENTS, hint="Give a title."
            )

        def change(data: dict[str, Any]) -> TodoItem:
            data["next_id"] = int(data.get("next_id", 1))
            item = TodoItem(
                id=data["next_id"],
                title=title.strip(),
                status="pending",
                notes=notes,
                updated_at=_now(),
            )
            data["next_id"] += 1
            data["items"].append(item)
            return item

        return self._update(change)

    @action(
        name="list",
        annotations=ToolAnnotations(read_only=True, idempotent=True),
        output_description="The tasks in order, and how many there are per status.",
    )
    def list_items(self, status: Status | None = None) -> TodoList:
        """List the tasks, optionally only those with one status.

        Args:
            status: Only tasks with this status (pending, in_progress or done).
        """
        with self._locked():
            data = self._load()
        items: list[TodoItem] = data["items"]
        counts = {s: sum(1 for i in items if i["status"] == s) for s in _STATUSES}
        shown = [i for i in items if status is None or i["status"] == status]
        return TodoList(items=shown, counts=counts)

    @action(
        annotations=ToolAnnotations(idempotent=True),
        output_description="The task after the change.",
    )
    def update(
        self,
        id: int,
        status: Status | None = None,
        title: str | None = None,
        notes: str | None = None,
    ) -> TodoItem:
        """Change a task's status (pending, in_progress, done), title or notes.

        Args:
            id: The task's id (from add or list).
            status: The new status.
            title: A new title.
            notes: New notes (replace the old ones).
        """

        def change(data: dict[str, Any]) -> TodoItem:
            item = _find(data, id)
            if status is not None:
                item["status"] = status
            if title is not None and title.strip():
                item["title"] = title.strip()
            if notes is not None:
                item["notes"] = notes
            item["updated_at"] = _now()
            return item

        return self._update(change)

    @action(
        annotations=ToolAnnotations(destructive=True, idempotent=True),
        output_description="The id removed.",
    )
    def remove(self, id: int) -> Removed:
        """Remove a task from the list.

        Args:
            id: The task's id.
        """

        def change(data: dict[str, Any]) -> Removed:
            item = _find(data, id)
            data["items"].remove(item)
            return Removed(removed=id)

        return self._update(change)

    # -- storage ---------------------------------------------------------------------------
    @contextmanager
    def _locked(self) -> Iterator[None]:
        lock_path = self.path.with_name(self.path.name + ".lock")
        with self._lock:
            dfd = self.sandbox.open_dir(self.path.parent, create=True)
            try:
                flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
                fd = os.open(lock_path.name, flags, 0o666, dir_fd=dfd)
            finally:
                os.close(dfd)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                yield
            finally:
                os.close(fd)

    def _load(self) -> dict[str, Any]:
        try:
            raw = self.sandbox.read_bytes(self.path, _MAX_FILE_BYTES + 1)
        except ToolError as exc:
            if exc.code == ErrorCode.NOT_FOUND:
                return {"next_id": 1, "items": []}
            raise
        if len(raw) > _MAX_FILE_BYTES:
            raise ToolError(
                f"the task list file `{self.sandbox.relative(self.path)}` is over "
                f"{_MAX_FILE_BYTES:,} bytes",
                hint="Remove done tasks, or delete that file to start a new list.",
            )
        try:
            data = json.loads(raw)
        except ValueError:
            raise ToolError(
                f"the task list file `{self.sandbox.relative(self.path)}` is not valid JSON",
                hint="Fix or delete that file to start a new list.",
            ) from None
        if not isinstance(data, dict) or not isinstance(data.get("items"), list):
            raise ToolError(
                f"the task list file `{self.sandbox.relative(self.path)}` has an unknown shape",
                hint="Fix or delete that file to start a new list.",
            )
        return data

    def _update(self, change: Callable[[dict[str, Any]], T]) -> T:
        with self._locked():
            data = self._load()
            result = change(data)
            text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
            self.sandbox.atomic_write(self.path, text.encode("utf-8"), create_dirs=True)
        return result


def _find(data: dict[str, Any], id: int) -> TodoItem:
    for item in data["items"]:
        if item.get("id") == id:
            found: TodoItem = item
            return found
    ids = ", ".join(str(i.get("id")) for i in data["items"]) or "none"
    raise ToolError(
        f"there is no task with id {id}",
        code=ErrorCode.NOT_FOUND,
        hint=f"Existing ids: {ids}. Call list to see the tasks.",
    )


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
