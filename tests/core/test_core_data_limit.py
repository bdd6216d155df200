"""A limit on how much of the arguments is looked at refuses what lies past it: it never lets
unchecked values through (an ``Any`` parameter once stopped checking after 100,000 values)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from toolrig import ToolExecutor, tool


@tool
def take(data: Any) -> int:
    """Take any JSON data."""
    return len(data) if isinstance(data, list) else 1


@pytest.mark.parametrize(
    "tail",
    [math.nan, math.inf, object(), b"bytes", 1],
    ids=["nan", "inf", "object", "bytes", "int"],
)
@pytest.mark.parametrize("strict", [False, True])
def test_past_the_scan_limit_is_refused_not_trusted(tail: Any, strict: bool) -> None:
    result = ToolExecutor([take]).execute_sync(
        "take", {"data": [0] * 100_000 + [tail]}, strict=strict
    )
    assert result.code == "invalid_arguments"
    assert result.error is not None and "more than 100,000 values" in result.error.message


@pytest.mark.parametrize(
    "tail", [math.nan, object()], ids=["nan", "object"]
)  # ids: stable across runs
def test_a_bad_value_within_the_limit_is_named(tail: Any) -> None:
    result = ToolExecutor([take]).execute_sync("take", {"data": [0] * 1000 + [tail]})
    assert result.code == "invalid_arguments"
    assert result.error is not None and "at [1000]" in result.error.message


def test_plain_data_under_the_limit_passes() -> None:
    assert ToolExecutor([take]).execute_sync("take", {"data": [0] * 90_000}).output == 90_000
