"""A folder swapped for a symlink to an outside folder while a tool walks the tree: search, RAG
indexing, ``file_tool.list`` and ``search_and_replace`` return no outside name or text, whatever
the moment of the swap, and none waits on the named pipe left in the folder."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from swap_gate import MOMENTS, Layout, Moment, bounded, make_layout, swap_at

from toolrig.tools import FileTool, SearchReplaceTool, SearchTool
from toolrig.tools.rag import RagTool


@pytest.fixture
def layout(tmp_path: Path) -> Layout:
    return make_layout(tmp_path)


def _clean(layout: Layout, answer: object) -> None:
    """Nothing of the outside folder in the answer, and the swap did happen during the call."""
    text = json.dumps(answer)
    assert layout.fired, "the walk never reached the swapped folder"
    assert "SECRET" not in text and "secret.txt" not in text, text
    assert (layout.outside / "secret.txt").read_text() == "needle SECRET outside\n"


@pytest.mark.parametrize("moment", MOMENTS)
def test_search(layout: Layout, monkeypatch: pytest.MonkeyPatch, moment: Moment) -> None:
    tool = SearchTool(layout.root)
    with swap_at(monkeypatch, layout, moment):
        result = bounded(lambda: tool.execute("search", pattern="needle"))
    found = result.unwrap()
    assert {"path": "top.txt", "line": 1, "text": "needle at the top"} in found["matches"]
    _clean(layout, found)


@pytest.mark.parametrize("moment", MOMENTS)
def test_rag_indexing(layout: Layout, monkeypatch: pytest.MonkeyPatch, moment: Moment) -> None:
    tool = RagTool(layout.root.parent / "index.sqlite3", root=layout.root)
    with swap_at(monkeypatch, layout, moment):
        result = bounded(lambda: asyncio.run(tool.aexecute("index_to_rag", paths=["."])))
    indexed = result.unwrap()
    assert "top.txt" in indexed["changed"]
    _clean(layout, indexed)
    hits = tool.execute("search_rag", query="needle SECRET outside", k=10).unwrap()
    _clean(layout, hits["results"])


@pytest.mark.parametrize("moment", MOMENTS)
def test_file_list(layout: Layout, monkeypatch: pytest.MonkeyPatch, moment: Moment) -> None:
    tool = FileTool(layout.root)
    with swap_at(monkeypatch, layout, moment):
        result = bounded(lambda: tool.execute("list", pattern="**"))
    listed = result.unwrap()
    assert {"path": "top.txt", "type": "file", "size": 18} in listed["entries"]
    _clean(layout, listed)


@pytest.mark.parametrize("moment", MOMENTS)
@pytest.mark.parametrize("dry_run", [True, False])
def test_search_and_replace(
    layout: Layout, monkeypatch: pytest.MonkeyPatch, moment: Moment, dry_run: bool
) -> None:
    tool = SearchReplaceTool(layout.root)
    with swap_at(monkeypatch, layout, moment):
        result = bounded(
            lambda: tool.execute(
                "search_and_replace",
                path="**/*.txt",
                search="needle",
                replace="pin",
                dry_run=dry_run,
            )
        )
    # Refusing the whole call (a path it met now leads outside) is as good as skipping it.
    answer = result.output if result.success else result.error.message
    if result.success:
        assert "top.txt" in [f["path"] for f in result.output["files"]]
    else:
        assert result.code == "permission_denied"
    _clean(layout, answer)


def test_a_pipe_named_gitignore_does_not_hold_the_walk(layout: Layout) -> None:
    """The original gate: nothing writes to the pipe, so a reader that opened it blocking
    would never return."""
    search = SearchTool(layout.root)
    found = bounded(lambda: search.execute("search", pattern="needle").unwrap(), seconds=5)
    assert [m["path"] for m in found["matches"]] == ["top.txt", "d/inner.txt"]
    listed = bounded(lambda: FileTool(layout.root).execute("list", pattern="**").unwrap())
    assert {"path": "d/.gitignore", "type": "other", "size": None} in listed["entries"]
