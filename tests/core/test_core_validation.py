"""Validation: every problem in one message with path, expected and received; coercion rules."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field

from toolrig import Tool, ToolParameter, tool


class Filters(BaseModel):
    rating_min: Annotated[int, Field(ge=1, le=5)] = 1
    tags: list[str] = []


@tool
def analyse(
    texts: Annotated[list[str], Field(min_length=1, max_length=3)],
    model: Literal["small", "large"] = "small",
    batch_size: Annotated[int, Field(ge=1, le=100)] = 10,
    brand: Annotated[str, Field(pattern=r"^[\w ]+$", max_length=10)] = "acme",
    threshold: Annotated[float, Field(ge=0.0, le=1.0)] = 0.5,
    filters: Filters | None = None,
) -> dict[str, Any]:
    """Analyse texts."""
    return {"n": len(texts), "model": model, "batch": batch_size, "filters": filters}


def test_all_problems_are_reported_at_once_with_paths() -> None:
    result = analyse.run(
        texts=[],
        model="huge",
        batch_size=500,
        brand="bad!brand",
        threshold="high",
        filters={"rating_min": 9, "tags": ["ok", 3]},
    )
    assert result.code == "invalid_arguments"
    message = result.error.message
    assert "7 problems" in message
    for path in (
        "texts",
        "model",
        "batch_size",
        "brand",
        "threshold",
        "filters.rating_min",
        "filters.tags[1]",
    ):
        assert f"- {path}:" in message, path
    assert "'small' or 'large'" in message and '"huge" (string)' in message
    assert "less than or equal to 100" in message and "500 (integer)" in message
    details = result.error.details
    assert {d["path"] for d in details} >= {"texts", "filters.tags[1]"}
    assert all({"path", "expected", "received", "problem"} <= set(d) for d in details)
    assert "call `analyse` again" in result.error.hint


def test_missing_parameter_says_required() -> None:
    result = analyse.run()
    assert result.code == "invalid_arguments"
    assert "texts: required parameter is missing (expected an array)" in result.error.message


def test_unknown_argument_is_rejected_with_suggestion() -> None:
    result = analyse.run(texts=["a"], modle="large")
    assert result.code == "invalid_arguments"
    assert "modle: unknown parameter; did you mean `model`?" in result.error.message
    assert result.error.details[0]["suggestions"] == ["model"]


def test_safe_coercion_by_default_and_strict_refuses_it() -> None:
    ok = analyse.run(texts=["a"], batch_size="7", threshold="0.25")
    assert ok.success and ok.output["batch"] == 7
    strict = analyse.run({"texts": ["a"], "batch_size": "7"}, strict=True)
    assert strict.code == "invalid_arguments" and "batch_size" in strict.error.message

    @tool
    def flag(on: bool) -> bool:
        return on

    assert flag.run(on="true").output is True
    assert flag.run({"on": "true"}, strict=True).code == "invalid_arguments"


def test_json_object_passed_as_a_string_is_decoded() -> None:
    result = analyse.run(texts='["x", "y"]', filters='{"rating_min": 4}')
    assert result.success, result.error
    assert result.output["n"] == 2 and result.output["filters"].rating_min == 4
    # a whole argument object given as JSON text works too
    assert analyse.run('{"texts": ["z"]}').success
    # but not in strict mode
    assert analyse.run({"texts": '["x"]'}, strict=True).code == "invalid_arguments"


def test_non_object_arguments_are_an_error_not_a_crash() -> None:
    for bad in ([1, 2], 5, "not json", None):
        result = analyse.run(bad)  # type: ignore[arg-type]
        assert result.code == "invalid_arguments", bad


def test_received_values_are_shortened() -> None:
    result = analyse.run(texts=["a"], brand="x" * 10_000)
    assert result.code == "invalid_arguments"
    assert len(result.error.message) < 600 and "..." in result.error.message


def test_declared_parameters_cover_the_constraint_vocabulary() -> None:
    seen: dict[str, Any] = {}

    def run(**kwargs: Any) -> str:
        seen.update(kwargs)
        return "done"

    t = Tool(
        name="declared",
        description="Declared parameters.",
        func=run,
        parameters=[
            ToolParameter(name="text_data", type="array", item_type="string", min_items=1),
            ToolParameter(name="model", type="string", default="small", enum=("small", "large")),
            ToolParameter(name="batch_size", type="integer", default=10, min=1, max=100),
            ToolParameter(
                name="brand", type="string", required=False, pattern=r"^\w+$", max_length=5
            ),
            ToolParameter(name="threshold", type="float", default=0.5, min=0.0, max=1.0),
            ToolParameter(name="start", type="string", required=False, format="date"),
            ToolParameter(name="email", type="string", required=False, format="email"),
            ToolParameter(
                name="filters",
                type="object",
                required=False,
                properties={
                    "rating_min": ToolParameter(type="integer", min=1, max=5, required=True),
                    "lang": ToolParameter(type="string", default="en"),
                },
            ),
        ],
    )
    ok = t.run(text_data=["good"], filters={"rating_min": 3})
    assert ok.success, ok.error
    assert seen["model"] == "small" and seen["batch_size"] == 10 and seen["threshold"] == 0.5
    assert seen["filters"] == {"rating_min": 3, "lang": "en"}
    bad = t.run(
        text_data=[],
        model="x",
        batch_size=0,
        brand="toolong!",
        threshold=2,
        start="2026-13-45",
        email="nope",
        filters={"lang": 1},
    )
    assert bad.code == "invalid_arguments"
    for path in (
        "text_data",
        "model",
        "batch_size",
        "brand",
        "threshold",
        "start",
        "email",
        "filters.rating_min",
        "filters.lang",
    ):
        assert f"- {path}:" in bad.error.message, path
    assert "valid date string" in bad.error.message


def test_defaults_must_satisfy_their_constraints() -> None:
    from toolrig import ToolDefinitionError

    with pytest.raises(ToolDefinitionError, match=r"batch_size.*default 500"):
        Tool(
            name="t",
            func=lambda **k: None,
            parameters=[ToolParameter(name="batch_size", type="integer", default=500, max=100)],
        )


def test_output_is_validated_against_the_declared_type() -> None:
    @tool
    def count(text: str) -> int:
        return text  # type: ignore[return-value]

    result = count.run(text="abc")
    assert result.code == "invalid_output"
    assert "does not match its declared type" in result.error.message

    def raw(**kwargs: Any) -> Any:
        return {"overall": "sunny"}

    declared = Tool(
        name="sentiment",
        func=raw,
        parameters=[],
        output_schema={
            "type": "object",
            "properties": {"overall": {"type": "string", "enum": ["positive", "negative"]}},
        },
    )
    bad = declared.run()
    assert bad.code == "invalid_output" and "overall" in bad.error.message
