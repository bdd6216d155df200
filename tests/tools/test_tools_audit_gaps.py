"""A NUL character in a path is refused as such by the sandbox and by every tool that takes a
path, before any file is touched: the operating system would cut the name at the NUL (or
Python would raise), so ``"notes.txt\\0.png"`` must never reach a system call."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from toolrig import ToolError
from toolrig.tools import FileTool, Sandbox, SearchTool, ShellTool

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
        assert result.code == "invalid_arguments" and result.error is not None, (name, result)
        assert "NUL character" in result.error.message, (name, result.error.message)
    assert _snapshot(root) == before
    assert sorted(os.listdir(root)) == ["notes.txt", "sub"]


def test_the_shell_refuses_a_nul_in_its_working_folder(root: Path) -> None:
    shell = ShellTool(root)
    result = shell.execute("execute", command=["pwd"], cwd="sub\x00")
    assert result.code == "invalid_arguments" and result.error is not None, result
    assert "NUL character" in result.error.message


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("/etc/passwd", "absolute paths are not allowed"),
        ("~/notes.txt", "absolute paths are not allowed"),
        ("../outside/secret.txt", "`..` leads outside the sandbox root"),
        ("sub/../../outside/secret.txt", "`..` leads outside the sandbox root"),
        ("out/secret.txt", "it is or goes through a symlink pointing outside the root"),
        ("out", "it is or goes through a symlink pointing outside the root"),
    ],
)
def test_each_check_of_the_sandbox_gives_its_own_reason(
    root: Path, tmp_path: Path, path: str, reason: str
) -> None:
    """Each check stands on its own: with one of them gone, the next one's reason shows."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret", encoding="utf-8")
    (root / "out").symlink_to(outside)
    with pytest.raises(ToolError) as info:
        Sandbox(root).resolve(path)
    assert info.value.code == "permission_denied"
    assert info.value.message.startswith(f"Access to `{path}` is denied: {reason}."), (
        info.value.message
    )


def test_a_file_swapped_for_a_symlink_during_a_search_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The walk lists a regular file; before it is read, the file becomes a symlink to a file
    outside the root. The read opens the name without following it, so the outside file's
    text never reaches the results."""
    import toolrig.tools._search as search_module

    outside = tmp_path / "outside"
    root = tmp_path / "root"
    outside.mkdir()
    root.mkdir()
    (outside / "secret.txt").write_text("needle from outside\n", encoding="utf-8")
    (root / "a.txt").write_text("needle inside\n", encoding="utf-8")
    from toolrig.tools._fd import read_regular as real_read  # what the search calls

    swapped: list[str] = []

    def swap_then_read(name: str, dir_fd: int, *args: Any, **kwargs: Any) -> bytes:
        if name == "a.txt" and not swapped:
            os.unlink(name, dir_fd=dir_fd)
            os.symlink(outside / "secret.txt", name, dir_fd=dir_fd)
            swapped.append(name)
        return real_read(name, dir_fd, *args, **kwargs)

    monkeypatch.setattr(search_module, "read_regular", swap_then_read)
    out = SearchTool(root).execute("search", pattern="needle").unwrap()
    assert swapped == ["a.txt"]
    assert all("outside" not in m["text"] for m in out["matches"]), out["matches"]
    assert out["matches"] == [] and out["files_searched"] == 0
