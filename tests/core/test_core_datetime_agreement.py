"""A ``datetime`` parameter accepts what its exported schema (``format: date-time``, RFC 3339)
describes, and hands the tool only values that schema describes, in strict and lax calls.

The one exception, documented: a leap second (``23:59:60``) is valid RFC 3339 that a Python
``datetime`` cannot hold, so it is refused.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import jsonschema_rs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolrig import ToolExecutor, tool

DATE_TIME = jsonschema_rs.validator_for(
    {"type": "string", "format": "date-time"}, validate_formats=True
)
received: list[datetime] = []


@tool
def when(at: datetime) -> str:
    """Record a moment."""
    received.append(at)
    return at.isoformat()


EXECUTOR = ToolExecutor([when])
TEXTS = [
    "2024-01-02T03:04:05Z",
    "2024-01-02t03:04:05z",
    "2024-01-02T03:04:05+02:00",
    "2024-01-02T03:04:05.123456789-07:30",
    "2024-01-02T03:04:05",  # naive
    "2024-01-02 03:04:05Z",  # a space
    "2024-01-02 03:04:05",
    "2024-01-02",
    "1700000000",
    "2024-02-30T00:00:00Z",  # no such day
    "2024-13-01T00:00:00Z",
    "now",
    "",
]


@pytest.mark.parametrize("strict", [True, False])
@pytest.mark.parametrize("text", TEXTS)
def test_text_is_accepted_exactly_when_the_exported_schema_says_so(text: str, strict: bool) -> None:
    result = EXECUTOR.execute_sync("when", {"at": text}, strict=strict)
    assert result.success == DATE_TIME.is_valid(text), result.to_text()
    if not result.success:
        assert result.code == "invalid_arguments"
        assert "RFC 3339" in result.to_text() or "datetime" in result.to_text()


@pytest.mark.parametrize("strict", [True, False])
def test_a_leap_second_is_the_documented_exception(strict: bool) -> None:
    assert DATE_TIME.is_valid("2024-06-30T23:59:60Z")
    assert EXECUTOR.execute_sync("when", {"at": "2024-06-30T23:59:60Z"}, strict=strict).code == (
        "invalid_arguments"
    )


@pytest.mark.parametrize(
    "value",
    [datetime(2024, 1, 2, 3, 4, 5), 1700000000, 1700000000.5, "1700000000"],
    ids=["naive datetime", "int", "float", "digits"],
)
def test_every_value_a_lax_call_lets_through_is_one_the_schema_describes(value: Any) -> None:
    received.clear()
    result = EXECUTOR.execute_sync("when", {"at": value})
    if result.success:
        assert received and received[0].tzinfo is not None
        assert DATE_TIME.is_valid(received[0].isoformat())
    else:
        assert result.code == "invalid_arguments"  # a naive one, or digits as text


@settings(max_examples=60, deadline=None)
@given(
    moment=st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)),
    offset_minutes=st.integers(min_value=-23 * 60, max_value=23 * 60),
    strict=st.booleans(),
)
def test_aware_moments_pass_and_naive_ones_do_not(
    moment: datetime, offset_minutes: int, strict: bool
) -> None:
    aware = moment.replace(tzinfo=timezone(timedelta(minutes=offset_minutes)))
    text = aware.isoformat()
    assert EXECUTOR.execute_sync("when", {"at": text}, strict=strict).success
    naive = moment.isoformat()
    assert not DATE_TIME.is_valid(naive)
    assert EXECUTOR.execute_sync("when", {"at": naive}, strict=strict).code == "invalid_arguments"
    assert EXECUTOR.execute_sync("when", {"at": aware.astimezone(UTC)}).success
