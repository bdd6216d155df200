"""Call ids unique within a session: a repeated id is rewritten, never merged.

Approvals are given by call id, so an id must name one call for the life of a session. A model
(or the server in front of it) may repeat one, within a turn or in a later turn; that call is
renamed ``{id}-2`` (``-3``, ...) for everything toolrig does with it (the approval gate, the held
calls, events, the execution log), while the provider still gets its results under the id it
sent, as its API requires.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from toolrig.core.result._result import ToolResult
from toolrig.providers._calls import ParsedCall
from toolrig.runtime._request import ToolCall

__all__ = ["CallIds", "to_wire"]


class CallIds:
    """The ids a session has used; :meth:`unique` renames the calls that repeat one."""

    def __init__(self, used: Iterable[str] = ()) -> None:
        self._used = list(dict.fromkeys(used))
        self._seen = set(self._used)

    @property
    def used(self) -> list[str]:
        """Every id used, in first-use order (what the session stores)."""
        return list(self._used)

    def __contains__(self, call_id: object) -> bool:
        return call_id in self._seen

    def unique(self, calls: Sequence[ParsedCall]) -> tuple[list[ParsedCall], dict[str, str]]:
        """``calls`` with each repeated id rewritten, and the rewritten ids mapped to the ids
        the model sent."""
        out: list[ParsedCall] = []
        wire: dict[str, str] = {}
        for call in calls:
            sent = _sent_id(call)
            if not sent:  # no id: the executor gives the call a fresh random one
                out.append(call)
                continue
            own = sent if sent not in self._seen else self._fresh(sent)
            self._add(own)
            if own == sent:
                out.append(call)
                continue
            wire[own] = sent
            if isinstance(call, ToolCall):
                out.append(replace(call, tool_call_id=own))
            else:  # an unreadable call, answered with an error under the new id
                out.append(_with_id(call, own))
        return out, wire

    def _fresh(self, sent: str) -> str:
        number = 2
        while f"{sent}-{number}" in self._seen:
            number += 1
        return f"{sent}-{number}"

    def _add(self, call_id: str) -> None:
        self._used.append(call_id)
        self._seen.add(call_id)


def to_wire(results: Sequence[ToolResult], wire: Mapping[str, str]) -> list[ToolResult]:
    """``results`` under the ids the model sent (copies where an id was rewritten)."""
    if not wire:
        return list(results)
    return [
        _with_id(r, wire[r.metadata.tool_call_id])
        if r.metadata is not None and r.metadata.tool_call_id in wire
        else r
        for r in results
    ]


def _sent_id(call: ParsedCall) -> str | None:
    if isinstance(call, ToolCall):
        return call.tool_call_id
    return call.metadata.tool_call_id if call.metadata is not None else None


def _with_id(result: ToolResult, call_id: str) -> ToolResult:
    assert result.metadata is not None
    return replace(result, metadata=replace(result.metadata, tool_call_id=call_id))
