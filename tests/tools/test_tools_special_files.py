"""Files that are not plain files: a named pipe is refused at once by every reader (it used to
hang the worker thread for good), a hard link to an outside file is not read unless allowed, a
ranged read of a huge sparse file keeps memory small, and an over-long name gets a sentence,
not ``OSError [Errno 36]``."""

from __future__ import annotations

import asyncio
import json
import os
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from swap_gate import bounded

from toolrig.tools import DocumentTool, FileTool, Sandbox, SearchReplaceTool, SearchTool
from toolrig.tools.rag import RagTool

SECRET = "needle SECRET outside"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "root"
    folder.mkdir()
    (folder / "plain.txt").write_text("needle plain\n")
    return folder


def _calls(box: Sandbox, name: str) -> list[tuple[str, Any]]:
    """Every way a tool reads the file ``name``."""
    files, docs = FileTool(box), DocumentTool(box)
    search, replace = SearchTool(box), SearchReplaceTool(box)
    return [
        ("file_tool.read", lambda: files.execute("read", path=name)),
        ("file_tool.read range", lambda: files.execute("read", path=name, start_line=1)),
        (
            "file_tool.update",
            lambda: files.execute("update", path=name, mode="append", content="x"),
        ),
        ("documents.load", lambda: docs.execute("load", path=name)),
        ("search file", lambda: search.execute("search", pattern="needle", path=name)),
        (
            "search_and_replace",
            lambda: replace.execute(
                "search_and_replace", path=name, search="needle", replace="pin", dry_run=True
            ),
        ),
    ]


def test_a_named_pipe_is_refused_without_blocking(root: Path) -> None:
    os.mkfifo(root / "pipe.txt")
    for label, call in _calls(Sandbox(root), "pipe.txt"):
        result = bounded(call, seconds=5)
        assert result.code == "invalid_arguments", (label, result)
        assert "named pipe" in result.error.message, label
    walked = bounded(lambda: SearchTool(root).execute("search", pattern="needle").unwrap())
    assert [m["path"] for m in walked["matches"]] == ["plain.txt"]


def test_a_socket_is_refused(root: Path) -> None:
    import socket

    server = socket.socket(socket.AF_UNIX)
    server.bind(str(root / "sock.txt"))
    try:
        for label, call in _calls(Sandbox(root), "sock.txt"):
            result = bounded(call, seconds=5)
            assert result.code == "invalid_arguments", (label, result)
            assert "socket" in result.error.message, label
    finally:
        server.close()


@pytest.fixture
def linked(root: Path, tmp_path: Path) -> Path:
    """``root/link.txt``, a hard link to a file outside the root."""
    outside = tmp_path / "outside.txt"
    outside.write_text(SECRET + "\n")
    os.link(outside, root / "link.txt")
    return outside


def test_a_hard_link_is_not_read(root: Path, linked: Path) -> None:
    for label, call in _calls(Sandbox(root), "link.txt"):
        result = call()
        assert result.code == "permission_denied", (label, result)
        assert "hard links" in result.error.message and "allow_hard_links" in result.error.hint
        assert "SECRET" not in json.dumps(result.error.details), label
    walked = SearchTool(root).execute("search", pattern="needle").unwrap()
    assert [m["path"] for m in walked["matches"]] == ["plain.txt"]
    diff = SearchReplaceTool(root).execute(
        "search_and_replace", path="*.txt", search="needle", replace="pin", dry_run=True
    )
    assert "SECRET" not in diff.unwrap()["diff"]
    rag = RagTool(root.parent / "index.sqlite3", root=root)
    indexed = asyncio.run(rag.aexecute("index_to_rag", paths=["."])).unwrap()
    assert {"source": "link.txt", "reason": indexed["skipped"][0]["reason"]} in indexed["skipped"]
    assert "hard links" in indexed["skipped"][0]["reason"]
    hits = rag.execute("search_rag", query="SECRET").unwrap()["results"]
    assert "SECRET" not in json.dumps(hits)
    assert linked.read_text() == SECRET + "\n"


def test_hard_links_can_be_allowed(root: Path, linked: Path) -> None:
    box = Sandbox(root, allow_hard_links=True)
    assert FileTool(box).execute("read", path="link.txt").unwrap()["content"] == SECRET + "\n"
    walked = SearchTool(box).execute("search", pattern="SECRET").unwrap()
    assert [m["path"] for m in walked["matches"]] == ["link.txt"]
    rag = RagTool(root.parent / "index.sqlite3", root=box)
    assert "link.txt" in asyncio.run(rag.aexecute("index_to_rag", paths=["."])).unwrap()["changed"]


def test_a_ranged_read_of_a_huge_sparse_file_keeps_memory_small(root: Path) -> None:
    big = root / "sparse.txt"
    with open(big, "wb") as handle:
        handle.write(b"first line\n" + b"y" * 9000 + b"\n" + b"x" * 100)
        handle.truncate(200_000_000)  # a hole of NUL bytes, one 200 MB line
        handle.seek(0, os.SEEK_END)
        handle.write(b"\nlast\n")
    tool = FileTool(root)
    tracemalloc.start()
    try:
        head = tool.execute("read", path="sparse.txt", start_line=1, end_line=2).unwrap()
        long_line = tool.execute("read", path="sparse.txt", start_line=3, end_line=3)
        last = tool.execute("read", path="sparse.txt", start_line=4).unwrap()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert head["content"] == "first line\n" + "y" * 9000 + "\n" and head["total_lines"] is None
    assert long_line.code == "invalid_arguments" and "longer than" in long_line.error.message
    assert last["content"] == "last\n" and last["start_line"] == 4
    assert peak < 16_000_000, f"peak {peak:,} bytes"


@pytest.mark.parametrize(
    "path", ["n" * 256, "a/" + "n" * 300 + "/b.txt", "/".join(["dir"] * 1100), "é" * 128]
)
def test_over_long_names_get_a_sentence(root: Path, path: str) -> None:
    files = FileTool(root)
    for action, args in (
        ("read", {"path": path}),
        ("write", {"path": path, "content": "x"}),
        ("list", {"path": path}),
        ("delete", {"path": path}),
    ):
        result = files.execute(action, args)
        assert result.code == "invalid_arguments", (action, result)
        assert "too long" in result.error.message, result.error.message
    assert SearchTool(root).execute("search", pattern="x", path=path).code == "invalid_arguments"
