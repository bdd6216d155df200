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
