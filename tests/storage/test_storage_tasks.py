"""MCP tasks in the execution log, on each backend: the row a task's owner writes, a
cancellation or answers another process leaves for it, a cancellation that holds against a
later write, and the expiry of ended tasks."""

from __future__ import annotations

import time
import uuid

from toolrig.storage import ExecutionLog
from toolrig.storage._tasks import LogTasks, TaskRow

RUN = uuid.uuid4().hex[:8]  # the PostgreSQL database is shared by the session's tests


def _row(task_id: str, status: str = "working", **changes: object) -> TaskRow:
    now = time.time()
    fields: dict[str, object] = {
        "task_id": task_id,
        "tool": "count",
        "status": status,
        "created_at": now,
        "updated_at": now,
        "ttl_ms": 60_000,
        "poll_interval_ms": 100,
        "owner": "host:1:ab",
        "heartbeat": now,
        **changes,
    }
    return TaskRow(**fields)  # type: ignore[arg-type]


def test_a_task_row_round_trips_and_its_owner_gets_what_others_leave(log: ExecutionLog) -> None:
    tasks = LogTasks(log)
    asked = {"q": {"method": "elicitation/create", "params": {"message": "Name?"}}}
    tasks.save(_row(f"{RUN}-t1", "input_required", input_requests=asked))
    tasks.deliver(f"{RUN}-t1", {"q": {"action": "accept", "content": {"v": "Ada"}}})
    seen = tasks.load(f"{RUN}-t1")
    assert seen is not None and seen.status == "working" and seen.input_requests == {}
    assert tasks.take(f"{RUN}-t1") == {"q": {"action": "accept", "content": {"v": "Ada"}}}
    assert tasks.take(f"{RUN}-t1") == {}  # taken once
    done = {"content": [{"type": "text", "text": "ok"}], "isError": False}
    tasks.save(_row(f"{RUN}-t1", "completed", result=done))
    loaded = tasks.load(f"{RUN}-t1")
    assert loaded is not None and loaded.result == done and loaded.error is None
    assert tasks.load(f"{RUN}-missing") is None


def test_a_cancellation_holds_against_the_owners_later_writes(log: ExecutionLog) -> None:
    tasks = LogTasks(log)
    tasks.save(_row(f"{RUN}-t2"))
    tasks.cancel(f"{RUN}-t2")
    tasks.save(_row(f"{RUN}-t2", "input_required"))  # written before the owner saw the cancellation
    row = tasks.load(f"{RUN}-t2")
    assert row is not None and row.status == "cancelled"
    tasks.save(_row(f"{RUN}-t3", "completed"))
    tasks.cancel(f"{RUN}-t3")  # an ended task stays as it ended
    ended = tasks.load(f"{RUN}-t3")
    assert ended is not None and ended.status == "completed"


def test_ended_tasks_expire_after_their_ttl_running_ones_never(log: ExecutionLog) -> None:
    tasks = LogTasks(log)
    old = time.time() - 120
    tasks.save(_row(f"{RUN}-ended", "failed", updated_at=old))
    tasks.save(_row(f"{RUN}-running", "working", updated_at=old))
    tasks.expire(time.time())
    assert tasks.load(f"{RUN}-ended") is None and tasks.load(f"{RUN}-running") is not None
    listed = [row.task_id for row in tasks.listed()]
    assert f"{RUN}-running" in listed and f"{RUN}-ended" not in listed
