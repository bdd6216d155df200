"""Adversarial suite, replacement blow-ups: a replacement whose result would pass the write
limit is refused before it is built (memory stays near the limit) and no file changes."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from toolrig.tools import SearchReplaceTool

LIMIT = 400_000
TWO_MB = "ab\n" * 700_000  # 2.1 MB, 1.4 million "a" or "b"
SMALL = "ab\n" * 70_000

BLOWUPS = [
    # (search, replace, regex, ignore_case)
    ("a", "x" * 100, False, False),
    ("a", "x" * 100, False, True),
    ("A", "y" * 10, False, True),
    ("b\n", "b\n" * 3, False, False),
    ("a", "é" * 40, False, False),
    ("a", "\U0001f600" * 30, False, False),
    (r"a", "x" * 100, True, False),
    (r"(a)", r"\1" * 100, True, False),
    (r"(?P<g>a)", r"\g<g>" * 50, True, False),
    (r"a", r"\g<0>" * 100, True, False),
    (r"(?s).+", r"\g<0>\g<0>", True, False),
    (r"^", "prefix " * 20, True, False),
    (r"$", " suffix" * 20, True, False),
    (r"\b", "!!", True, False),
    (r"(a)(b)", r"\2\1\2\1\2\1", True, False),
    (r"[ab]", "xyz" * 10, True, False),
    (r"(?i)A", "z" * 8, True, False),
    (r"a|b", "-" * 9, True, False),
    (r"\n", "\\n" * 10, True, False),
    (r"(?m)^ab$", "line " * 30, True, False),
]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "big.txt").write_text(TWO_MB)
    (tmp_path / "small.txt").write_text(SMALL)
    return tmp_path


@pytest.mark.parametrize("dry_run", [False, True])
@pytest.mark.parametrize(("search", "replace", "regex", "ignore_case"), BLOWUPS)
def test_a_result_over_the_write_limit_is_refused_before_it_is_built(
    root: Path, search: str, replace: str, regex: bool, ignore_case: bool, dry_run: bool
) -> None:
    tool = SearchReplaceTool(root, max_file_bytes=LIMIT)
    result = tool.execute(
        "search_and_replace",
        path="small.txt",
        search=search,
        replace=replace,
        regex=regex,
        ignore_case=ignore_case,
        dry_run=dry_run,
    )
    assert result.code == "invalid_arguments", result
    assert result.error is not None
    assert "over the 400,000-byte write limit" in result.error.message
    assert "nothing was changed" in result.error.message
    assert (root / "small.txt").read_text() == SMALL


def test_the_issue_case_one_character_by_a_hundred_in_a_2_mb_file(root: Path) -> None:
    tool = SearchReplaceTool(root)  # the default 10 MB limit; the result would be 142 MB
    tracemalloc.start()
    try:
        result = tool.execute("search_and_replace", path="big.txt", search="a", replace="x" * 100)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.code == "invalid_arguments" and result.error is not None
    assert "10,000,000-byte write limit" in result.error.message
    assert peak < 40_000_000, peak
    assert (root / "big.txt").stat().st_size == len(TWO_MB)


def test_a_glob_refuses_the_file_that_would_grow_too_large(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x\n")
    (tmp_path / "b.txt").write_text("x" * 1000)
    tool = SearchReplaceTool(tmp_path, max_file_bytes=10_000)
    result = tool.execute("search_and_replace", path="*.txt", search="x", replace="yyyyyyyyyyyy")
    assert result.code == "invalid_arguments" and result.error is not None
    assert "`b.txt`" in result.error.message


def test_results_within_the_limit_are_exact(tmp_path: Path) -> None:
    text = "alpha beta\nGamma alpha\n"
    (tmp_path / "f.txt").write_text(text)
    (tmp_path / "u.txt").write_text("é-a-é\n", encoding="utf-16")
    tool = SearchReplaceTool(tmp_path, max_file_bytes=len(text) + 8)
    out = tool.execute(
        "search_and_replace", path="f.txt", search=r"(?P<w>alpha)", replace=r"<\g<w>\n>",
        regex=True,
    ).unwrap()  # fmt: skip
    assert out["total_replacements"] == 2
    assert (tmp_path / "f.txt").read_text() == "<alpha\n> beta\nGamma <alpha\n>\n"
    over = tool.execute("search_and_replace", path="f.txt", search="a", replace="aa")
    assert over.code == "invalid_arguments"
    wide = SearchReplaceTool(tmp_path).execute(
        "search_and_replace", path="u.txt", search="é", replace="e", count=1
    )
    assert wide.unwrap()["total_replacements"] == 1
    assert (tmp_path / "u.txt").read_text(encoding="utf-16") == "e-a-é\n"
