"""All built-in tools together in one executor: names, schemas, and cancellation."""

from __future__ import annotations

import time
from pathlib import Path

from toolrig import ToolExecutor
from toolrig.tools import (
    DocumentTool,
    DownloadTool,
    FileTool,
    Sandbox,
    SearchReplaceTool,
    SearchTool,
    ShellTool,
    TodoTool,
    attempt_completion,
)


def _all(root: Path) -> ToolExecutor:
    box = Sandbox(root)
    return ToolExecutor(
        [
            FileTool(box),
            DocumentTool(box),
            DownloadTool(box),
            ShellTool(box),
            SearchTool(box),
            SearchReplaceTool(box),
            TodoTool(box),
            attempt_completion,
        ]
    )


def test_registered_together_with_described_actions(tmp_path: Path) -> None:
    executor = _all(tmp_path)
    assert executor.catalog.names() == [
        "file_tool",
        "documents",
        "download_file",
        "shell",
        "search",
        "search_and_replace",
        "todo",
        "attempt_completion",
    ]
    for tool in executor.catalog.tools():
        assert tool.spec.description
        for name, action in tool.spec.actions.items():
            assert action.description, (tool.spec.name, name)
            assert action.output_description, (tool.spec.name, name)
            annotations = tool.spec.action_annotations(name)
            assert annotations.read_only is not None, (tool.spec.name, name)
            for pname, prop in action.parameters["properties"].items():
                assert prop.get("description"), (tool.spec.name, name, pname)


async def test_through_the_executor(tmp_path: Path) -> None:
    executor = _all(tmp_path)
    written = await executor.execute("file_tool.write", {"path": "a.txt", "content": "hi\n"})
    assert written.success and written.output["bytes"] == 3
    found = await executor.execute("search", {"pattern": "hi"})
    assert found.output["matches"] == [{"path": "a.txt", "line": 1, "text": "hi"}]
    denied = await executor.execute("file_tool.read", {"path": "/etc/passwd"})
    assert denied.code == "permission_denied"


async def test_executor_timeout_cancels_and_kills_a_command(tmp_path: Path) -> None:
    executor = _all(tmp_path)
    start = time.monotonic()
    result = await executor.execute(
        "shell.execute",
        {"command": ["sh", "-c", "echo $$ > pid; exec sleep 30"], "timeout": 60},
        timeout=1,
    )
    assert result.code == "timeout"
    assert time.monotonic() - start < 5
    assert _gone_within(int((tmp_path / "pid").read_text()), 30.0)


def _gone_within(pid: int, seconds: float) -> bool:
    """True once ``pid`` no longer runs (gone, or a zombie waiting to be reaped): a process
    that ends between the open and the read of its ``stat`` is gone too."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except (FileNotFoundError, ProcessLookupError):
            return True
        time.sleep(0.05)
    return False
