"""The approval policy a session keeps: stored with it on every save, so that a later run (in
any process) holds at least what the first one held.

A run's policy is the stored one joined with its agent's: tool names add up, ``destructive``
stays on once on. A resume may therefore tighten the policy, never loosen it. A ``when=``
function cannot be stored; the session remembers that it had one, and a run whose agent has
none is refused rather than run with less.

Beside the policy the session keeps its standing rules: the tools a person allowed for the
session (`AllowForSession`), whose later calls pass the gate in every later run.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from toolrig.agent._approval import ApprovalPolicy

__all__ = ["policy_data", "session_policy", "standing_allows"]


def policy_data(
    policy: ApprovalPolicy | None, allowed: Collection[str] = ()
) -> dict[str, Any] | None:
    """``policy`` and the tools ``allowed`` for the session as JSON data for the session
    store (``None``: no policy)."""
    if policy is None:
        return None
    data: dict[str, Any] = {
        "tools": sorted(policy.tools),
        "destructive": policy.destructive,
        "when": policy.when is not None,
    }
    if allowed:
        data["allowed"] = sorted(allowed)
    return data


def standing_allows(stored: Mapping[str, Any] | None) -> list[str]:
    """The tools a person allowed for the session, as the stored policy keeps them."""
    return [str(t) for t in (stored or {}).get("allowed") or ()]


def session_policy(
    session_id: str, own: ApprovalPolicy | None, stored: Mapping[str, Any] | None
) -> ApprovalPolicy | None:
    """The policy a run on ``session_id`` follows: the agent's ``own`` joined with the one the
    session ``stored``; ``ValueError`` when the stored one had a ``when=`` rule this agent
    lacks."""
    if not stored:
        return own
    if stored.get("when") and (own is None or own.when is None):
        raise ValueError(
            f"session {session_id!r} is governed by an approval policy with a when= rule, "
            "which cannot be stored: continue it with an agent whose ApprovalPolicy has the "
            "same when= rule"
        )
    tools = set(stored.get("tools") or ()) | set(own.tools if own is not None else ())
    return ApprovalPolicy(
        tools=tuple(sorted(tools)),
        destructive=bool(stored.get("destructive")) or (own is not None and own.destructive),
        when=None if own is None else own.when,
    )
