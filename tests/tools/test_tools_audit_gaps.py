"""A NUL character in a path is refused as such by the sandbox and by every tool that takes a
path, before any file is touched: the operating system would cut the name at the NUL (or
Python would raise), so ``"notes.txt\\0.png"`` must never reach a system call."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from toolrig import ToolError
from toolrig.tools import FileTool, Sandbox, ShellTool

NUL_PATHS = ("notes.txt\x00.png", "\x00", "sub/\x00/x", "sub\x00/../notes.txt")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "root"
    (folder / "sub").mkdir(parents=True)
    (folder / "notes.txt").write_text("keep me", encoding="utf-8")
    return folder


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() if p.is_file() else b"<dir>"
        for p in sorted(folder.rglob("*"))
    }


@pytest.mark.parametrize("path", NUL_PATHS)
def test_the_sandbox_refuses_a_nul_in_a_path(root: Path, path: str) -> None:
    box = Sandbox(root)
    for follow_final in (True, False):
        with pytest.raises(ToolError) as info:
            box.resolve(path, follow_final=follow_final)
        assert info.value.code == "invalid_arguments"
        assert "NUL character" in info.value.message and repr(path) in info.value.message


@pytest.mark.parametrize("path", NUL_PATHS)
def test_every_file_action_refuses_a_nul_in_a_path(root: Path, path: str) -> None:
    before = _snapshot(root)
    files = FileTool(root)
    calls: list[tuple[str, dict[str, Any]]] = [
        ("read", {"path": path}),
        ("write", {"path": path, "content": "x", "overwrite": True}),
        ("update", {"path": path, "mode": "append", "content": "x"}),
        ("delete", {"path": path}),
        ("list", {"path": path}),
    ]
    for name, args in calls:
        result = files.execute(name, args)
        assert result.code == "invalid_arguments", (name, result)
        assert "NUL character" in result.error.message, (name, result.error.message)
    assert _snapshot(root) == before
    assert sorted(os.listdir(root)) == ["notes.txt", "sub"]


def test_the_shell_refuses_a_nul_in_its_working_folder(root: Path) -> None:
    shell = ShellTool(root)
    result = shell.execute("execute", command=["pwd"], cwd="sub\x00")
    assert result.code == "invalid_arguments", result
    assert "NUL character" in result.error.message
