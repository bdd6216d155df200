"""`ServerParams`, the description of a remote MCP server, boundary by boundary (docs/mcp.md,
"Importing"; ``mcp._params``): what it refuses when it is made, and what it derives.

The promises: exactly one of a command and a URL; a command names a program; OAuth only over
HTTP; a protocol era, a round count, a retry count and the two timeouts each in their range,
refused when made (not at the first call) with a message naming the field; the command line is
the command then its arguments; the token replaces an ``Authorization`` header however it is
spelled, and only when given; the label is the command line or the URL; secrets stay out of
the repr.

| promise | boundary | test |
|---|---|---|
| one server | neither; both; a command; a URL | `test_one_of_command_or_url` |
| a program | `""`, blanks, `[]`, `[5]`, spaces around: refused; a path with one: kept | `..._a_*` |
| OAuth | `auth` with a command: refused; with a URL: kept | `..._oauth_*` |
| protocol | each era kept; `"2025-06-18"`, `""`, `"AUTO"`: refused | `..._protocol` |
| rounds | 0, -1: refused; 1: kept | `..._in_range` |
| retries | -1, `True`: refused; 0, 3: kept | `..._in_range` |
| connect timeout | 0, -1, nan, inf, `True`, `"5"`: refused; 0.01, 30: kept | `..._in_range` |
| input timeout | 0, -1, nan, inf: refused; `None`, 0.5: kept | `..._in_range` |
| argv | a string, a list, with `args`; HTTP: `[]` | `test_argv_and_label` |
| label | the command line joined; the URL | `test_argv_and_label` |
| headers | none, given; a token alone, over `Authorization` in any case | `..._headers` |
| no token | an `Authorization` header kept as given | `..._headers` |
| a bad token | `""`, blanks, a CR LF and a header, a newline, a NUL: refused | `..._no_token_*` |
| secrets | env, headers, token, auth: not in the repr | `test_secrets_stay_out_of_the_repr` |

Found by this table and fixed: an empty command (``""``, ``"  "``, ``[""]``) was taken and
failed at the first call; an empty token sent `Bearer ` and one holding a line break reached
the HTTP layer; a negative retry count, and a connect or input timeout of zero,
below zero or not a number, were taken too (a zero connect timeout failed every connection).
"""

from __future__ import annotations

from typing import Any

import pytest

from toolrig.mcp import ServerParams

URL = "http://127.0.0.1:1/mcp"


def test_one_of_command_or_url() -> None:
    nothing: dict[str, Any] = {}
    for fields in (nothing, {"command": "srv", "url": URL}):
        with pytest.raises(
            ValueError, match=r"give exactly one of `command` \(stdio\) or `url`"
        ) as e:
            ServerParams(**fields)
        assert str(e.value) == "give exactly one of `command` (stdio) or `url` (streamable HTTP)"
    assert ServerParams(command="srv").url is None
    assert ServerParams(url=URL).command is None


@pytest.mark.parametrize(
    "command", ["", "  ", [], [""], [" ", "x"], [5], "srv ", " srv", ["srv\n"], "python -m srv "]
)
def test_a_command_names_a_program(command: Any) -> None:
    with pytest.raises(ValueError, match="`command` must name a program") as refused:
        ServerParams(command=command)
    assert str(refused.value) == (
        "`command` must name a program: a non-empty string first, without spaces around it "
        "(its arguments go in a list, or in `args`)"
    )


@pytest.mark.parametrize("command", ["srv", ["srv"], ("srv", "-v"), "/opt/my tools/srv"])
def test_a_command_that_names_a_program_is_kept(command: Any) -> None:
    assert ServerParams(command=command).command == command


def test_oauth_is_for_http_only() -> None:
    flow = object()
    with pytest.raises(ValueError, match="`auth` applies to streamable HTTP") as refused:
        ServerParams(command="srv", auth=flow)
    assert str(refused.value) == "`auth` applies to streamable HTTP: give `url`"
    assert ServerParams(url=URL, auth=flow).auth is flow


@pytest.mark.parametrize("protocol", ["handshake", "auto", "2026-07-28"])
def test_each_protocol_era_is_kept(protocol: Any) -> None:
    assert ServerParams(url=URL, protocol=protocol).protocol == protocol


@pytest.mark.parametrize("protocol", ["2025-06-18", "", "AUTO", None])
def test_another_protocol_is_refused(protocol: Any) -> None:
    with pytest.raises(ValueError, match="`protocol` must be") as refused:
        ServerParams(url=URL, protocol=protocol)
    assert str(refused.value) == (
        f"`protocol` must be 'handshake', 'auto' or '2026-07-28', not {protocol!r}"
    )


