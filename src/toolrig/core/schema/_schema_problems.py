"""jsonschema-rs errors in words a model can act on: path, what was expected, what was received.

The validator's own messages quote the whole offending value (a megabyte array makes a megabyte
message) and speak of schemas ("is not valid under any of the schemas listed in the 'anyOf'
keyword"). Here each error becomes a :data:`~toolrig.core.schema._argument_errors.Problem` whose
``expected`` reads from the keyword that failed and whose ``received`` is a bounded preview of
the value found at the error's path in the arguments.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from toolrig.core.result._jsonable import clean_text
from toolrig.core.result._preview import preview, shown
from toolrig.core.schema._argument_errors import (
    Problem,
    describe_type,
    format_path,
    resolve,
    schema_at,
    unknown_parameter,
)
from toolrig.core.schema._json_data import ABSENT, value_at

__all__ = ["describe_problems", "schema_problems"]

if TYPE_CHECKING:
    import jsonschema_rs
_BRANCHES: Final = 5


def schema_problems(
    schema: Mapping[str, Any] | bool,
    enforced: Any,
    errors: Sequence[jsonschema_rs.ValidationError],
    value: Any,
) -> list[Problem]:
    """One problem per error (an error naming several unknown keys gives one per key)."""
    root = schema if isinstance(schema, Mapping) else {}
    problems: list[Problem] = []
    for error in errors:
        problems.extend(_problems(error, root, enforced, value))
    return problems


def describe_problems(compiled: Any, value: Any, limit: int) -> list[str]:
    """``path: text`` lines for why ``value`` fails ``compiled`` (a ``JsonSchema``)."""
    from toolrig.core.schema._json_data import data_problems, plain

    try:
        readable = plain(value)
        if readable:
            errors = compiled.errors(value, limit)
    except (ValueError, TypeError, OverflowError, RecursionError):
        readable = False
    if not readable:
        return [_line(format_path(loc), text) for loc, _, text in data_problems(value, limit)]
    found = schema_problems(compiled.schema, compiled.enforced, errors, value)
    return [_line(p["path"], p["text"]) for p in found[:limit]] or ["does not match the schema"]


def _line(path: str, text: str) -> str:
    return text if path == format_path(()) else f"{path}: {text}"


def _problems(
    error: jsonschema_rs.ValidationError, root: Mapping[str, Any], enforced: Any, value: Any
) -> Iterator[Problem]:
    kind: Any = error.kind  # its attributes depend on its class, told apart by name
    loc = tuple(error.instance_path)
    if _kind(kind) == "Required":
        yield _missing(loc, kind.property, error.schema_path, root)
    elif _kind(kind) in ("AdditionalProperties", "UnevaluatedProperties"):
        names = _declared(schema_at(root, loc), root)
        for key in kind.unexpected[:20]:
            yield unknown_parameter((*loc, key), names, value_at(value, (*loc, key)))
    else:
        expected = _expected(error, enforced)
        received = value_at(value, loc)
        text_received = shown(received) if received is not ABSENT else "(absent)"
        yield {
            "path": format_path(loc),
            "problem": kind.name,
            "expected": expected,
            "received": text_received,
            "text": f"expected {expected}, received {text_received}",
        }


def _missing(
    loc: tuple[str | int, ...], name: str, schema_path: Sequence[str | int], root: Mapping[str, Any]
) -> Problem:
    where = (*loc, name)
    expected = describe_type(schema_at(root, where))
    text = f"required parameter is missing (expected {expected})"
    for keyword in ("dependentRequired", "dependencies"):
        if keyword in schema_path:
            index = list(schema_path).index(keyword)
            if index + 1 < len(schema_path):
                text += f"; it is required when `{schema_path[index + 1]}` is given"
    return {
        "path": format_path(where),
        "problem": "missing",
        "expected": expected,
        "received": None,
        "text": text,
    }


def _declared(node: Mapping[str, Any] | None, root: Mapping[str, Any]) -> list[str]:
    """Property names declared at a node, with those of its ``allOf``/``anyOf``/``oneOf``
    members and ``$ref`` targets."""
    names: dict[str, None] = {}
    todo: list[Any] = [node]
    seen = 0
    while todo and seen < 50:
        current = resolve(todo.pop(0), root)
        seen += 1
        if not isinstance(current, Mapping):
            continue
        props = current.get("properties")
        if isinstance(props, Mapping):
            names.update(dict.fromkeys(k for k in props if isinstance(k, str)))
        for key in ("allOf", "anyOf", "oneOf"):
            members = current.get(key)
            todo.extend(members if isinstance(members, list) else [])
    return [clean_text(n) for n in names]


def _expected(error: jsonschema_rs.ValidationError, enforced: Any) -> str:
    kind: Any = error.kind  # its attributes depend on its class, told apart by name
    if _kind(kind) == "Type":
        return describe_type({"type": list(kind.types)})
    if _kind(kind) == "Enum":
        return describe_type({"enum": list(kind.options)})
    if _kind(kind) == "Constant":
        return describe_type({"const": kind.expected_value})
    simple = _SIMPLE.get(_kind(kind))
    if simple is not None:
        return str(simple(kind))
    if _kind(kind) == "Contains":
        return _contains(error, enforced)
    if _kind(kind) == "PropertyNames":
        inner = kind.error
        name = preview(inner.instance, 40)
        return f"property names that are {_expected(inner, enforced)} ({name} is not)"
    if _kind(kind) in ("AnyOf", "OneOfNotValid"):
        word = "one of" if _kind(kind) == "AnyOf" else "exactly one of"
        return f"{word}: {_branches(kind.context, enforced, len(error.instance_path))}"
    if _kind(kind) == "OneOfMultipleValid":
        return "exactly one of the allowed shapes, but the value matches several of them"
    if _kind(kind) == "Not":
        return f"a value that does not match {preview(kind.schema, 60)}"
    if _kind(kind) in ("AdditionalItems", "UnevaluatedItems"):
        return "no items beyond those the schema declares"
    return clean_text(str(error.message).split("\n", 1)[0])[:200]


def _branches(context: list[list[jsonschema_rs.ValidationError]], enforced: Any, depth: int) -> str:
    """What each branch wanted, in a few words (paths relative to the value)."""
    parts = []
    for branch in context[:_BRANCHES]:
        if not branch:
            continue
        first = branch[0]
        text = _expected(first, enforced)
        inner = tuple(first.instance_path)[depth:]
        if inner:
            text = f"{format_path(inner)} {text}"
        parts.append(text[:80])
    if len(context) > _BRANCHES:
        parts.append("...")
    return "; ".join(parts) or "one of the allowed shapes"


def _contains(error: jsonschema_rs.ValidationError, enforced: Any) -> str:
    path = list(error.schema_path)
    keyword = path[-1] if path else "contains"
    node: Any = enforced
    for part in path[:-1]:
        node = (
            node.get(part)
            if isinstance(node, Mapping)
            else (node[part] if isinstance(node, list) and isinstance(part, int) else None)
        )
    amount = node.get(keyword) if isinstance(node, Mapping) else None
    if keyword == "minContains" and isinstance(amount, int):
        return f"an array with at least {amount} items matching its `contains` schema"
    if keyword == "maxContains" and isinstance(amount, int):
        return f"an array with at most {amount} items matching its `contains` schema"
    return "an array with at least one item matching its `contains` schema"


def _kind(kind: Any) -> str:
    """The class name of an error's kind (``Minimum``, ``OneOfNotValid``...); by name, so that
    this module does not import the validator before a schema is compiled."""
    return type(kind).__name__


def _items(count: Any, word: str) -> str:
    if count == 1:
        return f"1 {word}"
    return f"{count} {'properties' if word == 'property' else word + 's'}"


_SIMPLE: Final[dict[str, Any]] = {
    "Minimum": lambda k: f"a number greater than or equal to {preview(k.limit)}",
    "Maximum": lambda k: f"a number less than or equal to {preview(k.limit)}",
    "ExclusiveMinimum": lambda k: f"a number greater than {preview(k.limit)}",
    "ExclusiveMaximum": lambda k: f"a number less than {preview(k.limit)}",
    "MultipleOf": lambda k: f"a multiple of {preview(k.multiple_of)}",
    "MinLength": lambda k: f"a string of at least {_items(k.limit, 'character')}",
    "MaxLength": lambda k: f"a string of at most {_items(k.limit, 'character')}",
    "Pattern": lambda k: f"a string matching the pattern {preview(k.pattern, 100)}",
    "Format": lambda k: f"a valid {clean_text(k.format)} string",
    "MinItems": lambda k: f"an array of at least {_items(k.limit, 'item')}",
    "MaxItems": lambda k: f"an array of at most {_items(k.limit, 'item')}",
    "UniqueItems": lambda k: "an array without duplicate items",
    "MinProperties": lambda k: f"an object with at least {_items(k.limit, 'property')}",
    "MaxProperties": lambda k: f"an object with at most {_items(k.limit, 'property')}",
    "FalseSchema": lambda k: "no value (nothing is allowed here)",
    "BacktrackLimitExceeded": lambda k: "a string the pattern can be checked against in time",
    "RegexEngineFailure": lambda k: "a string the pattern can be checked against",
}
