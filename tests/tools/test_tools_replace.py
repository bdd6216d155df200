"""search_and_replace: literal and regex replacement, dry runs with diffs, globs, safety."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolrig.tools import SearchReplaceTool


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "src" / "sub").mkdir(parents=True)
    (tmp_path / "src" / "a.py").write_text("old_name = 1\nprint(old_name)\n")
    (tmp_path / "src" / "sub" / "b.py").write_text("from a import old_name\n")
    (tmp_path / "src" / "c.txt").write_text("old_name stays\n")
    (tmp_path / "top.py").write_text("old_name\n")
    return tmp_path


def test_literal_replace_in_one_file(tree: Path) -> None:
    tool = SearchReplaceTool(tree)
    out = tool.execute(
        "search_and_replace", path="src/a.py", search="old_name", replace="new_name"
    ).unwrap()
    assert out["total_replacements"] == 2 and out["dry_run"] is False
    assert out["files"] == [{"path": "src/a.py", "replacements": 2}]
    assert "-old_name = 1\n-print(old_name)\n+new_name = 1\n" in out["diff"]
    assert (tree / "src" / "a.py").read_text() == "new_name = 1\nprint(new_name)\n"
    assert tool.spec.action_annotations("search_and_replace").destructive is True


def test_dry_run_returns_a_unified_diff_and_changes_nothing(tree: Path) -> None:
    out = (
        SearchReplaceTool(tree)
        .execute(
            "search_and_replace",
            path="src/**/*.py",
            search="old_name",
            replace="new_name",
            dry_run=True,
        )
        .unwrap()
    )
    assert [f["path"] for f in out["files"]] == ["src/a.py", "src/sub/b.py"]
    assert out["diff"].startswith("--- a/src/a.py\n+++ b/src/a.py\n@@")
    assert "+from a import new_name" in out["diff"]
    assert (tree / "src" / "a.py").read_text().startswith("old_name")


def test_glob_semantics_and_regex_groups(tree: Path) -> None:
    tool = SearchReplaceTool(tree)
    top = tool.execute("search_and_replace", path="*.py", search="old", replace="new").unwrap()
    assert [f["path"] for f in top["files"]] == ["top.py"]
    out = tool.execute(
        "search_and_replace",
        path="src/**/*.py",
        search=r"^(\w+) = (\d+)$",
        replace=r"\2 = \1",
        regex=True,
    ).unwrap()
    assert out["total_replacements"] == 1
    assert (tree / "src" / "a.py").read_text() == "1 = old_name\nprint(old_name)\n"


def test_literal_replacement_text_is_not_a_template(tree: Path) -> None:
    tool = SearchReplaceTool(tree)
    tool.execute("search_and_replace", path="top.py", search="old_name", replace=r"a\1\g<0>")
    assert (tree / "top.py").read_text() == "a\\1\\g<0>\n"


def test_count_case_and_encoding(tree: Path) -> None:
    (tree / "latin.txt").write_bytes("Crème crème CRÈME\n".encode("cp1252"))
    tool = SearchReplaceTool(tree)
    out = tool.execute(
        "search_and_replace",
        path="latin.txt",
        search="crème",
        replace="cream",
        ignore_case=True,
        count=2,
    ).unwrap()
    assert out["total_replacements"] == 2
    assert (tree / "latin.txt").read_bytes() == "cream cream CRÈME\n".encode("cp1252")


def test_errors_are_structured(tree: Path, tmp_path: Path) -> None:
    tool = SearchReplaceTool(tree)
    assert (
        tool.execute("search_and_replace", path="../x.py", search="a", replace="b").code
        == "permission_denied"
    )
    assert (
        tool.execute("search_and_replace", path="/etc/*", search="a", replace="b").code
        == "permission_denied"
    )
    assert (
        tool.execute("search_and_replace", path="nope.py", search="a", replace="b").code
        == "not_found"
    )
    bad = tool.execute("search_and_replace", path="top.py", search="(", replace="b", regex=True)
    assert bad.code == "invalid_arguments"
    bad_group = tool.execute(
        "search_and_replace", path="top.py", search="old", replace=r"\3", regex=True
    )
    assert bad_group.code == "invalid_arguments"
    (tree / "blob.bin").write_bytes(b"old\x00")
    assert (
        tool.execute("search_and_replace", path="blob.bin", search="old", replace="x").code
        == "invalid_arguments"
    )
    assert (tree / "blob.bin").read_bytes() == b"old\x00"
    many = SearchReplaceTool(tree, max_files=1)
    assert (
        many.execute("search_and_replace", path="**/*.py", search="x", replace="y").code
        == "invalid_arguments"
    )
