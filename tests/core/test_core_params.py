"""Declared parameters: every problem located, nested defaults included."""

from __future__ import annotations

import pytest

from toolrig import ToolDefinitionError, ToolParameter
from toolrig.core.schema._params import parameters_to_schema


def test_problems_carry_their_location() -> None:
    params = [
        ToolParameter(name="n", type="integer", min=1, default=0),
        ToolParameter(type="string"),
        ToolParameter(
            name="filters",
            type="object",
            properties={"low": ToolParameter(type="integer", min=1, default=0)},
        ),
        ToolParameter(name="n", type="string"),
    ]
    with pytest.raises(ToolDefinitionError) as info:
        parameters_to_schema(params, subject="t")
    located = {getattr(p, "loc", None): str(p) for p in info.value.problems}
    assert set(located) == {
        ("parameters", 0, "default"),
        ("parameters", 1),
        ("parameters", 2, "properties", "low", "default"),
        ("parameters", 3),
    }
    assert (
        "parameter `filters.low`: default 0 breaks its own constraints"
        in located[("parameters", 2, "properties", "low", "default")]
    )
    assert "declared twice" in located[("parameters", 3)]


def test_valid_defaults_pass() -> None:
    schema = parameters_to_schema(
        [ToolParameter(name="n", type="number", min=0, default=1), ToolParameter(name="s")],
        subject="t",
    )
    assert schema["required"] == ["s"] and schema["properties"]["n"]["default"] == 1


def test_defaults_are_checked_together_and_the_one_that_breaks_is_named() -> None:
    from toolrig.core.schema import _json_schema

    fine = [
        ToolParameter(name="q", type="string", required=True),
        ToolParameter(name="n", type="integer", default=10, min=1, max=100),
        ToolParameter(name="mode", type="string", default="fast", enum=["fast", "deep"]),
        ToolParameter(name="ratio", type="float", default=0.5, min=0.0, max=1.0),
    ]
    compiled: list[object] = []
    original = _json_schema.compile_json_schema
    _json_schema.compile_json_schema = lambda s, **kw: compiled.append(s) or original(s, **kw)  # type: ignore[assignment]
    try:
        parameters_to_schema(fine, subject="t")
        assert len(compiled) == 1  # one schema for the three defaults, not one each
        bad = [*fine[:2], ToolParameter(name="mode", type="string", default="slow", enum=["fast"])]
        with pytest.raises(ToolDefinitionError) as info:
            parameters_to_schema(bad, subject="t")
    finally:
        _json_schema.compile_json_schema = original  # type: ignore[assignment]
    assert [getattr(p, "loc", None) for p in info.value.problems] == [("parameters", 2, "default")]
    assert "parameter `mode`: default 'slow' breaks its own constraints" in str(info.value)
