"""search: regex and literal search with globs, .gitignore, context and limits."""

from __future__ import annotations

from pathlib import Path

import pytest

from cpu_clock import CPU
from toolrig.tools import SearchTool


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "build").mkdir()
    (tmp_path / ".git").mkdir()
    (tmp_path / "src" / "app.py").write_text("import os\n\ndef main():\n    return TODO_item\n")
    (tmp_path / "src" / "pkg" / "util.py").write_text("x = 1\n# todo: tidy\ny = 2\nz = 3\n")
    (tmp_path / "src" / "notes.md").write_text("TODO write docs\n")
    (tmp_path / "build" / "out.py").write_text("TODO generated\n")
    (tmp_path / "debug.log").write_text("TODO in a log\n")
    (tmp_path / ".git" / "config").write_text("TODO git internals\n")
    (tmp_path / "blob.bin").write_bytes(b"TODO\x00\x01binary")
    (tmp_path / ".gitignore").write_text("build/\n*.log\n")
    return tmp_path


def _hits(result: dict) -> list[tuple[str, int]]:  # type: ignore[type-arg]
    return [(m["path"], m["line"]) for m in result["matches"]]


def test_regex_search_respects_gitignore_binaries_and_git(tree: Path) -> None:
    search = SearchTool(tree)
    found = search.execute("search", pattern=r"TODO\w*").unwrap()
    assert _hits(found) == [("src/app.py", 4), ("src/notes.md", 1)]
    assert found["matches"][0]["text"] == "    return TODO_item"
    assert found["truncated"] is False
    everything = search.execute("search", pattern="TODO", respect_gitignore=False).unwrap()
    assert ("build/out.py", 1) in _hits(everything) and ("debug.log", 1) in _hits(everything)
    assert all(not p.startswith(".git/") and p != "blob.bin" for p, _ in _hits(everything))


def test_literal_case_and_anchors(tree: Path) -> None:
    search = SearchTool(tree)
    insensitive = search.execute("search", pattern="todo", ignore_case=True).unwrap()
    assert ("src/pkg/util.py", 2) in _hits(insensitive)
    literal = search.execute("search", pattern="x = 1", literal=True).unwrap()
    assert _hits(literal) == [("src/pkg/util.py", 1)]
    dotted = search.execute("search", pattern="(", literal=True).unwrap()
    assert _hits(dotted) == [("src/app.py", 3)]
    anchored = search.execute("search", pattern=r"^y = \d$").unwrap()
    assert _hits(anchored) == [("src/pkg/util.py", 3)]
    bad = search.execute("search", pattern="(")
    assert bad.code == "invalid_arguments" and "literal=true" in bad.error.hint


def test_include_exclude_and_path(tree: Path) -> None:
    search = SearchTool(tree)
    only_md = search.execute("search", pattern="TODO", include=["*.md"]).unwrap()
    assert _hits(only_md) == [("src/notes.md", 1)]
    no_src = search.execute("search", pattern="=", exclude=["src/pkg"]).unwrap()
    assert _hits(no_src) == []
    in_pkg = search.execute("search", pattern="=", path="src/pkg").unwrap()
    assert [line for _, line in _hits(in_pkg)] == [1, 3, 4]
    one_file = search.execute("search", pattern="import", path="src/app.py").unwrap()
    assert _hits(one_file) == [("src/app.py", 1)]
    assert search.execute("search", pattern="x", path="../").code == "permission_denied"
    assert search.execute("search", pattern="x", path="nope").code == "not_found"


def test_context_lines_and_result_limit(tree: Path) -> None:
    search = SearchTool(tree)
    ctx = search.execute("search", pattern="y = 2", context_lines=1).unwrap()
    match = ctx["matches"][0]
    assert (match["before"], match["after"]) == (["# todo: tidy"], ["z = 3"])
    first = search.execute("search", pattern="x = 1", context_lines=2).unwrap()["matches"][0]
    assert first["before"] == [] and first["after"] == ["# todo: tidy", "y = 2"]
    limited = search.execute("search", pattern=r"\w", max_results=2).unwrap()
    assert len(limited["matches"]) == 2 and limited["truncated"] is True


def test_symlinks_out_of_the_sandbox_are_not_searched(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    root = tmp_path / "root"
    outside.mkdir()
    root.mkdir()
    (outside / "secret.txt").write_text("needle\n")
    (root / "linkdir").symlink_to(outside)
    (root / "link.txt").symlink_to(outside / "secret.txt")
    assert SearchTool(root).execute("search", pattern="needle").unwrap()["matches"] == []


def test_fast_enough_on_many_files(tmp_path: Path) -> None:
    for d in range(20):
        folder = tmp_path / f"d{d}"
        folder.mkdir()
        for f in range(100):
            (folder / f"f{f}.txt").write_text(f"line one\nvalue {d}-{f}\n" * 20)
    with CPU() as cpu:  # CPU time: the file reads may wait for a busy disk or core
        out = SearchTool(tmp_path).execute("search", pattern="value 7-42\n", literal=True).unwrap()
    assert cpu.seconds < 5.0, cpu.seconds
    assert out["files_searched"] == 2000 and len(out["matches"]) == 20


def test_ignore_case_literal_agrees_with_the_regex_on_any_text(tmp_path: Path) -> None:
    """The fast path for ASCII files must not change what matches: Unicode case folds (the
    Kelvin sign folds to "k", the long s to "s") still match in non-ASCII files."""
    (tmp_path / "ascii.txt").write_text("Token\nTOKEN\nnothing\n")
    (tmp_path / "kelvin.txt").write_text("\u212aey\nlong \u017fign\n", encoding="utf-8")
    search = SearchTool(tmp_path)
    for pattern in ("token", "KEY", "sign"):
        fast = search.execute("search", pattern=pattern, literal=True, ignore_case=True).unwrap()
        slow = search.execute("search", pattern=pattern, ignore_case=True).unwrap()
        assert fast["matches"] == slow["matches"], pattern
        assert fast["matches"], pattern
