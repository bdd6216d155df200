"""todo and attempt_completion."""

from __future__ import annotations

import json
from pathlib import Path

from toolrig import ToolExecutor
from toolrig.tools import TodoTool, attempt_completion


def test_add_list_update_remove_and_persistence(tmp_path: Path) -> None:
    todo = TodoTool(tmp_path)
    first = todo.execute("add", title="Write tests", notes="cover errors").unwrap()
    second = todo.execute("add", title="Ship").unwrap()
    assert (first["id"], first["status"], second["id"]) == (1, "pending", 2)
    moved = todo.execute("update", id=1, status="in_progress").unwrap()
    assert moved["status"] == "in_progress" and moved["title"] == "Write tests"
    listed = todo.execute("list").unwrap()
    assert [i["id"] for i in listed["items"]] == [1, 2]
    assert listed["counts"] == {"pending": 1, "in_progress": 1, "done": 0}
    todo.execute("update", id=2, status="done", title="Ship it")
    done = todo.execute("list", status="done").unwrap()["items"]
    assert [(i["id"], i["title"]) for i in done] == [(2, "Ship it")]
    assert todo.execute("remove", id=1).unwrap() == {"removed": 1}
    # A new tool on the same folder sees the same list; ids are never reused.
    again = TodoTool(tmp_path)
    assert [i["id"] for i in again.execute("list").unwrap()["items"]] == [2]
    assert again.execute("add", title="Next").unwrap()["id"] == 3
    stored = json.loads((tmp_path / ".toolrig" / "todo.json").read_text())
    assert [i["id"] for i in stored["items"]] == [2, 3]


def test_errors(tmp_path: Path) -> None:
    todo = TodoTool(tmp_path)
    missing = todo.execute("update", id=7, status="done")
    assert missing.code == "not_found" and "Existing ids: none" in missing.error.hint
    assert todo.execute("update", id=1, status="finished").code == "invalid_arguments"
    assert todo.execute("add", title="  ").code == "invalid_arguments"
    assert todo.execute("remove", id=3).code == "not_found"
    (tmp_path / ".toolrig" / "todo.json").write_text("{broken")
    broken = todo.execute("list")
    assert broken.code == "execution_error" and "not valid JSON" in broken.error.message
    annotations = todo.spec.action_annotations
    assert annotations("list").read_only is True and annotations("remove").destructive is True


def test_file_location_is_configurable_and_sandboxed(tmp_path: Path) -> None:
    todo = TodoTool(tmp_path, file="plan/tasks.json")
    todo.execute("add", title="x")
    assert (tmp_path / "plan" / "tasks.json").exists()
    import pytest

    from toolrig import ToolError

    with pytest.raises(ToolError):
        TodoTool(tmp_path, file="../outside.json")


async def test_concurrent_adds_lose_nothing(tmp_path: Path) -> None:
    import asyncio

    todo = TodoTool(tmp_path)
    await asyncio.gather(*(todo.aexecute("add", title=f"t{i}") for i in range(20)))
    items = todo.execute("list").unwrap()["items"]
    assert sorted(i["id"] for i in items) == list(range(1, 21))


async def test_attempt_completion() -> None:
    assert attempt_completion.spec.name == "attempt_completion"
    assert attempt_completion.spec.annotations.read_only is True
    out = attempt_completion.run(result="  All done: 3 files changed.  ").unwrap()
    assert out == {"completed": True, "result": "All done: 3 files changed."}
    result = await ToolExecutor([attempt_completion]).execute(
        "attempt_completion", {"result": "ok"}
    )
    assert result.success and result.output["completed"] is True
