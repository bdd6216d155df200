"""``toolrig schema --provider ...`` through the real command."""

from __future__ import annotations

import json

import pytest
from cli_runner import CATALOG, one_line_error, toolrig


@pytest.mark.parametrize(
    ("provider", "name_of"),
    [
        ("openai", lambda t: t["function"]["name"]),
        ("openai-responses", lambda t: t["name"]),
        ("anthropic", lambda t: t["name"]),
        ("mcp", lambda t: t["name"]),
    ],
)
def test_each_provider_lists_every_call_name(provider: str, name_of: object) -> None:
    done = toolrig("schema", "--provider", provider, "--json")
    assert done.returncode == 0, done.stderr
    names = {name_of(t) for t in json.loads(done.stdout)}  # type: ignore[operator]
    assert {"add", "search", "notes__add", "notes__read", "shout"} <= names


def test_gemini_is_one_tool_of_declarations() -> None:
    done = toolrig("schema", "--provider", "gemini", "--catalog", CATALOG)
    assert done.returncode == 0, done.stderr
    declarations = json.loads(done.stdout)["functionDeclarations"]
    assert "sentiment_analyzer" in {d["name"] for d in declarations}


def test_strict_mode_closes_every_object() -> None:
    done = toolrig("schema", "--provider", "openai", "--strict")
    assert done.returncode == 0, done.stderr
    for entry in json.loads(done.stdout):
        function = entry["function"]
        assert function["strict"] is True
        params = function["parameters"]
        assert params["additionalProperties"] is False
        assert set(params["required"]) == set(params["properties"])


def test_strict_for_a_provider_without_it_is_a_usage_error() -> None:
    done = toolrig("schema", "--provider", "anthropic", "--strict")
    assert done.returncode == 2
    assert "--strict applies to openai" in one_line_error(done, "schema")