RANGES: list[tuple[str, Any, str | None]] = [
    # field, value, the message's start when refused (None: kept)
    ("max_input_rounds", 0, "`max_input_rounds` must be at least 1"),
    ("max_input_rounds", -1, "`max_input_rounds` must be at least 1"),
    ("max_input_rounds", 1, None),
    ("max_retries", -1, "`max_retries` must be 0 or more, not -1"),
    ("max_retries", True, "`max_retries` must be 0 or more, not True"),
    ("max_retries", 0, None),
    ("max_retries", 3, None),
    ("connect_timeout", 0, "`connect_timeout` must be a number of seconds above 0, not 0"),
    ("connect_timeout", -1.0, "`connect_timeout` must be a number of seconds above 0"),
    ("connect_timeout", float("nan"), "`connect_timeout` must be a number of seconds above 0"),
    ("connect_timeout", float("inf"), "`connect_timeout` must be a number of seconds above 0"),
    ("connect_timeout", True, "`connect_timeout` must be a number of seconds above 0"),
    ("connect_timeout", "5", "`connect_timeout` must be a number of seconds above 0, not '5'"),
    ("connect_timeout", 0.01, None),
    ("connect_timeout", 30, None),
    ("input_timeout", 0, "`input_timeout` must be a number of seconds above 0 or None"),
    ("input_timeout", -0.5, "`input_timeout` must be a number of seconds above 0 or None"),
    ("input_timeout", float("nan"), "`input_timeout` must be a number of seconds above 0"),
    ("input_timeout", float("inf"), "`input_timeout` must be a number of seconds above 0"),
    ("input_timeout", None, None),
    ("input_timeout", 0.5, None),
]


@pytest.mark.parametrize(("name", "value", "refused"), RANGES)
def test_each_count_and_timeout_in_range(name: str, value: Any, refused: str | None) -> None:
    if refused is None:
        assert getattr(ServerParams(url=URL, **{name: value}), name) is value
        return
    with pytest.raises(ValueError, match=f"`{name}` must be") as error:
        ServerParams(url=URL, **{name: value})
    assert str(error.value).startswith(refused), str(error.value)


def test_the_defaults() -> None:
    params = ServerParams(url=URL)
    assert (params.max_retries, params.connect_timeout) == (0, 30.0)
    assert (params.max_input_rounds, params.input_timeout, params.protocol) == (
        8,
        300.0,
        "handshake",
    )


def test_argv_and_label() -> None:
    assert ServerParams(command="srv").argv == ["srv"]
    assert ServerParams(command="srv", args=["-v", "x y"]).argv == ["srv", "-v", "x y"]
    listed = ServerParams(command=["python", "-m", "srv"], args=("--flag",))
    assert listed.argv == ["python", "-m", "srv", "--flag"]
    assert listed.label == "python -m srv --flag"
    web = ServerParams(url=URL, args=["ignored"])
    assert web.argv == [] and web.label == URL


@pytest.mark.parametrize(
    ("headers", "token", "expected"),
    [
        (None, None, {}),
        ({"X-A": "1"}, None, {"X-A": "1"}),
        ({"Authorization": "Basic abc"}, None, {"Authorization": "Basic abc"}),
        (None, "t0k", {"Authorization": "Bearer t0k"}),
        ({"X-A": "1"}, "t0k", {"X-A": "1", "Authorization": "Bearer t0k"}),
        ({"Authorization": "Basic abc"}, "t0k", {"Authorization": "Bearer t0k"}),
        (
            {"authorization": "Basic abc", "X-A": "1"},
            "t0k",
            {"X-A": "1", "Authorization": "Bearer t0k"},
        ),
        ({"AUTHORIZATION": "x", "authorization": "y"}, "t0k", {"Authorization": "Bearer t0k"}),
    ],
)
def test_the_headers(
    headers: dict[str, str] | None, token: str | None, expected: dict[str, str]
) -> None:
    params = ServerParams(url=URL, headers=headers, token=token)
    assert params.http_headers == expected
    if headers is not None:
        assert params.headers == headers  # the given mapping is not changed


@pytest.mark.parametrize("token", ["", "   ", "t0k\r\nX-Evil: 1", "t0k\n", "t\x00k"])
def test_a_token_that_is_no_token_is_refused(token: str) -> None:
    with pytest.raises(ValueError, match="`token` must be the server's bearer token") as refused:
        ServerParams(url=URL, token=token)
    assert str(refused.value) == (
        "`token` must be the server's bearer token: not empty, one line of printable characters "
        "(leave it out to send none)"
    )


def test_secrets_stay_out_of_the_repr() -> None:
    params = ServerParams(
        url=URL, headers={"X-Key": "hdr-secret"}, token="tok-secret", auth="auth-secret"
    )
    stdio = ServerParams(command="srv", env={"KEY": "env-secret"})
    shown = repr(params) + repr(stdio)
    for secret in ("hdr-secret", "tok-secret", "auth-secret", "env-secret"):
        assert secret not in shown
    assert URL in shown and "'srv'" in shown
