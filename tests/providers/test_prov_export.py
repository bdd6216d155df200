"""Exports: names, strict mode, Gemini's subset, MCP, import of loose definitions, LangChain."""

from __future__ import annotations

import copy
import subprocess
import sys
import warnings
from typing import Any, Literal

import prov_sdk
import pytest
from pydantic import BaseModel

from toolrig import BaseTool, Tool, ToolAnnotations, ToolDefinitionError, ToolExecutor, action, tool
from toolrig.providers import (
    NameMap,
    SchemaNormalizedWarning,
    StrictSchemaError,
    provider_safe_name,
    to_gemini_declarations,
    to_mcp_tools,
    to_openai_chat_tools,
    to_openai_responses_tools,
    to_strict_schema,
    tool_from_function_definition,
)
from toolrig.providers._schema_walk import restore_arguments


class Address(BaseModel):
    street: str
    zip: str | None = None


class Node(BaseModel):
    value: int
    children: list[Node] = []


@tool(annotations=ToolAnnotations(read_only=True, title="Search the catalogue"))
def search(
    query: str,
    limit: int = 10,
    mode: Literal["fast", "deep"] = "fast",
    address: Address | None = None,
    tags: list[str] = [],  # noqa: B006
    scores: dict[str, float] | None = None,
    tree: Node | None = None,
    anything: Any = None,
) -> list[str]:
    """Search the catalogue."""
    return [query]


class FileTool(BaseTool):
    """Reads and writes files."""

    @action(annotations=ToolAnnotations(read_only=True))
    def read(self, path: str) -> str:
        """Read a file."""
        return path

    @action(annotations=ToolAnnotations(destructive=True))
    def write(self, path: str, text: str) -> int:
        """Write a file."""
        return len(text)


def test_every_export_is_accepted_by_the_sdks() -> None:
    executor = ToolExecutor([search, FileTool])
    assert prov_sdk.check_all_exports(executor) == 7
    assert prov_sdk.check_all_exports(search) == 7
    assert prov_sdk.check_all_exports([search, FileTool()]) == 7


def test_names_are_valid_reversible_and_collisions_name_both() -> None:
    assert provider_safe_name("file_tool__read") == "file_tool__read"
    assert provider_safe_name("math.factorial") == "math_factorial"
    assert provider_safe_name("my tool") == "my_tool"
    assert provider_safe_name("3d") == "_3d"
    long = provider_safe_name("x" * 100)
    assert len(long) == 64 and long != provider_safe_name("x" * 101)
    names = NameMap.from_tools(ToolExecutor([search, FileTool]))
    assert [e.provider_name for e in names] == ["search", "file_tool__read", "file_tool__write"]
    assert names.call_name("file_tool__read") == "file_tool__read"
    assert names.call_name("file_tool.read") == "file_tool__read"
    assert names.call_name("unknown") == "unknown"

    dotted = Tool(name="math.add", func=lambda a: a, parameters={"properties": {"a": {}}})
    plain = Tool(name="math_add", func=lambda a: a, parameters={"properties": {"a": {}}})
    assert NameMap.from_tools(dotted).call_name("math_add") == "math.add"
    with pytest.raises(ToolDefinitionError) as info:
        to_openai_chat_tools([dotted, plain])
    assert "`math.add` and `math_add`" in str(info.value)


def test_strict_schema_is_a_fixed_point_of_the_official_check_and_never_mutates() -> None:
    from agents.strict_schema import ensure_strict_json_schema

    params = search.spec.actions["search"].parameters
    before = copy.deepcopy(params)
    strict = to_strict_schema(params)
    assert params == before
    assert ensure_strict_json_schema(copy.deepcopy(strict)) == strict
    assert strict["required"] == list(strict["properties"])
    assert strict["properties"]["limit"] == {
        "type": ["integer", "null"],
        "description": "Default: 10.",
    }
    assert strict["properties"]["mode"]["enum"] == ["fast", "deep", None]
    assert "Give this value as JSON text." in str(strict["properties"]["scores"])
    assert "$ref" not in str(strict) and "$defs" not in strict


def test_strict_refuses_open_top_level() -> None:
    with pytest.raises(StrictSchemaError, match="extra keys"):
        to_strict_schema({"type": "object", "properties": {}, "additionalProperties": True})


def test_strict_moves_unsupported_keywords_into_the_description() -> None:
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 2, "description": "Name."},
            "ids": {"type": "array", "items": {"type": "integer"}, "uniqueItems": True},
        },
        "required": ["name", "ids"],
    }
    strict = to_strict_schema(schema)
    assert strict["properties"]["name"] == {
        "type": "string",
        "description": "Name. At least 2 characters.",
    }
    assert strict["properties"]["ids"]["description"] == "Items must be unique."


def test_restore_arguments_undoes_strict_nulls_and_json_text() -> None:
    params = search.spec.actions["search"].parameters
    sent: dict[str, Any] = {
        "query": "q",
        "limit": None,
        "mode": None,
        "address": {"street": "Main", "zip": None},
        "tags": None,
        "scores": '{"a": 1.5}',
        "tree": None,
        "anything": "[1, 2]",
    }
    frozen = copy.deepcopy(sent)
    restored = restore_arguments(sent, params)
    assert sent == frozen
    assert restored == {
        "query": "q",
        "address": {"street": "Main", "zip": None},
        "scores": {"a": 1.5},
        "tree": None,
        "anything": [1, 2],
    }
    assert search.run(restored).success


