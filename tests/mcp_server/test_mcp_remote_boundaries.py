"""A remote MCP tool as a toolrig tool, boundary by boundary (docs/mcp.md, "Importing";
``mcp._remote``): the pure conversions between the SDK's ``Tool`` and ``CallToolResult`` and
toolrig's `Tool`, output and `ToolError`, each field present, absent and malformed.

The promises: an imported tool is the remote's (its description, schema, output schema, title,
hints and safe icons) under its local name, and its call goes to the remote name with the
arguments as given; a result is its structured content (unwrapped when the server marked it),
else its text, else its blocks as typed content; a failure is a `ToolError` with the remote's
message, and with a toolrig server's code, hint, details and retryability.

| promise | boundary | test |
|---|---|---|
| the prefix | 1 or 40 long, `_` first: kept; empty, 41, a digit, `-`, `.` first | `..._prefix` |
| the name | `prefix__remote`, made provider-safe (dots, length) | `test_local_name` |
| description | given; absent or empty: names the remote tool and the server | `..._description` |
| schema | the input schema as sent; output schema absent, given, wrapped | `..._schemas` |
| wrapped | the marker `true`, a `result` object; `"true"`, `1`, no `result` dict | `..._wrapped` |
| options | timeout, retries, the `mcp` tag, the local name | `..._carried` |
| the call | the remote name (not the local one), the arguments, the context | `..._carried` |
| title | none: unset; the tool's, the hints' title, both: the tool's | `..._title` |
| hints | each hint alone lands on its own field, the others unset | `..._hint` |
| icons | none; https, `data:image/`; `http:`, `javascript:`, bad size: dropped | `..._icons` |
| output | structured (even `{}`), wrapped or not; text joined; none: `""` | `..._output` |
| blocks | text, image, audio, text and blob resources (± mime type), a link | `..._blocks` |
| failure | text joined (other blocks left out); none: a message naming the tool | `..._failure` |
| toolrig's error | each part; code or retryable absent; message not text | `..._keeps_*` |

Found by this table: no test looked at an imported tool's description, title, hints or
results' blocks (mutation left 139 of 244 changes to this module alive).
"""

from __future__ import annotations

from typing import Any

import mcp_types
import pytest

from toolrig import ToolExecutor
from toolrig.core.context._context import ToolContext
from toolrig.core.model._errors import ToolError
from toolrig.core.model._options import ToolIcon
from toolrig.core.model._spec import ToolAnnotations
from toolrig.core.result._content import Audio, EmbeddedResource, Image, ResourceLink, TextContent
from toolrig.mcp._remote import (
    build_remote_tool,
    is_wrapped,
    local_name,
    output_of,
    validate_prefix,
)

SCHEMA: dict[str, Any] = {"type": "object", "properties": {"n": {"type": "integer"}}}
MARKER = "x-fastmcp-wrap-result"


def remote(**fields: Any) -> mcp_types.Tool:
    return mcp_types.Tool(name=fields.pop("name", "get.user"), input_schema=SCHEMA, **fields)


def text(value: str) -> mcp_types.TextContent:
    return mcp_types.TextContent(type="text", text=value)


def result(*blocks: Any, **fields: Any) -> mcp_types.CallToolResult:
    return mcp_types.CallToolResult(content=list(blocks), **fields)


async def _never(name: str, arguments: dict[str, Any], ctx: ToolContext | None) -> Any:
    raise AssertionError("not called")


def built(tool: mcp_types.Tool, **options: Any) -> Any:
    return build_remote_tool(tool, name="srv__get_user", call=_never, source="srv", **options)


# -- names ------------------------------------------------------------------------------------
@pytest.mark.parametrize("prefix", ["a", "_", "Z", "a" * 40, "a-b_9"])
def test_a_valid_prefix_is_kept(prefix: str) -> None:
    assert validate_prefix(prefix) == prefix


@pytest.mark.parametrize("prefix", ["", "a" * 41, "1a", "-a", ".a", " a", "a.b", "a b", "é"])
def test_an_invalid_prefix_is_refused(prefix: str) -> None:
    with pytest.raises(ValueError, match=r"^invalid MCP server prefix ") as refused:
        validate_prefix(prefix)
    assert str(refused.value) == (
        f"invalid MCP server prefix {prefix!r}: use 1-40 letters, digits, '_' or '-', "
        "starting with a letter or '_'"
    )


