"""Adversarial suite, regular expressions: catastrophic patterns answer at once in ``search``
and ``search_and_replace`` (RE2 matches in linear time), and a pattern RE2 cannot run is
refused with an error naming the feature."""

from __future__ import annotations

from pathlib import Path

import pytest

from cpu_clock import CPU
from toolrig.tools import SearchReplaceTool, SearchTool

CATASTROPHIC = [
    r"(a+)+$",
    r"(a*)*$",
    r"(a|aa)+$",
    r"(a|a?)+$",
    r"(.*a){12}$",
    r"(\w+\s?)+$",
    r"^(a+)+b",
    r"(x+x+)+y",
    r"((a+)+)+$",
    r"(a|b|ab)*c",
    r"([a-z]+)*$",
    r"(.*)*!x",
    r"^(([a-z])+.)+[A-Z]([a-z])+$",
    r"(a+){2,}$",
    r"(?i)(A+)+$",
    r"(\d|\w)+!x",
    r"^(a?){25}a{25}$",
    r"(.+)+$x",
    r"(aa|a)*b",
    r"([^!]*a)*z",
]
SUBJECT = "a" * 30_000 + "!"
LIMIT_S = 2.0
"""CPU seconds (`cpu_clock`): linear matching takes milliseconds, backtracking minutes."""


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "hostile.txt").write_text(SUBJECT + "\n" + "a" * 40 + "!\n")
    return tmp_path


@pytest.mark.parametrize("pattern", CATASTROPHIC)
def test_search_answers_a_catastrophic_pattern_at_once(root: Path, pattern: str) -> None:
    with CPU() as cpu:
        result = SearchTool(root).execute("search", pattern=pattern)
    assert cpu.seconds < LIMIT_S, cpu.seconds
    assert result.error is None, result


@pytest.mark.parametrize("pattern", CATASTROPHIC)
def test_replace_answers_a_catastrophic_pattern_at_once(root: Path, pattern: str) -> None:
    with CPU() as cpu:
        result = SearchReplaceTool(root).execute(
            "search_and_replace", path="hostile.txt", search=pattern, replace="", regex=True,
            dry_run=True,
        )  # fmt: skip
    assert cpu.seconds < LIMIT_S, cpu.seconds
    assert result.error is None, result


UNSUPPORTED = [
    (r"(a)\1", "backreferences"),
    (r"(?P<x>a)(?P=x)", "named backreferences"),
    (r"a(?=b)", "lookaround"),
    (r"a(?!b)", "lookaround"),
    (r"(?<=a)b", "lookaround"),
    (r"(?<!a)b", "lookaround"),
    (r"(?>a+)b", "atomic groups"),
    (r"a++b", "possessive quantifiers"),
    (r"(a)?(?(1)b|c)", "conditionals"),
    (r"a{5000}", "counted repetition"),
    (r"end\Z", "\\Z"),
]


@pytest.mark.parametrize(("pattern", "feature"), UNSUPPORTED)
@pytest.mark.parametrize("tool", ["search", "search_and_replace"])
def test_unsupported_features_are_named(root: Path, tool: str, pattern: str, feature: str) -> None:
    if tool == "search":
        result = SearchTool(root).execute("search", pattern=pattern)
    else:
        result = SearchReplaceTool(root).execute(
            "search_and_replace", path="hostile.txt", search=pattern, replace="", regex=True
        )
    assert result.code == "invalid_arguments", result
    assert result.error is not None and result.error.hint is not None
    assert feature in result.error.message and "not support" in result.error.message
    assert "literal=true" in result.error.hint


def test_literal_search_of_the_same_text_still_works(root: Path) -> None:
    found = SearchTool(root).execute("search", pattern=r"(a)\1", literal=True).unwrap()
    assert found["matches"] == []
    (root / "re.txt").write_text("x (a)\\1 y\n")
    found = SearchTool(root).execute("search", pattern=r"(a)\1", literal=True).unwrap()
    assert [m["path"] for m in found["matches"]] == ["re.txt"]


def test_a_search_past_its_budget_answers_what_it_found(tmp_path: Path) -> None:
    from toolrig.tools import Budget

    for i in range(20):
        (tmp_path / f"f{i:02}.txt").write_text("needle\n")
    spent = SearchTool(tmp_path, budget=Budget(wall_s=0.0)).execute("search", pattern="needle")
    out = spent.unwrap()
    assert out["truncated"] is True and out["matches"] == []
    assert "budget was spent" in out["stopped"]
    whole = SearchTool(tmp_path).execute("search", pattern="needle").unwrap()
    assert len(whole["matches"]) == 20 and "stopped" not in whole
