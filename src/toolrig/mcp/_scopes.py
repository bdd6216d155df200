"""Which OAuth scopes each served tool needs, and whether the caller holds them.

A tool's scopes are declared on it (``scopes=``, for all its actions) or derived from each
action's annotations by a `ScopePolicy`: a read-only tool needs the policy's ``read`` scope, one
that writes without destroying (``destructive=False``) its ``write`` scope, and any other its
``destructive`` scope (MCP's defaults: a tool that is not read-only may destroy). A caller
needs every scope of a tool to call it, and ``tools/list`` shows it only the tools it may
call. `ScopeCheck` is what a `ToolServer` consults on each of those requests; the caller's
grant comes from the HTTP request the SDK hands the handler (or the SDK's auth context on the
direct stateless path). No grant where one is required means no tool: the check fails closed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any, Final, Protocol, TypeVar

from mcp.server.auth.middleware.auth_context import auth_context_var
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.shared.exceptions import MCPError

from toolrig.providers._names import ExportedAction, NameMap

__all__ = ["FORBIDDEN", "ScopeCheck", "ScopePolicy", "caller_identity", "caller_scopes"]


class _Listed(Protocol):
    @property
    def names(self) -> NameMap: ...


_L = TypeVar("_L", bound=_Listed)

FORBIDDEN: Final = -32003
"""The JSON-RPC error code of a call refused for want of a scope (outside the HTTP answer)."""


@dataclass(frozen=True, slots=True)
class ScopePolicy:
    """The scope names tools without declared ``scopes`` need, by their annotations."""

    read: str = "tools:read"
    write: str = "tools:write"
    destructive: str = "tools:destructive"

    def required(self, entry: ExportedAction) -> frozenset[str]:
        """The scopes a caller needs to call ``entry`` (declared ones win)."""
        if entry.tool.scopes:
            return frozenset(entry.tool.scopes)
        hints = entry.tool.action_annotations(entry.action.name)
        if hints.read_only:
            return frozenset({self.read})
        return frozenset({self.write if hints.destructive is False else self.destructive})


@dataclass(frozen=True, slots=True)
class ScopeCheck:
    """Scopes enforced on ``tools/list`` and on every path that runs a tool, by ``policy``
    (``None``: no scopes checked, every tool listed and callable)."""

    policy: ScopePolicy | None = None

    def missing(self, entry: ExportedAction, granted: frozenset[str] | None) -> frozenset[str]:
        """The scopes of ``entry`` the grant lacks (all of them without a grant)."""
        if self.policy is None:
            return frozenset()
        needed = self.policy.required(entry)
        return needed if granted is None else needed - granted

    def check(self, entry: ExportedAction, ctx: Any = None) -> None:
        """Raise `MCPError` (`FORBIDDEN`) unless the caller of ``ctx`` may call ``entry``."""
        if self.policy is None:
            return
        lacking = self.missing(entry, caller_scopes(ctx))
        if lacking:
            raise MCPError(
                code=FORBIDDEN,
                message=f"insufficient_scope: tool {entry.provider_name!r} needs scope "
                f"{' '.join(sorted(lacking))}",
            )

    def reaches(self, names: NameMap, call_name: str, ctx: Any = None) -> bool:
        """Whether the caller of ``ctx`` may call the action ``call_name`` of ``names`` (one
        gone from them: only when no scopes are checked)."""
        if self.policy is None:
            return True
        entry = next((e for e in names if e.call_name == call_name), None)
        return entry is not None and not self.missing(entry, caller_scopes(ctx))

    def admit(self, name: str, listing: _L, ctx: Any = None) -> _L:
        """The listing to look ``name`` up in for the caller of ``ctx``: the whole one for a
        tool it may call, `MCPError` (`FORBIDDEN`) for a listed tool it may not, and for any
        other name the tools it may call only (so the not-found message names no other)."""
        entry = listing.names.lookup(name)
        if entry is not None and entry.provider_name == name:
            self.check(entry, ctx)
            return listing
        return self.narrowed(listing, ctx)

    def narrowed(self, listing: _L, ctx: Any = None) -> _L:
        """``listing`` (a dataclass with ``names``) reduced to the tools the caller may call."""
        if self.policy is None:
            return listing
        granted = caller_scopes(ctx)
        names = NameMap(e for e in listing.names if not self.missing(e, granted))
        return replace(listing, names=names)  # type: ignore[type-var]

    def visible(self, tools: list[Any], names: NameMap, ctx: Any) -> list[Any]:
        """The ``tools/list`` entries the caller of ``ctx`` may call."""
        if self.policy is None:
            return tools
        granted = caller_scopes(ctx)
        shown = []
        for tool in tools:
            entry = names.lookup(tool["name"])
            if entry is not None and not self.missing(entry, granted):
                shown.append(tool)
        return shown

    def supported(self, names: NameMap) -> list[str]:
        """Every scope some tool needs (``scopes_supported`` of the resource's metadata)."""
        policy = self.policy or ScopePolicy()
        found = {policy.read, policy.write, policy.destructive}
        for entry in names:
            found |= policy.required(entry)
        return sorted(found)


def _caller(ctx: Any) -> AccessToken | None:
    """The verified token of a request's caller: from the HTTP request the SDK passes the
    handler, else from the SDK's auth context."""
    request = getattr(ctx, "request", None)
    user = getattr(request, "scope", {}).get("user") if request is not None else None
    if not isinstance(user, AuthenticatedUser):
        user = auth_context_var.get()
    return None if user is None else user.access_token


def caller_scopes(ctx: Any = None) -> frozenset[str] | None:
    """The scopes granted to the caller of a request (``None``: no verified token)."""
    token = _caller(ctx)
    return None if token is None else frozenset(token.scopes)


def caller_identity(ctx: Any = None) -> str | None:
    """Who calls (``None``: no verified token): the token's subject and client, one string
    (what a task's owner is compared by)."""
    token = _caller(ctx)
    return None if token is None else json.dumps([token.subject, token.client_id])