def test_local_name() -> None:
    assert local_name("srv", "get-user") == "srv__get-user"
    assert local_name("srv", "a.b/c") == "srv__a_b_c"
    long = local_name("srv", "x" * 80)
    assert len(long) <= 64 and long.startswith("srv__xxx") and long != local_name("srv", "x" * 81)


# -- the definition ---------------------------------------------------------------------------
@pytest.mark.parametrize("given", ["Reads a user.", None, ""])
def test_the_description(given: str | None) -> None:
    tool = built(remote(description=given))
    expected = given or "`get.user` from the MCP server srv."
    assert tool.description == expected
    assert tool.spec.actions["srv__get_user"].description == expected


@pytest.mark.parametrize("shape", ["none", "plain", "wrapped"])
def test_the_schemas(shape: str) -> None:
    inner = {"type": "integer"}
    output = {
        "none": None,
        "plain": {"type": "object", "properties": {"result": inner}},
        "wrapped": {"type": "object", "properties": {"result": inner}, MARKER: True},
    }[shape]
    tool = built(remote(output_schema=output))
    spec = tool.spec.actions["srv__get_user"]
    assert spec.parameters == SCHEMA
    assert spec.output_schema == {"none": None, "plain": output, "wrapped": inner}[shape]


@pytest.mark.parametrize(
    ("schema", "wrapped"),
    [
        (None, False),
        ({"properties": {"result": {"type": "string"}}, MARKER: True}, True),
        ({"properties": {"result": {"type": "string"}}}, False),
        ({"properties": {"result": {"type": "string"}}, MARKER: "true"}, False),
        ({"properties": {"result": {"type": "string"}}, MARKER: 1}, False),
        ({MARKER: True}, False),
        ({"properties": None, MARKER: True}, False),
        ({"properties": {"other": {}}, MARKER: True}, False),
        ({"properties": {"result": True}, MARKER: True}, False),
    ],
)
def test_wrapped(schema: dict[str, Any] | None, wrapped: bool) -> None:
    assert is_wrapped(schema) is wrapped


@pytest.mark.parametrize("wrapped", [False, True])
def test_options_and_the_call_are_carried(wrapped: bool) -> None:
    seen: list[tuple[str, dict[str, Any], Any]] = []
    value = {"result": 7, "more": 1}

    async def call(name: str, arguments: dict[str, Any], ctx: Any) -> mcp_types.CallToolResult:
        seen.append((name, arguments, ctx))
        return result(structured_content=value)

    inner = {"type": "integer"}
    schema = {"type": "object", "properties": {"result": inner}, MARKER: True}
    tool = build_remote_tool(
        remote(output_schema=schema if wrapped else None),
        name="srv__get_user",
        call=call,
        source="srv",
        timeout=3.5,
        max_retries=2,
    )
    assert (tool.name, tool.timeout, tool.max_retries, tool.tags) == (
        "srv__get_user",
        3.5,
        2,
        ("mcp",),
    )
    answer = ToolExecutor([tool]).execute_sync("srv__get_user", {"n": 4})
    assert answer.success, answer.error
    assert answer.output == (7 if wrapped else value)
    ((name, arguments, ctx),) = seen
    assert (name, arguments) == ("get.user", {"n": 4}) and isinstance(ctx, ToolContext)


def test_a_failed_call_names_the_remote_tool() -> None:
    async def call(name: str, arguments: dict[str, Any], ctx: Any) -> mcp_types.CallToolResult:
        return result(is_error=True)

    tool = build_remote_tool(remote(), name="srv__get_user", call=call, source="srv")
    answer = ToolExecutor([tool]).execute_sync("srv__get_user", {"n": 1})
    assert not answer.success and answer.error is not None
    assert answer.error.message == "the remote tool `get.user` failed without a message"


def test_defaults_are_unset() -> None:
    tool = built(remote())
    assert tool.max_retries == 0 and tool.icons == () and tool.annotations == ToolAnnotations()