def test_gemini_declarations_use_the_gemini_subset() -> None:
    (decl,) = to_gemini_declarations(search)
    props = decl["parameters"]["properties"]
    assert decl["parameters"]["required"] == ["query"]
    assert props["address"]["nullable"] is True and props["address"]["type"] == "OBJECT"
    assert props["address"]["properties"]["zip"] == {"type": "STRING", "nullable": True}
    assert props["mode"]["enum"] == ["fast", "deep"]
    assert props["scores"]["type"] == "STRING"
    prov_sdk.check_gemini_declarations([decl])

    @tool
    def ping() -> str:
        """Ping."""
        return "pong"

    assert to_gemini_declarations(ping) == [{"name": "ping", "description": "Ping."}]


def test_openai_shapes() -> None:
    (chat,) = to_openai_chat_tools(search, strict=True)
    assert chat["type"] == "function" and chat["function"]["strict"] is True
    (resp,) = to_openai_responses_tools(search)
    assert resp["strict"] is False and resp["name"] == "search"
    assert resp["parameters"] == search.spec.actions["search"].parameters


def test_mcp_tools_carry_title_annotations_and_output_schema() -> None:
    tools = {t["name"]: t for t in to_mcp_tools(ToolExecutor([search, FileTool]))}
    assert tools["search"]["title"] == "Search the catalogue"
    assert tools["search"]["annotations"] == {"title": "Search the catalogue", "readOnlyHint": True}
    assert tools["search"]["outputSchema"]["properties"]["result"]["type"] == "array"
    assert tools["file_tool__write"]["annotations"] == {"destructiveHint": True}
    prov_sdk.check_mcp_tools(list(tools.values()))


def test_import_normalises_loose_definitions_with_one_warning() -> None:
    definition = {
        "type": "function",
        "function": {
            "name": "lookup",
            "description": "Look things up.",
            "parameters": {
                "type": "dict",
                "properties": {
                    "where": {"type": "tuple", "items": {"type": "float"}},
                    "flag": {"type": "boolean", "default": "false"},
                    "count": {"type": "integer", "optional": "true", "default": "3"},
                    "kind": {"type": "string", "enum": ["a", "b"], "default": "c"},
                    "data": {"type": "any"},
                    "meta": {"type": "dict"},
                    "note": {"type": "string", "default": None},
                },
                "required": ["where", "count", "missing"],
                "optional": ["flag"],
            },
        },
    }
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        made = tool_from_function_definition(definition, lambda **kw: kw)
    assert len(caught) == 1 and issubclass(caught[0].category, SchemaNormalizedWarning)
    text = str(caught[0].message)
    for part in ("'missing' is not declared", "'false' read as False", "'c' is outside its enum"):
        assert part in text
    params = made.spec.actions["lookup"].parameters
    assert params["required"] == ["where"]
    assert params["properties"]["where"] == {"type": "array", "items": {"type": "number"}}
    assert params["properties"]["count"]["default"] == 3
    assert "default" not in params["properties"]["kind"]
    assert params["properties"]["data"] == {}
    result = made.run({"where": [1, 2.5], "data": None, "meta": {"x": 1}})
    assert result.success and result.output["flag"] is False and result.output["count"] == 3


def test_import_without_quirks_warns_nothing() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        made = tool_from_function_definition(
            '{"name": "f", "parameters": {"type": "object", '
            '"properties": {"a": {"type": "string"}}}}',
            lambda a: a,
        )
    assert made.run({"a": "x"}).output == "x"


def test_langchain_both_ways() -> None:
    from langchain_core.tools import BaseTool as LangChainTool
    from langchain_core.tools import tool as lc_tool

    from toolrig.providers import from_langchain_tool, to_langchain_tools

    executor = ToolExecutor([search, FileTool])
    converted = {t.name: t for t in to_langchain_tools(executor)}
    assert all(isinstance(t, LangChainTool) for t in converted.values())
    assert converted["file_tool__write"].invoke({"path": "p", "text": "abc"}) == 3
    assert converted["search"].invoke({"query": "q"}) == ["q"]
    error = converted["search"].invoke({"query": 5, "bogus": 1})
    assert error.startswith("Error [invalid_arguments]") and "bogus" in error

    @lc_tool
    def multiply(a: int, b: int = 2) -> int:
        """Multiply two integers."""
        return a * b

    imported = from_langchain_tool(multiply)
    result = ToolExecutor([imported]).execute_sync("multiply", {"a": 4})
    assert result.success and result.output == 8
    bad = ToolExecutor([imported]).execute_sync("multiply", {"a": "x"})
    assert bad.code == "invalid_arguments"


def test_langchain_missing_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolrig.providers import to_langchain_tools

    monkeypatch.setitem(sys.modules, "langchain_core.tools", None)
    with pytest.raises(ImportError, match=r"toolrig\[langchain\]"):
        to_langchain_tools(ToolExecutor([search]))


def test_importing_providers_imports_no_sdk() -> None:
    code = (
        "import sys, toolrig.providers\n"
        "sdks = ('openai', 'anthropic', 'google.genai', 'mcp', 'langchain_core', 'agents')\n"
        "bad = [m for m in sdks if m in sys.modules]\n"
        "print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
