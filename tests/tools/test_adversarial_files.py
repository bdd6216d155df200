"""Adversarial suite, files: path spellings that try to leave the root, symlinks and hard links
to outside files and folders, named pipes, devices, and swaps between check and use, each sent
through every action that takes a path. Whatever the answer (refused, or done inside the root),
nothing outside the root is read, written or listed, and nothing blocks."""

from __future__ import annotations

import asyncio
import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from swap_gate import bounded

from toolrig.tools import (
    DocumentTool,
    FileTool,
    Sandbox,
    SearchReplaceTool,
    SearchTool,
    ShellTool,
    TodoTool,
)
from toolrig.tools.rag import RagTool

SECRET = "needle SECRET outside"
Call = Callable[[Path, str], Any]


def _rag(root: Path, path: str) -> Any:
    tool = RagTool(root.parent / "index.sqlite3", root=root)
    return asyncio.run(tool.aexecute("index_to_rag", paths=[path]))


CALLS: dict[str, Call] = {
    "read": lambda r, p: FileTool(r).execute("read", path=p),
    "read range": lambda r, p: FileTool(r).execute("read", path=p, start_line=1, end_line=3),
    "write": lambda r, p: FileTool(r).execute("write", path=p, content="PWNED", overwrite=True),
    "update": lambda r, p: FileTool(r).execute("update", path=p, mode="append", content="PWNED"),
    "delete": lambda r, p: FileTool(r).execute("delete", path=p),
    "list": lambda r, p: FileTool(r).execute("list", path=p, pattern="**"),
    "load": lambda r, p: DocumentTool(r).execute("load", path=p),
    "convert output": lambda r, p: DocumentTool(r).execute(
        "convert_to_md", path="ok.txt", output_path=p, overwrite=True
    ),
    "search": lambda r, p: SearchTool(r).execute("search", pattern="needle", path=p),
    "replace": lambda r, p: SearchReplaceTool(r).execute(
        "search_and_replace", path=p, search="needle", replace="PWNED"
    ),
    "shell cwd": lambda r, p: ShellTool(r).execute("execute", command=["ls", "-a"], cwd=p),
    "rag": _rag,
}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "root"
    (folder / "sub").mkdir(parents=True)
    (folder / "ok.txt").write_text("needle ok\n")
    (folder / "sub" / "inner.txt").write_text("needle inner\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET + "\n")
    (outside / "unnamed-outside.txt").write_text("needle only listing shows this name\n")
    return folder


def _outside(root: Path) -> Path:
    return root.parent / "outside"


def _snapshot(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): p.read_text() if p.is_file() else "<dir>"
        for p in sorted(folder.rglob("*"))
    }


def _check(root: Path, before: dict[str, str], answer: Any) -> None:
    """Nothing outside changed, and no outside text or name came back (the paths given name
    ``secret.txt`` at most, never ``unnamed-outside.txt``: only a listing could show it)."""
    assert _snapshot(_outside(root)) == before
    shown = answer.to_json() if hasattr(answer, "to_json") else json.dumps(answer)
    assert "SECRET" not in shown and "unnamed-outside" not in shown, shown[:500]
    assert "only listing shows" not in shown, shown[:500]


def _attempt(root: Path, call: str, path: str) -> Any:
    before = _snapshot(_outside(root))
    result = bounded(lambda: CALLS[call](root, path), seconds=10)
    _check(root, before, result)
    return result


# -- paths ----------------------------------------------------------------------------------
def _spellings(tmp_root: str) -> list[str]:
    return [
        "../outside/secret.txt",
        "..",
        "../",
        "../outside",
        "sub/../../outside/secret.txt",
        "sub/../../outside",
        "./../outside/secret.txt",
        "sub/./../../outside/secret.txt",
        "sub//..//..//outside//secret.txt",
        "a/b/../../../outside/secret.txt",
        "sub/" + "../" * 12 + "etc/passwd",
        "/etc/passwd",
        "//etc/passwd",
        "/",
        "~/secret.txt",
        "~root/.bashrc",
        f"{tmp_root}/../outside/secret.txt",
        f"{tmp_root}/ok.txt",
    ]


SPELLING_IDS = list(range(18))


@pytest.mark.parametrize("call", sorted(CALLS))
@pytest.mark.parametrize("index", SPELLING_IDS)
def test_path_spellings(root: Path, call: str, index: int) -> None:
    path = _spellings(str(root))[index]
    result = _attempt(root, call, path)
    assert not result.success, (call, path, result)
    assert result.code in ("permission_denied", "invalid_arguments", "not_found"), result.error


# -- links ----------------------------------------------------------------------------------
def _make_links(root: Path) -> None:
    outside = _outside(root)
    (root / "link_file.txt").symlink_to(outside / "secret.txt")
    (root / "link_rel.txt").symlink_to("../outside/secret.txt")
    (root / "link_dir").symlink_to(outside, target_is_directory=True)
    (root / "chain2.txt").symlink_to(outside / "secret.txt")
    (root / "chain1.txt").symlink_to(root / "chain2.txt")
    (root / "loop_a.txt").symlink_to(root / "loop_b.txt")
    (root / "loop_b.txt").symlink_to(root / "loop_a.txt")
    (root / "dangling.txt").symlink_to(outside / "new.txt")
    (root / "link_root").symlink_to("/", target_is_directory=True)
    (root / "sub" / "up").symlink_to("..", target_is_directory=True)
    os.link(outside / "secret.txt", root / "hard.txt")


