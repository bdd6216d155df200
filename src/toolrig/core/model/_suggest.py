""" "Did you mean" suggestions for misspelt tool, action and parameter names."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from toolrig.core.model._names import ActionRef

if TYPE_CHECKING:
    from toolrig.core.model._spec import ToolSpec

__all__ = ["closest", "not_found_among", "not_found_message"]


def closest(name: str, candidates: Iterable[str], n: int = 3) -> list[str]:
    """Up to ``n`` candidates close to ``name`` (case-insensitive; substrings count too)."""
    import difflib  # only needed when a name is wrong

    pool = list(candidates)
    lowered = {c.lower(): c for c in pool}
    found = [
        lowered[m] for m in difflib.get_close_matches(name.lower(), list(lowered), n=n, cutoff=0.6)
    ]
    if len(found) < n and len(name) >= 3:
        for c in pool:
            if c not in found and (name.lower() in c.lower() or c.lower() in name.lower()):
                found.append(c)
                if len(found) == n:
                    break
    return found


def not_found_message(name: object, tools: Mapping[str, ToolSpec]) -> str:
    """The one answer to a call name that names nothing: what is wrong and the closest names.

    ``tools`` are the known tools by name. Every entry point (executor, ``Tool.run``,
    providers, MCP server, catalogue lookups) words a missing tool or action with this text.
    """
    text = str(name)
    ref = ActionRef.parse(text)
    tool_name, action_name = (ref.tool, ref.action) if ref.multi else (text, "")
    spec = tools.get(tool_name) if isinstance(name, str) else None
    if spec is not None and (spec.is_multi_action or action_name):
        actions = list(spec.actions)
        if action_name:
            message = f"Tool `{tool_name}` has no action {action_name!r}; action not found."
            near = closest(action_name, actions)
        else:
            message = f"Tool `{tool_name}` has several actions; name one."
            near = []
        if near:
            named = (repr(ActionRef(tool_name, a, True).call_name) for a in near)
            message += f" Did you mean {' or '.join(named)}?"
        if spec.is_multi_action:
            listed_here = (ActionRef(tool_name, a, True).call_name for a in actions)
            return message + f" Available: {', '.join(listed_here)}."
        return message + f" `{tool_name}` is called by its own name."
    listed = (
        ActionRef(t.name, a, t.is_multi_action).call_name for t in tools.values() for a in t.actions
    )
    return not_found_among(name, listed)


def not_found_among(name: object, names: Iterable[str]) -> str:
    """The same answer when the valid names are a plain list (a toolset's offered names): the
    name that was asked for, the closest valid ones, and the valid ones."""
    text = str(name)
    listed = sorted(names)
    near = closest(text, listed) if isinstance(name, str) else []
    message = f"Tool {text!r} not found."
    if near:
        message += f" Did you mean {' or '.join(repr(n) for n in near)}?"
    shown = ", ".join(listed[:50]) or "(none)"
    more = f" and {len(listed) - 50} more" if len(listed) > 50 else ""
    return message + f" Available tools: {shown}{more}."
