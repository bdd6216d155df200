"""Path parameters of ``openapi_tool`` can never change the route: against a real HTTP server
on 127.0.0.1 that records every request's raw path, each value either arrives whole in its
own segment or is refused before any request is sent."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote

import pytest

from asgi_server import serve_asgi
from toolrig.tools import NetPolicy, openapi_tool

DOC: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "repos", "version": "1"},
    "paths": {
        "/repos/{repo}/branches/{branch}": {
            "delete": {
                "operationId": "delete_branch",
                "parameters": [
                    {"name": "repo", "in": "path", "required": True, "schema": {"type": "string"}},
                    {
                        "name": "branch",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string"},
                    },
                ],
                "responses": {"200": {"description": "deleted"}},
            }
        },
        "/files/{name}.json": {
            "get": {
                "operationId": "get_file",
                "parameters": [
                    {"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "responses": {"200": {"description": "the file"}},
            }
        },
    },
}

VALUES = [
    ".",
    "..",
    "...",
    "../..",
    "../admin",
    "../../",
    "..%2F",
    "%2e%2e",
    "%2E%2E",
    "%2e",
    ".%2e",
    "%252e%252e",
    "/",
    "//",
    "a/b",
    "/admin",
    "?x=1",
    "#frag",
    "a;b",
    ";..",
    "..;",
    "a\\b",
    "..\\..",
    " ",
    "",
    "%",
    "%00",
    "\x00",
    "é",
    "\u2024\u2024",
    "．．",
    "~",
    "-",
    ".. ",
    " ..",
    "\t..",
    "line\nbreak",
    "{branch}",
    "{repo}",
    "a%2Fb",
    ".git",
    "..." * 3,
    "x" * 300,
]
ROUTE_CHANGING = {"", ".", ".."}


class Recorder:
    """An ASGI app answering ``{}`` to everything, recording ``(method, raw path)``."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        self.seen.append((scope["method"], scope["raw_path"].decode("latin-1")))
        body = b"{}"
        headers = [(b"content-type", b"application/json"), (b"content-length", b"2")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[Any, Recorder]]:
    recorder = Recorder()
    with serve_asgi(recorder, lifespan="off") as url:
        tool = openapi_tool(DOC, base_url=url, network=NetPolicy(allow=("127.0.0.1",)))
        yield tool, recorder


def _segments(raw: str) -> list[str]:
    return [unquote(part) for part in raw.split("/")[1:]]


@pytest.mark.parametrize("where", ["branch", "both"])
@pytest.mark.parametrize("value", VALUES, ids=[repr(v)[:20] for v in VALUES])
async def test_a_path_parameter_never_reaches_another_route(
    served: tuple[Any, Recorder], value: str, where: str
) -> None:
    tool, recorder = served
    before = len(recorder.seen)
    repo = value if where == "both" else "toolrig"
    result = await tool.aexecute("delete_branch", repo=repo, branch=value)
    if value in ROUTE_CHANGING:
        assert not result.success
        assert result.error.code == "invalid_arguments", result.error
        assert "change which endpoint" in result.error.message
        assert len(recorder.seen) == before  # nothing was sent
        return
    assert result.success, result.error
    method, raw = recorder.seen[-1]
    assert method == "DELETE"
    assert _segments(raw) == ["repos", repo, "branches", value]  # one segment each, intact


@pytest.mark.parametrize("value", VALUES, ids=[repr(v)[:20] for v in VALUES])
async def test_a_parameter_inside_a_segment_stays_inside_it(
    served: tuple[Any, Recorder], value: str
) -> None:
    tool, recorder = served
    result = await tool.aexecute("get_file", name=value)
    assert result.success, result.error  # `{name}.json` is never empty, `.` or `..`
    method, raw = recorder.seen[-1]
    assert (method, _segments(raw)) == ("GET", ["files", f"{value}.json"])
