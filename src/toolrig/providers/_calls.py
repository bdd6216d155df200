"""What every provider's parser shares: reading SDK objects or dicts, building calls, running them.

A parser turns each tool call of a response into a :class:`~toolrig.ToolCall` named with the
executor's call name, or, when the call cannot run as given (arguments that are not JSON), into
an ``invalid_arguments`` :class:`~toolrig.ToolResult` that goes back to the model like any
other result.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeAlias

from toolrig.core.model._errors import ErrorCode
from toolrig.core.result._result import ToolResult, error_result
from toolrig.core.schema._json_data import loads_json
from toolrig.providers._names import NameMap
from toolrig.providers._schema_walk import restore_arguments
from toolrig.runtime._executor import ToolExecutor
from toolrig.runtime._request import ToolCall

__all__ = [
    "ParsedCall",
    "execute_calls",
    "execute_calls_sync",
    "get_field",
    "make_call",
]

ParsedCall: TypeAlias = ToolCall | ToolResult
"""A call ready to run, or the result of one that cannot run as given."""

_MISSING = object()


def get_field(obj: Any, *names: str, default: Any = None) -> Any:
    """The first of ``names`` present on ``obj``: a mapping key or an attribute.

    SDK objects (pydantic models with snake_case attributes) and plain dicts (often camelCase
    JSON) are read the same way; pass both spellings when they differ.
    """
    for name in names:
        if isinstance(obj, Mapping):
            value = obj.get(name, _MISSING)
        else:
            value = getattr(obj, name, _MISSING)
        if value is not _MISSING and value is not None:
            return value
    return default


def as_list(value: Any) -> list[Any]:
    """``value`` as a list (``None`` is empty; a single object is a one-item list)."""
    if value is None:
        return []
    if isinstance(value, list | tuple):
        return list(value)
    if isinstance(value, Mapping | str | bytes):
        return [value]
    if isinstance(value, Iterable):
        return list(value)
    return [value]


def make_call(
    names: NameMap,
    provider_name: str,
    arguments: Any,
    call_id: str | None,
    *,
    json_text: bool = False,
) -> ParsedCall:
    """A :class:`ToolCall` for the executor from what the model sent.

    ``arguments`` may be a mapping or JSON text (OpenAI sends text); text that is not JSON
    becomes an ``invalid_arguments`` result naming the problem. Arguments are put back in terms
    of the original schema (see :func:`~toolrig.providers.restore_arguments`); ``json_text``
    says the export described some values as JSON text (OpenAI strict mode, Gemini).
    """
    entry = names.lookup(provider_name)
    call_name = provider_name if entry is None else entry.call_name
    if isinstance(arguments, bytes | bytearray):
        arguments = arguments.decode("utf-8", errors="replace")
    if isinstance(arguments, str):
        text = arguments.strip()
        if not text:
            arguments = {}
        else:
            try:
                arguments = loads_json(text)  # nesting too deep is a ValueError too
            except ValueError as exc:
                where = (
                    f" at line {exc.lineno}, column {exc.colno}"
                    if isinstance(exc, json.JSONDecodeError)
                    else ""
                )
                reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
                shown = text if len(text) <= 200 else text[:197] + "..."
                return error_result(
                    ErrorCode.INVALID_ARGUMENTS,
                    f"The arguments for `{provider_name}` are not valid JSON ({reason}{where}): "
                    f"{shown}",
                    hint='Send the arguments as one JSON object, such as {"name": "value"}.',
                    tool=entry.tool.name if entry else provider_name,
                    action=entry.action.name if entry else None,
                    tool_call_id=call_id,
                )
    elif arguments is None:
        arguments = {}
    if entry is not None and isinstance(arguments, Mapping):
        arguments = restore_arguments(arguments, entry.action.parameters, json_text=json_text)
    elif isinstance(arguments, Mapping):
        arguments = dict(arguments)
    return ToolCall(name=call_name, arguments=arguments, tool_call_id=call_id)


async def execute_calls(executor: ToolExecutor, calls: Sequence[ParsedCall]) -> list[ToolResult]:
    """Run the calls concurrently through ``executor``; results come back in the calls' order
    (a result standing for a call that could not run is passed through)."""
    runnable = [c for c in calls if isinstance(c, ToolCall)]
    done = iter(await executor.execute_many(runnable)) if runnable else iter(())
    return [next(done) if isinstance(c, ToolCall) else c for c in calls]


def execute_calls_sync(executor: ToolExecutor, calls: Sequence[ParsedCall]) -> list[ToolResult]:
    """Blocking :func:`execute_calls`."""
    runnable = [c for c in calls if isinstance(c, ToolCall)]
    done = iter(executor.execute_many_sync(runnable)) if runnable else iter(())
    return [next(done) if isinstance(c, ToolCall) else c for c in calls]


def result_call_id(result: ToolResult) -> str:
    """The call id a result answers."""
    return result.metadata.tool_call_id if result.metadata is not None else ""