LINK_PATHS = [
    "link_file.txt",
    "link_rel.txt",
    "link_dir/secret.txt",
    "link_dir",
    "chain1.txt",
    "loop_a.txt",
    "dangling.txt",
    "link_root/etc/passwd",
    "sub/up/link_file.txt",
    "hard.txt",
]


@pytest.mark.parametrize("call", sorted(CALLS))
@pytest.mark.parametrize("path", LINK_PATHS)
def test_links(root: Path, call: str, path: str) -> None:
    _make_links(root)
    result = _attempt(root, call, path)
    if result.success:  # removing or replacing the link itself, or reporting it as skipped
        assert call in ("delete", "write", "convert output", "rag"), (call, path, result)
        if call == "rag":
            assert result.output["changed"] == []
    assert not (_outside(root) / "new.txt").exists()


@pytest.mark.parametrize("call", ["list", "search", "replace", "rag"])
def test_links_in_a_walked_tree(root: Path, call: str) -> None:
    _make_links(root)
    result = _attempt(root, call, "**/*.txt" if call == "replace" else ".")
    assert result.success, result


# -- pipes and devices ------------------------------------------------------------------------
READERS = ["read", "read range", "update", "load", "search", "replace"]


def _special(root: Path, kind: str) -> str:
    target = root / f"special_{kind}.txt"
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "socket":
        import socket

        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(target))
        sock.close()
    else:
        major, minor = {"null": (1, 3), "zero": (1, 5), "random": (1, 8), "tty": (5, 0)}[kind]
        try:
            os.mknod(target, stat.S_IFCHR | 0o666, os.makedev(major, minor))
        except PermissionError:
            pytest.skip("making device files needs root")
    return target.name


@pytest.mark.parametrize("call", READERS)
@pytest.mark.parametrize("kind", ["fifo", "socket", "null", "zero", "random", "tty"])
def test_special_files_are_refused_without_blocking(root: Path, call: str, kind: str) -> None:
    name = _special(root, kind)
    result = _attempt(root, call, name)
    assert result.code == "invalid_arguments", (call, kind, result)
    assert "not a regular file" in result.error.message or "not read" in result.error.message


@pytest.mark.parametrize("call", ["list", "search", "replace", "rag"])
def test_special_files_in_a_walked_tree(root: Path, call: str) -> None:
    for kind in ("fifo", "socket"):
        _special(root, kind)
    os.mkfifo(root / "sub" / ".gitignore")
    os.mkfifo(root / ".gitignore")
    result = _attempt(root, call, "**/*.txt" if call == "replace" else ".")
    assert result.success, result


def test_a_pipe_as_the_todo_file(root: Path) -> None:
    (root / ".toolrig").mkdir()
    os.mkfifo(root / ".toolrig" / "todo.json")
    result = bounded(lambda: TodoTool(root).execute("list"), seconds=5)
    assert result.code == "invalid_arguments"


# -- swaps between check and use ---------------------------------------------------------------
SWAPS = ["folder to symlink", "file to symlink", "file to pipe", "file to hard link"]
SWAP_CALLS = ["read", "update", "write", "delete", "load", "search", "replace"]


def _swap(root: Path, how: str) -> None:
    outside = _outside(root)
    inner = root / "sub" / "inner.txt"
    if how == "folder to symlink":
        (root / "sub").rename(root / "sub-moved")
        (root / "sub").symlink_to(outside, target_is_directory=True)
        return
    inner.unlink()
    if how == "file to symlink":
        inner.symlink_to(outside / "secret.txt")
    elif how == "file to pipe":
        os.mkfifo(inner)
    else:
        os.link(outside / "secret.txt", inner)


@pytest.mark.parametrize("call", SWAP_CALLS)
@pytest.mark.parametrize("how", SWAPS)
def test_swap_after_the_check(
    root: Path, monkeypatch: pytest.MonkeyPatch, call: str, how: str
) -> None:
    """The path is checked (resolved) first; the swap happens when the tool first opens
    anything below the root, i.e. after the check and before the use."""
    real_open = os.open
    fired: list[bool] = []

    def hooked(path: Any, flags: int, mode: int = 0o777, *, dir_fd: Any = None) -> int:
        if dir_fd is not None and not fired:
            fired.append(True)
            _swap(root, how)
        return real_open(path, flags, mode, dir_fd=dir_fd)

    monkeypatch.setattr(os, "open", hooked)
    result = _attempt(root, call, "sub/inner.txt")
    monkeypatch.setattr(os, "open", real_open)
    assert fired
    if result.success:  # deleting a link or replacing a file inside the root is fine
        assert call in ("delete", "write"), (call, how, result)


def test_hard_links_are_read_only_when_allowed(root: Path) -> None:
    os.link(_outside(root) / "secret.txt", root / "hard.txt")
    allowed = FileTool(Sandbox(root, allow_hard_links=True)).execute("read", path="hard.txt")
    assert allowed.unwrap()["content"] == SECRET + "\n"
    assert FileTool(root).execute("read", path="hard.txt").code == "permission_denied"
