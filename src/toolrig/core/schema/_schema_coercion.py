"""Safe coercion for tools defined from JSON Schema: text where the schema wants another type.

Models often send ``"5"`` for an integer, ``"true"`` for a boolean, or an object as JSON text.
Outside strict mode such a value is converted, but only where the validator itself said the
string is the wrong type and named the types it wanted (``type`` errors, also inside the branches
of ``anyOf``/``oneOf``), and only into one of those types. The converted arguments are then
validated again in full, so a conversion can never let through what the schema refuses.

Conversions, tried in this order among the wanted types: JSON text of an object or array (no
``NaN``, nesting bounded); an integer (``"5"``, ``"5.0"``, ``"1e3"``); a number; a boolean
(``true/false``, ``yes/no``, ``on/off``, ``1/0``, ``t/f``, ``y/n``, any case); ``null`` from
``"null"``. Each round converts what the validator reported; decoded JSON may hold more text to
convert, so there are up to :data:`ROUNDS` rounds.
"""

from __future__ import annotations

import math
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any, Final

from toolrig.core.schema._json_data import loads_json, plain, value_at

if TYPE_CHECKING:
    import jsonschema_rs

    from toolrig.core.schema._json_schema import JsonSchema

__all__ = ["ROUNDS", "coerce"]

ROUNDS: Final = 4
_ERRORS_READ: Final = 200
_MAX_NUMBER_TEXT: Final = 100
_TRUE: Final = frozenset({"true", "yes", "on", "1", "t", "y"})
_FALSE: Final = frozenset({"false", "no", "off", "0", "f", "n"})
_NO: Final = object()

Loc = tuple[str | int, ...]


def coerce(schema: JsonSchema, arguments: dict[str, Any]) -> dict[str, Any] | None:
    """``arguments`` with the strings converted that the schema wants as another type, or
    ``None`` when nothing was converted. Never modifies ``arguments``."""
    value: Any = arguments
    changed = False
    for _ in range(ROUNDS):
        if not plain(value):
            break
        wanted: dict[Loc, set[str]] = {}
        try:
            for error in schema.errors(value, _ERRORS_READ):
                _collect(error, wanted, 0)
        except (ValueError, TypeError, OverflowError, RecursionError):
            break
        progressed = False
        for loc in sorted(wanted, key=len):
            current = value_at(value, loc)
            if not isinstance(current, str):
                continue
            converted = _convert(current, wanted[loc])
            if converted is not _NO:
                value = _replaced(value, loc, converted)
                progressed = True
        if not progressed:
            break
        changed = True
        if schema.is_valid(value):  # done: no need to ask for the errors again
            break
    return value if changed else None


def _collect(error: jsonschema_rs.ValidationError, wanted: dict[Loc, set[str]], depth: int) -> None:
    kind = error.kind
    name = kind.name
    if name == "type":
        wanted.setdefault(tuple(error.instance_path), set()).update(kind.types)  # type: ignore[attr-defined]
    elif name in ("anyOf", "oneOf") and depth < 3:
        for branch in getattr(kind, "context", None) or []:
            for inner in branch:
                _collect(inner, wanted, depth + 1)


def _convert(text: str, types: set[str]) -> Any:
    stripped = text.strip()
    if stripped[:1] in ("{", "[") and types & {"object", "array"}:
        try:
            decoded = loads_json(stripped)
        except ValueError:
            decoded = _NO
        if isinstance(decoded, dict) and "object" in types:
            return decoded
        if isinstance(decoded, list) and "array" in types:
            return decoded
    if "integer" in types:
        number = _integer(stripped)
        if number is not _NO:
            return number
    if "number" in types:
        number = _number(stripped)
        if number is not _NO:
            return number
    if "boolean" in types:
        low = stripped.lower()
        if low in _TRUE or low in _FALSE:
            return low in _TRUE
    if "null" in types and stripped.lower() == "null":
        return None
    return _NO


def _integer(text: str) -> Any:
    if not text or len(text) > _MAX_NUMBER_TEXT:
        return _NO
    try:
        return int(text)
    except ValueError:
        pass
    try:
        decimal = Decimal(text)
    except InvalidOperation:
        return _NO
    if not decimal.is_finite() or decimal.adjusted() > _MAX_NUMBER_TEXT:
        return _NO
    return int(decimal) if decimal == decimal.to_integral_value() else _NO


def _number(text: str) -> Any:
    if not text or len(text) > _MAX_NUMBER_TEXT:
        return _NO
    try:
        return int(text)
    except ValueError:
        pass
    try:
        number = float(text)
    except ValueError:
        return _NO
    return number if math.isfinite(number) else _NO


def _replaced(value: Any, loc: Loc, new: Any) -> Any:
    """``value`` with the part at ``loc`` replaced, copying only the containers on the way."""
    if not loc:
        return new
    head, rest = loc[0], loc[1:]
    if isinstance(value, dict):
        out = dict(value)
        out[head] = _replaced(value[head], rest, new)
        return out
    items = list(value)
    items[int(head)] = _replaced(value[int(head)], rest, new)
    return items
