"""``toolrig serve --auth-issuer URL``: serve over HTTP as an OAuth 2.1 resource server.

The options name the issuer whose JWT access tokens count, and optionally the audience they
must name, where its keys are and the public URL of the endpoint; they build the
``ResourceAuth`` of ``toolrig.mcp`` (which answers 401 / 403 / 503 and serves the
protected-resource metadata). Scopes per tool come from the tools (``scopes``, annotations).
"""

from __future__ import annotations

import argparse
from typing import Any

from toolrig.cli._output import CliError

__all__ = ["add_auth_options", "auth_from_args"]


def add_auth_options(parser: argparse.ArgumentParser) -> None:
    """Declare the resource-server options of ``serve``."""
    group = parser.add_argument_group(
        "OAuth (HTTP)",
        "Accept JWT access tokens of an authorization server instead of one --token; each "
        "tool needs its scopes (declared, or tools:read / tools:write / tools:destructive "
        "by its annotations), and tools/list shows a caller only what it may call.",
    )
    group.add_argument(
        "--auth-issuer", metavar="URL", help="the issuer whose tokens are accepted (its iss)"
    )
    group.add_argument(
        "--auth-audience",
        metavar="AUD",
        help="the audience tokens must name (default: the endpoint's public URL)",
    )
    group.add_argument(
        "--jwks-url",
        metavar="URL",
        help="the issuer's JWKS (default: the jwks_uri of its metadata)",
    )
    group.add_argument(
        "--auth-resource",
        metavar="URL",
        help="the endpoint's public URL, in its metadata (default: the URL served)",
    )


def auth_from_args(args: argparse.Namespace, token: str | None) -> Any:
    """The ``ResourceAuth`` the options give (``None``: no OAuth), or `CliError`."""
    given = [args.auth_audience, args.jwks_url, args.auth_resource]
    if args.auth_issuer is None:
        if any(v is not None for v in given):
            raise CliError("--auth-audience, --jwks-url and --auth-resource need --auth-issuer")
        return None
    if token is not None:
        raise CliError("--auth-issuer replaces --token: give one of them")
    if args.transport != "http":
        raise CliError("--auth-issuer guards HTTP: add --transport http")
    from toolrig.mcp._auth import ResourceAuth

    try:
        return ResourceAuth(
            issuer=args.auth_issuer,
            audience=args.auth_audience,
            jwks_url=args.jwks_url,
            resource=args.auth_resource,
        )
    except ValueError as exc:
        raise CliError(str(exc)) from None
