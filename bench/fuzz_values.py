"""Seeded random arguments for :mod:`fuzz`: valid ones built from a tool's JSON Schema, then
mutated the ways callers and models get them wrong (wrong types, huge numbers, NaN, deep
nesting, huge and unencodable text, extra keys, JSON text, missing keys), and the independent
verdict on each (:func:`verdict`, by ``jsonschema``)."""

from __future__ import annotations

import json
import math
import random
import string
from collections.abc import Mapping
from typing import Any

import jsonschema

VALID, INVALID, LIMIT = "valid", "invalid", "limit"
MAX_CHECKED_DEPTH = 60
"""Deeper arguments are past what a validator must accept: refusing them is fine too."""


def deep_list(levels: int) -> Any:
    value: Any = "bottom"
    for _ in range(levels):
        value = [value]
    return value


def deep_dict(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = {"k": value}
    return value


class Values:
    """Random values and arguments, all drawn from one seeded generator."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    # -- valid instances ---------------------------------------------------------------------
    def valid(self, schema: Any, defs: Mapping[str, Any], depth: int = 0) -> Any:
        """A value ``schema`` accepts (for the shapes the fuzzed tools use)."""
        rng = self.rng
        if not isinstance(schema, Mapping) or depth > 6:
            return self.plain(depth)
        if "$ref" in schema:
            return self.valid(defs[schema["$ref"].rsplit("/", 1)[-1]], defs, depth + 1)
        if "anyOf" in schema:
            return self.valid(rng.choice(schema["anyOf"]), defs, depth + 1)
        if "enum" in schema:
            return rng.choice(schema["enum"])
        kind = schema.get("type")
        if kind == "integer":
            low, high = schema.get("minimum", -(10**6)), schema.get("maximum", 10**6)
            return rng.randint(low, high)
        if kind == "number":
            return rng.choice([rng.uniform(-1e6, 1e6), rng.randint(-100, 100)])
        if kind == "boolean":
            return rng.random() < 0.5
        if kind == "null":
            return None
        if kind == "string":
            low, high = schema.get("minLength", 0), min(schema.get("maxLength", 12), 12)
            return self.text(rng.randint(low, max(low, high)))
        if kind == "array":
            count = rng.randint(schema.get("minItems", 0), min(schema.get("maxItems", 4), 4))
            items = [self.valid(schema.get("items", {}), defs, depth + 1) for _ in range(count)]
            if schema.get("uniqueItems"):
                items = list({json.dumps(i, sort_keys=True): i for i in items}.values())
            return items
        if kind == "object" or "properties" in schema:
            props = schema.get("properties", {})
            required = set(schema.get("required", ()))
            return {
                name: self.valid(sub, defs, depth + 1)
                for name, sub in props.items()
                if name in required or rng.random() < 0.5
            }
        return self.plain(depth)

    def text(self, length: int) -> str:
        alphabet = string.ascii_letters + string.digits + " éü中"
        return "".join(self.rng.choice(alphabet) for _ in range(length))

    def plain(self, depth: int = 0) -> Any:
        """Any JSON value, small."""
        rng = self.rng
        pick = rng.randrange(8 if depth < 3 else 6)
        if pick == 0:
            return None
        if pick == 1:
            return rng.random() < 0.5
        if pick == 2:
            return rng.randint(-1000, 1000)
        if pick == 3:
            return rng.uniform(-1e3, 1e3)
        if pick in (4, 5):
            return self.text(rng.randint(0, 8))
        if pick == 6:
            return [self.plain(depth + 1) for _ in range(rng.randint(0, 3))]
        return {self.text(3): self.plain(depth + 1) for _ in range(rng.randint(0, 3))}

    # -- the ways arguments go wrong -------------------------------------------------------
    def hostile(self) -> Any:
        """One value of the kinds that break code that assumes nice JSON."""
        rng = self.rng
        pick = rng.randrange(20)
        return [
            math.nan,
            math.inf,
            -math.inf,
            10**400,
            10 ** rng.randint(4300, 6000),
            -(10**20000),
            "\ud800",
            "lone \udfff surrogate",
            "nul \x00 byte",
            "x" * rng.choice([10_000, 200_000]),
            deep_list(rng.randint(40, 3000)),
            deep_dict(rng.randint(40, 1500)),
            b"\xff\xfe bytes",
            {1, 2, 3},
            {1: "int key"},
            ("a", "tuple"),
            object(),
            {"\ud800": 1},
            2**63,
            -1e308 * 10,
        ][pick]

    def mutate(
        self, arguments: dict[str, Any], schema: Mapping[str, Any], defs: Mapping[str, Any]
    ) -> Any:
        """``arguments`` gone wrong in one or more ways (or left alone, sometimes)."""
        rng = self.rng
        props = list(schema.get("properties", {}))
        args: Any = dict(arguments)
        for _ in range(rng.randint(1, 3)):
            if not isinstance(args, dict):
                break
            pick = rng.randrange(10)
            key = rng.choice(props) if props else "x"
            if pick in (0, 1):  # a value of another type
                args[key] = self.plain()
            elif pick in (2, 3):
                args[key] = self.hostile()
            elif pick == 4 and args:  # a required key missing
                args.pop(rng.choice(list(args)))
            elif pick == 5:  # an extra key
                args[rng.choice(["extra", "self", "ctx", "\ud800", "__class__", ""])] = self.plain()
            elif pick == 6:  # the arguments as JSON text
                args = self.as_json_text(args)
            elif pick == 7:  # not an object at all
                args = rng.choice([None, [], [args], 5, "", "null", "[" * 5000 + "]" * 5000])
            elif pick == 8:  # text where a number was expected, and similar lax forms
                args[key] = rng.choice(["5", "1.5", "true", " 7 ", "1e3", "0x10", ""])
            else:
                args[key] = self.valid(schema.get("properties", {}).get(key, {}), defs, 0)
        return args

    def as_json_text(self, args: dict[str, Any]) -> str:
        rng = self.rng
        try:
            text = json.dumps(args)
        except (TypeError, ValueError, RecursionError):
            text = "{"
        pick = rng.randrange(5)
        if pick == 0:
            return text[: rng.randint(0, len(text))]  # cut short
        if pick == 1:
            return '{"a": NaN}'
        if pick == 2:
            return '{"value": ' + "[" * 3000 + "]" * 3000 + "}"
        return text


def _json_depth(value: Any) -> int | None:
    """The nesting depth of ``value`` if it is JSON data (else ``None``), iteratively."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    seen = 0
    while stack:
        item, depth = stack.pop()
        seen += 1
        deepest = max(deepest, depth)
        if depth > MAX_CHECKED_DEPTH + 1:
            return depth
        kind = type(item)
        if item is None or kind in (bool, int):
            continue
        if kind is float:
            if not math.isfinite(item):
                return None
            continue
        if kind is str:
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return None
            continue
        if kind is list or kind is tuple:
            # A tuple is the Python form of an array: toolrig's JSON conversion writes it as one,
            # both validators read it as one (strict calls too), and ``as_data`` turns it into
            # one for the check of accepted calls. Counting it as "not JSON" here made a strict
            # call with a tuple a "wrong error code" that no reading of the schema supports.
            stack.extend((v, depth + 1) for v in item)
            continue
        if kind is dict:
            for k, v in item.items():
                if type(k) is not str or _json_depth(k) is None:
                    return None
                stack.append((v, depth + 1))
            continue
        return None
    return deepest


def verdict(arguments: Any, validator: jsonschema.protocols.Validator) -> str:
    """What an exact validator must answer: :data:`VALID`, :data:`INVALID`, or :data:`LIMIT`
    (nested past :data:`MAX_CHECKED_DEPTH`: either answer is fine)."""
    if arguments is None:
        arguments = {}
    elif isinstance(arguments, str):
        try:
            arguments = json.loads(arguments, parse_constant=_refuse)
        except RecursionError:
            return LIMIT
        except ValueError:
            return INVALID
    if type(arguments) is not dict:
        return INVALID
    depth = _json_depth(arguments)
    if depth is None:
        return INVALID
    if depth > MAX_CHECKED_DEPTH:
        return LIMIT
    try:
        return VALID if validator.is_valid(_tame(arguments)) else INVALID
    except RecursionError:
        return LIMIT


def _refuse(name: str) -> Any:
    raise ValueError(name)


def conforms(values: Any, validator: jsonschema.protocols.Validator) -> bool | None:
    """Whether validated ``values`` (as JSON data) satisfy the schema (``None``: too deep to
    check here)."""
    depth = _json_depth(values)
    if depth is None:
        return False
    if depth > MAX_CHECKED_DEPTH:
        return None
    try:
        return bool(validator.is_valid(_tame(values)))
    except RecursionError:
        return None


def as_data(value: Any) -> Any:
    """Validated values as the JSON data they stand for (sets and tuples as arrays, enums as
    their values, models as objects); numbers are kept exactly as they are."""
    from enum import Enum

    from pydantic import BaseModel

    if isinstance(value, BaseModel):
        return as_data(value.model_dump())
    if isinstance(value, Enum):
        return as_data(value.value)
    if isinstance(value, dict):
        return {k: as_data(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [as_data(v) for v in value]
    return value


_HUGE = 10**4000  # as far past any bound here as a longer number, and printable


def _tame(value: Any) -> Any:
    """``value`` with integers too long for ``repr`` (which ``jsonschema``'s messages need)
    replaced by a printable stand-in of the same sign: the same verdict for every schema here."""
    kind = type(value)
    if kind is int and value.bit_length() > 13_000:
        return _HUGE if value > 0 else -_HUGE
    if kind is list or kind is tuple:  # ``jsonschema`` counts only a list as an array
        return [_tame(v) for v in value]
    if kind is dict:
        return {k: _tame(v) for k, v in value.items()}
    return value
