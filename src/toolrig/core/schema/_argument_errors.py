"""The ``invalid_arguments`` error a model reads: every problem, path first, and how to fix it.

Both argument validators (pydantic-core for tools defined from type hints, JSON Schema for tools
defined from a schema) describe problems as :class:`Problem` dicts and leave the message to
:func:`invalid_arguments`, so a model reads one format whichever way the tool was defined. The
helpers that put a schema in words (:func:`describe_type`, :func:`parameters_hint`) read the
exported JSON Schema, following local ``$ref``s a bounded number of times.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from toolrig.core.model._errors import ErrorCode
from toolrig.core.model._suggest import closest
from toolrig.core.result._jsonable import clean_text
from toolrig.core.result._preview import preview, shown
from toolrig.core.result._result import ErrorInfo

__all__ = [
    "MAX_PROBLEMS",
    "Problem",
    "describe_type",
    "format_path",
    "invalid_arguments",
    "parameters_hint",
    "resolve",
    "schema_at",
    "too_deep",
    "unknown_parameter",
]

MAX_PROBLEMS: Final = 20
"""Problems listed in one message (the count says how many more there are)."""

Problem = dict[str, Any]
"""``{"path", "problem", "expected", "received", "text"}`` (and ``suggestions`` for unknown
names). ``problem`` is ``missing`` and ``extra_forbidden`` for absent and unknown parameters,
else the failing check's name."""


_SHOWN_PARTS: Final = 12
_LISTED_NAMES: Final = 50


def unknown_parameter(loc: Sequence[str | int], names: Sequence[str], received: Any) -> Problem:
    """The problem of a parameter not among ``names`` (both validators word it here): "unknown
    parameter; did you mean `limit`? Valid names here: query, limit"."""
    bad = clean_text(str(loc[-1])) if loc else ""
    close = closest(bad, names) if bad else []
    text = "unknown parameter"
    if close:
        text += f"; did you mean {' or '.join(f'`{c}`' for c in close)}?"
    if names:
        listed = ", ".join(names[:_LISTED_NAMES])
        more = f" and {len(names) - _LISTED_NAMES} more" if len(names) > _LISTED_NAMES else ""
        text += f"{'' if close else '.'} Valid names here: {listed}{more}."
    return {
        "path": format_path(loc),
        "problem": "extra_forbidden",
        "expected": list(names),
        "received": shown(received),
        "text": text,
        "suggestions": close,
    }


def format_path(loc: Sequence[str | int]) -> str:
    """``('filters', 'tags', 2)`` -> ``filters.tags[2]`` (a very deep one is shortened)."""
    if len(loc) > _SHOWN_PARTS:
        return f"{format_path(loc[:_SHOWN_PARTS])}...({len(loc)} levels deep)"
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            name = clean_text(str(part))[:100]
            out += f".{name}" if out else name
    return out or "(arguments)"


def invalid_arguments(
    subject: str, problems: list[Problem], total: int | None, hint: str
) -> ErrorInfo:
    """One error listing ``problems`` (``total``: how many there were; ``None``: more than
    could be counted)."""
    lines = [f"- {p['path']}: {p.pop('text')}" for p in problems[:MAX_PROBLEMS]]
    count = len(problems) if total is None else total
    more = count - len(lines)
    if more > 0 or total is None:
        lines.append(f"- ... and {'more' if total is None else more} more problems")
    amount = f"at least {count} problems" if total is None else _plural(count, "problem")
    return ErrorInfo(
        code=ErrorCode.INVALID_ARGUMENTS,
        message=f"Invalid arguments for `{subject}`: {amount}.\n" + "\n".join(lines),
        hint=hint,
        details=problems[:MAX_PROBLEMS],
    )


def too_deep(subject: str) -> ErrorInfo:
    """The error for arguments nested too deeply to be read at all."""
    return ErrorInfo(
        code=ErrorCode.INVALID_ARGUMENTS,
        message=f"Invalid arguments for `{subject}`: nested too deeply.",
        hint=f"Send flatter arguments to `{subject}`.",
    )