# -- title and hints --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("title", "hints_title", "expected"),
    [
        (None, "Hinted", "Hinted"),
        ("Own", None, "Own"),
        ("Own", "Hinted", "Own"),
        (None, None, None),
        ("", None, None),
        ("", "Hinted", "Hinted"),
    ],
)
def test_the_title(title: str | None, hints_title: str | None, expected: str | None) -> None:
    tool = built(remote(title=title, annotations=mcp_types.ToolAnnotations(title=hints_title)))
    assert tool.annotations == ToolAnnotations(title=expected)
    bare = built(remote(title=title))  # no hints at all
    assert bare.annotations == ToolAnnotations(title=title or None)


def test_no_title_and_no_hints_is_no_annotations() -> None:
    assert built(remote()).annotations == ToolAnnotations()
    assert built(remote(title="Own")).annotations == ToolAnnotations(title="Own")


@pytest.mark.parametrize(
    ("hint", "field"),
    [
        ("read_only_hint", "read_only"),
        ("destructive_hint", "destructive"),
        ("idempotent_hint", "idempotent"),
        ("open_world_hint", "open_world"),
    ],
)
@pytest.mark.parametrize("value", [True, False])
def test_each_hint_lands_on_its_own_field(hint: str, field: str, value: bool) -> None:
    tool = built(remote(annotations=mcp_types.ToolAnnotations(**{hint: value})))
    assert tool.annotations == ToolAnnotations(**{field: value})


# -- icons ------------------------------------------------------------------------------------
def test_the_icons() -> None:
    icons = [
        mcp_types.Icon(src="http://plain/a.png"),
        mcp_types.Icon(src="https://x/a.png", mime_type="image/png", sizes=["48x48"], theme="dark"),
        mcp_types.Icon(src="javascript:alert(1)"),
        mcp_types.Icon(src="https://x/b.png", sizes=["huge"]),
        mcp_types.Icon(src="data:image/png;base64,AAAA"),
    ]
    tool = built(remote(icons=icons))
    assert tool.icons == (
        ToolIcon.model_validate(
            {"src": "https://x/a.png", "mimeType": "image/png", "sizes": ["48x48"], "theme": "dark"}
        ),
        ToolIcon(src="data:image/png;base64,AAAA"),
    )
    assert built(remote(icons=[])).icons == ()


# -- results ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("answer", "wrapped", "expected"),
    [
        (result(text("ignored"), structured_content={"a": 1}), False, {"a": 1}),
        (result(structured_content={}), False, {}),
        (result(structured_content={"result": 5, "b": 1}), True, 5),
        (result(structured_content={"result": 5, "b": 1}), False, {"result": 5, "b": 1}),
        (result(structured_content={"b": 1}), True, {"b": 1}),
        (result(structured_content={"result": None}), True, None),
        (result(text("one"), text("two")), False, "one\ntwo"),
        (result(text("")), False, ""),
        (result(), False, ""),
        (result(), True, ""),
    ],
)
def test_the_output(answer: mcp_types.CallToolResult, wrapped: bool, expected: Any) -> None:
    assert output_of(answer, "get.user", wrapped=wrapped) == expected
    if not wrapped:  # not wrapped unless told
        assert output_of(answer, "get.user") == expected


def test_a_block_of_another_kind_is_its_data() -> None:
    """A kind toolrig has no type for (here a sampling tool-use block, should a server send
    one) comes back as its JSON, under its wire names, without its unset fields."""
    other = mcp_types.ToolUseContent(
        type="tool_use", id="u1", name="lookup", input={"pair": (1, 2)}, _meta={"k": 1}
    )
    bare = mcp_types.ToolUseContent(type="tool_use", id="u2", name="lookup", input={})
    blocks: list[Any] = [text("see"), other, bare]
    answer = mcp_types.CallToolResult.model_construct(content=blocks)
    assert output_of(answer, "get.user") == [
        TextContent(text="see"),
        {
            "type": "tool_use",
            "id": "u1",
            "name": "lookup",
            "input": {"pair": [1, 2]},
            "_meta": {"k": 1},
        },
        {"type": "tool_use", "id": "u2", "name": "lookup", "input": {}},  # no "_meta": None
    ]


