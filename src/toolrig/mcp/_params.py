"""Where a remote MCP server is and how its tools run: `ServerParams`.

One frozen description of a server, so that `MCPToolSource`,
`add_mcp_server` and `add_mcp_server_async` share it
instead of each repeating a dozen keywords. Those still take the keywords
(`ServerKeywords`): they build the object, or replace fields of a given one.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias, TypedDict

from toolrig.core.context._interaction import Elicitor, Sampler
from toolrig.core.model._unset import UNSET, Unset

UrlConsent: TypeAlias = Callable[[str, str], Awaitable[bool]]
"""``(message, url) -> agreed``: shows the user why and where a server asks them to go (the
whole URL), opens it if they agree, and says whether they did; ``False`` declines."""

__all__ = ["Protocol", "ServerKeywords", "ServerParams", "UrlConsent"]

Protocol: TypeAlias = Literal["handshake", "auto", "2026-07-28"]
"""How a connection picks its protocol era: ``"handshake"`` (``initialize``, the 2025
revisions), ``"2026-07-28"`` (stateless, input-required rounds), ``"auto"`` (ask the server
with ``server/discover``, fall back to the handshake)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerParams:
    """A remote MCP server: exactly one of ``command`` (a program, or ``[program, *args]``,
    run as a subprocess speaking over stdio) or ``url`` (streamable HTTP).

    ``timeout`` and ``max_retries`` apply to each tool imported from it; ``connect_timeout``
    bounds starting the transport and initializing the session. ``env``, ``headers`` and
    ``token`` are left out of the repr: they often hold secrets.
    """

    command: str | Sequence[str] | None = None
    """Stdio: the program, or ``[program, *args]``."""
    args: Sequence[str] = ()
    """Stdio: arguments after those in ``command``."""
    env: Mapping[str, str] | None = field(default=None, repr=False)
    """Stdio: the environment of the subprocess (``None``: the SDK's default one)."""
    cwd: str | None = None
    """Stdio: the working directory of the subprocess."""
    url: str | None = None
    """Streamable HTTP: the server's endpoint."""
    headers: Mapping[str, str] | None = field(default=None, repr=False)
    """Streamable HTTP: headers sent with every request."""
    token: str | None = field(default=None, repr=False)
    """Streamable HTTP: sent as ``Authorization: Bearer <token>``."""
    timeout: float | Unset | None = UNSET
    """Seconds each imported tool may run (``None``: no limit; left out: the executor's
    default limit)."""
    max_retries: int = 0
    """Retries of each imported tool on a retryable error."""
    connect_timeout: float = 30.0
    """Seconds to connect and initialize the session."""
    auth: Any = field(default=None, repr=False)
    """Streamable HTTP: an ``httpx`` auth flow for every request, such as the ``mcp`` SDK's
    ``OAuthClientProvider`` (OAuth 2.1: discovery, registration, PKCE, token refresh); its
    tokens stay in its storage and out of logs and reprs."""
    elicitor: Elicitor | None = field(default=None, repr=False)
    """Answers the server's ``elicitation/create`` requests (default: the elicitor of the call
    in flight, see `tool_interaction`)."""
    sampler: Sampler | None = field(default=None, repr=False)
    """Answers the server's ``sampling/createMessage`` requests (default: the sampler of the
    call in flight)."""
    url_consent: UrlConsent | None = field(default=None, repr=False)
    """Asks the user to visit the page of a URL-mode ``elicitation/create`` (``(message, url)
    -> agreed``; see ``_client_callbacks``); ``None``: such requests are declined."""

    protocol: Protocol = "handshake"
    """The protocol era to speak (see `Protocol`): on 2026-07-28 the server asks for input
    through input-required rounds, answered by the same ``elicitor`` and ``sampler``."""
    max_input_rounds: int = 8
    """2026-07-28: input-required rounds one call may take before it fails."""
    input_timeout: float | None = 300.0
    """2026-07-28: seconds one call's rounds may take altogether (``None``: no limit)."""

    def __post_init__(self) -> None:
        if (self.command is None) == (self.url is None):
            raise ValueError("give exactly one of `command` (stdio) or `url` (streamable HTTP)")
        if self.command is not None and not _names_program(self.command):
            raise ValueError(
                "`command` must name a program: a non-empty string first, without spaces "
                "around it (its arguments go in a list, or in `args`)"
            )
        if self.token is not None and (not self.token.strip() or not self.token.isprintable()):
            raise ValueError(
                "`token` must be the server's bearer token: not empty, one line of printable "
                "characters (leave it out to send none)"
            )
        if self.auth is not None and self.url is None:
            raise ValueError("`auth` applies to streamable HTTP: give `url`")
        if self.protocol not in ("handshake", "auto", "2026-07-28"):
            raise ValueError(
                f"`protocol` must be 'handshake', 'auto' or '2026-07-28', not {self.protocol!r}"
            )
        if self.max_input_rounds < 1:
            raise ValueError("`max_input_rounds` must be at least 1")
        if isinstance(self.max_retries, bool) or self.max_retries < 0:
            raise ValueError(f"`max_retries` must be 0 or more, not {self.max_retries!r}")
        if not _positive(self.connect_timeout):
            raise ValueError(
                "`connect_timeout` must be a number of seconds above 0, "
                f"not {self.connect_timeout!r}"
            )
        if self.input_timeout is not None and not _positive(self.input_timeout):
            raise ValueError(
                "`input_timeout` must be a number of seconds above 0 or None (no limit), "
                f"not {self.input_timeout!r}"
            )

    @property
    def argv(self) -> list[str]:
        """Stdio: the whole command line, ``command`` then ``args`` (empty for HTTP)."""
        if self.command is None:
            return []
        program = [self.command] if isinstance(self.command, str) else list(self.command)
        return [*program, *self.args]

    @property
    def http_headers(self) -> dict[str, str]:
        """Streamable HTTP: ``headers`` with the ``token`` added as a bearer token (replacing
        an ``Authorization`` header however ``headers`` spells its name: HTTP names are
        case-insensitive, and both would reach the server, the wrong one maybe first)."""
        headers = dict(self.headers or {})
        if self.token is not None:
            for name in [n for n in headers if n.lower() == "authorization"]:
                del headers[name]
            headers["Authorization"] = f"Bearer {self.token}"
        return headers

    @property
    def label(self) -> str:
        """The server as messages name it: its command line or its URL."""
        return " ".join(self.argv) if self.url is None else self.url


def _names_program(command: str | Sequence[str]) -> bool:
    """Whether ``command`` starts with a program's name: not blank, and without the spaces
    around it that no program's path has (a command line given as one string, say)."""
    program = command if isinstance(command, str) else next(iter(command), None)
    return isinstance(program, str) and bool(program) and program == program.strip()


def _positive(seconds: float) -> bool:
    return (
        isinstance(seconds, (int, float))
        and not isinstance(seconds, bool)
        and math.isfinite(seconds)
        and seconds > 0
    )


class ServerKeywords(TypedDict, total=False):
    """The fields of `ServerParams` as keywords, to type ``**keywords`` of the
    functions that take them (defaults and meanings: see `ServerParams`)."""

    command: str | Sequence[str] | None
    args: Sequence[str]
    env: Mapping[str, str] | None
    cwd: str | None
    url: str | None
    headers: Mapping[str, str] | None
    token: str | None
    timeout: float | Unset | None
    max_retries: int
    connect_timeout: float
    auth: Any
    elicitor: Elicitor | None
    sampler: Sampler | None
    url_consent: UrlConsent | None
    protocol: Protocol
    max_input_rounds: int
    input_timeout: float | None
