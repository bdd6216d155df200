"""What an imported MCP server may ask of the client, boundary by boundary (docs/mcp.md,
"Importing from servers that ask questions or need OAuth"; ``mcp._client_callbacks``): the
session callbacks called as the SDK calls them, with the hooks of the call in flight.

The promises: a URL is shown to the user only when it is ``https``, or ``http`` on a loopback
host, with a host and no credentials, and only through the ``url_consent`` hook, whose exact
``True`` alone accepts; a form question goes to the elicitor of the moment, its answer filled
with the schema's defaults for what it leaves out (and only that); where nothing can answer,
a question is declined and a completion refused, at once; a completion's messages reach the
sampler as text, each non-text block named; a server's log line reaches the log hook at its
level (``info`` for a level MCP does not have) under the server's name, and a failing hook
never fails the session.

| promise | boundary | test |
|---|---|---|
| safe URL | https; http on `localhost`, 127.x, `::1`; case of scheme and host | `..._safe_*` |
| unsafe URL | http elsewhere, other schemes, no host, a credential, malformed | `..._safe_*` |
| consent | none; an unsafe URL (not asked); `True`; `False`, `1`, `"yes"`, `None` | `..._url_*` |
| form | no elicitor; decline, cancel (no content); accept, defaults filled | `..._form_mode` |
| the moment | the hooks read at each request, not when the connection was made | `..._form_mode` |
| defaults | none given; falsy answers kept; `default: null`; odd properties | `..._defaults_*` |
| sampling | no sampler: refused; text, blocks, an image; prompt, budget passed | `..._sampling` |
| logging | each level; a level MCP lacks: `info`; the server's logger or its name | `..._log_*` |
| a failing hook | the log hook raising: nothing escapes; a debug line, its error | `..._log_a*` |
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

import mcp_types
import pytest

from toolrig.core.context._interaction import LOG_LEVELS, Elicitation, Interaction
from toolrig.mcp._client_callbacks import ClientCallbacks, apply_defaults, url_is_safe

CONTEXT: Any = None  # the SDK's request context: the callbacks do not read it


SAFE = (
    "https://example.com/pay",
    "https://example.com",
    "HTTPS://Example.COM/x",
    "http://localhost:8000/cb",
    "http://LOCALHOST/cb",
    "http://127.0.0.1/",
    "http://127.9.9.9:9/",
    "http://[::1]:8080/",
)
UNSAFE = (
    "http://example.com/pay",
    "http://10.0.0.1/",
    "http://localhost.example.com/",
    "http://[::2]/",
    "ftp://example.com/",
    "javascript:alert(1)",
    "file:///etc/passwd",
    "https://",
    "https:///path",
    "https://user:pw@example.com/",
    "https://user@example.com/",
    "https://:pw@example.com/",
    "http://user@localhost/",
    "http://[::1/",
    "",
)


@pytest.mark.parametrize(("url", "safe"), [(u, True) for u in SAFE] + [(u, False) for u in UNSAFE])
def test_a_safe_url_and_an_unsafe_url(url: str, safe: bool) -> None:
    assert url_is_safe(url) is safe


# -- elicitation ------------------------------------------------------------------------------
class Hooks:
    """The hooks of "the call in flight", replaceable between requests."""

    def __init__(self, **hooks: Any) -> None:
        self.now = Interaction(**hooks)
        self.reads = 0

    def __call__(self) -> Interaction:
        self.reads += 1
        return self.now


def url_request(url: str = "https://example.com/pay") -> mcp_types.ElicitRequestURLParams:
    return mcp_types.ElicitRequestURLParams(message="Pay here", url=url, elicitation_id="e1")


@pytest.mark.parametrize(
    ("answer", "action"),
    [(True, "accept"), (False, "decline"), (1, "decline"), ("yes", "decline"), (None, "decline")],
)
async def test_url_mode_goes_through_consent(answer: Any, action: str) -> None:
    asked: list[tuple[str, str]] = []

    async def consent(message: str, url: str) -> Any:
        asked.append((message, url))
        return answer

    callbacks = ClientCallbacks(Hooks(), "srv", url_consent=consent)
    result = await callbacks.elicit(CONTEXT, url_request())
    assert isinstance(result, mcp_types.ElicitResult)
    assert (result.action, result.content) == (action, None)
    assert asked == [("Pay here", "https://example.com/pay")]


async def test_url_mode_without_consent_or_with_an_unsafe_url_is_declined_unasked() -> None:
    asked: list[str] = []

    async def consent(message: str, url: str) -> bool:
        asked.append(url)
        return True

    refused = await ClientCallbacks(Hooks(), "srv").elicit(CONTEXT, url_request())
    assert isinstance(refused, mcp_types.ElicitResult) and refused.action == "decline"
    with_consent = ClientCallbacks(Hooks(), "srv", url_consent=consent)
    unsafe = await with_consent.elicit(CONTEXT, url_request("http://example.com/pay"))
    assert isinstance(unsafe, mcp_types.ElicitResult) and unsafe.action == "decline"
    assert asked == []


SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "count": {"type": "integer", "default": 3},
        "loud": {"type": "boolean", "default": False},
    },
}


def form() -> mcp_types.ElicitRequestFormParams:
    return mcp_types.ElicitRequestFormParams(message="Who?", requested_schema=SCHEMA)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (Elicitation(action="decline"), ("decline", None)),
        (Elicitation(action="cancel"), ("cancel", None)),
        (Elicitation(action="decline", content={"name": "x"}), ("decline", None)),
        (
            Elicitation(action="accept", content={"name": "Ada"}),
            ("accept", {"name": "Ada", "count": 3, "loud": False}),
        ),
        (
            Elicitation(action="accept", content={"name": "Ada", "count": 0}),
            ("accept", {"name": "Ada", "count": 0, "loud": False}),
        ),
        (Elicitation(action="accept"), ("accept", {"count": 3, "loud": False})),
    ],
)
async def test_form_mode_goes_to_the_elicitor_of_the_moment(
    answer: Elicitation, expected: tuple[str, Any]
) -> None:
    asked: list[tuple[str, Mapping[str, Any]]] = []

    async def elicitor(message: str, schema: Mapping[str, Any]) -> Elicitation:
        asked.append((message, schema))
        return answer

    hooks = Hooks()
    callbacks = ClientCallbacks(hooks, "srv")
    first = await callbacks.elicit(CONTEXT, form())  # nothing answers yet
    assert isinstance(first, mcp_types.ElicitResult) and first.action == "decline"
    hooks.now = Interaction(elicitor=elicitor)  # a call with an elicitor is in flight now
    result = await callbacks.elicit(CONTEXT, form())
    assert isinstance(result, mcp_types.ElicitResult)
    assert (result.action, result.content) == expected
    assert asked == [("Who?", SCHEMA)] and hooks.reads == 2


@pytest.mark.parametrize(
    ("schema", "content", "expected"),
    [
        (SCHEMA, None, {"count": 3, "loud": False}),
        (SCHEMA, {"loud": True, "extra": 1}, {"loud": True, "extra": 1, "count": 3}),
        (SCHEMA, {"count": None, "loud": ""}, {"count": None, "loud": ""}),
        ({"properties": {"x": {"default": None}}}, {}, {"x": None}),
        ({"properties": {"x": {"type": "string"}}}, {}, {}),
        ({}, {"a": 1}, {"a": 1}),
        ({"properties": ["x"]}, {"a": 1}, {"a": 1}),
        ({"properties": {"x": "default"}}, None, {}),
    ],
)
def test_defaults_fill_only_what_is_left_out(
    schema: dict[str, Any], content: dict[str, Any] | None, expected: dict[str, Any]
) -> None:
    before = None if content is None else dict(content)
    assert apply_defaults(schema, content) == expected
    assert content == before  # the answer given is not changed


# -- sampling ---------------------------------------------------------------------------------
def sampling(*messages: mcp_types.SamplingMessage) -> mcp_types.CreateMessageRequestParams:
    return mcp_types.CreateMessageRequestParams(
        messages=list(messages), system_prompt="Be brief.", max_tokens=64
    )


def text(role: Any, value: str) -> mcp_types.SamplingMessage:
    return mcp_types.SamplingMessage(
        role=role, content=mcp_types.TextContent(type="text", text=value)
    )


async def test_sampling() -> None:
    refused = await ClientCallbacks(Hooks(), "srv").sample(CONTEXT, sampling(text("user", "hi")))
    assert isinstance(refused, mcp_types.ErrorData)
    assert refused.code == mcp_types.INVALID_REQUEST
    assert refused.message == "no language model is available to this client"

    seen: list[tuple[Sequence[Any], str | None, int]] = []

    async def sampler(messages: Sequence[Any], system: str | None, budget: int) -> str:
        seen.append((messages, system, budget))
        return "the answer"

    image = mcp_types.ImageContent(type="image", data="aW1n", mime_type="image/png")
    mixed = mcp_types.SamplingMessage.model_construct(
        role="user", content=[mcp_types.TextContent(type="text", text="look"), image]
    )
    request = sampling(
        text("user", "first"),
        text("assistant", "second"),
        mcp_types.SamplingMessage(role="user", content=image),
        mixed,
    )
    result = await ClientCallbacks(Hooks(sampler=sampler), "srv").sample(CONTEXT, request)
    assert isinstance(result, mcp_types.CreateMessageResult)
    assert (result.role, result.model, result.stop_reason) == ("assistant", "toolrig", "endTurn")
    assert result.content == mcp_types.TextContent(type="text", text="the answer")
    assert seen == [
        (
            [
                {"role": "user", "content": "first"},
                {"role": "assistant", "content": "second"},
                {"role": "user", "content": "[image]"},
                {"role": "user", "content": "look\n[image]"},
            ],
            "Be brief.",
            64,
        )
    ]


# -- logging ----------------------------------------------------------------------------------
def log_line(level: str, logger: str | None = None) -> mcp_types.LoggingMessageNotificationParams:
    built: Any = mcp_types.LoggingMessageNotificationParams.model_construct
    return built(level=level, data={"n": 1}, logger=logger)  # type: ignore[no-any-return]


@pytest.mark.parametrize("level", [*LOG_LEVELS, "verbose", "INFO"])
@pytest.mark.parametrize("logger", [None, "db"])
async def test_log_lines_reach_the_log_hook(level: str, logger: str | None) -> None:
    lines: list[tuple[str, Any, str]] = []
    hooks = Hooks(log=lambda lvl, data, name: lines.append((lvl, data, name)))
    await ClientCallbacks(hooks, "my srv").log(log_line(level, logger))
    expected_level = level if level in LOG_LEVELS else "info"
    assert lines == [(expected_level, {"n": 1}, logger or "mcp:my srv")]


async def test_log_a_failing_hook_never_fails_the_session(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(level: str, data: Any, name: str) -> None:
        raise RuntimeError("sink gone")

    with caplog.at_level(logging.DEBUG, logger="toolrig.mcp"):
        await ClientCallbacks(Hooks(log=broken), "srv").log(log_line("error"))
    (told,) = [r for r in caplog.records if r.name == "toolrig.mcp"]
    assert (told.levelno, told.getMessage()) == (logging.DEBUG, "a log hook failed")
    assert told.exc_info is not None and str(told.exc_info[1]) == "sink gone"