def parameters_hint(subject: str, schema: Mapping[str, Any]) -> str:
    """``Fix the arguments ... Parameters: a (integer, required), b (string).``"""
    hint = f"Fix the arguments listed above and call `{subject}` again."
    props = schema.get("properties")
    if not isinstance(props, Mapping) or not props:
        return hint
    required = schema.get("required")
    needed = set(required) if isinstance(required, list) else set()
    parts = []
    for name, sub in list(props.items())[:50]:
        kind = describe_type(resolve(sub, schema))
        kind = kind.split(" ", 1)[1] if kind.startswith(("a ", "an ")) else kind
        parts.append(f"{name} ({kind}{', required' if name in needed else ''})")
    return f"{hint} Parameters: {', '.join(parts)}."


def schema_at(schema: Mapping[str, Any], loc: Sequence[str | int]) -> Mapping[str, Any] | None:
    """The sub-schema at ``loc`` (following properties, items and local refs), if known."""
    node: Any = schema
    for part in loc:
        node = resolve(node, schema)
        if not isinstance(node, Mapping):
            return None
        if isinstance(part, int):
            prefix = node.get("prefixItems")
            if isinstance(prefix, list) and part < len(prefix):
                node = prefix[part]
            else:
                node = node.get("items")
            continue
        props = node.get("properties")
        if not isinstance(props, Mapping) or part not in props:
            props = _member_with(node, part, schema)
            if props is None:
                return None
        node = props[part]
    node = resolve(node, schema)
    return node if isinstance(node, Mapping) else None


def _member_with(node: Mapping[str, Any], name: str, root: Mapping[str, Any]) -> Any:
    """The ``properties`` of the first union or ``allOf`` member declaring ``name``."""
    for key in ("anyOf", "oneOf", "allOf"):
        members = node.get(key)
        for option in members if isinstance(members, list) else []:
            option = resolve(option, root)
            props = option.get("properties") if isinstance(option, Mapping) else None
            if isinstance(props, Mapping) and name in props:
                return props
    return None


def resolve(node: Any, root: Mapping[str, Any]) -> Any:
    """``node`` with local ``$ref``s (``#/...``) followed, at most 16 times."""
    for _ in range(16):
        if not isinstance(node, Mapping):
            break
        ref = node.get("$ref")
        if not isinstance(ref, str) or not ref.startswith("#/"):
            break
        target: Any = root
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(target, Mapping):
                target = target.get(part)
            elif isinstance(target, list) and part.isdigit() and int(part) < len(target):
                target = target[int(part)]
            else:
                return None
        node = target
    return node


def describe_type(sub: Any) -> str:
    """A schema's accepted values in a few words: ``an integer``, ``one of "a", "b"``."""
    if sub is False:
        return "no value"
    if not isinstance(sub, Mapping) or not sub:
        return "a value"
    if isinstance(sub.get("enum"), list):
        return (
            "one of "
            + ", ".join(_literal(v) for v in sub["enum"][:10])
            + (", ..." if len(sub["enum"]) > 10 else "")
        )
    if "const" in sub:
        return f"exactly {_literal(sub['const'])}"
    kind = sub.get("type")
    if isinstance(kind, list):
        return " or ".join(_article(str(k)) for k in kind[:7])
    if isinstance(kind, str):
        return _article(kind)
    for key in ("anyOf", "oneOf"):
        if key in sub:
            return "one of the allowed shapes"
    return "a value"


def _article(kind: str) -> str:
    if kind == "null":
        return "null"
    return f"{'an' if kind[:1] in ('a', 'e', 'i', 'o', 'u') else 'a'} {kind}"


def _literal(value: Any) -> str:
    if isinstance(value, str) and len(value) <= 40:
        return json.dumps(clean_text(value), ensure_ascii=False)
    return preview(value, 40)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"
