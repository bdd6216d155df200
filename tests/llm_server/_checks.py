"""Shared request checks: SDK request types that refuse unknown keys, and API refusals."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any

from pydantic import TypeAdapter, ValidationError

REASONING = re.compile(r"^(?:[\w.-]+/)?(?:o\d|gpt-5)(?:$|[-.:_])", re.IGNORECASE)
"""Model names the OpenAI API treats as reasoning models."""


class Refusal(Exception):
    """The request is refused as the real API would refuse it: HTTP ``status``, ``message``,
    and for OpenAI the ``param`` and ``code`` of its error object."""

    def __init__(
        self, message: str, *, param: str | None = None, code: str | None = None, status: int = 400
    ) -> None:
        super().__init__(message)
        self.message = message
        self.param = param
        self.code = code
        self.status = status


@cache
def adapter(kind: Any) -> TypeAdapter[Any]:
    return TypeAdapter(kind)


def _materialize(value: Any) -> Any:
    """Validated TypedDicts hold lazy iterators for ``Iterable`` fields; make them lists."""
    if isinstance(value, Mapping):
        return {k: _materialize(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_materialize(v) for v in value]
    if isinstance(value, Iterator):
        return [_materialize(v) for v in value]
    return value


def conforms(kind: Any, value: Any, where: str) -> None:
    """``value`` is a valid ``kind`` with no key the type does not know, else a refusal."""
    try:
        validated = _materialize(adapter(kind).validate_python(value))
    except ValidationError as exc:
        first = exc.errors()[0]
        path = ".".join(str(p) for p in first["loc"])
        raise Refusal(f"Invalid value for '{where}.{path}': {first['msg']}", param=where) from None
    if validated != _materialize(value):
        extra = _first_difference(value, validated)
        raise Refusal(
            f"Unknown parameter: '{where}{extra}'.", param=where, code="unknown_parameter"
        )


def _first_difference(given: Any, validated: Any, path: str = "") -> str:
    if isinstance(given, Mapping) and isinstance(validated, Mapping):
        for key in given:
            if key not in validated:
                return f"{path}.{key}"
            found = _first_difference(given[key], validated[key], f"{path}.{key}")
            if found:
                return found
    if isinstance(given, list | tuple) and isinstance(validated, list):
        for index, (a, b) in enumerate(zip(given, validated, strict=False)):
            found = _first_difference(a, b, f"{path}[{index}]")
            if found:
                return found
    return path if given != validated else ""


def known_fields(kind: Any) -> set[str]:
    """The request fields a TypedDict (with its bases) declares."""
    return set(kind.__required_keys__) | set(kind.__optional_keys__)


def check_fields(body: Mapping[str, Any], kind: Any, accept: set[str]) -> None:
    """Refuse request fields the API does not know (``accept`` adds a server's own)."""
    unknown = sorted(set(body) - known_fields(kind) - accept - {"stream"})
    if unknown:
        raise Refusal(
            f"Unrecognized request argument supplied: {unknown[0]}",
            param=unknown[0],
            code="unknown_parameter",
        )