def test_blocks_stay_typed() -> None:
    blocks = [
        text("caption"),
        mcp_types.ImageContent(type="image", data="aW1n", mime_type="image/webp"),
        mcp_types.AudioContent(type="audio", data="YXVk", mime_type="audio/ogg"),
        mcp_types.EmbeddedResource(
            type="resource",
            resource=mcp_types.TextResourceContents(
                uri="file:///a.txt", mime_type="text/plain", text="hello"
            ),
        ),
        mcp_types.EmbeddedResource(
            type="resource",
            resource=mcp_types.TextResourceContents(uri="file:///b", text="untyped"),
        ),
        mcp_types.EmbeddedResource(
            type="resource",
            resource=mcp_types.BlobResourceContents(
                uri="file:///c.bin", mime_type="application/zip", blob="Ymxi"
            ),
        ),
        mcp_types.EmbeddedResource(
            type="resource", resource=mcp_types.BlobResourceContents(uri="file:///d", blob="ZA==")
        ),
        mcp_types.ResourceLink(
            type="resource_link",
            uri="file:///e.csv",
            name="e.csv",
            mime_type="text/csv",
            description="rows",
            size=12,
        ),
    ]
    octet = "application/octet-stream"
    assert output_of(result(*blocks), "get.user") == [
        TextContent(text="caption"),
        Image(data="aW1n", mime_type="image/webp"),
        Audio(data="YXVk", mime_type="audio/ogg"),
        EmbeddedResource(uri="file:///a.txt", mime_type="text/plain", text="hello"),
        EmbeddedResource(uri="file:///b", mime_type=octet, text="untyped"),
        EmbeddedResource(uri="file:///c.bin", mime_type="application/zip", blob="Ymxi"),
        EmbeddedResource(uri="file:///d", mime_type=octet, blob="ZA=="),
        ResourceLink(
            uri="file:///e.csv", name="e.csv", mime_type="text/csv", description="rows", size=12
        ),
    ]


# -- failures ---------------------------------------------------------------------------------
def _failure(answer: mcp_types.CallToolResult) -> ToolError:
    with pytest.raises(ToolError) as raised:
        output_of(answer, "get.user", wrapped=True)
    return raised.value


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (result(text("no such user"), is_error=True), "no such user"),
        (
            result(
                text("line one"),
                mcp_types.ImageContent(type="image", data="aW1n", mime_type="image/png"),
                text("line two"),
                is_error=True,
            ),
            "line one\nline two",
        ),
        (result(is_error=True), "the remote tool `get.user` failed without a message"),
        (
            result(structured_content={"result": 1}, is_error=True),
            "the remote tool `get.user` failed without a message",
        ),
    ],
)
def test_a_failure_is_the_remote_message(answer: mcp_types.CallToolResult, message: str) -> None:
    error = _failure(answer)
    assert (error.message, error.code, error.hint, error.details) == (
        message,
        "execution_error",
        None,
        None,
    )
    assert error.retryable is False


ERROR_META: list[tuple[Any, tuple[str, str, Any, Any, bool]]] = [
    # what the server put under _meta["toolrig/error"]: (message, code, hint, details, retryable)
    (
        {"message": "m", "code": "not_found", "hint": "list", "details": {"k": 1}, "retryable": 1},
        ("m", "not_found", "list", {"k": 1}, True),
    ),
    ({"message": "m"}, ("m", "execution_error", None, None, False)),
    ({"message": "m", "code": "", "retryable": False}, ("m", "execution_error", None, None, False)),
    ({"message": 5, "code": "not_found"}, ("plain", "execution_error", None, None, False)),
    ({"code": "not_found"}, ("plain", "execution_error", None, None, False)),
    ("not an object", ("plain", "execution_error", None, None, False)),
]


@pytest.mark.parametrize(("meta", "expected"), ERROR_META)
def test_a_toolrig_servers_error_keeps_its_parts(meta: Any, expected: tuple[Any, ...]) -> None:
    error = _failure(result(text("plain"), is_error=True, _meta={"toolrig/error": meta}))
    assert (error.message, error.code, error.hint, error.details, error.retryable) == expected


def test_other_meta_is_not_an_error_of_toolrig() -> None:
    error = _failure(result(text("plain"), is_error=True, _meta={"other/error": {"message": "m"}}))
    assert (error.message, error.code) == ("plain", "execution_error")
